// node --test tests/converter.test.mjs
// The weights converter (weights/convert.mjs): determinism, F16/BF16 input, refusals.
// Uses a tiny synthetic checkpoint written on the fly, and ../shared/checkpoints/bert-mini-mlm
// (relative to the repository root) when present; those tests are skipped when it is absent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bertTensorShapes, writeSafetensors } from './lib/safetensors.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const converter = path.join(repoRoot, 'weights', 'convert.mjs');
const realCheckpoint = path.resolve(repoRoot, '../shared/checkpoints/bert-mini-mlm');
const skipReal = fs.existsSync(path.join(realCheckpoint, 'model.safetensors'))
  ? false : `checkpoint absent: ${realCheckpoint}`;

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
  return result.bytes;
}

function assertRefused(dir, pattern, ...options) {
  const result = convert(dir, ...options);
  assert.notEqual(result.status, 0, 'converter should have refused');
  assert.match(result.stderr, pattern);
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'a clear message, not a stack trace');
}

// ---------------------------------------------------------------- reading the output (FORMAT.md)

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function readWeights(buf) {
  assert.equal(buf.toString('latin1', 0, 8), 'BERTINT8');
  const u32 = (at) => buf.readUInt32LE(at);
  const u64 = (at) => Number(buf.readBigUInt64LE(at));
  const header = {
    version: u32(8), checksum: u32(12), fileSize: u64(16), headerSize: u32(24), tensorCount: u32(28),
    vocabOffset: u64(32), vocabBytes: u64(40), tableOffset: u64(48), tableBytes: u64(56),
    vocab: u32(64), hidden: u32(68), layers: u32(72), heads: u32(76), ffn: u32(80),
    maxPositions: u32(84), typeVocab: u32(88), lnEps: buf.readFloatLE(92), quant: u32(96),
  };
  const copy = Buffer.from(buf);
  copy.writeUInt32LE(0, 12);
  assert.equal(crc32(copy), header.checksum, 'checksum over the file with the field zeroed');
  assert.equal(header.fileSize, buf.length);
  const tensors = new Map();
  for (let i = 0; i < header.tensorCount; i++) {
    const at = header.tableOffset + i * 128;
    const name = buf.toString('latin1', at, at + 64).replace(/\0+$/, '');
    const t = { kind: u32(at + 64), rows: u32(at + 68), cols: u32(at + 72), group: u32(at + 76) };
    const [dataOffset, dataBytes, scaleOffset, scaleBytes] = [80, 88, 96, 104].map((o) => u64(at + o));
    assert.equal(dataOffset % 16, 0, `${name} data aligned`);
    const slice = (offset, bytes) => buf.buffer.slice(buf.byteOffset + offset, buf.byteOffset + offset + bytes);
    if (t.kind === 1 || t.kind === 3) {
      assert.equal(scaleOffset % 16, 0, `${name} scales aligned`);
      t.q = new Int8Array(slice(dataOffset, dataBytes));
      t.scales = new Float32Array(slice(scaleOffset, scaleBytes));
    }
    if (t.kind === 3) {  // the second plane: the residual of the first, same layout
      const [residualOffset, residualScaleOffset] = [112, 120].map((o) => u64(at + o));
      assert.equal(residualOffset % 16, 0, `${name} residual aligned`);
      assert.equal(residualScaleOffset % 16, 0, `${name} residual scales aligned`);
      t.q2 = new Int8Array(slice(residualOffset, dataBytes));
      t.scales2 = new Float32Array(slice(residualScaleOffset, scaleBytes));
    } else if (t.kind === 2) {
      t.values = new Float32Array(buf.buffer.slice(buf.byteOffset + dataOffset, buf.byteOffset + dataOffset + dataBytes));
    }
    tensors.set(name, t);
  }
  return { header, tensors, vocab: buf.subarray(header.vocabOffset, header.vocabOffset + header.vocabBytes) };
}

