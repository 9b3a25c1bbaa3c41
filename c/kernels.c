#include "kernels.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------ four-lane vectors
 * f4 is the one vector type of this file. Under wasm SIMD128 each helper is one instruction
 * (or a short fixed sequence); the portable versions do the same arithmetic lane by lane, in
 * the same order, so both builds compute the same sums. */
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
typedef v128_t f4;
static inline f4 f4_load(const float *p) { return wasm_v128_load(p); }
static inline void f4_store(float *p, f4 v) { wasm_v128_store(p, v); }
static inline f4 f4_splat(float x) { return wasm_f32x4_splat(x); }
static inline f4 f4_make(float a, float b, float c, float d) { return wasm_f32x4_make(a, b, c, d); }
static inline f4 f4_load_splat(const float *p) { return wasm_v128_load32_splat(p); }
static inline f4 f4_add(f4 a, f4 b) { return wasm_f32x4_add(a, b); }
static inline f4 f4_sub(f4 a, f4 b) { return wasm_f32x4_sub(a, b); }
static inline f4 f4_mul(f4 a, f4 b) { return wasm_f32x4_mul(a, b); }
static inline f4 f4_max(f4 a, f4 b) { return wasm_f32x4_pmax(a, b); }
static inline float f4_lane(f4 v, int i) {
    switch (i) {
    case 0: return wasm_f32x4_extract_lane(v, 0);
    case 1: return wasm_f32x4_extract_lane(v, 1);
    case 2: return wasm_f32x4_extract_lane(v, 2);
    default: return wasm_f32x4_extract_lane(v, 3);
    }
}
/* Lane i of the result is the sum of the four lanes of the i-th argument, as (v0+v2)+(v1+v3). */
static inline f4 f4_sums(f4 a, f4 b, f4 c, f4 d) {
    const f4 ab = wasm_f32x4_add(wasm_i32x4_shuffle(a, b, 0, 4, 1, 5), wasm_i32x4_shuffle(a, b, 2, 6, 3, 7));
    const f4 cd = wasm_f32x4_add(wasm_i32x4_shuffle(c, d, 0, 4, 1, 5), wasm_i32x4_shuffle(c, d, 2, 6, 3, 7));
    return wasm_f32x4_add(wasm_i32x4_shuffle(ab, cd, 0, 1, 4, 5), wasm_i32x4_shuffle(ab, cd, 2, 3, 6, 7));
}
/* 16 int8 weights → four f4 of (float)q · scale. */
static inline void f4_dequant16(const int8_t *q, f4 scale, f4 *out) {
    const v128_t v = wasm_v128_load(q);
    const v128_t lo = wasm_i16x8_extend_low_i8x16(v), hi = wasm_i16x8_extend_high_i8x16(v);
    out[0] = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_low_i16x8(lo)), scale);
    out[1] = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_high_i16x8(lo)), scale);
    out[2] = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_low_i16x8(hi)), scale);
    out[3] = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_high_i16x8(hi)), scale);
}
#else
typedef struct { float v[4]; } f4;
static inline f4 f4_load(const float *p) { f4 r; memcpy(r.v, p, sizeof r.v); return r; }
static inline void f4_store(float *p, f4 v) { memcpy(p, v.v, sizeof v.v); }
static inline f4 f4_splat(float x) { f4 r = {{x, x, x, x}}; return r; }
static inline f4 f4_make(float a, float b, float c, float d) { f4 r = {{a, b, c, d}}; return r; }
static inline f4 f4_load_splat(const float *p) { return f4_splat(*p); }
static inline f4 f4_add(f4 a, f4 b) { for (int i = 0; i < 4; i++) a.v[i] += b.v[i]; return a; }
static inline f4 f4_sub(f4 a, f4 b) { for (int i = 0; i < 4; i++) a.v[i] -= b.v[i]; return a; }
static inline f4 f4_mul(f4 a, f4 b) { for (int i = 0; i < 4; i++) a.v[i] *= b.v[i]; return a; }
static inline f4 f4_max(f4 a, f4 b) { for (int i = 0; i < 4; i++) a.v[i] = a.v[i] < b.v[i] ? b.v[i] : a.v[i]; return a; }
static inline float f4_lane(f4 v, int i) { return v.v[i]; }
static inline float sum4(f4 v) { return (v.v[0] + v.v[2]) + (v.v[1] + v.v[3]); }
static inline f4 f4_sums(f4 a, f4 b, f4 c, f4 d) { f4 r = {{sum4(a), sum4(b), sum4(c), sum4(d)}}; return r; }
static inline void f4_dequant16(const int8_t *q, f4 scale, f4 *out) {
    for (int i = 0; i < 16; i++) out[i / 4].v[i % 4] = (float)q[i] * scale.v[0];
}
#endif

/* ------------------------------------------------------------------ exp and GELU
 * expf after Cephes: e^x = 2^n · p(r), n = ⌊x·log₂e + ½⌋, r = x − n·ln2 (in two parts), p a
 * degree-7 polynomial; relative error ~2 ulp on [−87, 88]. Inputs are clamped to that range
 * (softmax only ever passes x ≤ 0; below −87 the result ~1e-38 is as good as 0 next to 1). */
