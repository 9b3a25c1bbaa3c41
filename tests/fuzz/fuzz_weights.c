/* libFuzzer target: the weights loader on mutations of small valid weights files (the seeds
 * in tests/fuzz/corpus/fuzz_weights/, made by tests/fuzz/make_weights_seeds.mjs: format
 * version 2, int8 and int16 matrices, a model card, a head and parts).
 *
 * Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, so c/weights.c skips only the checksum
 * comparisons (the head's and every part's) and mutations reach the later checks. Most mutations insert or erase bytes, which
 * the file-size check alone would refuse: unless the low bit of the (unused) checksum field is
 * set, the header's file_size is set to the input's size, so that shifted and cut files reach
 * the vocabulary and table checks. The input is copied into an exactly sized,
 * 16-byte aligned buffer so that any read outside it is reported. When the loader accepts
 * the file, the model it describes is run end to end (tokenizer over its vocabulary, forward
 * pass, analysis calls, MLM): a file the loader accepts must never make the engine misbehave. */
#define _POSIX_C_SOURCE 200809L /* posix_memalign */
#include "fuzz_util.h"
#include "spec.h" /* header offsets */
#include "weights.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_status(int status) {
    FUZZ_REQUIRE(status >= 0 && status <= WEIGHTS_ERR_OLD_FORMAT);
    const char *message = attn_status_message(status);
    FUZZ_REQUIRE(message != NULL && message[0] != '\0');
}

static void check_shape(const attn_engine *engine, int32_t *shape) {
    attn_engine_shape(engine, shape);
    FUZZ_REQUIRE(shape[0] >= 5 && shape[1] >= 1 && shape[2] >= 1 && shape[2] <= 12);
    FUZZ_REQUIRE(shape[3] >= 1 && shape[3] <= 12 && shape[1] % shape[3] == 0);
    FUZZ_REQUIRE(shape[5] >= 1 && shape[5] <= 512);
}

/* The model card: a string ("" when the file has none) that lies inside the weights bytes. */
static void check_card(const attn_engine *engine, const uint8_t *bytes, size_t size) {
    const char *card = attn_engine_card(engine);
    FUZZ_REQUIRE(card != NULL);
    if (card[0] == '\0') return;
    const uint8_t *at = (const uint8_t *)card;
    FUZZ_REQUIRE(at >= bytes && at < bytes + size);
    FUZZ_REQUIRE(memchr(card, '\0', size - (size_t)(at - bytes)) != NULL);
}

static void run_analyses(attn_session *s, const int32_t *shape) {
    const int n = attn_session_length(s), layers = shape[2], hidden = shape[1];
    double stats[7];
    float mass[4];
    float *buffer = malloc(sizeof(float) * (size_t)(n * n + 4 * hidden + 8));
    FUZZ_REQUIRE(buffer != NULL);
    FUZZ_REQUIRE(attn_session_row_stats(s, layers - 1, 0, n - 1, stats) == ATTN_OK);
    FUZZ_REQUIRE(attn_session_rollout(s, layers - 1, buffer) == ATTN_OK);
    FUZZ_REQUIRE(attn_session_head_roles(s, 0, shape[3] - 1, mass) >= 0);
    FUZZ_REQUIRE(attn_session_contributions(s, 0, 0, 0, buffer) == ATTN_OK);
    FUZZ_REQUIRE(attn_session_row_scaled(s, 0, 0, n - 1, 0, buffer, NULL) == ATTN_OK);
    FUZZ_REQUIRE(attn_session_walkthrough(s, layers - 1, n - 1, buffer) == ATTN_OK);
    int32_t ids[3];
    const int mlm = attn_session_mlm(s, 1 % n, 3 < shape[0] ? 3 : shape[0], ids, buffer);
    FUZZ_REQUIRE(mlm == ATTN_OK || mlm == ATTN_ERR_NOT_FINITE); /* logits that overflow are refused */
    free(buffer);
}

/* The model runs: text, then ids up to the longest length the model takes (at most 64, to
 * keep executions fast), then one id too many when that is the model's limit. */
static void run_model(const attn_engine *engine) {
    int32_t shape[8];
    check_shape(engine, shape);
    attn_session *s = attn_session_create(engine);
    FUZZ_REQUIRE(s != NULL);
    static const char text[] = "The cat [MASK] on the mat, \xe2\x80\x94 caf\xc3\xa9 \xff.";
    if (attn_session_run_text(s, text, sizeof text - 1) == ATTN_OK) run_analyses(s, shape);
    const int n = shape[5] < 64 ? shape[5] : 64;
    int32_t *ids = malloc(sizeof(int32_t) * (size_t)n);
    FUZZ_REQUIRE(ids != NULL);
    for (int i = 0; i < n; i++) ids[i] = (int32_t)((i * 7919) % shape[0]);
    /* A file the loader takes may still hold finite weights whose products overflow: the run
     * is then refused as not finite, never answered with a NaN. */
    const int status = attn_session_run_ids(s, ids, n);
    FUZZ_REQUIRE(status == ATTN_OK || status == ATTN_ERR_NOT_FINITE);
    if (status == ATTN_OK) run_analyses(s, shape);
    else FUZZ_REQUIRE(attn_session_length(s) == 0 && attn_session_attention(s) == NULL);
    free(ids);
    if (n == shape[5]) {
        int32_t *more = calloc((size_t)n + 1, sizeof *more);
        FUZZ_REQUIRE(more && attn_session_run_ids(s, more, n + 1) == ATTN_ERR_ARGUMENT);
        free(more);
    }
    attn_session_destroy(s);
}

static void match_file_size(uint8_t *bytes, size_t size) {
    if (size < WEIGHTS_HEADER_SIZE || (bytes[HEADER_HEAD_CHECKSUM] & 1)) return;
    for (int i = 0; i < 8; i++) bytes[HEADER_FILE_SIZE + i] = (uint8_t)((uint64_t)size >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *bytes = fuzz_aligned_copy(data, size);
    match_file_size(bytes, size);
    attn_engine *engine = NULL;
    const int status = attn_engine_create(bytes, size, &engine);
    if (status == ATTN_OK) {
        check_card(engine, bytes, size);
        run_model(engine);
        attn_engine_destroy(engine);
    } else {
        FUZZ_REQUIRE(engine == NULL);
        if (status < ATTN_ERR_NO_MEMORY) check_status(status);
        else FUZZ_REQUIRE(status == ATTN_ERR_VOCAB || status == ATTN_ERR_NO_MEMORY);
    }
    free(bytes);
    return 0;
}
