/* The model as the engine sees it: shapes, and pointers into the loaded weights bytes.
 * Nothing here owns memory: every pointer points inside the weights buffer the caller
 * keeps alive (wasm reads the tensors in place, without copies). */
#ifndef ATTN_MODEL_H
#define ATTN_MODEL_H

#include <stdint.h>

#include "spec.h" /* BERT_MAX_TOKENS ([CLS] + 510 pieces + [SEP]), BERT_MAX_LAYERS, … */

/* A weight matrix of `rows` x `cols` (row-major, HF Linear layout [out][in]), stored as it is
 * computed: int8 or int16 values with one float scale per row, w[r][c] = q[r*cols + c] *
 * scale[r]. `qmax` bounds |q| (checked by the loader for int16; 128 for int8), so the kernels
 * can size their exact int32 sums (linear.c). */
typedef struct {
    const void *q; /* const int8_t * (bits 8) or const int16_t * (bits 16) */
    const float *scale;
    int kind; /* WEIGHTS_KIND_INT8 or WEIGHTS_KIND_INT16: picks the kernel (linear.c) */
    int bits; /* 8 or 16, as kind says */
    int qmax;
    int rows, cols;
} qmatrix;

typedef struct {
    qmatrix query, key, value, attn_out;                             /* [hidden][hidden] */
    qmatrix ffn_in;                                                  /* [ffn][hidden] */
    qmatrix ffn_out;                                                 /* [hidden][ffn] */
    const float *query_bias, *key_bias, *value_bias, *attn_out_bias; /* [hidden] */
    const float *ffn_in_bias;                                        /* [ffn] */
    const float *ffn_out_bias;                                       /* [hidden] */
    const float *attn_ln_gamma, *attn_ln_beta;                       /* LayerNorm after attention + residual */
    const float *ffn_ln_gamma, *ffn_ln_beta;                         /* LayerNorm after FFN + residual */
} bert_layer;

typedef struct {
    int vocab_size, hidden, layers, heads, ffn, max_positions, type_vocab;
    float ln_eps;
    qmatrix word_emb; /* [vocab][hidden]; also the tied MLM decoder */
    qmatrix pos_emb;  /* [max_positions][hidden] */
    qmatrix type_emb; /* [type_vocab][hidden] */
    const float *emb_ln_gamma, *emb_ln_beta;
    bert_layer layer[BERT_MAX_LAYERS];
    qmatrix mlm_transform; /* [hidden][hidden] */
    const float *mlm_transform_bias, *mlm_ln_gamma, *mlm_ln_beta;
    const float *mlm_bias;  /* [vocab]; NULL (with the rest of the MLM head) when the file has none */
    const char *vocab_text; /* vocab.txt bytes, byte-identical to the checkpoint's */
    uint32_t vocab_bytes;
    const char *card;                                 /* the model card, JSON text ("" when the file has none) */
    uint32_t tokenizer_flags;                         /* TOKENIZER_FLAG_* (version 2: all three, BERT uncased) */
    char subword_prefix[WEIGHTS_SUBWORD_PREFIX_SIZE]; /* NUL-terminated ("##" in version 2) */
} bert_model;

#endif
