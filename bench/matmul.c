/* One int16-weight matrix product timed alone (the "harness" of bench/README.md): a two-plane
 * matrix with residual ratio 32, rows × cols, against n tokens, through matmul_q8_residual.
 * Built and run by bench/matmul.mjs. */
#include <stdint.h>
#include <stdlib.h>

#include "kernels.h"

static qmatrix matrix;
static float *x, *y, *bias;

__attribute__((export_name("setup"))) int setup(int rows, int cols, int n) {
    const size_t count = (size_t)rows * cols;
    int8_t *q = malloc(count), *q2 = malloc(count);
    float *scale = malloc((size_t)rows * sizeof *scale), *scale2 = malloc((size_t)rows * sizeof *scale2);
    x = malloc((size_t)n * cols * sizeof *x);
    y = malloc((size_t)n * rows * sizeof *y);
    bias = malloc((size_t)rows * sizeof *bias);
    if (!q || !q2 || !scale || !scale2 || !x || !y || !bias) return 0;
    for (size_t i = 0; i < count; i++) q[i] = (int8_t)((i * 37) % 255 - 127), q2[i] = (int8_t)((i * 11) % 33 - 16);
    for (int r = 0; r < rows; r++) scale2[r] = 0.001f, scale[r] = 0.032f, bias[r] = 0.1f;
    for (int i = 0; i < n * cols; i++) x[i] = (float)((i * 13) % 101 - 50) / 7.0f;
    matrix = (qmatrix){.q = q, .q2 = q2, .scale = scale, .scale2 = scale2, .rows = rows, .cols = cols, .group = cols};
    int16_t *q16 = malloc(q16_count(&matrix) * sizeof *q16);
    if (!q16) return 0;
    q16_fill(&matrix, q16);
    return 1;
}

__attribute__((export_name("run"))) void run(int n, int repeats) {
    for (int i = 0; i < repeats; i++) matmul_q8_residual(x, n, &matrix, bias, NULL, y);
}
