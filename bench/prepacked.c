/* A weight layout in the order a tile reads it, measured on the whole forward pass before it
 * becomes a format version (bench/README.md, "Weights stored as the tile reads them").
 *
 * Built three times by bench/prepacked.mjs from this file, which includes c/kernels.c and
 * c/linear.c:
 *   -DPREPACKED=0  the engine's kernels, int8 weights row-major as the file stores them;
 *   -DPREPACKED=1  every int8 layer matrix copied at load into the layout below, and the int8
 *                  kernel (linear_block_w8) replaced by one that reads it in place: linear()
 *                  and linear_shared() are this file's, the engine's renamed *_engine;
 *   -DPREPACKED=2  the same with the layout widened to int16 (what the widening costs).
 *
 * The layout (int8, no widening): rows in groups of 8 (the last group's missing rows repeat the
 * last row), columns padded with zeros to a multiple of 8; in a group, for each column pair p,
 * 16 bytes: rows 0…7 × columns 2p, 2p+1, i.e. byte (g·padded·8 + p·16 + k·2 + e) holds
 * q[8g + k][2p + e]. The tile loads rows 0–3 and 4–7 of a pair (i16x8.load8x8_s, 8 bytes each)
 * and the pair of activations of each of 4 tokens (v128.load32_splat): each accumulator lane is
 * one row's sum, so an accumulator is one token × four rows and no lanes are added across at
 * the end (the row-major kernel adds them: 56 shuffles, adds and conversions per 16 outputs). Each
 * lane adds every column of a chunk, so its chunk is the widest whose sums fit int32 (256 columns
 * for the 256-wide matrices, 512 of the FFN output's 1024): its sums are exact, and its outputs
 * differ from the engine's in the rounding of the float additions only. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../c/kernels.c"
#if PREPACKED
#define linear linear_engine
#define linear_shared linear_shared_engine
#endif
#include "../c/linear.c"
#if PREPACKED
#undef linear
#undef linear_shared
#endif
#include "forward.h"
#include "weights.h"

#if PREPACKED
#if defined(ATTN_SIMD_WASM)
static inline i16x8 load_x_pair(const int16_t *p) { return wasm_v128_load32_splat(p); }
#else
static inline i16x8 load_x_pair(const int16_t *p) {
    i16x8 r;
    for (int l = 0; l < 4; l++) r.v[2 * l] = p[0], r.v[2 * l + 1] = p[1];
    return r;
}
#endif

/* PREPACKED=2: the same layout widened to int16 (twice the bytes: not a format candidate, it
 * measures what the i16x8.load8x8_s widening costs). */
#if PREPACKED == 2
typedef int16_t packed_t;
#define LOAD_PACKED load_w16
#else
typedef int8_t packed_t;
#define LOAD_PACKED load_w8
#endif

