// node --test tests/converter.test.mjs
// The weights converter (weights/convert.mjs), format version 2: the bytes it writes (read here
// independently of the converter: header, head and part checksums, tensor table, model card),
// determinism, options, the precision it chooses, F16/BF16 input, refusals with clear messages.
// Small synthetic checkpoints are written on the fly (tests/lib/safetensors.mjs); the real
// checkpoints under ../shared/checkpoints/ (relative to the repository root) are used when
// present: bert-mini-int8 (on the per-row int8 grid) and bert-mini-mlm (float-trained, whose
// precision search runs once: 10 s of CPU, weights/README.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bertTensorShapes, writeSafetensors } from './lib/safetensors.mjs';
import { crc32 } from '../weights/crc32.mjs';
import {
  ENTRY, ENTRY_FIELDS, ENTRY_SIZE, FORMAT_VERSION, HEADER, HEADER_FIELDS, HEADER_SIZE, TOKENIZER_FIELDS, TOKENIZER_HEADER_SIZE,
  UNCASED_FORMAT_VERSION, KINDS, MAGIC, PART_ENTRY_SIZE,
  PART_FIELDS, readRecord,
} from '../c/spec.mjs';
import { allOnly } from './lib/slow.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const converter = path.join(repoRoot, 'weights', 'convert.mjs');
const gridCheckpoint = path.resolve(repoRoot, '../shared/checkpoints/bert-mini-int8');
const floatCheckpoint = path.resolve(repoRoot, '../shared/checkpoints/bert-mini-mlm');
// A missing checkpoint fails its test, unless a developer skips it on purpose
// (ATTN_ALLOW_MISSING_SHARED=1): then the skip is counted and printed by node --test.
const absent = (dir) => (fs.existsSync(path.join(dir, 'model.safetensors')) || process.env.ATTN_ALLOW_MISSING_SHARED !== '1'
  ? false : `checkpoint absent: ${dir}`);

const tempRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'convert-test-'));
process.on('exit', () => fs.rmSync(tempRoot, { recursive: true, force: true }));
let tempCount = 0;
const tempDir = () => {
  const dir = path.join(tempRoot, String(tempCount++));
  fs.mkdirSync(dir);
  return dir;
};

function convert(dir, ...options) {
  const out = path.join(tempDir(), 'out.bin');
  const run = spawnSync(process.execPath, [converter, dir, out, ...options], { encoding: 'utf8' });
  return { status: run.status, stderr: run.stderr, bytes: run.status === 0 ? fs.readFileSync(out) : null };
}

function convertOk(dir, ...options) {
  const result = convert(dir, ...options);
  assert.equal(result.status, 0, `converter failed: ${result.stderr}`);
  return result;
}

const convertBytes = (dir, ...options) => convertOk(dir, ...options).bytes;

function assertRefused(dir, pattern, ...options) {
  const result = convert(dir, ...options);
  assert.notEqual(result.status, 0, `converter should have refused (${options.join(' ')})`);
  assert.match(result.stderr, pattern);
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'a clear message, not a stack trace');
  return result.stderr;
}

// The converter's verdict line: the predicted attention max |Δ| and whether it meets the target.
function predictionOf(stderr) {
  const m = /predicted attention max \|Δ\|[^\n]*?: ([-+.\deE]+), (within|WARNING: over) the target ([-+.\deE]+)/.exec(stderr);
  assert.ok(m, `no prediction line in:\n${stderr}`);
  return { predicted: Number(m[1]), within: m[2] === 'within', target: Number(m[3]) };
}

// ---------------------------------------------------------------- reading the output (c/weights.c)

const KIND = KINDS;

