/* Where a forward pass's time goes: the encoder of c/forward.c step by step, each step timed
 * with the host's clock (performance.now(), imported as env.profile_clock), the same kernels
 * on the same shapes. The weight products run through linear_timed below, c/linear.c's block
 * loop with the quantization of activations timed apart, so the products' share is their own. The harness
 * also times bert_forward itself, so that the sum of the parts can be checked against it.
 * Built by `make build/profile.wasm`, run by bench/profile.mjs (Node and Chromium). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../c/linear.c" /* its linear_blocks, kernel table and quantize_block, for linear_timed */
#include "forward.h"
#include "kernels.h"
#include "weights.h"

__attribute__((import_module("env"), import_name("profile_clock"))) double profile_clock(void);
static double quantize_ms; /* summed by linear_timed */

/* c/linear.c's quantize_block, its time added to quantize_ms. */
static void quantize_block_timed(const float *x, int b0, int count, int cols, int limit, int16_t *X, float *sx) {
    const double t0 = profile_clock();
    quantize_block(x, b0, count, cols, limit, X, sx);
    quantize_ms += profile_clock() - t0;
}
static const linear_kernels TIMED_KERNELS = {LINEAR_BLOCK_OF_KIND, quantize_block_timed};

/* linear_shared (c/linear.c) with the time spent quantizing the activations apart. */
static void linear_timed(const float *x, int n, int count, const qmatrix *const *w, const float *const *bias,
                         float *const *y) {
    linear_blocks(&TIMED_KERNELS, x, n, count, w, bias, y);
}

static void linear_one_timed(const float *x, int n, const qmatrix *w, const float *bias, float *y) {
    linear_timed(x, n, 1, &w, &bias, &y);
}

/* The parts, in the order of profile_part_name. */
enum {
    P_EMBED,
    P_EMBED_LN,
    P_QKV,
    P_SCORES,
    P_SOFTMAX,
    P_MIX,
    P_ATTN_OUT,
    P_RESIDUAL,
    P_LN,
    P_FFN_IN,
    P_GELU,
    P_FFN_OUT,
    P_QUANTIZE,
    P_COUNT
};
static const char *const PART_NAMES[P_COUNT] = {
    "embedding lookup",
    "embedding LayerNorm",
    "Q, K, V products",
    "attention scores (q·kᵀ)",
    "softmax",
    "attention mixing (P·V)",
    "attention output product",
    "residual adds",
    "LayerNorm",
    "FFN in product",
    "GELU",
    "FFN out product",
    "activation quantization",
};

static bert_model model;
static bert_state state;
static double part_ms[P_COUNT];

__attribute__((export_name("profile_alloc"))) void *profile_alloc(size_t bytes) {
    return aligned_alloc(16, (bytes + 15) & ~(size_t)15);
}

__attribute__((export_name("profile_load"))) int profile_load(const uint8_t *bytes, size_t size) {
    if (weights_load(bytes, size, &model) != WEIGHTS_OK) return 0;
    bert_state_init(&state, &model);
    return 1;
}

__attribute__((export_name("profile_part_count"))) int profile_part_count(void) { return P_COUNT; }
__attribute__((export_name("profile_part_name"))) const char *profile_part_name(int k) { return PART_NAMES[k]; }
__attribute__((export_name("profile_part_ms"))) double profile_part_ms(int k) { return part_ms[k]; }

/* Times `call` into part_ms[part]; a weight product's quantization goes to its own part. */
#define TIMED(part, call)                                      \
    do {                                                       \
        const double q0_ = quantize_ms, t0_ = profile_clock(); \
        call;                                                  \
        const double quantized_ = quantize_ms - q0_;           \
        part_ms[part] += profile_clock() - t0_ - quantized_;   \
        part_ms[P_QUANTIZE] += quantized_;                     \
    } while (0)

static void add_residual(float *y, const float *x, size_t count) {
    for (size_t i = 0; i < count; i++) y[i] += x[i];
}

