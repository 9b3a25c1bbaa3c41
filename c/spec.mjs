// The one definition of the weights file format (weights/FORMAT.md) and of the engine's wasm
// boundary (c/attn.h): plain data, read directly by the JavaScript side (the converter, the
// page's engine wrapper, the tests) and turned into the C header c/spec.h by
// tools/gen-spec.mjs (`node tools/gen-spec.mjs --check` fails when c/spec.h is stale).
//
// Names are camelCase here; the C header spells them in UPPER_SNAKE (fileSize → FILE_SIZE).
// A change made here reaches both languages once c/spec.h is regenerated.

// ---------------------------------------------------------------- the file

export const MAGIC = 'BERTINT8';
/** The newest version, written for a model whose tokenizer is not BERT uncased with "##". */
export const FORMAT_VERSION = 3;
/**
 * Version 2: the same layout with a 128-byte header and the tokenizer settings implied (BERT
 * uncased: lowercase, accents stripped, Chinese characters spaced, "##"). The converter still
 * writes it for such a model, so that its file stays what engines before version 3 read.
 */
export const UNCASED_FORMAT_VERSION = 2;
/** The former format (two int8 planes per matrix), refused with its own message. */
export const OLD_FORMAT_VERSION = 1;
export const HEADER_SIZE = 128;
/** A tensor table entry and a part table entry, in bytes. */
export const ENTRY_SIZE = 128;
export const PART_ENTRY_SIZE = 16;
/** A tensor name is NUL-padded to this many bytes (so at most NAME_SIZE − 1 long). */
export const NAME_SIZE = 64;
/** Every tensor array starts at a multiple of this; the buffer in memory too. */
export const ALIGN = 16;

/** Field types: little-endian unsigned integers, float32, or a byte array of `bytes`. */
export const TYPE_BYTES = { u32: 4, u64: 8, f32: 4 };

/** The header (offset 0, HEADER_SIZE bytes). */
export const HEADER_FIELDS = [
  { name: 'magic', offset: 0, type: 'bytes', bytes: 8 },
  { name: 'version', offset: 8, type: 'u32' },
  { name: 'headChecksum', offset: 12, type: 'u32' },  // CRC-32 of the head with these 4 bytes as zero
  { name: 'fileSize', offset: 16, type: 'u64' },
  { name: 'headerSize', offset: 24, type: 'u32' },
  { name: 'tensorCount', offset: 28, type: 'u32' },
  { name: 'vocabOffset', offset: 32, type: 'u64' },
  { name: 'vocabBytes', offset: 40, type: 'u64' },
  { name: 'tableOffset', offset: 48, type: 'u64' },
  { name: 'tableBytes', offset: 56, type: 'u64' },
  { name: 'vocabSize', offset: 64, type: 'u32' },
  { name: 'hidden', offset: 68, type: 'u32' },
  { name: 'layers', offset: 72, type: 'u32' },
  { name: 'heads', offset: 76, type: 'u32' },
  { name: 'ffn', offset: 80, type: 'u32' },
  { name: 'maxPositions', offset: 84, type: 'u32' },
  { name: 'typeVocab', offset: 88, type: 'u32' },
  { name: 'layerNormEps', offset: 92, type: 'f32' },
  { name: 'headBytes', offset: 96, type: 'u64' },
  { name: 'entrySize', offset: 104, type: 'u32' },
  { name: 'partCount', offset: 108, type: 'u32' },
  { name: 'partsOffset', offset: 112, type: 'u64' },
  { name: 'cardBytes', offset: 120, type: 'u32' },
  { name: 'cardOffset', offset: 124, type: 'u32' },
];

/**
 * Version 3's header goes on after HEADER_SIZE with the tokenizer's settings (TOKENIZER_HEADER_SIZE
 * bytes in all, its header_size); version 2's ends at HEADER_SIZE.
 */
