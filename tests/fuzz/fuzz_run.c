/* libFuzzer target: the run API on the real model (weights from $ATTN_FUZZ_WEIGHTS or
 * web/dist/bert-mini.int8.bin, loaded once).
 *
 * Input layout (missing bytes read as 0):
 *   u16     requested length: v < 0xF000 gives v mod 25, else (v − 0xF000) mod 601, so that
 *           most executions stay short (a 512-token run costs seconds under the sanitizers)
 *           while every length 0 … 600 stays reachable (> 512 must be refused)
 *   u8      flags: bit 0 also run the rest of the input as text (its first 96 bytes unless
 *           bit 3 is set: long texts cost long runs); bit 1 call rollout (n <= 128); bit 2
 *           row_scaled without the division by sqrt(d); bit 4 run the text also as a sentence
 *           pair, split in the middle (A = first half, B = second half); bit 5 run the text in
 *           steps (attn_session_begin_text, then attn_session_step), reading a layer between
 *           steps, and compare it with the same text run whole
 *   u16 × n ids: v ≥ 0xFFF0 picks an out-of-range id (negative, vocab, INT32_MIN/MAX), else
 *           v mod vocab; once the input runs out, ids continue from a generator
 *   then    layer, head (i8), row, position (i16), k (u16), and the text (rest of input)
 * After every successful run the attention must be finite, in [0, 1], and every row must
 * sum to 1 within 1e-4; every analysis call must either succeed or return ATTN_ERR_ARGUMENT
 * exactly when one of its indices is out of range. A pair run must give [CLS] A [SEP] B [SEP]:
 * token type 0 up to and including the first [SEP], 1 after it, the last token [SEP]. Between the
 * steps of a run, a layer not done yet must answer ATTN_ERR_NOT_LOADED and a layer done ATTN_OK;
 * the run done in steps must hold the same floats, bit for bit, as the run made whole. */
#define _POSIX_C_SOURCE 200809L /* posix_memalign */
#include <math.h>

#include "fuzz_util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum {
    MAX_REQUEST = 600,
    SHORT_REQUEST = 24,
    LONG_REQUEST_MARK = 0xF000,
    ROLLOUT_MAX_N = 128,
    SHORT_TEXT = 96,
    FLAG_TEXT = 1,
    FLAG_ROLLOUT = 2,
    FLAG_UNSCALED = 4,
    FLAG_LONG_TEXT = 8,
    FLAG_PAIR = 16,
    FLAG_STEPS = 32,
    MAX_STEPS = 100000,
};

static attn_engine *engine;
static attn_session *session;
static attn_session *whole; /* texts run in steps are run whole here too, to compare */
static int32_t shape[8];    /* vocab, hidden, layers, heads, ffn, max_positions, type_vocab, head_size */

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    engine = fuzz_real_engine();
    session = attn_session_create(engine);
    whole = attn_session_create(engine);
    if (!session || !whole) abort();
    attn_engine_shape(engine, shape);
    return 0;
}

static int32_t pick_id(fuzz_reader *r, uint32_t *generator) {
    static const int32_t OUT_OF_RANGE[4] = {-1, INT32_MIN, INT32_MAX, 0 /* vocab, set below */};
    if (r->at + 2 > r->size) {
        *generator = *generator * 1103515245u + 12345u;
        return (int32_t)((*generator >> 8) % (uint32_t)shape[0]);
    }
    const unsigned v = fuzz_u16(r);
    if (v < 0xFFF0) return (int32_t)(v % (unsigned)shape[0]);
    return v % 4 == 3 ? shape[0] : OUT_OF_RANGE[v % 4];
}

static void check_attention(const attn_session *s) {
    const int n = attn_session_length(s);
    const float *a = attn_session_attention(s);
    FUZZ_REQUIRE(n >= 1 && a != NULL);
    for (size_t row = 0; row < (size_t)shape[2] * (size_t)shape[3] * (size_t)n; row++) {
        double sum = 0;
        for (int j = 0; j < n; j++) {
            const float p = a[row * (size_t)n + (size_t)j];
            FUZZ_REQUIRE(isfinite(p) && p >= 0.0f && p <= 1.0f);
            sum += p;
        }
        FUZZ_REQUIRE(fabs(sum - 1.0) <= 1e-4);
    }
}