#define EXP_LO (-87.3365f)
#define EXP_HI 88.3762f
#define EXP_C1 0.693359375f
#define EXP_C2 (-2.12194440e-4f)
#define EXP_P0 1.9875691500e-4f
#define EXP_P1 1.3981999507e-3f
#define EXP_P2 8.3334519073e-3f
#define EXP_P3 4.1665795894e-2f
#define EXP_P4 1.6666665459e-1f
#define EXP_P5 5.0000001201e-1f

static inline float exp_scalar(float x) {
    x = x < EXP_LO ? EXP_LO : (x > EXP_HI ? EXP_HI : x);
    const float n = floorf(x * 1.44269504088896341f + 0.5f);
    float r = x - n * EXP_C1;
    r = r - n * EXP_C2;
    const float z = r * r;
    float y = EXP_P0;
    y = y * r + EXP_P1;
    y = y * r + EXP_P2;
    y = y * r + EXP_P3;
    y = y * r + EXP_P4;
    y = y * r + EXP_P5;
    y = y * z + r + 1.0f;
    union { uint32_t u; float f; } two = { (uint32_t)((int32_t)n + 127) << 23 };
    return y * two.f;
}

#if defined(__wasm_simd128__)
static inline f4 f4_exp(f4 x) {
    x = wasm_f32x4_pmin(wasm_f32x4_pmax(x, wasm_f32x4_splat(EXP_LO)), wasm_f32x4_splat(EXP_HI));
    const f4 n = wasm_f32x4_floor(wasm_f32x4_add(wasm_f32x4_mul(x, wasm_f32x4_splat(1.44269504088896341f)),
                                                 wasm_f32x4_splat(0.5f)));
    f4 r = wasm_f32x4_sub(x, wasm_f32x4_mul(n, wasm_f32x4_splat(EXP_C1)));
    r = wasm_f32x4_sub(r, wasm_f32x4_mul(n, wasm_f32x4_splat(EXP_C2)));
    const f4 z = wasm_f32x4_mul(r, r);
    f4 y = wasm_f32x4_splat(EXP_P0);
    y = wasm_f32x4_add(wasm_f32x4_mul(y, r), wasm_f32x4_splat(EXP_P1));
    y = wasm_f32x4_add(wasm_f32x4_mul(y, r), wasm_f32x4_splat(EXP_P2));
    y = wasm_f32x4_add(wasm_f32x4_mul(y, r), wasm_f32x4_splat(EXP_P3));
    y = wasm_f32x4_add(wasm_f32x4_mul(y, r), wasm_f32x4_splat(EXP_P4));
    y = wasm_f32x4_add(wasm_f32x4_mul(y, r), wasm_f32x4_splat(EXP_P5));
    y = wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_mul(y, z), r), wasm_f32x4_splat(1.0f));
    const v128_t two = wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(n), wasm_i32x4_splat(127)), 23);
    return wasm_f32x4_mul(y, two);
}
#else
static inline f4 f4_exp(f4 x) {
    for (int i = 0; i < 4; i++) x.v[i] = exp_scalar(x.v[i]);
    return x;
}
#endif

/* GELU(x) = x·Φ(x), written as max(x, 0) − a·Φ(−a) with a = |x| (x ≥ 0: x − x·Φ(−x); x < 0:
 * −a·Φ(x)): the subtracted term is small wherever Φ(−a) is, so rounding stays small next to |x|.
 *   Φ(−a) = 2^t · R(a), t = −a²·log₂(e)/2;
 *   2^t   = 2^n · E(f), n = t rounded (by adding and removing 1.5·2²³), f = t − n ∈ [−½, ½], E a
 *           degree-5 polynomial (relative error 7.5e-8), 2^n added to the exponent bits;
 *   R(a)  = e^{a²/2}·Φ(−a) (smooth) ≈ P(a)/Q(a), P degree 2, Q monic degree 3.
 * Coefficients from tools/fit_gelu.py (weighted least squares on the error that reaches GELU).
 * a is clamped to 5.6 for t and P (2^t stays a normal float); Q takes the unclamped a, which only
 * shrinks the term beyond 5.6 (error ≤ |x|·Φ(−5.6) ≈ 1.1e-8·|x|) and makes it 0 at ±inf.
 * Error ≤ 1.2e-7·max(1, |x|) over every float (tools/check_gelu.c, against double erfc);
 * +inf → +inf, −inf → +0, NaN → NaN. One division, no exp call, no select. The scalar version does
 * the same operations in the same order, one per statement (nothing can be fused), so it equals
 * the SIMD one bit for bit. */
#define GELU_C 5.6f                      /* clamp for |x| */
#define GELU_K (-0.7213475108146667f)    /* −log₂(e)/2 */
#define GELU_M 12582912.0f               /* 1.5·2²³: x + M − M rounds x to an integer */
#define GELU_P0 4.704497337341309f
#define GELU_P1 2.101719617843628f
#define GELU_P2 0.4043850898742676f
#define GELU_Q0 9.408966064453125f
#define GELU_Q1 11.71120548248291f
#define GELU_Q2 5.445581436157227f
#define GELU_E0 1.0000001192092896f
#define GELU_E1 0.6931469440460205f
#define GELU_E2 0.24022120237350464f
#define GELU_E3 0.05550713092088699f
#define GELU_E4 0.009675540961325169f
#define GELU_E5 0.0013276470126584172f

