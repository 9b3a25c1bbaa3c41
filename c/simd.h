/* The vector layer of the kernels (kernels.c, linear.c): a four-lane float vector f4, a
 * four-lane int32 accumulator i4 and an eight-lane int16 vector i16x8, in three versions that
 * do the same arithmetic in the same order, so every build computes the same bits:
 *
 *   wasm SIMD128   (emcc -msimd128: __wasm_simd128__)  each helper one instruction or a short
 *                  fixed sequence;
 *   SSE2           (__SSE2__: every x86-64 compiler)   the same operations; i32x4.dot_i16x8_s
 *                  is _mm_madd_epi16 (the same exact integer dot), pmax/pmin are maxps/minps
 *                  with the operands swapped (the same result for NaN and ±0);
 *   NEON           (arm64)                              the dot is two widening multiplies and
 *                  a pairwise add (exact), pmax/pmin a compare and a select;
 *   portable       (other targets, or -DATTN_SCALAR)   plain structs, lane by lane.
 *
 * ATTN_SIMD is 1 in the first two, for the few loops that have no portable vector form. */
#ifndef ATTN_SIMD_H
#define ATTN_SIMD_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__wasm_simd128__) && !defined(ATTN_SCALAR)
#define ATTN_SIMD_WASM 1
#define ATTN_SIMD 1
#elif defined(__SSE2__) && !defined(ATTN_SCALAR)
#define ATTN_SIMD_SSE2 1
#define ATTN_SIMD 1
#elif defined(__aarch64__) && defined(__ARM_NEON) && !defined(ATTN_SCALAR)
#define ATTN_SIMD_NEON 1
#define ATTN_SIMD 1
#else
#define ATTN_SIMD 0
#endif

/* ------------------------------------------------------------------ wasm SIMD128 */
#if defined(ATTN_SIMD_WASM)
#include <wasm_simd128.h>
typedef v128_t f4;
typedef v128_t i4;
typedef v128_t i16x8;
static inline f4 f4_load(const float *p) { return wasm_v128_load(p); }
static inline void f4_store(float *p, f4 v) { wasm_v128_store(p, v); }
static inline f4 f4_splat(float x) { return wasm_f32x4_splat(x); }
static inline f4 f4_make(float a, float b, float c, float d) { return wasm_f32x4_make(a, b, c, d); }
static inline f4 f4_load_splat(const float *p) { return wasm_v128_load32_splat(p); }
static inline f4 f4_add(f4 a, f4 b) { return wasm_f32x4_add(a, b); }
static inline f4 f4_sub(f4 a, f4 b) { return wasm_f32x4_sub(a, b); }
static inline f4 f4_mul(f4 a, f4 b) { return wasm_f32x4_mul(a, b); }
static inline f4 f4_div(f4 a, f4 b) { return wasm_f32x4_div(a, b); }
/* a < b ? b : a, and a > b ? b : a (NaN in a stays; in b it is ignored) */
static inline f4 f4_max(f4 a, f4 b) { return wasm_f32x4_pmax(a, b); }
static inline f4 f4_min(f4 a, f4 b) { return wasm_f32x4_pmin(a, b); }
static inline f4 f4_abs(f4 a) { return wasm_f32x4_abs(a); }
static inline f4 f4_floor(f4 a) { return wasm_f32x4_floor(a); }
/* 2^n for integral n in [−126, 127]: (n + 127) << 23 as float bits */
static inline f4 f4_pow2(f4 n) {
    return wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(n), wasm_i32x4_splat(127)), 23);
}
/* the bits of e plus the bits of k shifted left by 23 (an integer held in k's low mantissa bits
 * added to e's exponent) */