static int in_range(int value, int limit) { return value >= 0 && value < limit; }

/* `status` is ATTN_OK exactly when the indices are valid, else ATTN_ERR_ARGUMENT. */
#define expect(status, valid) expect_at(status, valid, __LINE__)
static void expect_at(int status, int valid, int line) {
    if (valid ? status == ATTN_OK : status == ATTN_ERR_ARGUMENT) return;
    fprintf(stderr, "fuzz_run.c:%d: status %d, expected %s\n", line, status, valid ? "ATTN_OK" : "ATTN_ERR_ARGUMENT");
    abort();
}

static int requested_length(fuzz_reader *r) {
    const unsigned v = fuzz_u16(r);
    return (int)(v < LONG_REQUEST_MARK ? v % (SHORT_REQUEST + 1) : (v - LONG_REQUEST_MARK) % (MAX_REQUEST + 1));
}

static void run_analyses(fuzz_reader *r, int flags) {
    const int n = attn_session_length(session); /* 0 after a refused run: every call refused */
    const int layer = (int8_t)fuzz_byte(r), head = (int8_t)fuzz_byte(r);
    const int row = (int16_t)fuzz_u16(r), position = (int16_t)fuzz_u16(r);
    const int k = (int)(fuzz_u16(r) % 40) - 2;
    const int layer_ok = n > 0 && in_range(layer, shape[2]);
    const int head_ok = layer_ok && in_range(head, shape[3]);
    float *out = malloc(sizeof(float) * ((size_t)n * (size_t)n + 4 * (size_t)shape[1]));
    double stats[7];
    float mass[4], probs[40];
    int32_t ids[40];
    FUZZ_REQUIRE(out != NULL);
    expect(attn_session_row_stats(session, layer, head, row, stats), head_ok && in_range(row, n));
    if ((flags & FLAG_ROLLOUT) && n <= ROLLOUT_MAX_N) expect(attn_session_rollout(session, layer, out), layer_ok);
    const int roles = attn_session_head_roles(session, layer, head, mass);
    FUZZ_REQUIRE(head_ok ? roles >= 0 : roles == -ATTN_ERR_ARGUMENT);
    expect(attn_session_contributions(session, layer, head, row, out), head_ok && in_range(row, n));
    expect(attn_session_row_scaled(session, layer, head, row, !(flags & FLAG_UNSCALED), out, NULL),
           head_ok && in_range(row, n));
    expect(attn_session_walkthrough(session, layer, row, out), layer_ok && in_range(row, n));
    expect(attn_session_mlm(session, position, k, ids, probs), in_range(position, n) && k >= 1);
    const float *hidden = attn_session_hidden(session, layer);
    FUZZ_REQUIRE((hidden != NULL) == (n > 0 && layer >= 0 && layer <= shape[2]));
    free(out);
}

static void run_ids(fuzz_reader *r, int requested, int flags) {
    int32_t *ids = malloc(sizeof(int32_t) * (requested ? (size_t)requested : 1));
    uint32_t generator = (uint32_t)requested;
    int ids_ok = 1;
    FUZZ_REQUIRE(ids != NULL);
    for (int i = 0; i < requested; i++) {
        ids[i] = pick_id(r, &generator);
        ids_ok &= in_range(ids[i], shape[0]);
    }
    const int valid = ids_ok && requested >= 1 && requested <= shape[5];
    expect(attn_session_run_ids(session, ids, requested), valid);
    FUZZ_REQUIRE(attn_session_length(session) == (valid ? requested : 0));
    free(ids);
    if (valid) check_attention(session);
    run_analyses(r, flags); /* after a refused run every call must be refused */
}

static void run_text(const uint8_t *text, size_t size) {
    FUZZ_REQUIRE(attn_session_run_text(session, (const char *)text, size) == ATTN_OK);
    const int n = attn_session_length(session);
    FUZZ_REQUIRE(n >= 2 && n <= shape[5] && attn_session_full_length(session) >= n);
    FUZZ_REQUIRE(attn_session_truncated(session) == (attn_session_full_length(session) > n));
    check_attention(session);
}

