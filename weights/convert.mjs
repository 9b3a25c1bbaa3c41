#!/usr/bin/env node
// Converts a Hugging Face BERT masked-LM checkpoint directory (config.json, vocab.txt,
// model.safetensors) into the int8 weights file described in weights/FORMAT.md.
//
//   node weights/convert.mjs CHECKPOINT_DIR OUT.bin [--group N|row|tensor]
//        [--group-for SUBSTRING=N|row|tensor ...] [--per-tensor]
//        [--planes 1|2] [--planes-for SUBSTRING=1|2 ...] [--residual-scale fixed|free]
//
// Same input, same options -> identical output bytes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

// The quantization group used for every matrix unless overridden: 'row', 'tensor' or a
// column count that divides every row length (e.g. 64).
export const DEFAULT_GROUP = 'row';

// int8 planes per matrix: 1 = w ≈ s·q; 2 = w ≈ s·q + s₂·q₂, a second int8 plane holding the
// rounding residual of the first (13 to 15 bits of precision, see RESIDUAL_RATIO). The measured parity of each
// scheme is in weights/README.md: one plane misses the 1e-3 attention bar by 28× on the
// default checkpoint, two planes meet it.
export const DEFAULT_PLANES = 2;

// The second plane's scales: 'free' = max|residual|/127 per group; 'fixed' = exactly scale/R for
// an integer R (the ratio), so that q·s + q₂·s/R = (R·q + q₂)·s/R is ONE int16 weight per entry
// with one scale (the engine then multiplies 16-bit weights: one integer dot product per 8
// weights). For that the group's scale2 is max|w|/(127·R) rounded UP to 16 significant bits and
// scale = R·scale2, both exact in float32 (scale is at most 2^-16 above max|w|/127, the largest
// |w| still maps to ±127); the residual is ≤ scale/2 = (R/2)·scale2, so q₂ = round(r/scale2) fits
// [-R/2, R/2] without clamping, and every value is within half a step s/R of the checkpoint's.
//
// R trades weight precision (steps of max|w|/(127·R)) for activation precision: the engine sums
// int16 weights × int16 activations exactly in int32 over 256 columns, so |R·q + q₂|·max|X| must
// stay under 2^31/64, and the smaller R, the more bits each token keeps (R = 32: |Q| ≤ 4080,
// 13-bit activations). weights/README.md has the measured parity of R = 16, 32, 64 and 254.
// The embeddings are looked up, not multiplied, so they keep R = 254 (≈ 15 bits).
export const DEFAULT_RESIDUAL_SCALE = 'fixed';
export const RESIDUAL_RATIO = 32;
export const EMBEDDING_RESIDUAL_RATIO = 254;

// max|w| / (127·ratio) rounded up to 16 significant bits, as a float32 (exact).
function fixedStep(amax, ratio) {
  const a = amax / 127 / ratio;
  if (!(a > 0)) return 0;
  const unit = 2 ** (Math.floor(Math.log2(a)) - 15);
  let step = Math.ceil(a / unit) * unit;
  if (step / ratio / 127 > amax * 2) step = a;  // guard against log2 rounding
  return Math.fround(step);
}
const fixedScaleRule = (ratio) => (amax) => Math.fround(fixedStep(amax, ratio) * ratio);

export const MAGIC = 'BERTINT8';
export const FORMAT_VERSION = 1;
export const HEADER_SIZE = 128;
export const ENTRY_SIZE = 128;
export const NAME_SIZE = 64;
export const KIND_INT8 = 1;
export const KIND_F32 = 2;
export const KIND_INT8_RESIDUAL = 3;
export const QUANT_INT8_SYMMETRIC_GROUPED = 1;
export const CHECKSUM_OFFSET = 12;
const ALIGN = 16;
const LIMITS = { layers: 4, heads: 4, maxPositions: 512 };

class ConvertError extends Error {}
const fail = (message) => { throw new ConvertError(message); };