static inline f4 f4_add_exponent(f4 e, f4 k) { return wasm_i32x4_add(e, wasm_i32x4_shl(k, 23)); }
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
/* round(u), round(v) (to nearest, ties to even, |·| < 2²²; NaN → 0), narrowed to 8 int16. */
static inline i16x8 f4_round_narrow(f4 u, f4 v) {
    const v128_t round = wasm_f32x4_splat(12582912.0f);
    const v128_t a = wasm_v128_and(wasm_i32x4_sub(wasm_f32x4_add(u, round), round), wasm_f32x4_eq(u, u));
    const v128_t b = wasm_v128_and(wasm_i32x4_sub(wasm_f32x4_add(v, round), round), wasm_f32x4_eq(v, v));
    return wasm_i16x8_narrow_i32x4(a, b);
}
static inline void i16x8_store(int16_t *p, i16x8 v) { wasm_v128_store(p, v); }
static inline i4 i4_zero(void) { return wasm_i32x4_splat(0); }
static inline f4 i4_float(i4 v) { return wasm_f32x4_convert_i32x4(v); }
static inline i16x8 load_x(const int16_t *p) { return wasm_v128_load(p); }
static inline i16x8 load_w8(const int8_t *p) { return wasm_i16x8_load8x8(p); }
static inline i16x8 load_w16(const int16_t *p) { return wasm_v128_load(p); }
/* acc lane l += x[2l]·w[2l] + x[2l+1]·w[2l+1], exactly */
#define I4_DOT_ADD(acc, x, w) ((acc) = wasm_i32x4_add((acc), wasm_i32x4_dot_i16x8((x), (w))))

/* ------------------------------------------------------------------ SSE2 */
#elif defined(ATTN_SIMD_SSE2)
#include <emmintrin.h>
typedef __m128 f4;
typedef __m128i i4;
typedef __m128i i16x8;
static inline f4 f4_load(const float *p) { return _mm_loadu_ps(p); }
static inline void f4_store(float *p, f4 v) { _mm_storeu_ps(p, v); }
static inline f4 f4_splat(float x) { return _mm_set1_ps(x); }
static inline f4 f4_make(float a, float b, float c, float d) { return _mm_setr_ps(a, b, c, d); }
static inline f4 f4_load_splat(const float *p) { return _mm_set1_ps(*p); }
static inline f4 f4_add(f4 a, f4 b) { return _mm_add_ps(a, b); }
static inline f4 f4_sub(f4 a, f4 b) { return _mm_sub_ps(a, b); }
static inline f4 f4_mul(f4 a, f4 b) { return _mm_mul_ps(a, b); }
static inline f4 f4_div(f4 a, f4 b) { return _mm_div_ps(a, b); }
/* maxps(b, a) = b > a ? b : a, which is pmax(a, b) = a < b ? b : a; minps likewise */
static inline f4 f4_max(f4 a, f4 b) { return _mm_max_ps(b, a); }
static inline f4 f4_min(f4 a, f4 b) { return _mm_min_ps(b, a); }
static inline f4 f4_abs(f4 a) { return _mm_and_ps(a, _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff))); }
/* floor for |a| < 2³¹ (the kernels pass |a| ≤ 128): truncate, then one less where that rose */
static inline f4 f4_floor(f4 a) {
    const f4 t = _mm_cvtepi32_ps(_mm_cvttps_epi32(a));
    return _mm_sub_ps(t, _mm_and_ps(_mm_cmpgt_ps(t, a), _mm_set1_ps(1.0f)));
}
static inline f4 f4_pow2(f4 n) {
    return _mm_castsi128_ps(_mm_slli_epi32(_mm_add_epi32(_mm_cvttps_epi32(n), _mm_set1_epi32(127)), 23));
}
static inline f4 f4_add_exponent(f4 e, f4 k) {
    return _mm_castsi128_ps(_mm_add_epi32(_mm_castps_si128(e), _mm_slli_epi32(_mm_castps_si128(k), 23)));
}
static inline float f4_lane(f4 v, int i) {
    float lanes[4];
    _mm_storeu_ps(lanes, v);
    return lanes[i & 3];
}
static inline f4 f4_sums(f4 a, f4 b, f4 c, f4 d) {
    const f4 ab = _mm_add_ps(_mm_unpacklo_ps(a, b), _mm_unpackhi_ps(a, b)); /* a0+a2 b0+b2 a1+a3 b1+b3 */
    const f4 cd = _mm_add_ps(_mm_unpacklo_ps(c, d), _mm_unpackhi_ps(c, d));
    return _mm_add_ps(_mm_movelh_ps(ab, cd), _mm_movehl_ps(cd, ab));
}
/* int8 → int16 → int32 by unpacking each value with itself and shifting it back arithmetically */
static inline void f4_dequant16(const int8_t *q, f4 scale, f4 *out) {
    const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)q);
    const __m128i lo = _mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8), hi = _mm_srai_epi16(_mm_unpackhi_epi8(v, v), 8);
    out[0] = _mm_mul_ps(_mm_cvtepi32_ps(_mm_srai_epi32(_mm_unpacklo_epi16(lo, lo), 16)), scale);
    out[1] = _mm_mul_ps(_mm_cvtepi32_ps(_mm_srai_epi32(_mm_unpackhi_epi16(lo, lo), 16)), scale);
    out[2] = _mm_mul_ps(_mm_cvtepi32_ps(_mm_srai_epi32(_mm_unpacklo_epi16(hi, hi), 16)), scale);
    out[3] = _mm_mul_ps(_mm_cvtepi32_ps(_mm_srai_epi32(_mm_unpackhi_epi16(hi, hi), 16)), scale);
}
static inline i16x8 f4_round_narrow(f4 u, f4 v) {
    const f4 round = _mm_set1_ps(12582912.0f);
    const __m128i r = _mm_castps_si128(round);
    const __m128i a =
        _mm_and_si128(_mm_sub_epi32(_mm_castps_si128(_mm_add_ps(u, round)), r), _mm_castps_si128(_mm_cmpeq_ps(u, u)));
    const __m128i b =
        _mm_and_si128(_mm_sub_epi32(_mm_castps_si128(_mm_add_ps(v, round)), r), _mm_castps_si128(_mm_cmpeq_ps(v, v)));
    return _mm_packs_epi32(a, b);
}
static inline void i16x8_store(int16_t *p, i16x8 v) { _mm_storeu_si128((__m128i *)(void *)p, v); }
static inline i4 i4_zero(void) { return _mm_setzero_si128(); }
static inline f4 i4_float(i4 v) { return _mm_cvtepi32_ps(v); }
static inline i16x8 load_x(const int16_t *p) { return _mm_loadu_si128((const __m128i *)(const void *)p); }
static inline i16x8 load_w8(const int8_t *p) {
    const __m128i v = _mm_loadl_epi64((const __m128i *)(const void *)p);
    return _mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8);
}
static inline i16x8 load_w16(const int16_t *p) { return _mm_loadu_si128((const __m128i *)(const void *)p); }
#define I4_DOT_ADD(acc, x, w) ((acc) = _mm_add_epi32((acc), _mm_madd_epi16((x), (w))))