const scaleIndex = (t, i) => Math.floor(i / t.cols) * (t.cols / t.group) + Math.floor((i % t.cols) / t.group);
const scaleAt = (t, i) => t.scales[scaleIndex(t, i)];
// The value a matrix entry stands for, and the step of its last plane (the rounding bound is half of it).
const dequantAt = (t, i) => t.q[i] * scaleAt(t, i) + (t.q2 ? t.q2[i] * t.scales2[scaleIndex(t, i)] : 0);
const stepAt = (t, i) => (t.q2 ? t.scales2[scaleIndex(t, i)] : scaleAt(t, i));
const isMatrix = (t) => t.kind === 1 || t.kind === 3;

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

const f32View = new Float32Array(1);
const u32View = new Uint32Array(f32View.buffer);
const floatBits = (x) => { f32View[0] = x; return u32View[0]; };

function floatToBf16(x) {
  const bits = floatBits(x);
  return ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;  // round to nearest even
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

function roundHalfEven(x) {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

function reencode(tensor, dtype) {
  if (tensor.dtype !== 'F32') return tensor;
  const values = new Float32Array(tensor.bytes.buffer.slice(tensor.bytes.byteOffset, tensor.bytes.byteOffset + tensor.bytes.length));
  const out = Buffer.alloc(values.length * DTYPE_BYTES[dtype]);
  const encode = dtype === 'F16' ? floatToF16 : floatToBf16;
  values.forEach((v, i) => out.writeUInt16LE(encode(v), 2 * i));
  return { ...tensor, dtype, bytes: out };
}

// A checkpoint directory: `config` (object), `vocab` (Buffer or string), `tensors` (safetensors list).
function writeCheckpoint({ config, vocab, tensors }) {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config, null, 2));
  fs.writeFileSync(path.join(dir, 'vocab.txt'), vocab);
  writeSafetensors(path.join(dir, 'model.safetensors'), tensors);
  return dir;
}

// ---------------------------------------------------------------- a tiny synthetic checkpoint

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

function tinyTensors(config = tinyConfig) {
  let seed = 12345;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5) * 0.4;
  return Object.entries(bertTensorShapes(config)).map(([name, shape]) => f32Tensor(name, shape, random));
}

const tinyCheckpoint = (edits = {}) => writeCheckpoint({ config: tinyConfig, vocab: tinyVocab, tensors: tinyTensors(), ...edits });

// ---------------------------------------------------------------- tests

function assertSameDequantized(a, b, tolerance) {
  for (const [name, ta] of a.tensors) {
    const tb = b.tensors.get(name);
    assert.ok(tb, `${name} present in both`);
    if (ta.kind === 2) {
      ta.values.forEach((v, i) => assert.ok(Math.abs(v - tb.values[i]) <= tolerance(Math.abs(v), 0, 0), `${name}[${i}]`));
      continue;
    }
    for (let i = 0; i < ta.q.length; i++) {
      const [sa, sb] = [stepAt(ta, i), stepAt(tb, i)];
      const [va, vb] = [dequantAt(ta, i), dequantAt(tb, i)];
      // |w| <= |va| + sa/2 bounds the input's own rounding error.
      if (Math.abs(va - vb) > tolerance(Math.abs(va) + sa, sa, sb)) assert.fail(`${name}[${i}]: ${va} vs ${vb}`);
    }
  }
}

// Both sides round to their own scale (half a step each), plus the input's own rounding.
const toleranceFor = (relative) => (magnitude, sa, sb) => 0.5 * (sa + sb) * (1 + 1e-6) + magnitude * relative * 1.01 + 2 ** -24;

