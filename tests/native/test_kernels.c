/* The int8 matrix products (c/kernels.c) against a double-precision reference, on shapes the
 * model never has: rows not a multiple of 4 (and odd), token counts not a multiple of 4 and
 * larger than one quantized block, groups smaller than a row, every residual ratio, the most
 * extreme int8 planes, zero and aliased inputs. Built natively (portable code) and with emcc
 * (wasm SIMD128, run by tests/kernels.test.mjs): both must pass.
 *
 *   build/san/test_kernels        prints "kernels: N passed, M failed", exits 1 on a failure
 *
 * Also GELU against a double-precision erfc.
 *
 * The bound: each token's activations are rounded to int16 with their own scale sx (error ≤
 * sx/2 per value), so |y − y_exact| ≤ Σ_c |w_c|·sx/2, plus float rounding (a few ulp of
 * Σ|w·x|). The two-plane paths (no int16 weights) must meet the same bound. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

static int passed, failed;

static void check(int ok, const char *what, int rows, int cols, int group, int ratio, int n) {
    if (ok) {
        passed++;
        return;
    }
    failed++;
    printf("FAIL: %s (rows %d, cols %d, group %d, ratio %d, n %d)\n", what, rows, cols, group, ratio, n);
}

static uint32_t rng = 12345;
static uint32_t next(void) {
    rng = rng * 1664525u + 1013904223u;
    return rng >> 8;
}
static float uniform(float lo, float hi) { return lo + (hi - lo) * (float)(next() & 0xffff) / 65535.0f; }

typedef struct {
    qmatrix w;
    int8_t *q, *q2;
    float *scale, *scale2;
    int16_t *q16;
} test_matrix;

/* Planes: "random" (q in ±127, q2 in ±ratio/2, as the converter writes), or "extreme" (every
 * q and q2 at ±127 or −128, which the loader accepts whatever the ratio). */
static void make_matrix(test_matrix *m, int rows, int cols, int group, int ratio, int extreme) {
    const size_t count = (size_t)rows * cols, groups = count / group;
    m->q = malloc(count);
    m->q2 = malloc(count);
    m->scale = malloc(groups * sizeof(float));
    m->scale2 = malloc(groups * sizeof(float));
    for (size_t i = 0; i < count; i++) {
        if (extreme) {
            m->q[i] = (int8_t)((next() & 1) ? 127 : -128);
            m->q2[i] = (int8_t)((next() & 1) ? 127 : -128);
        } else {
            m->q[i] = (int8_t)((int)(next() % 255) - 127);
            m->q2[i] = (int8_t)((int)(next() % (unsigned)(ratio + 1)) - ratio / 2);
        }
    }
    for (size_t g = 0; g < groups; g++) {
        m->scale2[g] = ldexpf((float)(1 + next() % 4096), -20);
        m->scale[g] = m->scale2[g] * (float)ratio;
    }
    memset(&m->w, 0, sizeof m->w);
    m->w.q = m->q, m->w.q2 = m->q2, m->w.scale = m->scale, m->w.scale2 = m->scale2;
    m->w.rows = rows, m->w.cols = cols, m->w.group = group;
    m->q16 = NULL;
}

static void free_matrix(test_matrix *m) {
    free(m->q), free(m->q2), free(m->scale), free(m->scale2), free(m->q16);
}

static double weight(const qmatrix *w, int r, int c) {
    const size_t i = (size_t)r * w->cols + c, g = (size_t)r * (w->cols / w->group) + c / w->group;
    return (double)w->q[i] * w->scale[g] + (double)w->q2[i] * w->scale2[g];
}

/* y from matmul_q8_residual against the exact sum, within the bound above. */
static int within_bound(const qmatrix *w, const float *x, int n, const float *bias, const float *residual,
                        const float *y) {
    for (int t = 0; t < n; t++) {
        const float *xt = x + (size_t)t * w->cols;
        double amax = 0;
        for (int c = 0; c < w->cols; c++) amax = fmax(amax, fabs(xt[c]));
        for (int r = 0; r < w->rows; r++) {
            double exact = 0, abs_w = 0, abs_wx = 0;
            for (int c = 0; c < w->cols; c++) {
                const double v = weight(w, r, c);
                exact += v * xt[c];
                abs_w += fabs(v);
                abs_wx += fabs(v * xt[c]);
            }
            if (bias) exact += bias[r];
            if (residual) exact += residual[(size_t)t * w->rows + r];
            /* int16 rounding (sx ≤ amax/1027 on the int16 path, amax/32767 on the two-plane one) */
            const double bound = abs_w * amax / 1027.0 / 2.0 + 1e-5 * (abs_wx + fabs(exact)) + 1e-30;
            const double got = y[(size_t)t * w->rows + r];
            if (!(fabs(got - exact) <= bound)) return 0;
        }
    }
    return 1;
}

