// pytorch_model.bin and tokenizer.json, read with no Python: the fixtures of
// tests/fixtures/torch (written once by tools/make-torch-fixtures.py with torch.save, zip and
// legacy formats) hold the same weights as twin.safetensors, so each must convert to the same
// weights file as the twin, and the engine must then match the float64 reference read from the
// twin. Hostile and broken files are refused by name, quickly, in bounded memory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { loadCheckpoint, referenceForward, maxAttentionDelta } from '../weights/reference.mjs';
import { ConvertError, convertCheckpoint, chooseCheckpointFiles } from '../weights/convert-core.mjs';
import { parseTorchCheckpoint, unpickle, TORCH_LIMITS } from '../weights/torch-checkpoint.mjs';
import { createEngine } from '../web/src/engine.mjs';
import { cardLimits } from '../web/src/model-card.mjs';
import { translator } from '../web/src/i18n/index.mjs';
import { defaultWasm, repoRoot } from './lib/node-engine.mjs';
import { readZipEntries, writeZip } from './lib/zip.mjs';
import { codedRefusal } from './lib/refused.mjs';

const FIXTURES = path.join(repoRoot, 'tests/fixtures/torch');
const wasm = new WebAssembly.Module(fs.readFileSync(defaultWasm));
const tempRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-torch-'));
process.on('exit', () => fs.rmSync(tempRoot, { recursive: true, force: true }));
const read = (...parts) => new Uint8Array(fs.readFileSync(path.join(FIXTURES, ...parts)));
const text = (...parts) => fs.readFileSync(path.join(FIXTURES, ...parts), 'utf8');

function filesOf(dir, weights = { pytorch: read(dir, 'pytorch_model.bin') }) {
  const files = { name: 'model', config: text(dir, 'config.json'), ...weights };
  if (fs.existsSync(path.join(FIXTURES, dir, 'vocab.txt'))) files.vocab = read(dir, 'vocab.txt');
  if (fs.existsSync(path.join(FIXTURES, dir, 'tokenizer.json'))) files.tokenizer = text(dir, 'tokenizer.json');
  return files;
}

function convert(files) {
  const log = [];
  const { bytes } = convertCheckpoint(files, { precision: 'auto', log: (line) => log.push(line) });
  return { bytes, log };
}

const refusal = (fn) => {
  try { fn(); } catch (e) {
    if (e instanceof ConvertError) return codedRefusal(e);
    throw e;
  }
  return assert.fail('not refused');
};

// The twin as the float64 reference reads checkpoints: a folder with model.safetensors.
const twinDir = path.join(tempRoot, 'twin');
fs.mkdirSync(twinDir);
fs.copyFileSync(path.join(FIXTURES, 'zip/config.json'), path.join(twinDir, 'config.json'));
fs.copyFileSync(path.join(FIXTURES, 'zip/vocab.txt'), path.join(twinDir, 'vocab.txt'));
fs.copyFileSync(path.join(FIXTURES, 'twin.safetensors'), path.join(twinDir, 'model.safetensors'));
const twin = convert(filesOf('zip', { safetensors: read('twin.safetensors') })).bytes;
const SENTENCE = 'the cat sat on the mat because it was tired.';

async function matchesReference(bytes) {
  const engine = await createEngine({ wasm, weights: bytes });
  const session = engine.createSession();
  const { ids } = session.runText(SENTENCE);
  const reference = referenceForward(loadCheckpoint(twinDir), ids);
  const delta = maxAttentionDelta(session.attention(), reference.attention);
  assert.ok(delta <= 1e-3, `attention within 1e-3 of the float64 reference: ${delta}`);
  return delta;
}

const SAME_AS_TWIN = {
  zip: /^$/,
  legacy: /^$/,
  bfloat16: /^$/,
  'google-zip': /gamma\/beta[^]*pooler and the next-sentence head/,
  'google-legacy': /gamma\/beta[^]*pooler and the next-sentence head/,
  'tokenizer-json': /no vocab\.txt: the vocabulary of tokenizer\.json/,
};

for (const [dir, notes] of Object.entries(SAME_AS_TWIN)) {
  test(`${dir}/pytorch_model.bin converts to the same weights file as its safetensors twin`, async () => {
    const { bytes, log } = convert(filesOf(dir));
    assert.match(log.join('\n'), notes);
    assert.ok(Buffer.from(bytes).equals(Buffer.from(twin)), 'byte-identical');
    await matchesReference(bytes);
  });
}

