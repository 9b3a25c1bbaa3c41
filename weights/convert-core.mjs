// The converter's core: a Hugging Face BERT checkpoint (config.json, vocab.txt, safetensors
// bytes) in, a weights file (weights/FORMAT.md) out. Bytes in, bytes out: no file system, so
// the Node CLI (convert.mjs) and the page run the same code.

// The format itself (sizes, field offsets, kinds, qmax, limits, special tokens, the tensor
// plan) is c/spec.mjs, which the C loader's header c/spec.h is generated from.
import {
  ALIGN, EMBEDDING_TENSORS, ENTRY, ENTRY_SIZE, FORMAT_VERSION, HEADER, HEADER_FIELDS, HEADER_SIZE,
  KINDS, LAYER_PREFIX, LAYER_TENSORS, LIMIT, MAGIC, MLM_HEAD_TENSORS, NAME_SIZE, PART, PART_ENTRY_SIZE, QMAX,
  SPECIAL_TOKENS, writeField,
} from '../c/spec.mjs';
import { crc32, headChecksum } from './crc32.mjs';

export { SPECIAL_TOKENS };
export const INT8_QMAX = QMAX.int8;
export const INT16_QMAX_MULTIPLIED = QMAX.int16Multiplied;
export const INT16_QMAX_LOOKUP = QMAX.int16Lookup;
// The word-embedding values are stored last, in parts of about this many bytes, each with its
// own CRC, so that a reader can trust the rows a sentence needs before the rest arrives.
export const PART_TARGET_BYTES = 65536;
export const LIMITS = LIMIT;

export class ConvertError extends Error {}
export const fail = (message) => { throw new ConvertError(message); };

// ---------------------------------------------------------------- config.json

// BertConfig's defaults, as transformers fills them in when config.json omits a key (the shape
// keys too: a config.json without hidden_size is read as bert-base's 768, and the tensors'
// shapes then say whether that was right).
const BERT_CONFIG_DEFAULTS = {
  layer_norm_eps: 1e-12, hidden_act: 'gelu', type_vocab_size: 2, max_position_embeddings: 512,
  vocab_size: 30522, hidden_size: 768, num_hidden_layers: 12, num_attention_heads: 12, intermediate_size: 3072,
};

function positiveInteger(config, key) {
  const v = config[key];
  if (!Number.isInteger(v) || v <= 0) fail(`config.json: ${key} must be a positive integer, got ${JSON.stringify(v)}`);
  return v;
}

function atMost(value, limit, key) {
  if (value > limit) fail(`config.json: ${key} is ${value}, the engine runs at most ${limit}`);
}

// Returns { shape, defaulted: [keys filled in from BertConfig's defaults] }.
export function parseConfig(text) {
  let given;
  try { given = JSON.parse(text); } catch (e) { fail(`config.json is not valid JSON: ${e.message}`); }
  if (!given || typeof given !== 'object' || Array.isArray(given)) fail('config.json must hold a JSON object');
  const defaulted = Object.keys(BERT_CONFIG_DEFAULTS).filter((k) => given[k] === undefined);
  const config = { ...BERT_CONFIG_DEFAULTS, ...given };
  if (config.model_type !== undefined && config.model_type !== 'bert') fail(`config.json: model_type is ${JSON.stringify(config.model_type)}; this engine runs "bert"`);
  if (config.hidden_act !== 'gelu') fail(`config.json: hidden_act is ${JSON.stringify(config.hidden_act)}; this engine runs "gelu" (exact erf)`);
  if (config.position_embedding_type !== undefined && config.position_embedding_type !== 'absolute') {
    fail(`config.json: position_embedding_type is ${JSON.stringify(config.position_embedding_type)}; this engine runs "absolute"`);
  }
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
  atMost(shape.layers, LIMITS.layers, 'num_hidden_layers');
  atMost(shape.heads, LIMITS.heads, 'num_attention_heads');
  atMost(shape.hidden, LIMITS.hidden, 'hidden_size');
  atMost(shape.ffn, LIMITS.ffn, 'intermediate_size');
  atMost(shape.maxPositions, LIMITS.maxPositions, 'max_position_embeddings');
  atMost(shape.vocab, LIMITS.vocab, 'vocab_size');
  atMost(shape.typeVocab, LIMITS.typeVocab, 'type_vocab_size');
  if (shape.hidden % shape.heads !== 0) fail(`config.json: hidden_size ${shape.hidden} is not a multiple of num_attention_heads ${shape.heads}`);
  const eps = shape.lnEps;
  if (typeof eps !== 'number' || !Number.isFinite(eps) || eps <= 0 || !(Math.fround(eps) > 0) || !Number.isFinite(Math.fround(eps))) {
    fail(`config.json: layer_norm_eps must be a positive number that float32 can hold, got ${JSON.stringify(eps)}`);
  }
  return { shape, defaulted };
}

