/* Native test of reading the weights in parts (c/attn.h attn_engine_create_partial and the
 * calls after it) on a real converted file:
 *
 *   make build/san/test_parts
 *   build/san/test_parts web/dist/bert-mini.int8.bin
 *
 * The buffer given to the partial engine holds the head; every byte after it starts as 0xff
 * (a NaN in every float32, -1 in every int8), so a check that read a part before it arrived
 * would fail. Parts are then copied in, in a shuffled order, and each run is compared with the
 * whole-file engine's. Prints "N passed, M failed". */
#define _POSIX_C_SOURCE 200809L /* posix_memalign */
#include "../../c/attn.h"
#include "../../c/spec.h" /* header and entry offsets */
#include "../../c/weights.h"
#include "test_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t head_bytes_of(const buffer *f) { return get_u64(f->bytes + HEADER_HEAD_BYTES); }

/* data_offset of the tensor named `name` (0 when there is none). */
static uint64_t data_offset_of(const buffer *f, const char *name) {
    const uint64_t table = get_u64(f->bytes + HEADER_TABLE_OFFSET);
    for (uint32_t i = 0; i < get_u32(f->bytes + HEADER_TENSOR_COUNT); i++) {
        const uint8_t *e = f->bytes + table + (uint64_t)i * WEIGHTS_ENTRY_SIZE;
        if (strncmp((const char *)e, name, WEIGHTS_NAME_SIZE) == 0) return get_u64(e + ENTRY_DATA_OFFSET);
    }
    return 0;
}

/* A buffer of the file's size holding its head; 0xff after it. */
static buffer head_only(const buffer *file) {
    buffer b = aligned_buffer(file->size);
    const size_t head = (size_t)head_bytes_of(file);
    memcpy(b.bytes, file->bytes, head);
    memset(b.bytes + head, 0xff, file->size - head);
    return b;
}

static void copy_part(buffer *to, const buffer *from, attn_engine *e, int32_t part) {
    size_t offset = 0, bytes = 0;
    if (attn_engine_part_range(e, part, &offset, &bytes) == ATTN_OK)
        memcpy(to->bytes + offset, from->bytes + offset, bytes);
}

/* The head checksum as c/weights.c computes it: the head with the checksum field read as 0. */
static void reseal_head(buffer *b) {
    const size_t head = (size_t)head_bytes_of(b);
    put_u32(b->bytes + HEADER_HEAD_CHECKSUM, 0);
    put_u32(b->bytes + HEADER_HEAD_CHECKSUM, weights_crc32(b->bytes, head));
}

static const char SENTENCE[] = "The quick brown fox jumps over the lazy dog.";
static const char MASKED[] = "The capital of France is [MASK].";

typedef struct {
    int32_t ids[512];
    int n;
} token_ids;

static token_ids tokenize(const attn_engine *e, const char *text) {
    token_ids t;
    int32_t starts[512], ends[512], counts[2];
    t.n = attn_engine_tokenize(e, text, strlen(text), 512, t.ids, starts, ends, counts) == ATTN_OK ? counts[0] : 0;
    return t;
}

/* The attention of `text` from both engines: the same floats, bit for bit. */
static int same_attention(const attn_engine *whole, const attn_engine *partial, const char *text) {
    attn_session *a = attn_session_create(whole), *b = attn_session_create(partial);
    int32_t shape[8];
    attn_engine_shape(whole, shape);
    int same = a && b && attn_session_run_text(a, text, strlen(text)) == ATTN_OK &&
               attn_session_run_text(b, text, strlen(text)) == ATTN_OK &&
               attn_session_length(a) == attn_session_length(b);
    if (same) {
        const size_t n = (size_t)attn_session_length(a);
        same = memcmp(attn_session_attention(a), attn_session_attention(b),
                      (size_t)shape[2] * (size_t)shape[3] * n * n * sizeof(float)) == 0;
    }
    attn_session_destroy(a);
    attn_session_destroy(b);
    return same;
}

/* The row stats of `layer`'s head 0 at row 1 from a session, or the status that refused them. */
static int row_status(const attn_session *s, int layer, double *stats) {
    return attn_session_row_stats(s, layer, 0, 1, stats);
}

/* Every reading of layer `layer` of a session's run: ATTN_OK when all of them answer it, else the
 * first other status (each call must give the same one). */