test('the zip fixture holds what a state dict can: a tied decoder, a transposed and a sliced tensor, int64 position ids', () => {
  const tensors = parseTorchCheckpoint(read('zip', 'pytorch_model.bin'));
  assert.equal(tensors.get('bert.embeddings.position_ids').dtype, 'I64');
  assert.ok(tensors.has('cls.predictions.decoder.weight'));
  const entries = readZipEntries(read('zip', 'pytorch_model.bin'));
  const pickle = [...entries].find(([n]) => n.endsWith('/data.pkl'))[1];
  assert.ok(Buffer.from(pickle).includes('_rebuild_tensor_v2'));
});

test('a big-endian zip (byteorder "big") converts to the same file', async () => {
  const entries = readZipEntries(read('zip', 'pytorch_model.bin'));
  const prefix = [...entries.keys()].find((n) => n.endsWith('/data.pkl')).slice(0, -'data.pkl'.length);
  // Every storage of this fixture is float32 but the position ids (int64).
  const ids = parseTorchCheckpoint(read('zip', 'pytorch_model.bin')).get('bert.embeddings.position_ids');
  const swapped = [...entries].map(([name, data]) => {
    if (!name.startsWith(`${prefix}data/`)) return [name, name.endsWith('byteorder') ? new TextEncoder().encode('big') : data];
    const size = data.length === ids.bytes.length && Buffer.from(data).equals(Buffer.from(ids.bytes)) ? 8 : 4;
    const out = new Uint8Array(data.length);
    for (let i = 0; i < data.length; i += size) for (let b = 0; b < size; b++) out[i + b] = data[i + size - 1 - b];
    return [name, out];
  });
  if (!entries.has(`${prefix}byteorder`)) swapped.push([`${prefix}byteorder`, new TextEncoder().encode('big')]);
  const { bytes } = convert(filesOf('zip', { pytorch: writeZip(swapped) }));
  assert.ok(Buffer.from(bytes).equals(Buffer.from(twin)));
});

test('a zip64 archive (sizes and offsets in zip64 fields) converts to the same file', () => {
  const entries = [...readZipEntries(read('zip', 'pytorch_model.bin'))];
  const { bytes } = convert(filesOf('zip', { pytorch: writeZip(entries, { zip64: true }) }));
  assert.ok(Buffer.from(bytes).equals(Buffer.from(twin)));
  const cut = writeZip(entries, { zip64: true });
  const noLocator = cut.slice();
  noLocator.fill(0, cut.length - 22 - 20, cut.length - 22);
  assert.match(refusal(() => parseTorchCheckpoint(noLocator)), /zip64 sizes without a zip64 locator/);
});

test('a BertModel .bin with names without "bert.": attention as the twin, no [MASK] head', async () => {
  const { bytes, log } = convert(filesOf('bare'));
  assert.match(log.join('\n'), /without the "bert\." prefix[^]*no masked-LM head/);
  const engine = await createEngine({ wasm, weights: bytes });
  const session = engine.createSession();
  const { ids } = session.runText(SENTENCE);
  const full = (await createEngine({ wasm, weights: twin })).createSession();
  full.runText(SENTENCE);
  assert.deepEqual(session.attention(), full.attention());
  assert.ok(maxAttentionDelta(session.attention(), referenceForward(loadCheckpoint(twinDir), ids).attention) <= 1e-3);
});

test('a pickle calling os.system or builtins.eval is refused by module and name, and nothing runs', () => {
  const marker = '/tmp/attn-pickle-ran';
  fs.rmSync(marker, { force: true });
  assert.match(refusal(() => parseTorchCheckpoint(read('hostile', 'pytorch_model.bin'))), /refers to posix\.system \(module "posix", name "system"\)[^]*nothing was run/);
  assert.match(refusal(() => parseTorchCheckpoint(read('hostile', 'eval.bin'))), /module "(__builtin__|builtins)", name "eval"/);
  assert.match(refusal(() => unpickle(read('hostile', 'system.pkl'))), /module "posix", name "system"/);
  const r = spawnSync('node', [path.join(repoRoot, 'weights/convert.mjs'), path.join(FIXTURES, 'hostile'), path.join(tempRoot, 'h.bin')], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^convert: pytorch_model\.bin \(pytorch_model\/data\.pkl\): the pickle refers to posix\.system/);
  assert.ok(!fs.existsSync(marker) && !fs.existsSync(path.join(tempRoot, 'h.bin')));
  // The refusal comes at the global, before any opcode after it: a state dict built before it
  // (a STOP never reached) does not matter.
  const early = new Uint8Array([0x80, 0x02, 0x7d, 0x63, ...new TextEncoder().encode('os\nsystem\n'), 0x2e]);
  assert.match(refusal(() => unpickle(early)), /module "os", name "system"/);
});