export const TOKENIZER_HEADER_SIZE = 144;
/** The continuing-subword prefix: UTF-8, NUL-padded, at most SUBWORD_PREFIX_SIZE − 1 bytes. */
export const SUBWORD_PREFIX_SIZE = 12;
export const TOKENIZER_FIELDS = [
  { name: 'tokenizerFlags', offset: 128, type: 'u32' },  // TOKENIZER_FLAGS bits; any other bit is refused
  { name: 'subwordPrefix', offset: 132, type: 'bytes', bytes: SUBWORD_PREFIX_SIZE },
];
/** tokenizerFlags bits: BertNormalizer's lowercase, strip_accents and handle_chinese_chars. */
export const TOKENIZER_FLAGS = { lowercase: 1, stripAccents: 2, chineseChars: 4 };
/** What a version-2 file's tokenizer is (BERT uncased). */
export const UNCASED_TOKENIZER = Object.freeze({ lowercase: true, stripAccents: true, chineseChars: true, subwordPrefix: '##' });

/** The header field whose 4 bytes read as zero when the head's checksum is computed. */
export const CHECKSUM_OFFSET = 12;

/** A tensor table entry (ENTRY_SIZE bytes). */
export const ENTRY_FIELDS = [
  { name: 'name', offset: 0, type: 'bytes', bytes: NAME_SIZE },
  { name: 'kind', offset: 64, type: 'u32' },
  { name: 'rows', offset: 68, type: 'u32' },
  { name: 'cols', offset: 72, type: 'u32' },
  { name: 'group', offset: 76, type: 'u32' },
  { name: 'dataOffset', offset: 80, type: 'u64' },
  { name: 'dataBytes', offset: 88, type: 'u64' },
  { name: 'scaleOffset', offset: 96, type: 'u64' },
  { name: 'scaleBytes', offset: 104, type: 'u64' },
  { name: 'qmax', offset: 112, type: 'u32' },
  { name: 'reserved', offset: 116, type: 'bytes', bytes: 12 },  // zero
];

/** A part table entry (PART_ENTRY_SIZE bytes). */
export const PART_FIELDS = [
  { name: 'offset', offset: 0, type: 'u64' },
  { name: 'bytes', offset: 8, type: 'u32' },
  { name: 'crc', offset: 12, type: 'u32' },
];

/** Tensor kinds (an entry's `kind`). */
export const KINDS = { int8: 1, f32: 2, int16: 4 };

/**
 * |q| bounds. int8 matrices use 127. int16 matrices that are multiplied keep 13 bits: the
 * kernels' exact int32 sums then leave the activations 13 bits too (c/linear.c); tables that
 * are only looked up (the position and token-type embeddings; the word embeddings, also the
 * tied decoder) take all 15.
 */
export const QMAX = { int8: 127, int16Multiplied: 4095, int16Lookup: 32767 };

/** The largest model the engine runs (c/model.h BERT_MAX_*; the converter refuses beyond). */
export const LIMITS = [
  { name: 'layers', value: 12, c: 'BERT_MAX_LAYERS' },
  { name: 'heads', value: 12, c: 'BERT_MAX_HEADS' },
  { name: 'hidden', value: 1024, c: 'BERT_MAX_HIDDEN' },
  { name: 'ffn', value: 4096, c: 'BERT_MAX_FFN' },
  { name: 'maxPositions', value: 512, c: 'BERT_MAX_TOKENS' },  // [CLS] + 510 pieces + [SEP]
  { name: 'vocab', value: 1 << 18, c: 'BERT_MAX_VOCAB' },
  { name: 'typeVocab', value: 16, c: 'BERT_MAX_TYPE_VOCAB' },
  { name: 'minPositions', value: 3, c: 'BERT_MIN_TOKENS' },  // [CLS] piece [SEP], or a pair's [CLS] [SEP] [SEP]
];
/** One limit's value, for the messages below. */
const limit = (name) => LIMITS.find((l) => l.name === name).value;