// ---------------------------------------------------------------- vocab.txt
// Read as the engine's tokenizer reads it (c/tokenizer.c), so that the converter refuses, with
// the line named, every vocabulary the engine would refuse at load: one entry per '\n'-ended
// line, well-formed UTF-8, no NUL, trailing White_Space ignored, the five special tokens present.

const TRAILING_WHITE_SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/u;
// Rows of a word-embedding table padded beyond the vocabulary (config.json vocab_size larger
// than vocab.txt's lines) get these entries: they contain punctuation, which the tokenizer
// always splits off, so no text can produce them.
export const paddingEntry = (id) => `[unused-row-${id}]`;

function lineStarts(bytes) {
  const starts = [0];
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x0a && i + 1 < bytes.length) starts.push(i + 1);
  return starts;
}

// Returns { bytes, lines, paddingRows, addedNewline, repeats: [[line, earlier line, entry]] }:
// the bytes the weights file stores (vocab.txt, with a final newline when it had none, then the
// padding entries up to vocab_size).
export function parseVocab(given, shape) {
  const addedNewline = given.length > 0 && given[given.length - 1] !== 0x0a;
  const bytes = addedNewline ? new Uint8Array([...given, 0x0a]) : given;
  const starts = lineStarts(bytes);
  const lines = bytes.length === 0 ? 0 : starts.length;
  if (lines > shape.vocab) {
    fail(`vocab.txt has ${lines} lines but config.json vocab_size is ${shape.vocab}: ids ${shape.vocab}… would have no embedding row`);
  }
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const entries = new Map();
  const repeats = [];
  for (let i = 0; i < lines; i++) {
    const line = bytes.subarray(starts[i], (i + 1 < lines ? starts[i + 1] : bytes.length) - 1);
    if (line.includes(0)) fail(`vocab.txt line ${i + 1} contains a NUL byte`);
    let text;
    try { text = decoder.decode(line); } catch { fail(`vocab.txt line ${i + 1} is not valid UTF-8`); }
    const entry = text.replace(TRAILING_WHITE_SPACE, '');
    if (entry && entries.has(entry)) repeats.push([i + 1, entries.get(entry) + 1, entry]);
    if (entry) entries.set(entry, i);
  }
  const missing = SPECIAL_TOKENS.filter((t) => !entries.has(t));
  if (missing.length) fail(`vocab.txt has no line ${missing.join(', ')}: the engine needs ${SPECIAL_TOKENS.join(' ')}`);
  const padding = [];
  for (let id = lines; id < shape.vocab; id++) {
    const entry = paddingEntry(id);
    if (entries.has(entry)) fail(`vocab.txt line ${entries.get(entry) + 1} is ${entry}, the name given to padding rows`);
    padding.push(`${entry}\n`);
  }
  const out = padding.length ? new Uint8Array([...bytes, ...new TextEncoder().encode(padding.join(''))]) : bytes;
  return { bytes: out, lines, paddingRows: padding.length, addedNewline, repeats };
}

// ---------------------------------------------------------------- safetensors

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
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (dtype === 'F32') {
    for (let i = 0; i < count; i++) out[i] = view.getFloat32(4 * i, true);
  } else if (dtype === 'BF16') {
    const bits = new Uint32Array(out.buffer);
    for (let i = 0; i < count; i++) bits[i] = view.getUint16(2 * i, true) << 16;
  } else {
    for (let i = 0; i < count; i++) out[i] = halfToFloat(view.getUint16(2 * i, true));
  }
  return out;
}

