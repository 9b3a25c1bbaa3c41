/* Generated from c/spec.mjs by tools/gen-spec.mjs: do not edit. Change c/spec.mjs and run
 * `node tools/gen-spec.mjs` (`make test` checks that this file is what it gives).
 * The weights file format (weights/FORMAT.md) and the arrays of the wasm boundary (attn.h). */
#ifndef ATTN_SPEC_H
#define ATTN_SPEC_H

/* ------------------------------------------------------------------ the file */

#define WEIGHTS_MAGIC "BERTINT8"
#define WEIGHTS_LAYER_PREFIX "bert.encoder.layer."

enum {
    WEIGHTS_FORMAT_VERSION         = 3,
    WEIGHTS_UNCASED_FORMAT_VERSION = 2,  /* the 128-byte header, BERT uncased implied */
    WEIGHTS_OLD_FORMAT_VERSION     = 1,  /* two int8 planes per matrix: refused with its own status */
    WEIGHTS_HEADER_SIZE            = 128,
    WEIGHTS_TOKENIZER_HEADER_SIZE  = 144,  /* version 3: the header with the tokenizer settings */
    WEIGHTS_SUBWORD_PREFIX_SIZE    = 12,  /* the continuing-subword prefix, NUL-padded */
    WEIGHTS_ENTRY_SIZE             = 128,  /* a tensor table entry */
    WEIGHTS_PART_ENTRY_SIZE        = 16,  /* a part table entry */
    WEIGHTS_NAME_SIZE              = 64,  /* a tensor name, NUL-padded */
    WEIGHTS_ALIGN                  = 16,  /* every tensor array, and the buffer in memory */
    WEIGHTS_CHECKSUM_OFFSET        = 12,  /* read as zero when the head checksum is computed */
};

/* Byte offsets of the fields of the header (little-endian). */
enum {
    HEADER_MAGIC          = 0,  /* u8[8] */
    HEADER_VERSION        = 8,  /* u32 */
    HEADER_HEAD_CHECKSUM  = 12,  /* u32 */
    HEADER_FILE_SIZE      = 16,  /* u64 */
    HEADER_HEADER_SIZE    = 24,  /* u32 */
    HEADER_TENSOR_COUNT   = 28,  /* u32 */
    HEADER_VOCAB_OFFSET   = 32,  /* u64 */
    HEADER_VOCAB_BYTES    = 40,  /* u64 */
    HEADER_TABLE_OFFSET   = 48,  /* u64 */
    HEADER_TABLE_BYTES    = 56,  /* u64 */
    HEADER_VOCAB_SIZE     = 64,  /* u32 */
    HEADER_HIDDEN         = 68,  /* u32 */
    HEADER_LAYERS         = 72,  /* u32 */
    HEADER_HEADS          = 76,  /* u32 */
    HEADER_FFN            = 80,  /* u32 */
    HEADER_MAX_POSITIONS  = 84,  /* u32 */
    HEADER_TYPE_VOCAB     = 88,  /* u32 */
    HEADER_LAYER_NORM_EPS = 92,  /* f32 */
    HEADER_HEAD_BYTES     = 96,  /* u64 */
    HEADER_ENTRY_SIZE     = 104,  /* u32 */
    HEADER_PART_COUNT     = 108,  /* u32 */
    HEADER_PARTS_OFFSET   = 112,  /* u64 */
    HEADER_CARD_BYTES     = 120,  /* u32 */
    HEADER_CARD_OFFSET    = 124,  /* u32 */
};

/* Byte offsets of the fields of version 3's tokenizer settings, after the header (little-endian). */
enum {
    HEADER_TOKENIZER_FLAGS = 128,  /* u32 */
    HEADER_SUBWORD_PREFIX  = 132,  /* u8[12] */
};

/* Bits of the tokenizer_flags header field (version 3). */
enum {
    TOKENIZER_FLAG_LOWERCASE     = 1,
    TOKENIZER_FLAG_STRIP_ACCENTS = 2,
    TOKENIZER_FLAG_CHINESE_CHARS = 4,
};

/* Byte offsets of the fields of a tensor table entry (little-endian). */
enum {
    ENTRY_NAME         = 0,  /* u8[64] */
    ENTRY_KIND         = 64,  /* u32 */
    ENTRY_ROWS         = 68,  /* u32 */
    ENTRY_COLS         = 72,  /* u32 */
    ENTRY_GROUP        = 76,  /* u32 */
    ENTRY_DATA_OFFSET  = 80,  /* u64 */
    ENTRY_DATA_BYTES   = 88,  /* u64 */
    ENTRY_SCALE_OFFSET = 96,  /* u64 */
    ENTRY_SCALE_BYTES  = 104,  /* u64 */
    ENTRY_QMAX         = 112,  /* u32 */
    ENTRY_RESERVED     = 116,  /* u8[12] */
};