test('tiny checkpoint converts; quantization within half a step; vocab byte-identical', () => {
  const dir = tinyCheckpoint();
  const w = readWeights(convertOk(dir));
  assert.equal(w.header.tensorCount, 5 + 16 + 5);
  assert.equal(w.vocab.toString('latin1'), tinyVocab);
  const source = new Map(tinyTensors().map((t) => [t.name, new Float32Array(t.bytes.buffer, t.bytes.byteOffset, t.bytes.length / 4)]));
  for (const [name, t] of w.tensors) {
    const src = source.get(name);
    if (t.kind === 2) { assert.deepEqual(t.values, src); continue; }
    assert.equal(t.group, t.cols, `${name}: default scheme is per row`);
    assert.equal(t.kind, 3, `${name}: default scheme has two planes`);
    // --residual-scale fixed (default): scale = R·scale2 exactly, so R·q + q2 is one int16 weight;
    // R = 32 for the matrices the engine multiplies, 254 for the embeddings it looks up.
    const ratio = name.includes('embeddings') ? 254 : 32;
    t.scales.forEach((s, g) => assert.equal(s, t.scales2[g] * ratio, `${name}: scale is exactly ${ratio} residual steps`));
    t.q2.forEach((v, i) => assert.ok(Math.abs(v) <= ratio / 2, `${name}[${i}]: residual within half a first-plane step`));
    src.forEach((x, i) => {
      assert.ok(Math.abs(t.q[i] * scaleAt(t, i) - x) <= scaleAt(t, i) * 0.5 * (1 + 1e-6), `${name}[${i}] first plane`);
      const bound = stepAt(t, i) * 0.5 * (1 + 1e-6) + Math.abs(x) * 2 ** -23;
      assert.ok(Math.abs(dequantAt(t, i) - x) <= bound, `${name}[${i}] both planes`);
      assert.ok(stepAt(t, i) <= scaleAt(t, i) / 30, `${name}[${i}] residual step far finer`);
    });
  }
});

test('--residual-scale free: the second plane gets its own scales, within half a step', () => {
  const dir = tinyCheckpoint();
  const w = readWeights(convertOk(dir, '--residual-scale', 'free'));
  const source = new Map(tinyTensors().map((t) => [t.name, new Float32Array(t.bytes.buffer, t.bytes.byteOffset, t.bytes.length / 4)]));
  let differs = 0;
  for (const [name, t] of w.tensors) {
    if (t.kind !== 3) continue;
    t.scales.forEach((s, g) => { if (s !== t.scales2[g] * 254 && s !== t.scales2[g] * 32) differs++; });
    source.get(name).forEach((x, i) => {
      const bound = stepAt(t, i) * 0.5 * (1 + 1e-6) + Math.abs(x) * 2 ** -23;
      assert.ok(Math.abs(dequantAt(t, i) - x) <= bound, `${name}[${i}] both planes`);
    });
  }
  assert.ok(differs > 0, 'free residual scales are not all scale/254 or scale/32');
  assertRefused(dir, /--residual-scale: expected fixed or free/, '--residual-scale', 'loose');
});

test('--residual-ratio and --residual-ratio-for set R in scale = R·scale2; bad ratios refused', () => {
  const dir = tinyCheckpoint();
  const w = readWeights(convertOk(dir, '--residual-ratio', '16', '--residual-ratio-for', 'position_embeddings=64'));
  for (const [name, t] of w.tensors) {
    if (t.kind !== 3) continue;
    const ratio = name.includes('position_embeddings') ? 64 : name.includes('embeddings') ? 254 : 16;
    t.scales.forEach((s, g) => assert.equal(s, t.scales2[g] * ratio, `${name}: scale = ${ratio}·scale2`));
    t.q2.forEach((v, i) => assert.ok(Math.abs(v) <= ratio / 2, `${name}[${i}]: |q2| ≤ ${ratio / 2}`));
  }
  for (const bad of ['1', '255', 'x', '3.5']) {
    assertRefused(dir, /--residual-ratio: expected an integer from 2 to 254/, '--residual-ratio', bad);
  }
  assertRefused(dir, /--residual-ratio-for expects SUBSTRING=N/, '--residual-ratio-for', '32');
});

test('planes options: --planes 1, --planes-for, and a bad plane count', () => {
  const dir = tinyCheckpoint();
  const one = readWeights(convertOk(dir, '--planes', '1'));
  for (const t of one.tensors.values()) assert.ok(t.kind === 1 || t.kind === 2);
  const mixed = readWeights(convertOk(dir, '--planes', '1', '--planes-for', 'embeddings=2'));
  assert.equal(mixed.tensors.get('bert.embeddings.word_embeddings.weight').kind, 3);
  assert.equal(mixed.tensors.get('bert.encoder.layer.0.intermediate.dense.weight').kind, 1);
  assertRefused(dir, /--planes: expected 1 or 2/, '--planes', '3');
});

