// Random-weight Hugging Face BERT checkpoints of any compact-BERT shape, for tests: the
// config.json, a vocab.txt and a model.safetensors that transformers would load. Every matrix
// lies on the per-row int8 grid with a power-of-two scale (w = q·2^-e, some |q| = 127 in each
// row), so an int8 conversion is exact and the values survive BF16 and F16 storage unchanged:
// the float64 reference on these very values is then what the engine must reproduce.
import fs from 'node:fs';
import path from 'node:path';
import { bertTensorShapes, writeSafetensors } from './safetensors.mjs';

export const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
export const WORDS = ['.', ',', 'the', 'cat', 'sat', 'on', 'mat', 'a', 'dog', 'ran', 'to', 'park', 'and',
  'saw', 'bird', 'in', 'tree', 'it', 'was', 'happy', '##s', '##ing', '##ed'];
export const SENTENCES = ['the cat sat on the mat.', 'a dog ran to the park, and saw a bird in the tree.',
  'it was happy.', 'the cats sat.'];

/** A compact-BERT config.json object (heads = hidden / 64 unless given). */
export function compactConfig({ layers, hidden, heads = hidden / 64, ffn = 4 * hidden, vocab = 1000, positions = 128 }) {
  return {
    architectures: ['BertForMaskedLM'], model_type: 'bert', vocab_size: vocab, hidden_size: hidden,
    num_hidden_layers: layers, num_attention_heads: heads, intermediate_size: ffn,
    max_position_embeddings: positions, type_vocab_size: 2, layer_norm_eps: 1e-12, hidden_act: 'gelu',
    position_embedding_type: 'absolute',
  };
}

/** vocab.txt lines: the special tokens, WORDS, then filler words up to `size`. */
export function vocabLines(size) {
  const lines = [...SPECIAL, ...WORDS];
  for (let i = 0; lines.length < size; i++) lines.push(`filler${i}`);
  return lines.slice(0, size);
}

function generator(seed) {
  let state = seed >>> 0;
  return () => {  // xorshift32, in [0, 1)
    state ^= state << 13; state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5; state >>>= 0;
    return state / 2 ** 32;
  };
}

// Half-width of a matrix's values: Q and K wide enough that attention is far from uniform
// (score spread of a few units), the others keeping activations of order 1.
function matrixSpread(name, cols) {
  if (/self\.(query|key)\.weight$/.test(name)) return 2.6 / Math.sqrt(cols);
  if (name.includes('embeddings')) return 1;
  return 1.7 / Math.sqrt(cols);
}

// randomTensors's `scales`: 'sharp' (the default) as matrixSpread says. 'trained': every layer's
// Q, K, V, attention output and FFN-in matrices at half that spread, the FFN-out and embeddings
// as they are: standard deviations 0.018 (Q and K 0.036) at hidden 512 and 768, near a trained
// BERT's (bert-mini-mlm's 0.024–0.037). Attention is broader (scores a quarter as wide: on the
// calibration text the rows' largest probability has median 0.08 and 99th percentile 0.24 at
// 4 × 512, 0.11 and 0.34 at 12 × 768, where 'sharp' 4 × 512 has 0.32 and 0.89 and bert-mini-mlm
// 0.16 and 0.96), and the engine's own rounding grows less from layer to layer: at 4 × 512 and
// 12 × 768 every matrix int16 meets the converter's 1e-3 and every matrix int8 does not
// (weights/README.md), so the precision search has to choose.
export const SCALES = ['sharp', 'trained'];

function scaleShare(scales, name) {
  if (scales === 'sharp') return 1;
  if (scales !== 'trained') throw new Error(`scales: expected ${SCALES.join(' or ')}; got ${scales}`);
  return /layer\.\d+\.(attention\.self\.(query|key|value)|attention\.output\.dense|intermediate\.dense)\.weight$/.test(name) ? 0.5 : 1;
}