// The fields as c/spec.mjs places them (the C loader reads the same offsets, through c/spec.h).
function readWeights(buf) {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const fields = readRecord(view, 0, HEADER_FIELDS);
  assert.equal(buf.toString('latin1', 0, HEADER.magic.bytes), MAGIC);
  const header = { ...fields, checksum: fields.headChecksum, vocab: fields.vocabSize, lnEps: fields.layerNormEps };
  // Version 2 for a BERT uncased tokenizer; version 3 (its settings after the header) otherwise.
  assert.ok([UNCASED_FORMAT_VERSION, FORMAT_VERSION].includes(header.version), `version ${header.version}`);
  assert.equal(header.headerSize, header.version === FORMAT_VERSION ? TOKENIZER_HEADER_SIZE : HEADER_SIZE);
  if (header.version === FORMAT_VERSION) Object.assign(header, readRecord(view, 0, TOKENIZER_FIELDS));
  assert.equal(header.entrySize, ENTRY_SIZE);
  assert.equal(header.fileSize, buf.length);
  assert.equal(header.tableBytes, header.tensorCount * ENTRY_SIZE);
  const head = Buffer.from(buf.subarray(0, header.headBytes));
  head.writeUInt32LE(0, HEADER.headChecksum.offset);
  assert.equal(crc32(head), header.checksum, 'head checksum: the head with the field zeroed');
  const parts = [];
  let expected = header.headBytes;
  for (let i = 0; i < header.partCount; i++) {
    const part = readRecord(view, header.partsOffset + PART_ENTRY_SIZE * i, PART_FIELDS);
    assert.equal(part.offset, expected, `part ${i} follows the previous one`);
    assert.equal(crc32(buf, part.offset, part.offset + part.bytes), part.crc, `part ${i} CRC`);
    expected += part.bytes;
    parts.push(part);
  }
  assert.equal(expected, buf.length, 'the parts reach the end of the file');
  const copy = (offset, bytes) => buf.buffer.slice(buf.byteOffset + offset, buf.byteOffset + offset + bytes);
  const tensors = new Map();
  for (let i = 0; i < header.tensorCount; i++) {
    const at = header.tableOffset + i * ENTRY_SIZE;
    const e = readRecord(view, at, ENTRY_FIELDS);
    const name = Buffer.from(e.name).toString('latin1').replace(/\0+$/, '');
    const t = { kind: e.kind, rows: e.rows, cols: e.cols, group: e.group, qmax: e.qmax };
    const { dataOffset, dataBytes, scaleOffset, scaleBytes } = e;
    assert.ok(e.reserved.every((b) => b === 0), `${name}: entry bytes ${ENTRY.reserved.offset}..${ENTRY_SIZE - 1} zero`);
    assert.equal(dataOffset % 16, 0, `${name} data aligned`);
    if (t.kind === KIND.f32) {
      assert.deepEqual([t.group, t.qmax, scaleOffset, scaleBytes], [0, 0, 0, 0], `${name}: f32 fields`);
      t.values = new Float32Array(copy(dataOffset, dataBytes));
    } else {
      assert.ok(t.kind === KIND.int8 || t.kind === KIND.int16, `${name}: kind ${t.kind}`);
      assert.equal(scaleOffset % 16, 0, `${name} scales aligned`);
      assert.equal(t.cols % t.group, 0, `${name}: group divides the row`);
      t.precision = t.kind === KIND.int8 ? 'int8' : 'int16';
      t.q = t.kind === KIND.int8 ? new Int8Array(copy(dataOffset, dataBytes)) : new Int16Array(copy(dataOffset, dataBytes));
      assert.equal(t.q.length, t.rows * t.cols, `${name}: value count`);
      t.scales = new Float32Array(copy(scaleOffset, scaleBytes));
      assert.equal(t.scales.length, t.rows * (t.cols / t.group), `${name}: scale count`);
    }
    Object.assign(t, { dataOffset, scaleOffset });
    tensors.set(name, t);
  }
  const cardText = header.cardBytes ? buf.toString('utf8', header.cardOffset, header.cardOffset + header.cardBytes - 1) : '';
  if (header.cardBytes) assert.equal(buf[header.cardOffset + header.cardBytes - 1], 0, 'the card ends with its NUL');
  return {
    header, tensors, parts, card: cardText ? JSON.parse(cardText) : null,
    vocab: buf.subarray(header.vocabOffset, header.vocabOffset + header.vocabBytes),
  };
}

const isMatrix = (t) => t.kind !== KIND.f32;
const scaleAt = (t, i) => t.scales[Math.floor(i / t.cols) * (t.cols / t.group) + Math.floor((i % t.cols) / t.group)];
const dequantAt = (t, i) => Math.fround(t.q[i] * scaleAt(t, i));  // as the engine computes it
const matrices = (w) => [...w.tensors].filter(([, t]) => isMatrix(t));
const precisionCount = (w, precision) => matrices(w).filter(([, t]) => t.precision === precision).length;

// Every value within half a step of the source (or exact), the largest |q| of each group at qmax.
function assertQuantizedFrom(w, source, { exact = false } = {}) {
  for (const [name, t] of w.tensors) {
    const src = source.get(name);
    if (!isMatrix(t)) {
      assert.deepEqual(t.values, src, `${name}: f32 values unchanged`);
      continue;
    }
    for (let i = 0; i < src.length; i++) {
      const error = Math.abs(dequantAt(t, i) - src[i]);
      const bound = exact ? 0 : scaleAt(t, i) * 0.5 * (1 + 1e-6) + Math.abs(src[i]) * 2 ** -24;
      if (error > bound) assert.fail(`${name}[${i}]: ${dequantAt(t, i)} vs ${src[i]} (bound ${bound})`);
      if (Math.abs(t.q[i]) > t.qmax) assert.fail(`${name}[${i}]: |q| ${t.q[i]} over qmax ${t.qmax}`);
    }
    for (let g = 0; g < t.scales.length; g++) {
      const begin = Math.floor(g / (t.cols / t.group)) * t.cols + (g % (t.cols / t.group)) * t.group;
      let largest = 0;
      for (let i = begin; i < begin + t.group; i++) largest = Math.max(largest, Math.abs(t.q[i]));
      assert.ok(largest === t.qmax || largest === 0, `${name}: group ${g} reaches qmax (${largest} of ${t.qmax})`);
    }
  }
}