static int every_reading(attn_session *s, int layer) {
    float out[4 * 1024 + 512 * 512];
    double stats[ATTN_ROW_STATS_COUNT];
    const int n = attn_session_length(s);
    const int roles = attn_session_head_roles(s, layer, 0, out); /* role bits, or −status */
    const int statuses[] = {
        attn_session_row_stats(s, layer, 0, 1, stats),   attn_session_rollout(s, layer, out),
        attn_session_rollout_row(s, layer, 1, out),      roles < 0 ? -roles : ATTN_OK,
        attn_session_contributions(s, layer, 0, 1, out), attn_session_row_scaled(s, layer, 0, 1, 1, out, NULL),
        attn_session_walkthrough(s, layer, n - 1, out),
    };
    for (size_t i = 1; i < sizeof statuses / sizeof statuses[0]; i++)
        if (statuses[i] != statuses[0]) return -1;
    return statuses[0];
}

/* Layers arriving one at a time into an engine whose rows are in: a run in steps computes each
 * layer once its weights are there and waits before the next (NOT_LOADED, the layers done kept
 * and readable, the others not), then goes on without beginning again; in the end the whole-file
 * engine's attention, bit for bit. */
static void test_layers_arriving(const attn_engine *whole, attn_engine *e, buffer *b, const buffer *file) {
    int32_t shape[8];
    attn_engine_shape(e, shape);
    const int layers = shape[2];
    check(attn_engine_layers_ready(e) == 0, "no layer's weights yet: 0 layers ready");
    attn_session *s = attn_session_create(e);
    attn_session *w = attn_session_create(whole);
    check(attn_session_run_text(w, SENTENCE, strlen(SENTENCE)) == ATTN_OK, "the whole-file engine runs");
    check(attn_session_run_text(s, SENTENCE, strlen(SENTENCE)) == ATTN_ERR_NOT_LOADED && attn_session_length(s) > 0 &&
              attn_session_layers_done(s) == 0,
          "a run with no layer's weights: NOT_LOADED, its tokens kept, no layer done");
    check(attn_session_begin_text(s, SENTENCE, strlen(SENTENCE)) == ATTN_OK, "a run in steps begins");
    double stats[ATTN_ROW_STATS_COUNT], expected[ATTN_ROW_STATS_COUNT];
    int waited = 1, readable = 1, unreadable = 1, counted = 1;
    for (int l = 0; l < layers; l++) {
        for (int i = 0; i < 3; i++) waited &= attn_session_step(s) == ATTN_ERR_NOT_LOADED;
        waited &= attn_session_layers_done(s) == l;
        int32_t first = 0, parts = 0;
        attn_engine_layer_parts(e, l, &first, &parts);
        for (int32_t p = first; p < first + parts; p++) {
            copy_part(b, file, e, p);
            attn_engine_part_arrived(e, p);
        }
        counted &= attn_engine_layers_ready(e) == l + 1;
        int status = ATTN_OK, steps = 0;
        while (status == ATTN_OK && attn_session_layers_done(s) == l) status = attn_session_step(s), steps++;
        counted &= steps > 1; /* a layer is several steps */
        waited &= status == ATTN_OK || (status == ATTN_ERR_NOT_LOADED && l == layers - 1);
        for (int k = 0; k <= l; k++) {
            readable &= row_status(s, k, stats) == ATTN_OK && row_status(w, k, expected) == ATTN_OK &&
                        memcmp(stats, expected, sizeof stats) == 0;
        }
        readable &= every_reading(s, l) == ATTN_OK;
        if (l + 1 < layers) {
            unreadable &=
                row_status(s, l + 1, stats) == ATTN_ERR_NOT_LOADED && every_reading(s, l + 1) == ATTN_ERR_NOT_LOADED;
            unreadable &= attn_session_hidden(s, l + 2) == NULL && attn_session_hidden(s, l + 1) != NULL;
        }
    }
    check(counted, "each layer's part makes one more layer ready, and a layer is computed in several steps");
    check(waited, "a step before the next layer's weights: NOT_LOADED, nothing done; after them: the layer");
    check(readable, "every layer done reads as the whole-file engine's");
    check(unreadable, "a layer not done yet: NOT_LOADED, its hidden state NULL");
    const size_t n = (size_t)attn_session_length(s);
    check(attn_session_layers_done(s) == layers && attn_session_step(s) == ATTN_OK &&
              memcmp(attn_session_attention(s), attn_session_attention(w),
                     (size_t)layers * (size_t)shape[3] * n * n * sizeof(float)) == 0 &&
              memcmp(attn_session_hidden(s, layers), attn_session_hidden(w, layers),
                     n * (size_t)shape[1] * sizeof(float)) == 0,
          "the run in steps, complete: the whole-file engine's attention and final hidden state, bit for bit");
    attn_session_destroy(s);
    attn_session_destroy(w);
}