// ---------------------------------------------------------------- options

const USAGE = 'usage: node weights/convert.mjs CHECKPOINT_DIR OUT.bin [--group N|row|tensor] '
  + '[--group-for SUBSTRING=N|row|tensor ...] [--per-tensor] [--planes 1|2] [--planes-for SUBSTRING=1|2 ...] '
  + '[--residual-scale fixed|free] [--residual-ratio N] [--residual-ratio-for SUBSTRING=N ...]';

function parseGroupSpec(text, option) {
  if (text === 'row' || text === 'tensor') return text;
  if (!/^[1-9][0-9]*$/.test(text)) fail(`${option}: expected a positive integer, "row" or "tensor", got "${text}"`);
  return Number(text);
}

function parseRatio(text, option) {
  if (!/^[0-9]+$/.test(text) || Number(text) < 2 || Number(text) > 254) fail(`${option}: expected an integer from 2 to 254, got "${text}"`);
  return Number(text);
}

function parsePlanes(text, option) {
  if (text !== '1' && text !== '2') fail(`${option}: expected 1 or 2, got "${text}"`);
  return Number(text);
}

// "SUBSTRING=VALUE" of a --…-for option: {substring, [key]: parseValue(VALUE)}; the last one
// whose substring a tensor name contains applies (lastOverride).
function parseOverride(spec, option, expected, key, parseValue) {
  const eq = spec.lastIndexOf('=');
  if (eq <= 0) fail(`${option} expects SUBSTRING=${expected}, got "${spec}"`);
  return { substring: spec.slice(0, eq), [key]: parseValue(spec.slice(eq + 1), option) };
}

// Every scheme option at its default (convert() fills in what a caller leaves out).
export function defaultOptions() {
  return { defaultGroup: DEFAULT_GROUP, overrides: [], defaultPlanes: DEFAULT_PLANES, planeOverrides: [],
    residualScale: DEFAULT_RESIDUAL_SCALE, defaultRatio: RESIDUAL_RATIO,
    ratioOverrides: [{ substring: 'embeddings', ratio: EMBEDDING_RESIDUAL_RATIO }] };
}

export function parseArgs(argv) {
  const positional = [];
  const options = defaultOptions();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => (i + 1 < argv.length ? argv[++i] : fail(`${arg} needs a value\n${USAGE}`));
    if (arg === '--group') options.defaultGroup = parseGroupSpec(value(), '--group');
    else if (arg === '--per-tensor') options.defaultGroup = 'tensor';
    else if (arg === '--group-for') options.overrides.push(parseOverride(value(), arg, 'N', 'group', parseGroupSpec));
    else if (arg === '--planes') options.defaultPlanes = parsePlanes(value(), '--planes');
    else if (arg === '--planes-for') options.planeOverrides.push(parseOverride(value(), arg, '1|2', 'planes', parsePlanes));
    else if (arg === '--residual-scale') {
      const spec = value();
      if (spec !== 'fixed' && spec !== 'free') fail(`--residual-scale: expected fixed or free, got "${spec}"`);
      options.residualScale = spec;
    } else if (arg === '--residual-ratio') options.defaultRatio = parseRatio(value(), '--residual-ratio');
    else if (arg === '--residual-ratio-for') options.ratioOverrides.push(parseOverride(value(), arg, 'N', 'ratio', parseRatio));
    else if (arg.startsWith('--')) fail(`unknown option ${arg}\n${USAGE}`);
    else positional.push(arg);
  }
  if (positional.length !== 2) fail(USAGE);
  [options.checkpointDir, options.outPath] = positional;
  return options;
}

// ---------------------------------------------------------------- config.json

function positiveInteger(config, key) {
  const v = config[key];
  if (!Number.isInteger(v) || v <= 0) fail(`config.json: ${key} must be a positive integer, got ${JSON.stringify(v)}`);
  return v;
}