// ---------------------------------------------------------------- writing checkpoints

const DTYPE_BYTES = { F32: 4, F16: 2, BF16: 2 };

function readSafetensors(file) {
  const buf = fs.readFileSync(file);
  const length = Number(buf.readBigUInt64LE(0));
  const header = JSON.parse(buf.toString('utf8', 8, 8 + length));
  return Object.entries(header).filter(([name]) => name !== '__metadata__').map(([name, info]) => ({
    name, dtype: info.dtype, shape: info.shape,
    bytes: buf.subarray(8 + length + info.data_offsets[0], 8 + length + info.data_offsets[1]),
  }));
}

const floatsOf = (t) => new Float32Array(t.bytes.buffer.slice(t.bytes.byteOffset, t.bytes.byteOffset + t.bytes.length));
const sourceMap = (tensors) => new Map(tensors.map((t) => [t.name, floatsOf(t)]));

const f32View = new Float32Array(1);
const u32View = new Uint32Array(f32View.buffer);
const floatBits = (x) => { f32View[0] = x; return u32View[0]; };

function floatToBf16(x) {
  const bits = floatBits(x);
  return ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;  // round to nearest even
}

function roundHalfEven(x) {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

function floatToF16(x) {
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a >= 65520) return sign | 0x7c00;
  if (a < 2 ** -14) return sign | roundHalfEven(a / 2 ** -24);  // subnormal (may round up to the normal 0x400)
  const exponent = Math.floor(Math.log2(a));
  const e = a / 2 ** exponent >= 2 ? exponent + 1 : a / 2 ** exponent < 1 ? exponent - 1 : exponent;
  const mantissa = roundHalfEven((a / 2 ** e - 1) * 1024);
  return sign | ((e + 15) << 10) + mantissa;  // mantissa 1024 carries into the exponent
}

function reencode(tensor, dtype) {
  const values = floatsOf(tensor);
  const out = Buffer.alloc(values.length * DTYPE_BYTES[dtype]);
  const encode = dtype === 'F16' ? floatToF16 : floatToBf16;
  values.forEach((v, i) => out.writeUInt16LE(encode(v), 2 * i));
  return { ...tensor, dtype, bytes: out };
}

// A checkpoint directory: `config` (object or JSON text), `vocab`, `tensors`, optional `training`.
// Always named "tiny": the model card holds the directory's name, and the bytes with it.
function writeCheckpoint({ config, vocab, tensors, training }) {
  const dir = path.join(tempDir(), 'tiny');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'config.json'), typeof config === 'string' ? config : JSON.stringify(config, null, 2));
  fs.writeFileSync(path.join(dir, 'vocab.txt'), vocab);
  writeSafetensors(path.join(dir, 'model.safetensors'), tensors);
  if (training) fs.writeFileSync(path.join(dir, 'training.json'), JSON.stringify(training));
  return dir;
}

// ---------------------------------------------------------------- small synthetic checkpoints

const tinyConfig = {
  vocab_size: 12, hidden_size: 8, num_hidden_layers: 1, num_attention_heads: 2, intermediate_size: 16,
  max_position_embeddings: 8, type_vocab_size: 2, layer_norm_eps: 1e-12, hidden_act: 'gelu',
  model_type: 'bert', position_embedding_type: 'absolute',
};
const tinyVocab = '[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\non\nmat\n##s\n.\n';

function f32Tensor(name, shape, fill) {
  const values = new Float32Array(shape.reduce((a, b) => a * b, 1)).map((_, i) => fill(i));
  return { name, dtype: 'F32', shape, bytes: Buffer.from(values.buffer) };
}

