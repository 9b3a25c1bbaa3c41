// The engine's tokenizer against the reference (npm `tokenizers`) in each of its settings, on
// code points alone and in context (ids and offsets exactly): shared by
// tests/tokenizer-modes.test.mjs (a sample, in `make test`) and tests/tokenizer-exhaustive.test.mjs
// (every code point, in `make test-all`).
//
// Each mode's engine runs a checkpoint made by tools/make-cased-checkpoint.mjs (random weights,
// one small layer) whose vocabulary is bert-mini's followed by the lowercase form of every letter
// that has one, then cased entries: every Latin, Greek and Cyrillic letter alone and as a "##"
// piece, cased and accented French words. Its
// tokenizer_config.json gives the mode's settings, which the converter stores (format version 3)
// and the engine honours.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCasedCheckpoint } from '../../tools/make-cased-checkpoint.mjs';
import { createEngine } from '../../web/src/engine.mjs';
import { defaultWeights, loadEngine, repoRoot } from './node-engine.mjs';

const { Tokenizer, WordPiece, bertNormalizer, bertPreTokenizer, bertProcessing } =
  createRequire(import.meta.url)('tokenizers');

const SPECIAL_TOKENS = ['[CLS]', '[SEP]', '[MASK]', '[PAD]', '[UNK]'];
const REPORTED = 20;
const BATCH = 8192;
const SEPARATOR = ' \n ';

/** BertNormalizer's settings of each mode (clean_text always on). */
export const MODES = {
  uncased: { lowercase: true, stripAccents: true, chineseChars: true },
  cased: { lowercase: false, stripAccents: false, chineseChars: true },            // bert-base-cased, mBERT cased
  'lowercased, accents kept': { lowercase: true, stripAccents: false, chineseChars: true },
  'cased, accents stripped': { lowercase: false, stripAccents: true, chineseChars: true },
  'cased, Chinese characters not spaced': { lowercase: false, stripAccents: false, chineseChars: false },
};

const workDir = mkdtempSync(join(tmpdir(), 'tokenizer-sweep-'));
process.on('exit', () => rmSync(workDir, { recursive: true, force: true }));

/** The code points that have a lowercase form (as this Node's Unicode data says): the sample takes them all. */
export function casedCodePoints() {
  const codes = [];
  for (let c = 0; c <= 0x10FFFF; c++) {
    if ((c < 0xD800 || c > 0xDFFF) && String.fromCodePoint(c).toLowerCase() !== String.fromCodePoint(c)) codes.push(c);
  }
  return codes;
}

/** Their lowercase forms, as vocabulary entries: a lowercase mapping the engine lacked would then
 * give [UNK] where the reference gives the entry. */
const lowercaseEntries = () => [...new Set(casedCodePoints().map((c) => String.fromCodePoint(c).toLowerCase()))];

/** An engine whose tokenizer runs `settings` over bert-mini's vocabulary and the cased entries. */
export async function engineFor(settings) {
  const { convert } = await import('../../weights/convert.mjs');
  const baseLines = [...(await defaultEngine()).vocabulary.split('\n').filter(Boolean), ...lowercaseEntries()];
  const dir = mkdtempSync(join(workDir, 'checkpoint-'));
  makeCasedCheckpoint(dir, {
    layers: 1, hidden: 16, heads: 1, ffn: 16, positions: 16, vocab: new Set(baseLines).size + 3000, baseLines,
    lowercase: settings.lowercase, stripAccents: settings.stripAccents, chineseChars: settings.chineseChars,
  });
  const { bytes } = convert({ checkpointDir: dir, referenceCache: false });
  const engine = await createEngine({ wasm: readFileSync(`${repoRoot}web/dist/attn.wasm`), weights: bytes });
  const vocabulary = readFileSync(join(dir, 'vocab.txt'), 'utf8');
  return { engine, vocabulary, bytes };
}

/** The uncased engine of the page's own weights file, and its vocabulary. */
let uncasedDefault = null;
export async function defaultEngine() {
  return (uncasedDefault ??= await loadDefault());
}

async function loadDefault() {
  const engine = await loadEngine({ weights: defaultWeights });
  const entries = [];
  for (let id = 0; id < engine.shape.vocab; id++) entries.push(engine.token(id));
  return { engine, vocabulary: `${entries.join('\n')}\n` };
}

