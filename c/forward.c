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

enum { STATE_BUFFERS = 7, SHRINK_ABOVE = 16 };

/* The state's buffers and their float counts for n tokens, in one order. */
static void state_buffers(bert_state *s, size_t n, float **slots[STATE_BUFFERS], size_t counts[STATE_BUFFERS]) {
    const bert_model *m = s->model;
    const size_t layers = (size_t)m->layers, hidden = (size_t)m->hidden;
    const size_t wide = (size_t)(m->ffn > m->hidden ? m->ffn : m->hidden);
    const size_t per_layer = layers * n * hidden;
    float **const all[STATE_BUFFERS] = {&s->attention, &s->layer_input, &s->query,  &s->key,
                                        &s->value,     &s->context,     &s->scratch};
    const size_t sizes[STATE_BUFFERS] = {layers * (size_t)m->heads * n * n,
                                         (layers + 1) * n * hidden,
                                         per_layer,
                                         per_layer,
                                         per_layer,
                                         per_layer,
                                         n * (wide + hidden)};
    memcpy(slots, all, sizeof all);
    memcpy(counts, sizes, sizeof sizes);
}

/* Grows to n tokens, or shrinks to n when n needs at most half the capacity: all new buffers
 * are had before any old one is let go, so a failure leaves the state as it was. */
int bert_reserve(bert_state *s, int n) {
    const int shrink = s->capacity > SHRINK_ABOVE && n <= s->capacity / 2;
    if (n <= s->capacity && !shrink) return 0;
    float **slots[STATE_BUFFERS];
    size_t counts[STATE_BUFFERS];
    float *fresh[STATE_BUFFERS] = {0};
    state_buffers(s, (size_t)n, slots, counts);
    for (int i = 0; i < STATE_BUFFERS; i++) {
        fresh[i] = malloc(counts[i] * sizeof(float));
        if (fresh[i]) continue;
        for (int j = 0; j < i; j++) free(fresh[j]);
        return shrink ? 0 : -1; /* a shrink that cannot be had keeps the larger buffers */
    }
    for (int i = 0; i < STATE_BUFFERS; i++) {
        free(*slots[i]);
        *slots[i] = fresh[i];
    }
    s->capacity = n;
    return 0;
}

int all_finite(const float *values, size_t count) {
    for (size_t i = 0; i < count; i++)
        if (!isfinite(values[i])) return 0;
    return 1;
}

static void add_embedding_row(const qmatrix *table, int row, float *out, float *tmp) {
    dequantize_row(table, row, tmp);
    for (int i = 0; i < table->cols; i++) out[i] += tmp[i];
}

/* copy_length: positions count from each copy's start (the run's n when it is one sequence). */
static void embed(const bert_model *m, const int32_t *ids, const int32_t *type_ids, int n, int copy_length, float *x) {
    float tmp[4096];
    for (int t = 0; t < n; t++) {
        float *row = x + (size_t)t * m->hidden;
        dequantize_row(&m->word_emb, ids[t], row);
        add_embedding_row(&m->pos_emb, t % copy_length, row, tmp);
        add_embedding_row(&m->type_emb, type_ids ? type_ids[t] : 0, row, tmp);
    }
    layer_norm(x, n, m->hidden, m->emb_ln_gamma, m->emb_ln_beta, m->ln_eps);
}

/* Tokens per copy of the run (bert_run_options.copy_length; n for one sequence). */
static int copy_length_of(const bert_state *s, const bert_run_options *o, int n) {
    (void)s;
    return o->copy_length > 0 ? o->copy_length : n;
}

/* 1 when layer l computes only the rows a reading needs (the last layer of a run with
 * final_row_only): K and V of every row, what the read rows attend to, and of the read rows alone
 * the query, the attention and the output. Each of these rows is computed by itself (a
 * product's row depends on its own input row only), so its numbers are those of a whole layer. */
static int reads_rows(const bert_state *s, int l) { return s->options.final_row_only && l == s->model->layers - 1; }