/**
 * The tokens the vocabulary must hold (the tokenizer refuses a vocabulary without one), by
 * name: SPECIAL.mask is '[MASK]' in JavaScript, SPECIAL_MASK its index in C (c/spec.h).
 */
export const SPECIAL = Object.freeze({ cls: '[CLS]', sep: '[SEP]', mask: '[MASK]', pad: '[PAD]', unk: '[UNK]' });
/** The same tokens in SPECIAL's order (C's SPECIAL_TOKEN_NAMES). */
export const SPECIAL_TOKENS = Object.freeze(Object.values(SPECIAL));

// ---------------------------------------------------------------- the tensor plan
// The file's tensors in table order. `dims`: [rows, cols] of the table entry, named by the
// model's shape (a vector has rows 'one' and its length as cols). `field`: the c/model.h member
// the loader binds it to. `use` (matrices): 'lookup' tables are read row by row, 'multiplied'
// ones enter matrix products (it decides an int16 matrix's qmax). `needed`: 'core' (every
// run), 'wordRows' (only the rows of a run's tokens), 'layer' (the runs that reach that layer:
// a reader in parts runs and shows layer L once layers 1…L are in), 'mlm' ([MASK] predictions
// only).

const matrix = (name, rows, cols, field, use = 'multiplied') => ({ name, kind: 'matrix', dims: [rows, cols], field, use });
const vector = (name, length, field) => ({ name, kind: 'f32', dims: ['one', length], field });

export const EMBEDDING_TENSORS = [
  { ...matrix('bert.embeddings.word_embeddings.weight', 'vocab', 'hidden', 'word_emb', 'lookup'), needed: 'wordRows' },
  matrix('bert.embeddings.position_embeddings.weight', 'maxPositions', 'hidden', 'pos_emb', 'lookup'),
  matrix('bert.embeddings.token_type_embeddings.weight', 'typeVocab', 'hidden', 'type_emb', 'lookup'),
  vector('bert.embeddings.LayerNorm.weight', 'hidden', 'emb_ln_gamma'),
  vector('bert.embeddings.LayerNorm.bias', 'hidden', 'emb_ln_beta'),
].map((t) => ({ needed: 'core', ...t }));

/** Each layer's tensors, named LAYER_PREFIX + layer index + '.' + name. */
export const LAYER_PREFIX = 'bert.encoder.layer.';
export const LAYER_TENSORS = [
  matrix('attention.self.query.weight', 'hidden', 'hidden', 'query'),
  vector('attention.self.query.bias', 'hidden', 'query_bias'),
  matrix('attention.self.key.weight', 'hidden', 'hidden', 'key'),
  vector('attention.self.key.bias', 'hidden', 'key_bias'),
  matrix('attention.self.value.weight', 'hidden', 'hidden', 'value'),
  vector('attention.self.value.bias', 'hidden', 'value_bias'),
  matrix('attention.output.dense.weight', 'hidden', 'hidden', 'attn_out'),
  vector('attention.output.dense.bias', 'hidden', 'attn_out_bias'),
  vector('attention.output.LayerNorm.weight', 'hidden', 'attn_ln_gamma'),
  vector('attention.output.LayerNorm.bias', 'hidden', 'attn_ln_beta'),
  matrix('intermediate.dense.weight', 'ffn', 'hidden', 'ffn_in'),
  vector('intermediate.dense.bias', 'ffn', 'ffn_in_bias'),
  matrix('output.dense.weight', 'hidden', 'ffn', 'ffn_out'),
  vector('output.dense.bias', 'hidden', 'ffn_out_bias'),
  vector('output.LayerNorm.weight', 'hidden', 'ffn_ln_gamma'),
  vector('output.LayerNorm.bias', 'hidden', 'ffn_ln_beta'),
].map((t) => ({ needed: 'layer', ...t }));

