#include "attn.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "forward.h"
#include "kernels.h"
#include "tokenizer.h"
#include "weights.h"

typedef struct engine_parts engine_parts;

struct attn_engine {
    bert_model model;
    tokenizer *tok;
    int32_t cls_id, sep_id, mask_id;
    engine_parts *parts; /* NULL: the whole file was checked at create */
    int32_t part_count;
};

static void parts_destroy(engine_parts *p);
static int rows_ready(const attn_engine *e, const int32_t *ids, int n);
static int layer_ready(const attn_engine *e, int layer);
static int all_parts_ready(const attn_engine *e);

/* The work of one attn_session_step, in multiply-adds (bert_run_options.step_macs): about a
 * millisecond of wasm on a laptop, so a page can run a 512-token text a piece at a time between
 * keystrokes. */
enum { STEP_MACS = 1 << 24 };

struct attn_session {
    const attn_engine *engine;
    bert_state state;
    int32_t ids[BERT_MAX_TOKENS], starts[BERT_MAX_TOKENS], ends[BERT_MAX_TOKENS];
    int32_t type_ids[BERT_MAX_TOKENS];
    unsigned char kinds[BERT_MAX_TOKENS]; /* ATTN_MASS_WORD, _CLS, _SEP or _PUNCTUATION */
    int n, truncated, full_length, segment_count;
    uint8_t removed[BERT_MAX_LAYERS * BERT_MAX_HEADS]; /* heads every run removes */
    int removed_count;
    /* Head importance: `masked` holds the run with the token at `masked_position` replaced by
     * [MASK] (-1: none yet), `probe` the runs with one more head or layer removed. Both are
     * given back at the next run. */
    bert_state masked, probe;
    int masked_position;
    /* Head importance of a batch of targets: `batch` holds copies of the run side by side, each
     * with its target masked (targets batch_first … batch_first + batch_count − 1; batch_count 0:
     * none yet), `batch_probe` its runs with one more head or layer removed; the answer, the
     * top-1 and log p of the answer of each copy. Given back at the next run, as the others. */
    bert_state batch, batch_probe;
    int batch_first, batch_count;
    int32_t batch_answer[BERT_MAX_TOKENS], batch_top1[BERT_MAX_TOKENS];
    float batch_log_prob[BERT_MAX_TOKENS];
};

/* How far the tokenizer keeps counting, so "truncated from N" can be told without reading
 * the whole of a huge paste (attn.h). */
enum { COUNT_LIMIT = ATTN_COUNT_LIMIT };

const char *attn_status_message(int status) {
    const char *message = status_message_of(status); /* spec.h: every code's English message */
    return message ? message : UNKNOWN_STATUS_MESSAGE;
}

void *attn_alloc(size_t size) {
    const size_t rounded = (size + 15) / 16 * 16;
    return rounded < size ? NULL : aligned_alloc(16, rounded ? rounded : 16);
}

void attn_free(void *pointer) { free(pointer); }

#if defined(__EMSCRIPTEN__)
size_t attn_memory_in_use(void) { return (size_t)mallinfo().uordblks; }
size_t attn_memory_size(void) { return __builtin_wasm_memory_size(0) * (size_t)65536; }
#elif defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
size_t attn_memory_in_use(void) { return mallinfo2().uordblks + mallinfo2().hblkhd; }
size_t attn_memory_size(void) { return mallinfo2().arena + mallinfo2().hblkhd; }
#else
size_t attn_memory_in_use(void) { return 0; }
size_t attn_memory_size(void) { return 0; }
#endif

/* The tokenizer and special ids of an engine whose model is bound. */
static int finish_engine(attn_engine *e) {
    const uint32_t flags = e->model.tokenizer_flags;
    const tokenizer_settings settings = {
        .lowercase = (flags & TOKENIZER_FLAG_LOWERCASE) != 0,
        .strip_accents = (flags & TOKENIZER_FLAG_STRIP_ACCENTS) != 0,
        .chinese_chars = (flags & TOKENIZER_FLAG_CHINESE_CHARS) != 0,
        .subword_prefix = e->model.subword_prefix,
    };
    const tokenizer_status ts = tokenizer_create(e->model.vocab_text, e->model.vocab_bytes, &settings, &e->tok);
    if (ts != TOKENIZER_OK) return ts == TOKENIZER_ERR_NO_MEMORY ? ATTN_ERR_NO_MEMORY : ATTN_ERR_VOCAB;
    e->cls_id = tokenizer_special_id(e->tok, SPECIAL_CLS);
    e->sep_id = tokenizer_special_id(e->tok, SPECIAL_SEP);
    e->mask_id = tokenizer_special_id(e->tok, SPECIAL_MASK);
    return ATTN_OK;
}

int attn_engine_create(const uint8_t *bytes, size_t size, attn_engine **out) {
    *out = NULL;
    attn_engine *e = calloc(1, sizeof *e);
    if (!e) return ATTN_ERR_NO_MEMORY;
    const weights_status ws = weights_load(bytes, size, &e->model);
    const int status = ws != WEIGHTS_OK ? (int)ws : finish_engine(e);
    if (status != ATTN_OK) {
        free(e);
        return status;
    }
    e->part_count = (int32_t)((uint32_t)bytes[108] | (uint32_t)bytes[109] << 8 | (uint32_t)bytes[110] << 16 |
                              (uint32_t)bytes[111] << 24); /* the header's part_count, checked */
    *out = e;
    return ATTN_OK;
}

void attn_engine_destroy(attn_engine *e) {
    if (!e) return;
    tokenizer_destroy(e->tok);
    parts_destroy(e->parts);
    free(e);
}

