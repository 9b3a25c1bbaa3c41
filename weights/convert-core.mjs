// The converter's core: a Hugging Face BERT checkpoint (config.json, vocab.txt, safetensors
// bytes) in, a weights file (weights/FORMAT.md) out. Bytes in, bytes out: no file system, so
// the Node CLI (convert.mjs) and the page run the same code.

import { parseTorchCheckpointSteps } from './torch-checkpoint.mjs';
import { readTokenizerJson, vocabDisagreement, TOKENIZER_JSON_MAX_BYTES } from './tokenizer-json.mjs';
import {
  chooseTokenizerSettings, isUncased, parseJsonObject, settingsFromKeys, tokenizerFlags,
} from './tokenizer-settings.mjs';
// The format itself (sizes, field offsets, kinds, qmax, limits, special tokens, the tensor
// plan) is c/spec.mjs, which the C loader's header c/spec.h is generated from.
import {
  CARD_KEYS, ALIGN, EMBEDDING_TENSORS, ENTRY, ENTRY_SIZE, FORMAT_VERSION, HEADER, HEADER_FIELDS, HEADER_SIZE,
  TOKENIZER_FIELDS, TOKENIZER_HEADER, TOKENIZER_HEADER_SIZE, UNCASED_FORMAT_VERSION, UNCASED_TOKENIZER, KINDS, LAYER_PREFIX, LAYER_TENSORS, LIMIT, MAGIC, MLM_HEAD_TENSORS, NAME_SIZE, PART, PART_ENTRY_SIZE, QMAX,
  SPECIAL_TOKENS, writeField,
} from '../c/spec.mjs';
import { crc32, headChecksum } from './crc32.mjs';

// The word-embedding values are stored last, in parts of about this many bytes (whole rows; at
// most WORD_PARTS_MAX parts, larger ones for a large vocabulary or hidden size), each with its
// own CRC, so that a reader can trust the rows a sentence needs before the rest arrives: a
// sentence of ten words needs five or six such parts.
export const PART_TARGET_BYTES = 16384;
export const WORD_PARTS_MAX = 512;

import { ConvertError, fail, quoteValue, reportableBug } from './convert-error.mjs';
import { note } from './convert-messages.mjs';
import { measureHeadRolesSteps } from './head-roles.mjs';
import { drive, inSteps, STEP_ELEMENTS } from './steps.mjs';

export { ConvertError, fail, quoteValue, reportableBug };

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
  if (!Number.isInteger(v) || v <= 0) fail('convert.refusal.config.positiveInteger', { key, value: quoteValue(v) });
  return v;
}

function atMost(value, limit, key) {
  if (value > limit) fail('convert.refusal.config.atMost', { key, value, limit });
}

// config.json and training.json are a few hundred bytes; larger ones are refused before reading.
export const CONFIG_MAX_BYTES = 1 << 20;