/* The rows read: one per copy of a run of copies, else the one final_row. */
static int read_row_count(const bert_state *s) {
    return s->options.copy_length > 0 ? s->n / s->options.copy_length : 1;
}

/* Read row `copy` counted from its copy's start, and counted from the run's first token. */
static int read_row_in_copy(const bert_state *s, int copy) {
    return s->options.copy_length > 0 ? s->options.final_rows[copy] : s->options.final_row;
}

static int read_row(const bert_state *s, int copy) {
    return copy * copy_length_of(s, &s->options, s->n) + read_row_in_copy(s, copy);
}

/* Rows first … first + count − 1 of one copy (`length` tokens from q, k, v): scores = q·k / √d
 * (A·Bᵀ over the head's 64 columns, written straight into the stored probabilities), softmax
 * over keys in place, then context = P·V (A·B, broadcast form). */
static int attend_rows(const float *q, const float *k, const float *v, int stride, int size, int length, int first,
                       int count, float *probs, float *ctx) {
    const size_t at = (size_t)first * (size_t)stride;
    probs += (size_t)first * (size_t)length;
    gemm_nt(count, length, size, q + at, stride, k, stride, 1.0f / sqrtf((float)size), probs, length);
    if (!all_finite(probs, (size_t)count * (size_t)length)) return BERT_ERR_NOT_FINITE;
    for (int i = 0; i < count; i++) softmax(probs + (size_t)i * length, length);
    gemm_nn(count, size, length, probs, length, v, stride, ctx + at, stride);
    return BERT_OK;
}

/* Head `head` of layer `layer`: every row, or the rows read (reads_rows); for each copy of a run
 * of copies, within the copy. */
static int attend_head(const bert_state *s, int layer, int head) {
    const bert_model *m = s->model;
    const int n = s->n, hidden = m->hidden, size = hidden / m->heads;
    const int length = copy_length_of(s, &s->options, n), some = reads_rows(s, layer);
    const size_t base = hidden_index(s, layer, 0);
    const int off = head * size;
    for (int first = 0; first < n; first += length) {
        const size_t rows = base + (size_t)first * (size_t)hidden + (size_t)off;
        float *probs = s->attention + copy_attention_index(s, layer, head, first, length);
        const int row = some ? read_row_in_copy(s, first / length) : 0;
        const int status = attend_rows(s->query + rows, s->key + rows, s->value + rows, hidden, size, length, row,
                                       some ? 1 : length, probs, s->context + rows);
        if (status != BERT_OK) return status;
    }
    return BERT_OK;
}

/* y += x over count floats: a residual connection. */
static void add_residual(float *y, const float *x, size_t count) {
    for (size_t i = 0; i < count; i++) y[i] += x[i];
}

/* A removed head contributes nothing to W_O: its columns of the context are zeroed. */
static void remove_head(const bert_state *s, int layer, int head) {
    const int hidden = s->model->hidden, size = hidden / s->model->heads;
    float *ctx = s->context + hidden_index(s, layer, 0) + (size_t)head * (size_t)size;
    for (int i = 0; i < s->n; i++) memset(ctx + (size_t)i * (size_t)hidden, 0, (size_t)size * sizeof *ctx);
}

/* Every input of a kernel that rounds floats to integers (the products' activations, softmax's
 * exp) is checked to be finite first, so weights that overflow end the run with
 * BERT_ERR_NOT_FINITE instead of reaching a NaN-to-integer conversion. */

/* Q, K and V of tokens first … first + count − 1 of layer l; of a layer that reads some rows,
 * K and V, and Q of the rows read among them. */