/* 4 tokens (xp: [pair][token][2]) × 8 rows (pp: [pair][row][2]) over `pairs` column pairs. */
static inline void tile_pairs(const int16_t *xp, const packed_t *pp, int pairs, i4 *acc) {
    i4 a0 = i4_zero(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
    for (int k = 0; k < pairs; k++, xp += 2 * QT, pp += 16) {
        const i16x8 u = LOAD_PACKED(pp), v = LOAD_PACKED(pp + 8);
        i16x8 y = load_x_pair(xp);
        I4_DOT_ADD(a0, y, u);
        I4_DOT_ADD(b0, y, v);
        y = load_x_pair(xp + 2);
        I4_DOT_ADD(a1, y, u);
        I4_DOT_ADD(b1, y, v);
        y = load_x_pair(xp + 4);
        I4_DOT_ADD(a2, y, u);
        I4_DOT_ADD(b2, y, v);
        y = load_x_pair(xp + 6);
        I4_DOT_ADD(a3, y, u);
        I4_DOT_ADD(b3, y, v);
    }
    acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
    acc[4] = b0, acc[5] = b1, acc[6] = b2, acc[7] = b3;
}

/* y[t][r…r+3] = (Σ_chunks S · scale)·sx + bias, as the engine's linear_block_w8 stores them. */
static void store_quad(float *y, int rows, int r, const float *scale_of, const float *bias, const f4 *g,
                       const float *sx, int b0, int t0, int valid) {
    const int last = rows - 1;
    const f4 scale = f4_make(scale_of[r < last ? r : last], scale_of[r + 1 < last ? r + 1 : last],
                             scale_of[r + 2 < last ? r + 2 : last], scale_of[r + 3 < last ? r + 3 : last]);
    const int whole = r + 4 <= rows;
    const f4 b = bias && whole ? f4_load(bias + r) : f4_splat(0);
    for (int t = 0; t < valid; t++) {
        float *out = y + (size_t)(b0 + t0 + t) * rows + r;
        const f4 v = f4_mul(g[t], scale);
        if (whole) {
            f4_store(out, f4_add(f4_mul(v, f4_splat(sx[t0 + t])), b));
            continue;
        }
        for (int k = 0; r + k < rows; k++) {
            float o = f4_lane(v, k) * sx[t0 + t];
            if (bias) o += bias[r + k];
            out[k] = o;
        }
    }
}

static void block_w8_prepacked(const qmatrix *w, int chunk, const int16_t *X, const float *sx, int b0, int count,
                               const float *bias, float *y) {
    const int rows = w->rows, padded = padded_cols(w), groups = (count + QT - 1) / QT;
    int pair_chunk = chunk; /* chunk products of ≤ xmax·qmax per lane: the engine's plan gives chunk/4 */
    while (pair_chunk > 8 && !(padded % pair_chunk == 0 && (int64_t)pair_chunk * w->qmax * XLIMIT <= INT32_MAX))
        pair_chunk -= 8;
    /* The block's tokens in pair order: each group's 8-column blocks transposed as 4 × 4 pairs. */
    static int16_t XP[ATTN_QBLOCK] __attribute__((aligned(16)));
    for (int g = 0; g < groups; g++)
        for (int c = 0; c < padded; c += 8) {
            const int16_t *src = X + (size_t)g * QT * padded + (size_t)c * QT;
            int16_t *dst = XP + (size_t)g * QT * padded + (size_t)c * QT;
            for (int pair = 0; pair < 4; pair++)
                for (int t = 0; t < QT; t++) memcpy(dst + 8 * pair + 2 * t, src + 8 * t + 2 * pair, 2 * sizeof *dst);
        }
    const packed_t *q = (const packed_t *)w->q;
    for (int r = 0; r < rows; r += 8) {
        const packed_t *panel = q + (size_t)(r / 8) * padded * 8;
        for (int t0 = 0; t0 < count; t0 += QT) {
            const int16_t *xp = XP + (size_t)t0 * padded;
            f4 g[2 * QT];
            for (int k = 0; k < 2 * QT; k++) g[k] = f4_splat(0);
            for (int c = 0; c < padded; c += pair_chunk) {
                i4 acc[8];
                tile_pairs(xp + (size_t)c * QT, panel + (size_t)c * 8, pair_chunk / 2, acc);
                for (int k = 0; k < 2 * QT; k++) g[k] = f4_add(g[k], i4_float(acc[k]));
            }
            const int valid = count - t0 < QT ? count - t0 : QT;
            store_quad(y, rows, r, w->scale, bias, g, sx, b0, t0, valid);
            if (r + 4 < rows) store_quad(y, rows, r + 4, w->scale, bias, g + QT, sx, b0, t0, valid);
        }
    }
}

/* linear.c's linear_blocks with the int8 kernel above. */
static linear_block_fn *const PREPACKED_BLOCK_OF_KIND[] = {
    [WEIGHTS_KIND_INT8] = block_w8_prepacked,
    [WEIGHTS_KIND_INT16] = linear_block_w16,
};
static const linear_kernels PREPACKED_KERNELS = {PREPACKED_BLOCK_OF_KIND, quantize_block};

void linear(const float *x, int n, const qmatrix *w, const float *bias, float *y) {
    linear_blocks(&PREPACKED_KERNELS, x, n, 1, &w, &bias, &y);
}

void linear_shared(const float *x, int n, int count, const qmatrix *const *w, const float *const *bias,
                   float *const *y) {
    linear_shared_with(&PREPACKED_KERNELS, x, n, count, w, bias, y);
}

/* The layout above, in a new buffer (the weights file stays as it is). */
static int prepack(qmatrix *w) {
    if (w->bits != 8) return 1;
    const int padded = padded_cols(w), groups = (w->rows + 7) / 8;
    packed_t *out = aligned_alloc(16, ((size_t)groups * 8 * padded * sizeof *out + 15) & ~(size_t)15);
    if (!out) return 0;
    const int8_t *q = (const int8_t *)w->q;
    for (int g = 0; g < groups; g++)
        for (int p = 0; p < padded / 2; p++)
            for (int k = 0; k < 8; k++) {
                const int row = 8 * g + k < w->rows ? 8 * g + k : w->rows - 1;
                for (int e = 0; e < 2; e++) {
                    const int col = 2 * p + e;
                    out[(size_t)g * padded * 8 + (size_t)p * 16 + 2 * k + e] =
                        col < w->cols ? q[(size_t)row * w->cols + col] : 0;
                }
            }
    w->q = out;
    return 1;
}
#endif

static bert_model model;
static bert_state state;

__attribute__((export_name("bench_alloc"))) void *bench_alloc(size_t bytes) {
    return aligned_alloc(16, (bytes + 15) & ~(size_t)15);
}

/* Loads the weights; with PREPACKED, every int8 matrix of the encoder in the layout above. */
__attribute__((export_name("bench_load"))) int bench_load(const uint8_t *bytes, size_t size) {
    if (weights_load(bytes, size, &model) != WEIGHTS_OK) return 0;
#if PREPACKED
    for (int l = 0; l < model.layers; l++) {
        bert_layer *L = &model.layer[l];
        qmatrix *all[6] = {&L->query, &L->key, &L->value, &L->attn_out, &L->ffn_in, &L->ffn_out};
        for (int i = 0; i < 6; i++)
            if (!prepack(all[i])) return 0;
    }
#endif
    bert_state_init(&state, &model);
    return 1;
}

/* `runs` forward passes over ids[n]; 0 when refused. */
__attribute__((export_name("bench_forward"))) int bench_forward(const int32_t *ids, int n, int runs) {
    for (int r = 0; r < runs; r++)
        if (bert_forward(&state, ids, NULL, n) != 0) return 0;
    return 1;
}

/* The final hidden states of the last pass (n × hidden floats). */
__attribute__((export_name("bench_hidden"))) const float *bench_hidden(void) {
    return state.layer_input + hidden_index(&state, model.layers, 0);
}