/* The text begun, then stepped to the end: before each step, layer `probe` (any value) reads as
 * done, not done yet, or out of range; the result equals the same text run whole. */
static void run_text_in_steps(const uint8_t *text, size_t size, int probe) {
    FUZZ_REQUIRE(attn_session_begin_text(session, (const char *)text, size) == ATTN_OK);
    double stats[7];
    int steps = 0;
    while (attn_session_layers_done(session) < shape[2]) {
        const int done = attn_session_layers_done(session);
        const int status = attn_session_row_stats(session, probe, 0, 0, stats);
        FUZZ_REQUIRE(in_range(probe, shape[2]) ? status == (probe < done ? ATTN_OK : ATTN_ERR_NOT_LOADED)
                                               : status == ATTN_ERR_ARGUMENT);
        FUZZ_REQUIRE(attn_session_step(session) == ATTN_OK && ++steps < MAX_STEPS);
    }
    FUZZ_REQUIRE(attn_session_step(session) == ATTN_OK && attn_session_layers_done(session) == shape[2]);
    FUZZ_REQUIRE(attn_session_run_text(whole, (const char *)text, size) == ATTN_OK);
    const size_t n = (size_t)attn_session_length(session);
    FUZZ_REQUIRE(n == (size_t)attn_session_length(whole));
    FUZZ_REQUIRE(memcmp(attn_session_attention(session), attn_session_attention(whole),
                        (size_t)shape[2] * (size_t)shape[3] * n * n * sizeof(float)) == 0);
    FUZZ_REQUIRE(memcmp(attn_session_hidden(session, shape[2]), attn_session_hidden(whole, shape[2]),
                        n * (size_t)shape[1] * sizeof(float)) == 0);
    check_attention(session);
}

/* Types 0 through the first [SEP], 1 from there to the closing [SEP]. */
static void check_pair_layout(const attn_session *s) {
    const int n = attn_session_length(s);
    const int32_t *ids = attn_session_ids(s), *types = attn_session_type_ids(s);
    const int32_t cls = attn_engine_special_id(engine, SPECIAL_CLS), sep = attn_engine_special_id(engine, SPECIAL_SEP);
    FUZZ_REQUIRE(n >= 3 && attn_session_segment_count(s) == 2);
    FUZZ_REQUIRE(ids[0] == cls && ids[n - 1] == sep && types[0] == 0 && types[n - 1] == 1);
    int first = 0;
    while (first < n && types[first] == 0) first++;
    FUZZ_REQUIRE(first >= 2 && ids[first - 1] == sep);
    for (int t = 0; t < n; t++) {
        FUZZ_REQUIRE(types[t] == (t >= first) && attn_session_segment(s, t) == types[t]);
        FUZZ_REQUIRE(attn_session_starts(s)[t] <= attn_session_ends(s)[t]);
    }
    FUZZ_REQUIRE(attn_session_segment(s, -1) == -1 && attn_session_segment(s, n) == -1);
}

static void run_pair(const uint8_t *text, size_t size) {
    const size_t half = size / 2;
    FUZZ_REQUIRE(attn_session_run_pair(session, (const char *)text, half, (const char *)text + half, size - half) ==
                 ATTN_OK);
    const int n = attn_session_length(session);
    FUZZ_REQUIRE(n <= shape[5] && attn_session_full_length(session) >= n);
    FUZZ_REQUIRE(attn_session_truncated(session) == (attn_session_full_length(session) > n));
    check_pair_layout(session);
    check_attention(session);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_reader r = {data, size, 0};
    const int requested = requested_length(&r);
    const int flags = (int)fuzz_byte(&r);
    run_ids(&r, requested, flags);
    if (flags & FLAG_TEXT) {
        const size_t text_size = size - r.at;
        const size_t used = (flags & FLAG_LONG_TEXT) || text_size < SHORT_TEXT ? text_size : SHORT_TEXT;
        if (flags & FLAG_STEPS) run_text_in_steps(data + r.at, used, (int8_t)(size > 3 ? data[3] : 0) % 8);
        else run_text(data + r.at, used);
        if (flags & FLAG_PAIR) run_pair(data + r.at, used);
        fuzz_reader rest = {data, size, 3};
        run_analyses(&rest, flags);
    }
    return 0;
}
