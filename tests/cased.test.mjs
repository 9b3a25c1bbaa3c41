// node --test tests/cased.test.mjs
// Cased checkpoints (bert-base-cased, bert-base-multilingual-cased): the tokenizer's settings
// read from the checkpoint (tokenizer_config.json, config.json, tokenizer.json), stored in a
// format-version-3 file, checked by the C loader, and the engine against the float64 reference
// (its own tokenizer, with the same settings) on English and French sentences.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  FORMAT_VERSION, HEADER, HEADER_SIZE, STATUS, TOKENIZER_HEADER, TOKENIZER_HEADER_SIZE, UNCASED_FORMAT_VERSION, readField, writeField,
} from '../c/spec.mjs';
import { createEngine, readWeightsHeader } from '../web/src/engine.mjs';
import { convert } from '../weights/convert.mjs';
import { makeCasedCheckpoint } from '../tools/make-cased-checkpoint.mjs';
import { rechecksum } from './lib/corrupt-weights.mjs';
import { defaultWasm, defaultWeights, repoRoot } from './lib/node-engine.mjs';
import { allOnly } from './lib/slow.mjs';

const tempRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-cased-'));
process.on('exit', () => fs.rmSync(tempRoot, { recursive: true, force: true }));
const wasm = new WebAssembly.Module(fs.readFileSync(defaultWasm));
const SENTENCES = `${repoRoot}tests/fixtures/cased-sentences.txt`;
const FRENCH = "Le chat s'est assis sur le tapis parce qu'il était fatigué.";

let counter = 0;
function casedCheckpoint(options = {}) {
  return makeCasedCheckpoint(path.join(tempRoot, `checkpoint-${counter++}`), options).dir;
}

const quiet = (dir, extra = {}) => convert({ checkpointDir: dir, referenceCache: false, ...extra });
const view = (bytes) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const refusal = (fn) => {
  try { fn(); } catch (error) { return error.message; }
  assert.fail('not refused');
};
const statusOf = async (bytes) => createEngine({ wasm, weights: bytes }).then((e) => { e.destroy(); return 0; }, (e) => e.code);

test('a cased checkpoint: version 3, its settings after the header; the token strip shows accented, cased pieces', async () => {
  const bytes = quiet(casedCheckpoint()).bytes;
  const v = view(bytes);
  assert.equal(readField(v, 0, HEADER.version), FORMAT_VERSION);
  assert.equal(readField(v, 0, HEADER.headerSize), TOKENIZER_HEADER_SIZE);
  assert.equal(readField(v, 0, HEADER.vocabOffset), TOKENIZER_HEADER_SIZE);
  assert.equal(readField(v, 0, TOKENIZER_HEADER.tokenizerFlags), 4, 'no lowercase, no accent stripping, Chinese characters spaced');
  assert.deepEqual([...readField(v, 0, TOKENIZER_HEADER.subwordPrefix)], [35, 35, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  assert.ok(readWeightsHeader(bytes), 'the page reads a version-3 header');
  const engine = await createEngine({ wasm, weights: bytes });
  assert.deepEqual(engine.tokenize(FRENCH).tokens,
    ['[CLS]', 'Le', 'chat', 's', "'", 'est', 'assis', 'sur', 'le', 'tapis', 'parce', 'qu', "'", 'il', 'était', 'fatigué', '.', '[SEP]']);
  engine.destroy();
  const uncased = fs.readFileSync(defaultWeights);
  assert.equal(uncased.readUInt32LE(HEADER.version.offset), UNCASED_FORMAT_VERSION, 'the default file stays version 2');
});

test('the settings come from tokenizer_config.json, else config.json; unset strip_accents follows lowercase', () => {
  const flags = (bytes) => (readField(view(bytes), 0, HEADER.version) === FORMAT_VERSION ? readField(view(bytes), 0, TOKENIZER_HEADER.tokenizerFlags) : 'v2');
  const dir = casedCheckpoint({ lowercase: true });
  assert.equal(flags(quiet(dir).bytes), 'v2', 'do_lower_case true, strip_accents null: BERT uncased, version 2');
  fs.writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify({ do_lower_case: true, strip_accents: false }));
  assert.equal(flags(quiet(dir).bytes), 1 | 4, 'lowercased, accents kept');
  fs.writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify({ do_lower_case: false, strip_accents: true, tokenize_chinese_chars: false }));
  assert.equal(flags(quiet(dir).bytes), 2);
  fs.rmSync(path.join(dir, 'tokenizer_config.json'));
  const config = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ ...config, do_lower_case: false }));
  assert.equal(flags(quiet(dir).bytes), 4, 'config.json do_lower_case false');
});

test('settings the engine cannot honour are refused by name', () => {
  const dir = casedCheckpoint();
  const withConfig = (json) => {
    fs.writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify(json));
    return refusal(() => quiet(dir));
  };
  assert.match(withConfig({ do_basic_tokenize: false }), /tokenizer_config\.json: do_basic_tokenize is false; the engine's tokenizer always splits words/);
  assert.match(withConfig({ do_lower_case: 'no' }), /tokenizer_config\.json: do_lower_case is "no"; expected true or false/);
  assert.match(withConfig({ strip_accents: 'yes' }), /strip_accents is "yes"; expected true, false or null/);
  fs.writeFileSync(path.join(dir, 'tokenizer_config.json'), '{');
  assert.match(refusal(() => quiet(dir)), /tokenizer_config\.json is not valid JSON/);
});