/** npm `tokenizers` with the same vocabulary and settings. */
export async function referenceTokenizer(vocabText, settings, { withSpecials = true } = {}) {
  const file = join(workDir, `vocab-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(file, vocabText);
  const model = await WordPiece.fromFile(file, { unkToken: '[UNK]', continuingSubwordPrefix: '##', maxInputCharsPerWord: 100 });
  const tokenizer = new Tokenizer(model);
  tokenizer.setNormalizer(bertNormalizer({
    cleanText: true, handleChineseChars: settings.chineseChars, stripAccents: settings.stripAccents, lowercase: settings.lowercase,
  }));
  tokenizer.setPreTokenizer(bertPreTokenizer());
  if (withSpecials) {
    tokenizer.setPostProcessor(bertProcessing(['[SEP]', tokenizer.tokenToId('[SEP]')], ['[CLS]', tokenizer.tokenToId('[CLS]')]));
    tokenizer.addSpecialTokens(SPECIAL_TOKENS);
  }
  return tokenizer;
}

/** Every Unicode scalar value. */
export function scalarValues() {
  const codes = [];
  for (let c = 0; c <= 0x10FFFF; c++) if (c < 0xD800 || c > 0xDFFF) codes.push(c);
  return codes;
}

/**
 * A sample: every code point below U+0600 (Latin, Greek, Cyrillic, the combining marks), every
 * one with a lowercase form, those whose lowercase or NFD is unusual, and one in `step` of the
 * others (offset by `seed`).
 */
export function sampledValues(step = 97, seed = 0) {
  const chosen = new Set([0x130, 0x1E9E, 0x3A3, 0x345, 0x1F88, 0x1FFC, 0x2126, 0x212A, 0x212B, 0xFB01, 0xAC00, 0xD7A3,
    0x4E00, 0x9FFF, 0x3400, 0x20000, 0xF900, 0x2F800, 0x3000, 0x00A0, 0x200B, 0xFEFF, 0x1D15E, 0x1E900, 0x10400]);
  for (let c = 0; c < 0x600; c++) chosen.add(c);
  for (const c of casedCodePoints()) chosen.add(c);
  for (let c = 0x600 + (seed % step); c <= 0x10FFFF; c += step) if (c < 0xD800 || c > 0xDFFF) chosen.add(c);
  return [...chosen].sort((a, b) => a - b);
}

const hex = (c) => 'U+' + c.toString(16).toUpperCase().padStart(4, '0');
const describe = (ids, offsets) => ids.map((id, i) => `${id}[${offsets[i][0]},${offsets[i][1]}]`).join(' ');

/** Collects differences per code point and reports the count and the first few. */
export class Differences {
  constructor() { this.byCode = new Map(); }
  add(code, context, theirs, ours) {
    if (!this.byCode.has(code)) this.byCode.set(code, []);
    this.byCode.get(code).push(`${context}: reference ${theirs || '(none)'}, engine ${ours || '(none)'}`);
  }
  report(what) {
    const lines = [...this.byCode].slice(0, REPORTED).map(([code, why]) => `  ${hex(code)} ${why.join('; ')}`);
    return `${this.byCode.size} code points differ ${what}` + (lines.length ? `; first ${lines.length}:\n${lines.join('\n')}` : '');
  }
}

/** Each code point as its own text. */
export async function compareAlone(engine, reference, codes, differences) {
  for (let i = 0; i < codes.length; i += BATCH) {
    const group = codes.slice(i, i + BATCH);
    const encodings = await reference.encodeBatch(group.map((c) => String.fromCodePoint(c)));
    group.forEach((code, k) => {
      const theirs = describe(encodings[k].getIds(), encodings[k].getOffsets());
      const list = engine.tokenize(String.fromCodePoint(code));
      const ours = describe(list.ids, list.offsets);
      if (theirs !== ours) differences.add(code, 'alone', theirs, ours);
    });
  }
}

export const CONTEXTS = {
  'inside a word': (c) => `a${c}b`,
  'between words': (c) => `a ${c} b`,
  'before a combining mark': (c) => `a${c}\u0334`,
  'after a capital, before an accent': (c) => `É${c}\u0301x`,
};

/** Per context of one joined text, its tokens as "id[start,end]" relative to the context. */
export function tokensByContext(ids, offsets, bounds) {
  const parts = bounds.map(() => []);
  let k = 0;
  for (let i = 1; i < ids.length - 1; i++) {   // [CLS] and [SEP] are outside every context
    const [start, end] = offsets[i];
    while (k < bounds.length - 1 && start >= bounds[k + 1][0]) k++;
    parts[k].push(`${ids[i]}[${start - bounds[k][0]},${end - bounds[k][0]}]`);
  }
  return parts.map((p) => p.join(' '));
}

/** `group`'s code points, each put in its context by `make`, joined into one text: { text, bounds }. */
export function joinContexts(group, make) {
  const bounds = [];
  const texts = [];
  let position = 0;
  for (const code of group) {
    const text = make(String.fromCodePoint(code));
    const length = [...text].length;
    bounds.push([position, position + length]);
    texts.push(text);
    position += length + SEPARATOR.length;
  }
  return { text: texts.join(SEPARATOR), bounds };
}

/** Each code point in each of `contexts`, thousands of contexts joined into one text. */
export async function compareInContexts(engine, reference, codes, differences, contexts = CONTEXTS) {
  for (const [context, make] of Object.entries(contexts)) {
    for (let i = 0; i < codes.length; i += BATCH) {
      const group = codes.slice(i, i + BATCH);
      const { text, bounds } = joinContexts(group, make);
      const encoding = await reference.encode(text);
      const theirs = tokensByContext(encoding.getIds(), encoding.getOffsets(), bounds);
      const list = engine.tokenize(text);
      const ours = tokensByContext(list.ids, list.offsets, bounds);
      group.forEach((code, k) => {
        if (theirs[k] !== ours[k]) differences.add(code, context, theirs[k], ours[k]);
      });
    }
  }
}
