#!/usr/bin/env node
// A random cased BERT checkpoint, for tests and measurements: config.json, vocab.txt (a cased
// WordPiece vocabulary with accented French words, every Latin, Greek and Cyrillic letter
// alone and as a "##" piece, then fillers up to the size asked), tokenizer_config.json
// (`do_lower_case` false, as bert-base-cased and bert-base-multilingual-cased have it) and
// model.safetensors (random weights on the per-row int8 grid, tests/lib/checkpoints.mjs, so that
// an int8 conversion is exact and the float64 reference runs on the very values the engine has).
//
//   node tools/make-cased-checkpoint.mjs OUT_DIR [--layers 2] [--hidden 64] [--heads 2] [--ffn 4×hidden]
//        [--vocab 2000] [--positions 128] [--seed 1] [--lowercase] [--strip-accents] [--base-vocab FILE]
//
// --vocab 119547 --layers 12 --hidden 768 --heads 12 is the shape of bert-base-multilingual-cased.
// --base-vocab puts a vocab.txt's lines first (the cased entries follow, then the fillers).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { compactConfig, randomTensors, writeCheckpoint } from '../tests/lib/checkpoints.mjs';

const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
// Whole words of the English and French test sentences, cased and accented as written, and
// their lowercase forms.
const WORDS = ['The', 'the', 'cat', 'sat', 'on', 'mat', 'because', 'it', 'was', 'tired', 'A', 'a', 'dog', 'ran', 'to',
  'park', 'Paris', 'Le', 'le', 'La', 'la', 'chat', 'chats', 's', 'est', 'assis', 'sur', 'tapis', 'parce', 'qu', 'il', 'était',
  'fatigué', 'Fatigué', 'École', 'école', 'élève', 'Élève', 'professeur', 'à', 'où', 'ça', 'garçon', 'français', 'Français',
  'être', 'très', 'déjà', 'noël', 'Noël', 'cœur', 'naïve', 'Été', 'été', 'café', 'Café', 'CAFÉ', 'dans', 'une', 'un', 'de',
  'du', 'des', 'et', 'en', 'ne', 'pas', 'plus', 'Qu', 'Il', 'Elle', 'elle'];
const PIECES = ['##s', '##e', '##é', '##ée', '##és', '##er', '##ait', '##ant', '##ment', '##tion', '##ing', '##ed', '##É'];

/** Letters alone and as pieces: ASCII, Latin-1 to Latin Extended-B, Greek, Cyrillic. */
function letterEntries() {
  const entries = [];
  const ranges = [[0x21, 0x7E], [0xA1, 0x24F], [0x370, 0x3FF], [0x400, 0x4FF]];
  for (const [first, last] of ranges) {
    for (let c = first; c <= last; c++) {
      const s = String.fromCodePoint(c);
      if (/\p{L}|\p{N}|\p{P}|\p{S}/u.test(s)) entries.push(s);
    }
  }
  return [...entries, ...entries.filter((s) => /\p{L}/u.test(s)).map((s) => `##${s}`)];
}

/** The cased vocabulary's lines: base lines (if any), specials, words, pieces, letters, fillers. */
export function casedVocabLines(size, baseLines = []) {
  const seen = new Set();
  const lines = [];
  for (const entry of [...baseLines, ...SPECIAL, ...WORDS, ...PIECES, ...letterEntries()]) {
    if (seen.has(entry) || entry.trim() !== entry || entry === '') continue;
    seen.add(entry);
    lines.push(entry);
  }
  if (lines.length > size) throw new Error(`a cased vocabulary needs at least ${lines.length} entries, ${size} asked`);
  for (let i = 0; lines.length < size; i++) lines.push(`Filler${i}`);
  return lines;
}

/** tokenizer_config.json's BertTokenizer keys for these settings. */
export function tokenizerConfig({ lowercase = false, stripAccents = null, chineseChars = true } = {}) {
  return { do_lower_case: lowercase, strip_accents: stripAccents, tokenize_chinese_chars: chineseChars, tokenizer_class: 'BertTokenizer' };
}

/**
 * Writes the checkpoint; returns { dir, config, tensors, vocab (lines) }. options: layers,
 * hidden, heads, ffn, vocab, positions, seed, lowercase, stripAccents, chineseChars, baseLines.
 */
export function makeCasedCheckpoint(dir, options = {}) {
  const { layers = 2, hidden = 64, heads = 2, vocab = 2000, positions = 128, seed = 1, baseLines = [] } = options;
  const config = compactConfig({ layers, hidden, heads, ffn: options.ffn ?? 4 * hidden, vocab, positions });
  const lines = casedVocabLines(vocab, baseLines);
  const { tensors, shapes } = randomTensors(config, seed);
  writeCheckpoint(dir, { config, tensors, shapes, vocabText: `${lines.join('\n')}\n` });
  fs.writeFileSync(path.join(dir, 'tokenizer_config.json'),
    `${JSON.stringify(tokenizerConfig({ lowercase: options.lowercase ?? false, stripAccents: options.stripAccents ?? null,
      chineseChars: options.chineseChars ?? true }), null, 2)}\n`);
  return { dir, config, tensors, vocab: lines };
}

function parseArguments(argv) {
  const options = {};
  const numbers = { '--layers': 'layers', '--hidden': 'hidden', '--heads': 'heads', '--ffn': 'ffn', '--vocab': 'vocab', '--positions': 'positions', '--seed': 'seed' };
  let dir = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (numbers[arg]) {
      const value = Number(argv[++i]);
      if (!Number.isInteger(value) || value <= 0) throw new Error(`${arg} needs a positive integer`);
      options[numbers[arg]] = value;
    } else if (arg === '--lowercase') options.lowercase = true;
    else if (arg === '--strip-accents') options.stripAccents = true;
    else if (arg === '--base-vocab') options.baseLines = fs.readFileSync(argv[++i], 'utf8').split('\n').filter(Boolean);
    else if (arg.startsWith('--')) throw new Error(`unknown option ${arg}`);
    else if (dir === null) dir = arg;
    else throw new Error(`one output folder, not ${dir} and ${arg}`);
  }
  if (!dir) throw new Error('usage: node tools/make-cased-checkpoint.mjs OUT_DIR [--layers N] [--hidden N] [--heads N] [--vocab N] …');
  return { dir, options };
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  try {
    const { dir, options } = parseArguments(process.argv.slice(2));
    const { config } = makeCasedCheckpoint(dir, options);
    console.log(`${dir}: ${config.num_hidden_layers} layers × ${config.num_attention_heads} heads, hidden ${config.hidden_size}, `
      + `vocabulary ${config.vocab_size} (cased${options.lowercase ? ', lowercased' : ''})`);
  } catch (error) {
    console.error(`make-cased-checkpoint: ${error.message}`);
    process.exit(1);
  }
}