static inline float gelu_scalar(float x) {
    const float a = fabsf(x);
    const float ac = GELU_C < a ? GELU_C : a;  /* as wasm_f32x4_pmin(a, C) */
    const float s = ac * ac;
    const float t = s * GELU_K;
    const float k = t + GELU_M;
    const float n = k - GELU_M;
    const float f = t - n;
    float e = GELU_E5;
    e = e * f;
    e = e + GELU_E4;
    e = e * f;
    e = e + GELU_E3;
    e = e * f;
    e = e + GELU_E2;
    e = e * f;
    e = e + GELU_E1;
    e = e * f;
    e = e + GELU_E0;
    union { float f; uint32_t u; } eb = { e }, kb = { k };
    eb.u = eb.u + (kb.u << 23);  /* e·2^n: n sits in k's low mantissa bits */
    float p = GELU_P2;
    p = p * ac;
    p = p + GELU_P1;
    p = p * ac;
    p = p + GELU_P0;
    float q = a + GELU_Q2;  /* Q(a), a unclamped: see above */
    q = q * a;
    q = q + GELU_Q1;
    q = q * a;
    q = q + GELU_Q0;
    const float pe = p * eb.f;
    const float num = pe * ac;
    const float at = num / q;  /* a·Φ(−a) */
    const float relu = x < 0.0f ? 0.0f : x;  /* as wasm_f32x4_pmax(x, 0) */
    return relu - at;
}

#if defined(__wasm_simd128__)
static inline f4 f4_gelu(f4 x) {
    const v128_t c = wasm_f32x4_splat(GELU_C);
    const v128_t m = wasm_f32x4_splat(GELU_M);
    const v128_t a = wasm_f32x4_abs(x);
    const v128_t ac = wasm_f32x4_pmin(a, c);
    const v128_t s = wasm_f32x4_mul(ac, ac);
    const v128_t t = wasm_f32x4_mul(s, wasm_f32x4_splat(GELU_K));
    const v128_t k = wasm_f32x4_add(t, m);
    const v128_t f = wasm_f32x4_sub(t, wasm_f32x4_sub(k, m));
    v128_t e = wasm_f32x4_splat(GELU_E5);
    e = wasm_f32x4_add(wasm_f32x4_mul(e, f), wasm_f32x4_splat(GELU_E4));
    e = wasm_f32x4_add(wasm_f32x4_mul(e, f), wasm_f32x4_splat(GELU_E3));
    e = wasm_f32x4_add(wasm_f32x4_mul(e, f), wasm_f32x4_splat(GELU_E2));
    e = wasm_f32x4_add(wasm_f32x4_mul(e, f), wasm_f32x4_splat(GELU_E1));
    e = wasm_f32x4_add(wasm_f32x4_mul(e, f), wasm_f32x4_splat(GELU_E0));
    e = wasm_i32x4_add(e, wasm_i32x4_shl(k, 23));
    v128_t p = wasm_f32x4_splat(GELU_P2);
    p = wasm_f32x4_add(wasm_f32x4_mul(p, ac), wasm_f32x4_splat(GELU_P1));
    p = wasm_f32x4_add(wasm_f32x4_mul(p, ac), wasm_f32x4_splat(GELU_P0));
    v128_t q = wasm_f32x4_add(a, wasm_f32x4_splat(GELU_Q2));
    q = wasm_f32x4_add(wasm_f32x4_mul(q, a), wasm_f32x4_splat(GELU_Q1));
    q = wasm_f32x4_add(wasm_f32x4_mul(q, a), wasm_f32x4_splat(GELU_Q0));
    const v128_t at = wasm_f32x4_div(wasm_f32x4_mul(wasm_f32x4_mul(p, e), ac), q);
    return wasm_f32x4_sub(wasm_f32x4_pmax(x, wasm_f32x4_splat(0.0f)), at);
}
#else
static inline f4 f4_gelu(f4 x) {
    for (int i = 0; i < 4; i++) x.v[i] = gelu_scalar(x.v[i]);
    return x;
}
#endif

/* ------------------------------------------------------------------ dequantization */

static void dequantize_row_scalar(const qmatrix *w, int row, float *out) {
    const size_t first = (size_t)row * (size_t)w->cols;
    const float scale = w->scale[row];
    if (w->bits == 8) {
        const int8_t *q = (const int8_t *)w->q + first;
        for (int c = 0; c < w->cols; c++) out[c] = (float)q[c] * scale;
    } else {
        const int16_t *q = (const int16_t *)w->q + first;
        for (int c = 0; c < w->cols; c++) out[c] = (float)q[c] * scale;
    }
}

/* The same values, 16 columns at a time for int8 (cols a multiple of 16); each value is one
 * float product, rounded exactly as the scalar loop rounds it. */
void dequantize_row(const qmatrix *w, int row, float *out) {
    if (w->bits != 8 || w->cols % 16 != 0) {
        dequantize_row_scalar(w, row, out);
        return;
    }
    const int cols = w->cols;
    const int8_t *q = (const int8_t *)w->q + (size_t)row * (size_t)cols;
    const f4 scale = f4_splat(w->scale[row]);
    for (int c = 0; c < cols; c += 16) {
        f4 v[4];
        f4_dequant16(q + c, scale, v);
        for (int i = 0; i < 4; i++) f4_store(out + c + 4 * i, v[i]);
    }
}

