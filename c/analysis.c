#include "analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

row_stats analyse_row(const float *row, int n) {
    row_stats r = {0, 0, 0, 0, 0, 0, 1};
    for (int j = 0; j < n; j++) {
        const double p = row[j];
        r.sum += p;
        if (p > r.max) {
            r.max = p;
            r.argmax = j;
        }
        if (p > 0) r.entropy -= p * log(p);
    }
    r.ratio = r.max * n;
    r.effective = exp(r.entropy);
    if (n > 1) r.normalized = r.entropy / log((double)n);
    return r;
}

static int valid_head(const bert_state *s, int layer, int head) {
    return s->n > 0 && layer >= 0 && layer < s->model->layers && head >= 0 && head < s->model->heads;
}

/* ½·(mean of the layer's heads) + ½·I, each row renormalised to sum to 1. */
static void mixed_layer(const bert_state *s, int layer, float *mix) {
    const int n = s->n, heads = s->model->heads;
    const float half_mean = 0.5f / (float)heads;
    for (int i = 0; i < n; i++) {
        float *out = mix + (size_t)i * n;
        memset(out, 0, (size_t)n * sizeof *out);
        for (int h = 0; h < heads; h++) {
            const float *row = s->attention + attention_index(s, layer, h, i);
            for (int j = 0; j < n; j++) out[j] += row[j];
        }
        double total = 0;
        for (int j = 0; j < n; j++) {
            out[j] = out[j] * half_mean + (i == j ? 0.5f : 0.0f);
            total += out[j];
        }
        const float inverse = (float)(1.0 / total);
        for (int j = 0; j < n; j++) out[j] *= inverse;
    }
}

/* The product is formed with the float matrix kernel (gemm_nn): at n = 512 each of the
 * layers' n³ products is a few tens of milliseconds in wasm, where a scalar double loop took
 * seconds. Rows stay stochastic to float rounding (every factor's rows sum to 1). */
int attention_rollout(const bert_state *s, int last_layer, float *out) {
    if (!valid_head(s, last_layer, 0)) return -1;
    const size_t n = (size_t)s->n;
    if (last_layer == 0) {
        mixed_layer(s, 0, out);
        return 0;
    }
    float *mix = malloc(n * n * sizeof(float));
    float *acc = malloc(n * n * sizeof(float));
    if (!mix || !acc) {
        free(mix), free(acc);
        return -1;
    }
    mixed_layer(s, 0, acc);
    for (int l = 1; l <= last_layer; l++) {
        mixed_layer(s, l, mix);
        gemm_nn((int)n, (int)n, (int)n, mix, (int)n, acc, (int)n, out, (int)n); /* mix · acc */
        if (l < last_layer) memcpy(acc, out, n * n * sizeof(float));
    }
    free(mix), free(acc);
    return 0;
}

/* One row of the rollout: e_row · M_last · … · M_0, one vector-matrix product per layer
 * (O(layers · heads · n²)), with M_l's rows formed on the fly exactly as mixed_layer forms them. */
int attention_rollout_row(const bert_state *s, int last_layer, int row, float *out) {
    if (!valid_head(s, last_layer, 0) || row < 0 || row >= s->n) return -1;
    const int n = s->n, heads = s->model->heads;
    float *v = calloc((size_t)n, sizeof *v), *next = malloc((size_t)n * sizeof *next);
    if (!v || !next) {
        free(v), free(next);
        return -1;
    }
    v[row] = 1;
    for (int l = last_layer; l >= 0; l--) {
        memset(next, 0, (size_t)n * sizeof *next);
        for (int i = 0; i < n; i++) {
            if (v[i] == 0) continue;
            float total = 0;
            for (int h = 0; h < heads; h++) {
                const float *a = s->attention + attention_index(s, l, h, i);
                for (int j = 0; j < n; j++) total += a[j];
            }
            total = 0.5f * total / (float)heads + 0.5f;
            const float weight = v[i] * 0.5f / (float)heads / total;
            for (int h = 0; h < heads; h++) {
                const float *a = s->attention + attention_index(s, l, h, i);
                for (int j = 0; j < n; j++) next[j] += weight * a[j];
            }
            next[i] += v[i] * 0.5f / total;
        }
        float *t = v;
        v = next;
        next = t;
    }
    memcpy(out, v, (size_t)n * sizeof *out);
    free(v), free(next);
    return 0;
}

static int share_at_least(int hits, int total, double share) { return total > 0 && hits >= share * total; }