/* A 512-token text in steps on the whole-file engine: many steps (blocks of tokens), and the
 * same floats as the run made whole. */
static void test_long_run_in_steps(const attn_engine *whole) {
    static char text[8192];
    text[0] = '\0';
    for (int i = 0; i < 600; i++) strcat(text, i % 7 == 6 ? "mat. " : "the cat ");
    int32_t shape[8];
    attn_engine_shape(whole, shape);
    attn_session *a = attn_session_create(whole), *b = attn_session_create(whole);
    int status = attn_session_run_text(a, text, strlen(text));
    check(status == ATTN_OK && attn_session_length(a) == 512 && attn_session_layers_done(a) == shape[2],
          "a long text run whole: 512 tokens, every layer");
    status = attn_session_begin_text(b, text, strlen(text));
    int steps = 0;
    while (status == ATTN_OK && attn_session_layers_done(b) < shape[2]) status = attn_session_step(b), steps++;
    const size_t n = (size_t)attn_session_length(b);
    check(status == ATTN_OK && steps > 20 * shape[2] && n == 512 &&
              memcmp(attn_session_attention(a), attn_session_attention(b),
                     (size_t)shape[2] * (size_t)shape[3] * n * n * 4) == 0 &&
              memcmp(attn_session_hidden(a, shape[2]), attn_session_hidden(b, shape[2]), n * (size_t)shape[1] * 4) == 0,
          "the same text in %d steps: the same attention and final hidden state, bit for bit", steps);
    check(attn_session_step(b) == ATTN_OK && attn_session_layers_done(b) == shape[2],
          "a step after the end: nothing to do");
    attn_session *empty = attn_session_create(whole);
    check(attn_session_step(empty) == ATTN_ERR_ARGUMENT && attn_session_layers_done(empty) == 0,
          "a step without a run: ATTN_ERR_ARGUMENT");
    attn_session_destroy(empty);
    attn_session_destroy(a);
    attn_session_destroy(b);
}

static int run_status(const attn_engine *e, const char *text) {
    attn_session *s = attn_session_create(e);
    const int status = s ? attn_session_run_text(s, text, strlen(text)) : ATTN_ERR_NO_MEMORY;
    const int length = s ? attn_session_length(s) : 0;
    attn_session_destroy(s);
    return status == ATTN_OK || length == 0 ? status : -1; /* a refused run leaves no length */
}

static int mlm_status(const attn_engine *e, const char *text, int32_t *top_id) {
    attn_session *s = attn_session_create(e);
    int status = s ? attn_session_run_text(s, text, strlen(text)) : ATTN_ERR_NO_MEMORY;
    const int32_t mask = attn_engine_special_id(e, SPECIAL_MASK);
    int position = -1;
    for (int t = 0; status == ATTN_OK && t < attn_session_length(s); t++)
        if (attn_session_ids(s)[t] == mask) position = t;
    float prob = 0;
    if (status == ATTN_OK) status = attn_session_mlm(s, position, 1, top_id, &prob);
    attn_session_destroy(s);
    return status;
}

/* ------------------------------------------------------------------ cases */

static void test_whole_file_engine(const attn_engine *whole, const buffer *file) {
    const int32_t count = attn_engine_part_count(whole);
    check(count == (int32_t)get_u32(file->bytes + HEADER_PART_COUNT) && count >= 2, "whole-file engine: %d parts",
          count);
    check(attn_engine_parts_missing(whole) == 0 && attn_engine_part_ready(whole, count - 1) == 1 &&
              attn_engine_part_ready(whole, count) == 0,
          "whole-file engine: every part ready");
}

