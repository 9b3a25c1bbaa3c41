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
    int32_t cls_id, sep_id;
    engine_parts *parts;  /* NULL: the whole file was checked at create */
    int32_t part_count;
};

static void parts_destroy(engine_parts *p);
static int rows_ready(const attn_engine *e, const int32_t *ids, int n);
static int all_parts_ready(const attn_engine *e);

struct attn_session {
    const attn_engine *engine;
    bert_state state;
    int32_t ids[BERT_MAX_TOKENS], starts[BERT_MAX_TOKENS], ends[BERT_MAX_TOKENS];
    int32_t type_ids[BERT_MAX_TOKENS];
    unsigned char kinds[BERT_MAX_TOKENS];  /* ATTN_MASS_WORD, _CLS, _SEP or _PUNCTUATION */
    int n, truncated, full_length, segment_count;
};

/* How far the tokenizer keeps counting, so "truncated from N" can be told without reading
 * the whole of a huge paste (attn.h). */
enum { COUNT_LIMIT = ATTN_COUNT_LIMIT };

const char *attn_status_message(int status) {
    const char *message = status_message_of(status);  /* spec.h: every code's English message */
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
    const tokenizer_status ts = tokenizer_create(e->model.vocab_text, e->model.vocab_bytes, &e->tok);
    if (ts != TOKENIZER_OK) return ts == TOKENIZER_ERR_NO_MEMORY ? ATTN_ERR_NO_MEMORY : ATTN_ERR_VOCAB;
    e->cls_id = tokenizer_special_id(e->tok, "[CLS]");
    e->sep_id = tokenizer_special_id(e->tok, "[SEP]");
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
                              (uint32_t)bytes[111] << 24);  /* the header's part_count, checked */
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

const char *attn_engine_token(const attn_engine *e, int32_t id) {
    return tokenizer_token(e->tok, id);
}

int32_t attn_engine_special_id(const attn_engine *e, const char *name) {
    return tokenizer_special_id(e->tok, name);
}

const char *attn_engine_card(const attn_engine *e) {
    return e->model.card;
}

int attn_engine_has_mlm(const attn_engine *e) {
    return e->model.mlm_bias != NULL;
}

int attn_engine_tokenize(const attn_engine *e, const char *text, size_t bytes, int capacity,
                         int32_t *ids, int32_t *starts, int32_t *ends, int32_t *counts) {
    if (capacity < 2) return ATTN_ERR_ARGUMENT;
    token_list list = {ids, starts, ends, 0, 0, 0};
    const int limit = capacity > INT32_MAX - COUNT_LIMIT ? INT32_MAX : capacity + COUNT_LIMIT;
    if (tokenizer_encode(e->tok, text, bytes, capacity, limit, &list) != TOKENIZER_OK)
        return ATTN_ERR_NO_MEMORY;
    counts[ATTN_COUNTS_WRITTEN] = list.count;
    counts[ATTN_COUNTS_TOTAL] = list.full_count;
    return ATTN_OK;
}

attn_session *attn_session_create(const attn_engine *e) {
    attn_session *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->engine = e;
    bert_state_init(&s->state, &e->model);
    return s;
}

void attn_session_destroy(attn_session *s) {
    if (!s) return;
    bert_state_free(&s->state);
    free(s);
}

static unsigned char token_kind(const attn_engine *e, int32_t id) {
    if (id == e->cls_id) return ATTN_MASS_CLS;
    if (id == e->sep_id) return ATTN_MASS_SEP;
    return tokenizer_is_punctuation_token(e->tok, id) ? ATTN_MASS_PUNCTUATION : ATTN_MASS_WORD;
}

/* A run that fails leaves no stale length, truncation or count behind. */
static void forget_run(attn_session *s) {
    s->n = 0;
    s->truncated = 0;
    s->full_length = 0;
    s->segment_count = 0;
}

static int run(attn_session *s) {
    if (!rows_ready(s->engine, s->ids, s->n)) {
        forget_run(s);
        return ATTN_ERR_NOT_LOADED;
    }
    for (int t = 0; t < s->n; t++) s->kinds[t] = token_kind(s->engine, s->ids[t]);
    if (bert_forward(&s->state, s->ids, s->type_ids, s->n) != 0) {
        forget_run(s);
        return ATTN_ERR_NO_MEMORY;
    }
    return ATTN_OK;
}