function requireValue(config, key, expected, { optional = false } = {}) {
  if (optional && config[key] === undefined) return;
  if (config[key] !== expected) {
    fail(`config.json: ${key} is ${JSON.stringify(config[key])}, this engine only runs ${JSON.stringify(expected)}`);
  }
}

export function readConfig(dir) {
  const file = path.join(dir, 'config.json');
  let config;
  try { config = JSON.parse(fs.readFileSync(file, 'utf8')); } catch (e) { fail(`cannot read ${file}: ${e.message}`); }
  requireValue(config, 'model_type', 'bert', { optional: true });
  requireValue(config, 'hidden_act', 'gelu');
  requireValue(config, 'position_embedding_type', 'absolute', { optional: true });
  const shape = {
    vocab: positiveInteger(config, 'vocab_size'),
    hidden: positiveInteger(config, 'hidden_size'),
    layers: positiveInteger(config, 'num_hidden_layers'),
    heads: positiveInteger(config, 'num_attention_heads'),
    ffn: positiveInteger(config, 'intermediate_size'),
    maxPositions: positiveInteger(config, 'max_position_embeddings'),
    typeVocab: positiveInteger(config, 'type_vocab_size'),
    lnEps: config.layer_norm_eps,
  };
  if (shape.layers > LIMITS.layers) fail(`config.json: num_hidden_layers is ${shape.layers}, the engine runs at most ${LIMITS.layers}`);
  if (shape.heads > LIMITS.heads) fail(`config.json: num_attention_heads is ${shape.heads}, the engine runs at most ${LIMITS.heads}`);
  if (shape.hidden % shape.heads !== 0) fail(`config.json: hidden_size ${shape.hidden} is not a multiple of num_attention_heads ${shape.heads}`);
  if (shape.maxPositions > LIMITS.maxPositions) fail(`config.json: max_position_embeddings is ${shape.maxPositions}, the engine runs at most ${LIMITS.maxPositions}`);
  const eps = shape.lnEps;
  if (typeof eps !== 'number' || !Number.isFinite(eps) || eps <= 0 || !(Math.fround(eps) > 0)) {
    fail(`config.json: layer_norm_eps must be a positive float32 number, got ${JSON.stringify(eps)}`);
  }
  return shape;
}

// ---------------------------------------------------------------- vocab.txt

export function readVocab(dir, shape) {
  const file = path.join(dir, 'vocab.txt');
  let bytes;
  try { bytes = fs.readFileSync(file); } catch (e) { fail(`cannot read ${file}: ${e.message}`); }
  if (bytes.length === 0 || bytes[bytes.length - 1] !== 0x0a) fail(`${file}: must end with a newline`);
  if (bytes.includes(0)) fail(`${file}: contains a NUL byte`);
  let lines = 0;
  for (const b of bytes) if (b === 0x0a) lines++;
  if (lines !== shape.vocab) fail(`${file} has ${lines} lines but config.json vocab_size is ${shape.vocab}`);
  return bytes;
}

// ---------------------------------------------------------------- model.safetensors

const DTYPE_BYTES = { F32: 4, F16: 2, BF16: 2 };

function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const mantissa = h & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 31) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

function decodeFloats(bytes, dtype) {
  const count = bytes.length / DTYPE_BYTES[dtype];
  const out = new Float32Array(count);
  if (dtype === 'F32') {
    new Uint8Array(out.buffer).set(bytes);  // little-endian host checked in main()
  } else if (dtype === 'BF16') {
    const bits = new Uint32Array(out.buffer);
    for (let i = 0; i < count; i++) bits[i] = (bytes[2 * i] | (bytes[2 * i + 1] << 8)) << 16;
  } else {
    for (let i = 0; i < count; i++) out[i] = halfToFloat(bytes[2 * i] | (bytes[2 * i + 1] << 8));
  }
  return out;
}