static void test_part_table(attn_engine *e, const buffer *file) {
    const int32_t count = attn_engine_part_count(e);
    check(count == (int32_t)get_u32(file->bytes + HEADER_PART_COUNT), "partial engine: part count %d", count);
    check(attn_engine_parts_missing(e) == count, "partial engine: every part missing at first");
    size_t expected = (size_t)head_bytes_of(file), offset = 0, bytes = 0;
    int contiguous = 1;
    for (int32_t i = 0; i < count; i++) {
        contiguous &= attn_engine_part_range(e, i, &offset, &bytes) == ATTN_OK && offset == expected && bytes > 0;
        expected = offset + bytes;
    }
    check(contiguous && expected == file->size, "part ranges: from the end of the head to the end of the file");
    check(attn_engine_part_range(e, -1, &offset, &bytes) == ATTN_ERR_ARGUMENT &&
              attn_engine_part_range(e, count, &offset, &bytes) == ATTN_ERR_ARGUMENT &&
              attn_engine_part_arrived(e, count) == ATTN_ERR_ARGUMENT &&
              attn_engine_part_arrived(e, -1) == ATTN_ERR_ARGUMENT,
          "part index out of range: ATTN_ERR_ARGUMENT");
    int32_t shape[8];
    attn_engine_shape(e, shape);
    const int32_t first = attn_engine_part_of_token(e, 0), last = attn_engine_part_of_token(e, shape[0] - 1);
    check(first == shape[2] + 1 && last == count - 1,
          "token 0 in the part after the layers' and the MLM head's, the last token in the last part (%d, %d)", first,
          last);
    int layers_placed = 1;
    for (int32_t l = 0; l < shape[2]; l++) {
        int32_t from = -1, parts = -1;
        layers_placed &= attn_engine_layer_parts(e, l, &from, &parts) == ATTN_OK && from == l && parts == 1;
    }
    check(layers_placed, "layer l's weights in part l, alone");
    int32_t from = 0, parts = 0;
    check(attn_engine_layer_parts(e, -1, &from, &parts) == ATTN_ERR_ARGUMENT &&
              attn_engine_layer_parts(e, shape[2], &from, &parts) == ATTN_ERR_ARGUMENT,
          "a layer out of range: ATTN_ERR_ARGUMENT");
    check(attn_engine_part_of_token(e, -1) == -2 && attn_engine_part_of_token(e, shape[0]) == -2,
          "token id out of range: -2");
    int ordered = 1;
    for (int32_t id = 1; id < shape[0]; id++)
        ordered &= attn_engine_part_of_token(e, id) - attn_engine_part_of_token(e, id - 1) <= 1 &&
                   attn_engine_part_of_token(e, id) >= attn_engine_part_of_token(e, id - 1);
    check(ordered, "rows in vocabulary order across the word parts");
}

/* Parts copied in a shuffled order: runs refused until their rows arrive, then the same
 * attention as the whole-file engine; [MASK] predictions refused until every part is there. */