static int project(bert_state *s, int l, int first, int count) {
    const bert_model *m = s->model;
    const bert_layer *L = &m->layer[l];
    const int hidden = m->hidden, some = reads_rows(s, l);
    const size_t at = hidden_index(s, l, first), rows = (size_t)count * (size_t)hidden;
    const qmatrix *qkv[3] = {&L->query, &L->key, &L->value};
    const float *qkv_bias[3] = {L->query_bias, L->key_bias, L->value_bias};
    float *qkv_out[3] = {some ? NULL : s->query + at, s->key + at, s->value + at};
    linear_shared(s->layer_input + at, count, 3, qkv, qkv_bias, qkv_out);
    int finite = (some || all_finite(qkv_out[0], rows)) && all_finite(qkv_out[1], rows) && all_finite(qkv_out[2], rows);
    for (int copy = 0; some && finite && copy < read_row_count(s); copy++) {
        const int row = read_row(s, copy);
        if (row < first || row >= first + count) continue;
        const size_t row_at = hidden_index(s, l, row);
        float *query_only[3] = {s->query + row_at, NULL, NULL}; /* the same quantization as K and V */
        linear_shared(s->layer_input + row_at, 1, 3, qkv, qkv_bias, query_only);
        finite = all_finite(query_only[0], (size_t)hidden);
    }
    return finite ? BERT_OK : BERT_ERR_NOT_FINITE;
}

/* After the last head: the removed heads' context is zeroed, and the context checked (of the
 * rows read, in a layer that reads some rows: the others are not computed). */
static int finish_heads(bert_state *s, int l) {
    const bert_model *m = s->model;
    const uint8_t *removed = s->options.removed_heads;
    for (int h = 0; removed && h < m->heads; h++)
        if (removed[l * m->heads + h]) remove_head(s, l, h);
    if (!reads_rows(s, l)) {
        const size_t rows = (size_t)s->n * (size_t)m->hidden;
        return all_finite(s->context + hidden_index(s, l, 0), rows) ? BERT_OK : BERT_ERR_NOT_FINITE;
    }
    for (int copy = 0; copy < read_row_count(s); copy++)
        if (!all_finite(s->context + hidden_index(s, l, read_row(s, copy)), (size_t)m->hidden))
            return BERT_ERR_NOT_FINITE;
    return BERT_OK;
}

/* Rows first … first + count − 1 of layer l's output: the attention output W_O, the residual,
 * LayerNorm, the FFN, the residual, LayerNorm, into the next layer's input. Each row needs only
 * its own context row, so the rows can go block by block. The FFN's activations and output go to
 * the scratch. */
static int layer_output(bert_state *s, int l, int first, int count) {
    const bert_model *m = s->model;
    const bert_layer *L = &m->layer[l];
    const int hidden = m->hidden;
    const size_t kept = (size_t)count * (size_t)hidden;
    const float *x = s->layer_input + hidden_index(s, l, first);
    float *next = s->layer_input + hidden_index(s, l + 1, first);
    float *ffn_hidden = s->scratch, *ffn_output = s->scratch + (size_t)count * (size_t)m->ffn;

    linear(s->context + hidden_index(s, l, first), count, &L->attn_out, L->attn_out_bias, next);
    add_residual(next, x, kept); /* next = x + attention output */
    layer_norm(next, count, hidden, L->attn_ln_gamma, L->attn_ln_beta, m->ln_eps);
    if (!all_finite(next, kept)) return BERT_ERR_NOT_FINITE;

    linear(next, count, &L->ffn_in, L->ffn_in_bias, ffn_hidden);
    gelu(ffn_hidden, count * m->ffn);
    if (!all_finite(ffn_hidden, (size_t)count * (size_t)m->ffn)) return BERT_ERR_NOT_FINITE;
    linear(ffn_hidden, count, &L->ffn_out, L->ffn_out_bias, ffn_output);
    add_residual(next, ffn_output, kept); /* next = next + FFN output */
    layer_norm(next, count, hidden, L->ffn_ln_gamma, L->ffn_ln_beta, m->ln_eps);
    return all_finite(next, kept) ? BERT_OK : BERT_ERR_NOT_FINITE;
}