void attn_engine_shape(const attn_engine *e, int32_t *shape) {
    const bert_model *m = &e->model;
    shape[ATTN_SHAPE_VOCAB] = m->vocab_size;
    shape[ATTN_SHAPE_HIDDEN] = m->hidden;
    shape[ATTN_SHAPE_LAYERS] = m->layers;
    shape[ATTN_SHAPE_HEADS] = m->heads;
    shape[ATTN_SHAPE_FFN] = m->ffn;
    shape[ATTN_SHAPE_MAX_POSITIONS] = m->max_positions;
    shape[ATTN_SHAPE_TYPE_VOCAB] = m->type_vocab;
    shape[ATTN_SHAPE_HEAD_SIZE] = m->hidden / m->heads;
}

const char *attn_engine_token(const attn_engine *e, int32_t id) { return tokenizer_token(e->tok, id); }

int32_t attn_engine_special_id(const attn_engine *e, enum special_token which) {
    return tokenizer_special_id(e->tok, which);
}

const char *attn_engine_card(const attn_engine *e) { return e->model.card; }

int attn_engine_has_mlm(const attn_engine *e) { return e->model.mlm_bias != NULL; }

int attn_engine_tokenize(const attn_engine *e, const char *text, size_t bytes, int capacity, int32_t *ids,
                         int32_t *starts, int32_t *ends, int32_t *counts) {
    if (capacity < 2) return ATTN_ERR_ARGUMENT;
    token_list list = {ids, starts, ends, 0, 0, 0};
    const int limit = capacity > INT32_MAX - COUNT_LIMIT ? INT32_MAX : capacity + COUNT_LIMIT;
    if (tokenizer_encode(e->tok, text, bytes, capacity, limit, &list) != TOKENIZER_OK) return ATTN_ERR_NO_MEMORY;
    counts[ATTN_COUNTS_WRITTEN] = list.count;
    counts[ATTN_COUNTS_TOTAL] = list.full_count;
    return ATTN_OK;
}

attn_session *attn_session_create(const attn_engine *e) {
    attn_session *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->engine = e;
    bert_state_init(&s->state, &e->model);
    bert_state_init(&s->masked, &e->model);
    bert_state_init(&s->probe, &e->model);
    bert_state_init(&s->batch, &e->model);
    bert_state_init(&s->batch_probe, &e->model);
    s->masked_position = -1;
    return s;
}

void attn_session_destroy(attn_session *s) {
    if (!s) return;
    bert_state_free(&s->state);
    bert_state_free(&s->masked);
    bert_state_free(&s->probe);
    bert_state_free(&s->batch);
    bert_state_free(&s->batch_probe);
    s->batch_count = 0;
    free(s);
}

static unsigned char token_kind(const attn_engine *e, int32_t id) {
    if (id == e->cls_id) return ATTN_MASS_CLS;
    if (id == e->sep_id) return ATTN_MASS_SEP;
    return tokenizer_is_punctuation_token(e->tok, id) ? ATTN_MASS_PUNCTUATION : ATTN_MASS_WORD;
}

/* A run that fails leaves no stale length, truncation or count behind: the session is empty,
 * and every call that reads a run refuses (ATTN_ERR_ARGUMENT) until a run succeeds. What the
 * importance runs kept is given back. */
static void forget_run(attn_session *s) {
    s->n = 0;
    s->truncated = 0;
    s->full_length = 0;
    s->segment_count = 0;
    bert_state_free(&s->masked);
    bert_state_free(&s->probe);
    bert_state_free(&s->batch);
    bert_state_free(&s->batch_probe);
    s->batch_count = 0;
    s->masked_position = -1;
}

static int run_status(int bert_status) {
    return bert_status == BERT_OK               ? ATTN_OK
           : bert_status == BERT_ERR_NOT_FINITE ? ATTN_ERR_NOT_FINITE
                                                : ATTN_ERR_NO_MEMORY;
}

/* Steps the run begun until it is complete: ATTN_OK; ATTN_ERR_NOT_LOADED when the next layer's
 * weights have not arrived (the layers done are kept: attn_session_step goes on later); any
 * other status empties the session. */
static int finish(attn_session *s) {
    int status = ATTN_OK;
    while (status == ATTN_OK && !bert_run_complete(&s->state)) status = attn_session_step(s);
    return status;
}

/* Begins the session's tokens from `first_layer` (0: from the embeddings), in steps of
 * `step_macs` (0: whole phases); ATTN_OK or a status (the session is then empty). */
static int begin_from(attn_session *s, int first_layer, long long step_macs) {
    const bert_run_options options = {s->removed_count ? s->removed : NULL, first_layer, 0, 0, step_macs, 0, 0, NULL};
    const int32_t *ids = first_layer == 0 ? s->ids : NULL;
    const int status = run_status(bert_begin(&s->state, ids, s->type_ids, s->n, &options));
    if (status != ATTN_OK) forget_run(s);
    return status;
}

/* A new run of the session's tokens: its rows must have arrived. */
static int begin(attn_session *s, long long step_macs) {
    const int n = s->n;
    bert_state_free(&s->masked);
    bert_state_free(&s->probe);
    bert_state_free(&s->batch);
    bert_state_free(&s->batch_probe);
    s->batch_count = 0;
    s->masked_position = -1;
    if (!rows_ready(s->engine, s->ids, n)) {
        forget_run(s);
        return ATTN_ERR_NOT_LOADED;
    }
    for (int t = 0; t < n; t++) s->kinds[t] = token_kind(s->engine, s->ids[t]);
    return begin_from(s, 0, step_macs);
}

/* A run made whole: begun in whole phases, then finished. */
static int run(attn_session *s) {
    const int status = begin(s, 0);
    return status == ATTN_OK ? finish(s) : status;
}

