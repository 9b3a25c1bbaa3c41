// Checkpoint variants that transformers loads without complaint, converted as transformers
// reads them: each built here from one small random-weight BertForMaskedLM, so that a renamed
// or re-spelled variant must give the very same weights file (or, without the MLM head, the
// same attention), and every file the converter writes loads in the engine. Refusals name the
// key, tensor or line, exit 1 without a stack trace and write nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { referenceForward, maxAttentionDelta } from '../weights/reference.mjs';
import { convertCheckpoint } from '../weights/convert-core.mjs';
import { createEngine, Engine, EngineError } from '../web/src/engine.mjs';
import { compactConfig, randomTensors, writeCheckpoint, referenceModel, vocabLines } from './lib/checkpoints.mjs';
import { defaultWasm, repoRoot } from './lib/node-engine.mjs';

const wasm = new WebAssembly.Module(fs.readFileSync(defaultWasm));
const tempRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-hf-'));
process.on('exit', () => fs.rmSync(tempRoot, { recursive: true, force: true }));

const config = compactConfig({ layers: 2, hidden: 128, vocab: 200, positions: 64 });
const { tensors, shapes } = randomTensors(config, 42);
const vocabText = `${vocabLines(config.vocab_size).join('\n')}\n`;
let count = 0;
// Every checkpoint folder has the same name: the model card holds it.
const checkpoint = (edits = {}) => writeCheckpoint(path.join(tempRoot, `c${count++}`, 'model'), { config, tensors, shapes, ...edits });

