/* The weight-matrix products (c/kernels.c) against a double-precision reference, for int8 and
 * int16 weights, on shapes the model never has: rows not a multiple of 4 (and odd), token
 * counts not a multiple of 4 and larger than one quantized block, widths not a multiple of 8
 * (a partial last step), many chunks per row, the most extreme weights (±qmax, and −128 for
 * int8), zero inputs. Built natively (portable code) and with emcc (wasm
 * SIMD128, run by tests/kernels.test.mjs): both must pass.
 *
 *   build/san/test_kernels        prints "kernels: N passed, M failed", exits 1 on a failure
 *
 * Also GELU against a double-precision erfc.
 *
 * The bound: each token's activations are rounded to int16 with their own scale sx ≤ amax/4095
 * (the kernels never keep fewer than 12 bits plus sign), so |y − y_exact| ≤ Σ_c |w_c|·sx/2, plus
 * float rounding (a few ulp of Σ|w·x|). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

static int passed, failed;

static void check(int ok, const char *what, int rows, int cols, int bits, int n) {
    if (ok) {
        passed++;
        return;
    }
    failed++;
    printf("FAIL: %s (rows %d, cols %d, bits %d, n %d)\n", what, rows, cols, bits, n);
}

static uint32_t rng = 12345;
static uint32_t next(void) {
    rng = rng * 1664525u + 1013904223u;
    return rng >> 8;
}
static float uniform(float lo, float hi) { return lo + (hi - lo) * (float)(next() & 0xffff) / 65535.0f; }

typedef struct {
    qmatrix w;
    void *q;
    float *scale;
} test_matrix;

/* Values uniform in ±qmax, or "extreme": every value at +qmax or −qmax (−128 for int8, which
 * the loader does not exclude). */
static void make_matrix(test_matrix *m, int rows, int cols, int bits, int qmax, int extreme) {
    const size_t count = (size_t)rows * cols;
    m->q = malloc(count * (bits == 8 ? 1 : 2));
    m->scale = malloc((size_t)rows * sizeof *m->scale);
    for (size_t i = 0; i < count; i++) {
        const int low = bits == 8 && extreme ? -128 : -qmax;
        const int v = extreme ? ((next() & 1) ? qmax : low) : (int)(next() % (unsigned)(2 * qmax + 1)) - qmax;
        if (bits == 8) ((int8_t *)m->q)[i] = (int8_t)v;
        else ((int16_t *)m->q)[i] = (int16_t)v;
    }
    for (int r = 0; r < rows; r++) m->scale[r] = uniform(0.001f, 0.02f) / (float)qmax * 127.0f;
    m->w = (qmatrix){.q = m->q,
                     .scale = m->scale,
                     .kind = bits == 8 ? WEIGHTS_KIND_INT8 : WEIGHTS_KIND_INT16,
                     .bits = bits,
                     .qmax = bits == 8 ? 128 : qmax,
                     .rows = rows,
                     .cols = cols};
}

static void free_matrix(test_matrix *m) { free(m->q), free(m->scale); }

static double weight(const qmatrix *w, int r, int c) {
    const size_t i = (size_t)r * w->cols + c;
    const double q = w->bits == 8 ? ((const int8_t *)w->q)[i] : ((const int16_t *)w->q)[i];
    return q * w->scale[r];
}

/* y from linear against the exact sum, within the bound above. */
static int within_bound(const qmatrix *w, const float *x, int n, const float *bias, const float *y) {
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
            const double bound = abs_w * amax / 4095.0 / 2.0 + 1e-5 * (abs_wx + fabs(exact)) + 1e-30;
            const double got = y[(size_t)t * w->rows + r];
            if (!(fabs(got - exact) <= bound)) return 0;
        }
    }
    return 1;
}