int attn_session_step(attn_session *s) {
    if (!s->n) return ATTN_ERR_ARGUMENT;
    if (bert_run_complete(&s->state)) return ATTN_OK;
    if (!layer_ready(s->engine, bert_next_layer(&s->state))) return ATTN_ERR_NOT_LOADED;
    const int status = run_status(bert_step(&s->state));
    if (status != ATTN_OK) forget_run(s);
    return status;
}

int attn_session_layers_done(const attn_session *s) { return s->n ? bert_next_layer(&s->state) : 0; }

/* Tokenizes `text` into the session (forgetting its run): ATTN_OK or NO_MEMORY. */
static int take_text(attn_session *s, const char *text, size_t bytes) {
    const bert_model *m = &s->engine->model;
    token_list list = {s->ids, s->starts, s->ends, 0, 0, 0};
    forget_run(s);
    if (tokenizer_encode(s->engine->tok, text, bytes, m->max_positions, COUNT_LIMIT, &list) != TOKENIZER_OK)
        return ATTN_ERR_NO_MEMORY;
    s->n = list.count;
    s->truncated = list.truncated;
    s->full_length = list.full_count;
    s->segment_count = 1;
    memset(s->type_ids, 0, (size_t)s->n * sizeof *s->type_ids);
    return ATTN_OK;
}

/* Tokenizes the pair `[CLS] a [SEP] b [SEP]` into the session: ATTN_OK, PAIR or NO_MEMORY. */
static int take_pair(attn_session *s, const char *a, size_t a_bytes, const char *b, size_t b_bytes) {
    const bert_model *m = &s->engine->model;
    token_list list = {s->ids, s->starts, s->ends, 0, 0, 0};
    int first_count = 0;
    forget_run(s);
    if (m->type_vocab < 2) return ATTN_ERR_PAIR;
    if (tokenizer_encode_pair(s->engine->tok, a, a_bytes, b, b_bytes, m->max_positions, COUNT_LIMIT, &list,
                              &first_count) != TOKENIZER_OK)
        return ATTN_ERR_NO_MEMORY;
    s->n = list.count;
    s->truncated = list.truncated;
    s->full_length = list.full_count;
    s->segment_count = 2;
    for (int t = 0; t < s->n; t++) s->type_ids[t] = t >= first_count;
    return ATTN_OK;
}

int attn_session_run_text(attn_session *s, const char *text, size_t bytes) {
    const int status = take_text(s, text, bytes);
    return status == ATTN_OK ? run(s) : status;
}

int attn_session_begin_text(attn_session *s, const char *text, size_t bytes) {
    const int status = take_text(s, text, bytes);
    return status == ATTN_OK ? begin(s, STEP_MACS) : status;
}

int attn_session_run_pair(attn_session *s, const char *a, size_t a_bytes, const char *b, size_t b_bytes) {
    const int status = take_pair(s, a, a_bytes, b, b_bytes);
    return status == ATTN_OK ? run(s) : status;
}

int attn_session_run_typed_ids(attn_session *s, const int32_t *ids, const int32_t *type_ids, int n) {
    const bert_model *m = &s->engine->model;
    forget_run(s);
    if (!ids || n < 1 || n > m->max_positions) return ATTN_ERR_ARGUMENT;
    for (int t = 0; t < n; t++) {
        if (ids[t] < 0 || ids[t] >= m->vocab_size) return ATTN_ERR_ARGUMENT;
        if (type_ids && (type_ids[t] < 0 || type_ids[t] >= m->type_vocab)) return ATTN_ERR_ARGUMENT;
    }
    memcpy(s->ids, ids, (size_t)n * sizeof *ids);
    if (type_ids) memcpy(s->type_ids, type_ids, (size_t)n * sizeof *type_ids);
    else memset(s->type_ids, 0, (size_t)n * sizeof *s->type_ids);
    memset(s->starts, 0, (size_t)n * sizeof *ids);
    memset(s->ends, 0, (size_t)n * sizeof *ids);
    s->n = n;
    s->truncated = 0;
    s->full_length = n;
    return run(s);
}

int attn_session_run_ids(attn_session *s, const int32_t *ids, int n) {
    return attn_session_run_typed_ids(s, ids, NULL, n);
}

int attn_session_length(const attn_session *s) { return s->n; }
int attn_session_truncated(const attn_session *s) { return s->truncated; }
int attn_session_full_length(const attn_session *s) { return s->full_length; }
const int32_t *attn_session_ids(const attn_session *s) { return s->ids; }
const int32_t *attn_session_starts(const attn_session *s) { return s->starts; }
const int32_t *attn_session_ends(const attn_session *s) { return s->ends; }
const int32_t *attn_session_type_ids(const attn_session *s) { return s->type_ids; }
int attn_session_segment(const attn_session *s, int token) {
    return token >= 0 && token < s->n ? s->type_ids[token] : -1;
}
int attn_session_segment_count(const attn_session *s) { return s->segment_count; }
const float *attn_session_attention(const attn_session *s) { return s->n ? s->state.attention : NULL; }

const float *attn_session_hidden(const attn_session *s, int layer) {
    if (!s->n || layer < 0 || layer > attn_session_layers_done(s)) return NULL;
    return s->state.layer_input + hidden_index(&s->state, layer, 0);
}

/* ATTN_OK when the run has layer, head and row, NOT_LOADED when the layer is not computed yet
 * (a run in steps, or one waiting for weights), ARGUMENT otherwise. */