/* ------------------------------------------------------------------ NEON (arm64) */
#elif defined(ATTN_SIMD_NEON)
#include <arm_neon.h>
typedef float32x4_t f4;
typedef int32x4_t i4;
typedef int16x8_t i16x8;
static inline f4 f4_load(const float *p) { return vld1q_f32(p); }
static inline void f4_store(float *p, f4 v) { vst1q_f32(p, v); }
static inline f4 f4_splat(float x) { return vdupq_n_f32(x); }
static inline f4 f4_make(float a, float b, float c, float d) {
    const float lanes[4] = {a, b, c, d};
    return vld1q_f32(lanes);
}
static inline f4 f4_load_splat(const float *p) { return vld1q_dup_f32(p); }
static inline f4 f4_add(f4 a, f4 b) { return vaddq_f32(a, b); }
static inline f4 f4_sub(f4 a, f4 b) { return vsubq_f32(a, b); }
static inline f4 f4_mul(f4 a, f4 b) { return vmulq_f32(a, b); }
static inline f4 f4_div(f4 a, f4 b) { return vdivq_f32(a, b); }
static inline f4 f4_max(f4 a, f4 b) { return vbslq_f32(vcltq_f32(a, b), b, a); }
static inline f4 f4_min(f4 a, f4 b) { return vbslq_f32(vcltq_f32(b, a), b, a); }
static inline f4 f4_abs(f4 a) { return vabsq_f32(a); }
static inline f4 f4_floor(f4 a) { return vrndmq_f32(a); }
static inline f4 f4_pow2(f4 n) {
    return vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127)), 23));
}
static inline f4 f4_add_exponent(f4 e, f4 k) {
    return vreinterpretq_f32_s32(vaddq_s32(vreinterpretq_s32_f32(e), vshlq_n_s32(vreinterpretq_s32_f32(k), 23)));
}
static inline float f4_lane(f4 v, int i) {
    switch (i) {
    case 0: return vgetq_lane_f32(v, 0);
    case 1: return vgetq_lane_f32(v, 1);
    case 2: return vgetq_lane_f32(v, 2);
    default: return vgetq_lane_f32(v, 3);
    }
}
static inline f4 f4_sums(f4 a, f4 b, f4 c, f4 d) {
    const f4 ab = vaddq_f32(vzip1q_f32(a, b), vzip2q_f32(a, b)); /* a0+a2 b0+b2 a1+a3 b1+b3 */
    const f4 cd = vaddq_f32(vzip1q_f32(c, d), vzip2q_f32(c, d));
    return vaddq_f32(vcombine_f32(vget_low_f32(ab), vget_low_f32(cd)),
                     vcombine_f32(vget_high_f32(ab), vget_high_f32(cd)));
}
static inline void f4_dequant16(const int8_t *q, f4 scale, f4 *out) {
    const int8x16_t v = vld1q_s8(q);
    const int16x8_t lo = vmovl_s8(vget_low_s8(v)), hi = vmovl_high_s8(v);
    out[0] = vmulq_f32(vcvtq_f32_s32(vmovl_s16(vget_low_s16(lo))), scale);
    out[1] = vmulq_f32(vcvtq_f32_s32(vmovl_high_s16(lo)), scale);
    out[2] = vmulq_f32(vcvtq_f32_s32(vmovl_s16(vget_low_s16(hi))), scale);
    out[3] = vmulq_f32(vcvtq_f32_s32(vmovl_high_s16(hi)), scale);
}
static inline i16x8 f4_round_narrow(f4 u, f4 v) {
    const f4 round = vdupq_n_f32(12582912.0f);
    const int32x4_t r = vreinterpretq_s32_f32(round);
    const int32x4_t a =
        vandq_s32(vsubq_s32(vreinterpretq_s32_f32(vaddq_f32(u, round)), r), vreinterpretq_s32_u32(vceqq_f32(u, u)));
    const int32x4_t b =
        vandq_s32(vsubq_s32(vreinterpretq_s32_f32(vaddq_f32(v, round)), r), vreinterpretq_s32_u32(vceqq_f32(v, v)));
    return vcombine_s16(vqmovn_s32(a), vqmovn_s32(b));
}
static inline void i16x8_store(int16_t *p, i16x8 v) { vst1q_s16(p, v); }
static inline i4 i4_zero(void) { return vdupq_n_s32(0); }
static inline f4 i4_float(i4 v) { return vcvtq_f32_s32(v); }
static inline i16x8 load_x(const int16_t *p) { return vld1q_s16(p); }
static inline i16x8 load_w8(const int8_t *p) { return vmovl_s8(vld1_s8(p)); }
static inline i16x8 load_w16(const int16_t *p) { return vld1q_s16(p); }
/* products of lanes 0–3 and 4–7 widened to int32, then adjacent pairs added: pmaddwd's layout */
#define I4_DOT_ADD(acc, x, w) \
    ((acc) = vaddq_s32((acc), vpaddq_s32(vmull_s16(vget_low_s16(x), vget_low_s16(w)), vmull_high_s16((x), (w)))))