// ---------------------------------------------------------------- broken files

// Pickle bytes from opcodes and arguments.
const enc = (s) => [...new TextEncoder().encode(s)];
const u32 = (n) => [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, n >>> 24];
const str = (s) => [0x58, ...u32(enc(s).length), ...enc(s)];
const int = (n) => [0x4a, ...u32(n)];
const global = (m, n) => [0x63, ...enc(`${m}\n${n}\n`)];
const tuple = (...items) => [0x28, ...items.flat(), 0x74];

function tensorPickle({ numel = 4, size = [2, 2], stride = [2, 1], offset = 0, key = '0' } = {}) {
  const pid = tuple(str('storage'), global('torch', 'FloatStorage'), str(key), str('cpu'), int(numel));
  const call = [...global('torch._utils', '_rebuild_tensor_v2'),
    ...tuple([...pid, 0x51], int(offset), tuple(...size.map(int)), tuple(...stride.map(int)), [0x89], [0x4e]), 0x52];
  return new Uint8Array([0x80, 0x02, 0x7d, ...str('w'), ...call, 0x73, 0x2e]);
}

function zipWith(pickle, storageBytes = 16) {
  return writeZip([['archive/data.pkl', pickle], ['archive/data/0', new Uint8Array(storageBytes)]]);
}

// Runs fn in this process and checks it was refused with `pattern` in under `ms` milliseconds.
function refusedQuickly(fn, pattern, ms = 5000) {
  const start = performance.now();
  const message = refusal(fn);
  const elapsed = performance.now() - start;
  assert.match(message, pattern);
  assert.ok(elapsed < ms, `refused in ${elapsed.toFixed(0)} ms`);
  return message;
}

test('a hand-made zip state dict reads; every broken variant is refused by what is wrong', () => {
  const ok = parseTorchCheckpoint(zipWith(tensorPickle()));
  assert.deepEqual(ok.get('w').shape, [2, 2]);
  const values = new Float32Array(4).map((_, i) => i);
  const transposed = parseTorchCheckpoint(writeZip([['a/data.pkl', tensorPickle({ stride: [1, 2] })], ['a/data/0', new Uint8Array(values.buffer)]]));
  assert.deepEqual([...new Float32Array(transposed.get('w').bytes.slice().buffer)], [0, 2, 1, 3], 'read by its strides');
  refusedQuickly(() => parseTorchCheckpoint(zipWith(tensorPickle(), 12)), /storage 0 declares 4 elements \(16 bytes\) but archive\/data\/0 holds 12 bytes/);
  refusedQuickly(() => parseTorchCheckpoint(zipWith(tensorPickle({ size: [3, 2] }))), /reads past its storage of 4 elements/);
  refusedQuickly(() => parseTorchCheckpoint(zipWith(tensorPickle({ offset: 1 }))), /reads past its storage/);
  refusedQuickly(() => parseTorchCheckpoint(zipWith(tensorPickle({ numel: 1e9 }), 16)), /declares 1000000000 elements[^]*holds 16 bytes/);
  refusedQuickly(() => parseTorchCheckpoint(zipWith(tensorPickle({ size: [2 ** 31 - 1, 2 ** 31 - 1, 2 ** 31 - 1], stride: [0, 0, 0] }))), /more than 1099511627776 elements/);
  refusedQuickly(() => parseTorchCheckpoint(zipWith(tensorPickle({ key: '7' }))), /storage 7 has no entry archive\/data\/7/);
  refusedQuickly(() => parseTorchCheckpoint(zipWith(new Uint8Array([0x80, 0x02, 0x7d, 0xff, 0x2e]))), /opcode 0xff at byte 3 is not one a state dict uses/);
  refusedQuickly(() => parseTorchCheckpoint(zipWith(tensorPickle().subarray(0, 40))), /the pickle ends early|without its end at byte 23/);
  const zip = zipWith(tensorPickle());
  for (const cut of [zip.length - 1, zip.length - 30, 100, 10]) refusedQuickly(() => parseTorchCheckpoint(zip.subarray(0, cut)), /zip|truncated/);
  refusedQuickly(() => parseTorchCheckpoint(writeZip([['archive/data.pkl', tensorPickle()]], { method: 8 })), /is compressed \(method 8\)/);
  refusedQuickly(() => parseTorchCheckpoint(writeZip([['archive/data.pkl', tensorPickle()]], { crcOf: () => 1 })), /fails its CRC-32 check/);
  refusedQuickly(() => parseTorchCheckpoint(new TextEncoder().encode('hello world, not a checkpoint')), /neither a zip nor a pickle/);
});