static int valid(const attn_session *s, int layer, int head, int row) {
    const bert_model *m = &s->engine->model;
    const int ok =
        s->n > 0 && layer >= 0 && layer < m->layers && head >= 0 && head < m->heads && row >= 0 && row < s->n;
    if (!ok) return ATTN_ERR_ARGUMENT;
    return layer < attn_session_layers_done(s) ? ATTN_OK : ATTN_ERR_NOT_LOADED;
}

/* The statistics of a row of n probabilities into out[ATTN_ROW_STATS_COUNT]. */
static void write_row_stats(const float *row, int n, double *out) {
    const row_stats r = analyse_row(row, n);
    out[ATTN_ROW_STATS_SUM] = r.sum;
    out[ATTN_ROW_STATS_MAX] = r.max;
    out[ATTN_ROW_STATS_ARGMAX] = r.argmax;
    out[ATTN_ROW_STATS_RATIO] = r.ratio;
    out[ATTN_ROW_STATS_ENTROPY] = r.entropy;
    out[ATTN_ROW_STATS_EFFECTIVE] = r.effective;
    out[ATTN_ROW_STATS_NORMALIZED] = r.normalized;
}

int attn_session_row_stats(const attn_session *s, int layer, int head, int row, double *out) {
    const int status = valid(s, layer, head, row);
    if (status != ATTN_OK) return status;
    write_row_stats(s->state.attention + attention_index(&s->state, layer, head, row), s->n, out);
    return ATTN_OK;
}

static int status_of(int result) { return result < 0 ? ATTN_ERR_ARGUMENT : ATTN_OK; }

int attn_session_rollout(const attn_session *s, int last_layer, float *out) {
    const int status = valid(s, last_layer, 0, 0);
    if (status != ATTN_OK) return status;
    return attention_rollout(&s->state, last_layer, out) < 0 ? ATTN_ERR_NO_MEMORY : ATTN_OK;
}

int attn_session_head_roles(const attn_session *s, int layer, int head, float *mass) {
    const int status = valid(s, layer, head, 0);
    if (status != ATTN_OK) return -status;
    return head_roles(&s->state, layer, head, s->kinds, mass);
}

int attn_session_contributions(const attn_session *s, int layer, int head, int row, float *out) {
    const int status = valid(s, layer, head, row);
    if (status != ATTN_OK) return status;
    return status_of(attention_contributions(&s->state, layer, head, row, out));
}

int attn_session_row_scaled(const attn_session *s, int layer, int head, int row, int divide_by_sqrt_d, float *out,
                            double *stats) {
    const int status = valid(s, layer, head, row);
    if (status != ATTN_OK) return status;
    const int scaled = status_of(attention_row_scaled(&s->state, layer, head, row, divide_by_sqrt_d, out));
    if (scaled == ATTN_OK && stats) write_row_stats(out, s->n, stats);
    return scaled;
}

int attn_session_walkthrough(const attn_session *s, int layer, int token, float *out) {
    const int status = valid(s, layer, 0, token);
    if (status != ATTN_OK) return status;
    return status_of(layer_walkthrough(&s->state, layer, token, out));
}

int attn_session_mlm(const attn_session *s, int position, int k, int32_t *ids, float *probs) {
    if (!attn_engine_has_mlm(s->engine)) return ATTN_ERR_NO_MLM;
    const int status = valid(s, s->engine->model.layers - 1, 0, position); /* the run complete */
    if (status != ATTN_OK) return status;
    if (!all_parts_ready(s->engine)) return ATTN_ERR_NOT_LOADED;
    if (k < 1 || k > s->engine->model.vocab_size) return ATTN_ERR_ARGUMENT;
    return run_status(bert_mlm_top_k(&s->state, position, k, ids, probs));
}

/* ------------------------------------------------------------------ ablation and head importance */

int attn_session_set_ablation(attn_session *s, const uint8_t *removed) {
    const bert_model *m = &s->engine->model;
    int first_changed = m->layers, count = 0;
    for (int l = 0; l < m->layers; l++)
        for (int h = 0; h < m->heads; h++) {
            const int i = l * m->heads + h;
            const uint8_t value = removed && removed[i] ? 1 : 0;
            if (value != s->removed[i] && l < first_changed) first_changed = l;
            s->removed[i] = value;
            count += value;
        }
    s->removed_count = count;
    if (!s->n || first_changed == m->layers) return ATTN_OK;
    bert_state_free(&s->masked);
    bert_state_free(&s->probe);
    bert_state_free(&s->batch);
    bert_state_free(&s->batch_probe);
    s->batch_count = 0;
    s->masked_position = -1;
    /* again from the lowest changed layer, or from the layer a run in steps has reached */
    const int done = attn_session_layers_done(s);
    const int status = begin_from(s, first_changed < done ? first_changed : done, 0);
    if (status != ATTN_OK) return status;
    const int finished = finish(s);
    return finished == ATTN_ERR_NOT_LOADED ? ATTN_OK : finished;
}

int attn_session_removed_count(const attn_session *s) { return s->removed_count; }

int attn_session_importance_targets(const attn_session *s, int32_t *positions, int32_t *masked_in_turn) {
    if (!attn_engine_has_mlm(s->engine)) return -ATTN_ERR_NO_MLM;
    if (!s->n) return -ATTN_ERR_ARGUMENT;
    const int32_t mask = s->engine->mask_id;
    int count = 0;
    for (int t = 0; t < s->n; t++)
        if (s->ids[t] == mask) positions[count++] = t;
    if (masked_in_turn) *masked_in_turn = count == 0;
    if (count) return count;
    for (int t = 0; t < s->n; t++)
        if (s->kinds[t] != 1 && s->kinds[t] != 2) positions[count++] = t;
    return count;
}

static int argmax(const float *values, int count) { return first_max_index(values, count); }