function gridMatrix(rows, cols, spread, next) {
  const values = new Float32Array(rows * cols);
  const exponent = Math.round(Math.log2(127 / spread));
  const scale = 2 ** -exponent;
  for (let r = 0; r < rows; r++) {
    const peak = Math.floor(next() * cols);
    for (let c = 0; c < cols; c++) {
      const q = c === peak ? (next() < 0.5 ? -127 : 127) : Math.round((next() * 2 - 1) * 127);
      values[r * cols + c] = q * scale;
    }
  }
  return values;
}

// A vector's values rounded to 8 significant bits, so BF16 holds them exactly.
function vector(length, center, spread, next) {
  const values = new Float32Array(length);
  for (let i = 0; i < length; i++) {
    const v = center + (next() * 2 - 1) * spread;
    const e = Math.floor(Math.log2(Math.abs(v) || 1)) - 7;
    values[i] = Math.round(v / 2 ** e) * 2 ** e;
  }
  return values;
}

/**
 * Map name → Float32Array for every tensor of a BertForMaskedLM with `config`; `scales`
 * 'sharp' (the default) or 'trained' (SCALES).
 */
export function randomTensors(config, seed = 1, { scales = 'sharp' } = {}) {
  const next = generator(seed);
  const tensors = new Map();
  for (const [name, shape] of Object.entries(bertTensorShapes(config))) {
    if (shape.length === 2) tensors.set(name, gridMatrix(shape[0], shape[1], matrixSpread(name, shape[1]) * scaleShare(scales, name), next));
    else if (name.endsWith('LayerNorm.weight')) tensors.set(name, vector(shape[0], 1, 0.25, next));
    else tensors.set(name, vector(shape[0], 0, 0.1, next));
  }
  return { tensors, shapes: bertTensorShapes(config) };
}

function encode(values, dtype) {
  if (dtype === 'F32') return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
  const out = Buffer.alloc(values.length * 2);
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  if (dtype === 'BF16') {
    for (let i = 0; i < values.length; i++) out.writeUInt16LE(bits[i] >>> 16, 2 * i);
    return out;
  }
  if (dtype === 'F16') {
    for (let i = 0; i < values.length; i++) out.writeUInt16LE(halfBits(values[i]), 2 * i);
    return out;
  }
  throw new Error(`encode: ${dtype} not written by this helper`);
}

/** IEEE half-precision bits of x, rounded to nearest (ties away from zero), for |x| < 65520. */
function halfBits(x) {
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a < 2 ** -14) return sign | Math.round(a / 2 ** -24);  // subnormal (or 0)
  let exponent = Math.floor(Math.log2(a));
  let fraction = Math.round((a / 2 ** exponent - 1) * 1024);
  if (fraction === 1024) { fraction = 0; exponent++; }
  return sign | ((exponent + 15) << 10) | fraction;
}

/**
 * Writes a checkpoint directory. `rename(name)` gives the name a tensor is stored under (null
 * leaves it out); `extra` adds [{ name, values, shape }]; `vocabText` and `configText` replace
 * the files' contents as given.
 */
export function writeCheckpoint(dir, { config, tensors, shapes, dtype = 'F32', rename = (n) => n, extra = [],
  vocabText, configText } = {}) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'config.json'), configText ?? JSON.stringify(config, null, 2));
  fs.writeFileSync(path.join(dir, 'vocab.txt'), vocabText ?? `${vocabLines(config.vocab_size).join('\n')}\n`);
  const list = [];
  for (const [name, values] of tensors) {
    const stored = rename(name);
    if (stored) list.push({ name: stored, shape: shapes[name], dtype, bytes: encode(values, dtype) });
  }
  for (const t of extra) list.push({ name: t.name, shape: t.shape, dtype, bytes: encode(t.values, dtype) });
  writeSafetensors(path.join(dir, 'model.safetensors'), list);
  return dir;
}

/** The model object weights/reference.mjs's referenceForward reads. */
export function referenceModel(config, tensors, vocab = vocabLines(config.vocab_size)) {
  return {
    shape: {
      vocab: config.vocab_size, hidden: config.hidden_size, layers: config.num_hidden_layers,
      heads: config.num_attention_heads, ffn: config.intermediate_size, maxPositions: config.max_position_embeddings,
      typeVocab: config.type_vocab_size, lnEps: config.layer_norm_eps,
    },
    vocab,
    tensors,
  };
}
