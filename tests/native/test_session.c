/* Native test of a session's runs under removal of heads, allocation failure and non-finite
 * weights (c/attn.h), on the default weights file:
 *
 *   make build/san/test_session && build/san/test_session web/dist/bert-mini.int8.bin
 *
 * Linked with -Wl,--wrap=malloc: allocations of more than `fail_above` bytes fail, so a run that
 * cannot get memory can be made at will. Prints "N passed, M failed". */
#define _POSIX_C_SOURCE 200809L /* posix_memalign */
#include "../../c/attn.h"
#include "../../c/forward.h"
#include "../../c/spec.h" /* header and entry offsets */
#include "../../c/weights.h"
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t fail_above = (size_t)-1;

void *__real_malloc(size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_malloc(size_t size) { return size > fail_above ? NULL : __real_malloc(size); }

typedef struct {
    int n;
    float *attention, *hidden; /* copies */
    int32_t ids[5];
    float probs[5];
} snapshot;

static snapshot take(const attn_engine *e, const attn_session *s, int mask_at) {
    int32_t shape[8];
    attn_engine_shape(e, shape);
    snapshot k = {.n = attn_session_length(s)};
    const size_t n = (size_t)k.n, attention = (size_t)shape[2] * (size_t)shape[3] * n * n;
    const size_t hidden = n * (size_t)shape[1];
    k.attention = malloc(attention * sizeof(float));
    k.hidden = malloc(hidden * sizeof(float));
    if (!k.attention || !k.hidden) exit(2);
    memcpy(k.attention, attn_session_attention(s), attention * sizeof(float));
    memcpy(k.hidden, attn_session_hidden(s, shape[2]), hidden * sizeof(float));
    if (attn_session_mlm(s, mask_at, 5, k.ids, k.probs) != ATTN_OK) exit(2);
    return k;
}

static int same(const snapshot *a, const snapshot *b, const attn_engine *e) {
    int32_t shape[8];
    attn_engine_shape(e, shape);
    const size_t n = (size_t)a->n;
    return a->n == b->n &&
           !memcmp(a->attention, b->attention, (size_t)shape[2] * (size_t)shape[3] * n * n * sizeof(float)) &&
           !memcmp(a->hidden, b->hidden, n * (size_t)shape[1] * sizeof(float)) &&
           !memcmp(a->ids, b->ids, sizeof a->ids) && !memcmp(a->probs, b->probs, sizeof a->probs);
}

static void release(snapshot *k) {
    free(k->attention);
    free(k->hidden);
}

static const char TEXT[] = "The cat sat on the [MASK].";
enum { MASK_AT = 6 };

static int run(attn_session *s, const char *text) { return attn_session_run_text(s, text, strlen(text)); }

/* attn_session_importance_word: every layer in one call gives, bit for bit, what the layer by
 * layer calls give for the same word; a given answer is read; [CLS], [SEP] and ids out of range
 * are refused. The session holds "A dog ran." (no [MASK]: position 2 is masked for the reading). */
static void check_importance_word(attn_session *s) {
    enum { LAYERS = 4, HEADS = 4, ENTRIES = LAYERS * (HEADS + 1) };
    int32_t answer[2], top1[ENTRIES], layer_answer[2], layer_top1[HEADS + 1];
    float log_prob = 0, delta[ENTRIES], layer_log_prob = 0, layer_delta[HEADS + 1];
    check(attn_session_importance_word(s, 2, -1, answer, &log_prob, delta, top1) == ATTN_OK &&
              answer[0] == attn_session_ids(s)[2],
          "importance of one word: the word that was there");
    int same_bits = 1;
    for (int l = 0; l < LAYERS; l++) {
        check(attn_session_importance(s, 1, l, layer_answer, &layer_log_prob, layer_delta, layer_top1) == ATTN_OK,
              "layer %d", l);
        same_bits &= !memcmp(layer_delta, delta + l * (HEADS + 1), sizeof layer_delta) &&
                     !memcmp(layer_top1, top1 + l * (HEADS + 1), sizeof layer_top1) && layer_log_prob == log_prob;
    }
    check(same_bits, "one call for every layer: bit-identical to the calls layer by layer");
    const int32_t other = attn_session_ids(s)[1];
    float given_log_prob = 0;
    check(attn_session_importance_word(s, 2, other, answer, &given_log_prob, delta, top1) == ATTN_OK &&
              answer[0] == other && given_log_prob != log_prob,
          "a given answer is the one read");
    check(attn_session_importance_word(s, 0, -1, answer, &log_prob, delta, top1) == ATTN_ERR_ARGUMENT, "[CLS] refused");
    check(attn_session_importance_word(s, attn_session_length(s) - 1, -1, answer, &log_prob, delta, top1) ==
              ATTN_ERR_ARGUMENT,
          "[SEP] refused");
    check(attn_session_importance_word(s, 2, -2, answer, &log_prob, delta, top1) == ATTN_ERR_ARGUMENT &&
              attn_session_importance_word(s, 2, 1 << 30, answer, &log_prob, delta, top1) == ATTN_ERR_ARGUMENT &&
              attn_session_importance_word(s, 99, -1, answer, &log_prob, delta, top1) == ATTN_ERR_ARGUMENT,
          "ids and positions out of range refused");
    /* the four targets of "A dog ran." as one batch of copies: each the target's own reading */
    int32_t batch_answer[8], batch_top1[4];
    float batch_log_prob[4], batch_delta[4];
    int batch_same =
        attn_session_importance_batch(s, 0, 4, 2, 1, batch_answer, batch_log_prob, batch_delta, batch_top1) == ATTN_OK;
    for (int c = 0; batch_same && c < 4; c++) {
        batch_same =
            attn_session_importance(s, c, 2, layer_answer, &layer_log_prob, layer_delta, layer_top1) == ATTN_OK &&
            !memcmp(&layer_delta[1], &batch_delta[c], sizeof(float)) && layer_top1[1] == batch_top1[c] &&
            layer_log_prob == batch_log_prob[c] && layer_answer[0] == batch_answer[2 * c];
    }
    check(batch_same, "a batch of copies: each target's reading, bit for bit");
    check(attn_session_importance_batch(s, 3, 2, 0, 0, batch_answer, batch_log_prob, batch_delta, batch_top1) ==
                  ATTN_ERR_ARGUMENT &&
              attn_session_importance_batch(s, 0, 0, 0, 0, batch_answer, batch_log_prob, batch_delta, batch_top1) ==
                  ATTN_ERR_ARGUMENT &&
              attn_session_importance_batch(s, 0, 1, 0, HEADS + 1, batch_answer, batch_log_prob, batch_delta,
                                            batch_top1) == ATTN_ERR_ARGUMENT &&
              attn_session_importance_batch(s, 0, 1, -2, 0, batch_answer, batch_log_prob, batch_delta, batch_top1) ==
                  ATTN_ERR_ARGUMENT,
          "batches and entries out of range refused");
}

static void test_ablation(const attn_engine *e) {
    attn_session *plain = attn_session_create(e), *other = attn_session_create(e);
    check(run(plain, TEXT) == ATTN_OK && run(other, TEXT) == ATTN_OK, "runs");
    snapshot want = take(e, plain, MASK_AT);
    uint8_t removed[16] = {0};
    check(attn_session_set_ablation(other, removed) == ATTN_OK, "an empty set");
    snapshot empty = take(e, other, MASK_AT);
    check(same(&want, &empty, e), "no head removed: bit-identical");
    removed[1 * 4 + 2] = 1;
    check(attn_session_set_ablation(other, removed) == ATTN_OK && attn_session_removed_count(other) == 1,
          "head 2.3 removed");
    snapshot gone = take(e, other, MASK_AT);
    check(!same(&want, &gone, e), "removing a head changes the run");
    const size_t n = (size_t)want.n, below = 2 * 4 * n * n; /* layers 0 and 1: its own layer's attention stays */
    check(!memcmp(want.attention, gone.attention, below * sizeof(float)), "layers up to the removed head's unchanged");
    check(attn_session_set_ablation(other, NULL) == ATTN_OK && attn_session_removed_count(other) == 0, "all back");
    snapshot back = take(e, other, MASK_AT);
    check(same(&want, &back, e), "heads put back: bit-identical");

    int32_t positions[512], in_turn = -1;
    check(attn_session_importance_targets(plain, positions, &in_turn) == 1 && positions[0] == MASK_AT && in_turn == 0,
          "one [MASK] target");
    int32_t answer[2], top1[5];
    float log_prob = 0, delta[5];
    check(attn_session_importance(plain, 0, 3, answer, &log_prob, delta, top1) == ATTN_OK, "importance");
    check(answer[0] == want.ids[0] && answer[1] == want.ids[0], "the answer is the run's top-1");
    check(fabsf(log_prob - logf(want.probs[0])) < 1e-4f, "its log-probability (%g, %g)", log_prob, logf(want.probs[0]));
    check(attn_session_importance(plain, 1, 0, answer, &log_prob, delta, top1) == ATTN_ERR_ARGUMENT,
          "target out of range");
    check(attn_session_importance(plain, 0, 4, answer, &log_prob, delta, top1) == ATTN_ERR_ARGUMENT,
          "layer out of range");
    check(run(plain, "A dog ran.") == ATTN_OK && attn_session_importance_targets(plain, positions, &in_turn) == 4 &&
              in_turn == 1 && positions[0] == 1 && positions[3] == 4,
          "without [MASK]: every token but [CLS] and [SEP]");
    check(attn_session_importance(plain, 1, 2, answer, &log_prob, delta, top1) == ATTN_OK &&
              answer[0] == attn_session_ids(plain)[2],
          "masked in turn: the answer is the token that was there");
    check_importance_word(plain);
    for (snapshot *k = (snapshot[]){want, empty, gone, back}, *end = k + 4; k < end; k++) release(k);
    attn_session_destroy(plain);
    attn_session_destroy(other);
}

/* A run that cannot get memory leaves an empty session that refuses every reading, and the next
 * run that can is as if nothing had failed. A shrink that cannot be had keeps the larger buffers. */
static void test_no_memory(const attn_engine *e) {
    attn_session *s = attn_session_create(e), *fresh = attn_session_create(e);
    check(run(s, TEXT) == ATTN_OK && run(fresh, TEXT) == ATTN_OK, "runs");
    snapshot want = take(e, fresh, MASK_AT);
    char long_text[3000] = "";
    for (int i = 0; i < 300; i++) strcat(long_text, "word ");
    fail_above = 100000;
    check(run(s, long_text) == ATTN_ERR_NO_MEMORY, "a long run without memory fails");
    fail_above = (size_t)-1;
    int32_t ids[5];
    float probs[5];
    double stats[7];
    check(attn_session_length(s) == 0 && attn_session_attention(s) == NULL && attn_session_hidden(s, 0) == NULL,
          "the session is empty");
    check(attn_session_mlm(s, MASK_AT, 5, ids, probs) == ATTN_ERR_ARGUMENT &&
              attn_session_row_stats(s, 0, 0, 0, stats) == ATTN_ERR_ARGUMENT,
          "readings refused");
    check(run(s, TEXT) == ATTN_OK, "a later run");
    snapshot again = take(e, s, MASK_AT);
    check(same(&want, &again, e), "as if nothing had failed");
    check(run(s, long_text) == ATTN_OK, "the long run with memory");
    fail_above = 100000;
    check(run(s, TEXT) == ATTN_OK, "a short run when the shrink cannot be had");
    fail_above = (size_t)-1;
    snapshot kept = take(e, s, MASK_AT);
    check(same(&want, &kept, e), "the larger buffers serve it");
    release(&want);
    release(&again);
    release(&kept);
    attn_session_destroy(s);
    attn_session_destroy(fresh);
}

/* A run whose last layer reads one row (bert_run_options.final_row_only: the query, attention
 * and output of that row, the keys and values of the others), of one sequence and of copies side
 * by side, gives that row's final hidden state bit for bit as a whole run does, with heads removed
 * too; the layers below the last are whole. */
static void test_rows_read(const buffer *file) {
    static const int32_t ids[] = {101, 1996, 4937, 2938, 2006, 1996, 103, 2011, 1996, 2341, 1012, 102};
    enum { N = sizeof ids / sizeof *ids, COPIES = 3 };
    bert_model m;
    check(weights_load(file->bytes, file->size, &m) == WEIGHTS_OK, "weights for the rows read");
    uint8_t removed[BERT_MAX_LAYERS * BERT_MAX_HEADS] = {0};
    removed[(m.layers - 1) * m.heads + 1] = 1; /* a head of the last layer, and one below it */
    removed[1] = 1;
    bert_state whole, some;
    bert_state_init(&whole, &m);
    bert_state_init(&some, &m);
    const size_t width = (size_t)m.hidden;
    int32_t copies[COPIES * N];
    const int32_t rows[COPIES] = {6, 1, N - 1};
    for (int c = 0; c < COPIES; c++) memcpy(copies + c * N, ids, sizeof ids);
    for (int pass = 0; pass < 2; pass++) {
        const bert_run_options all = {pass ? removed : NULL, 0, 0, 0, 0, 0, 0, NULL};
        check(bert_run(&whole, ids, NULL, N, &all) == BERT_OK, "whole run");
        for (int c = 0; c < COPIES; c++) {
            const bert_run_options one = {pass ? removed : NULL, 0, 1, rows[c], 0, 0, 0, NULL};
            check(bert_run(&some, ids, NULL, N, &one) == BERT_OK, "run reading row %d", rows[c]);
            check(!memcmp(whole.layer_input, some.layer_input, (size_t)m.layers * N * width * sizeof(float)) &&
                      !memcmp(whole.layer_input + hidden_index(&whole, m.layers, rows[c]),
                              some.layer_input + hidden_index(&some, m.layers, rows[c]), width * sizeof(float)),
                  "row %d read alone, removal %d: bit for bit", rows[c], pass);
        }
        const bert_run_options side = {pass ? removed : NULL, 0, 1, 0, 0, 0, N, rows};
        check(bert_run(&some, copies, NULL, COPIES * N, &side) == BERT_OK, "copies reading a row each");
        for (int c = 0; c < COPIES; c++)
            check(!memcmp(whole.layer_input + hidden_index(&whole, m.layers, rows[c]),
                          some.layer_input + hidden_index(&some, m.layers, c * N + rows[c]), width * sizeof(float)),
                  "copy %d reading row %d, removal %d: bit for bit", c, rows[c], pass);
    }
    bert_state_free(&whole);
    bert_state_free(&some);
}

/* scale_offset of the tensor named `name` (0 when there is none). */
static uint64_t scale_offset_of(const buffer *f, const char *name) {
    const uint64_t table = get_u64(f->bytes + HEADER_TABLE_OFFSET);
    for (uint32_t i = 0; i < get_u32(f->bytes + HEADER_TENSOR_COUNT); i++) {
        const uint8_t *entry = f->bytes + table + (uint64_t)i * WEIGHTS_ENTRY_SIZE;
        if (strncmp((const char *)entry, name, WEIGHTS_NAME_SIZE) == 0) return get_u64(entry + ENTRY_SCALE_OFFSET);
    }
    return 0;
}

/* The engine reads the weights in place: a query row scale of 3.4e38 set after loading (finite,
 * so a loader could take it) makes layer 0's attention NaN; the run is an error, never numbers. */
static void test_not_finite(const buffer *file) {
    attn_engine *e = NULL;
    check(attn_engine_create(file->bytes, file->size, &e) == ATTN_OK, "engine");
    attn_session *s = attn_session_create(e);
    const uint64_t at = scale_offset_of(file, "bert.encoder.layer.0.attention.self.query.weight");
    check(at != 0, "query scales found");
    float saved, huge = 3.4e38f;
    memcpy(&saved, file->bytes + at, sizeof saved);
    memcpy(file->bytes + at, &huge, sizeof huge);
    check(run(s, TEXT) == ATTN_ERR_NOT_FINITE, "NaN attention: ATTN_ERR_NOT_FINITE");
    check(attn_session_length(s) == 0 && attn_session_attention(s) == NULL, "and an empty session");
    memcpy(file->bytes + at, &saved, sizeof saved);
    check(run(s, TEXT) == ATTN_OK, "the weights put back");
    uint8_t removed[16] = {0};
    removed[0] = 1;
    memcpy(file->bytes + at, &huge, sizeof huge);
    check(attn_session_set_ablation(s, removed) == ATTN_ERR_NOT_FINITE && attn_session_length(s) == 0,
          "a rerun with a head removed: the same error");
    memcpy(file->bytes + at, &saved, sizeof saved);
    check(run(s, TEXT) == ATTN_OK, "runs again");
    attn_session_destroy(s);
    attn_engine_destroy(e);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_session WEIGHTS\n");
        return 2;
    }
    buffer file = read_file(argv[1]);
    attn_engine *e = NULL;
    if (attn_engine_create(file.bytes, file.size, &e) != ATTN_OK) {
        fprintf(stderr, "cannot load %s\n", argv[1]);
        return 2;
    }
    test_ablation(e);
    test_no_memory(e);
    attn_engine_destroy(e);
    test_rows_read(&file);
    test_not_finite(&file);
    free(file.bytes);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