/* Byte offsets of the fields of a part table entry (little-endian). */
enum {
    PART_OFFSET = 0,  /* u64 */
    PART_BYTES  = 8,  /* u32 */
    PART_CRC    = 12,  /* u32 */
};

/* Tensor kinds (an entry's kind). */
enum {
    WEIGHTS_KIND_INT8  = 1,
    WEIGHTS_KIND_F32   = 2,
    WEIGHTS_KIND_INT16 = 4,
};

/* Bounds on |q| the converter writes (an int16 matrix's own qmax is in its entry). */
enum {
    WEIGHTS_INT8_QMAX             = 127,
    WEIGHTS_INT16_QMAX_MULTIPLIED = 4095,
    WEIGHTS_INT16_QMAX_LOOKUP     = 32767,
};

/* The model shapes the engine runs: the largest, and the fewest positions. */
enum {
    BERT_MAX_LAYERS     = 12,  /* layers */
    BERT_MAX_HEADS      = 12,  /* heads */
    BERT_MAX_HIDDEN     = 1024,  /* hidden */
    BERT_MAX_FFN        = 4096,  /* ffn */
    BERT_MAX_TOKENS     = 512,  /* maxPositions */
    BERT_MAX_VOCAB      = 262144,  /* vocab */
    BERT_MAX_TYPE_VOCAB = 16,  /* typeVocab */
    BERT_MIN_TOKENS     = 3,  /* minPositions */
};

/* The special tokens by name (c/spec.mjs SPECIAL), in the order of SPECIAL_TOKEN_NAMES. */
enum special_token {
    SPECIAL_CLS,
    SPECIAL_SEP,
    SPECIAL_MASK,
    SPECIAL_PAD,
    SPECIAL_UNK,
    SPECIAL_COUNT,
};

#define SPECIAL_TOKEN_NAMES {"[CLS]", "[SEP]", "[MASK]", "[PAD]", "[UNK]"}

/* ------------------------------------------------------------------ the tensor plan
 * In table order: the embeddings, each layer's tensors (named WEIGHTS_LAYER_PREFIX, the layer
 * index, ".", the name), the MLM head. X(name, kind, rows, cols, model.h field, role): kind
 * MATRIX or VECTOR, rows and cols a weights_dim (a vector is ONE × its length), role a
 * weights_role (what the array is needed for). */

enum weights_dim {
    WEIGHTS_DIM_ONE,
    WEIGHTS_DIM_VOCAB,
    WEIGHTS_DIM_HIDDEN,
    WEIGHTS_DIM_FFN,
    WEIGHTS_DIM_MAX_POSITIONS,
    WEIGHTS_DIM_TYPE_VOCAB,
};

enum {
    WEIGHTS_EMBEDDING_TENSOR_COUNT = 5,
    WEIGHTS_LAYER_TENSOR_COUNT     = 16,
    WEIGHTS_MLM_HEAD_TENSOR_COUNT  = 5,
};

#define WEIGHTS_EMBEDDING_TENSORS(X) \
    X("bert.embeddings.word_embeddings.weight", MATRIX, VOCAB, HIDDEN, word_emb, WORD_ROWS) \
    X("bert.embeddings.position_embeddings.weight", MATRIX, MAX_POSITIONS, HIDDEN, pos_emb, CORE) \
    X("bert.embeddings.token_type_embeddings.weight", MATRIX, TYPE_VOCAB, HIDDEN, type_emb, CORE) \
    X("bert.embeddings.LayerNorm.weight", VECTOR, ONE, HIDDEN, emb_ln_gamma, CORE) \
    X("bert.embeddings.LayerNorm.bias", VECTOR, ONE, HIDDEN, emb_ln_beta, CORE)

