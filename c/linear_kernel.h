/* The integer kernels of one weight type, included by linear.c once per type with:
 *
 *   WEIGHT        the stored weight type (int8_t, int16_t)
 *   LOAD_WEIGHTS  8 weights → i16x8 (load_w8 widens int8, load_w16 loads)
 *   DOT_TILE      name of the tile:   dot_w8_x16,    dot_w16_x16
 *   DOT_ROWS4     name of the rows:   rows4_w8_x16,  rows4_w16_x16
 *   LINEAR_BLOCK  name of the block:  linear_block_w8, linear_block_w16
 *
 * (x16: the activations, quantized to int16 by quantize_block.) Not a header of its own: it
 * needs linear.c's QT, padded_cols and DOT_STEP, f4/i4 (simd.h), and undefines its parameters at the end. */

/* Two weight rows (u_row, v_row) against four tokens (packed block xp), columns [c0, c0 + len):
 * acc[0..3] get the first row's exact int32 sums per token (lanes to be added), acc[4..7] the
 * second row's. One I4_DOT_ADD per 8 weights per token and row (DOT_STEP, linear.c); a last
 * partial step (len % 8 columns) reads its weights through a zeroed copy, never past the row. */
static inline void DOT_TILE(const int16_t *xp, const WEIGHT *u_row, const WEIGHT *v_row, int c0, int len, i4 *acc) {
    i4 a0 = i4_zero(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
    xp += (size_t)c0 * QT;
    const WEIGHT *up = u_row + c0, *vp = v_row + c0;
    int c = 0;
    for (; c + 8 <= len; c += 8, xp += 8 * QT, up += 8, vp += 8) {
        const i16x8 u = LOAD_WEIGHTS(up), v = LOAD_WEIGHTS(vp);
        DOT_STEP(xp, u, v);
    }
    if (c < len) {
        WEIGHT uc[8] = {0}, vc[8] = {0};
        memcpy(uc, up, (size_t)(len - c) * sizeof *uc);
        memcpy(vc, vp, (size_t)(len - c) * sizeof *vc);
        const i16x8 u = LOAD_WEIGHTS(uc), v = LOAD_WEIGHTS(vc);
        DOT_STEP(xp, u, v);
    }
    acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
    acc[4] = b0, acc[5] = b1, acc[6] = b2, acc[7] = b3;
}

/* Rows r…r+3 against the four tokens at xp: out[t] holds token t's scale[r]·Σ_chunks (exact
 * sums) for the four rows (lanes). Rows past the last repeat the last row (read in place, never
 * past the matrix); their lanes are not stored. */
static inline void DOT_ROWS4(const qmatrix *w, int chunk, int r, const int16_t *xp, f4 *out) {
    const int cols = w->cols, padded = padded_cols(w), last = w->rows - 1;
    const WEIGHT *q = (const WEIGHT *)w->q;
    int row[4];
    for (int k = 0; k < 4; k++) row[k] = r + k < last ? r + k : last;
    const WEIGHT *q0 = q + (size_t)row[0] * cols, *q1 = q + (size_t)row[1] * cols;
    const WEIGHT *q2 = q + (size_t)row[2] * cols, *q3 = q + (size_t)row[3] * cols;
    f4 g0 = f4_splat(0), g1 = g0, g2 = g0, g3 = g0;
    for (int c = 0; c < padded; c += chunk) {
        const int len = cols - c < chunk ? cols - c : chunk;
        i4 a[8], b[8];
        DOT_TILE(xp, q0, q1, c, len, a);
        DOT_TILE(xp, q2, q3, c, len, b);
        g0 = f4_add(g0, f4_sums(i4_float(a[0]), i4_float(a[4]), i4_float(b[0]), i4_float(b[4])));
        g1 = f4_add(g1, f4_sums(i4_float(a[1]), i4_float(a[5]), i4_float(b[1]), i4_float(b[5])));
        g2 = f4_add(g2, f4_sums(i4_float(a[2]), i4_float(a[6]), i4_float(b[2]), i4_float(b[6])));
        g3 = f4_add(g3, f4_sums(i4_float(a[3]), i4_float(a[7]), i4_float(b[3]), i4_float(b[7])));
    }
    const float *s = w->scale;
    const f4 scale = f4_make(s[row[0]], s[row[1]], s[row[2]], s[row[3]]);
    out[0] = f4_mul(g0, scale), out[1] = f4_mul(g1, scale);
    out[2] = f4_mul(g2, scale), out[3] = f4_mul(g3, scale);
}

/* The rows of w against one quantized block of `count` tokens (X packed, scales sx) starting at
 * token b0: y[b0 + t][r] = sx[t]·Σ … + bias[r]. */
static void LINEAR_BLOCK(const qmatrix *w, int chunk, const int16_t *X, const float *sx, int b0, int count,
                         const float *bias, float *y) {
    const int rows = w->rows, padded = padded_cols(w);
    for (int r = 0; r < rows; r += 4) {
        const int whole = r + 4 <= rows; /* else the last rows, stored one by one */
        const f4 b = bias && whole ? f4_load(bias + r) : f4_splat(0);
        for (int t0 = 0; t0 < count; t0 += QT) {
            f4 p[QT];
            DOT_ROWS4(w, chunk, r, X + (size_t)t0 * padded, p);
            const int valid = count - t0 < QT ? count - t0 : QT;
            for (int t = 0; t < valid; t++) {
                float *out = y + (size_t)(b0 + t0 + t) * rows + r;
                if (whole) {
                    f4_store(out, f4_add(f4_mul(p[t], f4_splat(sx[t0 + t])), b));
                    continue;
                }
                for (int k = 0; r + k < rows; k++) {
                    float v = f4_lane(p[t], k) * sx[t0 + t];
                    if (bias) v += bias[r + k];
                    out[k] = v;
                }
            }
        }
    }
}

#undef WEIGHT
#undef LOAD_WEIGHTS
#undef DOT_TILE
#undef DOT_ROWS4
#undef LINEAR_BLOCK