static void test_parts_in_random_order(const attn_engine *whole, const buffer *file) {
    buffer b = head_only(file);
    attn_engine *e = NULL;
    check(attn_engine_create_partial(b.bytes, b.size, &e) == ATTN_OK, "partial engine from the head alone");
    if (!e) {
        free(b.bytes);
        return;
    }
    test_part_table(e, file);
    check(run_status(e, SENTENCE) == ATTN_ERR_NOT_LOADED, "a run before its rows arrive: ATTN_ERR_NOT_LOADED");
    const token_ids tokens = tokenize(e, SENTENCE);
    const int32_t count = attn_engine_part_count(e);
    uint8_t *needed = calloc((size_t)count, 1);
    for (int t = 0; t < tokens.n; t++) {
        const int32_t p = attn_engine_part_of_token(e, tokens.ids[t]);
        if (p >= 0) needed[p] = 1;
    }
    int32_t needed_count = 0, last_needed = -1;
    for (int32_t p = 0; p < count; p++)
        if (needed[p]) needed_count++, last_needed = p;
    check(tokens.n > 0 && needed_count >= 1 && needed_count <= tokens.n && needed_count < count - 1,
          "the sentence's %d tokens lie in %d parts", tokens.n, needed_count);

    /* All the needed parts but one: still refused. */
    for (int32_t p = 0; p < count; p++)
        if (needed[p] && p != last_needed) {
            copy_part(&b, file, e, p);
            check(attn_engine_part_arrived(e, p) == ATTN_OK, "needed part %d arrives", p);
        }
    check(run_status(e, SENTENCE) == ATTN_ERR_NOT_LOADED, "one of the sentence's parts still missing: refused");
    copy_part(&b, file, e, last_needed);
    check(attn_engine_part_arrived(e, last_needed) == ATTN_OK, "the last needed part arrives");
    test_layers_arriving(whole, e, &b, file);
    int32_t top = -1;

    /* The rest, shuffled (a fixed linear congruential sequence). */
    int32_t *order = malloc((size_t)count * sizeof *order);
    for (int32_t i = 0; i < count; i++) order[i] = i;
    uint32_t state = 12345u;
    for (int32_t i = count - 1; i > 0; i--) {
        state = state * 1103515245u + 12345u;
        const int32_t j = (int32_t)((state >> 8) % (uint32_t)(i + 1));
        const int32_t swap = order[i];
        order[i] = order[j];
        order[j] = swap;
    }
    const int32_t held_back = count - 1; /* the rarest rows: not the masked sentence's */
    int all_ok = 1, waited = 1;
    for (int32_t i = 0; i < count; i++) {
        const int32_t p = order[i];
        if (needed[p] || p == held_back) continue;
        waited &= mlm_status(e, MASKED, &top) == ATTN_ERR_NOT_LOADED;
        copy_part(&b, file, e, p);
        all_ok &= attn_engine_part_arrived(e, p) == ATTN_OK && attn_engine_part_ready(e, p);
        if (i % 16 == 0) all_ok &= attn_engine_part_arrived(e, p) == ATTN_OK; /* again: still fine */
    }
    check(all_ok && attn_engine_parts_missing(e) == 1, "every other part but one arrives in a shuffled order");
    check(waited, "[MASK] predictions refused while parts are missing");
    check(run_status(e, MASKED) == ATTN_OK && mlm_status(e, MASKED, &top) == ATTN_ERR_NOT_LOADED,
          "one word part missing: the masked sentence runs, its [MASK] prediction waits (ATTN_ERR_NOT_LOADED)");
    copy_part(&b, file, e, held_back);
    check(attn_engine_part_arrived(e, held_back) == ATTN_OK && attn_engine_parts_missing(e) == 0,
          "the last part arrives");
    int32_t whole_top = -2;
    check(mlm_status(e, MASKED, &top) == ATTN_OK && mlm_status(whole, MASKED, &whole_top) == ATTN_OK &&
              top == whole_top,
          "[MASK] once every part arrived: the whole-file engine's prediction (%d, %d)", top, whole_top);
    check(memcmp(b.bytes, file->bytes, file->size) == 0, "the buffer now holds the whole file");
    free(order);
    free(needed);
    attn_engine_destroy(e);
    free(b.bytes);
}

/* A corrupted part is refused and named by its status; the rows in it stay unusable until
 * good bytes arrive; the other parts are unaffected. */
static void test_corrupted_part(const attn_engine *whole, const buffer *file) {
    buffer b = head_only(file);
    attn_engine *e = NULL;
    if (attn_engine_create_partial(b.bytes, b.size, &e) != ATTN_OK) {
        check(0, "partial engine for the corruption cases");
        free(b.bytes);
        return;
    }
    const token_ids tokens = tokenize(e, SENTENCE);
    const int32_t part = attn_engine_part_of_token(e, tokens.ids[1]);
    size_t offset = 0, bytes = 0;
    attn_engine_part_range(e, part, &offset, &bytes);
    const int32_t last = attn_engine_part_count(e) - 1;
    for (int32_t p = 0; p <= last; p++) copy_part(&b, file, e, p);
    for (int32_t p = 0; p < last; p++) /* every other part but the last */
        if (p != part) attn_engine_part_arrived(e, p);
    b.bytes[offset + bytes / 2] ^= 0x10;
    check(attn_engine_part_arrived(e, part) == 5 && !attn_engine_part_ready(e, part),
          "a flipped byte in part %d: status 5 (corrupted), not ready", part);
    check(run_status(e, SENTENCE) == ATTN_ERR_NOT_LOADED, "a run needing the corrupted part: refused");
    b.bytes[offset + bytes / 2] ^= 0x10;
    check(attn_engine_part_arrived(e, part) == ATTN_OK && same_attention(whole, e, SENTENCE),
          "the same part fetched again, whole: accepted, the run as the whole-file engine's");
    b.bytes[b.size - 1] ^= 0x01;
    check(attn_engine_part_arrived(e, attn_engine_part_count(e) - 1) == 5,
          "a flipped last byte of the file: the last part refused");
    attn_engine_destroy(e);
    free(b.bytes);
}