static void run_case(int rows, int cols, int bits, int qmax, int n, int extreme) {
    test_matrix m;
    make_matrix(&m, rows, cols, bits, qmax, extreme);
    float *x = malloc((size_t)n * cols * sizeof *x), *bias = malloc((size_t)rows * sizeof *bias);
    float *y = malloc((size_t)n * rows * sizeof *y), *y2 = malloc((size_t)n * rows * sizeof *y2);
    for (int i = 0; i < n * cols; i++) x[i] = uniform(-3, 3) * (i % 7 == 0 ? 10.0f : 1.0f);
    for (int c = 0; c < cols && n > 1; c++) x[(size_t)cols + c] = 0; /* an all-zero token */
    for (int r = 0; r < rows; r++) bias[r] = uniform(-1, 1);

    linear(x, n, &m.w, bias, y);
    check(within_bound(&m.w, x, n, bias, y), "product within the rounding bound", rows, cols, bits, n);

    /* Each token is quantized on its own: the last one alone gives the same bits. */
    linear(x + (size_t)(n - 1) * cols, 1, &m.w, bias, y2);
    check(memcmp(y + (size_t)(n - 1) * rows, y2, (size_t)rows * sizeof *y) == 0, "a token alone gives the same bits",
          rows, cols, bits, n);

    linear(x, n, &m.w, NULL, y2);
    check(within_bound(&m.w, x, n, NULL, y2), "no bias", rows, cols, bits, n);
    free_matrix(&m);
    free(x), free(bias), free(y), free(y2);
}

/* Q, K and V share their input: one call for three matrices (int8, int16 of 13 bits and of 15
 * bits: three activation limits) gives each within the bound; and a matrix whose limit is the
 * joint one gives exactly what a call of its own gives. */
static void shared_input(void) {
    const int rows[3] = {8, 6, 5}, bits[3] = {8, 16, 8}, qmax[3] = {127, 4095, 127}, cols = 256, n = 7;
    test_matrix m[3];
    const qmatrix *w[3];
    const float *bias[3];
    float *y[3];
    float *x = malloc((size_t)n * cols * sizeof *x), *alone = malloc((size_t)n * 8 * sizeof *alone);
    for (int i = 0; i < n * cols; i++) x[i] = uniform(-3, 3);
    for (int i = 0; i < 3; i++) {
        make_matrix(&m[i], rows[i], cols, bits[i], qmax[i], 0);
        w[i] = &m[i].w;
        float *b = malloc((size_t)rows[i] * sizeof *b);
        for (int r = 0; r < rows[i]; r++) b[r] = uniform(-1, 1);
        bias[i] = b;
        y[i] = malloc((size_t)n * rows[i] * sizeof *y[i]);
    }
    linear_shared(x, n, 3, w, bias, y);
    for (int i = 0; i < 3; i++) {
        check(within_bound(w[i], x, n, bias[i], y[i]), "shared input: within the rounding bound", rows[i], cols,
              bits[i], n);
        linear(x, n, w[i], bias[i], alone);
        if (bits[i] == 16) /* the int16 matrix sets the joint limit */
            check(memcmp(alone, y[i], (size_t)n * rows[i] * sizeof *alone) == 0,
                  "shared input: same as a call of its own", rows[i], cols, bits[i], n);
    }
    for (int i = 0; i < 3; i++) free_matrix(&m[i]), free((void *)bias[i]), free(y[i]);
    free(x), free(alone);
}

/* Activations the quantizer rounds specially: a NaN reads as 0 (the same bits as a 0 there); a row
 * whose largest value is subnormal (limit / max overflows to infinity: the scalar path) stays
 * within the bound; widths with a SIMD part and a scalar tail. */
static void quantizer_edges(void) {
    const int cols_list[] = {16, 20, 256};
    for (int ci = 0; ci < 3; ci++) {
        const int rows = 5, cols = cols_list[ci], n = 3;
        test_matrix m;
        make_matrix(&m, rows, cols, 8, 127, 0);
        float *x = malloc((size_t)n * cols * sizeof *x), *x0 = malloc((size_t)n * cols * sizeof *x0);
        float *y = malloc((size_t)n * rows * sizeof *y), *y0 = malloc((size_t)n * rows * sizeof *y0);
        for (int i = 0; i < n * cols; i++) x[i] = uniform(-3, 3);
        for (int c = 0; c < cols; c++) x[(size_t)2 * cols + c] = (float)(c % 5) * 1e-41f; /* subnormal max */
        memcpy(x0, x, (size_t)n * cols * sizeof *x);
        x[3] = NAN, x0[3] = 0;
        x[cols - 1] = NAN, x0[cols - 1] = 0;
        linear(x, n, &m.w, NULL, y);
        linear(x0, n, &m.w, NULL, y0);
        check(memcmp(y, y0, (size_t)n * rows * sizeof *y) == 0, "a NaN activation reads as 0", rows, cols, 8, n);
        check(within_bound(&m.w, x0, n, NULL, y0), "subnormal activations within the bound", rows, cols, 8, n);
        free_matrix(&m);
        free(x), free(x0), free(y), free(y0);
    }
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
    check(worst <= 1.2e-7, "gelu within 1.2e-7·max(1, |x|) of x·Φ(x)", 0, count, 0, 0);
    check(y[finite] == INFINITY && y[finite + 1] == 0.0f && isnan(y[finite + 2]) && y[finite + 3] == 0.0f,
          "gelu(+inf) = +inf, gelu(-inf) = 0, gelu(NaN) = NaN, gelu(-0) = 0", 0, 0, 0, 0);
    free(y);
}