int head_roles(const bert_state *s, int layer, int head, const unsigned char *kinds, float *mass_on_kind) {
    if (!valid_head(s, layer, head)) return -1;
    const int n = s->n;
    int prev_hits = 0, next_hits = 0;
    double mass[ATTN_MASS_COUNT] = {0}, normalized = 0;
    for (int i = 0; i < n; i++) {
        const float *row = s->attention + attention_index(s, layer, head, i);
        const row_stats r = analyse_row(row, n);
        prev_hits += i > 0 && r.argmax == i - 1;
        next_hits += i < n - 1 && r.argmax == i + 1;
        normalized += r.normalized;
        for (int j = 0; j < n; j++) mass[kinds[j] % ATTN_MASS_COUNT] += row[j];
    }
    int roles = 0;
    if (n >= POSITIONAL_MIN_TOKENS && share_at_least(prev_hits, n - 1, 0.9)) roles |= ROLE_PREVIOUS;
    if (n >= POSITIONAL_MIN_TOKENS && share_at_least(next_hits, n - 1, 0.9)) roles |= ROLE_NEXT;
    if (mass[ATTN_MASS_CLS] / n >= 0.5) roles |= ROLE_CLS_SINK;
    if (mass[ATTN_MASS_SEP] / n >= 0.5) roles |= ROLE_SEP_SINK;
    if (mass[ATTN_MASS_PUNCTUATION] / n >= 0.5) roles |= ROLE_PUNCT_SINK;
    if (n > 1 && normalized / n >= 0.9) roles |= ROLE_BROAD;
    if (mass_on_kind)
        for (int k = 0; k < ATTN_MASS_COUNT; k++) mass_on_kind[k] = (float)(mass[k] / n);
    return roles;
}

/* ‖W_O[:, head slice] · v‖ for a head-sized vector v. */
static double projected_norm(const qmatrix *w_out, int offset, const float *v, int size, float *row_buffer) {
    double norm2 = 0;
    for (int r = 0; r < w_out->rows; r++) {
        dequantize_row(w_out, r, row_buffer);
        double y = 0;
        for (int d = 0; d < size; d++) y += (double)row_buffer[offset + d] * v[d];
        norm2 += y * y;
    }
    return sqrt(norm2);
}

int attention_contributions(const bert_state *s, int layer, int head, int row, float *out) {
    if (!valid_head(s, layer, head) || row < 0 || row >= s->n) return -1;
    const bert_model *m = s->model;
    const int size = m->hidden / m->heads, offset = head * size;
    const float *alpha = s->attention + attention_index(s, layer, head, row);
    float buffer[4096];
    for (int j = 0; j < s->n; j++) {
        const float *v = s->value + hidden_index(s, layer, j) + offset;
        out[j] = (float)(alpha[j] * projected_norm(&m->layer[layer].attn_out, offset, v, size, buffer));
    }
    return 0;
}

int attention_row_scaled(const bert_state *s, int layer, int head, int row, int divide_by_sqrt_d, float *out) {
    if (!valid_head(s, layer, head) || row < 0 || row >= s->n) return -1;
    const bert_model *m = s->model;
    const int size = m->hidden / m->heads, offset = head * size;
    const float scale = divide_by_sqrt_d ? 1.0f / sqrtf((float)size) : 1.0f;
    const float *q = s->query + hidden_index(s, layer, row) + offset;
    for (int j = 0; j < s->n; j++) {
        const float *k = s->key + hidden_index(s, layer, j) + offset;
        float dot = 0;
        for (int d = 0; d < size; d++) dot += q[d] * k[d];
        out[j] = dot * scale;
    }
    softmax(out, s->n);
    return 0;
}

int layer_walkthrough(const bert_state *s, int layer, int token, float *out) {
    if (!valid_head(s, layer, 0) || token < 0 || token >= s->n) return -1;
    const bert_model *m = s->model;
    const bert_layer *L = &m->layer[layer];
    const int hidden = m->hidden;
    float *concat = out + ATTN_WALKTHROUGH_CONCAT * hidden, *projected = out + ATTN_WALKTHROUGH_PROJECTED * hidden,
          *residual = out + ATTN_WALKTHROUGH_RESIDUAL * hidden, *normed = out + ATTN_WALKTHROUGH_NORMED * hidden;
    memcpy(concat, s->context + hidden_index(s, layer, token), (size_t)hidden * sizeof(float));
    linear(concat, 1, &L->attn_out, L->attn_out_bias, projected);
    const float *x = s->layer_input + hidden_index(s, layer, token);
    for (int i = 0; i < hidden; i++) residual[i] = projected[i] + x[i];
    memcpy(normed, residual, (size_t)hidden * sizeof(float));
    layer_norm(normed, 1, hidden, L->attn_ln_gamma, L->attn_ln_beta, m->ln_eps);
    return 0;
}