/* ------------------------------------------------------------------ A·Bᵀ tiles
 * Dot-product form: both operands are read along their rows (k contiguous), four lanes of k
 * at a time into one accumulator per (row of A, row of B) pair; the lanes are summed at the
 * end as (l0+l2)+(l1+l3), then the k % 4 tail is added in order. */

/* out[2·t + j] = Σ_k a_t[k]·b_j[k] for t < 4, j < 2: 8 accumulators, 6 loads per 8 mul+add. */
static inline void nt_tile_4x2(const float *a, int lda, const float *b0, const float *b1, int depth,
                               float *out) {
    const float *a0 = a, *a1 = a + lda, *a2 = a + 2 * (size_t)lda, *a3 = a + 3 * (size_t)lda;
    f4 c00 = f4_splat(0), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
    int k = 0;
    for (; k + 4 <= depth; k += 4) {
        const f4 w0 = f4_load(b0 + k), w1 = f4_load(b1 + k);
        const f4 x0 = f4_load(a0 + k);
        c00 = f4_add(c00, f4_mul(x0, w0));
        c01 = f4_add(c01, f4_mul(x0, w1));
        const f4 x1 = f4_load(a1 + k);
        c10 = f4_add(c10, f4_mul(x1, w0));
        c11 = f4_add(c11, f4_mul(x1, w1));
        const f4 x2 = f4_load(a2 + k);
        c20 = f4_add(c20, f4_mul(x2, w0));
        c21 = f4_add(c21, f4_mul(x2, w1));
        const f4 x3 = f4_load(a3 + k);
        c30 = f4_add(c30, f4_mul(x3, w0));
        c31 = f4_add(c31, f4_mul(x3, w1));
    }
    f4_store(out, f4_sums(c00, c01, c10, c11));
    f4_store(out + 4, f4_sums(c20, c21, c30, c31));
    for (; k < depth; k++) {
        const float *rows[4] = {a0, a1, a2, a3};
        for (int t = 0; t < 4; t++) {
            out[2 * t] += rows[t][k] * b0[k];
            out[2 * t + 1] += rows[t][k] * b1[k];
        }
    }
}

/* out[j] = Σ_k a[k]·b_j[k] for j < 4 (one row of A left over). */
static inline void nt_tile_1x4(const float *a, const float *const *b, int depth, float *out) {
    f4 c0 = f4_splat(0), c1 = c0, c2 = c0, c3 = c0;
    int k = 0;
    for (; k + 4 <= depth; k += 4) {
        const f4 x = f4_load(a + k);
        c0 = f4_add(c0, f4_mul(x, f4_load(b[0] + k)));
        c1 = f4_add(c1, f4_mul(x, f4_load(b[1] + k)));
        c2 = f4_add(c2, f4_mul(x, f4_load(b[2] + k)));
        c3 = f4_add(c3, f4_mul(x, f4_load(b[3] + k)));
    }
    f4_store(out, f4_sums(c0, c1, c2, c3));
    for (; k < depth; k++)
        for (int j = 0; j < 4; j++) out[j] += a[k] * b[j][k];
}

void gemm_nt(int m, int n, int depth, const float *a, int lda, const float *b, int ldb, float alpha,
             float *c, int ldc) {
    float out[8];
    int i = 0;
    for (; i + 4 <= m; i += 4) {
        for (int j = 0; j < n; j += 2) {
            const int cols = n - j < 2 ? 1 : 2;
            const float *b0 = b + (size_t)j * ldb, *b1 = cols == 2 ? b0 + ldb : b0;
            nt_tile_4x2(a + (size_t)i * lda, lda, b0, b1, depth, out);
            for (int t = 0; t < 4; t++)
                for (int u = 0; u < cols; u++) c[(size_t)(i + t) * ldc + j + u] = out[2 * t + u] * alpha;
        }
    }
    for (; i < m; i++) {
        for (int j = 0; j < n; j += 4) {
            const int cols = n - j < 4 ? n - j : 4;
            const float *rows[4];
            for (int u = 0; u < 4; u++) rows[u] = b + (size_t)(j + (u < cols ? u : 0)) * ldb;
            nt_tile_1x4(a + (size_t)i * lda, rows, depth, out);
            for (int u = 0; u < cols; u++) c[(size_t)i * ldc + j + u] = out[u] * alpha;
        }
    }
}

/* ------------------------------------------------------------------ A·B tiles
 * Broadcast form: c[i][j..j+3] += a[i][k] · b[k][j..j+3], k in order, so every output is the
 * plain sequential sum over k. 4 rows × 8 columns: 8 accumulators, 4 splats + 2 loads per k. */