#define WEIGHTS_LAYER_TENSORS(X) \
    X("attention.self.query.weight", MATRIX, HIDDEN, HIDDEN, query, LAYER) \
    X("attention.self.query.bias", VECTOR, ONE, HIDDEN, query_bias, LAYER) \
    X("attention.self.key.weight", MATRIX, HIDDEN, HIDDEN, key, LAYER) \
    X("attention.self.key.bias", VECTOR, ONE, HIDDEN, key_bias, LAYER) \
    X("attention.self.value.weight", MATRIX, HIDDEN, HIDDEN, value, LAYER) \
    X("attention.self.value.bias", VECTOR, ONE, HIDDEN, value_bias, LAYER) \
    X("attention.output.dense.weight", MATRIX, HIDDEN, HIDDEN, attn_out, LAYER) \
    X("attention.output.dense.bias", VECTOR, ONE, HIDDEN, attn_out_bias, LAYER) \
    X("attention.output.LayerNorm.weight", VECTOR, ONE, HIDDEN, attn_ln_gamma, LAYER) \
    X("attention.output.LayerNorm.bias", VECTOR, ONE, HIDDEN, attn_ln_beta, LAYER) \
    X("intermediate.dense.weight", MATRIX, FFN, HIDDEN, ffn_in, LAYER) \
    X("intermediate.dense.bias", VECTOR, ONE, FFN, ffn_in_bias, LAYER) \
    X("output.dense.weight", MATRIX, HIDDEN, FFN, ffn_out, LAYER) \
    X("output.dense.bias", VECTOR, ONE, HIDDEN, ffn_out_bias, LAYER) \
    X("output.LayerNorm.weight", VECTOR, ONE, HIDDEN, ffn_ln_gamma, LAYER) \
    X("output.LayerNorm.bias", VECTOR, ONE, HIDDEN, ffn_ln_beta, LAYER)

#define WEIGHTS_MLM_HEAD_TENSORS(X) \
    X("cls.predictions.transform.dense.weight", MATRIX, HIDDEN, HIDDEN, mlm_transform, MLM) \
    X("cls.predictions.transform.dense.bias", VECTOR, ONE, HIDDEN, mlm_transform_bias, MLM) \
    X("cls.predictions.transform.LayerNorm.weight", VECTOR, ONE, HIDDEN, mlm_ln_gamma, MLM) \
    X("cls.predictions.transform.LayerNorm.bias", VECTOR, ONE, HIDDEN, mlm_ln_beta, MLM) \
    X("cls.predictions.bias", VECTOR, ONE, VOCAB, mlm_bias, MLM)

/* The model card's keys, in c/spec.mjs's order. */
#define CARD_KEY_NAMES {"name", "training_tokens", "training_language", "heldout_mlm_accuracy", "heldout_mlm_loss", "matrices_int8", "matrices_int16", "masked_word_head", "head_next", "head_previous", "head_cls", "head_sep", "architecture", "precision", "objective", "trained_on", "derived", "limits"}
#define CARD_POSITIONAL_SHARE 0.5
#define CARD_SINK_MASS 0.5
#define CARD_LOW_MLM_ACCURACY 0.3

/* ------------------------------------------------------------------ status codes */

typedef enum {
    WEIGHTS_OK = 0,
    WEIGHTS_ERR_TOO_SMALL = 1,
    WEIGHTS_ERR_MAGIC = 2,
    WEIGHTS_ERR_VERSION = 3,
    WEIGHTS_ERR_TRUNCATED = 4,
    WEIGHTS_ERR_CHECKSUM = 5,
    WEIGHTS_ERR_SHAPE = 6,
    WEIGHTS_ERR_TENSOR = 7,
    WEIGHTS_ERR_VOCAB = 8,
    WEIGHTS_ERR_ALIGNMENT = 9,
    WEIGHTS_ERR_TRAILING = 10,
    WEIGHTS_ERR_OLD_FORMAT = 11,
} weights_status;

/* The engine's own codes (1 … 19 are the weights_status codes). */
enum {
    ATTN_OK             = 0,
    ATTN_ERR_NO_MEMORY  = 20,
    ATTN_ERR_VOCAB      = 21,
    ATTN_ERR_ARGUMENT   = 22,
    ATTN_ERR_PAIR       = 23,
    ATTN_ERR_NO_MLM     = 24,
    ATTN_ERR_NOT_LOADED = 25,
    ATTN_ERR_NOT_FINITE = 26,
};

enum {
    WEIGHTS_STATUS_END = 20,  /* weights_status codes lie below it */
};

