/* The numeric building blocks of the forward pass. All activations are float32. */
#ifndef ATTN_KERNELS_H
#define ATTN_KERNELS_H

#include "model.h"

/* y[n][w->rows] = x[n][w->cols] · dequant(w)ᵀ + bias (bias may be NULL). */
void matmul_q8(const float *x, int n, const qmatrix *w, const float *bias, float *y);

/* One dequantized row of an int8 matrix: out[w->cols]. */
void dequantize_row(const qmatrix *w, int row, float *out);

/* In place, per row of `width`: (x - mean) / sqrt(var + eps) * gamma + beta. */
void layer_norm(float *x, int n, int width, const float *gamma, const float *beta, float eps);

/* In place: x * Φ(x), the exact erf form of GELU. */
void gelu(float *x, int count);

/* In place: softmax over `count` values; the sum is accumulated in double so rows sum to 1
 * within float rounding. */
void softmax(float *x, int count);

#endif