function generator(seed) {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

// Random F32 tensors for `config`: matrices in ±`spread` (Q and K wider, so that attention is
// sharp enough for int8 rounding to show); LayerNorm weights near 1.
function tinyTensors(config = tinyConfig, { spread = 0.2, seed = 12345 } = {}) {
  const next = generator(seed);
  return Object.entries(bertTensorShapes(config)).map(([name, shape]) => {
    const width = /self\.(query|key)\.weight/.test(name) ? 6 * spread : spread;
    const offset = name.endsWith('LayerNorm.weight') ? 1 : 0;
    return f32Tensor(name, shape, () => offset + (next() - 0.5) * 2 * width);
  });
}

// The same matrices moved onto the per-row int8 grid (w = float32(q·s), some |q| = 127 per row),
// except those named in `offGrid`.
function onGrid(tensors, offGrid = []) {
  const next = generator(777);
  return tensors.map((t) => {
    if (t.shape.length !== 2 || offGrid.some((s) => t.name.includes(s))) return t;
    const [rows, cols] = t.shape;
    const values = floatsOf(t);
    for (let r = 0; r < rows; r++) {
      const scale = Math.floor(1000 + next() * 10000) * 2 ** -20;  // 127·scale and q·scale exact in float32
      for (let c = 0; c < cols; c++) {
        const q = c === r % cols ? (r % 2 ? 127 : -127) : Math.round((next() - 0.5) * 254);
        values[r * cols + c] = Math.fround(q * scale);
      }
    }
    return { ...t, bytes: Buffer.from(values.buffer) };
  });
}

const tinyCheckpoint = (edits = {}) => writeCheckpoint({ config: tinyConfig, vocab: tinyVocab, tensors: tinyTensors(), ...edits });

// ---------------------------------------------------------------- the format and quantization

test('tiny checkpoint: the file reads back (header, checksums, parts, table); int8 and int16 within half a step', () => {
  const tensors = tinyTensors();
  const dir = tinyCheckpoint({ tensors });
  const source = sourceMap(tensors);
  for (const precision of ['int8', 'int16']) {
    const w = readWeights(convertBytes(dir, '--precision', precision));
    assert.equal(w.header.tensorCount, 5 + 16 + 5);
    assert.deepEqual([w.header.vocab, w.header.hidden, w.header.layers, w.header.heads, w.header.ffn,
      w.header.maxPositions, w.header.typeVocab], [12, 8, 1, 2, 16, 8, 2]);
    assert.equal(w.header.lnEps, Math.fround(1e-12));
    assert.equal(w.vocab.toString('latin1'), tinyVocab);
    assert.equal(precisionCount(w, precision), 10, `every matrix ${precision}`);
    for (const [name, t] of matrices(w)) {
      assert.equal(t.group, t.cols, `${name}: one scale per row`);
      const lookup = name.startsWith('bert.embeddings.');
      assert.equal(t.qmax, precision === 'int8' ? 127 : lookup ? 32767 : 4095, `${name}: qmax`);
    }
    assertQuantizedFrom(w, source);
  }
});

test('the parts: a part per layer, in order, then the MLM head, then the word embeddings in whole rows; the embeddings\' other arrays in the head', () => {
  const config = { ...tinyConfig, vocab_size: 2000, hidden_size: 64, num_attention_heads: 1, intermediate_size: 64, num_hidden_layers: 2 };
  const vocab = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', ...Array.from({ length: 1995 }, (_, i) => `w${i}`)].join('\n') + '\n';
  const inside = (t, p) => t.dataOffset >= p.offset && t.dataOffset < p.offset + p.bytes &&
    (t.scaleOffset === 0 || (t.scaleOffset >= p.offset && t.scaleOffset < p.offset + p.bytes));
  for (const precision of ['int8', 'int16']) {
    const w = readWeights(convertBytes(writeCheckpoint({ config, vocab, tensors: tinyTensors(config) }), '--precision', precision));
    const word = w.tensors.get('bert.embeddings.word_embeddings.weight');
    const rowBytes = 64 * (precision === 'int8' ? 1 : 2);
    const [layer0, layer1, mlm, ...wordParts] = w.parts;
    assert.equal(layer0.offset, w.header.headBytes, 'layer 1 right after the head');
    for (const [name, t] of w.tensors) {
      const layer = /^bert\.encoder\.layer\.(\d+)\./.exec(name)?.[1];
      if (layer !== undefined) assert.ok(inside(t, [layer0, layer1][Number(layer)]), `${name} in the part of layer ${layer}`);
      else if (name.startsWith('cls.')) assert.ok(inside(t, mlm), `${name} in the MLM part`);
      else if (t !== word) assert.ok(t.dataOffset < w.header.headBytes && t.scaleOffset < w.header.headBytes, `${name} in the head`);
    }
    assert.ok(word.scaleOffset < w.header.headBytes, 'the word-embedding scales in the head');
    assert.equal(word.dataOffset, mlm.offset + mlm.bytes, 'the word-embedding values follow the MLM part');
    assert.ok(wordParts.length >= 2, `${precision}: ${wordParts.length} word-embedding parts`);
    for (const p of wordParts) {
      assert.equal(p.bytes % rowBytes, 0, 'whole rows');
      assert.ok(p.bytes <= 16384, `a part of ${p.bytes} bytes`);
    }
    assert.equal(wordParts.reduce((a, p) => a + p.bytes, 0), 2000 * rowBytes);
  }
});

test('determinism: same checkpoint and options, same bytes; options change them', () => {
  const dir = tinyCheckpoint();
  assert.ok(convertBytes(dir).equals(convertBytes(dir)), 'auto twice');
  assert.ok(convertBytes(dir, '--precision', 'int16').equals(convertBytes(dir, '--precision', 'int16')), 'int16 twice');
  assert.ok(!convertBytes(dir, '--precision', 'int8').equals(convertBytes(dir, '--precision', 'int16')));
});

test('the model card: facts (name, training, precision, head roles measured with the engine); training.json adds the held-out quality', () => {
  const training = { objective: 'masked-word prediction', corpus_tokens: 1234567, heldout_mlm_acc: 0.25,
    int8_native: { heldout_mlm_acc: 0.26, heldout_mlm_loss: 4.5, made_by: 'rounded per row' } };
  const dir = tinyCheckpoint({ training });
  const { card } = readWeights(convertBytes(dir, '--precision', 'int8'));
  assert.equal(card.name, 'tiny', "the checkpoint directory's name");
  assert.equal(card.training_tokens, 1234567);
  assert.equal(card.training_language, 'en');
  assert.equal(card.heldout_mlm_accuracy, 0.26);
  assert.equal(card.heldout_mlm_loss, 4.5);
  assert.deepEqual([card.matrices_int8, card.matrices_int16], [10, 0]);
  assert.equal(card.masked_word_head, true);
  for (const key of ['head_next', 'head_previous', 'head_cls', 'head_sep']) {
    assert.equal(card[key].length, 2, `${key}: one value per head (1 layer × 2 heads)`);
    assert.ok(card[key].every((v) => v >= 0 && v <= 1), `${key}: shares`);
  }
  for (const sentence of ['architecture', 'precision', 'objective', 'trained_on', 'derived', 'limits']) assert.equal(card[sentence], undefined, `no English sentence: ${sentence}`);
  const mixed = readWeights(convertBytes(tinyCheckpoint(), '--precision', 'int8', '--precision-for', 'query=int16'));
  assert.deepEqual([mixed.card.matrices_int8, mixed.card.matrices_int16], [9, 1]);
  assert.equal(mixed.card.heldout_mlm_accuracy, undefined, 'no training.json: no quality claimed');
});

// ---------------------------------------------------------------- options

test('--precision-for: substring match, last match wins; int16 qmax by role', () => {
  const dir = tinyCheckpoint();
  const w = readWeights(convertBytes(dir, '--precision', 'int8', '--precision-for', 'layer.0=int16',
    '--precision-for', 'query=int8', '--precision-for', 'embeddings=int16'));
  const precisionOf = (name) => w.tensors.get(name).precision;
  assert.equal(precisionOf('bert.encoder.layer.0.attention.self.query.weight'), 'int8');
  assert.equal(precisionOf('bert.encoder.layer.0.attention.self.key.weight'), 'int16');
  assert.equal(precisionOf('bert.encoder.layer.0.output.dense.weight'), 'int16');
  assert.equal(precisionOf('cls.predictions.transform.dense.weight'), 'int8');
  assert.equal(w.tensors.get('bert.embeddings.word_embeddings.weight').qmax, 32767, 'looked-up table: 15 bits');
  assert.equal(w.tensors.get('bert.encoder.layer.0.attention.self.key.weight').qmax, 4095, 'multiplied: 13 bits');
  const forced = readWeights(convertBytes(dir, '--precision', 'int16', '--precision-for', 'intermediate=int8'));
  assert.equal(precisionCount(forced, 'int8'), 1);
  assert.equal(forced.tensors.get('bert.encoder.layer.0.intermediate.dense.weight').precision, 'int8');
});

test('option errors: bad values, options of the former format, usage', () => {
  const dir = tinyCheckpoint();
  assertRefused(dir, /--precision: expected auto, int8, int16; got "int4"/, '--precision', 'int4');
  assertRefused(dir, /--precision-for expects SUBSTRING=int8\|int16, got "query"/, '--precision-for', 'query');
  assertRefused(dir, /--precision-for: expected int8, int16; got "auto"/, '--precision-for', 'query=auto');
  for (const bad of ['0', '-1', 'abc', 'Infinity']) assertRefused(dir, /--target: expected a positive number/, '--target', bad);
  assertRefused(dir, /--precision needs a value/, '--precision');
  for (const gone of [['--planes', '1'], ['--planes-for', 'query=2'], ['--residual-ratio', '32'], ['--residual-scale', 'free'],
    ['--residual-ratio-for', 'query=16'], ['--per-tensor'], ['--group-for', 'query=row'],
    ['--group', '4'], ['--group', 'row']]) {
    assertRefused(dir, new RegExp(`unknown option ${gone[0]}\\b[^]*usage:`), ...gone);
  }
  const run = spawnSync(process.execPath, [converter], { encoding: 'utf8' });
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /usage: node weights\/convert.mjs CHECKPOINT_DIR OUT.bin \[--precision auto\|int8\|int16\]/);
});