int attn_session_run_text(attn_session *s, const char *text, size_t bytes) {
    const bert_model *m = &s->engine->model;
    token_list list = {s->ids, s->starts, s->ends, 0, 0, 0};
    forget_run(s);
    if (tokenizer_encode(s->engine->tok, text, bytes, m->max_positions, COUNT_LIMIT, &list) !=
        TOKENIZER_OK)
        return ATTN_ERR_NO_MEMORY;
    s->n = list.count;
    s->truncated = list.truncated;
    s->full_length = list.full_count;
    s->segment_count = 1;
    memset(s->type_ids, 0, (size_t)s->n * sizeof *s->type_ids);
    return run(s);
}

int attn_session_run_pair(attn_session *s, const char *a, size_t a_bytes, const char *b, size_t b_bytes) {
    const bert_model *m = &s->engine->model;
    token_list list = {s->ids, s->starts, s->ends, 0, 0, 0};
    int first_count = 0;
    forget_run(s);
    if (m->type_vocab < 2) return ATTN_ERR_PAIR;
    if (tokenizer_encode_pair(s->engine->tok, a, a_bytes, b, b_bytes, m->max_positions, COUNT_LIMIT,
                              &list, &first_count) != TOKENIZER_OK)
        return ATTN_ERR_NO_MEMORY;
    s->n = list.count;
    s->truncated = list.truncated;
    s->full_length = list.full_count;
    s->segment_count = 2;
    for (int t = 0; t < s->n; t++) s->type_ids[t] = t >= first_count;
    return run(s);
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
    if (!s->n || layer < 0 || layer > s->engine->model.layers) return NULL;
    return s->state.layer_input + hidden_index(&s->state, layer, 0);
}

static int valid(const attn_session *s, int layer, int head, int row) {
    const bert_model *m = &s->engine->model;
    return s->n > 0 && layer >= 0 && layer < m->layers && head >= 0 && head < m->heads &&
           row >= 0 && row < s->n;
}

int attn_session_row_stats(const attn_session *s, int layer, int head, int row, double *out) {
    if (!valid(s, layer, head, row)) return ATTN_ERR_ARGUMENT;
    const row_stats r =
        analyse_row(s->state.attention + attention_index(&s->state, layer, head, row), s->n);
    out[ATTN_ROW_STATS_SUM] = r.sum;
    out[ATTN_ROW_STATS_MAX] = r.max;
    out[ATTN_ROW_STATS_ARGMAX] = r.argmax;
    out[ATTN_ROW_STATS_RATIO] = r.ratio;
    out[ATTN_ROW_STATS_ENTROPY] = r.entropy;
    out[ATTN_ROW_STATS_EFFECTIVE] = r.effective;
    out[ATTN_ROW_STATS_NORMALIZED] = r.normalized;
    return ATTN_OK;
}

static int status_of(int result) { return result < 0 ? ATTN_ERR_ARGUMENT : ATTN_OK; }

int attn_session_rollout(const attn_session *s, int last_layer, float *out) {
    if (!valid(s, last_layer, 0, 0)) return ATTN_ERR_ARGUMENT;
    return attention_rollout(&s->state, last_layer, out) < 0 ? ATTN_ERR_NO_MEMORY : ATTN_OK;
}

int attn_session_head_roles(const attn_session *s, int layer, int head, float *mass) {
    if (!valid(s, layer, head, 0)) return -ATTN_ERR_ARGUMENT;
    return head_roles(&s->state, layer, head, s->kinds, mass);
}

int attn_session_contributions(const attn_session *s, int layer, int head, int row, float *out) {
    if (!valid(s, layer, head, row)) return ATTN_ERR_ARGUMENT;
    return status_of(attention_contributions(&s->state, layer, head, row, out));
}

int attn_session_row_scaled(const attn_session *s, int layer, int head, int row,
                            int divide_by_sqrt_d, float *out) {
    if (!valid(s, layer, head, row)) return ATTN_ERR_ARGUMENT;
    return status_of(attention_row_scaled(&s->state, layer, head, row, divide_by_sqrt_d, out));
}