/* The final rows and copies of the options fit n tokens. */
static int valid_copies(const bert_run_options *o, int n) {
    const int length = o->copy_length;
    if (length < 0 || (length > 0 && (n % length != 0 || (o->final_row_only && !o->final_rows)))) return 0;
    if (!o->final_row_only) return 1;
    if (length == 0) return o->final_row >= 0 && o->final_row < n;
    for (int c = 0; c < n / length; c++)
        if (o->final_rows[c] < 0 || o->final_rows[c] >= length) return 0;
    return 1;
}

static int valid_tokens(const bert_model *m, const int32_t *ids, const int32_t *type_ids, int n) {
    if (n < 1 || n > m->max_positions) return 0;
    for (int t = 0; t < n; t++) {
        if (ids[t] < 0 || ids[t] >= m->vocab_size) return 0;
        if (type_ids && (type_ids[t] < 0 || type_ids[t] >= m->type_vocab)) return 0;
    }
    return 1;
}

/* Tokens per block of a phase whose work is `macs_per_token` per token: about step_macs of work,
 * a multiple of 4 (the products' token tiles), at least 4; every token at once without a budget. */
static int block_tokens(const bert_state *s, long long macs_per_token) {
    const long long budget = s->options.step_macs;
    if (budget <= 0) return s->n;
    long long tokens = budget / macs_per_token;
    tokens -= tokens % 4;
    return tokens < 4 ? 4 : tokens > s->n ? s->n : (int)tokens;
}

/* What a layer's output phase steps over, first … end − 1: the rows, or in a layer that reads
 * some rows the indices of those rows (read_row). */
static void output_rows(const bert_state *s, int l, int *first, int *end) {
    *first = 0;
    *end = reads_rows(s, l) ? read_row_count(s) : s->n;
}

/* A run whose first layer's context is given: its removed heads zeroed, then its output phase. */
static int begin_at_output(bert_state *s, int l) {
    int end;
    const int status = finish_heads(s, l);
    if (status != BERT_OK) {
        s->cursor.failed = 1;
        return status;
    }
    s->cursor.phase = BERT_PHASE_OUTPUT;
    output_rows(s, l, &s->cursor.index, &end);
    return BERT_OK;
}

int bert_begin(bert_state *s, const int32_t *ids, const int32_t *type_ids, int n, const bert_run_options *o) {
    static const bert_run_options defaults = {0};
    const bert_model *m = s->model;
    const bert_run_options *options = o ? o : &defaults;
    const int first = options->first_layer;
    s->cursor = (bert_cursor){m->layers, BERT_PHASE_PROJECT, 0, 1}; /* nothing to step until begun */
    if (first < 0 || first > m->layers || !valid_copies(options, n)) return BERT_ERR;
    if (first > 0 || !ids) {
        if (n != s->n || n < 1 || n > s->capacity) return BERT_ERR; /* resumes the stored run */
    } else {
        if (options->context_given) return BERT_ERR; /* a fresh run has no context yet */
        if (!valid_tokens(m, ids, type_ids, n) || bert_reserve(s, n)) return BERT_ERR;
        s->n = n;
        embed(m, ids, type_ids, n, copy_length_of(s, options, n), s->layer_input);
        if (!all_finite(s->layer_input, (size_t)n * (size_t)m->hidden)) return BERT_ERR_NOT_FINITE;
    }
    s->options = *options;
    s->cursor = (bert_cursor){first, BERT_PHASE_PROJECT, 0, 0};
    return options->context_given && first < m->layers ? begin_at_output(s, first) : BERT_OK;
}

