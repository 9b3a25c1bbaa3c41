/* The weight-matrix products: y = x · dequant(w)ᵀ + bias, w int8 or int16 read in place.
 * Reading order: the arithmetic (below), the activations' quantization (quantize_block), the
 * kernels of each weight type (linear_kernel.h, included once per type), the table that picks
 * them by the tensor's kind, then linear() and linear_shared(). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels.h"
#include "simd.h"

/* ------------------------------------------------------------------ weight-matrix products
 * One kernel family for int8 and int16 weights, read in place from the weights file, one
 * float scale per row:
 *
 *   y[t][r] = sx_t · scale[r] · Σ_c X[t][c]·q[r][c] + b[r]
 *
 * X is token t's activation row quantized to int16 with its own scale (sx = max|x|/xmax,
 * X = round(x/sx)). One i32x4.dot_i16x8_s per 8 weights per token (int8 weights are widened
 * by the load, i16x8.load8x8_s), added in int32 over a chunk of `chunk` columns: a lane
 * collects chunk/4 products of magnitude ≤ xmax·qmax, and int_plan picks chunk and xmax so
 * that this stays below 2^31. The sums are exact, hence the same in the wasm, SSE2 and
 * portable builds (simd.h); each chunk's sums are converted to float and added in a fixed order. int8 weights
 * get xmax = 32767 (15-bit tokens); int16 weights of 13 bits (qmax 4095) get 13-bit tokens.
 * A row whose width is not a multiple of 8 ends in a partial step whose missing weights are 0. */
enum { QT = 4, CHUNK_MAX = 1024, XLIMIT = 32767, XMIN = 8191, LINEAR_SHARED_MAX = 4 };

/* Tokens quantized per block: 32 KB of int16, at least four tokens of up to 4096 columns. */
#ifndef ATTN_QBLOCK
#define ATTN_QBLOCK 16384
#endif

typedef struct {
    int chunk, xmax;
} int_plan;

static int padded_cols(const qmatrix *w) { return (w->cols + 7) & ~7; }

/* The largest chunk (multiple of 8 dividing the padded width, ≤ CHUNK_MAX) whose exact sums
 * leave the tokens at least XMIN, and the largest xmax (≤ XLIMIT) that keeps them exact. Any
 * matrix the loader accepts (cols ≤ 4096 = ATTN_QBLOCK / QT, 1 ≤ qmax ≤ 32767) has one:
 * chunk 8 leaves xmax ≥ 2^31 / (2·32767) > XLIMIT. */
static int_plan plan_for(const qmatrix *w) {
    const int padded = padded_cols(w);
    int_plan p = {8, XLIMIT};
    for (int chunk = padded < CHUNK_MAX ? padded : CHUNK_MAX; chunk >= 8; chunk -= 8) {
        if (padded % chunk != 0) continue;
        const int64_t xmax = (int64_t)INT32_MAX / ((int64_t)(chunk / 4) * w->qmax);
        if (xmax >= XMIN || chunk == 8) {
            p.chunk = chunk;
            p.xmax = (int)(xmax < XLIMIT ? xmax : XLIMIT);
            return p;
        }
    }
    return p;
}

/* X = round(x / sx) with sx = max|x| / limit, so |X| ≤ limit ≤ 32767; returns sx (0 for an
 * all-zero row). A NaN reads as 0, as wasm's trunc_sat gives. Columns c…c+7 (c a multiple of 8)
 * go to X[(c/8)·stride …]; the columns from cols to the next multiple of 8 are 0.
 *
 * The SIMD loop rounds as nearbyintf does (to nearest, ties to even) by adding 1.5·2²³: for
 * |v| < 2²² the sum's low mantissa bits hold round(v), read by subtracting the bits of 1.5·2²³.
 * It needs no clamp: |x| ≤ m makes |x·inv| ≤ limit·(1 + 2⁻²³) before rounding, so |X| ≤ limit.
 * When inv = limit/m is not finite (m subnormal) the scalar loop takes the row. */