/** The masked-LM head; absent from a file converted from a BertModel checkpoint. */
export const MLM_HEAD_TENSORS = [
  matrix('cls.predictions.transform.dense.weight', 'hidden', 'hidden', 'mlm_transform'),
  vector('cls.predictions.transform.dense.bias', 'hidden', 'mlm_transform_bias'),
  vector('cls.predictions.transform.LayerNorm.weight', 'hidden', 'mlm_ln_gamma'),
  vector('cls.predictions.transform.LayerNorm.bias', 'hidden', 'mlm_ln_beta'),
  vector('cls.predictions.bias', 'vocab', 'mlm_bias'),
].map((t) => ({ needed: 'mlm', ...t }));

/** The dims the plan names, in the order of the C enum weights_dim. */
export const DIMS = ['one', 'vocab', 'hidden', 'ffn', 'maxPositions', 'typeVocab'];

// ---------------------------------------------------------------- status codes
// What every engine call returns (c/attn.h ATTN_*; 1 … 19 are the weights file's own checks,
// c/weights.h WEIGHTS_ERR_*), with the English message the CLI prints and the page shows.

// The model card the converter stores (weights/FORMAT.md): a JSON object of these keys, each
// at most once, each value of its type. The converter checks it when it writes the card, the
// CLI when it prints it (c/cli.c), the page when it shows it. Facts, not sentences: the page
// phrases them in the reader's language, `attn --info` in English. head_*: one value per head,
// layer by layer (layer 1 head 1, layer 1 head 2, …), measured by the converter with the engine
// on its calibration text (weights/head-roles.mjs). The keys marked `legacy` hold the English
// sentences that files written before carry; the converter no longer writes them.
export const CARD_KEYS = [
  { name: 'name', type: 'string' },
  { name: 'training_tokens', type: 'number', doc: 'tokens of text the checkpoint was trained on' },
  { name: 'training_language', type: 'string', doc: 'language of that text (BCP 47: en)' },
  { name: 'heldout_mlm_accuracy', type: 'number' }, { name: 'heldout_mlm_loss', type: 'number' },
  { name: 'matrices_int8', type: 'number' }, { name: 'matrices_int16', type: 'number' },
  { name: 'masked_word_head', type: 'boolean' },
  { name: 'head_next', type: 'numbers', doc: 'share of words whose largest weight is on the next word' },
  { name: 'head_previous', type: 'numbers', doc: 'share of words whose largest weight is on the previous word' },
  { name: 'head_cls', type: 'numbers', doc: 'mean weight of a word on [CLS]' },
  { name: 'head_sep', type: 'numbers', doc: 'mean weight of a word on [SEP]' },
  { name: 'architecture', type: 'string', legacy: true }, { name: 'precision', type: 'string', legacy: true },
  { name: 'objective', type: 'string', legacy: true }, { name: 'trained_on', type: 'string', legacy: true },
  { name: 'derived', type: 'string', legacy: true }, { name: 'limits', type: 'string', legacy: true },
];

/** A head is positional when its share of words on the next or the previous word reaches this. */
export const POSITIONAL_SHARE = 0.5;
/** A head is a sink when its words' mean weight on [CLS] and [SEP] together reaches this. */
export const SINK_MASS = 0.5;
/** Held-out masked-word accuracy below this: the card says the guesses are mostly frequent words. */
export const LOW_MLM_ACCURACY = 0.3;