// ---------------------------------------------------------------- the precision choice

test('on the int8 grid: --precision auto stores every matrix as int8, exactly, without a search', () => {
  const tensors = onGrid(tinyTensors());
  const { bytes, stderr } = convertOk(tinyCheckpoint({ tensors }));
  const w = readWeights(bytes);
  assert.equal(precisionCount(w, 'int8'), 10);
  assertQuantizedFrom(w, sourceMap(tensors), { exact: true });
  assert.doesNotMatch(stderr, /^(every candidate|ranking|bisection)/m, 'nothing to search');
  const { predicted, within } = predictionOf(stderr);
  assert.ok(within && predicted > 0 && predicted < 1e-3, `the engine's own arithmetic, measured: ${predicted}`);
});

test('auto search: only off-grid matrices are candidates; a tight target makes them int16, a loose one int8', () => {
  const query = 'bert.encoder.layer.0.attention.self.query.weight';
  const tensors = onGrid(tinyTensors(), ['attention.self.query']);
  const dir = tinyCheckpoint({ tensors });
  const loose = convertOk(dir, '--target', '1');
  assert.match(loose.stderr, /calibration:/);
  const looseWeights = readWeights(loose.bytes);
  assert.equal(precisionCount(looseWeights, 'int16'), 0, 'a loose target: int8 everywhere');
  const looseVerdict = predictionOf(loose.stderr);
  assert.ok(looseVerdict.within && looseVerdict.predicted > 0, `int8 query predicted ${looseVerdict.predicted}`);

  const tight = convertOk(dir, '--target', String(looseVerdict.predicted / 100));
  const w = readWeights(tight.bytes);
  assert.equal(w.tensors.get(query).precision, 'int16', 'the off-grid query goes int16');
  assert.equal(precisionCount(w, 'int16'), 1, 'the on-grid matrices stay int8');
  const verdict = predictionOf(tight.stderr);
  assert.ok(verdict.predicted < looseVerdict.predicted, `int16 query predicted ${verdict.predicted}`);
  assertQuantizedFrom(w, sourceMap(tensors));

  const forced = readWeights(convertBytes(dir, '--target', '1e-12', '--precision-for', 'query=int8'));
  assert.equal(forced.tensors.get(query).precision, 'int8', '--precision-for overrides the search');
});