/* The run importance starts from for the word at `position`: the session's own run when a
 * [MASK] stands there, else the run with that token masked (made once and kept; its last layer
 * computes the one row read, as the probes' do). */
static int base_run(attn_session *s, int position, const bert_state **base) {
    *base = &s->state;
    if (s->ids[position] == s->engine->mask_id) return ATTN_OK;
    *base = &s->masked;
    if (s->masked_position == position) return ATTN_OK;
    int32_t ids[BERT_MAX_TOKENS];
    memcpy(ids, s->ids, (size_t)s->n * sizeof *ids);
    ids[position] = s->engine->mask_id;
    const bert_run_options options = {s->removed_count ? s->removed : NULL, 0, 1, position, 0, 0, 0, NULL};
    s->masked_position = -1;
    const int status = run_status(bert_run(&s->masked, ids, s->type_ids, s->n, &options));
    if (status == ATTN_OK) s->masked_position = position;
    return status;
}

/* The probe run: the base's input and head outputs of `layer`, then that layer's output
 * projection and the layers above with `removed` (the layer's attention is the base's: a removal
 * changes nothing before W_O); the last layer computes row `position` alone (the masked-word head
 * reads nothing else). */
static int probe_run(attn_session *s, const bert_state *base, int layer, int position, const uint8_t *removed) {
    const bert_model *m = &s->engine->model;
    if (bert_reserve(&s->probe, s->n)) return ATTN_ERR_NO_MEMORY;
    s->probe.n = s->n;
    const size_t rows = (size_t)s->n * (size_t)m->hidden;
    memcpy(s->probe.layer_input + hidden_index(&s->probe, layer, 0), base->layer_input + hidden_index(base, layer, 0),
           rows * sizeof(float));
    memcpy(s->probe.context + hidden_index(&s->probe, layer, 0), base->context + hidden_index(base, layer, 0),
           rows * sizeof(float));
    const bert_run_options options = {removed, layer, 1, position, 0, 1, 0, NULL};
    return run_status(bert_run(&s->probe, NULL, NULL, s->n, &options)); /* NULL ids: resume */
}

int attn_session_rollout_row(const attn_session *s, int last_layer, int row, float *out) {
    const int status = valid(s, last_layer, 0, row);
    if (status != ATTN_OK) return status;
    return attention_rollout_row(&s->state, last_layer, row, out) < 0 ? ATTN_ERR_NO_MEMORY : ATTN_OK;
}

/* ------------------------------------------------------------------ reading the weights in parts */

struct engine_parts {
    weights_layout layout;
    int32_t missing;                        /* parts not ready */
    int32_t core_missing;                   /* parts holding arrays every run reads, not ready */
    int32_t layer_missing[BERT_MAX_LAYERS]; /* parts holding a layer's arrays, not ready */
    uint8_t *ready;                         /* [part_count] */
    uint8_t *core;                          /* [part_count]: 1 where an array every run reads lies */
    uint16_t *layers;                       /* [part_count]: bit l set where an array of layer l lies */
};

/* Calls mark(p, layer) for every part an array of the `role` overlaps. */
static void mark_parts(engine_parts *parts, uint8_t role, void (*mark)(engine_parts *, int64_t, int)) {
    const weights_layout *l = &parts->layout;
    for (int i = 0; i < l->array_count; i++) {
        const weights_array *a = &l->arrays[i];
        if (a->role != role || a->offset + a->bytes <= l->head_bytes) continue;
        int64_t p = weights_part_of_offset(l, a->offset > l->head_bytes ? a->offset : l->head_bytes);
        const int64_t last = weights_part_of_offset(l, a->offset + a->bytes - 1);
        for (; p >= 0 && p <= last; p++) mark(parts, p, a->layer);
    }
}

static void mark_core(engine_parts *parts, int64_t p, int layer) {
    (void)layer;
    parts->core[p] = 1;
}

static void mark_layer(engine_parts *parts, int64_t p, int layer) { parts->layers[p] |= (uint16_t)(1u << layer); }

static engine_parts *parts_create(uint32_t count) {
    engine_parts *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->ready = calloc(count ? count : 1, 2); /* ready, then core */
    p->layers = calloc(count ? count : 1, sizeof *p->layers);
    if (!p->ready || !p->layers) {
        parts_destroy(p);
        return NULL;
    }
    p->core = p->ready + count;
    return p;
}

static void parts_destroy(engine_parts *p) {
    if (p) {
        free(p->ready);
        free(p->layers);
    }
    free(p);
}

/* A part is in: what it held is one part nearer to ready. */
static void part_counted(engine_parts *p, int32_t index) {
    p->missing--;
    p->core_missing -= p->core[index];
    for (int l = 0; l < BERT_MAX_LAYERS; l++) p->layer_missing[l] -= (p->layers[index] >> l) & 1;
}

int attn_engine_create_partial(const uint8_t *bytes, size_t size, attn_engine **out) {
    *out = NULL;
    attn_engine *e = calloc(1, sizeof *e);
    weights_layout *layout = malloc(sizeof *layout);
    int status = e && layout ? ATTN_OK : ATTN_ERR_NO_MEMORY;
    if (status == ATTN_OK) status = (int)weights_load_head(bytes, size, &e->model, layout);
    if (status == ATTN_OK && !(e->parts = parts_create(layout->part_count))) status = ATTN_ERR_NO_MEMORY;
    if (status == ATTN_OK) status = finish_engine(e);
    if (status != ATTN_OK) {
        if (e) parts_destroy(e->parts);
        free(e);
        free(layout);
        return status;
    }
    engine_parts *p = e->parts;
    p->layout = *layout;
    free(layout);
    mark_parts(p, WEIGHTS_ROLE_CORE, mark_core);
    mark_parts(p, WEIGHTS_ROLE_LAYER, mark_layer);
    p->missing = e->part_count = (int32_t)p->layout.part_count;
    for (uint32_t i = 0; i < p->layout.part_count; i++) {
        p->core_missing += p->core[i];
        for (int l = 0; l < BERT_MAX_LAYERS; l++) p->layer_missing[l] += (p->layers[i] >> l) & 1;
    }
    *out = e;
    return ATTN_OK;
}