static void run_case(int rows, int cols, int group, int ratio, int n, int extreme) {
    test_matrix m;
    make_matrix(&m, rows, cols, group, ratio, extreme);
    const size_t need = q16_count(&m.w);
    check(need == (size_t)(rows + 3) / 4 * 4 * cols, "q16_count accepts an exact integer ratio", rows, cols, group, ratio, n);
    if (need) {
        m.q16 = malloc(need * sizeof *m.q16);
        q16_fill(&m.w, m.q16);
        check(m.w.q16_xmax >= 1 && m.w.q16_xmax <= 32767 && m.w.q16_chunk % 8 == 0 && group % m.w.q16_chunk == 0,
              "q16_fill picks a chunk and an activation limit", rows, cols, group, ratio, n);
    }
    float *x = malloc((size_t)n * cols * sizeof *x), *bias = malloc((size_t)rows * sizeof *bias);
    float *res = malloc((size_t)n * rows * sizeof *res), *y = malloc((size_t)n * rows * sizeof *y);
    float *y2 = malloc((size_t)n * rows * sizeof *y2);
    for (int i = 0; i < n * cols; i++) x[i] = uniform(-3, 3) * (i % 7 == 0 ? 10.0f : 1.0f);
    for (int c = 0; c < cols && n > 1; c++) x[(size_t)cols + c] = 0;  /* an all-zero token */
    for (int r = 0; r < rows; r++) bias[r] = uniform(-1, 1);
    for (int i = 0; i < n * rows; i++) res[i] = uniform(-2, 2);

    matmul_q8_residual(x, n, &m.w, bias, res, y);
    check(within_bound(&m.w, x, n, bias, res, y), "int16 path within the rounding bound", rows, cols, group, ratio, n);

    memcpy(y2, res, (size_t)n * rows * sizeof *y2);  /* y += …: the residual is the output */
    matmul_q8_residual(x, n, &m.w, bias, y2, y2);
    check(memcmp(y, y2, (size_t)n * rows * sizeof *y) == 0, "residual may be the output itself", rows, cols, group, ratio, n);

    qmatrix planes = m.w;  /* the same matrix without int16 weights: the two-plane paths */
    planes.q16 = NULL;
    matmul_q8_residual(x, n, &planes, NULL, NULL, y2);
    check(within_bound(&planes, x, n, NULL, NULL, y2), "two-plane path within the rounding bound", rows, cols, group, ratio, n);

    free(x), free(bias), free(res), free(y), free(y2);
    free_matrix(&m);
}

/* Q, K and V share one quantized input: each result within the bound, and equal to its own
 * call when the matrices have the same activation limit. Different ratios (limits) and a
 * matrix without int16 weights (the separate fallback) too. */
static void shared_input(int with_fallback) {
    const int rows[3] = {8, 6, 5}, ratios[3] = {32, 254, 32}, cols = 256, n = 7;
    test_matrix m[3];
    const qmatrix *w[3];
    const float *bias[3];
    float *y[3], *alone = malloc((size_t)n * 8 * sizeof *alone);
    float *x = malloc((size_t)n * cols * sizeof *x);
    for (int i = 0; i < n * cols; i++) x[i] = uniform(-4, 4);
    for (int i = 0; i < 3; i++) {
        make_matrix(&m[i], rows[i], cols, cols, ratios[i], 0);
        if (!(with_fallback && i == 1)) {
            m[i].q16 = malloc(q16_count(&m[i].w) * sizeof *m[i].q16);
            q16_fill(&m[i].w, m[i].q16);
        }
        w[i] = &m[i].w;
        float *b = malloc((size_t)rows[i] * sizeof *b);
        for (int r = 0; r < rows[i]; r++) b[r] = uniform(-1, 1);
        bias[i] = b;
        y[i] = malloc((size_t)n * rows[i] * sizeof *y[i]);
    }
    matmul_q8_shared(x, n, 3, w, bias, y);
    int shared_limit = 32767;  /* the limit the joint path quantizes to (none with a fallback) */
    for (int i = 0; i < 3; i++) if (w[i]->q16 && w[i]->q16_xmax < shared_limit) shared_limit = w[i]->q16_xmax;
    for (int i = 0; i < 3; i++) {
        check(within_bound(w[i], x, n, bias[i], NULL, y[i]), "shared input: within the rounding bound", rows[i], cols, cols, ratios[i], n);
        matmul_q8(x, n, w[i], bias[i], alone);
        const int same_limit = with_fallback || w[i]->q16_xmax == shared_limit;
        if (same_limit)
            check(memcmp(alone, y[i], (size_t)n * rows[i] * sizeof *alone) == 0, "shared input: same as a call of its own",
                  rows[i], cols, cols, ratios[i], n);
    }
    for (int i = 0; i < 3; i++) free_matrix(&m[i]), free((void *)bias[i]), free(y[i]);
    free(x), free(alone);
}