// Returns Map name -> { dtype, shape, bytes } without decoding.
export function readSafetensors(file) {
  let buf;
  try { buf = fs.readFileSync(file); } catch (e) { fail(`cannot read ${file}: ${e.message}`); }
  if (buf.length < 8) fail(`${file}: too short for a safetensors file`);
  const headerLength = buf.readBigUInt64LE(0);
  if (headerLength > BigInt(buf.length - 8)) fail(`${file}: header length ${headerLength} runs past the end of the file`);
  let header;
  try { header = JSON.parse(buf.subarray(8, 8 + Number(headerLength)).toString('utf8')); } catch (e) {
    fail(`${file}: header is not valid JSON: ${e.message}`);
  }
  const dataStart = 8 + Number(headerLength);
  const tensors = new Map();
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const [begin, end] = info.data_offsets ?? [];
    const elements = (info.shape ?? []).reduce((a, b) => a * b, 1);
    if (!Number.isInteger(begin) || !Number.isInteger(end) || begin < 0 || end < begin || dataStart + end > buf.length) {
      fail(`${file}: tensor ${name} has data offsets outside the file`);
    }
    const bytes = buf.subarray(dataStart + begin, dataStart + end);
    if (DTYPE_BYTES[info.dtype] && bytes.length !== elements * DTYPE_BYTES[info.dtype]) {
      fail(`${file}: tensor ${name} holds ${bytes.length} bytes, its shape [${info.shape}] needs ${elements * DTYPE_BYTES[info.dtype]}`);
    }
    tensors.set(name, { dtype: info.dtype, shape: info.shape, bytes });
  }
  return tensors;
}

export function floatsOf(tensors, name) {
  const t = tensors.get(name);
  if (!DTYPE_BYTES[t.dtype]) fail(`tensor ${name} has dtype ${t.dtype}; only F32, F16 and BF16 are read`);
  return decodeFloats(t.bytes, t.dtype);
}

// ---------------------------------------------------------------- the tensors, in file order

const LAYER_TENSORS = [
  ['attention.self.query.weight', 'int8', 'hidden', 'hidden'],
  ['attention.self.query.bias', 'f32', 'hidden'],
  ['attention.self.key.weight', 'int8', 'hidden', 'hidden'],
  ['attention.self.key.bias', 'f32', 'hidden'],
  ['attention.self.value.weight', 'int8', 'hidden', 'hidden'],
  ['attention.self.value.bias', 'f32', 'hidden'],
  ['attention.output.dense.weight', 'int8', 'hidden', 'hidden'],
  ['attention.output.dense.bias', 'f32', 'hidden'],
  ['attention.output.LayerNorm.weight', 'f32', 'hidden'],
  ['attention.output.LayerNorm.bias', 'f32', 'hidden'],
  ['intermediate.dense.weight', 'int8', 'ffn', 'hidden'],
  ['intermediate.dense.bias', 'f32', 'ffn'],
  ['output.dense.weight', 'int8', 'hidden', 'ffn'],
  ['output.dense.bias', 'f32', 'hidden'],
  ['output.LayerNorm.weight', 'f32', 'hidden'],
  ['output.LayerNorm.bias', 'f32', 'hidden'],
];