test('grouping options: --group, --group-for, --per-tensor, and a group that does not divide', () => {
  const dir = tinyCheckpoint();
  const grouped = readWeights(convertOk(dir, '--group', '4', '--group-for', 'word_embeddings=row', '--group-for', 'intermediate=tensor'));
  assert.equal(grouped.tensors.get('bert.encoder.layer.0.attention.self.query.weight').group, 4);
  assert.equal(grouped.tensors.get('bert.embeddings.word_embeddings.weight').group, 8);
  const inter = grouped.tensors.get('bert.encoder.layer.0.intermediate.dense.weight');
  assert.equal(inter.group, 8);
  assert.ok(inter.scales.every((s) => s === inter.scales[0]), 'per-tensor: one scale in every slot');
  const naive = readWeights(convertOk(dir, '--per-tensor'));
  for (const t of naive.tensors.values()) if (isMatrix(t)) assert.ok(t.scales.every((s) => s === t.scales[0]));
  assertRefused(dir, /--group 3 does not divide the 8 columns/, '--group', '3');
  assertRefused(dir, /--group: expected a positive integer/, '--group', 'abc');
});

test('tiny checkpoint: F16 and BF16 inputs convert close to the F32 conversion', () => {
  const f32 = readWeights(convertOk(tinyCheckpoint()));
  for (const [dtype, relative] of [['F16', 2 ** -11], ['BF16', 2 ** -8]]) {
    const w = readWeights(convertOk(tinyCheckpoint({ tensors: tinyTensors().map((t) => reencode(t, dtype)) })));
    assertSameDequantized(f32, w, toleranceFor(relative));
  }
});

test('config and checkpoint mismatches are refused with a clear message', () => {
  const bad = (edit) => tinyCheckpoint({ config: { ...tinyConfig, ...edit } });
  assertRefused(bad({ hidden_size: 16 }), /shape \[12,8\], config.json implies \[12,16\]/);
  assertRefused(bad({ num_hidden_layers: 5 }), /num_hidden_layers is 5, the engine runs at most 4/);
  assertRefused(bad({ num_attention_heads: 3 }), /not a multiple of num_attention_heads 3/);
  assertRefused(bad({ num_attention_heads: 8 }), /num_attention_heads is 8/);
  assertRefused(bad({ max_position_embeddings: 1024 }), /max_position_embeddings is 1024/);
  assertRefused(bad({ hidden_act: 'gelu_new' }), /hidden_act is "gelu_new"/);
  assertRefused(bad({ model_type: 'roberta' }), /model_type is "roberta"/);
  assertRefused(bad({ position_embedding_type: 'relative_key' }), /position_embedding_type/);
  assertRefused(bad({ layer_norm_eps: -1 }), /layer_norm_eps/);
  assertRefused(bad({ intermediate_size: 0 }), /intermediate_size must be a positive integer/);
  assertRefused(bad({ type_vocab_size: 3 }), /token_type_embeddings.weight has shape \[2,8\]/);
  assertRefused(tinyCheckpoint({ vocab: tinyVocab + 'extra\n' }), /13 lines but config.json vocab_size is 12/);
  assertRefused(tinyCheckpoint({ vocab: tinyVocab.slice(0, -1) }), /must end with a newline/);
  const missing = tinyTensors().filter((t) => t.name !== 'cls.predictions.bias');
  assertRefused(tinyCheckpoint({ tensors: missing }), /no tensor cls.predictions.bias/);
  const extraLayer = [...tinyTensors(), f32Tensor('bert.encoder.layer.1.output.dense.bias', [8], () => 0)];
  assertRefused(tinyCheckpoint({ tensors: extraLayer }), /layer.1.output.dense.bias but config.json says num_hidden_layers is 1/);
  const int64 = tinyTensors().map((t) => (t.name.endsWith('LayerNorm.bias') ? { ...t, dtype: 'I32' } : t));
  assertRefused(tinyCheckpoint({ tensors: int64 }), /dtype I32; only F32, F16 and BF16/);
});