/* GELU against ½x·erfc(−x/√2) in double: 2^21 + 1 points over [−12, 12], powers of ten up to
 * 1e30 of both signs, the special values. */
static void gelu_accuracy(void) {
    enum { POINTS = 1 << 21 };
    static float x[POINTS + 1 + 62 + 4];
    int count = 0;
    for (int i = 0; i <= POINTS; i++) x[count++] = -12.0f + 24.0f * (float)i / POINTS;
    for (int e = -30; e <= 30; e += 2) x[count++] = powf(10.0f, (float)e), x[count++] = -powf(10.0f, (float)e);
    const int finite = count;
    x[count++] = INFINITY, x[count++] = -INFINITY, x[count++] = NAN, x[count++] = -0.0f;
    float *y = malloc((size_t)count * sizeof *y);
    memcpy(y, x, (size_t)count * sizeof *y);
    gelu(y, count);
    double worst = 0;
    for (int i = 0; i < finite; i++) {
        const double exact = 0.5 * x[i] * erfc(-(double)x[i] / sqrt(2.0));
        worst = fmax(worst, fabs(y[i] - exact) / fmax(1.0, fabs(x[i])));
    }
    check(worst <= 1.2e-7, "gelu within 1.2e-7·max(1, |x|) of x·Φ(x)", 0, count, 0, 0, 0);
    check(y[finite] == INFINITY && y[finite + 1] == 0.0f && isnan(y[finite + 2]) && y[finite + 3] == 0.0f,
          "gelu(+inf) = +inf, gelu(-inf) = 0, gelu(NaN) = NaN, gelu(-0) = 0", 0, 0, 0, 0, 0);
    free(y);
}

static void refusals(void) {
    test_matrix m;
    make_matrix(&m, 4, 16, 16, 32, 0);
    m.scale[1] = m.scale2[1] * 31.5f;  /* one group off an integer ratio */
    check(q16_count(&m.w) == 0, "q16_count refuses a non-integer ratio", 4, 16, 16, 31, 0);
    for (int g = 0; g < 4; g++) m.scale[g] = m.scale2[g] * 300.0f;
    check(q16_count(&m.w) == 0, "q16_count refuses a ratio above 254", 4, 16, 16, 300, 0);
    for (int g = 0; g < 4; g++) m.scale[g] = m.scale2[g] * 32.0f;
    m.scale[2] = m.scale2[2] * 33.0f;  /* two integer ratios in one matrix */
    check(q16_count(&m.w) == 0, "q16_count refuses two ratios in one matrix", 4, 16, 16, 32, 0);
    m.w.q2 = NULL;
    check(q16_count(&m.w) == 0, "q16_count refuses a single plane", 4, 16, 16, 32, 0);
    free_matrix(&m);
    make_matrix(&m, 4, 12, 12, 32, 0);
    check(q16_count(&m.w) == 0, "q16_count refuses columns not a multiple of 8", 4, 12, 12, 32, 0);
    free_matrix(&m);
}

int main(void) {
    const int ratios[] = {2, 14, 32, 254};
    const int rows_list[] = {1, 2, 3, 5, 6, 7, 8};
    const int ns[] = {1, 3, 4, 5, 9};
    for (int ri = 0; ri < 4; ri++)
        for (int rr = 0; rr < 7; rr++)
            for (int ni = 0; ni < 5; ni++) {
                run_case(rows_list[rr], 16, 16, ratios[ri], ns[ni], 0);
                run_case(rows_list[rr], 264, 8, ratios[ri], ns[ni], 0);
            }
    run_case(12, 1024, 1024, 32, 7, 0);   /* four chunks of 256 per group */
    run_case(8, 4096, 4096, 32, 9, 0);    /* four tokens per block: three blocks */
    run_case(5, 512, 64, 254, 6, 1);      /* extreme planes: the largest |Q| */
    run_case(4, 4096, 4096, 2, 5, 1);
    gelu_accuracy();
    shared_input(0);
    shared_input(1);
    refusals();
    printf("kernels: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
