/* The model as the engine sees it: shapes, and pointers into the loaded weights bytes.
 * Nothing here owns memory: every pointer points inside the weights buffer the caller
 * keeps alive (wasm reads the tensors in place, without copies). */
#ifndef ATTN_MODEL_H
#define ATTN_MODEL_H

#include <stdint.h>

enum {
    BERT_MAX_TOKENS = 512,  /* [CLS] + 510 pieces + [SEP] */
    BERT_MAX_LAYERS = 4,
    BERT_MAX_HEADS = 4,
};

/* An int8 matrix of `rows` x `cols` (row-major, HF Linear layout [out][in]) with one float
 * scale per `group` consecutive columns of a row: w[r][c] = q[r*cols + c] * scale[r*(cols/group) + c/group].
 * group == cols means one scale per row. `cols % group == 0` always holds after loading.
 * An optional second int8 plane (q2, scale2; same layout) holds the rounding residual of the
 * first: w = q·scale + q2·scale2. One plane alone is too coarse for 1e-3 attention parity. */
typedef struct {
    const int8_t *q;
    const float *scale;
    const int8_t *q2;       /* NULL for a single plane */
    const float *scale2;
    /* Optional, owned by the engine (attn.c), not by the weights bytes: when scale is exactly
     * R·scale2 for one integer R (the converter's default, --residual-scale fixed), w =
     * (R·q + q2)·scale2, one int16 weight per entry; q16 holds those (rows × cols), and the
     * kernels multiply them with int16 activations of at most q16_xmax, summed exactly in int32
     * over q16_chunk columns (kernels.c). NULL when not built. */
    const int16_t *q16;
    int q16_chunk, q16_xmax;
    int rows, cols, group;
} qmatrix;

typedef struct {
    qmatrix query, key, value, attn_out;   /* [hidden][hidden] */
    qmatrix ffn_in;                        /* [ffn][hidden] */
    qmatrix ffn_out;                       /* [hidden][ffn] */
    const float *query_bias, *key_bias, *value_bias, *attn_out_bias;  /* [hidden] */
    const float *ffn_in_bias;              /* [ffn] */
    const float *ffn_out_bias;             /* [hidden] */
    const float *attn_ln_gamma, *attn_ln_beta;  /* LayerNorm after attention + residual */
    const float *ffn_ln_gamma, *ffn_ln_beta;    /* LayerNorm after FFN + residual */
} bert_layer;

typedef struct {
    int vocab_size, hidden, layers, heads, ffn, max_positions, type_vocab;
    float ln_eps;
    qmatrix word_emb;       /* [vocab][hidden]; also the tied MLM decoder */
    qmatrix pos_emb;        /* [max_positions][hidden] */
    qmatrix type_emb;       /* [type_vocab][hidden] */
    const float *emb_ln_gamma, *emb_ln_beta;
    bert_layer layer[BERT_MAX_LAYERS];
    qmatrix mlm_transform;  /* [hidden][hidden] */
    const float *mlm_transform_bias, *mlm_ln_gamma, *mlm_ln_beta;
    const float *mlm_bias;  /* [vocab] */
    const char *vocab_text; /* vocab.txt bytes, byte-identical to the checkpoint's */
    uint32_t vocab_bytes;
} bert_model;

#endif