static float quantize_row_int16(const float *x, int cols, int limit, int16_t *X, int stride) {
    float m = 0;
    int c = 0;
#if ATTN_SIMD
    f4 m0 = f4_splat(0), m1 = m0; /* two chains: the maximum does not depend on the order */
    for (; c + 8 <= cols; c += 8) {
        m0 = f4_max(m0, f4_abs(f4_load(x + c)));
        m1 = f4_max(m1, f4_abs(f4_load(x + c + 4)));
    }
    for (; c + 4 <= cols; c += 4) m0 = f4_max(m0, f4_abs(f4_load(x + c)));
    m0 = f4_max(m0, m1);
    for (int l = 0; l < 4; l++)
        if (f4_lane(m0, l) > m) m = f4_lane(m0, l);
#endif
    for (; c < cols; c++)
        if (fabsf(x[c]) > m) m = fabsf(x[c]);
    if (!(m > 0) || !(m <= 3.0e38f)) { /* zero (→ 0), or infinite (→ NaN, as a float product) */
        for (c = 0; c < cols; c += 8) memset(X + (size_t)(c / 8) * stride, 0, 8 * sizeof *X);
        return m > 0 ? m : 0;
    }
    const float inv = (float)limit / m;
    c = 0;
#if ATTN_SIMD
    if (inv <= 3.0e38f) {
        const f4 vinv = f4_splat(inv);
        for (; c + 8 <= cols; c += 8)
            i16x8_store(X + (size_t)(c / 8) * stride,
                        f4_round_narrow(f4_mul(f4_load(x + c), vinv), f4_mul(f4_load(x + c + 4), vinv)));
    }
#endif
    for (; c < cols; c++) {
        float v = nearbyintf(x[c] * inv);
        v = v > (float)limit ? (float)limit : (v < -(float)limit ? -(float)limit : v);
        if (v != v) v = 0; /* NaN: 0, as wasm's trunc_sat */
        X[(size_t)(c / 8) * stride + c % 8] = (int16_t)v;
    }
    for (; c % 8 != 0; c++) X[(size_t)(c / 8) * stride + c % 8] = 0;
    return m / (float)limit;
}

/* Tokens [b0, b0 + count) of x quantized into X (scale sx[t]), packed by fours: token t's
 * column c at ((t/4)·padded + c − c%8)·4 + (t%4)·8 + c%8, so that a tile reads its four tokens
 * from one pointer. Tokens up to the next multiple of QT are zero, so every tile is whole. */
static void quantize_block(const float *x, int b0, int count, int cols, int limit, int16_t *X, float *sx) {
    const int padded = (count + QT - 1) & ~(QT - 1), width = (cols + 7) & ~7;
    for (int t = 0; t < padded; t++) {
        int16_t *dst = X + (size_t)(t / QT) * QT * width + (size_t)(t % QT) * 8;
        if (t < count) {
            sx[t] = quantize_row_int16(x + (size_t)(b0 + t) * cols, cols, limit, dst, 8 * QT);
        } else {
            sx[t] = 0;
            for (int c = 0; c < cols; c += 8) memset(dst + (size_t)(c / 8) * 8 * QT, 0, 8 * sizeof *dst);
        }
    }
}

/* One step of 8 columns: the activations of the four tokens at y_at against two weight rows
 * (u, v), into the tile's accumulators a0…a3 (first row) and b0…b3 (second row). */
#define DOT_STEP(y_at, u, v)     \
    do {                         \
        i16x8 y = load_x(y_at);  \
        I4_DOT_ADD(a0, y, u);    \
        I4_DOT_ADD(b0, y, v);    \
        y = load_x((y_at) + 8);  \
        I4_DOT_ADD(a1, y, u);    \
        I4_DOT_ADD(b1, y, v);    \
        y = load_x((y_at) + 16); \
        I4_DOT_ADD(a2, y, u);    \
        I4_DOT_ADD(b2, y, v);    \
        y = load_x((y_at) + 24); \
        I4_DOT_ADD(a3, y, u);    \
        I4_DOT_ADD(b3, y, v);    \
    } while (0)

