#include "kernels.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "simd.h" /* f4: wasm SIMD128, SSE2 or portable, the same bits in each */

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
    union {
        uint32_t u;
        float f;
    } two = {(uint32_t)((int32_t)n + 127) << 23};
    return y * two.f;
}

static inline f4 f4_exp(f4 x) {
    x = f4_min(f4_max(x, f4_splat(EXP_LO)), f4_splat(EXP_HI));
    const f4 n = f4_floor(f4_add(f4_mul(x, f4_splat(1.44269504088896341f)), f4_splat(0.5f)));
    f4 r = f4_sub(x, f4_mul(n, f4_splat(EXP_C1)));
    r = f4_sub(r, f4_mul(n, f4_splat(EXP_C2)));
    const f4 z = f4_mul(r, r);
    f4 y = f4_splat(EXP_P0);
    y = f4_add(f4_mul(y, r), f4_splat(EXP_P1));
    y = f4_add(f4_mul(y, r), f4_splat(EXP_P2));
    y = f4_add(f4_mul(y, r), f4_splat(EXP_P3));
    y = f4_add(f4_mul(y, r), f4_splat(EXP_P4));
    y = f4_add(f4_mul(y, r), f4_splat(EXP_P5));
    y = f4_add(f4_add(f4_mul(y, z), r), f4_splat(1.0f));
    return f4_mul(y, f4_pow2(n));
}

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
#define GELU_C 5.6f                   /* clamp for |x| */
#define GELU_K (-0.7213475108146667f) /* −log₂(e)/2 */
#define GELU_M 12582912.0f            /* 1.5·2²³: x + M − M rounds x to an integer */
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
    const float ac = GELU_C < a ? GELU_C : a; /* as wasm_f32x4_pmin(a, C) */
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
    union {
        float f;
        uint32_t u;
    } eb = {e}, kb = {k};
    eb.u = eb.u + (kb.u << 23); /* e·2^n: n sits in k's low mantissa bits */
    float p = GELU_P2;
    p = p * ac;
    p = p + GELU_P1;
    p = p * ac;
    p = p + GELU_P0;
    float q = a + GELU_Q2; /* Q(a), a unclamped: see above */
    q = q * a;
    q = q + GELU_Q1;
    q = q * a;
    q = q + GELU_Q0;
    const float pe = p * eb.f;
    const float num = pe * ac;
    const float at = num / q;               /* a·Φ(−a) */
    const float relu = x < 0.0f ? 0.0f : x; /* as wasm_f32x4_pmax(x, 0) */
    return relu - at;
}

static inline f4 f4_gelu(f4 x) {
    const f4 m = f4_splat(GELU_M);
    const f4 a = f4_abs(x);
    const f4 ac = f4_min(a, f4_splat(GELU_C));
    const f4 t = f4_mul(f4_mul(ac, ac), f4_splat(GELU_K));
    const f4 k = f4_add(t, m);
    const f4 f = f4_sub(t, f4_sub(k, m));
    f4 e = f4_splat(GELU_E5);
    e = f4_add(f4_mul(e, f), f4_splat(GELU_E4));
    e = f4_add(f4_mul(e, f), f4_splat(GELU_E3));
    e = f4_add(f4_mul(e, f), f4_splat(GELU_E2));
    e = f4_add(f4_mul(e, f), f4_splat(GELU_E1));
    e = f4_add(f4_mul(e, f), f4_splat(GELU_E0));
    e = f4_add_exponent(e, k);
    f4 p = f4_splat(GELU_P2);
    p = f4_add(f4_mul(p, ac), f4_splat(GELU_P1));
    p = f4_add(f4_mul(p, ac), f4_splat(GELU_P0));
    f4 q = f4_add(a, f4_splat(GELU_Q2));
    q = f4_add(f4_mul(q, a), f4_splat(GELU_Q1));
    q = f4_add(f4_mul(q, a), f4_splat(GELU_Q0));
    const f4 at = f4_div(f4_mul(f4_mul(p, e), ac), q);
    return f4_sub(f4_max(x, f4_splat(0.0f)), at);
}

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
static inline void nt_tile_4x2(const float *a, int lda, const float *b0, const float *b1, int depth, float *out) {
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

void gemm_nt(int m, int n, int depth, const float *a, int lda, const float *b, int ldb, float alpha, float *c,
             int ldc) {
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
void gemm_nn(int m, int n, int depth, const float *a, int lda, const float *b, int ldb, float *c, int ldc) {
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

/* The largest of count ≥ 1 values, on four lanes (a maximum does not depend on the order). */
float max_value(const float *x, int count) {
    int i = 0;
    float max = x[0];
    if (count >= 4) {
        f4 m = f4_load(x);
        for (i = 4; i + 4 <= count; i += 4) m = f4_max(m, f4_load(x + i));
        for (int l = 0; l < 4; l++)
            if (f4_lane(m, l) > max) max = f4_lane(m, l);
    }
    for (; i < count; i++)
        if (x[i] > max) max = x[i];
    return max;
}

int first_max_index(const float *x, int count) {
    const float max = max_value(x, count);
    for (int i = 0; i < count; i++)
        if (x[i] == max) return i;
    return 0;
}

/* Σ e^(x − max) over count values, accumulated in double; with `out`, each e^(x − max) is stored
 * there (out may be x). */
static double exp_sum(const float *x, int count, float max, float *out) {
    int i;
    double sum = 0;
    const f4 vmax = f4_splat(max);
    for (i = 0; i + 4 <= count; i += 4) {
        const f4 e = f4_exp(f4_sub(f4_load(x + i), vmax));
        if (out) f4_store(out + i, e);
        sum += ((double)f4_lane(e, 0) + f4_lane(e, 1)) + ((double)f4_lane(e, 2) + f4_lane(e, 3));
    }
    for (; i < count; i++) {
        const float e = exp_scalar(x[i] - max);
        if (out) out[i] = e;
        sum += e;
    }
    return sum;
}

void softmax(float *x, int count) {
    int i;
    const double sum = exp_sum(x, count, max_value(x, count), x);
    const f4 inv = f4_splat((float)(1.0 / sum));
    for (i = 0; i + 4 <= count; i += 4) f4_store(x + i, f4_mul(f4_load(x + i), inv));
    for (; i < count; i++) x[i] *= f4_lane(inv, 0);
}

void log_softmax(float *x, int count) {
    int i;
    const float max = max_value(x, count);
    const f4 log_sum = f4_splat((float)(max + log(exp_sum(x, count, max, NULL))));
    for (i = 0; i + 4 <= count; i += 4) f4_store(x + i, f4_sub(f4_load(x + i), log_sum));
    for (; i < count; i++) x[i] -= f4_lane(log_sum, 0);
}