export const STATUSES = [
  { name: 'OK', code: 0, message: 'ok' },
  { name: 'TOO_SMALL', code: 1, weights: true, message: 'weights file is too small to hold a header (empty or cut short)' },
  { name: 'MAGIC', code: 2, weights: true, message: 'not a weights file (bad magic bytes; expected a file made by weights/convert.mjs)' },
  { name: 'VERSION', code: 3, weights: true, message: "weights file has an unsupported format version or layout; reconvert it with this engine's weights/convert.mjs" },
  { name: 'TRUNCATED', code: 4, weights: true, message: 'weights file is truncated: it is shorter than its header says (incomplete download?)' },
  { name: 'CHECKSUM', code: 5, weights: true, message: 'weights file is corrupted: checksum mismatch' },
  { name: 'SHAPE', code: 6, weights: true, message: `weights file describes a model shape this engine cannot run (1 to ${limit('layers')} layers and heads, hidden up to ${limit('hidden')} and a multiple of the heads, FFN up to ${limit('ffn')}, ${limit('minPositions')} to ${limit('maxPositions')} positions: fewer than ${limit('minPositions')} cannot hold [CLS], a word and [SEP]; 1 to ${limit('typeVocab')} token types; layer_norm_eps finite and above 0)` },
  { name: 'TENSOR', code: 7, weights: true, message: 'weights file has an inconsistent tensor table (name, shape, size, offset or alignment)' },
  { name: 'VOCAB_TABLE', c: 'VOCAB', code: 8, weights: true, message: 'weights file vocabulary does not match its header (line count or size)' },
  { name: 'ALIGNMENT', code: 9, weights: true, message: 'weights buffer is not 16-byte aligned in memory' },
  { name: 'TRAILING', code: 10, weights: true, message: 'weights file is longer than its header says (extra bytes after the end)' },
  { name: 'OLD_FORMAT', code: 11, weights: true, message: 'weights file is format version 1 (two int8 planes per matrix); this engine reads version 2: reconvert the checkpoint with weights/convert.mjs' },
  { name: 'NO_MEMORY', code: 20, message: 'out of memory' },
  { name: 'VOCAB', code: 21, message: 'the vocabulary in the weights file is unusable (a special token is missing, or the vocabulary is not UTF-8)' },
  { name: 'ARGUMENT', code: 22, message: 'argument out of range (layer, head, token or position), or no run yet' },
  { name: 'PAIR', code: 23, message: 'this model has a single token type, so it cannot take a sentence pair' },
  { name: 'NO_MLM', code: 24, message: 'this model has no masked-word head (it was converted from a checkpoint without cls.predictions.* tensors): attention works, [MASK] predictions are off' },
  { name: 'NOT_LOADED', code: 25, message: 'the weights this needs have not arrived yet (a part of the weights file is still loading)' },
  { name: 'NOT_FINITE', code: 26, message: 'the weights make a value that is not a number (NaN or infinity) in this run, so no result is shown: the weights file has values the model cannot use' },
];

/** weights_status codes lie below this, the engine's own codes from it on. */
export const ENGINE_STATUS_FIRST = 20;

/** The message of a code that is none of the above. */
export const UNKNOWN_STATUS_MESSAGE = 'unknown weights status';

// ---------------------------------------------------------------- arrays read across the boundary
// The positional arrays the engine fills (c/attn.h): element type and the fields in order. The
// C header names each index (ATTN_SHAPE_HIDDEN, …); the page reads them by name.

export const BOUNDARY = {
  /** attn_engine_shape */
  shape: { type: 'int32', fields: ['vocab', 'hidden', 'layers', 'heads', 'ffn', 'maxPositions', 'typeVocab', 'headSize'] },
  /** attn_session_row_stats: ratio is max·n (1 = uniform), entropy in nats, effective = exp(entropy) */
  rowStats: { type: 'float64', fields: ['sum', 'max', 'argmax', 'ratio', 'entropy', 'effective', 'normalized'] },
  /** attn_session_head_roles: mean mass on each token kind (also the kinds' codes, 0 …) */
  mass: { type: 'float32', fields: ['word', 'cls', 'sep', 'punctuation'] },
  /** attn_session_walkthrough: [4][hidden] */
  walkthrough: { type: 'float32', each: 'hidden', fields: ['concat', 'projected', 'residual', 'normed'] },
  /** attn_engine_tokenize: tokens written, tokens the whole text gives */
  counts: { type: 'int32', fields: ['written', 'total'] },
};