// [name, kind, rows, cols]; f32 vectors have rows = 1 in the file.
export function tensorPlan(shape) {
  const dim = { vocab: shape.vocab, hidden: shape.hidden, ffn: shape.ffn, pos: shape.maxPositions, type: shape.typeVocab };
  const plan = [
    ['bert.embeddings.word_embeddings.weight', 'int8', 'vocab', 'hidden'],
    ['bert.embeddings.position_embeddings.weight', 'int8', 'pos', 'hidden'],
    ['bert.embeddings.token_type_embeddings.weight', 'int8', 'type', 'hidden'],
    ['bert.embeddings.LayerNorm.weight', 'f32', 'hidden'],
    ['bert.embeddings.LayerNorm.bias', 'f32', 'hidden'],
  ];
  for (let i = 0; i < shape.layers; i++) {
    for (const [suffix, ...rest] of LAYER_TENSORS) plan.push([`bert.encoder.layer.${i}.${suffix}`, ...rest]);
  }
  plan.push(
    ['cls.predictions.transform.dense.weight', 'int8', 'hidden', 'hidden'],
    ['cls.predictions.transform.dense.bias', 'f32', 'hidden'],
    ['cls.predictions.transform.LayerNorm.weight', 'f32', 'hidden'],
    ['cls.predictions.transform.LayerNorm.bias', 'f32', 'hidden'],
    ['cls.predictions.bias', 'f32', 'vocab'],
  );
  return plan.map(([name, kind, a, b]) => (kind === 'int8'
    ? { name, kind, rows: dim[a], cols: dim[b], hfShape: [dim[a], dim[b]] }
    : { name, kind, rows: 1, cols: dim[a], hfShape: [dim[a]] }));
}

const IGNORED_TENSOR = /^(bert\.pooler\.|cls\.seq_relationship\.|bert\.embeddings\.position_ids$)/;

function checkTensorSet(tensors, plan, shape) {
  const wanted = new Set(plan.map((t) => t.name));
  for (const t of plan) {
    const found = tensors.get(t.name);
    if (!found) fail(`model.safetensors has no tensor ${t.name}`);
    if (JSON.stringify(found.shape) !== JSON.stringify(t.hfShape)) {
      fail(`tensor ${t.name} has shape [${found.shape}], config.json implies [${t.hfShape}]`);
    }
  }
  for (const name of tensors.keys()) {
    const layer = /^bert\.encoder\.layer\.(\d+)\./.exec(name);
    if (layer && Number(layer[1]) >= shape.layers) {
      fail(`model.safetensors has ${name} but config.json says num_hidden_layers is ${shape.layers}`);
    }
    if (!wanted.has(name) && !IGNORED_TENSOR.test(name) && !name.startsWith('cls.predictions.decoder.')) {
      process.stderr.write(`note: ignoring tensor ${name}\n`);
    }
  }
}

function sameFloats(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && !(Number.isNaN(a[i]) && Number.isNaN(b[i]))) return false;
  return true;
}

function checkTiedDecoder(tensors, floats) {
  if (tensors.has('cls.predictions.decoder.weight')
      && !sameFloats(floatsOf(tensors, 'cls.predictions.decoder.weight'), floats.get('bert.embeddings.word_embeddings.weight'))) {
    fail('cls.predictions.decoder.weight differs from bert.embeddings.word_embeddings.weight: '
      + 'the engine needs a decoder tied to the word embeddings');
  }
  if (tensors.has('cls.predictions.decoder.bias')
      && !sameFloats(floatsOf(tensors, 'cls.predictions.decoder.bias'), floats.get('cls.predictions.bias'))) {
    fail('cls.predictions.decoder.bias differs from cls.predictions.bias');
  }
}

function checkFinite(name, data) {
  for (let i = 0; i < data.length; i++) if (!Number.isFinite(data[i])) fail(`tensor ${name} holds a non-finite value at index ${i}`);
}

// ---------------------------------------------------------------- quantization

function resolveGroup(tensor, options) {
  let spec = options.defaultGroup;
  let source = '--group';
  for (const o of options.overrides) if (tensor.name.includes(o.substring)) { spec = o.group; source = `--group-for ${o.substring}`; }
  if (spec === 'row') return { group: tensor.cols, perTensor: false, label: 'row' };
  if (spec === 'tensor') return { group: tensor.cols, perTensor: true, label: 'tensor' };
  if (tensor.cols % spec !== 0) fail(`${source} ${spec} does not divide the ${tensor.cols} columns of ${tensor.name}`);
  return { group: spec, perTensor: false, label: spec === tensor.cols ? 'row' : `group ${spec}` };
}