// Map name -> { dtype, shape, bytes } without decoding. `label` names the file in messages.
export function parseSafetensors(buf, label = 'model.safetensors') {
  if (buf.length < 8) fail(`${label}: too short for a safetensors file`);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const headerLength = view.getBigUint64(0, true);
  if (headerLength > BigInt(buf.length - 8)) fail(`${label}: header length ${headerLength} runs past the end of the file`);
  let header;
  try { header = JSON.parse(new TextDecoder().decode(buf.subarray(8, 8 + Number(headerLength)))); } catch (e) {
    fail(`${label}: header is not valid JSON: ${e.message}`);
  }
  if (!header || typeof header !== 'object' || Array.isArray(header)) fail(`${label}: header is not a JSON object`);
  const dataStart = 8 + Number(headerLength);
  const tensors = new Map();
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const offsets = info?.data_offsets;
    const [begin, end] = Array.isArray(offsets) && offsets.length === 2 ? offsets : [];
    const dims = Array.isArray(info?.shape) ? info.shape : null;
    if (!dims || !dims.every((d) => Number.isInteger(d) && d >= 0)) fail(`${label}: tensor ${name} has no valid shape`);
    const elements = dims.reduce((a, b) => a * b, 1);
    if (!Number.isInteger(begin) || !Number.isInteger(end) || begin < 0 || end < begin || dataStart + end > buf.length) {
      fail(`${label}: tensor ${name} has data offsets outside the file`);
    }
    const bytes = buf.subarray(dataStart + begin, dataStart + end);
    if (DTYPE_BYTES[info.dtype] && bytes.length !== elements * DTYPE_BYTES[info.dtype]) {
      fail(`${label}: tensor ${name} holds ${bytes.length} bytes, its shape [${dims}] needs ${elements * DTYPE_BYTES[info.dtype]}`);
    }
    tensors.set(name, { dtype: info.dtype, shape: dims, bytes });
  }
  return tensors;
}

export function floatsOf(tensors, name) {
  const t = tensors.get(name);
  if (!t) fail(`model.safetensors has no tensor ${name}`);
  if (!DTYPE_BYTES[t.dtype]) fail(`tensor ${name} has dtype ${t.dtype}; only F32, F16 and BF16 are read`);
  return decodeFloats(t.bytes, t.dtype);
}

// ---------------------------------------------------------------- the tensor plan
// The file's tensors in table order, from c/spec.mjs (the C loader walks the same plan through
// c/spec.h). `role`: 'lookup' matrices are only read row by row; 'multiplied' ones enter
// matrix products; `mlm` marks what only the masked-word head needs.

export const WORD_EMBEDDINGS = EMBEDDING_TENSORS[0].name;

// mlm: false leaves out the masked-LM head (a BertModel checkpoint): the file then holds
// 5 + 16 × layers tensors and the engine runs attention only (weights/FORMAT.md).
export function tensorPlan(shape, { mlm = true } = {}) {
  const dim = { one: 1, vocab: shape.vocab, hidden: shape.hidden, ffn: shape.ffn, maxPositions: shape.maxPositions, typeVocab: shape.typeVocab };
  const plan = [...EMBEDDING_TENSORS];
  for (let i = 0; i < shape.layers; i++) {
    for (const t of LAYER_TENSORS) plan.push({ ...t, name: `${LAYER_PREFIX}${i}.${t.name}` });
  }
  if (mlm) plan.push(...MLM_HEAD_TENSORS);
  return plan.map((t) => {
    const [rows, cols] = t.dims.map((d) => dim[d]);
    return t.kind === 'matrix'
      ? { name: t.name, kind: t.kind, rows, cols, hfShape: [rows, cols], role: t.use, mlm: t.needed === 'mlm' }
      : { name: t.name, kind: t.kind, rows: 1, cols, hfShape: [cols], mlm: t.needed === 'mlm' };
  });
}

const IGNORED_TENSOR = /^(bert\.pooler\.|cls\.seq_relationship\.|bert\.embeddings\.position_ids$)/;
const MLM_BIAS = 'cls.predictions.bias';
const DECODER_BIAS = 'cls.predictions.decoder.bias';