/* softmax and log_softmax against double exp over rows of the lengths the engine gives them (a
 * vocabulary of 30,522 and odd tails), logits spread over 42 (a trained head's): each softmax row
 * sums to 1 within 1e-6 and each probability is within 2.5e-6 relatively (x − max rounded to
 * float, up to 1.9e-6 at 42, then exp's 2 ulp); each log-probability within 2e-6 + 1e-6·|log p|. */
static void softmax_accuracy(void) {
    const int lengths[] = {1, 3, 7, 64, 513, 30522};
    for (int k = 0; k < 6; k++) {
        const int count = lengths[k];
        float *x = malloc((size_t)count * sizeof *x), *p = malloc((size_t)count * sizeof *p);
        for (int i = 0; i < count; i++) x[i] = uniform(-30.0f, 12.0f);
        memcpy(p, x, (size_t)count * sizeof *p);
        softmax(p, count);
        double max = x[0], sum = 0, total = 0, worst_p = 0, worst_log = 0;
        for (int i = 1; i < count; i++) max = fmax(max, x[i]);
        for (int i = 0; i < count; i++) sum += exp((double)x[i] - max);
        for (int i = 0; i < count; i++) {
            const double exact = exp((double)x[i] - max) / sum;
            total += p[i];
            if (exact > 1e-30) worst_p = fmax(worst_p, fabs(p[i] - exact) / exact);
        }
        check(fabs(total - 1.0) <= 1e-6 && worst_p <= 2.5e-6, "softmax sums to 1, each value within 2.5e-6 relatively",
              1, count, 0, 0);
        memcpy(p, x, (size_t)count * sizeof *p);
        log_softmax(p, count);
        for (int i = 0; i < count; i++) {
            const double exact = (double)x[i] - max - log(sum);
            worst_log = fmax(worst_log, fabs(p[i] - exact) / (2e-6 + 1e-6 * fabs(exact)));
        }
        check(worst_log <= 1.0, "log_softmax within 2e-6 + 1e-6·|log p| of the double one", 1, count, 0, 0);
        free(x), free(p);
    }
}

int main(void) {
    const int rows_list[] = {1, 2, 3, 5, 6, 7, 8};
    const int ns[] = {1, 3, 4, 5, 9};
    const struct { int bits, qmax; } kinds[] = {{8, 127}, {16, 4095}, {16, 32767}};
    for (int k = 0; k < 3; k++)
        for (int rr = 0; rr < 7; rr++)
            for (int ni = 0; ni < 5; ni++) {
                run_case(rows_list[rr], 16, kinds[k].bits, kinds[k].qmax, ns[ni], 0);
                run_case(rows_list[rr], 264, kinds[k].bits, kinds[k].qmax, ns[ni], 0);
                run_case(rows_list[rr], 12, kinds[k].bits, kinds[k].qmax, ns[ni], 0); /* a partial step */
                run_case(rows_list[rr], 4, kinds[k].bits, kinds[k].qmax, ns[ni], 0);  /* only a partial step */
            }
    run_case(12, 1024, 8, 127, 7, 0);   /* one chunk of 1024 */
    run_case(12, 1024, 16, 4095, 7, 0); /* four chunks of 256 */
    run_case(6, 1020, 16, 32767, 5, 1); /* chunks of 32, the last one partial */
    run_case(8, 4096, 8, 127, 9, 0);    /* four tokens per block: three blocks */
    run_case(8, 4096, 16, 32767, 9, 0);
    run_case(5, 512, 8, 127, 6, 1); /* extreme weights: the largest sums */
    run_case(5, 512, 16, 32767, 6, 1);
    run_case(4, 4096, 16, 4095, 5, 1);
    run_case(4, 4096, 8, 127, 5, 1);
    gelu_accuracy();
    softmax_accuracy();
    shared_input();
    quantizer_edges();
    printf("kernels: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
