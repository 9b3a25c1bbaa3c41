#include "kernels.h"

#include <math.h>
#include <stddef.h>


void dequantize_row(const qmatrix *w, int row, float *out) {
    const size_t first = (size_t)row * (size_t)w->cols;
    const size_t first_scale = (size_t)row * (size_t)(w->cols / w->group);
    const int8_t *q = w->q + first;
    const float *scale = w->scale + first_scale;
    for (int c = 0; c < w->cols; c++)
        out[c] = (float)q[c] * scale[c / w->group];
    if (!w->q2) return;
    const int8_t *q2 = w->q2 + first;
    const float *scale2 = w->scale2 + first_scale;
    for (int c = 0; c < w->cols; c++)
        out[c] += (float)q2[c] * scale2[c / w->group];
}

static float dot(const float *a, const float *b, int count) {
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int i = 0;
    for (; i + 4 <= count; i += 4) {
        s0 += a[i] * b[i];
        s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2];
        s3 += a[i + 3] * b[i + 3];
    }
    for (; i < count; i++) s0 += a[i] * b[i];
    return (s0 + s1) + (s2 + s3);
}

/* Each weight row is dequantized once into `row` (on the stack: cols ≤ 4096 here) and
 * reused for every token, so the int8 → float conversion is paid per weight, not per MAC. */
void matmul_q8(const float *x, int n, const qmatrix *w, const float *bias, float *y) {
    float row[4096];
    const int in = w->cols, out = w->rows;
    for (int r = 0; r < out; r++) {
        dequantize_row(w, r, row);
        const float b = bias ? bias[r] : 0.0f;
        for (int t = 0; t < n; t++)
            y[(size_t)t * out + r] = dot(x + (size_t)t * in, row, in) + b;
    }
}

void layer_norm(float *x, int n, int width, const float *gamma, const float *beta, float eps) {
    for (int t = 0; t < n; t++) {
        float *v = x + (size_t)t * width;
        double mean = 0, var = 0;
        for (int i = 0; i < width; i++) mean += v[i];
        mean /= width;
        for (int i = 0; i < width; i++) var += (v[i] - mean) * (v[i] - mean);
        var /= width;
        const double inv = 1.0 / sqrt(var + eps);
        for (int i = 0; i < width; i++)
            v[i] = (float)((v[i] - mean) * inv) * gamma[i] + beta[i];
    }
}

void gelu(float *x, int count) {
    for (int i = 0; i < count; i++)
        x[i] = 0.5f * x[i] * (1.0f + erff(x[i] * 0.70710678118654752f));
}

void softmax(float *x, int count) {
    float max = x[0];
    for (int i = 1; i < count; i++)
        if (x[i] > max) max = x[i];
    double sum = 0;
    for (int i = 0; i < count; i++) {
        x[i] = expf(x[i] - max);
        sum += x[i];
    }
    const double inv = 1.0 / sum;
    for (int i = 0; i < count; i++) x[i] = (float)(x[i] * inv);
}