// The variants transformers loads, renamed to BertForMaskedLM's names: a BertModel's names
// without the `bert.` prefix, LayerNorm `gamma`/`beta` (older exports), and an output bias
// stored only as `cls.predictions.decoder.bias`. Returns { tensors, hasMlm, notes }.
export function canonicalTensors(source) {
  const notes = [];
  const bare = ![...source.keys()].some((n) => n.startsWith('bert.'))
    && [...source.keys()].some((n) => /^(embeddings|encoder)\./.test(n));
  if (bare) notes.push('tensor names without the "bert." prefix (a BertModel checkpoint): read as bert.*');
  const tensors = new Map();
  let renamed = 0;
  for (const [name, t] of source) {
    let canonical = bare && /^(embeddings|encoder|pooler)\./.test(name) ? `bert.${name}` : name;
    canonical = canonical.replace(/\.LayerNorm\.gamma$/, '.LayerNorm.weight').replace(/\.LayerNorm\.beta$/, '.LayerNorm.bias');
    if (canonical !== name && !(bare && canonical === `bert.${name}`)) renamed++;
    if (tensors.has(canonical)) fail(`model.safetensors has both ${tensors.get(canonical).sourceName} and ${name}, the same tensor ${canonical}`);
    tensors.set(canonical, { ...t, sourceName: name });
  }
  if (renamed) notes.push(`${renamed} LayerNorm tensors named gamma/beta: read as weight/bias`);
  if (!tensors.has(MLM_BIAS) && tensors.has(DECODER_BIAS)) {
    tensors.set(MLM_BIAS, tensors.get(DECODER_BIAS));
    notes.push(`no ${MLM_BIAS}: ${DECODER_BIAS} used as the output bias`);
  }
  const hasMlm = [...tensors.keys()].some((n) => n.startsWith('cls.predictions.'));
  if (!hasMlm) notes.push('no masked-LM head (no cls.predictions.* tensors): attention works, [MASK] predictions are off');
  return { tensors, hasMlm, notes };
}

// Every tensor of the plan present with its shape; returns the names of tensors not used.
function checkTensorSet(tensors, plan, shape) {
  const wanted = new Set(plan.map((t) => t.name));
  for (const t of plan) {
    const found = tensors.get(t.name);
    if (!found) fail(`model.safetensors has no tensor ${t.name}`);
    if (!DTYPE_BYTES[found.dtype]) fail(`tensor ${found.sourceName ?? t.name} has dtype ${found.dtype}; only F32, F16 and BF16 are read`);
    if (JSON.stringify(found.shape) !== JSON.stringify(t.hfShape)) {
      fail(`tensor ${found.sourceName ?? t.name} has shape [${found.shape}], config.json implies [${t.hfShape}]`);
    }
  }
  const ignored = [];
  for (const name of tensors.keys()) {
    const layer = /^bert\.encoder\.layer\.(\d+)\./.exec(name);
    if (layer && Number(layer[1]) >= shape.layers) {
      fail(`model.safetensors has ${name} but config.json says num_hidden_layers is ${shape.layers}`);
    }
    if (!wanted.has(name) && !IGNORED_TENSOR.test(name) && !name.startsWith('cls.predictions.decoder.')) ignored.push(name);
  }
  return ignored;
}