/* A value check in a part: a NaN in the MLM output bias, with the part's CRC and the head
 * checksum made right, so only the value check can tell. */
static void test_bad_values_in_part(const buffer *file) {
    buffer b = aligned_buffer(file->size);
    memcpy(b.bytes, file->bytes, file->size);
    const uint64_t bias = data_offset_of(&b, "cls.predictions.bias");
    const uint32_t count = get_u32(b.bytes + HEADER_PART_COUNT);
    uint32_t part = 0;
    uint8_t *entry = b.bytes + get_u64(b.bytes + HEADER_PARTS_OFFSET);
    while (part + 1 < count && get_u64(entry + WEIGHTS_PART_ENTRY_SIZE) <= bias)
        part++, entry += WEIGHTS_PART_ENTRY_SIZE;
    const uint64_t offset = get_u64(entry), bytes = get_u32(entry + PART_BYTES);
    check(bias >= offset && bias < offset + bytes && part > 0, "cls.predictions.bias lies in part %u", part);
    if (bias < offset || bias >= offset + bytes || part == 0) {
        free(b.bytes);
        return;
    }
    put_u32(b.bytes + bias + 4, 0x7fc00000u);
    put_u32(entry + PART_CRC, weights_crc32(b.bytes + offset, (size_t)bytes));
    reseal_head(&b);
    attn_engine *e = NULL;
    check(attn_engine_create(b.bytes, b.size, &e) == 7, "whole file with a NaN in the MLM part: status 7");
    attn_engine_destroy(e);
    e = NULL;
    check(attn_engine_create_partial(b.bytes, b.size, &e) == ATTN_OK, "partial engine: the head alone is fine");
    if (e) {
        check(attn_engine_part_arrived(e, (int32_t)part) == 7 && !attn_engine_part_ready(e, (int32_t)part),
              "the MLM part with a NaN, CRC right: status 7 (bad values), not ready");
        check(attn_engine_part_arrived(e, 0) == ATTN_OK, "part 0 unaffected");
    }
    attn_engine_destroy(e);
    free(b.bytes);
}

static void test_bad_heads(const buffer *file) {
    buffer b = head_only(file);
    attn_engine *e = NULL;
    const size_t head = (size_t)head_bytes_of(file);
    b.bytes[head - 1] ^= 0x01;
    check(attn_engine_create_partial(b.bytes, b.size, &e) == 5 && e == NULL, "a flipped byte in the head: status 5");
    b.bytes[head - 1] ^= 0x01;
    check(attn_engine_create_partial(b.bytes, b.size - 16, &e) == 4 && e == NULL,
          "a buffer shorter than file_size: status 4 (truncated)");
    check(attn_engine_create_partial(b.bytes, 64, &e) == 1 && e == NULL, "64 bytes: status 1 (too small)");
    check(attn_engine_create_partial(b.bytes, b.size, &e) == ATTN_OK && e != NULL, "the head restored: accepted");
    attn_engine_destroy(e);
    free(b.bytes);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s WEIGHTS.bin\n", argv[0]);
        return 2;
    }
    buffer file = read_file(argv[1]);
    attn_engine *whole = NULL;
    const int status = attn_engine_create(file.bytes, file.size, &whole);
    check(status == ATTN_OK, "whole file loads: %s", attn_status_message(status));
    if (whole) {
        test_whole_file_engine(whole, &file);
        test_long_run_in_steps(whole);
        test_parts_in_random_order(whole, &file);
        test_corrupted_part(whole, &file);
        test_bad_values_in_part(&file);
        test_bad_heads(&file);
        attn_engine_destroy(whole);
    }
    free(file.bytes);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