int attn_engine_part_arrived(attn_engine *e, int32_t index) {
    if (index < 0 || index >= attn_engine_part_count(e)) return ATTN_ERR_ARGUMENT;
    engine_parts *p = e->parts;
    if (!p || p->ready[index]) return ATTN_OK; /* a whole-file engine checked every part */
    const weights_status ws = weights_check_part(&p->layout, (uint32_t)index);
    if (ws != WEIGHTS_OK) return (int)ws;
    p->ready[index] = 1;
    part_counted(p, index);
    return ATTN_OK;
}

int32_t attn_engine_part_count(const attn_engine *e) { return e->part_count; }

int attn_engine_part_ready(const attn_engine *e, int32_t index) {
    if (index < 0 || index >= attn_engine_part_count(e)) return 0;
    return e->parts ? e->parts->ready[index] : 1;
}

int32_t attn_engine_parts_missing(const attn_engine *e) { return e->parts ? e->parts->missing : 0; }

int attn_engine_part_range(const attn_engine *e, int32_t index, size_t *offset, size_t *bytes) {
    if (!e->parts || index < 0 || index >= attn_engine_part_count(e)) return ATTN_ERR_ARGUMENT;
    const weights_part part = weights_part_at(&e->parts->layout, (uint32_t)index);
    *offset = (size_t)part.offset;
    *bytes = part.bytes;
    return ATTN_OK;
}

/* Byte range of a token's word-embedding row in the file. */
static void row_range(const attn_engine *e, int32_t id, uint64_t *first, uint64_t *last) {
    const qmatrix *w = &e->model.word_emb;
    const uint64_t row_bytes = (uint64_t)w->cols * (uint64_t)(w->bits / 8);
    *first = (uint64_t)((const uint8_t *)w->q - e->parts->layout.bytes) + (uint64_t)id * row_bytes;
    *last = *first + row_bytes - 1;
}

int32_t attn_engine_part_of_token(const attn_engine *e, int32_t id) {
    if (id < 0 || id >= e->model.vocab_size) return -2;
    if (!e->parts) return -1;
    uint64_t first, last;
    row_range(e, id, &first, &last);
    return (int32_t)weights_part_of_offset(&e->parts->layout, first);
}

static int row_ready(const attn_engine *e, int32_t id) {
    uint64_t first, last;
    row_range(e, id, &first, &last);
    int64_t p = weights_part_of_offset(&e->parts->layout, first);
    const int64_t end = weights_part_of_offset(&e->parts->layout, last);
    if (p < 0) p = 0; /* a row that starts in the head */
    for (; p >= 0 && p <= end; p++)
        if (!e->parts->ready[p]) return 0;
    return 1;
}

static int rows_ready(const attn_engine *e, const int32_t *ids, int n) {
    if (!e->parts) return 1;
    if (e->parts->core_missing > 0) return 0;
    for (int t = 0; t < n; t++)
        if (!row_ready(e, ids[t])) return 0;
    return 1;
}

static int all_parts_ready(const attn_engine *e) { return !e->parts || e->parts->missing == 0; }

static int layer_ready(const attn_engine *e, int layer) { return !e->parts || e->parts->layer_missing[layer] == 0; }

int attn_engine_layers_ready(const attn_engine *e) {
    int ready = 0;
    while (ready < e->model.layers && layer_ready(e, ready)) ready++;
    return ready;
}

int attn_engine_layer_parts(const attn_engine *e, int32_t layer, int32_t *first, int32_t *count) {
    if (layer < 0 || layer >= e->model.layers) return ATTN_ERR_ARGUMENT;
    *first = *count = 0;
    for (int32_t i = 0; e->parts && i < e->part_count; i++) {
        if (!((e->parts->layers[i] >> layer) & 1)) continue;
        if (*count == 0) *first = i;
        *count = i - *first + 1;
    }
    return ATTN_OK;
}

/* The heads removed for `entry` of `layer` (a head alone, or the whole layer: heads) on top of
 * the session's; 0 when that removes nothing more (the head, or every head of the layer, is
 * removed already: the run is the base run, bit for bit, and need not be made). */
static int removal(const attn_session *s, int layer, int entry, uint8_t *removed) {
    const int heads = s->engine->model.heads;
    int more = 0;
    memcpy(removed, s->removed, BERT_MAX_LAYERS * BERT_MAX_HEADS);
    for (int h = 0; h < heads; h++)
        if (entry == heads || entry == h) {
            more |= !removed[layer * heads + h];
            removed[layer * heads + h] = 1;
        }
    return more;
}

/* rows[0 … layer_count · (heads + 1) − 1]: the probe's final hidden state at `position` for
 * layers first … first + layer_count − 1, each head of the layer alone removed (entries
 * 0 … heads − 1), then the whole layer (entry heads); the base's row for a removal that removes
 * nothing more. */