test('tokenizer.json and tokenizer_config.json that disagree are refused, naming the setting', () => {
  const dir = casedCheckpoint();
  const vocab = fs.readFileSync(path.join(dir, 'vocab.txt'), 'utf8').split('\n').filter(Boolean);
  const json = {
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.map((entry, id) => [entry, id])) },
    added_tokens: [],
  };
  fs.writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(json));
  assert.match(refusal(() => quiet(dir)), /tokenizer\.json and tokenizer_config\.json disagree on do_lower_case \/ lowercase \(true and false\)/);
  json.normalizer.lowercase = false;
  fs.writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(json));
  assert.equal(readField(view(quiet(dir).bytes), 0, TOKENIZER_HEADER.tokenizerFlags), 4, 'agreeing: cased');
});

test('the C loader refuses version-3 tokenizer settings it does not know, and a header of the other version\'s size', async () => {
  const good = Buffer.from(quiet(casedCheckpoint()).bytes);
  assert.equal(await statusOf(good), 0);
  const edited = (edit) => {
    const copy = Buffer.from(good);
    edit(view(copy), copy);
    return rechecksum(copy);
  };
  const prefixAt = TOKENIZER_HEADER.subwordPrefix.offset;
  const cases = {
    'an unknown flag bit': (v) => writeField(v, 0, TOKENIZER_HEADER.tokenizerFlags, 8 | 4),
    'a prefix without its NUL': (v, b) => b.fill(0x23, prefixAt, prefixAt + 12),
    'a byte after the prefix\'s NUL': (v, b) => { b[prefixAt + 5] = 0x41; },
    'a prefix that is not UTF-8': (v, b) => { b[prefixAt] = 0xFF; },
    'header_size 128 in version 3': (v) => writeField(v, 0, HEADER.headerSize, HEADER_SIZE),
    'version 2 with the longer header': (v) => writeField(v, 0, HEADER.version, UNCASED_FORMAT_VERSION),
    'version 4': (v) => writeField(v, 0, HEADER.version, 4),
  };
  for (const [what, edit] of Object.entries(cases)) assert.equal(await statusOf(edited(edit)), STATUS.VERSION, what);
  assert.equal(await statusOf(edited((v) => writeField(v, 0, TOKENIZER_HEADER.tokenizerFlags, 7))), 0, 'all three flags: fine');
});

function parity(dir, extra = []) {
  const run = spawnSync(process.execPath, [`${repoRoot}tests/parity.mjs`, '--checkpoint', dir, '--text', SENTENCES, ...extra], { encoding: 'utf8' });
  return { ok: run.status === 0, out: run.stdout + run.stderr };
}

test('parity: a small cased checkpoint against the float64 reference on English and French sentences', () => {
  const { ok, out } = parity(casedCheckpoint());
  assert.ok(ok, out);
  assert.match(out, /5 sentences, \d+ tokens, attention max \|Δ\| [\d.e-]+ .* 0 tokenization mismatches against the reference's tokenizer — ok/);
});

// The shape of bert-base-multilingual-cased: 12 × 768, 12 heads, 119,547 cased entries. About a
// minute to write and convert, another to run the reference.
test('parity: a multilingual-shaped cased checkpoint (12 × 768, vocabulary 119,547)', allOnly(), () => {
  const dir = casedCheckpoint({ layers: 12, hidden: 768, heads: 12, vocab: 119547, positions: 512 });
  const { ok, out } = parity(dir);
  assert.ok(ok, out);
  assert.match(out, /0 tokenization mismatches against the reference's tokenizer — ok/);
});

test('the page refuses a weights file larger than it can hold, naming the limit (English and French)', async () => {
  const { checkPageLimit, PAGE_WEIGHTS_MAX_BYTES } = await import('../web/src/loader.mjs');
  const en = (await import('../web/src/i18n/en.mjs')).default;
  const fr = (await import('../web/src/i18n/fr.mjs')).default;
  assert.doesNotThrow(() => checkPageLimit(PAGE_WEIGHTS_MAX_BYTES));
  const error = refusal(() => checkPageLimit(PAGE_WEIGHTS_MAX_BYTES + 2 ** 20));
  assert.match(error, /the weights file is 513 MB; the page holds at most 512 MB of weights/);
  assert.match(en['load.tooLarge'], /\{size\} MB.*at most \{limit\} MB/);
  assert.match(fr['load.tooLarge'], /\{size\} Mo.*au plus \{limit\} Mo/);
});

test('a cased sentence: the token chosen stays the token chosen when its word also comes capitalised earlier', async () => {
  const { tokenSpecOf, findSameToken } = await import('../web/src/view-state.mjs');
  const tokens = ['[CLS]', 'Le', 'chat', 'sur', 'le', 'tapis', '.', '[SEP]'];
  for (const index of [1, 4]) assert.equal(findSameToken(tokenSpecOf(index, tokens), tokens), index, tokens[index]);
});