test('tied decoder: an equal copy is accepted, a different one refused; pooler/NSP ignored', () => {
  const tensors = tinyTensors();
  const word = tensors.find((t) => t.name === 'bert.embeddings.word_embeddings.weight');
  const extras = [
    f32Tensor('bert.pooler.dense.weight', [8, 8], () => 1),
    f32Tensor('cls.seq_relationship.weight', [2, 8], () => 1),
  ];
  const tied = convertOk(tinyCheckpoint({ tensors: [...tensors, ...extras, { ...word, name: 'cls.predictions.decoder.weight' }] }));
  assert.ok(tied.equals(convertOk(tinyCheckpoint())), 'decoder copy and ignored tensors change nothing');
  const different = Buffer.from(word.bytes);
  different.writeFloatLE(0.123, 4 * 17);
  const untied = { ...word, name: 'cls.predictions.decoder.weight', bytes: different };
  assertRefused(tinyCheckpoint({ tensors: [...tensors, untied] }), /decoder.weight differs from bert.embeddings.word_embeddings.weight/);
});

test('usage errors', () => {
  const run = spawnSync(process.execPath, [converter], { encoding: 'utf8' });
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /usage: node weights\/convert.mjs CHECKPOINT_DIR OUT.bin/);
  assertRefused(path.join(tempRoot, 'nonexistent'), /cannot read .*config.json/);
});

test('real checkpoint: deterministic output, ~23.1 MB (11.7 MB with one plane), vocab byte-identical', { skip: skipReal }, () => {
  const first = convertOk(realCheckpoint);
  const second = convertOk(realCheckpoint);
  assert.ok(first.equals(second), 'two runs give identical bytes');
  assert.ok(first.length > 22.5e6 && first.length < 23.5e6, `size ${first.length}`);
  const onePlane = convertOk(realCheckpoint, '--planes', '1');
  assert.ok(onePlane.length > 11.0e6 && onePlane.length < 12.0e6, `one-plane size ${onePlane.length}`);
  const w = readWeights(first);
  assert.ok(w.vocab.equals(fs.readFileSync(path.join(realCheckpoint, 'vocab.txt'))));
  assert.equal(w.header.tensorCount, 74);
});

test('real checkpoint: F16 and BF16 copies dequantize close to the F32 conversion', { skip: skipReal }, () => {
  const f32 = readWeights(convertOk(realCheckpoint));
  const source = readSafetensors(path.join(realCheckpoint, 'model.safetensors'));
  const config = JSON.parse(fs.readFileSync(path.join(realCheckpoint, 'config.json'), 'utf8'));
  const vocab = fs.readFileSync(path.join(realCheckpoint, 'vocab.txt'));
  for (const [dtype, relative] of [['F16', 2 ** -11], ['BF16', 2 ** -8]]) {
    const dir = writeCheckpoint({ config, vocab, tensors: source.map((t) => reencode(t, dtype)) });
    assertSameDequantized(f32, readWeights(convertOk(dir)), toleranceFor(relative));
  }
});

test('real checkpoint: wrong hidden_size and a vocab line short are refused', { skip: skipReal }, () => {
  const config = JSON.parse(fs.readFileSync(path.join(realCheckpoint, 'config.json'), 'utf8'));
  const linked = (configEdit, vocab) => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ ...config, ...configEdit }));
    fs.writeFileSync(path.join(dir, 'vocab.txt'), vocab);
    fs.symlinkSync(path.join(realCheckpoint, 'model.safetensors'), path.join(dir, 'model.safetensors'));
    return dir;
  };
  const vocab = fs.readFileSync(path.join(realCheckpoint, 'vocab.txt'));
  assertRefused(linked({ hidden_size: 128 }, vocab), /config.json implies \[\d+,128\]/);
  const short = vocab.subarray(0, vocab.lastIndexOf(0x0a, vocab.length - 2) + 1);
  assertRefused(linked({}, short), new RegExp(`has ${config.vocab_size - 1} lines but config.json vocab_size is ${config.vocab_size}`));
});