/* The English message of a status code (every code above), NULL for any other number. */
static inline const char *status_message_of(int status)
{
    switch (status) {
    case 0: return "ok";
    case 1: return "weights file is too small to hold a header (empty or cut short)";
    case 2: return "not a weights file (bad magic bytes; expected a file made by weights/convert.mjs)";
    case 3: return "weights file has an unsupported format version or layout; reconvert it with this engine's weights/convert.mjs";
    case 4: return "weights file is truncated: it is shorter than its header says (incomplete download?)";
    case 5: return "weights file is corrupted: checksum mismatch";
    case 6: return "weights file describes a model shape this engine cannot run (1 to 12 layers and heads, hidden up to 1024 and a multiple of the heads, FFN up to 4096, 3 to 512 positions: fewer than 3 cannot hold [CLS], a word and [SEP]; 1 to 16 token types; layer_norm_eps finite and above 0)";
    case 7: return "weights file has an inconsistent tensor table (name, shape, size, offset or alignment)";
    case 8: return "weights file vocabulary does not match its header (line count or size)";
    case 9: return "weights buffer is not 16-byte aligned in memory";
    case 10: return "weights file is longer than its header says (extra bytes after the end)";
    case 11: return "weights file is format version 1 (two int8 planes per matrix); this engine reads version 2: reconvert the checkpoint with weights/convert.mjs";
    case 20: return "out of memory";
    case 21: return "the vocabulary in the weights file is unusable (a special token is missing, or the vocabulary is not UTF-8)";
    case 22: return "argument out of range (layer, head, token or position), or no run yet";
    case 23: return "this model has a single token type, so it cannot take a sentence pair";
    case 24: return "this model has no masked-word head (it was converted from a checkpoint without cls.predictions.* tensors): attention works, [MASK] predictions are off";
    case 25: return "the weights this needs have not arrived yet (a part of the weights file is still loading)";
    case 26: return "the weights make a value that is not a number (NaN or infinity) in this run, so no result is shown: the weights file has values the model cannot use";
    }
    return 0;
}

#define UNKNOWN_STATUS_MESSAGE "unknown weights status"

/* ------------------------------------------------------------------ arrays read across the boundary */

/* shape: int32[8], in this order. */
enum {
    ATTN_SHAPE_VOCAB,
    ATTN_SHAPE_HIDDEN,
    ATTN_SHAPE_LAYERS,
    ATTN_SHAPE_HEADS,
    ATTN_SHAPE_FFN,
    ATTN_SHAPE_MAX_POSITIONS,
    ATTN_SHAPE_TYPE_VOCAB,
    ATTN_SHAPE_HEAD_SIZE,
    ATTN_SHAPE_COUNT,
};

/* rowStats: float64[7], in this order. */
enum {
    ATTN_ROW_STATS_SUM,
    ATTN_ROW_STATS_MAX,
    ATTN_ROW_STATS_ARGMAX,
    ATTN_ROW_STATS_RATIO,
    ATTN_ROW_STATS_ENTROPY,
    ATTN_ROW_STATS_EFFECTIVE,
    ATTN_ROW_STATS_NORMALIZED,
    ATTN_ROW_STATS_COUNT,
};

/* mass: float32[4], in this order. */
enum {
    ATTN_MASS_WORD,
    ATTN_MASS_CLS,
    ATTN_MASS_SEP,
    ATTN_MASS_PUNCTUATION,
    ATTN_MASS_COUNT,
};

/* walkthrough: float32[4][hidden], in this order. */
enum {
    ATTN_WALKTHROUGH_CONCAT,
    ATTN_WALKTHROUGH_PROJECTED,
    ATTN_WALKTHROUGH_RESIDUAL,
    ATTN_WALKTHROUGH_NORMED,
    ATTN_WALKTHROUGH_COUNT,
};

/* counts: int32[2], in this order. */
enum {
    ATTN_COUNTS_WRITTEN,
    ATTN_COUNTS_TOTAL,
    ATTN_COUNTS_COUNT,
};

/* Bits of attn_session_head_roles's result (analysis.h head_roles). */
enum head_role {
    ROLE_PREVIOUS   = 1 << 0,  /* argmax at i−1 on ≥ 90% of rows that have one (n ≥ 5) */
    ROLE_NEXT       = 1 << 1,  /* argmax at i+1 on ≥ 90% of rows that have one (n ≥ 5) */
    ROLE_CLS_SINK   = 1 << 2,  /* ≥ 50% of the mass, averaged over rows, on [CLS] */
    ROLE_SEP_SINK   = 1 << 3,  /* … on [SEP] */
    ROLE_PUNCT_SINK = 1 << 4,  /* … on punctuation tokens */
    ROLE_BROAD      = 1 << 5,  /* mean normalised entropy ≥ 0.9 */
};

#endif