void gemm_nn(int m, int n, int depth, const float *a, int lda, const float *b, int ldb,
             float *c, int ldc) {
    const int n8 = n - n % 8;
    int i = 0;
    for (; i + 4 <= m; i += 4) {
        const float *a0 = a + (size_t)i * lda, *a1 = a0 + lda, *a2 = a1 + lda, *a3 = a2 + lda;
        for (int j = 0; j < n8; j += 8) {
            f4 c00 = f4_splat(0), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
            const float *bk = b + j;
            for (int k = 0; k < depth; k++, bk += ldb) {
                const f4 w0 = f4_load(bk), w1 = f4_load(bk + 4);
                f4 x = f4_load_splat(a0 + k);
                c00 = f4_add(c00, f4_mul(x, w0));
                c01 = f4_add(c01, f4_mul(x, w1));
                x = f4_load_splat(a1 + k);
                c10 = f4_add(c10, f4_mul(x, w0));
                c11 = f4_add(c11, f4_mul(x, w1));
                x = f4_load_splat(a2 + k);
                c20 = f4_add(c20, f4_mul(x, w0));
                c21 = f4_add(c21, f4_mul(x, w1));
                x = f4_load_splat(a3 + k);
                c30 = f4_add(c30, f4_mul(x, w0));
                c31 = f4_add(c31, f4_mul(x, w1));
            }
            float *y = c + (size_t)i * ldc + j;
            f4_store(y, c00), f4_store(y + 4, c01), y += ldc;
            f4_store(y, c10), f4_store(y + 4, c11), y += ldc;
            f4_store(y, c20), f4_store(y + 4, c21), y += ldc;
            f4_store(y, c30), f4_store(y + 4, c31);
        }
    }
    for (; i < m; i++) {
        const float *ai = a + (size_t)i * lda;
        for (int j = 0; j < n8; j += 8) {
            f4 c0 = f4_splat(0), c1 = c0;
            const float *bk = b + j;
            for (int k = 0; k < depth; k++, bk += ldb) {
                const f4 x = f4_load_splat(ai + k);
                c0 = f4_add(c0, f4_mul(x, f4_load(bk)));
                c1 = f4_add(c1, f4_mul(x, f4_load(bk + 4)));
            }
            f4_store(c + (size_t)i * ldc + j, c0);
            f4_store(c + (size_t)i * ldc + j + 4, c1);
        }
    }
    /* Columns beyond the last multiple of 8, in the same order. */
    for (int j = n8; j < n; j++)
        for (i = 0; i < m; i++) {
            float s = 0;
            for (int k = 0; k < depth; k++) s += a[(size_t)i * lda + k] * b[(size_t)k * ldb + j];
            c[(size_t)i * ldc + j] = s;
        }
}

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
 * that this stays below 2^31. The sums are exact, hence the same in the wasm and portable
 * builds; each chunk's sums are converted to float and added in a fixed order. int8 weights
 * get xmax = 32767 (15-bit tokens); int16 weights of 13 bits (qmax 4095) get 13-bit tokens.
 * A row whose width is not a multiple of 8 ends in a partial step whose missing weights are 0. */
enum { QT = 4, CHUNK_MAX = 1024, XLIMIT = 32767, XMIN = 8191, MATMUL_SHARED_MAX = 4 };

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
#if defined(__wasm_simd128__)
    v128_t m0 = wasm_f32x4_splat(0), m1 = m0;  /* two chains: the maximum does not depend on the order */
    for (; c + 8 <= cols; c += 8) {
        m0 = wasm_f32x4_pmax(m0, wasm_f32x4_abs(wasm_v128_load(x + c)));
        m1 = wasm_f32x4_pmax(m1, wasm_f32x4_abs(wasm_v128_load(x + c + 4)));
    }
    for (; c + 4 <= cols; c += 4) m0 = wasm_f32x4_pmax(m0, wasm_f32x4_abs(wasm_v128_load(x + c)));
    m0 = wasm_f32x4_pmax(m0, m1);
    for (int l = 0; l < 4; l++) if (f4_lane(m0, l) > m) m = f4_lane(m0, l);
#endif
    for (; c < cols; c++) if (fabsf(x[c]) > m) m = fabsf(x[c]);
    if (!(m > 0) || !(m <= 3.0e38f)) {  /* zero (→ 0), or infinite (→ NaN, as a float product) */
        for (c = 0; c < cols; c += 8) memset(X + (size_t)(c / 8) * stride, 0, 8 * sizeof *X);
        return m > 0 ? m : 0;
    }
    const float inv = (float)limit / m;
    c = 0;
#if defined(__wasm_simd128__)
    if (inv <= 3.0e38f) {
        const v128_t vinv = wasm_f32x4_splat(inv), round = wasm_f32x4_splat(12582912.0f);
        for (; c + 8 <= cols; c += 8) {
            const v128_t u = wasm_f32x4_mul(wasm_v128_load(x + c), vinv);
            const v128_t v = wasm_f32x4_mul(wasm_v128_load(x + c + 4), vinv);
            const v128_t a = wasm_v128_and(wasm_i32x4_sub(wasm_f32x4_add(u, round), round), wasm_f32x4_eq(u, u));
            const v128_t b = wasm_v128_and(wasm_i32x4_sub(wasm_f32x4_add(v, round), round), wasm_f32x4_eq(v, v));
            wasm_v128_store(X + (size_t)(c / 8) * stride, wasm_i16x8_narrow_i32x4(a, b));
        }
    }