#define WEIGHT int8_t
#define LOAD_WEIGHTS load_w8
#define DOT_TILE dot_w8_x16
#define DOT_ROWS4 rows4_w8_x16
#define LINEAR_BLOCK linear_block_w8
#include "linear_kernel.h"

#define WEIGHT int16_t
#define LOAD_WEIGHTS load_w16
#define DOT_TILE dot_w16_x16
#define DOT_ROWS4 rows4_w16_x16
#define LINEAR_BLOCK linear_block_w16
#include "linear_kernel.h"

/* The kernel of each weight kind (spec.h's WEIGHTS_KIND_*), as ggml's type_traits: the loader
 * accepts matrices of these kinds only. */
typedef void linear_block_fn(const qmatrix *w, int chunk, const int16_t *X, const float *sx, int b0, int count,
                             const float *bias, float *y);
static linear_block_fn *const LINEAR_BLOCK_OF_KIND[] = {
    [WEIGHTS_KIND_INT8] = linear_block_w8,
    [WEIGHTS_KIND_INT16] = linear_block_w16,
};

/* What linear_blocks runs: the kernel of each weight kind, and the quantization of a block of
 * activations (quantize_block's signature). The engine's are below; a bench file that includes
 * this one passes its own (bench/prepacked.c a kernel, bench/profile.c a timed quantization). */
typedef void quantize_block_fn(const float *x, int b0, int count, int cols, int limit, int16_t *X, float *sx);
typedef struct {
    linear_block_fn *const *block_of_kind; /* indexed by WEIGHTS_KIND_* */
    quantize_block_fn *quantize;
} linear_kernels;
static const linear_kernels ENGINE_KERNELS = {LINEAR_BLOCK_OF_KIND, quantize_block};

/* count matrices of the same width on one input x: each block of tokens is quantized once (to
 * the smallest xmax among them), then every matrix whose output y[i] is not NULL runs on it
 * with the kernel of its kind. */
static void linear_blocks(const linear_kernels *kernels, const float *x, int n, int count, const qmatrix *const *w,
                          const float *const *bias, float *const *y) {
    const int cols = w[0]->cols, padded = padded_cols(w[0]);
    int_plan plans[LINEAR_SHARED_MAX];
    int xmax = XLIMIT;
    for (int i = 0; i < count; i++) {
        plans[i] = plan_for(w[i]);
        xmax = plans[i].xmax < xmax ? plans[i].xmax : xmax;
    }
    int16_t X[ATTN_QBLOCK] __attribute__((aligned(16)));
    float sx[ATTN_QBLOCK / 8];
    const int per_block = (ATTN_QBLOCK / padded) & ~(QT - 1); /* ≥ QT: cols ≤ ATTN_QBLOCK / QT */
    for (int b0 = 0; b0 < n; b0 += per_block) {
        const int tokens = n - b0 < per_block ? n - b0 : per_block;
        kernels->quantize(x, b0, tokens, cols, xmax, X, sx);
        for (int i = 0; i < count; i++)
            if (y[i]) kernels->block_of_kind[w[i]->kind](w[i], plans[i].chunk, X, sx, b0, tokens, bias[i], y[i]);
    }
}

/* linear_shared with `kernels`: the matrices of one width together, else one by one. */
static void linear_shared_with(const linear_kernels *kernels, const float *x, int n, int count, const qmatrix *const *w,
                               const float *const *bias, float *const *y) {
    int joint = count <= LINEAR_SHARED_MAX;
    for (int i = 1; i < count && joint; i++) joint = w[i]->cols == w[0]->cols;
    if (joint) {
        linear_blocks(kernels, x, n, count, w, bias, y);
        return;
    }
    for (int i = 0; i < count; i++)
        if (y[i]) linear_blocks(kernels, x, n, 1, &w[i], &bias[i], &y[i]);
}

void linear(const float *x, int n, const qmatrix *w, const float *bias, float *y) {
    linear_blocks(&ENGINE_KERNELS, x, n, 1, &w, &bias, &y);
}

void linear_shared(const float *x, int n, int count, const qmatrix *const *w, const float *const *bias,
                   float *const *y) {
    linear_shared_with(&ENGINE_KERNELS, x, n, count, w, bias, y);
}
