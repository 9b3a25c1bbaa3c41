/* One weight-matrix product timed alone (the "harness" of bench/README.md): an int8 matrix,
 * one scale per row, rows × cols, against n tokens, through linear.
 * Built and run by bench/matmul.mjs. */
#include <stdint.h>
#include <stdlib.h>

#include "kernels.h"

static qmatrix matrix;
static float *x, *y, *bias;

__attribute__((export_name("setup"))) int setup(int rows, int cols, int n) {
    const size_t count = (size_t)rows * cols;
    int8_t *q = malloc(count);
    float *scale = malloc((size_t)rows * sizeof *scale);
    x = malloc((size_t)n * cols * sizeof *x);
    y = malloc((size_t)n * rows * sizeof *y);
    bias = malloc((size_t)rows * sizeof *bias);
    if (!q || !scale || !x || !y || !bias) return 0;
    for (size_t i = 0; i < count; i++) q[i] = (int8_t)((i * 37) % 255 - 127);
    for (int r = 0; r < rows; r++) scale[r] = 0.032f, bias[r] = 0.1f;
    for (int i = 0; i < n * cols; i++) x[i] = (float)((i * 13) % 101 - 50) / 7.0f;
    matrix = (qmatrix){
        .q = q, .scale = scale, .kind = WEIGHTS_KIND_INT8, .bits = 8, .qmax = 128, .rows = rows, .cols = cols};
    return 1;
}

__attribute__((export_name("run"))) void run(int n, int repeats) {
    for (int i = 0; i < repeats; i++) linear(x, n, &matrix, bias, y);
}