test('auto search on a float checkpoint: the prediction meets the target, or the converter warns', () => {
  const dir = tinyCheckpoint();
  const int8 = predictionOf(convertOk(dir, '--precision', 'int8').stderr);
  const int16 = predictionOf(convertOk(dir, '--precision', 'int16').stderr);
  assert.ok(int16.predicted < int8.predicted, `int16 ${int16.predicted} < int8 ${int8.predicted}`);
  const target = Math.sqrt(int8.predicted * Math.max(int16.predicted, int8.predicted / 1e4));
  const auto = convertOk(dir, '--target', String(target));
  const verdict = predictionOf(auto.stderr);
  const w = readWeights(auto.bytes);
  assert.ok(verdict.within && verdict.predicted <= target, `predicted ${verdict.predicted} within ${target}`);
  assert.ok(precisionCount(w, 'int16') >= 1, 'some matrix spent on int16');
  const over = convertOk(dir, '--precision', 'int8', '--target', String(int8.predicted / 2));
  assert.match(over.stderr, /WARNING: over the target/);
});

// ---------------------------------------------------------------- inputs

test('F16 and BF16 inputs convert close to the F32 conversion', () => {
  const tensors = tinyTensors();
  const f32 = readWeights(convertBytes(tinyCheckpoint({ tensors }), '--precision', 'int16'));
  for (const [dtype, relative] of [['F16', 2 ** -11], ['BF16', 2 ** -8]]) {
    const w = readWeights(convertBytes(tinyCheckpoint({ tensors: tensors.map((t) => reencode(t, dtype)) }), '--precision', 'int16'));
    for (const [name, a] of f32.tensors) {
      const b = w.tensors.get(name);
      const count = isMatrix(a) ? a.q.length : a.values.length;
      for (let i = 0; i < count; i++) {
        const [x, y] = isMatrix(a) ? [dequantAt(a, i), dequantAt(b, i)] : [a.values[i], b.values[i]];
        const bound = (isMatrix(a) ? 0.5 * (scaleAt(a, i) + scaleAt(b, i)) : 0) + (Math.abs(x) + 1e-30) * relative * 1.01;
        if (Math.abs(x - y) > bound) assert.fail(`${dtype} ${name}[${i}]: ${x} vs ${y}`);
      }
    }
  }
});