function lastOverride(tensor, overrides, key, fallback) {
  let value = fallback;
  for (const o of overrides) if (tensor.name.includes(o.substring)) value = o[key];
  return value;
}

const resolveRatio = (tensor, options) => lastOverride(tensor, options.ratioOverrides, 'ratio', options.defaultRatio);
const resolvePlanes = (tensor, options) => lastOverride(tensor, options.planeOverrides, 'planes', options.defaultPlanes);

function maxAbs(data, begin, end) {
  let m = 0;
  for (let i = begin; i < end; i++) m = Math.max(m, Math.abs(data[i]));
  return m;
}

const scaleFor = (amax) => Math.fround(amax / 127);

// Symmetric int8, round half away from zero, q in [-127, 127].
export function quantize(data, rows, cols, group, perTensor, scaleRule = scaleFor) {
  const groupsPerRow = cols / group;
  const q = new Int8Array(rows * cols);
  const scales = new Float32Array(rows * groupsPerRow);
  const tensorScale = perTensor ? scaleRule(maxAbs(data, 0, data.length)) : 0;
  let maxError = 0;
  let squaredError = 0;
  for (let s = 0; s < scales.length; s++) {
    const begin = s * group;
    const scale = perTensor ? tensorScale : scaleRule(maxAbs(data, begin, begin + group));
    scales[s] = scale;
    for (let i = begin; i < begin + group; i++) {
      const x = scale === 0 ? 0 : data[i] / scale;
      const v = Math.min(127, Math.round(Math.abs(x))) * Math.sign(x);
      q[i] = v;
      const error = Math.abs(data[i] - Math.fround(v * scale));
      maxError = Math.max(maxError, error);
      squaredError += error * error;
    }
  }
  return { q, scales, maxError, rmsError: Math.sqrt(squaredError / data.length) };
}

// The second plane with scale2 = scale/ratio (exact: the first plane's scales come from
// fixedScaleRule): q2 = round(residual / scale2), in [-ratio/2, ratio/2] (a clamp is counted, never seen).
export function quantizeResidualFixed(residual, scales, group, ratio = RESIDUAL_RATIO) {
  const q = new Int8Array(residual.length);
  const residualScales = new Float32Array(scales.length);
  let clamped = 0;
  for (let g = 0; g < scales.length; g++) {
    const scale2 = Math.fround(scales[g] / ratio);
    residualScales[g] = scale2;
    for (let i = g * group; i < (g + 1) * group; i++) {
      const x = scale2 === 0 ? 0 : residual[i] / scale2;
      const r = Math.round(Math.abs(x));
      if (r > 127 || r > ratio / 2 + 0.5) clamped++;
      q[i] = Math.min(127, r) * Math.sign(x);
    }
  }
  return { q, scales: residualScales, clamped };
}

// ---------------------------------------------------------------- layout and bytes

const align = (n) => Math.ceil(n / ALIGN) * ALIGN;

