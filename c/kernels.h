/* The numeric building blocks of the forward pass. All activations are float32.
 *
 * One algorithm, three instruction sets: kernels.c (float kernels) and linear.c (weight
 * products) write every hot loop once against simd.h's four-lane vectors; f4 is a wasm
 * SIMD128 v128_t under emcc -msimd128, an SSE2 __m128 on x86-64, elsewhere (or with
 * -DATTN_SCALAR) a plain struct of four floats. Every build computes the same bits (same
 * blocking, same summation order, same exp/erf polynomials, exact integer sums). */
#ifndef ATTN_KERNELS_H
#define ATTN_KERNELS_H

#include <stddef.h>

#include "model.h"

/* y[n][w->rows] = x[n][w->cols] · dequant(w)ᵀ + bias (bias may be NULL), the weights int8 or
 * int16 as w->kind says, read in place; any matrix the loader accepts (cols ≤ 4096). Each
 * token's row is quantized to int16 with its own scale, one int16 dot product per 8 weights,
 * summed exactly in int32 over chunks of columns, then in float. linear.c: the kernels
 * dot_w8_x16 / dot_w16_x16 (linear_kernel.h), picked by LINEAR_BLOCK_OF_KIND. */
void linear(const float *x, int n, const qmatrix *w, const float *bias, float *y);

/* y[i] = x · w[i]ᵀ + bias[i] for i < count, several matrices of the same width on one input
 * (Q, K and V): each block of tokens is quantized once for all of them. y[i] NULL: matrix i is
 * not computed, but still bounds the quantization as when it is, so the others' numbers are
 * those of the call that computes it (a run can compute K and V of every token and Q of some). */
void linear_shared(const float *x, int n, int count, const qmatrix *const *w, const float *const *bias,
                   float *const *y);

/* One dequantized row of a weight matrix: out[w->cols]. */
void dequantize_row(const qmatrix *w, int row, float *out);

/* c[i·ldc + j] = alpha · Σ_k a[i·lda + k] · b[j·ldb + k]   (A·Bᵀ; i < m, j < n, k < depth). */
void gemm_nt(int m, int n, int depth, const float *a, int lda, const float *b, int ldb, float alpha, float *c, int ldc);

/* c[i·ldc + j] = Σ_k a[i·lda + k] · b[k·ldb + j]   (A·B; i < m, j < n, k < depth); n % 4 == 0
 * runs fastest. */
void gemm_nn(int m, int n, int depth, const float *a, int lda, const float *b, int ldb, float *c, int ldc);

/* In place, per row of `width`: (x - mean) / sqrt(var + eps) * gamma + beta. */
void layer_norm(float *x, int n, int width, const float *gamma, const float *beta, float eps);

/* In place: x · Φ(x), the erf form of GELU (error ≤ 1.2e-7·max(1, |x|), see kernels.c). */
void gelu(float *x, int count);

/* The largest of count ≥ 1 finite values, and the first index holding it (an argmax). */
float max_value(const float *x, int count);
int first_max_index(const float *x, int count);

/* In place: softmax over `count` values; the sum is accumulated in double so rows sum to 1
 * within float rounding. exp is a polynomial accurate to ~2 ulp. */
void softmax(float *x, int count);

/* In place: log-softmax, x − (max + log Σ e^(x − max)), with softmax's exp and double sum (the
 * masked-word head's log-probabilities over the whole vocabulary). */
void log_softmax(float *x, int count);

#endif
