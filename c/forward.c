#include "forward.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

void bert_state_init(bert_state *state, const bert_model *model) {
    memset(state, 0, sizeof *state);
    state->model = model;
}

void bert_state_free(bert_state *state) {
    free(state->attention);
    free(state->layer_input);
    free(state->query);
    free(state->key);
    free(state->value);
    free(state->context);
    free(state->scratch);
    bert_state_init(state, state->model);
}

static int grow(float **buffer, size_t count) {
    float *p = realloc(*buffer, count * sizeof(float));
    if (!p) return -1;
    *buffer = p;
    return 0;
}

static int reserve(bert_state *s, int n) {
    if (n <= s->capacity) return 0;
    const bert_model *m = s->model;
    const size_t tokens = (size_t)n, layers = (size_t)m->layers, hidden = (size_t)m->hidden;
    const size_t wide = (size_t)(m->ffn > m->hidden ? m->ffn : m->hidden);
    const size_t per_layer = layers * tokens * hidden;
    if (grow(&s->attention, layers * (size_t)m->heads * tokens * tokens) ||
        grow(&s->layer_input, (layers + 1) * tokens * hidden) ||
        grow(&s->query, per_layer) || grow(&s->key, per_layer) ||
        grow(&s->value, per_layer) || grow(&s->context, per_layer) ||
        grow(&s->scratch, tokens * (wide + hidden)))
        return -1;
    s->capacity = n;
    return 0;
}

static void add_embedding_row(const qmatrix *table, int row, float *out, float *tmp) {
    dequantize_row(table, row, tmp);
    for (int i = 0; i < table->cols; i++) out[i] += tmp[i];
}

static void embed(const bert_model *m, const int32_t *ids, const int32_t *type_ids, int n, float *x) {
    float tmp[4096];
    for (int t = 0; t < n; t++) {
        float *row = x + (size_t)t * m->hidden;
        dequantize_row(&m->word_emb, ids[t], row);
        add_embedding_row(&m->pos_emb, t, row, tmp);
        add_embedding_row(&m->type_emb, type_ids ? type_ids[t] : 0, row, tmp);
    }
    layer_norm(x, n, m->hidden, m->emb_ln_gamma, m->emb_ln_beta, m->ln_eps);
}

/* scores = q·k / √d (A·Bᵀ over the head's 64 columns, written straight into the stored
 * probabilities), softmax over keys in place, then context = P·V (A·B, broadcast form). */
static void attend_head(const bert_state *s, int layer, int head, float *probs) {
    const bert_model *m = s->model;
    const int n = s->n, hidden = m->hidden, size = hidden / m->heads;
    const size_t base = hidden_index(s, layer, 0);
    const int off = head * size;
    const float *q = s->query + base + off, *k = s->key + base + off, *v = s->value + base + off;
    float *ctx = s->context + base + off;
    gemm_nt(n, n, size, q, hidden, k, hidden, 1.0f / sqrtf((float)size), probs, n);
    for (int i = 0; i < n; i++) softmax(probs + (size_t)i * n, n);
    gemm_nn(n, size, n, probs, n, v, hidden, ctx, hidden);
}

/* y += x over count floats: a residual connection. */
static void add_residual(float *y, const float *x, size_t count) {
    for (size_t i = 0; i < count; i++) y[i] += x[i];
}

/* The FFN output goes to the scratch after the FFN's own activations, then is added into the
 * next layer's input. */
static void encoder_layer(bert_state *s, int l) {
    const bert_model *m = s->model;
    const bert_layer *L = &m->layer[l];
    const int n = s->n, hidden = m->hidden;
    const size_t count = (size_t)n * (size_t)hidden;
    const float *x = s->layer_input + hidden_index(s, l, 0);
    float *next = s->layer_input + hidden_index(s, l + 1, 0);
    const size_t base = hidden_index(s, l, 0);
    float *ffn_hidden = s->scratch, *ffn_output = s->scratch + (size_t)n * (size_t)m->ffn;

    const qmatrix *qkv[3] = {&L->query, &L->key, &L->value};
    const float *qkv_bias[3] = {L->query_bias, L->key_bias, L->value_bias};
    float *qkv_out[3] = {s->query + base, s->key + base, s->value + base};
    matmul_w8_or_w16_shared(x, n, 3, qkv, qkv_bias, qkv_out);
    for (int h = 0; h < m->heads; h++)
        attend_head(s, l, h, s->attention + attention_index(s, l, h, 0));

    matmul_w8_or_w16(s->context + base, n, &L->attn_out, L->attn_out_bias, next);
    add_residual(next, x, count);  /* next = x + attention output */
    layer_norm(next, n, hidden, L->attn_ln_gamma, L->attn_ln_beta, m->ln_eps);

    matmul_w8_or_w16(next, n, &L->ffn_in, L->ffn_in_bias, ffn_hidden);
    gelu(ffn_hidden, n * m->ffn);
    matmul_w8_or_w16(ffn_hidden, n, &L->ffn_out, L->ffn_out_bias, ffn_output);
    add_residual(next, ffn_output, count);  /* next = next + FFN output */
    layer_norm(next, n, hidden, L->ffn_ln_gamma, L->ffn_ln_beta, m->ln_eps);
}

int bert_forward(bert_state *s, const int32_t *ids, const int32_t *type_ids, int n) {
    const bert_model *m = s->model;
    if (n < 1 || n > m->max_positions) return -1;
    for (int t = 0; t < n; t++) {
        if (ids[t] < 0 || ids[t] >= m->vocab_size) return -1;
        if (type_ids && (type_ids[t] < 0 || type_ids[t] >= m->type_vocab)) return -1;
    }
    if (reserve(s, n)) return -1;
    s->n = n;
    embed(m, ids, type_ids, n, s->layer_input);
    for (int l = 0; l < m->layers; l++) encoder_layer(s, l);
    return 0;
}

static void top_k(const float *probs, int count, int k, int32_t *ids, float *out) {
    for (int i = 0; i < k; i++) {
        ids[i] = -1;
        out[i] = -1.0f;
    }
    for (int v = 0; v < count; v++) {
        if (probs[v] <= out[k - 1]) continue;
        int at = k - 1;
        while (at > 0 && probs[v] > out[at - 1]) {
            out[at] = out[at - 1];
            ids[at] = ids[at - 1];
            at--;
        }
        out[at] = probs[v];
        ids[at] = v;
    }
}

int bert_mlm_top_k(const bert_state *s, int position, int k, int32_t *ids, float *probs) {
    const bert_model *m = s->model;
    if (position < 0 || position >= s->n || k < 1 || k > m->vocab_size) return -1;
    float transformed[4096];
    float *logits = malloc((size_t)m->vocab_size * sizeof(float));
    if (!logits) return -1;
    const float *h = s->layer_input + hidden_index(s, m->layers, position);
    matmul_w8_or_w16(h, 1, &m->mlm_transform, m->mlm_transform_bias, transformed);
    gelu(transformed, m->hidden);
    layer_norm(transformed, 1, m->hidden, m->mlm_ln_gamma, m->mlm_ln_beta, m->ln_eps);
    matmul_w8_or_w16(transformed, 1, &m->word_emb, m->mlm_bias, logits);  /* the tied decoder */
    softmax(logits, m->vocab_size);
    top_k(logits, m->vocab_size, k, ids, probs);
    free(logits);
    return 0;
}