function layoutFile(vocabBytes, tensors) {
  const vocabOffset = HEADER_SIZE;
  const tableOffset = align(vocabOffset + vocabBytes);
  const tableBytes = tensors.length * ENTRY_SIZE;
  let cursor = align(tableOffset + tableBytes);
  for (const t of tensors) {
    t.dataOffset = cursor;
    cursor = align(cursor + t.data.byteLength);
    t.scaleOffset = t.scales ? cursor : 0;
    if (t.scales) cursor = align(cursor + t.scales.byteLength);
    if (t.residual) {
      t.residualOffset = cursor;
      cursor = align(cursor + t.residual.byteLength);
      t.residualScaleOffset = cursor;
      cursor = align(cursor + t.residualScales.byteLength);
    }
  }
  return { vocabOffset, tableOffset, tableBytes, fileSize: cursor };
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(bytes) {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

// The checksum covers the whole file with the checksum field itself read as zero.
export function fileChecksum(bytes) {
  const copy = Buffer.from(bytes);
  copy.writeUInt32LE(0, CHECKSUM_OFFSET);
  return crc32(copy);
}

function defaultGroupCode(spec) {
  if (spec === 'row') return 0;
  if (spec === 'tensor') return 0xffffffff;
  return spec;
}

function writeHeader(out, shape, layout, tensorCount, vocabBytes, options) {
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(FORMAT_VERSION, 8);
  out.writeBigUInt64LE(BigInt(layout.fileSize), 16);
  out.writeUInt32LE(HEADER_SIZE, 24);
  out.writeUInt32LE(tensorCount, 28);
  out.writeBigUInt64LE(BigInt(layout.vocabOffset), 32);
  out.writeBigUInt64LE(BigInt(vocabBytes), 40);
  out.writeBigUInt64LE(BigInt(layout.tableOffset), 48);
  out.writeBigUInt64LE(BigInt(layout.tableBytes), 56);
  [shape.vocab, shape.hidden, shape.layers, shape.heads, shape.ffn, shape.maxPositions, shape.typeVocab]
    .forEach((v, i) => out.writeUInt32LE(v, 64 + 4 * i));
  out.writeFloatLE(shape.lnEps, 92);
  out.writeUInt32LE(QUANT_INT8_SYMMETRIC_GROUPED, 96);
  out.writeUInt32LE(defaultGroupCode(options.defaultGroup), 100);
  out.writeUInt32LE(ENTRY_SIZE, 104);
}

function writeTableEntry(out, at, t) {
  if (Buffer.byteLength(t.name, 'latin1') >= NAME_SIZE) fail(`tensor name too long for the table: ${t.name}`);
  out.write(t.name, at, 'latin1');
  out.writeUInt32LE({ int8: KIND_INT8, int8x2: KIND_INT8_RESIDUAL, f32: KIND_F32 }[t.kind], at + 64);
  out.writeUInt32LE(t.rows, at + 68);
  out.writeUInt32LE(t.cols, at + 72);
  out.writeUInt32LE(t.kind === 'f32' ? 0 : t.group, at + 76);
  out.writeBigUInt64LE(BigInt(t.dataOffset), at + 80);
  out.writeBigUInt64LE(BigInt(t.data.byteLength), at + 88);
  out.writeBigUInt64LE(BigInt(t.scaleOffset), at + 96);
  out.writeBigUInt64LE(BigInt(t.scales ? t.scales.byteLength : 0), at + 104);
  if (t.residual) {
    out.writeBigUInt64LE(BigInt(t.residualOffset), at + 112);
    out.writeBigUInt64LE(BigInt(t.residualScaleOffset), at + 120);
  }
}

function bytesOf(typed) {
  return new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);
}

export function buildFile(shape, vocab, tensors, options) {
  const layout = layoutFile(vocab.length, tensors);
  const out = Buffer.alloc(layout.fileSize);  // zero-filled: padding and reserved fields are 0
  writeHeader(out, shape, layout, tensors.length, vocab.length, options);
  vocab.copy(out, layout.vocabOffset);
  tensors.forEach((t, i) => {
    writeTableEntry(out, layout.tableOffset + i * ENTRY_SIZE, t);
    out.set(bytesOf(t.data), t.dataOffset);
    if (t.scales) out.set(bytesOf(t.scales), t.scaleOffset);
    if (t.residual) {
      out.set(bytesOf(t.residual), t.residualOffset);
      out.set(bytesOf(t.residualScales), t.residualScaleOffset);
    }
  });
  out.writeUInt32LE(fileChecksum(out), CHECKSUM_OFFSET);
  return out;
}

// ---------------------------------------------------------------- main

// The second plane quantizes what the first left over, group by group with its own scales.
function residualOf(data, first, group) {
  const residual = new Float32Array(data.length);
  for (let i = 0; i < data.length; i++) {
    residual[i] = data[i] - Math.fround(first.q[i] * first.scales[Math.floor(i / group)]);
  }
  return residual;
}

function errorsOf(data, first, second, group) {
  let maxError = 0;
  let squaredError = 0;
  for (let i = 0; i < data.length; i++) {
    const g = Math.floor(i / group);
    const value = Math.fround(first.q[i] * first.scales[g]) + Math.fround(second.q[i] * second.scales[g]);
    const error = Math.abs(data[i] - value);
    maxError = Math.max(maxError, error);
    squaredError += error * error;
  }
  return { maxError, rmsError: Math.sqrt(squaredError / data.length) };
}

function quantizeMatrix(t, data, options) {
  const { group, perTensor, label } = resolveGroup(t, options);
  const planes = resolvePlanes(t, options);
  const fixed = planes === 2 && options.residualScale !== 'free';
  const ratio = resolveRatio(t, options);
  const first = quantize(data, t.rows, t.cols, group, perTensor, fixed ? fixedScaleRule(ratio) : scaleFor);
  const common = { ...t, data: first.q, scales: first.scales, group, amax: maxAbs(data, 0, data.length) };
  if (planes === 1) {
    return { ...common, label, maxError: first.maxError, rmsError: first.rmsError };
  }
  const residual = residualOf(data, first, group);
  const second = fixed ? quantizeResidualFixed(residual, first.scales, group, ratio)
    : quantize(residual, t.rows, t.cols, group, false);
  return { ...common, kind: 'int8x2', residual: second.q, residualScales: second.scales,
    label: `${label} ×2${fixed ? ` /${ratio}` : ''}`, clamped: second.clamped ?? 0, ...errorsOf(data, first, second, group) };
}

function quantizeAll(plan, floats, options) {
  return plan.map((t) => {
    const data = floats.get(t.name);
    if (t.kind === 'f32') return { ...t, data, scales: null, label: 'f32', maxError: 0 };
    return quantizeMatrix(t, data, options);
  });
}

function printSummary(tensors, size, outPath) {
  const lines = tensors.map((t) => (t.kind === 'f32'
    ? `  ${t.name.padEnd(56)} f32  [${t.cols}]`
    : `  ${t.name.padEnd(56)} int8 ${`[${t.rows}x${t.cols}]`.padEnd(12)} ${t.label.padEnd(11)}`
      + ` max|err| ${t.maxError.toExponential(3)}  rms err ${t.rmsError.toExponential(3)}  max|w| ${t.amax.toExponential(3)}`
      + (t.clamped ? `  clamped ${t.clamped}` : '')));
  process.stderr.write(`${lines.join('\n')}\nwrote ${outPath}: ${size} bytes (${(size / 1e6).toFixed(2)} MB), ${tensors.length} tensors\n`);
}

export function convert(givenOptions) {
  const options = { ...defaultOptions(), ...givenOptions };
  const shape = readConfig(options.checkpointDir);
  const vocab = readVocab(options.checkpointDir, shape);
  const source = readSafetensors(path.join(options.checkpointDir, 'model.safetensors'));
  const plan = tensorPlan(shape);
  checkTensorSet(source, plan, shape);
  const floats = new Map(plan.map((t) => [t.name, floatsOf(source, t.name)]));
  for (const [name, data] of floats) checkFinite(name, data);
  checkTiedDecoder(source, floats);
  const tensors = quantizeAll(plan, floats, options);
  return { bytes: buildFile(shape, vocab, tensors, options), tensors };
}

function main() {
  if (os.endianness() !== 'LE') fail('the converter needs a little-endian host');
  const options = parseArgs(process.argv.slice(2));
  const { bytes, tensors } = convert(options);
  fs.writeFileSync(options.outPath, bytes);
  printSummary(tensors, bytes.length, options.outPath);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    main();
  } catch (e) {
    if (!(e instanceof ConvertError)) throw e;
    process.stderr.write(`convert: ${e.message}\n`);
    process.exit(1);
  }
}