function runConverter(dir, out = path.join(dir, 'out.bin')) {
  const r = spawnSync('node', [path.join(repoRoot, 'weights/convert.mjs'), dir, out, '--precision', 'int8'], { encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr, out };
}

function converted(dir) {
  const r = runConverter(dir);
  assert.equal(r.status, 0, r.stderr);
  return { bytes: fs.readFileSync(r.out), stderr: r.stderr };
}

function refused(dir, pattern) {
  const r = runConverter(dir);
  assert.equal(r.status, 1, `refused: ${r.stderr}`);
  assert.match(r.stderr, pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  assert.ok(!fs.existsSync(r.out), 'nothing written');
  return r.stderr;
}

const canonical = converted(checkpoint()).bytes;

test('LayerNorm gamma/beta (older exports) give the same weights file', () => {
  const rename = (n) => n.replace(/LayerNorm\.weight$/, 'LayerNorm.gamma').replace(/LayerNorm\.bias$/, 'LayerNorm.beta');
  const { bytes, stderr } = converted(checkpoint({ rename }));
  assert.match(stderr, /LayerNorm tensors named gamma\/beta: read as weight\/bias/);
  assert.ok(bytes.equals(canonical));
  const both = checkpoint({ extra: [{ name: 'bert.embeddings.LayerNorm.gamma', shape: [128], values: tensors.get('bert.embeddings.LayerNorm.weight') }] });
  refused(both, /has both bert\.embeddings\.LayerNorm\.weight and bert\.embeddings\.LayerNorm\.gamma/);
});

test('an output bias stored only as cls.predictions.decoder.bias gives the same weights file', () => {
  const rename = (n) => (n === 'cls.predictions.bias' ? 'cls.predictions.decoder.bias' : n);
  const { bytes, stderr } = converted(checkpoint({ rename }));
  assert.match(stderr, /cls\.predictions\.decoder\.bias used as the output bias/);
  assert.ok(bytes.equals(canonical));
});

test('vocab.txt without a final newline gives the same weights file; CRLF and trailing spaces load', async () => {
  const { bytes, stderr } = converted(checkpoint({ vocabText: vocabText.slice(0, -1) }));
  assert.match(stderr, /no final newline: one added/);
  assert.ok(bytes.equals(canonical));
  const crlf = converted(checkpoint({ vocabText: vocabText.replaceAll('\n', ' \r\n') })).bytes;
  const engine = await createEngine({ wasm, weights: crlf });
  assert.deepEqual(engine.tokenize('the cats sat.').ids, (await createEngine({ wasm, weights: canonical })).tokenize('the cats sat.').ids);
});

test('config.json without the keys BertConfig defaults: the defaults, and which were used', () => {
  const { layer_norm_eps: _a, hidden_act: _b, type_vocab_size: _c, ...rest } = config;
  const { bytes, stderr } = converted(checkpoint({ configText: JSON.stringify(rest) }));
  assert.match(stderr, /layer_norm_eps, hidden_act, type_vocab_size not given: BertConfig's defaults used/);
  assert.ok(bytes.equals(canonical));
  const { hidden_size: _h, ...noHidden } = config;
  refused(checkpoint({ configText: JSON.stringify(noHidden) }), /hidden_size not given[^]*word_embeddings\.weight has shape \[200,128\], config\.json implies \[200,768\]/);
});

test('vocab_size larger than vocab.txt: padding rows the tokenizer never produces', async () => {
  const lines = vocabLines(config.vocab_size).slice(0, 150);
  const { bytes, stderr } = converted(checkpoint({ vocabText: `${lines.join('\n')}\n` }));
  assert.match(stderr, /vocab\.txt has 150 lines, config\.json vocab_size is 200: rows 150…199 are padding/);
  const engine = await createEngine({ wasm, weights: bytes });
  assert.equal(engine.shape.vocab, 200);
  assert.equal(engine.token(149), lines[149]);
  assert.equal(engine.token(150), '[unused-row-150]');
  const { ids } = engine.tokenize('the cat [unused-row-150] unused-row-199 ##s [UNK]');
  assert.ok(ids.every((id) => id < 150), `no padding id produced: ${ids}`);
  const session = engine.createSession();
  session.runIds([2, 150, 199, 3]);
  const delta = maxAttentionDelta(session.attention(), referenceForward(referenceModel(config, tensors), [2, 150, 199, 3]).attention);
  assert.ok(delta <= 1e-3, `padding rows are real embedding rows: Δ ${delta}`);
});

test('a BertModel checkpoint (no cls.*, names without "bert."): attention works, [MASK] says why it is off', async () => {
  const rename = (n) => (n.startsWith('cls.') ? null : n.replace(/^bert\./, ''));
  const pooler = [{ name: 'pooler.dense.weight', shape: [128, 128], values: tensors.get('bert.encoder.layer.0.attention.self.query.weight') }];
  const { bytes, stderr } = converted(checkpoint({ rename, extra: pooler }));
  assert.match(stderr, /without the "bert\." prefix/);
  assert.match(stderr, /no masked-LM head/);
  assert.ok(bytes.length < canonical.length);
  const engine = await createEngine({ wasm, weights: bytes });
  assert.equal(engine.modelCard().masked_word_head, false, 'the card says the masked-word head is missing');
  const session = engine.createSession();
  const { ids } = session.runText('the cat sat on the [MASK].');
  const full = await createEngine({ wasm, weights: canonical });
  const reference = full.createSession();
  reference.runText('the cat sat on the [MASK].');
  assert.deepEqual(session.attention(), reference.attention(), 'same attention as the full checkpoint');
  assert.throws(() => session.mlm(ids.indexOf(4), 5), (e) => e instanceof EngineError && e.code === 24 && /no masked-word head/.test(e.message));
});

test('a repeated vocabulary line converts (the later id wins, as in Hugging Face) and is reported', async () => {
  const lines = vocabLines(config.vocab_size);
  lines[180] = 'cat';
  const { bytes, stderr } = converted(checkpoint({ vocabText: `${lines.join('\n')}\n` }));
  assert.match(stderr, /vocab\.txt line 181 repeats line 9 \("cat"\)/);
  const engine = await createEngine({ wasm, weights: bytes });
  assert.deepEqual(engine.tokenize('cat').ids, [2, 180, 3]);
});

test('vocabularies the engine would refuse are refused by the converter, naming the line', () => {
  const lines = vocabLines(config.vocab_size);
  const withLine = (i, text) => `${lines.map((l, j) => (j === i ? text : l)).join('\n')}\n`;
  refused(checkpoint({ vocabText: withLine(4, 'mask') }), /vocab\.txt has no line \[MASK\]: the engine needs \[CLS\] \[SEP\] \[MASK\] \[PAD\] \[UNK\]/);
  refused(checkpoint({ vocabText: withLine(2, '[cls]') }), /no line \[CLS\]/);
  refused(checkpoint({ vocabText: withLine(30, 'ab\u0000c') }), /vocab\.txt line 31 contains a NUL byte/);
  const invalid = Buffer.concat([Buffer.from(lines.slice(0, 40).join('\n') + '\n'), Buffer.from([0x61, 0xff, 0x0a]),
    Buffer.from(lines.slice(41).join('\n') + '\n')]);
  refused(checkpoint({ vocabText: invalid }), /vocab\.txt line 41 is not valid UTF-8/);
  refused(checkpoint({ vocabText: `${vocabText}extra\n` }), /201 lines but config\.json vocab_size is 200/);
});

test('a pytorch_model.bin that is not one, a bad output path: a message saying what to do, no stack trace', () => {
  const dir = checkpoint();
  fs.renameSync(path.join(dir, 'model.safetensors'), path.join(dir, 'pytorch_model.bin'));
  refused(dir, /pytorch_model\.bin: neither a zip nor a pickle file: not something torch\.save wrote/);
  const r = runConverter(checkpoint(), path.join(tempRoot, 'no-such-folder', 'x.bin'));
  assert.equal(r.status, 1);
  assert.match(r.stderr, /folder .*no-such-folder does not exist/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
  const folder = runConverter(checkpoint(), tempRoot);
  assert.equal(folder.status, 1);
  assert.match(folder.stderr, /it is a folder; give a file name/);
  assert.doesNotMatch(folder.stderr, /wrote|\n\s+at /, 'refused before converting');
});

test('the converter core: bytes in, bytes out, no file system (what the page runs); the CLI is a wrapper; the import graph of the converter and the float64 reference', () => {
  // It imports only the format's definition, the CRC, its refusal, its notes' texts and its
  // readers (pytorch_model.bin, tokenizer.json, the tokenizer's settings), which do not import it: no cycle;
  // and the steps its long loops yield between (steps.mjs, which imports nothing). The files'
  // imports are held to these lists: a new import fails here until the list says it.
  const pure = {
    'weights/convert-core.mjs': ['../c/spec.mjs', './crc32.mjs', './convert-error.mjs', './convert-messages.mjs', './torch-checkpoint.mjs', './tokenizer-json.mjs',
      './tokenizer-settings.mjs', './head-roles.mjs', './steps.mjs'],
    'weights/convert-messages.mjs': [], 'weights/steps.mjs': [],
    'weights/head-roles.mjs': ['./calibration.mjs', './steps.mjs'], 'weights/calibration.mjs': ['../c/spec.mjs'],
    'weights/torch-checkpoint.mjs': ['./convert-error.mjs', './crc32.mjs', './steps.mjs'],
    'weights/tokenizer-json.mjs': ['./convert-error.mjs', './tokenizer-settings.mjs', '../c/spec.mjs'],
    'weights/tokenizer-settings.mjs': ['./convert-error.mjs', '../c/spec.mjs'],
    'weights/convert-error.mjs': ['./convert-messages.mjs'], 'c/spec.mjs': [], 'weights/crc32.mjs': ['../c/spec.mjs'],
    // The float64 reference reads checkpoints itself: nothing from the converter it measures.
    'weights/reference.mjs': ['node:fs', 'node:path', 'node:url'],
  };
  for (const [file, allowed] of Object.entries(pure)) {
    const text = fs.readFileSync(path.join(repoRoot, file), 'utf8');
    assert.doesNotMatch(text, /\bimport\(|require\(/, `${file}: no dynamic import`);
    const sources = [...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom '([^']+)'/gm)].map((m) => m[1]);
    assert.deepEqual(sources.sort(), [...allowed].sort(), `${file} imports only ${allowed.join(', ') || 'nothing'}`);
  }
  const dir = checkpoint();
  const read = (name) => new Uint8Array(fs.readFileSync(path.join(dir, name)));
  const files = { name: 'model', config: new TextDecoder().decode(read('config.json')), vocab: read('vocab.txt'), safetensors: read('model.safetensors'), training: null };
  const lines = [];
  // The engine the CLI gives it (the page's own JavaScript and wasm) measures the card's head roles.
  const { bytes } = convertCheckpoint(files, { precision: 'int8', log: (line) => lines.push(line), engine: { Engine, wasm } });
  assert.ok(Buffer.from(bytes).equals(canonical));
  const card = (b) => JSON.parse(Buffer.from(b).toString('utf8', Buffer.from(b).readUInt32LE(124), Buffer.from(b).readUInt32LE(124) + Buffer.from(b).readUInt32LE(120) - 1));
  const withoutEngine = convertCheckpoint(files, { precision: 'int8' }).bytes;
  assert.equal(card(withoutEngine).head_next, undefined, 'no engine: no head roles (the card says they were not measured)');
  assert.equal(card(bytes).head_next.length, 2 * 2, 'with the engine: one value per head');
  assert.equal(convertCheckpoint(files, { precision: 'auto', engine: { Engine, wasm } }).bytes.length, canonical.length, 'on the grid: no search needed');
  const offGrid = new Map(tensors);
  offGrid.set('bert.encoder.layer.0.intermediate.dense.weight', tensors.get('bert.encoder.layer.0.intermediate.dense.weight').map((v) => v * 1.001 + 1e-6));
  const off = checkpoint({ tensors: offGrid });
  const offFiles = { ...files, safetensors: new Uint8Array(fs.readFileSync(path.join(off, 'model.safetensors'))) };
  assert.throws(() => convertCheckpoint(offFiles, { precision: 'auto' }), /1 matrices are not on the int8 grid[^]*choose precision int8 or int16/);
  assert.ok(convertCheckpoint(offFiles, { precision: 'int16' }).bytes.length > canonical.length);
});