test('config.json: BertConfig defaults for missing keys are used and reported', () => {
  const { layer_norm_eps: _eps, hidden_act: _act, type_vocab_size: _types, ...rest } = tinyConfig;
  const { bytes, stderr } = convertOk(tinyCheckpoint({ config: rest }), '--precision', 'int8');
  assert.match(stderr, /config\.json: layer_norm_eps, hidden_act, type_vocab_size not given: BertConfig's defaults used/);
  const w = readWeights(bytes);
  assert.equal(w.header.lnEps, Math.fround(1e-12));
  assert.equal(w.header.typeVocab, 2);
  const { stderr: quiet } = convertOk(tinyCheckpoint(), '--precision', 'int8');
  assert.doesNotMatch(quiet, /defaults used/, 'nothing reported when every key is given');
});

test('config and checkpoint mismatches are refused with a clear message', () => {
  const bad = (edit) => tinyCheckpoint({ config: { ...tinyConfig, ...edit } });
  assertRefused(bad({ hidden_size: 16 }), /shape \[12,8\], config.json implies \[12,16\]/);
  assertRefused(bad({ num_hidden_layers: 13 }), /num_hidden_layers is 13, the engine runs at most 12/);
  assertRefused(bad({ num_attention_heads: 3 }), /not a multiple of num_attention_heads 3/);
  assertRefused(bad({ num_attention_heads: 16 }), /num_attention_heads is 16, the engine runs at most 12/);
  assertRefused(bad({ max_position_embeddings: 1024 }), /max_position_embeddings is 1024, the engine runs at most 512/);
  assertRefused(bad({ hidden_act: 'gelu_new' }), /hidden_act is "gelu_new"/);
  assertRefused(bad({ model_type: 'roberta' }), /model_type is "roberta"/);
  assertRefused(bad({ position_embedding_type: 'relative_key' }), /position_embedding_type/);
  assertRefused(bad({ layer_norm_eps: -1 }), /layer_norm_eps must be a positive number/);
  assertRefused(bad({ intermediate_size: 0 }), /intermediate_size must be a positive integer/);
  assertRefused(bad({ type_vocab_size: 3 }), /token_type_embeddings.weight has shape \[2,8\]/);
  assertRefused(tinyCheckpoint({ config: '{"vocab_size": 12,' }), /config.json is not valid JSON/);
  assertRefused(tinyCheckpoint({ vocab: tinyVocab + 'extra\n' }), /13 lines but config.json vocab_size is 12/);
  // A vocab.txt without its final newline is accepted, as transformers reads it: tests/hf-variants.test.mjs.
  const missing = tinyTensors().filter((t) => t.name !== 'cls.predictions.bias');
  assertRefused(tinyCheckpoint({ tensors: missing }), /no tensor cls.predictions.bias/);
  const extraLayer = [...tinyTensors(), f32Tensor('bert.encoder.layer.1.output.dense.bias', [8], () => 0)];
  assertRefused(tinyCheckpoint({ tensors: extraLayer }), /layer.1.output.dense.bias but config.json says num_hidden_layers is 1/);
  const int32 = tinyTensors().map((t) => (t.name.endsWith('LayerNorm.bias') ? { ...t, dtype: 'I32' } : t));
  assertRefused(tinyCheckpoint({ tensors: int32 }), /dtype I32; only F32, F16 and BF16/);
});

test('NaN or Inf in a tensor is refused, naming the tensor and the index', () => {
  const poisoned = (name, index, value) => tinyTensors().map((t) => {
    if (t.name !== name) return t;
    const values = floatsOf(t);
    values[index] = value;
    return { ...t, bytes: Buffer.from(values.buffer) };
  });
  const key = 'bert.encoder.layer.0.attention.self.key.weight';
  assertRefused(tinyCheckpoint({ tensors: poisoned(key, 13, NaN) }), new RegExp(`tensor ${key.replaceAll('.', '\\.')} holds a non-finite value at index 13`));
  assertRefused(tinyCheckpoint({ tensors: poisoned('bert.embeddings.word_embeddings.weight', 0, -Infinity) }),
    /tensor bert\.embeddings\.word_embeddings\.weight holds a non-finite value at index 0/);
  assertRefused(tinyCheckpoint({ tensors: poisoned('cls.predictions.bias', 11, Infinity) }),
    /tensor cls\.predictions\.bias holds a non-finite value at index 11/);
});

test('tied decoder: an equal copy is accepted, a different one refused; pooler/NSP ignored', () => {
  const tensors = tinyTensors();
  const word = tensors.find((t) => t.name === 'bert.embeddings.word_embeddings.weight');
  const extras = [f32Tensor('bert.pooler.dense.weight', [8, 8], () => 1), f32Tensor('cls.seq_relationship.weight', [2, 8], () => 1)];
  const tied = convertBytes(tinyCheckpoint({ tensors: [...tensors, ...extras, { ...word, name: 'cls.predictions.decoder.weight' }] }), '--precision', 'int8');
  assert.ok(tied.equals(convertBytes(tinyCheckpoint(), '--precision', 'int8')), 'decoder copy and ignored tensors change nothing');
  const different = Buffer.from(word.bytes);
  different.writeFloatLE(0.123, 4 * 17);
  const untied = { ...word, name: 'cls.predictions.decoder.weight', bytes: different };
  assertRefused(tinyCheckpoint({ tensors: [...tensors, untied] }), /decoder.weight differs from bert.embeddings.word_embeddings.weight/);
});

test('missing files, a pytorch_model.bin that is not one, a missing output folder', () => {
  const without = (file) => {
    const dir = tinyCheckpoint();
    fs.rmSync(path.join(dir, file));
    return dir;
  };
  assertRefused(path.join(tempRoot, 'nonexistent'), /cannot read the checkpoint folder .*nonexistent: no such folder/);
  assertRefused(without('config.json'), /missing: config\.json$/m);
  assertRefused(without('vocab.txt'), /missing: vocab\.txt \/ tokenizer\.json/);
  assertRefused(without('model.safetensors'), /missing: model\.safetensors \/ pytorch_model\.bin/);
  const pytorch = without('model.safetensors');
  fs.writeFileSync(path.join(pytorch, 'pytorch_model.bin'), 'not a torch file');
  assertRefused(pytorch, /pytorch_model\.bin: neither a zip nor a pickle file/);
  const truncated = tinyCheckpoint();
  fs.truncateSync(path.join(truncated, 'model.safetensors'), 4);
  assertRefused(truncated, /model\.safetensors: too short for a safetensors file/);
  const out = path.join(tempRoot, 'no-such-folder', 'out.bin');
  const run = spawnSync(process.execPath, [converter, tinyCheckpoint(), out], { encoding: 'utf8' });
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /cannot write .*out\.bin: folder .*no-such-folder does not exist/);
  assert.ok(!fs.existsSync(out));
});