/* ------------------------------------------------------------------ portable */
#else
typedef struct {
    float v[4];
} f4;
/* Lane l of an i4 accumulates the products of columns 2l and 2l+1 of every 8: pmaddwd's layout. */
typedef struct {
    int32_t v[4];
} i4;
typedef struct {
    int16_t v[8];
} i16x8;
static inline f4 f4_load(const float *p) {
    f4 r;
    memcpy(r.v, p, sizeof r.v);
    return r;
}
static inline void f4_store(float *p, f4 v) { memcpy(p, v.v, sizeof v.v); }
static inline f4 f4_splat(float x) {
    f4 r = {{x, x, x, x}};
    return r;
}
static inline f4 f4_make(float a, float b, float c, float d) {
    f4 r = {{a, b, c, d}};
    return r;
}
static inline f4 f4_load_splat(const float *p) { return f4_splat(*p); }
static inline f4 f4_add(f4 a, f4 b) {
    for (int i = 0; i < 4; i++) a.v[i] += b.v[i];
    return a;
}
static inline f4 f4_sub(f4 a, f4 b) {
    for (int i = 0; i < 4; i++) a.v[i] -= b.v[i];
    return a;
}
static inline f4 f4_mul(f4 a, f4 b) {
    for (int i = 0; i < 4; i++) a.v[i] *= b.v[i];
    return a;
}
static inline f4 f4_div(f4 a, f4 b) {
    for (int i = 0; i < 4; i++) a.v[i] /= b.v[i];
    return a;
}
static inline f4 f4_max(f4 a, f4 b) {
    for (int i = 0; i < 4; i++) a.v[i] = a.v[i] < b.v[i] ? b.v[i] : a.v[i];
    return a;
}
static inline f4 f4_min(f4 a, f4 b) {
    for (int i = 0; i < 4; i++) a.v[i] = b.v[i] < a.v[i] ? b.v[i] : a.v[i];
    return a;
}
static inline f4 f4_abs(f4 a) {
    for (int i = 0; i < 4; i++) a.v[i] = fabsf(a.v[i]);
    return a;
}
static inline f4 f4_floor(f4 a) {
    for (int i = 0; i < 4; i++) a.v[i] = floorf(a.v[i]);
    return a;
}
static inline f4 f4_pow2(f4 n) {
    for (int i = 0; i < 4; i++) {
        const uint32_t bits = (uint32_t)((int32_t)n.v[i] + 127) << 23;
        memcpy(&n.v[i], &bits, sizeof bits);
    }
    return n;
}
static inline f4 f4_add_exponent(f4 e, f4 k) {
    for (int i = 0; i < 4; i++) {
        uint32_t eb, kb;
        memcpy(&eb, &e.v[i], sizeof eb);
        memcpy(&kb, &k.v[i], sizeof kb);
        eb += kb << 23;
        memcpy(&e.v[i], &eb, sizeof eb);
    }
    return e;
}
static inline float f4_lane(f4 v, int i) { return v.v[i]; }
static inline float sum4(f4 v) { return (v.v[0] + v.v[2]) + (v.v[1] + v.v[3]); }
static inline f4 f4_sums(f4 a, f4 b, f4 c, f4 d) {
    f4 r = {{sum4(a), sum4(b), sum4(c), sum4(d)}};
    return r;
}
static inline void f4_dequant16(const int8_t *q, f4 scale, f4 *out) {
    for (int i = 0; i < 16; i++) out[i / 4].v[i % 4] = (float)q[i] * scale.v[0];
}
static inline i4 i4_zero(void) {
    i4 r = {{0, 0, 0, 0}};
    return r;
}
static inline f4 i4_float(i4 a) {
    f4 r;
    for (int l = 0; l < 4; l++) r.v[l] = (float)a.v[l];
    return r;
}
static inline i16x8 load_x(const int16_t *p) {
    i16x8 r;
    memcpy(r.v, p, sizeof r.v);
    return r;
}
static inline i16x8 load_w8(const int8_t *p) {
    i16x8 r;
    for (int i = 0; i < 8; i++) r.v[i] = p[i];
    return r;
}
static inline i16x8 load_w16(const int16_t *p) {
    i16x8 r;
    memcpy(r.v, p, sizeof r.v);
    return r;
}
static inline void dot_add(i4 *acc, i16x8 x, i16x8 w) {
    for (int l = 0; l < 4; l++)
        acc->v[l] += (int32_t)x.v[2 * l] * w.v[2 * l] + (int32_t)x.v[2 * l + 1] * w.v[2 * l + 1];
}
#define I4_DOT_ADD(acc, x, w) dot_add(&(acc), (x), (w))
#endif

#endif