int bert_step(bert_state *s) {
    const bert_model *m = s->model;
    bert_cursor *c = &s->cursor;
    if (c->failed) return BERT_ERR;
    if (c->layer >= m->layers) return BERT_OK;
    const int l = c->layer, hidden = m->hidden;
    int status, count, end;
    switch (c->phase) {
    case BERT_PHASE_PROJECT:
        count = block_tokens(s, 3LL * hidden * hidden);
        count = count < s->n - c->index ? count : s->n - c->index;
        status = project(s, l, c->index, count);
        c->index += count;
        if (c->index >= s->n) c->phase = BERT_PHASE_HEADS, c->index = 0;
        break;
    case BERT_PHASE_HEADS:
        status = attend_head(s, l, c->index);
        if (++c->index == m->heads) {
            if (status == BERT_OK) status = finish_heads(s, l);
            c->phase = BERT_PHASE_OUTPUT;
            output_rows(s, l, &c->index, &end);
        }
        break;
    default:
        output_rows(s, l, &count, &end);
        if (reads_rows(s, l)) { /* the row read of copy c->index */
            status = layer_output(s, l, read_row(s, c->index), 1);
            c->index++;
        } else {
            count = block_tokens(s, (long long)hidden * (hidden + 2LL * m->ffn));
            count = count < end - c->index ? count : end - c->index;
            status = layer_output(s, l, c->index, count);
            c->index += count;
        }
        if (c->index >= end) c->layer++, c->phase = BERT_PHASE_PROJECT, c->index = 0;
    }
    if (status != BERT_OK) c->failed = 1;
    return status;
}

int bert_next_layer(const bert_state *s) { return s->cursor.layer; }

int bert_run_complete(const bert_state *s) { return !s->cursor.failed && s->cursor.layer >= s->model->layers; }

int bert_run(bert_state *s, const int32_t *ids, const int32_t *type_ids, int n, const bert_run_options *o) {
    int status = bert_begin(s, ids, type_ids, n, o);
    while (status == BERT_OK && !bert_run_complete(s)) status = bert_step(s);
    return status;
}

int bert_forward(bert_state *s, const int32_t *ids, const int32_t *type_ids, int n) {
    return bert_run(s, ids, type_ids, n, NULL);
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

/* logits[count][vocab] of `count` final hidden states; BERT_OK, BERT_ERR (memory) or
 * BERT_ERR_NOT_FINITE. Rows go through the decoder together: one matrix product of `count`
 * tokens costs much less than `count` products of one. */
static int mlm_logits(const bert_model *m, const float *hidden, int count, float *logits) {
    float *transformed = malloc((size_t)count * (size_t)m->hidden * sizeof *transformed);
    if (!transformed) return BERT_ERR;
    const size_t rows = (size_t)count * (size_t)m->hidden;
    linear(hidden, count, &m->mlm_transform, m->mlm_transform_bias, transformed);
    gelu(transformed, count * m->hidden);
    layer_norm(transformed, count, m->hidden, m->mlm_ln_gamma, m->mlm_ln_beta, m->ln_eps);
    const int finite = all_finite(transformed, rows); /* before the decoder rounds it to integers */
    if (finite) linear(transformed, count, &m->word_emb, m->mlm_bias, logits); /* the tied decoder */
    free(transformed);
    return finite && all_finite(logits, (size_t)count * (size_t)m->vocab_size) ? BERT_OK : BERT_ERR_NOT_FINITE;
}

int bert_mlm_top_k(const bert_state *s, int position, int k, int32_t *ids, float *probs) {
    const bert_model *m = s->model;
    if (position < 0 || position >= s->n || k < 1 || k > m->vocab_size) return BERT_ERR;
    float *logits = malloc((size_t)m->vocab_size * sizeof(float));
    if (!logits) return BERT_ERR;
    const int status = mlm_logits(m, s->layer_input + hidden_index(s, m->layers, position), 1, logits);
    if (status == BERT_OK) {
        softmax(logits, m->vocab_size);
        top_k(logits, m->vocab_size, k, ids, probs);
    }
    free(logits);
    return status;
}

int bert_mlm_log_probs(const bert_model *m, const float *hidden, int count, float *log_probs) {
    const int status = mlm_logits(m, hidden, count, log_probs);
    if (status != BERT_OK) return status;
    for (int r = 0; r < count; r++) log_softmax(log_probs + (size_t)r * (size_t)m->vocab_size, m->vocab_size);
    return BERT_OK;
}