int attn_session_walkthrough(const attn_session *s, int layer, int token, float *out) {
    if (!valid(s, layer, 0, token)) return ATTN_ERR_ARGUMENT;
    return status_of(layer_walkthrough(&s->state, layer, token, out));
}

int attn_session_mlm(const attn_session *s, int position, int k, int32_t *ids, float *probs) {
    if (!attn_engine_has_mlm(s->engine)) return ATTN_ERR_NO_MLM;
    if (!valid(s, 0, 0, position)) return ATTN_ERR_ARGUMENT;
    if (!all_parts_ready(s->engine)) return ATTN_ERR_NOT_LOADED;
    const int r = bert_mlm_top_k(&s->state, position, k, ids, probs);
    return r < 0 ? (k < 1 || k > s->engine->model.vocab_size ? ATTN_ERR_ARGUMENT : ATTN_ERR_NO_MEMORY)
                 : ATTN_OK;
}

int attn_session_rollout_row(const attn_session *s, int last_layer, int row, float *out) {
    if (!valid(s, last_layer, 0, row)) return ATTN_ERR_ARGUMENT;
    return attention_rollout_row(&s->state, last_layer, row, out) < 0 ? ATTN_ERR_NO_MEMORY : ATTN_OK;
}

/* ------------------------------------------------------------------ reading the weights in parts */

struct engine_parts {
    weights_layout layout;
    int32_t missing;         /* parts not ready */
    int32_t core_missing;    /* parts holding arrays every run reads, not ready */
    uint8_t *ready;          /* [part_count] */
    uint8_t *core;           /* [part_count]: 1 where an array every run reads lies */
};

/* Marks every part an array of the `role` overlaps. */
static void mark_parts(const weights_layout *l, uint8_t role, uint8_t *marks) {
    for (int i = 0; i < l->array_count; i++) {
        const weights_array *a = &l->arrays[i];
        if (a->role != role || a->offset + a->bytes <= l->head_bytes) continue;
        int64_t p = weights_part_of_offset(l, a->offset > l->head_bytes ? a->offset : l->head_bytes);
        const int64_t last = weights_part_of_offset(l, a->offset + a->bytes - 1);
        for (; p >= 0 && p <= last; p++) marks[p] = 1;
    }
}

static engine_parts *parts_create(uint32_t count) {
    engine_parts *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->ready = calloc(count ? count : 1, 2);  /* ready, then core */
    if (!p->ready) {
        free(p);
        return NULL;
    }
    p->core = p->ready + count;
    return p;
}

static void parts_destroy(engine_parts *p) {
    if (p) free(p->ready);
    free(p);
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
    mark_parts(&p->layout, WEIGHTS_ROLE_CORE, p->core);
    p->missing = e->part_count = (int32_t)p->layout.part_count;
    for (uint32_t i = 0; i < p->layout.part_count; i++) p->core_missing += p->core[i];
    *out = e;
    return ATTN_OK;
}

int attn_engine_part_arrived(attn_engine *e, int32_t index) {
    if (index < 0 || index >= attn_engine_part_count(e)) return ATTN_ERR_ARGUMENT;
    engine_parts *p = e->parts;
    if (!p || p->ready[index]) return ATTN_OK;  /* a whole-file engine checked every part */
    const weights_status ws = weights_check_part(&p->layout, (uint32_t)index);
    if (ws != WEIGHTS_OK) return (int)ws;
    p->ready[index] = 1;
    p->missing--;
    p->core_missing -= p->core[index];
    return ATTN_OK;
}

int32_t attn_engine_part_count(const attn_engine *e) {
    return e->part_count;
}

int attn_engine_part_ready(const attn_engine *e, int32_t index) {
    if (index < 0 || index >= attn_engine_part_count(e)) return 0;
    return e->parts ? e->parts->ready[index] : 1;
}

int32_t attn_engine_parts_missing(const attn_engine *e) {
    return e->parts ? e->parts->missing : 0;
}

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
    if (p < 0) p = 0;  /* a row that starts in the head */
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

static int all_parts_ready(const attn_engine *e) {
    return !e->parts || e->parts->missing == 0;
}