/** attn_session_head_roles's result: bit i set for ROLE_BITS[i] (c/analysis.h head_roles). */
export const ROLE_BITS = [
  { name: 'previous', doc: 'argmax at i−1 on ≥ 90% of rows that have one (n ≥ 5)' },
  { name: 'next', doc: 'argmax at i+1 on ≥ 90% of rows that have one (n ≥ 5)' },
  { name: 'cls-sink', doc: '≥ 50% of the mass, averaged over rows, on [CLS]' },
  { name: 'sep-sink', doc: '… on [SEP]' },
  { name: 'punct-sink', doc: '… on punctuation tokens' },
  { name: 'broad', doc: 'mean normalised entropy ≥ 0.9' },
];

// ---------------------------------------------------------------- helpers

/** {name: field} of a field list. */
export const byName = (fields) => Object.fromEntries(fields.map((f) => [f.name, f]));
export const HEADER = byName(HEADER_FIELDS);
export const TOKENIZER_HEADER = byName(TOKENIZER_FIELDS);
export const ENTRY = byName(ENTRY_FIELDS);
export const PART = byName(PART_FIELDS);
/** {name: code} of STATUSES. */
export const STATUS = Object.freeze(Object.fromEntries(STATUSES.map((s) => [s.name, s.code])));
/** {name: value} of LIMITS. */
export const LIMIT = Object.freeze(Object.fromEntries(LIMITS.map((l) => [l.name, l.value])));

/** One field of a record starting at `base` of a DataView (numbers; u64 as a Number). */
export function readField(view, base, field) {
  const at = base + field.offset;
  switch (field.type) {
    case 'u32': return view.getUint32(at, true);
    case 'u64': return Number(view.getBigUint64(at, true));
    case 'f32': return view.getFloat32(at, true);
    default: return new Uint8Array(view.buffer, view.byteOffset + at, field.bytes);
  }
}

export function writeField(view, base, field, value) {
  const at = base + field.offset;
  switch (field.type) {
    case 'u32': view.setUint32(at, value, true); break;
    case 'u64': view.setBigUint64(at, BigInt(value), true); break;
    case 'f32': view.setFloat32(at, value, true); break;
    default: new Uint8Array(view.buffer, view.byteOffset + at, field.bytes).set(value);
  }
}

/** Every field of a record as {name: value}. */
export function readRecord(view, base, fields) {
  return Object.fromEntries(fields.map((f) => [f.name, readField(view, base, f)]));
}

/** The bytes a field takes. */
export const fieldBytes = (field) => TYPE_BYTES[field.type] ?? field.bytes;

/** Throws unless `fields` tile [0, size) with no gap or overlap (checked at import). */
export function checkTiling(fields, size, what) {
  let end = 0;
  for (const f of fields) {
    if (f.offset !== end) throw new Error(`spec: ${what}.${f.name} at ${f.offset}, expected ${end}`);
    end += fieldBytes(f);
  }
  if (end !== size) throw new Error(`spec: ${what} fields end at ${end}, expected ${size}`);
}

checkTiling(HEADER_FIELDS, HEADER_SIZE, 'header');
checkTiling([...HEADER_FIELDS, ...TOKENIZER_FIELDS], TOKENIZER_HEADER_SIZE, 'version 3 header');
checkTiling(ENTRY_FIELDS, ENTRY_SIZE, 'entry');
checkTiling(PART_FIELDS, PART_ENTRY_SIZE, 'part');
for (const s of STATUSES) {
  if (s.code !== 0 && Boolean(s.weights) !== (s.code < ENGINE_STATUS_FIRST)) throw new Error(`spec: status ${s.name} on the wrong side of ${ENGINE_STATUS_FIRST}`);
}
if (HEADER.headChecksum.offset !== CHECKSUM_OFFSET) throw new Error('spec: CHECKSUM_OFFSET is not headChecksum');