// ---------------------------------------------------------------- the real checkpoints

test('bert-mini-int8 (on the int8 grid): every matrix int8, exact, ≤ 12,000,000 bytes, deterministic', { skip: absent(gridCheckpoint) }, () => {
  const first = convertOk(gridCheckpoint);
  assert.ok(first.bytes.equals(convertBytes(gridCheckpoint)), 'two runs give identical bytes');
  assert.ok(first.bytes.length <= 12_000_000, `size ${first.bytes.length}`);
  const w = readWeights(first.bytes);
  assert.equal(w.header.tensorCount, 74);
  assert.equal(precisionCount(w, 'int8'), 28);
  for (const [name, t] of matrices(w)) assert.equal(t.group, t.cols, `${name}: per row`);
  assert.ok(w.vocab.equals(fs.readFileSync(path.join(gridCheckpoint, 'vocab.txt'))), 'vocabulary byte-identical');
  assertQuantizedFrom(w, sourceMap(readSafetensors(path.join(gridCheckpoint, 'model.safetensors'))), { exact: true });
  const verdict = predictionOf(first.stderr);
  assert.ok(verdict.within && verdict.target === 1e-3 && verdict.predicted > 0 && verdict.predicted < 2e-4,
    `the engine's own arithmetic, measured on the calibration text: ${verdict.predicted}`);
  assert.doesNotMatch(first.stderr, /^(every candidate|ranking|bisection)/m, 'no search: every matrix is on the grid');
  assert.deepEqual([w.card.matrices_int8, w.card.matrices_int16], [28, 0]);
  assert.equal(w.card.name, 'bert-mini-int8');
  console.log(`bert-mini-int8: ${first.bytes.length} bytes, ${w.parts.length} parts, head ${w.header.headBytes} bytes`);
});

test('bert-mini-mlm (float): auto spends int16 where needed and meets the target; int8 alone warns', allOnly({ skip: absent(floatCheckpoint) }), () => {
  const int8 = convertOk(floatCheckpoint, '--precision', 'int8');
  const int8Verdict = predictionOf(int8.stderr);
  assert.ok(!int8Verdict.within && int8Verdict.predicted > 1e-3, `int8: predicted ${int8Verdict.predicted}`);
  assert.match(int8.stderr, /WARNING: over the target 0\.001/);
  const int16 = convertOk(floatCheckpoint, '--precision', 'int16');
  const source = sourceMap(readSafetensors(path.join(floatCheckpoint, 'model.safetensors')));
  assertQuantizedFrom(readWeights(int16.bytes), source);
  const started = Date.now();
  const auto = convertOk(floatCheckpoint);  // the search
  const verdict = predictionOf(auto.stderr);
  const w = readWeights(auto.bytes);
  const spent = precisionCount(w, 'int16');
  assert.ok(verdict.within && verdict.predicted <= 1e-3, `auto: predicted ${verdict.predicted}`);
  assert.ok(spent >= 1 && spent < 28, `${spent} of 28 matrices int16`);
  assert.ok(int8.bytes.length < auto.bytes.length && auto.bytes.length < int16.bytes.length, 'size between int8 and int16');
  assertQuantizedFrom(w, source);
  console.log(`bert-mini-mlm: int8 ${int8.bytes.length} bytes (predicted ${int8Verdict.predicted}), int16 ${int16.bytes.length}, `
    + `auto ${auto.bytes.length} with ${spent} int16 matrices (predicted ${verdict.predicted}, search ${((Date.now() - started) / 1000).toFixed(0)} s)`);
});