static void embed(const int32_t *ids, int n, float *x) {
    float tmp[4096];
    TIMED(
        P_EMBED, for (int t = 0; t < n; t++) {
            float *row = x + (size_t)t * model.hidden;
            dequantize_row(&model.word_emb, ids[t], row);
            dequantize_row(&model.pos_emb, t, tmp);
            for (int i = 0; i < model.hidden; i++) row[i] += tmp[i];
            dequantize_row(&model.type_emb, 0, tmp);
            for (int i = 0; i < model.hidden; i++) row[i] += tmp[i];
        });
    TIMED(P_EMBED_LN, layer_norm(x, n, model.hidden, model.emb_ln_gamma, model.emb_ln_beta, model.ln_eps));
}

/* forward.c's encoder_layer and attend_head, each step timed. */
static void layer(int l) {
    bert_state *s = &state;
    const bert_layer *L = &model.layer[l];
    const int n = s->n, hidden = model.hidden, size = hidden / model.heads;
    const size_t count = (size_t)n * (size_t)hidden, base = hidden_index(s, l, 0);
    const float *x = s->layer_input + base;
    float *next = s->layer_input + hidden_index(s, l + 1, 0);
    float *ffn_hidden = s->scratch, *ffn_output = s->scratch + (size_t)n * (size_t)model.ffn;
    const qmatrix *qkv[3] = {&L->query, &L->key, &L->value};
    const float *qkv_bias[3] = {L->query_bias, L->key_bias, L->value_bias};
    float *qkv_out[3] = {s->query + base, s->key + base, s->value + base};
    TIMED(P_QKV, linear_timed(x, n, 3, qkv, qkv_bias, qkv_out));
    for (int h = 0; h < model.heads; h++) {
        float *probs = s->attention + attention_index(s, l, h, 0);
        const int off = h * size;
        TIMED(P_SCORES, gemm_nt(n, n, size, s->query + base + off, hidden, s->key + base + off, hidden,
                                1.0f / sqrtf((float)size), probs, n));
        TIMED(P_SOFTMAX, for (int i = 0; i < n; i++) softmax(probs + (size_t)i * n, n));
        TIMED(P_MIX, gemm_nn(n, size, n, probs, n, s->value + base + off, hidden, s->context + base + off, hidden));
    }
    TIMED(P_ATTN_OUT, linear_one_timed(s->context + base, n, &L->attn_out, L->attn_out_bias, next));
    TIMED(P_RESIDUAL, add_residual(next, x, count));
    TIMED(P_LN, layer_norm(next, n, hidden, L->attn_ln_gamma, L->attn_ln_beta, model.ln_eps));
    TIMED(P_FFN_IN, linear_one_timed(next, n, &L->ffn_in, L->ffn_in_bias, ffn_hidden));
    TIMED(P_GELU, gelu(ffn_hidden, n * model.ffn));
    TIMED(P_FFN_OUT, linear_one_timed(ffn_hidden, n, &L->ffn_out, L->ffn_out_bias, ffn_output));
    TIMED(P_RESIDUAL, add_residual(next, ffn_output, count));
    TIMED(P_LN, layer_norm(next, n, hidden, L->ffn_ln_gamma, L->ffn_ln_beta, model.ln_eps));
}

/* `runs` passes over ids[n] step by step: part_ms[k] becomes ms per pass. 0 when n is refused. */
__attribute__((export_name("profile_parts"))) int profile_parts(const int32_t *ids, int n, int runs) {
    if (bert_forward(&state, ids, NULL, n) != 0) return 0; /* buffers sized, inputs checked */
    memset(part_ms, 0, sizeof part_ms);
    for (int r = 0; r < runs; r++) {
        embed(ids, n, state.layer_input);
        for (int l = 0; l < model.layers; l++) layer(l);
    }
    for (int k = 0; k < P_COUNT; k++) part_ms[k] /= runs;
    return 1;
}

/* ms per bert_forward over `runs` passes (-1 when refused). */
__attribute__((export_name("profile_forward"))) double profile_forward(const int32_t *ids, int n, int runs) {
    const double t0 = profile_clock();
    for (int r = 0; r < runs; r++)
        if (bert_forward(&state, ids, NULL, n) != 0) return -1;
    return (profile_clock() - t0) / runs;
}