test('nesting 10^6 deep, 10^6 values on the stack, a huge memo index: refused quickly in bounded memory', () => {
  const before = process.memoryUsage().rss;
  const deep = new Uint8Array(1e6 + 3).fill(0x28);
  deep.set([0x80, 0x02]);
  refusedQuickly(() => unpickle(deep), /nests more than 1000 deep/);
  const lists = new Uint8Array(1e6 + 3).fill(0x5d);
  lists.set([0x80, 0x02]);
  refusedQuickly(() => unpickle(lists), /more than 100000 values on the pickle's stack/);
  const nested = new Uint8Array(2e6 + 4);  // ]]a]a]a…: a list nested 10^6 deep, built without recursion
  nested.set([0x80, 0x02, 0x5d]);
  for (let i = 3; i + 1 < nested.length - 1; i += 2) nested.set([0x5d, 0x61], i);
  nested[nested.length - 1] = 0x2e;
  refusedQuickly(() => parseTorchCheckpoint(zipWith(nested)), /not a state dict/);
  const memo = new Uint8Array([0x80, 0x02, 0x4e, 0x72, 0xff, 0xff, 0xff, 0xff, 0x6a, 0xfe, 0xff, 0xff, 0xff, 0x2e]);
  refusedQuickly(() => unpickle(memo), /memo entry 4294967294, never written/);
  const long = new Uint8Array([0x80, 0x02, 0x58, 0xff, 0xff, 0xff, 0x7f, 0x2e]);
  refusedQuickly(() => unpickle(long), /a string of 2147483647 bytes/);
  const grew = (process.memoryUsage().rss - before) / 2 ** 20;
  assert.ok(grew < 200, `memory grew by ${grew.toFixed(0)} MB`);
  assert.equal(TORCH_LIMITS.marks, 1000);
});

test('legacy files: truncated storages, a wrong key list and a wrong magic number are refused', () => {
  const legacy = read('legacy', 'pytorch_model.bin');
  for (const cut of [legacy.length - 1, legacy.length - 5000, 2000, 30, 5]) refusedQuickly(() => parseTorchCheckpoint(legacy.subarray(0, cut)), /truncated|ends early|storage/);
  const wrong = legacy.slice();
  wrong[5] ^= 1;  // inside the magic number
  refusedQuickly(() => parseTorchCheckpoint(wrong), /wrong magic number/);
});

// ---------------------------------------------------------------- tokenizer.json

test('tokenizer.json: settings the engine cannot honour are refused by name; ids must be 0…n−1', () => {
  const base = JSON.parse(text('tokenizer-json', 'tokenizer.json'));
  const files = (edit) => {
    const json = structuredClone(base);
    edit(json);
    return { ...filesOf('tokenizer-json'), tokenizer: JSON.stringify(json) };
  };
  const refusedWith = (edit, pattern) => assert.match(refusal(() => convert(files(edit))), pattern);
  refusedWith((j) => { j.normalizer.clean_text = false; }, /normalizer clean_text is false; the engine's tokenizer always runs clean_text: true/);
  refusedWith((j) => { j.normalizer.lowercase = 'no'; }, /normalizer lowercase is "no"; expected true or false/);
  refusedWith((j) => { j.normalizer.strip_accents = 1; }, /normalizer strip_accents is 1; expected true, false or null/);
  refusedWith((j) => { j.normalizer.handle_chinese_chars = null; }, /handle_chinese_chars is null/);
  refusedWith((j) => { j.model.max_input_chars_per_word = 200; }, /max_input_chars_per_word is 200/);
  refusedWith((j) => { j.model = { type: 'BPE', vocab: {}, merges: [] }; }, /the model is "BPE"; the engine runs WordPiece/);
  refusedWith((j) => { j.normalizer = { type: 'Sequence', normalizers: [] }; }, /normalizer is "Sequence"/);
  refusedWith((j) => { j.pre_tokenizer = { type: 'Whitespace' }; }, /pre_tokenizer is "Whitespace"/);
  refusedWith((j) => { j.model.vocab.cat = 5000; }, /token "cat" has id 5000; the 100 ids must be 0…99/);
  refusedWith((j) => { j.model.vocab.cat = 2; }, /tokens "\[CLS\]" and "cat" share id 2|tokens "cat" and "\[CLS\]" share id 2|has id/);
  refusedWith((j) => { j.added_tokens.push({ id: 100, content: '<extra>', special: true }); }, /added token "<extra>"/);
  refusedWith((j) => { j.model.continuing_subword_prefix = '@'.repeat(12); }, /continuing_subword_prefix is "@{12}"; the engine's WordPiece takes a prefix of at most 11 UTF-8 bytes/);
  refusedWith((j) => { j.model.continuing_subword_prefix = 7; }, /continuing_subword_prefix is 7; expected a string/);
});

test('tokenizer.json: a cased normalizer and another prefix are stored (version 3) and honoured', async () => {
  const base = JSON.parse(text('tokenizer-json', 'tokenizer.json'));
  const withSettings = (edit) => {
    const json = structuredClone(base);
    edit(json);
    return convert({ ...filesOf('tokenizer-json'), tokenizer: JSON.stringify(json) }).bytes;
  };
  const view = (bytes) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const cased = withSettings((j) => { j.normalizer.lowercase = false; j.normalizer.strip_accents = null; });
  assert.equal(view(cased).getUint32(8, true), 3, 'version 3');
  assert.equal(view(cased).getUint32(128, true), 4, 'flags: Chinese characters only (strip_accents null follows lowercase)');
  assert.equal(view(twin).getUint32(8, true), 2, 'uncased stays version 2');
  const prefixed = withSettings((j) => { j.model.continuing_subword_prefix = '@@'; });
  assert.equal(new TextDecoder().decode(prefixed.subarray(132, 134)), '@@');
  const casedEngine = await createEngine({ wasm, weights: cased });
  const uncasedEngine = await createEngine({ wasm, weights: twin });
  assert.notDeepEqual(casedEngine.tokenize('The CAT').ids, uncasedEngine.tokenize('The CAT').ids, 'cased: "The CAT" is not "the cat"');
  assert.deepEqual(casedEngine.tokenize('the cat').ids, uncasedEngine.tokenize('the cat').ids);
});

test('tokenizer.json and vocab.txt together: agree, or the differing line is named', async () => {
  const both = { ...filesOf('tokenizer-json'), vocab: read('zip', 'vocab.txt') };
  assert.ok(Buffer.from(convert(both).bytes).equals(Buffer.from(twin)));
  const lines = text('zip', 'vocab.txt').split('\n');
  lines[40] = 'different';
  const message = refusal(() => convert({ ...both, vocab: new TextEncoder().encode(lines.join('\n')) }));
  assert.match(message, /disagree at line 41 \(id 40\): vocab\.txt has "different", tokenizer\.json "filler8"/);
  const engine = await createEngine({ wasm, weights: convert(filesOf('tokenizer-json')).bytes });
  const reference = await createEngine({ wasm, weights: twin });
  for (const s of ['The CAFÉ cat, sat!', 'tired because; happy ed', '猫 the cat']) {
    assert.deepEqual(engine.tokenize(s).ids, reference.tokenize(s).ids, s);
  }
});

// ---------------------------------------------------------------- folders

test('which files a folder needs: TensorFlow-only and Flax-only folders say what would do', () => {
  assert.deepEqual(chooseCheckpointFiles(['config.json', 'vocab.txt', 'pytorch_model.bin']),
    { weights: 'pytorch_model.bin', vocab: 'vocab.txt', tokenizer: null, tokenizerConfig: null, training: null });
  assert.equal(chooseCheckpointFiles(['config.json', 'tokenizer.json', 'pytorch_model.bin', 'model.safetensors']).weights, 'model.safetensors');
  const tf = refusal(() => chooseCheckpointFiles(['config.json', 'vocab.txt', 'bert_model.ckpt.index', 'bert_model.ckpt.data-00000-of-00001']));
  assert.match(tf, /only bert_model\.ckpt\.index, bert_model\.ckpt\.data-00000-of-00001 \(TensorFlow weights\)[^]*needs pytorch_model\.bin or model\.safetensors[^]*from_tf=True/);
  assert.match(refusal(() => chooseCheckpointFiles(['config.json', 'vocab.txt', 'tf_model.h5'])), /tf_model\.h5 \(TensorFlow weights\)/);
  assert.match(refusal(() => chooseCheckpointFiles(['config.json', 'vocab.txt', 'flax_model.msgpack'])), /flax_model\.msgpack \(Flax weights\)[^]*from_flax=True/);
  assert.match(refusal(() => chooseCheckpointFiles(['config.json', 'pytorch_model.bin'])), /missing: vocab\.txt \/ tokenizer\.json/);
});

// ---------------------------------------------------------------- the README recipe

// README "Show Google's bert-mini in your course": download config.json, vocab.txt and
// pytorch_model.bin into a folder, run the one command, open the page with weights="….bin".
for (const layout of ['google-zip', 'google-legacy']) {
  test(`the README recipe on a folder laid out like Google's bert-mini page (${layout})`, async () => {
    const folder = path.join(tempRoot, layout, 'bert_uncased_L-4_H-256_A-4');
    fs.mkdirSync(folder, { recursive: true });
    for (const name of ['config.json', 'vocab.txt', 'pytorch_model.bin']) fs.copyFileSync(path.join(FIXTURES, layout, name), path.join(folder, name));
    const out = path.join(tempRoot, layout, 'bert-mini-google.bin');
    const r = spawnSync('node', [path.join(repoRoot, 'weights/convert.mjs'), folder, out, '--scripts'], { cwd: repoRoot, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /12 LayerNorm tensors named gamma\/beta[^]*pooler and the next-sentence head/);
    assert.match(r.stderr, /wrote .*bert-mini-google\.bin/);
    assert.match(r.stderr, /bert-mini-google\.weights\.head\.js/);
    assert.ok(fs.existsSync(path.join(tempRoot, layout, 'bert-mini-google.weights.part-000.js')));
    const bytes = new Uint8Array(fs.readFileSync(out));
    const engine = await createEngine({ wasm, weights: bytes });
    assert.equal(engine.modelCard().name, 'bert_uncased_L-4_H-256_A-4');
    assert.ok(engine.modelCard().matrices_int8 > 0 && engine.modelCard().matrices_int16 === 0, 'every matrix int8');
    assert.equal(engine.modelCard().head_next.length, engine.shape.layers * engine.shape.heads, 'the head roles measured, one per head');
    await matchesReference(bytes);
    const parity = spawnSync('node', [path.join(repoRoot, 'tests/parity.mjs'), '--checkpoint', folder], { cwd: repoRoot, encoding: 'utf8' });
    assert.equal(parity.status, 0, parity.stdout + parity.stderr);
    assert.match(parity.stdout, /attention max \|Δ\| [0-9.e-]+ .*bar 1\.00e-3.* — ok/);
  });
}

// ---------------------------------------------------------------- the default model's card

test('the default model\'s card says what it cannot show, and that is so on the course sentence', async () => {
  const bytes = new Uint8Array(fs.readFileSync(path.join(repoRoot, 'web/dist/bert-mini.int8.bin')));
  const engine = await createEngine({ wasm, weights: bytes });
  const limits = cardLimits(engine.modelCard(), translator('en'), engine).join(' ');
  assert.match(limits, /No positional head[^]*Show Google's bert-mini in your course[^]*\[CLS\] and \[SEP\] \(attention sinks\)/);
  const session = engine.createSession();
  const { ids } = session.runText('The cat sat on the mat because it was tired.');
  const n = ids.length;
  const attention = session.attention();
  const { layers, heads } = engine.shape;
  let bestPositional = 0;
  let sinkRows = 0;
  let confidentRows = 0;
  for (let l = 0; l < layers; l++) {
    for (let h = 0; h < heads; h++) {
      let next = 0;
      let previous = 0;
      for (let i = 1; i < n - 1; i++) {
        const row = attention.subarray(((l * heads + h) * n + i) * n, ((l * heads + h) * n + i + 1) * n);
        const top = row.indexOf(Math.max(...row));
        if (top === i + 1) next++;
        if (top === i - 1) previous++;
        if (row[top] > 0.5) { confidentRows++; if (top === 0 || top === n - 1) sinkRows++; }
      }
      bestPositional = Math.max(bestPositional, next, previous);
    }
  }
  const words = n - 2;
  assert.ok(bestPositional <= words / 4, `no head follows the next or previous token (best: ${bestPositional} of ${words} words)`);
  assert.ok(sinkRows >= 0.75 * confidentRows, `confident rows are sinks: ${sinkRows} of ${confidentRows}`);
});