#endif
    for (; c < cols; c++) {
        float v = nearbyintf(x[c] * inv);
        v = v > (float)limit ? (float)limit : (v < -(float)limit ? -(float)limit : v);
        if (v != v) v = 0;  /* NaN: 0, as wasm's trunc_sat */
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

#if defined(__wasm_simd128__)
typedef v128_t i4;
typedef v128_t i16x8;
static inline i4 i4_zero(void) { return wasm_i32x4_splat(0); }
static inline f4 i4_float(i4 v) { return wasm_f32x4_convert_i32x4(v); }
static inline i16x8 load_x(const int16_t *p) { return wasm_v128_load(p); }
static inline i16x8 load_w8(const int8_t *p) { return wasm_i16x8_load8x8(p); }
static inline i16x8 load_w16(const int16_t *p) { return wasm_v128_load(p); }
#define I4_DOT_ADD(acc, x, w) ((acc) = wasm_i32x4_add((acc), wasm_i32x4_dot_i16x8((x), (w))))
#else
/* Lane l of an i4 accumulates the products of columns 2l and 2l+1 of every 8: pmaddwd's layout. */
typedef struct { int32_t v[4]; } i4;
typedef struct { int16_t v[8]; } i16x8;
static inline i4 i4_zero(void) { i4 r = {{0, 0, 0, 0}}; return r; }
static inline f4 i4_float(i4 a) { f4 r; for (int l = 0; l < 4; l++) r.v[l] = (float)a.v[l]; return r; }
static inline i16x8 load_x(const int16_t *p) { i16x8 r; memcpy(r.v, p, sizeof r.v); return r; }
static inline i16x8 load_w8(const int8_t *p) { i16x8 r; for (int i = 0; i < 8; i++) r.v[i] = p[i]; return r; }
static inline i16x8 load_w16(const int16_t *p) { i16x8 r; memcpy(r.v, p, sizeof r.v); return r; }
static inline void dot_add(i4 *acc, i16x8 x, i16x8 w) {
    for (int l = 0; l < 4; l++)
        acc->v[l] += (int32_t)x.v[2 * l] * w.v[2 * l] + (int32_t)x.v[2 * l + 1] * w.v[2 * l + 1];
}
#define I4_DOT_ADD(acc, x, w) dot_add(&(acc), (x), (w))
#endif

/* The kernels of one weight type W (int8: w8, int16: w16), generated from one body.
 *
 * tile_4x2_W: two weight rows (u_row, v_row) against four tokens (packed block xp), columns
 * [c0, c0 + len): acc[0..3] get the first row's exact int32 sums per token (lanes to be added),
 * acc[4..7] the second row's. A last partial step (len % 8 columns) reads its weights through a
 * zeroed copy, never past the row.
 *
 * rows4_W: rows r…r+3 against the four tokens at xp: out[t] holds token t's scale[r]·Σ_chunks
 * (exact sums) for the four rows (lanes). Rows past the last repeat the last row (read in
 * place, never past the matrix); their lanes are not stored.
 *
 * block_W: the rows of w against one quantized block of `count` tokens (X packed, scales sx)
 * starting at token b0: y[b0 + t][r] = sx[t]·Σ … + bias[r]. */
#define DOT_STEP(y_at, u, v)                                                                   \
    do {                                                                                       \
        i16x8 y = load_x(y_at);                                                                \
        I4_DOT_ADD(a0, y, u);                                                                  \
        I4_DOT_ADD(b0, y, v);                                                                  \
        y = load_x((y_at) + 8);                                                                \
        I4_DOT_ADD(a1, y, u);                                                                  \
        I4_DOT_ADD(b1, y, v);                                                                  \
        y = load_x((y_at) + 16);                                                               \
        I4_DOT_ADD(a2, y, u);                                                                  \
        I4_DOT_ADD(b2, y, v);                                                                  \
        y = load_x((y_at) + 24);                                                               \
        I4_DOT_ADD(a3, y, u);                                                                  \
        I4_DOT_ADD(b3, y, v);                                                                  \
    } while (0)

#define DEFINE_KERNELS(W, wtype, LOAD_W)                                                       \
    static inline void tile_4x2_##W(const int16_t *xp, const wtype *u_row, const wtype *v_row, \
                                    int c0, int len, i4 *acc) {                                \
        i4 a0 = i4_zero(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;      \
        xp += (size_t)c0 * QT;                                                                 \
        const wtype *up = u_row + c0, *vp = v_row + c0;                                        \
        int c = 0;                                                                             \
        for (; c + 8 <= len; c += 8, xp += 8 * QT, up += 8, vp += 8) {                         \
            const i16x8 u = LOAD_W(up), v = LOAD_W(vp);                                        \
            DOT_STEP(xp, u, v);                                                                \
        }                                                                                      \
        if (c < len) {                                                                         \
            wtype uc[8] = {0}, vc[8] = {0};                                                    \
            memcpy(uc, up, (size_t)(len - c) * sizeof *uc);                                    \
            memcpy(vc, vp, (size_t)(len - c) * sizeof *vc);                                    \
            const i16x8 u = LOAD_W(uc), v = LOAD_W(vc);                                        \
            DOT_STEP(xp, u, v);                                                                \
        }                                                                                      \
        acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;                                    \
        acc[4] = b0, acc[5] = b1, acc[6] = b2, acc[7] = b3;                                    \
    }                                                                                          \
                                                                                               \
    static inline void rows4_##W(const qmatrix *w, int chunk, int r, const int16_t *xp, f4 *out) { \
        const int cols = w->cols, padded = padded_cols(w), last = w->rows - 1;                 \
        const wtype *q = (const wtype *)w->q;                                                  \
        int row[4];                                                                            \
        for (int k = 0; k < 4; k++) row[k] = r + k < last ? r + k : last;                      \
        const wtype *q0 = q + (size_t)row[0] * cols, *q1 = q + (size_t)row[1] * cols;          \
        const wtype *q2 = q + (size_t)row[2] * cols, *q3 = q + (size_t)row[3] * cols;          \
        f4 g0 = f4_splat(0), g1 = g0, g2 = g0, g3 = g0;                                        \
        for (int c = 0; c < padded; c += chunk) {                                              \
            const int len = cols - c < chunk ? cols - c : chunk;                               \
            i4 a[8], b[8];                                                                     \
            tile_4x2_##W(xp, q0, q1, c, len, a);                                               \
            tile_4x2_##W(xp, q2, q3, c, len, b);                                               \
            g0 = f4_add(g0, f4_sums(i4_float(a[0]), i4_float(a[4]), i4_float(b[0]), i4_float(b[4]))); \
            g1 = f4_add(g1, f4_sums(i4_float(a[1]), i4_float(a[5]), i4_float(b[1]), i4_float(b[5]))); \
            g2 = f4_add(g2, f4_sums(i4_float(a[2]), i4_float(a[6]), i4_float(b[2]), i4_float(b[6]))); \
            g3 = f4_add(g3, f4_sums(i4_float(a[3]), i4_float(a[7]), i4_float(b[3]), i4_float(b[7]))); \
        }                                                                                      \
        const float *s = w->scale;                                                             \
        const f4 scale = f4_make(s[row[0]], s[row[1]], s[row[2]], s[row[3]]);                  \
        out[0] = f4_mul(g0, scale), out[1] = f4_mul(g1, scale);                                \
        out[2] = f4_mul(g2, scale), out[3] = f4_mul(g3, scale);                                \
    }                                                                                          \
                                                                                               \
    static void block_##W(const qmatrix *w, int chunk, const int16_t *X, const float *sx, int b0, \
                          int count, const float *bias, float *y) {                            \
        const int rows = w->rows, padded = padded_cols(w);                                     \
        for (int r = 0; r < rows; r += 4) {                                                    \
            const int whole = r + 4 <= rows; /* else the last rows, stored one by one */        \
            const f4 b = bias && whole ? f4_load(bias + r) : f4_splat(0);                      \
            for (int t0 = 0; t0 < count; t0 += QT) {                                           \
                f4 p[QT];                                                                      \
                rows4_##W(w, chunk, r, X + (size_t)t0 * padded, p);                            \
                const int valid = count - t0 < QT ? count - t0 : QT;                           \
                for (int t = 0; t < valid; t++) {                                              \
                    float *out = y + (size_t)(b0 + t0 + t) * rows + r;                         \
                    if (whole) {                                                               \
                        f4_store(out, f4_add(f4_mul(p[t], f4_splat(sx[t0 + t])), b));          \
                        continue;                                                              \
                    }                                                                          \
                    for (int k = 0; r + k < rows; k++) {                                       \
                        float v = f4_lane(p[t], k) * sx[t0 + t];                               \
                        if (bias) v += bias[r + k];                                            \
                        out[k] = v;                                                            \
                    }                                                                          \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
    }

DEFINE_KERNELS(w8, int8_t, load_w8)
DEFINE_KERNELS(w16, int16_t, load_w16)

/* bench/prepacked.c includes this file with ATTN_BENCH_BLOCK_W8 naming its own kernel for int8
 * weights stored in another order (a candidate format version, measured there). */
#ifdef ATTN_BENCH_BLOCK_W8
static void ATTN_BENCH_BLOCK_W8(const qmatrix *w, int chunk, const int16_t *X, const float *sx, int b0, int count,
                                const float *bias, float *y);
#define block_w8 ATTN_BENCH_BLOCK_W8
#endif

/* Built with -DATTN_PROFILE (bench/profile.c), the time spent quantizing activations is summed
 * in attn_profile_quantize_ms by the harness's clock; otherwise QUANTIZE_TIMED is the call. */
#ifdef ATTN_PROFILE
double profile_clock(void);
double attn_profile_quantize_ms;
#define QUANTIZE_TIMED(call)                                                                   \
    do {                                                                                       \
        const double t0_ = profile_clock();                                                    \
        call;                                                                                  \
        attn_profile_quantize_ms += profile_clock() - t0_;                                     \
    } while (0)
#else
#define QUANTIZE_TIMED(call) call
#endif

/* count matrices of the same width on one input x: each block of tokens is quantized once (to
 * the smallest xmax among them), then every matrix runs on it with the kernel of its type. */
static void matmul_blocks(const float *x, int n, int count, const qmatrix *const *w,
                          const float *const *bias, float *const *y) {
    const int cols = w[0]->cols, padded = padded_cols(w[0]);
    int_plan plans[MATMUL_SHARED_MAX];
    int xmax = XLIMIT;
    for (int i = 0; i < count; i++) {
        plans[i] = plan_for(w[i]);
        xmax = plans[i].xmax < xmax ? plans[i].xmax : xmax;
    }
    int16_t X[ATTN_QBLOCK] __attribute__((aligned(16)));
    float sx[ATTN_QBLOCK / 8];
    const int per_block = (ATTN_QBLOCK / padded) & ~(QT - 1);  /* ≥ QT: cols ≤ ATTN_QBLOCK / QT */
    for (int b0 = 0; b0 < n; b0 += per_block) {
        const int tokens = n - b0 < per_block ? n - b0 : per_block;
        QUANTIZE_TIMED(quantize_block(x, b0, tokens, cols, xmax, X, sx));
        for (int i = 0; i < count; i++) {
            if (w[i]->bits == 8) block_w8(w[i], plans[i].chunk, X, sx, b0, tokens, bias[i], y[i]);
            else block_w16(w[i], plans[i].chunk, X, sx, b0, tokens, bias[i], y[i]);
        }
    }
}

void matmul_w8_or_w16(const float *x, int n, const qmatrix *w, const float *bias, float *y) {
    matmul_blocks(x, n, 1, &w, &bias, &y);
}

void matmul_w8_or_w16_shared(const float *x, int n, int count, const qmatrix *const *w,
                             const float *const *bias, float *const *y) {
    int joint = count <= MATMUL_SHARED_MAX;
    for (int i = 1; i < count && joint; i++) joint = w[i]->cols == w[0]->cols;
    if (joint) {
        matmul_blocks(x, n, count, w, bias, y);
        return;
    }
    for (int i = 0; i < count; i++) matmul_blocks(x, n, 1, &w[i], &bias[i], &y[i]);
}

/* ------------------------------------------------------------------ element-wise */

/* Σ v[0..count) on four lanes, the lanes added as (l0+l2)+(l1+l3), then the tail in order. */
static float sum_f4(const float *v, int count) {
    f4 acc = f4_splat(0);
    int i = 0;
    for (; i + 4 <= count; i += 4) acc = f4_add(acc, f4_load(v + i));
    float s = (f4_lane(acc, 0) + f4_lane(acc, 2)) + (f4_lane(acc, 1) + f4_lane(acc, 3));
    for (; i < count; i++) s += v[i];
    return s;
}

static float sum_squares_f4(const float *v, int count, float mean) {
    f4 acc = f4_splat(0);
    const f4 vm = f4_splat(mean);
    int i = 0;
    for (; i + 4 <= count; i += 4) {
        const f4 d = f4_sub(f4_load(v + i), vm);
        acc = f4_add(acc, f4_mul(d, d));
    }
    float s = (f4_lane(acc, 0) + f4_lane(acc, 2)) + (f4_lane(acc, 1) + f4_lane(acc, 3));
    for (; i < count; i++) s += (v[i] - mean) * (v[i] - mean);
    return s;
}

/* Two passes in float on four lanes (mean, then the squares about it: no cancellation). */
void layer_norm(float *x, int n, int width, const float *gamma, const float *beta, float eps) {
    for (int t = 0; t < n; t++) {
        float *v = x + (size_t)t * width;
        const float mean = sum_f4(v, width) / (float)width;
        const float var = sum_squares_f4(v, width, mean) / (float)width;
        const float inv = 1.0f / sqrtf(var + eps);
        const f4 vmean = f4_splat(mean), vinv = f4_splat(inv);
        int i = 0;
        for (; i + 4 <= width; i += 4)
            f4_store(v + i, f4_add(f4_mul(f4_mul(f4_sub(f4_load(v + i), vmean), vinv), f4_load(gamma + i)),
                                   f4_load(beta + i)));
        for (; i < width; i++) v[i] = (v[i] - mean) * inv * gamma[i] + beta[i];
    }
}

void gelu(float *x, int count) {
    int i = 0;
    for (; i + 4 <= count; i += 4) f4_store(x + i, f4_gelu(f4_load(x + i)));
    for (; i < count; i++) x[i] = gelu_scalar(x[i]);
}

void softmax(float *x, int count) {
    int i = 0;
    float max = x[0];
    if (count >= 4) {
        f4 m = f4_load(x);
        for (i = 4; i + 4 <= count; i += 4) m = f4_max(m, f4_load(x + i));
        for (int l = 0; l < 4; l++) if (f4_lane(m, l) > max) max = f4_lane(m, l);
    }
    for (; i < count; i++) if (x[i] > max) max = x[i];
    double sum = 0;
    const f4 vmax = f4_splat(max);
    for (i = 0; i + 4 <= count; i += 4) {
        const f4 e = f4_exp(f4_sub(f4_load(x + i), vmax));
        f4_store(x + i, e);
        sum += ((double)f4_lane(e, 0) + f4_lane(e, 1)) + ((double)f4_lane(e, 2) + f4_lane(e, 3));
    }
    for (; i < count; i++) {
        x[i] = exp_scalar(x[i] - max);
        sum += x[i];
    }
    const f4 inv = f4_splat((float)(1.0 / sum));
    for (i = 0; i + 4 <= count; i += 4) f4_store(x + i, f4_mul(f4_load(x + i), inv));
    for (; i < count; i++) x[i] *= f4_lane(inv, 0);
}