// Returns { shape, defaulted: [keys filled in from BertConfig's defaults] }.
export function parseConfig(text) {
  if (text.length > CONFIG_MAX_BYTES) fail('convert.refusal.config.tooLarge', { size: text.length, most: CONFIG_MAX_BYTES });
  let given;
  try { given = JSON.parse(text); } catch (e) { fail('convert.refusal.config.json', { error: e.message }); }
  if (!given || typeof given !== 'object' || Array.isArray(given)) fail('convert.refusal.config.notObject');
  const defaulted = Object.keys(BERT_CONFIG_DEFAULTS).filter((k) => given[k] === undefined);
  const config = { ...BERT_CONFIG_DEFAULTS, ...given };
  if (config.model_type !== undefined && config.model_type !== 'bert') fail('convert.refusal.config.modelType', { value: quoteValue(config.model_type) });
  if (config.hidden_act !== 'gelu') fail('convert.refusal.config.hiddenAct', { value: quoteValue(config.hidden_act) });
  if (config.position_embedding_type !== undefined && config.position_embedding_type !== 'absolute') {
    fail('convert.refusal.config.positionType', { value: quoteValue(config.position_embedding_type) });
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
  atMost(shape.layers, LIMIT.layers, 'num_hidden_layers');
  atMost(shape.heads, LIMIT.heads, 'num_attention_heads');
  atMost(shape.hidden, LIMIT.hidden, 'hidden_size');
  atMost(shape.ffn, LIMIT.ffn, 'intermediate_size');
  atMost(shape.maxPositions, LIMIT.maxPositions, 'max_position_embeddings');
  atMost(shape.vocab, LIMIT.vocab, 'vocab_size');
  atMost(shape.typeVocab, LIMIT.typeVocab, 'type_vocab_size');
  if (shape.maxPositions < LIMIT.minPositions) {
    fail('convert.refusal.config.minPositions', { value: shape.maxPositions, least: LIMIT.minPositions });
  }
  if (shape.vocab < SPECIAL_TOKENS.length) fail('convert.refusal.config.vocabSpecial', { vocab: shape.vocab, count: SPECIAL_TOKENS.length });
  if (shape.hidden % shape.heads !== 0) fail('convert.refusal.config.headsDivide', { hidden: shape.hidden, heads: shape.heads });
  const eps = shape.lnEps;
  if (typeof eps !== 'number' || !Number.isFinite(eps) || eps <= 0 || !(Math.fround(eps) > 0) || !Number.isFinite(Math.fround(eps))) {
    fail('convert.refusal.config.layerNormEps', { value: quoteValue(eps) });
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

// No word of more than 100 characters is ever looked up (WordPiece's max_input_chars_per_word,
// c/tokenizer.c), so no longer line is a vocabulary entry: 100 four-byte characters, "##" and
// trailing white space fit in this.
export const VOCAB_LINE_MAX_BYTES = 1024;
// C0 controls other than TAB, DEL and C1 controls: the tokenizer removes them from any text
// (clean_text), so an entry holding one is never produced.
const CONTROL_CHARACTER = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/u;

function countLines(bytes) {
  let lines = 0;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0x0a) lines++;
  return bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a ? lines + 1 : lines;
}

// Returns { bytes, lines, paddingRows, addedNewline, repeats: [[line, earlier line, entry]],
// controlLines: [line numbers] }: the bytes the weights file stores (vocab.txt, with a final
// newline when it had none, then the padding entries up to vocab_size). The lines are counted
// before anything is collected, and each is bounded: memory is that of the entries kept.
export function parseVocab(given, shape) {
  const addedNewline = given.length > 0 && given[given.length - 1] !== 0x0a;
  const lines = countLines(given);
  if (lines > shape.vocab) {
    fail('convert.refusal.vocab.tooManyLines', { lines, vocab: shape.vocab });
  }
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const entries = new Map();
  const repeats = [];
  const controlLines = [];
  let begin = 0;
  for (let i = 0; i < lines; i++) {
    const newline = given.indexOf(0x0a, begin);
    const end = newline < 0 ? given.length : newline;
    if (end - begin > VOCAB_LINE_MAX_BYTES) fail('convert.refusal.vocab.lineTooLong', { line: i + 1, bytes: end - begin, most: VOCAB_LINE_MAX_BYTES });
    const line = given.subarray(begin, end);
    begin = end + 1;
    if (line.includes(0)) fail('convert.refusal.vocab.nul', { line: i + 1 });
    let text;
    try { text = decoder.decode(line); } catch { fail('convert.refusal.vocab.utf8', { line: i + 1 }); }
    const entry = text.replace(TRAILING_WHITE_SPACE, '');
    if (CONTROL_CHARACTER.test(entry)) controlLines.push(i + 1);
    if (entry && entries.has(entry)) repeats.push([i + 1, entries.get(entry) + 1, entry]);
    if (entry) entries.set(entry, i);
  }
  const missing = SPECIAL_TOKENS.filter((t) => !entries.has(t));
  if (missing.length) fail('convert.refusal.vocab.missingSpecial', { missing: missing.join(', '), needed: SPECIAL_TOKENS.join(' ') });
  const padding = [];
  for (let id = lines; id < shape.vocab; id++) {
    const entry = paddingEntry(id);
    if (entries.has(entry)) fail('convert.refusal.vocab.paddingName', { line: entries.get(entry) + 1, entry });
    padding.push(`${entry}\n`);
  }
  const paddingBytes = new TextEncoder().encode(padding.join(''));
  let bytes = given;
  if (addedNewline || paddingBytes.length) {
    bytes = new Uint8Array(given.length + (addedNewline ? 1 : 0) + paddingBytes.length);
    bytes.set(given);
    if (addedNewline) bytes[given.length] = 0x0a;
    bytes.set(paddingBytes, bytes.length - paddingBytes.length);
  }
  return { bytes, lines, paddingRows: padding.length, addedNewline, repeats, controlLines };
}

// ---------------------------------------------------------------- safetensors

const DTYPE_BYTES = { F32: 4, F16: 2, BF16: 2 };
// The bytes per element of a dtype the converter reads, else 0 (a dtype from the file is any JSON value).
const dtypeBytes = (dtype) => (typeof dtype === 'string' && Object.hasOwn(DTYPE_BYTES, dtype) ? DTYPE_BYTES[dtype] : 0);
const shownDtype = (dtype) => (typeof dtype === 'string' ? quoteValue(dtype, 40).slice(1, -1) : quoteValue(dtype));

function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const mantissa = h & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 31) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

function* decodeFloatsSteps(bytes, dtype) {
  const count = bytes.length / DTYPE_BYTES[dtype];
  const out = new Float32Array(count);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const bits = new Uint32Array(out.buffer);
  yield* inSteps(count, STEP_ELEMENTS, (begin, end) => {
    if (dtype === 'F32') {
      for (let i = begin; i < end; i++) out[i] = view.getFloat32(4 * i, true);
    } else if (dtype === 'BF16') {
      for (let i = begin; i < end; i++) bits[i] = view.getUint16(2 * i, true) << 16;
    } else {
      for (let i = begin; i < end; i++) out[i] = halfToFloat(view.getUint16(2 * i, true));
    }
  });
  return out;
}

// Map name -> { dtype, shape, bytes } without decoding. `label` names the file in messages.
// A BERT's safetensors header is a few tens of kilobytes; the largest checkpoints' a few MB.
export const SAFETENSORS_LIMITS = { headerBytes: 16 << 20, tensors: 100000 };

export function parseSafetensors(buf, label = 'model.safetensors') {
  if (buf.length < 8) fail('convert.refusal.safetensors.short', { label });
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const headerLength = view.getBigUint64(0, true);
  if (headerLength > BigInt(buf.length - 8)) fail('convert.refusal.safetensors.headerPastEnd', { label, length: String(headerLength) });
  if (headerLength > BigInt(SAFETENSORS_LIMITS.headerBytes)) {
    fail('convert.refusal.safetensors.headerTooLarge', { label, length: Number(headerLength), most: SAFETENSORS_LIMITS.headerBytes });
  }
  let header;
  try { header = JSON.parse(new TextDecoder().decode(buf.subarray(8, 8 + Number(headerLength)))); } catch (e) {
    fail('convert.refusal.safetensors.headerJson', { label, error: e.message });
  }
  if (!header || typeof header !== 'object' || Array.isArray(header)) fail('convert.refusal.safetensors.headerNotObject', { label });
  const dataStart = 8 + Number(headerLength);
  const tensors = new Map();
  const names = Object.keys(header);
  if (names.length > SAFETENSORS_LIMITS.tensors) fail('convert.refusal.safetensors.tooManyTensors', { label, count: names.length, most: SAFETENSORS_LIMITS.tensors });
  for (const name of names) {
    const info = header[name];
    if (name === '__metadata__') continue;
    const offsets = info?.data_offsets;
    const [begin, end] = Array.isArray(offsets) && offsets.length === 2 ? offsets : [];
    const dims = Array.isArray(info?.shape) ? info.shape : null;
    if (!dims || !dims.every((d) => Number.isInteger(d) && d >= 0)) fail('convert.refusal.safetensors.badShape', { label, name });
    const elements = dims.reduce((a, b) => a * b, 1);
    if (!Number.isInteger(begin) || !Number.isInteger(end) || begin < 0 || end < begin || dataStart + end > buf.length) {
      fail('convert.refusal.safetensors.offsets', { label, name });
    }
    const bytes = buf.subarray(dataStart + begin, dataStart + end);
    if (dtypeBytes(info.dtype) && bytes.length !== elements * dtypeBytes(info.dtype)) {
      fail('convert.refusal.safetensors.sizeMismatch', { label, name, bytes: bytes.length, shape: String(dims), needed: elements * dtypeBytes(info.dtype) });
    }
    tensors.set(name, { dtype: info.dtype, shape: dims, bytes });
  }
  return tensors;
}

function* floatsOfSteps(tensors, name) {
  const t = tensors.get(name);
  if (!t) fail('convert.refusal.tensors.missing', { label: 'model.safetensors', name });
  if (!dtypeBytes(t.dtype)) fail('convert.refusal.tensors.dtype', { name, dtype: shownDtype(t.dtype) });
  return yield* decodeFloatsSteps(t.bytes, t.dtype);
}

export const floatsOf = (tensors, name) => drive(floatsOfSteps(tensors, name));

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
// stored only as `cls.predictions.decoder.bias`. Returns { tensors, hasMlm, notes (convert-messages.mjs) }.
export function canonicalTensors(source, label = 'model.safetensors') {
  const notes = [];
  const bare = ![...source.keys()].some((n) => n.startsWith('bert.'))
    && [...source.keys()].some((n) => /^(embeddings|encoder)\./.test(n));
  if (bare) notes.push(note('convert.note.bare'));
  const tensors = new Map();
  let renamed = 0;
  for (const [name, t] of source) {
    let canonical = bare && /^(embeddings|encoder|pooler)\./.test(name) ? `bert.${name}` : name;
    canonical = canonical.replace(/\.LayerNorm\.gamma$/, '.LayerNorm.weight').replace(/\.LayerNorm\.beta$/, '.LayerNorm.bias');
    if (canonical !== name && !(bare && canonical === `bert.${name}`)) renamed++;
    if (tensors.has(canonical)) fail('convert.refusal.tensors.twice', { label, first: tensors.get(canonical).sourceName, second: name, canonical });
    t.sourceName = name;  // no copy: a .bin's tensors read their bytes only when asked
    tensors.set(canonical, t);
  }
  if (renamed) notes.push(note('convert.note.gammaBeta', { count: renamed }));
  const pretraining = [...tensors.keys()].filter((n) => /^(bert\.pooler\.|cls\.seq_relationship\.)/.test(n));
  if (pretraining.length) {
    notes.push(note('convert.note.pretraining', { names: pretraining.join(', ') }));
  }
  if (!tensors.has(MLM_BIAS) && tensors.has(DECODER_BIAS)) {
    tensors.set(MLM_BIAS, tensors.get(DECODER_BIAS));
    notes.push(note('convert.note.decoderBias', { bias: MLM_BIAS, decoder: DECODER_BIAS }));
  }
  const hasMlm = [...tensors.keys()].some((n) => n.startsWith('cls.predictions.'));
  if (!hasMlm) notes.push(note('convert.note.noMlm'));
  return { tensors, hasMlm, notes };
}

// Every tensor of the plan present with its shape; returns the names of tensors not used.
function checkTensorSet(tensors, plan, shape, label) {
  const wanted = new Set(plan.map((t) => t.name));
  for (const t of plan) {
    const found = tensors.get(t.name);
    if (!found) fail('convert.refusal.tensors.missing', { label, name: t.name });
    if (!dtypeBytes(found.dtype)) fail('convert.refusal.tensors.dtype', { name: found.sourceName ?? t.name, dtype: shownDtype(found.dtype) });
    if (JSON.stringify(found.shape) !== JSON.stringify(t.hfShape)) {
      fail('convert.refusal.tensors.shape', { name: found.sourceName ?? t.name, shape: String(found.shape), expected: String(t.hfShape) });
    }
  }
  const ignored = [];
  for (const name of tensors.keys()) {
    const layer = /^bert\.encoder\.layer\.(\d+)\./.exec(name);
    if (layer && Number(layer[1]) >= shape.layers) {
      fail('convert.refusal.tensors.extraLayer', { label, name, layers: shape.layers });
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
    fail('convert.refusal.tensors.decoderUntied');
  }
  if (tensors.has('cls.predictions.decoder.bias')
      && !sameFloats(floatsOf(tensors, 'cls.predictions.decoder.bias'), floats.get('cls.predictions.bias'))) {
    fail('convert.refusal.tensors.decoderBias');
  }
}

function checkFinite(name, data) {
  for (let i = 0; i < data.length; i++) if (!Number.isFinite(data[i])) fail('convert.refusal.tensors.nonFinite', { name, index: i });
}

// ---------------------------------------------------------------- magnitudes
// Finite weights can still overflow float32 in the forward pass (a LayerNorm bias of 1e20, Q
// weights of 3e38). A bound on every activation, for any input, from the weights alone: each
// LayerNorm's output is at most √hidden·max|γ| + max|β| whatever its input (|x − mean| ≤
// √hidden·σ), a matrix product's output at most (largest row's Σ|w|)·max|x| + max|b|, GELU and
// softmax do not grow a bound, an attention score is at most head_dim·max|q|·max|k|/√head_dim.
// The LayerNorms reset the bound, so it does not compound over layers. Every bound must stay
// under ACTIVATION_LIMIT, which leaves float32 (3.4e38) a margin of 2^27 for the sums of squares
// and the kernels' scales; a trained BERT's bounds are below 1e12. The stage that fails names
// the tensor whose size made its bound large.
export const ACTIVATION_LIMIT = 2 ** 100;

function largestRowSum(data, cols) {
  let m = 0;
  for (let begin = 0; begin < data.length; begin += cols) {
    let sum = 0;
    for (let i = begin; i < begin + cols; i++) sum += Math.abs(data[i]);
    m = Math.max(m, sum);
  }
  return m;
}

function checkMagnitudes(shape, floats, mlm) {
  const amax = (name) => maxAbs(floats.get(name), 0, floats.get(name).length);
  const bound = (value, source) => ({ value, source });
  // stage: a key of OVERFLOW_STAGES_EN (convert-messages.mjs); layer: the layer it is in, if any.
  const check = (b, stage, layer) => {
    if (!(b.value <= ACTIVATION_LIMIT)) {
      fail(`convert.refusal.overflow.${stage}`, { name: b.source, layer, value: Number(b.value.toExponential(1)), limit: Number(ACTIVATION_LIMIT.toExponential(1)) });
    }
    return b;
  };
  const sum = (a, b) => bound(a.value + b.value, a.value >= b.value ? a.source : b.source);
  const vector = (name) => bound(amax(name), name);
  const linear = (prefix, x, cols, stage, layer) => {
    const w = bound(largestRowSum(floats.get(`${prefix}.weight`), cols), `${prefix}.weight`);
    const product = bound(w.value * x.value, w.value >= x.value ? w.source : x.source);
    return check(sum(product, vector(`${prefix}.bias`)), stage, layer);
  };
  const layerNorm = (prefix, input, stage, layer) => {
    check(bound(shape.hidden * (2 * input.value) ** 2, input.source), `variance.${stage}`, layer);
    return check(sum(bound(Math.sqrt(shape.hidden) * amax(`${prefix}.weight`), `${prefix}.weight`), vector(`${prefix}.bias`)), stage, layer);
  };
  const embeddings = ['word', 'position', 'token_type'].map((k) => vector(`bert.embeddings.${k}_embeddings.weight`)).reduce(sum);
  let h = layerNorm('bert.embeddings.LayerNorm', check(embeddings, 'embeddingSum'), 'embeddingLayerNorm');
  const headDim = shape.hidden / shape.heads;
  for (let l = 0; l < shape.layers; l++) {
    const p = `bert.encoder.layer.${l}`;
    const q = linear(`${p}.attention.self.query`, h, shape.hidden, 'queries', l);
    const k = linear(`${p}.attention.self.key`, h, shape.hidden, 'keys', l);
    check(bound(Math.sqrt(headDim) * q.value * k.value, q.value >= k.value ? q.source : k.source), 'scores', l);
    const v = linear(`${p}.attention.self.value`, h, shape.hidden, 'values', l);
    const attended = linear(`${p}.attention.output.dense`, v, shape.hidden, 'attentionOutput', l);
    h = layerNorm(`${p}.attention.output.LayerNorm`, check(sum(h, attended), 'residual', l), 'attentionLayerNorm', l);
    const inner = linear(`${p}.intermediate.dense`, h, shape.hidden, 'ffn', l);
    const out = linear(`${p}.output.dense`, inner, shape.ffn, 'ffnOutput', l);
    h = layerNorm(`${p}.output.LayerNorm`, check(sum(h, out), 'ffnResidual', l), 'outputLayerNorm', l);
  }
  if (!mlm) return;
  const t = linear('cls.predictions.transform.dense', h, shape.hidden, 'mlmTransform');
  const normed = layerNorm('cls.predictions.transform.LayerNorm', t, 'mlmLayerNorm');
  const decoder = bound(largestRowSum(floats.get(WORD_EMBEDDINGS), shape.hidden), WORD_EMBEDDINGS);
  check(sum(bound(decoder.value * normed.value, decoder.value >= normed.value ? decoder.source : normed.source), vector(MLM_BIAS)), 'mlmScores');
}

// The float tensors of the plan, decoded and checked.
function* readPlanFloatsSteps(tensors, plan, shape, label) {
  const ignored = checkTensorSet(tensors, plan, shape, label);
  const floats = new Map();
  for (const t of plan) floats.set(t.name, yield* floatsOfSteps(tensors, t.name));
  for (const [name, data] of floats) {
    checkFinite(name, data);
    yield;
  }
  checkTiedDecoder(tensors, floats);
  checkMagnitudes(shape, floats, plan.some((t) => t.mlm));
  return { floats, ignored };
}

export const readPlanFloats = (tensors, plan, shape, label = 'model.safetensors') => drive(readPlanFloatsSteps(tensors, plan, shape, label));

// ---------------------------------------------------------------- quantization

function maxAbs(data, begin, end) {
  let m = 0;
  for (let i = begin; i < end; i++) m = Math.max(m, Math.abs(data[i]));
  return m;
}

// Symmetric, one float32 scale per group: scale = max|w|/qmax, q = round half away from zero,
// clamped to ±qmax (0 when the scale is 0). dequantized[i] = float32(q·scale): what the
// engine computes with.
// Groups [first, last) of `out` ({ q, scales, dequantized }); their largest |error|.
function quantizeGroups(data, group, qmax, out, first, last) {
  let maxError = 0;
  for (let s = first; s < last; s++) {
    const begin = s * group;
    const scale = Math.fround(maxAbs(data, begin, begin + group) / qmax);
    out.scales[s] = scale;
    for (let i = begin; i < begin + group; i++) {
      const x = scale === 0 ? 0 : data[i] / scale;
      const v = Math.min(qmax, Math.round(Math.abs(x))) * Math.sign(x);
      out.q[i] = v;
      out.dequantized[i] = Math.fround(v * scale);
      maxError = Math.max(maxError, Math.abs(data[i] - out.dequantized[i]));
    }
  }
  return maxError;
}

function* quantizeSteps(data, rows, cols, group, qmax) {
  const out = {
    q: qmax <= QMAX.int8 ? new Int8Array(rows * cols) : new Int16Array(rows * cols),
    scales: new Float32Array(rows * (cols / group)),
    dequantized: new Float32Array(rows * cols),
  };
  let maxError = 0;
  yield* inSteps(out.scales.length, Math.max(1, Math.floor(STEP_ELEMENTS / group)), (first, last) => {
    maxError = Math.max(maxError, quantizeGroups(data, group, qmax, out, first, last));
  });
  return { ...out, maxError };
}

export const quantize = (data, rows, cols, group, qmax) => drive(quantizeSteps(data, rows, cols, group, qmax));

// True when every row already lies on the per-row int8 grid: w = q·max|row|/127 for integers
// q, up to float32 rounding of the product (a grid-rounded checkpoint such as bert-mini-int8).
function rowsOnInt8Grid(data, cols, first, last) {
  for (let r = first; r < last; r++) {
    const begin = r * cols;
    const amax = maxAbs(data, begin, begin + cols);
    const step = amax / QMAX.int8;
    for (let i = begin; i < begin + cols; i++) {
      if (Math.abs(data[i] - Math.round(data[i] / step) * step) > amax * 2 ** -20) return false;
    }
  }
  return true;
}

function* onInt8GridSteps(data, rows, cols) {
  let onGrid = true;
  yield* inSteps(rows, Math.max(1, Math.floor(STEP_ELEMENTS / cols)), (first, last) => { onGrid &&= rowsOnInt8Grid(data, cols, first, last); });
  return onGrid;
}

export const onInt8Grid = (data, rows, cols) => rowsOnInt8Grid(data, cols, 0, rows);

export function int16QmaxFor(t) {
  return t.role === 'lookup' ? QMAX.int16Lookup : QMAX.int16Multiplied;
}

// One matrix at `precision` ('int8' or 'int16'), one scale per row (group = cols).
function* quantizeMatrixSteps(t, data, precision) {
  const qmax = precision === 'int16' ? int16QmaxFor(t) : QMAX.int8;
  return { ...(yield* quantizeSteps(data, t.rows, t.cols, t.cols, qmax)), precision, group: t.cols, qmax };
}

export const quantizeMatrix = (t, data, precision) => drive(quantizeMatrixSteps(t, data, precision));

// ---------------------------------------------------------------- layout and bytes
// head: header, vocabulary, model card, tensor table, part table, then the embeddings' arrays
// but the word-embedding values (everything a run needs before its first layer, with the rows
// of its tokens); then the parts: one per layer, in order (a reader runs and shows layer L once
// layers 1…L are in), the MLM head, and the word-embedding values in pieces of whole rows.

const align = (n) => Math.ceil(n / ALIGN) * ALIGN;

function arraysOf(t) {
  return t.kind === 'f32' ? [['data', t.data]] : [['data', t.data], ['scales', t.scales]];
}

/** The layer a tensor belongs to (from 0), or -1. */
const layerOf = (t) => (t.name.startsWith(LAYER_PREFIX) ? Number.parseInt(t.name.slice(LAYER_PREFIX.length), 10) : -1);

function layoutFile(headerSize, vocabBytes, cardBytes, tensors) {
  const word = tensors.find((t) => t.name === WORD_EMBEDDINGS);
  const rowBytes = word.data.byteLength / word.rows;
  const rowsPerPart = Math.max(1, Math.floor(PART_TARGET_BYTES / rowBytes), Math.ceil(word.rows / WORD_PARTS_MAX));
  const wordParts = Math.ceil(word.rows / rowsPerPart);
  const mlm = tensors.filter((t) => t.mlm);
  const layers = [];
  for (const t of tensors) if (layerOf(t) >= 0) (layers[layerOf(t)] ??= []).push(t);
  const partCount = layers.length + (mlm.length ? 1 : 0) + wordParts;
  const L = { vocabOffset: headerSize, vocabBytes, cardBytes };
  L.cardOffset = cardBytes ? align(headerSize + vocabBytes) : 0;
  L.tableOffset = align((cardBytes ? L.cardOffset + cardBytes : headerSize + vocabBytes));
  L.tableBytes = tensors.length * ENTRY_SIZE;
  L.partsOffset = align(L.tableOffset + L.tableBytes);
  L.partCount = partCount;
  let cursor = align(L.partsOffset + partCount * PART_ENTRY_SIZE);
  const place = (t, key, array) => { t[`${key}Offset`] = cursor; cursor = align(cursor + array.byteLength); };
  for (const t of tensors) {
    if (t.mlm || layerOf(t) >= 0) continue;
    for (const [key, array] of arraysOf(t)) if (!(t === word && key === 'data')) place(t, key, array);
  }
  L.headBytes = cursor;
  L.parts = [];
  for (const group of [...layers, mlm]) {
    if (!group.length) continue;
    const begin = cursor;
    for (const t of group) for (const [key, array] of arraysOf(t)) place(t, key, array);
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

// A model whose tokenizer is BERT uncased with "##" keeps the version-2 header, which engines
// before version 3 read; any other gets version 3's, with its settings after the header.
const headerSizeFor = (settings) => (isUncased(settings) ? HEADER_SIZE : TOKENIZER_HEADER_SIZE);

function writeTokenizerSettings(view, settings) {
  const prefix = new Uint8Array(TOKENIZER_HEADER.subwordPrefix.bytes);
  prefix.set(new TextEncoder().encode(settings.subwordPrefix));
  const values = { tokenizerFlags: tokenizerFlags(settings), subwordPrefix: prefix };
  for (const field of TOKENIZER_FIELDS) writeField(view, 0, field, values[field.name]);
}

function writeHeader(view, shape, L, tensorCount) {
  const settings = shape.tokenizer ?? UNCASED_TOKENIZER;
  const uncased = isUncased(settings);
  const values = {
    magic: new TextEncoder().encode(MAGIC), version: uncased ? UNCASED_FORMAT_VERSION : FORMAT_VERSION, headChecksum: 0, fileSize: L.fileSize,
    headerSize: headerSizeFor(settings), tensorCount, vocabOffset: L.vocabOffset, vocabBytes: L.vocabBytes,
    tableOffset: L.tableOffset, tableBytes: L.tableBytes, vocabSize: shape.vocab, hidden: shape.hidden,
    layers: shape.layers, heads: shape.heads, ffn: shape.ffn, maxPositions: shape.maxPositions,
    typeVocab: shape.typeVocab, layerNormEps: shape.lnEps, headBytes: L.headBytes, entrySize: ENTRY_SIZE,
    partCount: L.partCount, partsOffset: L.partsOffset, cardBytes: L.cardBytes, cardOffset: L.cardOffset,
  };
  for (const field of HEADER_FIELDS) writeField(view, 0, field, values[field.name]);
  if (!uncased) writeTokenizerSettings(view, settings);
}

function writeTableEntry(out, view, at, t) {
  const name = new TextEncoder().encode(t.name);
  if (name.length >= NAME_SIZE) fail('convert.refusal.tensors.nameTooLong', { name: t.name });
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
// matrices, `scales`, `precision`, `group`, `qmax`. card: JSON text or ''. shape.tokenizer: the
// tokenizer's settings (weights/tokenizer-settings.mjs; BERT uncased when absent).
export const buildFile = (shape, vocab, card, tensors) => drive(buildFileSteps(shape, vocab, card, tensors));

function* buildFileSteps(shape, vocab, card, tensors) {
  if (card) checkCard(card);
  const cardBytes = card ? new Uint8Array([...new TextEncoder().encode(card), 0]) : new Uint8Array(0);
  const L = layoutFile(headerSizeFor(shape.tokenizer ?? UNCASED_TOKENIZER), vocab.length, cardBytes.length, tensors);
  const word = tensors.find((t) => t.name === WORD_EMBEDDINGS);
  const out = new Uint8Array(L.fileSize);  // zero-filled: padding is 0
  const view = new DataView(out.buffer);
  writeHeader(view, shape, L, tensors.length);
  out.set(vocab, L.vocabOffset);
  if (cardBytes.length) out.set(cardBytes, L.cardOffset);
  for (const [i, t] of tensors.entries()) {
    writeTableEntry(out, view, L.tableOffset + i * ENTRY_SIZE, t);
    out.set(bytesOf(t.data), t.dataOffset);
    if (t.kind !== 'f32') out.set(bytesOf(t.scales), t.scalesOffset);
    yield;
  }
  for (const [i, p] of L.parts.entries()) {
    const at = L.partsOffset + i * PART_ENTRY_SIZE;
    writeField(view, at, PART.offset, p.offset);
    writeField(view, at, PART.bytes, p.bytes);
    writeField(view, at, PART.crc, partChecksum(out, p, word));
    yield;
  }
  writeField(view, 0, HEADER.headChecksum, headChecksum(out, L.headBytes));
  return out;
}

// ---------------------------------------------------------------- model card

// What the page and the CLI tell about the model, as facts (c/spec.mjs CARD_KEYS): from
// training.json (when the checkpoint has one), the precision the converter chose, whether the
// masked-word head is there, and the head roles measured with the engine (weights/head-roles.mjs).
// The page phrases them in the reader's language (web/src/model-card.mjs), `attn --info` in English.
// The folder name, with control characters made spaces.
const plainText = (text) => String(text).replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');

export function buildCard({ name, training, matrices, mlm = true, roles = null }) {
  const card = { name: plainText(name) };
  if (training && typeof training === 'object') {
    const native = training.int8_native && typeof training.int8_native === 'object' ? training.int8_native : null;
    if (Number.isFinite(training.corpus_tokens)) {
      card.training_tokens = training.corpus_tokens;
      card.training_language = 'en';
    }
    const accuracy = native?.heldout_mlm_acc ?? training.heldout_mlm_acc;
    const loss = native?.heldout_mlm_loss ?? training.heldout_mlm_loss;
    if (Number.isFinite(accuracy)) card.heldout_mlm_accuracy = accuracy;
    if (Number.isFinite(loss)) card.heldout_mlm_loss = loss;
  }
  if (matrices) {
    card.matrices_int8 = matrices.int8;
    card.matrices_int16 = matrices.int16;
  }
  card.masked_word_head = mlm;
  if (roles) {
    card.head_next = roles.next;
    card.head_previous = roles.previous;
    card.head_cls = roles.cls;
    card.head_sep = roles.sep;
  }
  return checkCard(JSON.stringify(card));
}

// The model card's keys and the type of each value (c/spec.mjs): what the page and `attn --info` read.
/** A card key's type by its name. */
export const CARD_KEY_TYPES = Object.fromEntries(CARD_KEYS.map((k) => [k.name, k.type]));
export const CARD_MAX_BYTES = 1 << 16;
const CARD_VALUE_CHECKS = {
  number: (v) => Number.isFinite(v),
  boolean: (v) => typeof v === 'boolean',
  numbers: (v) => Array.isArray(v) && v.every(Number.isFinite),
  string: (v, plainString) => plainString(v),
};

/**
 * The card text when it is a JSON object of known keys, each once, with values of their type
 * (strings without control characters), written as JSON.stringify writes it; else a refusal.
 */
export function checkCard(text) {
  if (typeof text !== 'string' || text.length > CARD_MAX_BYTES) fail('convert.refusal.card.tooLarge', { most: CARD_MAX_BYTES });
  let card;
  try { card = JSON.parse(text); } catch (e) { fail('convert.refusal.card.json', { error: e.message }); }
  if (!card || typeof card !== 'object' || Array.isArray(card)) fail('convert.refusal.card.notObject');
  // A repeated key would change the text JSON.stringify gives back: a reader would see either.
  if (JSON.stringify(card) !== text) fail('convert.refusal.card.notCanonical');
  const plainString = (v) => typeof v === 'string' && !/[\u0000-\u001f\u007f-\u009f]/.test(v);
  for (const [key, value] of Object.entries(card)) {
    const type = CARD_KEY_TYPES[key];
    if (!type) fail('convert.refusal.card.unknownKey', { key: quoteValue(key) });
    const ok = CARD_VALUE_CHECKS[type](value, plainString);
    if (!ok) fail(`convert.refusal.card.${type}`, { key });
  }
  return text;
}

// ---------------------------------------------------------------- precision

function forcedPrecision(name, options) {
  let forced = null;
  for (const o of options.precisionFor) if (name.includes(o.substring)) forced = o.precision;
  return forced;
}

// (t, precision) → the matrix quantized at that precision (computed once, then kept; the
// dequantized values are dropped: the search measures weights files, not float copies).
// version(t, precision): the matrix quantized, computed once; version.steps(t, precision) the
// same in steps (a generator), for a conversion that yields between them.
function quantizedVersions(floats) {
  const cache = new Map();
  function* steps(t, precision) {
    const key = `${t.name}/${precision}`;
    if (!cache.has(key)) {
      const { dequantized, ...kept } = yield* quantizeMatrixSteps(t, floats.get(t.name), precision);
      cache.set(key, kept);
    }
    return cache.get(key);
  }
  return Object.assign((t, precision) => drive(steps(t, precision)), { steps });
}

// The plan's tensors ready for buildFile, each matrix at precisionOf(name).
function* planTensorsSteps(plan, floats, version, precisionOf, onGrid) {
  const tensors = [];
  for (const t of plan) {
    if (t.kind === 'f32') { tensors.push({ ...t, data: floats.get(t.name) }); continue; }
    const q = yield* version.steps(t, precisionOf(t.name));
    tensors.push({ ...t, data: q.q, scales: q.scales, precision: q.precision, group: q.group, qmax: q.qmax,
      maxError: q.maxError, onGrid: onGrid.has(t.name) });
  }
  return tensors;
}

const planTensors = (plan, floats, version, precisionOf, onGrid) => drive(planTensorsSteps(plan, floats, version, precisionOf, onGrid));

// Decides every matrix's precision; returns { precisions: Map, predicted, onGrid: Set, version }.
// predicted: NaN when nothing was measured; 0 for a file that stores every matrix exactly
// (unless options.predict asks for the engine's own arithmetic to be measured too).
function* choosePrecisionsSteps(shape, vocab, plan, floats, options, log) {
  const matrices = plan.filter((t) => t.kind === 'matrix');
  const version = quantizedVersions(floats);
  const onGrid = new Set();
  for (const t of matrices) if (yield* onInt8GridSteps(floats.get(t.name), t.rows, t.cols)) onGrid.add(t.name);
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
    fail('convert.refusal.precision.searchNeeded', { count: open.length });
  }
  const vocabLines = vocabLinesOf(vocab, shape);
  const planFile = (precisionOf) => buildFile(shape, vocab, '', planTensors(plan, floats, version, precisionOf, onGrid));
  const result = options.searchPrecision({ shape, floats, vocabLines, candidates: open, fixed: new Map(precisions), planFile,
    engine: typeof options.engine === 'function' ? options.engine() : options.engine, target: options.target, log,
    referenceCache: options.referenceCache });
  for (const [name, p] of result.choice) precisions.set(name, p);
  return { ...decided, predicted: result.predicted, calibration: result.calibration, reachable: result.reachable };
}

// ---------------------------------------------------------------- convert

// The head roles of the file, measured with the engine on the calibration text; null when no
// engine is given, or, with a note, when it cannot be loaded (the card then says they were not measured).
function* headRolesSteps(bytes, shape, vocab, options, log) {
  let engine = null;
  try {
    engine = typeof options.engine === 'function' ? options.engine() : options.engine;
  } catch (error) {
    if (!(error instanceof ConvertError)) throw error;
    log(`note: head roles not measured (${error.message})`);
    return null;
  }
  if (!engine) return null;  // the page's converter: the card says the roles were not measured
  return yield* measureHeadRolesSteps(engine, bytes, vocabLinesOf(vocab, shape), shape.maxPositions);
}

// The entries as the engine reads them (trailing white space, a CR too, is not part of one).
function vocabLinesOf(vocab, shape) {
  return new TextDecoder().decode(vocab).split('\n').slice(0, shape.vocab).map((line) => line.replace(TRAILING_WHITE_SPACE, ''));
}

function vocabNotes({ lines, paddingRows, addedNewline, repeats, controlLines }, shape) {
  const notes = [];
  if (addedNewline) notes.push(note('convert.note.finalNewline'));
  if (paddingRows) notes.push(note('convert.note.padding', { lines, vocab: shape.vocab, last: shape.vocab - 1, entry: paddingEntry(lines) }));
  for (const [line, earlier, entry] of repeats.slice(0, 5)) notes.push(note('convert.note.repeat', { line, earlier, entry: quoteValue(entry) }));
  if (repeats.length > 5) notes.push(note('convert.note.repeats', { count: repeats.length }));
  if (controlLines.length) {
    const lines = controlLines.slice(0, 5).join(', ');
    notes.push(controlLines.length > 5 ? note('convert.note.controlsMore', { lines, more: controlLines.length - 5 })
      : note(controlLines.length > 1 ? 'convert.note.controls' : 'convert.note.control', { lines }));
  }
  return notes;
}

// The most bytes read of each text file, checked on the file's size before it is read (the
// command line and the page both ask checkFileSize first); the weights files are bounded by
// their readers, which do not copy them.
export const FILE_MAX_BYTES = {
  'config.json': CONFIG_MAX_BYTES,
  'training.json': CONFIG_MAX_BYTES,
  'tokenizer_config.json': CONFIG_MAX_BYTES,
  'tokenizer.json': TOKENIZER_JSON_MAX_BYTES,
  'vocab.txt': LIMIT.vocab * (VOCAB_LINE_MAX_BYTES + 1),
};

export function checkFileSize(name, size) {
  const most = FILE_MAX_BYTES[name];
  if (most !== undefined && size > most) fail('convert.refusal.files.tooLarge', { name, size, most });
}

const fileContent = (value) => (typeof value === 'function' ? value() : value);

// ---------------------------------------------------------------- which files

// The weights files read, in the order preferred when a folder has several.
export const WEIGHTS_FILES = ['model.safetensors', 'pytorch_model.bin'];
const TENSORFLOW_FILE = /(^tf_model\.h5$|\.ckpt(\.|$))/;

/**
 * Which of a folder's files (names) the converter reads: { weights, vocab, tokenizer, training }
 * (a name or null), or a refusal that names what is missing and what would do. The command
 * line and the page both choose with this.
 */
export function chooseCheckpointFiles(names) {
  const has = (n) => names.includes(n);
  const weights = WEIGHTS_FILES.find(has) ?? null;
  const missing = [];
  if (!has('config.json')) missing.push('config.json');
  if (!weights) {
    if (names.some((n) => /-of-\d+\.(safetensors|bin)$/.test(n))) {
      fail('convert.refusal.files.sharded');
    }
    const foreign = [...names.filter((n) => TENSORFLOW_FILE.test(n)), ...names.filter((n) => n === 'flax_model.msgpack')];
    if (foreign.length) {
      const files = `${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', …' : ''}`;
      const tensorflow = foreign.some((n) => TENSORFLOW_FILE.test(n));
      const [kind, flag] = tensorflow ? ['TensorFlow', 'from_tf'] : ['Flax', 'from_flax'];
      fail('convert.refusal.files.foreignWeights', { files, kind, flag });
    }
    missing.push('model.safetensors / pytorch_model.bin');
  }
  if (!has('vocab.txt') && !has('tokenizer.json')) missing.push('vocab.txt / tokenizer.json');
  if (missing.length) {
    fail('convert.refusal.files.missing', { missing: missing.join('; ') });
  }
  return { weights, vocab: has('vocab.txt') ? 'vocab.txt' : null, tokenizer: has('tokenizer.json') ? 'tokenizer.json' : null,
    tokenizerConfig: has('tokenizer_config.json') ? 'tokenizer_config.json' : null,
    training: has('training.json') ? 'training.json' : null };
}

// The vocabulary: vocab.txt, else the one tokenizer.json stands for; with both, they must agree.
// Returns { parsed (parseVocab's), fromJson (tokenizer.json's settings, or null) }.
function readVocab(files, shape, log) {
  const given = fileContent(files.vocab);
  const tokenizer = files.tokenizer ? fileContent(files.tokenizer) : null;
  if (!given && tokenizer === null) fail('convert.refusal.files.noVocab');
  const json = tokenizer === null ? null : readTokenizerJson(tokenizer, { vocabSize: shape.vocab });
  const parsed = parseVocab(given ?? json.vocab, shape);
  if (given && json) {
    const disagreement = vocabDisagreement(given, json.vocab);
    if (disagreement) fail(...disagreement);
  }
  if (!given) log(note('convert.note.tokenizerVocab'));
  return { parsed, fromJson: json?.settings ?? null };
}

// The tokenizer's settings: tokenizer.json's, tokenizer_config.json's or config.json's (BERT
// uncased when none says).
function readTokenizerSettings(files, fromJson, log) {
  const configText = files.tokenizerConfig ? fileContent(files.tokenizerConfig) : null;
  const fromTokenizerConfig = configText === null || configText === undefined ? null
    : settingsFromKeys(parseJsonObject(configText, 'tokenizer_config.json'), 'tokenizer_config.json');
  const fromConfig = settingsFromKeys(parseJsonObject(fileContent(files.config), 'config.json'), 'config.json');
  const { settings, source } = chooseTokenizerSettings({ fromJson, fromTokenizerConfig, fromConfig });
  const params = { lowercase: settings.lowercase, stripAccents: settings.stripAccents, chineseChars: settings.chineseChars,
    prefix: quoteValue(settings.subwordPrefix) };
  if (source) log(note('convert.note.tokenizerSettings', { ...params, source }));
  else if (!isUncased(settings)) log(note('convert.note.tokenizerSettingsDefault', params));
  return settings;
}

// The tensors of model.safetensors or, without it, pytorch_model.bin.
function* readWeightsSteps(files) {
  if (files.safetensors) return { label: 'model.safetensors', tensors: parseSafetensors(fileContent(files.safetensors)) };
  if (files.pytorch) return { label: 'pytorch_model.bin', tensors: yield* parseTorchCheckpointSteps(fileContent(files.pytorch)) };
  return fail('convert.refusal.files.noWeights');
}

// Many similar notes (a file listing thousands of unused tensors) become a few and a count.
const NOTES_LISTED = 5;
function ignoredNotes(names) {
  const listed = names.slice(0, NOTES_LISTED).map((name) => note('convert.note.ignoring', { name }));
  if (names.length > NOTES_LISTED) listed.push(note('convert.note.ignoringMore', { count: names.length - NOTES_LISTED, all: names.length }));
  return listed;
}

function parseTraining(text) {
  if (!text) return null;
  try { return JSON.parse(text); } catch { return null; }
}

/**
 * A checkpoint's files in, the weights file out; no file system. files: { name, config (text),
 * vocab (bytes) and/or tokenizer (tokenizer.json text), safetensors or pytorch (pytorch_model.bin
 * bytes), training (text or null) }, each a value or a function that
 * gives it (read only when needed: a refusal stops before the next file is read). options:
 * precision 'auto'|'int8'|'int16', precisionFor [{substring, precision}], target,
 * predict, log(line), searchPrecision (weights/precision-search.mjs; without it a checkpoint off
 * the int8 grid needs a forced precision) and engine ({ Engine, wasm }, or a function giving it:
 * the engine the search runs each candidate file on). Returns { bytes, tensors, predicted, calibration,
 * reachable, target }.
 */
// The conversion as a generator that yields between steps of its long loops (each about a
// millisecond of work): convertCheckpoint runs it through at once; the page's main thread, where
// no worker is allowed, runs it in slices (web/src/convert-run.mjs).
export const convertCheckpoint = (files, givenOptions = {}) => drive(convertSteps(files, givenOptions));

export function* convertSteps(files, givenOptions = {}) {
  const options = { precision: 'auto', precisionFor: [], target: 1e-3, ...givenOptions };
  // log(text, note): every line in English; a note's code and parameters too, for the page.
  const given = options.log ?? (() => {});
  const log = (line) => (typeof line === 'string' ? given(line) : given(line.text, line));
  const { shape: configShape, defaulted } = parseConfig(fileContent(files.config));
  if (defaulted.length) log(note('convert.note.configDefaults', { keys: defaulted.join(', ') }));
  const { parsed: parsedVocab, fromJson } = readVocab(files, configShape, log);
  const shape = { ...configShape, tokenizer: readTokenizerSettings(files, fromJson, log) };
  for (const line of vocabNotes(parsedVocab, shape)) log(line);
  const vocab = parsedVocab.bytes;
  yield;
  const weights = yield* readWeightsSteps(files);
  yield;
  const { tensors: source, hasMlm, notes } = canonicalTensors(weights.tensors, weights.label);
  for (const line of notes) log(line);
  const plan = tensorPlan(shape, { mlm: hasMlm });
  const { floats, ignored } = yield* readPlanFloatsSteps(source, plan, shape, weights.label);
  for (const line of ignoredNotes(ignored)) log(line);
  const matrices = plan.filter((t) => t.kind === 'matrix');
  const chosen = yield* choosePrecisionsSteps(shape, vocab, plan, floats, options, log);
  const { precisions, predicted, onGrid, version } = chosen;
  const tensors = yield* planTensorsSteps(plan, floats, version, (name) => precisions.get(name), onGrid);
  const int16 = tensors.filter((t) => t.precision === 'int16').length;
  const facts = { name: files.name ?? 'checkpoint', training: parseTraining(fileContent(files.training)),
    matrices: { int8: matrices.length - int16, int16 }, mlm: hasMlm };
  let bytes = yield* buildFileSteps(shape, vocab, buildCard(facts), tensors);
  const roles = yield* headRolesSteps(bytes, shape, vocab, options, log);
  if (roles) bytes = yield* buildFileSteps(shape, vocab, buildCard({ ...facts, roles }), tensors);
  return { bytes, tensors, predicted, calibration: chosen.calibration, reachable: chosen.reachable, target: options.target };
}