static int gather_rows(attn_session *s, const bert_state *base, int first, int layer_count, int position, float *rows) {
    const bert_model *m = &s->engine->model;
    const size_t width = (size_t)m->hidden;
    uint8_t removed[BERT_MAX_LAYERS * BERT_MAX_HEADS];
    for (int layer = first; layer < first + layer_count; layer++)
        for (int entry = 0; entry <= m->heads; entry++) {
            const bert_state *read = base;
            if (removal(s, layer, entry, removed)) {
                const int status = probe_run(s, base, layer, position, removed);
                if (status != ATTN_OK) return status;
                read = &s->probe;
            }
            memcpy(rows, read->layer_input + hidden_index(read, m->layers, position), width * sizeof *rows);
            rows += width;
        }
    return ATTN_OK;
}

/* The masked-word head on the base's row and every probe row at once (`entries` of them), then
 * each removal's Δ and top-1. answer_given < 0: the answer is the base's top-1. */
static int read_answers(const attn_session *s, const bert_state *base, int position, const float *probes, int entries,
                        int answer_given, int32_t *answer, float *log_prob, float *delta, int32_t *top1) {
    const bert_model *m = &s->engine->model;
    const size_t vocab = (size_t)m->vocab_size, width = (size_t)m->hidden;
    float *rows = malloc((size_t)(entries + 1) * width * sizeof *rows);
    float *log_probs = malloc((size_t)(entries + 1) * vocab * sizeof *log_probs);
    int status = rows && log_probs ? ATTN_OK : ATTN_ERR_NO_MEMORY;
    if (status == ATTN_OK) {
        memcpy(rows, base->layer_input + hidden_index(base, m->layers, position), width * sizeof *rows);
        memcpy(rows + width, probes, (size_t)entries * width * sizeof *rows);
        status = run_status(bert_mlm_log_probs(m, rows, entries + 1, log_probs));
    }
    if (status == ATTN_OK) {
        answer[1] = argmax(log_probs, m->vocab_size);
        answer[0] = answer_given < 0 ? answer[1] : answer_given;
        *log_prob = log_probs[answer[0]];
        for (int entry = 0; entry < entries; entry++) {
            const float *row = log_probs + (size_t)(1 + entry) * vocab;
            delta[entry] = row[answer[0]] - *log_prob;
            top1[entry] = argmax(row, m->vocab_size);
        }
    }
    free(rows);
    free(log_probs);
    return status;
}

/* Importance of layers first … first + layer_count − 1 for the word at `position`. */
static int importance_at(attn_session *s, int position, int answer_given, int first, int layer_count, int32_t *answer,
                         float *log_prob, float *delta, int32_t *top1) {
    const bert_model *m = &s->engine->model;
    const int entries = layer_count * (m->heads + 1);
    if (!all_parts_ready(s->engine) || attn_session_layers_done(s) < m->layers) return ATTN_ERR_NOT_LOADED;
    float *probes = malloc((size_t)entries * (size_t)m->hidden * sizeof *probes);
    if (!probes) return ATTN_ERR_NO_MEMORY;
    const bert_state *base;
    int status = base_run(s, position, &base);
    if (status == ATTN_OK) status = gather_rows(s, base, first, layer_count, position, probes);
    /* the answer: the one given, else the run's own top-1 at a [MASK] of the text, else the
     * token that was there */
    if (status == ATTN_OK && answer_given < 0 && base != &s->state) answer_given = s->ids[position];
    if (status == ATTN_OK)
        status = read_answers(s, base, position, probes, entries, answer_given, answer, log_prob, delta, top1);
    free(probes);
    return status;
}

int attn_session_importance(attn_session *s, int target, int layer, int32_t *answer, float *log_prob, float *delta,
                            int32_t *top1) {
    const bert_model *m = &s->engine->model;
    int32_t positions[BERT_MAX_TOKENS];
    const int count = attn_session_importance_targets(s, positions, NULL);
    if (count < 0) return -count;
    if (target < 0 || target >= count || layer < 0 || layer >= m->layers) return ATTN_ERR_ARGUMENT;
    return importance_at(s, positions[target], -1, layer, 1, answer, log_prob, delta, top1);
}

int attn_session_importance_word(attn_session *s, int position, int32_t answer_id, int32_t *answer, float *log_prob,
                                 float *delta, int32_t *top1) {
    const attn_engine *e = s->engine;
    if (!attn_engine_has_mlm(e)) return ATTN_ERR_NO_MLM;
    if (position < 0 || position >= s->n || s->kinds[position] == ATTN_MASS_CLS ||
        s->kinds[position] == ATTN_MASS_SEP || answer_id < -1 || answer_id >= e->model.vocab_size)
        return ATTN_ERR_ARGUMENT;
    return importance_at(s, position, answer_id, 0, e->model.layers, answer, log_prob, delta, top1);
}

/* ------------------------------------------------------------------ importance of a batch of targets */

/* The batch's copies: the run once per target, each with its target masked (unless a [MASK]
 * stands there), side by side, the last layer computing each copy's target row alone; then each
 * copy's answer, top-1 and log p from one product. */