function sameFloats(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function checkTiedDecoder(tensors, floats) {
  if (tensors.has('cls.predictions.decoder.weight')
      && !sameFloats(floatsOf(tensors, 'cls.predictions.decoder.weight'), floats.get(WORD_EMBEDDINGS))) {
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

// The float tensors of the plan, decoded and checked.
export function readPlanFloats(tensors, plan, shape) {
  const ignored = checkTensorSet(tensors, plan, shape);
  const floats = new Map(plan.map((t) => [t.name, floatsOf(tensors, t.name)]));
  for (const [name, data] of floats) checkFinite(name, data);
  checkTiedDecoder(tensors, floats);
  return { floats, ignored };
}

// ---------------------------------------------------------------- quantization

function maxAbs(data, begin, end) {
  let m = 0;
  for (let i = begin; i < end; i++) m = Math.max(m, Math.abs(data[i]));
  return m;
}

// Symmetric, one float32 scale per group: scale = max|w|/qmax, q = round half away from zero,
// clamped to ±qmax (0 when the scale is 0). dequantized[i] = float32(q·scale): what the
// engine computes with.
export function quantize(data, rows, cols, group, qmax) {
  const groups = cols / group;
  const q = qmax <= INT8_QMAX ? new Int8Array(rows * cols) : new Int16Array(rows * cols);
  const scales = new Float32Array(rows * groups);
  const dequantized = new Float32Array(rows * cols);
  let maxError = 0;
  for (let s = 0; s < scales.length; s++) {
    const begin = s * group;
    const scale = Math.fround(maxAbs(data, begin, begin + group) / qmax);
    scales[s] = scale;
    for (let i = begin; i < begin + group; i++) {
      const x = scale === 0 ? 0 : data[i] / scale;
      const v = Math.min(qmax, Math.round(Math.abs(x))) * Math.sign(x);
      q[i] = v;
      dequantized[i] = Math.fround(v * scale);
      maxError = Math.max(maxError, Math.abs(data[i] - dequantized[i]));
    }
  }
  return { q, scales, dequantized, maxError };
}

// True when every row already lies on the per-row int8 grid: w = q·max|row|/127 for integers
// q, up to float32 rounding of the product (a grid-rounded checkpoint such as bert-mini-int8).
export function onInt8Grid(data, rows, cols) {
  for (let r = 0; r < rows; r++) {
    const begin = r * cols;
    const amax = maxAbs(data, begin, begin + cols);
    const step = amax / INT8_QMAX;
    for (let i = begin; i < begin + cols; i++) {
      if (Math.abs(data[i] - Math.round(data[i] / step) * step) > amax * 2 ** -20) return false;
    }
  }
  return true;
}

export function int16QmaxFor(t) {
  return t.role === 'lookup' ? INT16_QMAX_LOOKUP : INT16_QMAX_MULTIPLIED;
}

// One matrix at `precision` ('int8' or 'int16'), one scale per row (group = cols).
export function quantizeMatrix(t, data, precision) {
  const qmax = precision === 'int16' ? int16QmaxFor(t) : INT8_QMAX;
  return { ...quantize(data, t.rows, t.cols, t.cols, qmax), precision, group: t.cols, qmax };
}

// ---------------------------------------------------------------- layout and bytes
// head: header, vocabulary, model card, tensor table, part table, then every array except
// those of the MLM head and the word-embedding values; then the parts: the MLM head, and the
// word-embedding values in pieces of whole rows.

const align = (n) => Math.ceil(n / ALIGN) * ALIGN;

function arraysOf(t) {
  return t.kind === 'f32' ? [['data', t.data]] : [['data', t.data], ['scales', t.scales]];
}

function layoutFile(vocabBytes, cardBytes, tensors) {
  const word = tensors.find((t) => t.name === WORD_EMBEDDINGS);
  const rowBytes = word.data.byteLength / word.rows;
  const rowsPerPart = Math.max(1, Math.floor(PART_TARGET_BYTES / rowBytes));
  const wordParts = Math.ceil(word.rows / rowsPerPart);
  const mlm = tensors.filter((t) => t.mlm);
  const partCount = (mlm.length ? 1 : 0) + wordParts;
  const L = { vocabOffset: HEADER_SIZE, vocabBytes, cardBytes };
  L.cardOffset = cardBytes ? align(HEADER_SIZE + vocabBytes) : 0;
  L.tableOffset = align((cardBytes ? L.cardOffset + cardBytes : HEADER_SIZE + vocabBytes));
  L.tableBytes = tensors.length * ENTRY_SIZE;
  L.partsOffset = align(L.tableOffset + L.tableBytes);
  L.partCount = partCount;
  let cursor = align(L.partsOffset + partCount * PART_ENTRY_SIZE);
  const place = (t, key, array) => { t[`${key}Offset`] = cursor; cursor = align(cursor + array.byteLength); };
  for (const t of tensors) {
    if (t.mlm) continue;
    for (const [key, array] of arraysOf(t)) if (!(t === word && key === 'data')) place(t, key, array);
  }
  L.headBytes = cursor;
  L.parts = [];
  if (mlm.length) {
    const begin = cursor;
    for (const t of mlm) for (const [key, array] of arraysOf(t)) place(t, key, array);
    L.parts.push({ offset: begin, bytes: cursor - begin });
  }
  word.dataOffset = cursor;
  for (let r = 0; r < word.rows; r += rowsPerPart) {
    const rows = Math.min(rowsPerPart, word.rows - r);
    L.parts.push({ offset: cursor, bytes: rows * rowBytes });
    cursor += rows * rowBytes;
  }
  L.fileSize = cursor;
  return L;
}

function writeHeader(view, shape, L, tensorCount) {
  const values = {
    magic: new TextEncoder().encode(MAGIC), version: FORMAT_VERSION, headChecksum: 0, fileSize: L.fileSize,
    headerSize: HEADER_SIZE, tensorCount, vocabOffset: L.vocabOffset, vocabBytes: L.vocabBytes,
    tableOffset: L.tableOffset, tableBytes: L.tableBytes, vocabSize: shape.vocab, hidden: shape.hidden,
    layers: shape.layers, heads: shape.heads, ffn: shape.ffn, maxPositions: shape.maxPositions,
    typeVocab: shape.typeVocab, layerNormEps: shape.lnEps, headBytes: L.headBytes, entrySize: ENTRY_SIZE,
    partCount: L.partCount, partsOffset: L.partsOffset, cardBytes: L.cardBytes, cardOffset: L.cardOffset,
  };
  for (const field of HEADER_FIELDS) writeField(view, 0, field, values[field.name]);
}

function writeTableEntry(out, view, at, t) {
  const name = new TextEncoder().encode(t.name);
  if (name.length >= NAME_SIZE) fail(`tensor name too long for the table: ${t.name}`);
  out.set(name, at + ENTRY.name.offset);
  const isMatrix = t.kind !== 'f32';
  const entry = {
    kind: KINDS[isMatrix ? t.precision : 'f32'], rows: t.rows, cols: t.cols, group: isMatrix ? t.group : 0,
    dataOffset: t.dataOffset, dataBytes: t.data.byteLength, scaleOffset: isMatrix ? t.scalesOffset : 0,
    scaleBytes: isMatrix ? t.scales.byteLength : 0, qmax: isMatrix ? t.qmax : 0,
  };
  for (const [name, value] of Object.entries(entry)) writeField(view, at, ENTRY[name], value);
}

const bytesOf = (typed) => new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);

// The word-embedding parts' CRCs, per quantized array: the precision search builds a file per
// candidate plan, and the word embeddings (most of the bytes) are the same array in most of them
// (a quantized array is never changed once made).
const WORD_PART_CRCS = new WeakMap();

function partChecksum(out, part, word) {
  const crc = () => crc32(out, part.offset, part.offset + part.bytes);
  if (part.offset < word.dataOffset) return crc();
  let known = WORD_PART_CRCS.get(word.data);
  if (!known) WORD_PART_CRCS.set(word.data, (known = new Map()));
  const key = `${part.offset - word.dataOffset}/${part.bytes}`;
  if (!known.has(key)) known.set(key, crc());
  return known.get(key);
}

// tensors: the plan's entries with `data` (Int8Array, Int16Array or Float32Array) and, for
// matrices, `scales`, `precision`, `group`, `qmax`. card: JSON text or ''.
export function buildFile(shape, vocab, card, tensors) {
  const cardBytes = card ? new Uint8Array([...new TextEncoder().encode(card), 0]) : new Uint8Array(0);
  const L = layoutFile(vocab.length, cardBytes.length, tensors);
  const word = tensors.find((t) => t.name === WORD_EMBEDDINGS);
  const out = new Uint8Array(L.fileSize);  // zero-filled: padding is 0
  const view = new DataView(out.buffer);
  writeHeader(view, shape, L, tensors.length);
  out.set(vocab, L.vocabOffset);
  if (cardBytes.length) out.set(cardBytes, L.cardOffset);
  tensors.forEach((t, i) => {
    writeTableEntry(out, view, L.tableOffset + i * ENTRY_SIZE, t);
    out.set(bytesOf(t.data), t.dataOffset);
    if (t.kind !== 'f32') out.set(bytesOf(t.scales), t.scalesOffset);
  });
  L.parts.forEach((p, i) => {
    const at = L.partsOffset + i * PART_ENTRY_SIZE;
    writeField(view, at, PART.offset, p.offset);
    writeField(view, at, PART.bytes, p.bytes);
    writeField(view, at, PART.crc, partChecksum(out, p, word));
  });
  writeField(view, 0, HEADER.headChecksum, headChecksum(out, L.headBytes));
  return out;
}

// ---------------------------------------------------------------- model card

// What the page and the CLI tell about the model: from training.json (when the checkpoint has
// one) and config.json; the converter adds the precision it chose.
export function buildCard({ name, shape, training, precision, mlm = true }) {
  const card = {
    name,
    architecture: `BERT encoder (post-LayerNorm): ${shape.layers} layers × ${shape.heads} heads, hidden ${shape.hidden}, FFN ${shape.ffn}, vocabulary ${shape.vocab}, up to ${shape.maxPositions} tokens`,
    precision,
  };
  if (training && typeof training === 'object') {
    const native = training.int8_native && typeof training.int8_native === 'object' ? training.int8_native : null;
    if (typeof training.objective === 'string') card.objective = training.objective;
    if (Number.isFinite(training.corpus_tokens)) card.trained_on = `${training.corpus_tokens.toLocaleString('en-US')} tokens of English text`;
    const accuracy = native?.heldout_mlm_acc ?? training.heldout_mlm_acc;
    const loss = native?.heldout_mlm_loss ?? training.heldout_mlm_loss;
    if (Number.isFinite(accuracy)) card.heldout_mlm_accuracy = accuracy;
    if (Number.isFinite(loss)) card.heldout_mlm_loss = loss;
    if (native && typeof native.made_by === 'string') card.derived = native.made_by;
  }
  if (!mlm) {
    card.limits = 'No masked-word head (the checkpoint has no cls.predictions.* tensors): attention only, no [MASK] predictions; '
      + 'attention weights show where the model looks, not why it decides.';
    return JSON.stringify(card);
  }
  card.limits = 'A small model: its masked-word guesses are often frequent words rather than the right one'
    + (Number.isFinite(card.heldout_mlm_accuracy) ? ` (top-1 right on ${(100 * card.heldout_mlm_accuracy).toFixed(1)}% of held-out masked words)` : '')
    + '; attention weights show where the model looks, not why it decides.';
  return JSON.stringify(card);
}

// ---------------------------------------------------------------- precision

function forcedPrecision(name, options) {
  let forced = null;
  for (const o of options.precisionFor) if (name.includes(o.substring)) forced = o.precision;
  return forced;
}

// (t, precision) → the matrix quantized at that precision (computed once, then kept; the
// dequantized values are dropped: the search measures weights files, not float copies).
function quantizedVersions(floats) {
  const cache = new Map();
  return (t, precision) => {
    const key = `${t.name}/${precision}`;
    if (!cache.has(key)) {
      const { dequantized, ...kept } = quantizeMatrix(t, floats.get(t.name), precision);
      cache.set(key, kept);
    }
    return cache.get(key);
  };
}

// The plan's tensors ready for buildFile, each matrix at precisionOf(name).
function planTensors(plan, floats, version, precisionOf, onGrid) {
  return plan.map((t) => {
    if (t.kind === 'f32') return { ...t, data: floats.get(t.name) };
    const q = version(t, precisionOf(t.name));
    return { ...t, data: q.q, scales: q.scales, precision: q.precision, group: q.group, qmax: q.qmax,
      maxError: q.maxError, onGrid: onGrid.has(t.name) };
  });
}

// Decides every matrix's precision; returns { precisions: Map, predicted, onGrid: Set, version }.
// predicted: NaN when nothing was measured; 0 for a file that stores every matrix exactly
// (unless options.predict asks for the engine's own arithmetic to be measured too).
function choosePrecisions(shape, vocab, plan, floats, options, log) {
  const matrices = plan.filter((t) => t.kind === 'matrix');
  const version = quantizedVersions(floats);
  const onGrid = new Set(matrices.filter((t) => onInt8Grid(floats.get(t.name), t.rows, t.cols)).map((t) => t.name));
  // int8 with one scale per row stores an on-grid matrix exactly: nothing to predict for it.
  const exact = (name, precision) => precision === 'int8' && onGrid.has(name);
  const precisions = new Map();
  const open = [];
  for (const t of matrices) {
    const forced = forcedPrecision(t.name, options) ?? (options.precision === 'auto' ? null : options.precision);
    if (forced) precisions.set(t.name, forced);
    else if (exact(t.name, 'int8')) precisions.set(t.name, 'int8');
    else open.push(t.name);
  }
  const lossy = matrices.filter((t) => !exact(t.name, precisions.get(t.name)));
  const decided = { precisions, onGrid, version };
  if (lossy.length === 0 && options.predict !== true) return { ...decided, predicted: 0, reachable: true };
  // Every precision forced and no prediction wanted: skip the calibration runs.
  if (open.length === 0 && (options.predict === false || !options.searchPrecision)) return { ...decided, predicted: NaN };
  if (!options.searchPrecision) {
    fail(`${open.length} matrices are not on the int8 grid and --precision auto must search where to spend precision: `
      + 'choose precision int8 or int16, or convert with node weights/convert.mjs');
  }
  // The entries as the engine reads them (trailing white space, a CR too, is not part of one).
  const vocabLines = new TextDecoder().decode(vocab).split('\n').slice(0, shape.vocab).map((line) => line.replace(TRAILING_WHITE_SPACE, ''));
  const planFile = (precisionOf) => buildFile(shape, vocab, '', planTensors(plan, floats, version, precisionOf, onGrid));
  const result = options.searchPrecision({ shape, floats, vocabLines, candidates: open, fixed: new Map(precisions), planFile,
    wasm: typeof options.wasm === 'function' ? options.wasm() : options.wasm, target: options.target, log,
    referenceCache: options.referenceCache });
  for (const [name, p] of result.choice) precisions.set(name, p);
  return { ...decided, predicted: result.predicted, calibration: result.calibration, reachable: result.reachable };
}

// ---------------------------------------------------------------- convert

function vocabNotes({ lines, paddingRows, addedNewline, repeats }, shape) {
  const notes = [];
  if (addedNewline) notes.push('note: vocab.txt has no final newline: one added');
  if (paddingRows) {
    notes.push(`note: vocab.txt has ${lines} lines, config.json vocab_size is ${shape.vocab}: rows ${lines}…${shape.vocab - 1} `
      + `are padding, stored as ${paddingEntry(lines)}… (the tokenizer never produces them)`);
  }
  for (const [line, earlier, entry] of repeats.slice(0, 5)) {
    notes.push(`note: vocab.txt line ${line} repeats line ${earlier} (${JSON.stringify(entry)}): the later id is used, as Hugging Face does`);
  }
  if (repeats.length > 5) notes.push(`note: vocab.txt repeats ${repeats.length} entries in all`);
  return notes;
}

const fileContent = (value) => (typeof value === 'function' ? value() : value);

function parseTraining(text) {
  if (!text) return null;
  try { return JSON.parse(text); } catch { return null; }
}

/**
 * A checkpoint's files in, the weights file out; no file system. files: { name, config (text),
 * vocab (bytes), safetensors (bytes), training (text or null) }, each a value or a function that
 * gives it (read only when needed: a refusal stops before the next file is read). options:
 * precision 'auto'|'int8'|'int16', precisionFor [{substring, precision}], target,
 * predict, log(line), searchPrecision (weights/precision-search.mjs; without it a checkpoint off
 * the int8 grid needs a forced precision) and wasm (the engine's WebAssembly.Module, which the
 * search runs each candidate file on). Returns { bytes, tensors, predicted, calibration,
 * reachable, target }.
 */
export function convertCheckpoint(files, givenOptions = {}) {
  const options = { precision: 'auto', precisionFor: [], target: 1e-3, ...givenOptions };
  const log = options.log ?? (() => {});
  const { shape, defaulted } = parseConfig(fileContent(files.config));
  if (defaulted.length) log(`config.json: ${defaulted.join(', ')} not given: BertConfig's defaults used`);
  const parsedVocab = parseVocab(fileContent(files.vocab), shape);
  for (const line of vocabNotes(parsedVocab, shape)) log(line);
  const vocab = parsedVocab.bytes;
  const { tensors: source, hasMlm, notes } = canonicalTensors(parseSafetensors(fileContent(files.safetensors)));
  for (const line of notes) log(`note: ${line}`);
  const plan = tensorPlan(shape, { mlm: hasMlm });
  const { floats, ignored } = readPlanFloats(source, plan, shape);
  for (const name of ignored) log(`note: ignoring tensor ${name}`);
  const matrices = plan.filter((t) => t.kind === 'matrix');
  const chosen = choosePrecisions(shape, vocab, plan, floats, options, log);
  const { precisions, predicted, onGrid, version } = chosen;
  const tensors = planTensors(plan, floats, version, (name) => precisions.get(name), onGrid);
  const int16 = tensors.filter((t) => t.precision === 'int16').length;
  const precisionText = int16 === 0 ? 'every matrix int8 (one float scale per row)'
    : `${matrices.length - int16} matrices int8, ${int16} int16 (one float scale per row)`;
  const card = buildCard({ name: files.name ?? 'checkpoint', shape, training: parseTraining(fileContent(files.training)), precision: precisionText, mlm: hasMlm });
  const bytes = buildFile(shape, vocab, card, tensors);
  return { bytes, tensors, predicted, calibration: chosen.calibration, reachable: chosen.reachable, target: options.target };
}