static int batch_base(attn_session *s, int first, int count, const int32_t *positions) {
    const bert_model *m = &s->engine->model;
    if (s->batch_count == count && s->batch_first == first) return ATTN_OK;
    s->batch_count = 0;
    const int n = s->n, total = count * n;
    const int32_t mask = s->engine->mask_id;
    const size_t vocab = (size_t)m->vocab_size, width = (size_t)m->hidden;
    int32_t *ids = malloc((size_t)total * 2 * sizeof *ids);
    float *rows = malloc((size_t)count * width * sizeof *rows);
    float *log_probs = malloc((size_t)count * vocab * sizeof *log_probs);
    int status = ids && rows && log_probs ? ATTN_OK : ATTN_ERR_NO_MEMORY;
    if (status == ATTN_OK) {
        int32_t *types = ids + total;
        for (int c = 0; c < count; c++) {
            memcpy(ids + c * n, s->ids, (size_t)n * sizeof *ids);
            memcpy(types + c * n, s->type_ids, (size_t)n * sizeof *types);
            ids[c * n + positions[first + c]] = mask;
        }
        const bert_run_options options = {s->removed_count ? s->removed : NULL, 0, 1, 0, 0, 0, n, positions + first};
        status = run_status(bert_run(&s->batch, ids, types, total, &options));
    }
    for (int c = 0; status == ATTN_OK && c < count; c++)
        memcpy(rows + (size_t)c * width,
               s->batch.layer_input + hidden_index(&s->batch, m->layers, c * n + positions[first + c]),
               width * sizeof *rows);
    if (status == ATTN_OK) status = run_status(bert_mlm_log_probs(m, rows, count, log_probs));
    for (int c = 0; status == ATTN_OK && c < count; c++) {
        const int position = positions[first + c];
        const float *row = log_probs + (size_t)c * vocab;
        s->batch_top1[c] = argmax(row, m->vocab_size);
        /* the answer: the run's own top-1 at a [MASK] of the text, else the token that was there */
        s->batch_answer[c] = s->ids[position] == mask ? s->batch_top1[c] : s->ids[position];
        s->batch_log_prob[c] = row[s->batch_answer[c]];
    }
    if (status == ATTN_OK) s->batch_first = first, s->batch_count = count;
    free(ids);
    free(rows);
    free(log_probs);
    return status;
}

/* The batch's copies from the input and head outputs of `layer` with `removed`, each copy's
 * last layer computing its target's row alone; rows[count][hidden]: those rows. */
static int batch_probe_run(attn_session *s, int layer, const uint8_t *removed, const int32_t *targets, float *rows) {
    const bert_model *m = &s->engine->model;
    const int n = s->n, count = s->batch_count, total = count * n;
    if (bert_reserve(&s->batch_probe, total)) return ATTN_ERR_NO_MEMORY;
    s->batch_probe.n = total;
    const size_t values = (size_t)total * (size_t)m->hidden;
    memcpy(s->batch_probe.layer_input + hidden_index(&s->batch_probe, layer, 0),
           s->batch.layer_input + hidden_index(&s->batch, layer, 0), values * sizeof(float));
    memcpy(s->batch_probe.context + hidden_index(&s->batch_probe, layer, 0),
           s->batch.context + hidden_index(&s->batch, layer, 0), values * sizeof(float));
    const bert_run_options options = {removed, layer, 1, 0, 0, 1, n, targets};
    const int status = run_status(bert_run(&s->batch_probe, NULL, NULL, total, &options));
    for (int c = 0; status == ATTN_OK && c < count; c++)
        memcpy(rows + (size_t)c * (size_t)m->hidden,
               s->batch_probe.layer_input + hidden_index(&s->batch_probe, m->layers, c * n + targets[c]),
               (size_t)m->hidden * sizeof *rows);
    return status;
}

int attn_session_importance_batch(attn_session *s, int first, int count, int layer, int entry, int32_t *answer,
                                  float *log_prob, float *delta, int32_t *top1) {
    const bert_model *m = &s->engine->model;
    int32_t positions[BERT_MAX_TOKENS];
    const int targets = attn_session_importance_targets(s, positions, NULL);
    if (targets < 0) return -targets;
    if (first < 0 || count < 1 || first + count > targets || (long long)count * s->n > m->max_positions || layer < -1 ||
        layer >= m->layers || entry < 0 || entry > m->heads)
        return ATTN_ERR_ARGUMENT;
    if (!all_parts_ready(s->engine) || attn_session_layers_done(s) < m->layers) return ATTN_ERR_NOT_LOADED;
    int status = batch_base(s, first, count, positions);
    if (status != ATTN_OK) return status;
    for (int c = 0; layer < 0 && c < count; c++) { /* the copies' run alone: its answers */
        answer[2 * c] = s->batch_answer[c];
        answer[2 * c + 1] = s->batch_top1[c];
        log_prob[c] = s->batch_log_prob[c];
    }
    if (layer < 0) return ATTN_OK;
    uint8_t removed[BERT_MAX_LAYERS * BERT_MAX_HEADS];
    if (!removal(s, layer, entry, removed)) { /* removed already: the copies' own run, Δ 0 */
        for (int c = 0; c < count; c++) {
            answer[2 * c] = s->batch_answer[c];
            answer[2 * c + 1] = top1[c] = s->batch_top1[c];
            log_prob[c] = s->batch_log_prob[c];
            delta[c] = 0;
        }
        return ATTN_OK;
    }
    const size_t vocab = (size_t)m->vocab_size;
    float *rows = malloc((size_t)count * (size_t)m->hidden * sizeof *rows);
    float *log_probs = malloc((size_t)count * vocab * sizeof *log_probs);
    status = rows && log_probs ? ATTN_OK : ATTN_ERR_NO_MEMORY;
    if (status == ATTN_OK) status = batch_probe_run(s, layer, removed, positions + first, rows);
    if (status == ATTN_OK) status = run_status(bert_mlm_log_probs(m, rows, count, log_probs));
    for (int c = 0; status == ATTN_OK && c < count; c++) {
        const float *row = log_probs + (size_t)c * vocab;
        answer[2 * c] = s->batch_answer[c];
        answer[2 * c + 1] = s->batch_top1[c];
        log_prob[c] = s->batch_log_prob[c];
        delta[c] = row[s->batch_answer[c]] - s->batch_log_prob[c];
        top1[c] = argmax(row, m->vocab_size);
    }
    free(rows);
    free(log_probs);
    return status;
}
