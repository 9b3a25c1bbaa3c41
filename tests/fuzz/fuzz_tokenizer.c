/* libFuzzer target: the tokenizer on arbitrary bytes (invalid UTF-8 included).
 *
 * Input: one selector byte, then the text. Selector bits 0-2 pick the token capacity; bit 7
 * switches to a vocabulary built from the input (the text before the first NUL, after the
 * five special tokens), the text being what follows the NUL.
 *
 * Beyond "no crash, no sanitizer report", every input must satisfy:
 *  - raw bytes and the same bytes decoded by an independent WHATWG UTF-8 decoder (each
 *    maximal invalid subpart -> U+FFFD, as TextDecoder does) and re-encoded tokenize alike,
 *    ids and offsets;
 *  - [CLS] first, [SEP] last, ids in range, offsets inside the text, starts non-decreasing;
 *  - a small capacity gives a prefix of the untruncated list, [SEP] last, and the truncation
 *    flag and full count agree with the untruncated run (full count capped at the limit). */
#define _POSIX_C_SOURCE 200809L /* posix_memalign */
#include <limits.h>

#include "fuzz_util.h"
#include "tokenizer.h"
#include "weights.h"

static const tokenizer *real_tokenizer;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    size_t size = 0;
    uint8_t *bytes = fuzz_read_file(fuzz_weights_path(), &size); /* kept: the model points into it */
    static bert_model model;
    tokenizer *tok = NULL;
    if (weights_load(bytes, size, &model) != WEIGHTS_OK ||
        tokenizer_create(model.vocab_text, model.vocab_bytes, NULL, &tok) != TOKENIZER_OK) {
        fprintf(stderr, "fuzz_tokenizer: cannot load %s\n", fuzz_weights_path());
        exit(2);
    }
    real_tokenizer = tok;
    fuzz_real_engine();
    return 0;
}

/* ---------- an independent WHATWG UTF-8 decoder (Encoding Standard, 4.3 "UTF-8 decoder") */

static size_t put_utf8(uint32_t c, uint8_t *out) {
    if (c < 0x80) return out[0] = (uint8_t)c, 1;
    if (c < 0x800) return out[0] = (uint8_t)(0xC0 | c >> 6), out[1] = (uint8_t)(0x80 | (c & 63)), 2;
    if (c < 0x10000) {
        out[0] = (uint8_t)(0xE0 | c >> 12), out[1] = (uint8_t)(0x80 | (c >> 6 & 63));
        out[2] = (uint8_t)(0x80 | (c & 63));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | c >> 18), out[1] = (uint8_t)(0x80 | (c >> 12 & 63));
    out[2] = (uint8_t)(0x80 | (c >> 6 & 63)), out[3] = (uint8_t)(0x80 | (c & 63));
    return 4;
}

/* Writes the decoded-and-re-encoded text to out (at most 3 bytes per input byte); returns its
 * length and the number of code points in *code_points. */
static size_t whatwg_sanitize(const uint8_t *in, size_t size, uint8_t *out, size_t *code_points) {
    uint32_t code_point = 0;
    unsigned bytes_needed = 0, bytes_seen = 0, lower = 0x80, upper = 0xBF;
    size_t length = 0, count = 0;
    for (size_t i = 0; i <= size; i++) {
        if (i == size) { /* end of stream */
            if (bytes_needed) length += put_utf8(0xFFFD, out + length), count++;
            break;
        }
        const unsigned byte = in[i];
        if (bytes_needed == 0) {
            if (byte <= 0x7F) length += put_utf8(byte, out + length), count++;
            else if (byte >= 0xC2 && byte <= 0xDF) bytes_needed = 1, code_point = byte & 0x1F;
            else if (byte >= 0xE0 && byte <= 0xEF) {
                if (byte == 0xE0) lower = 0xA0;
                if (byte == 0xED) upper = 0x9F;
                bytes_needed = 2, code_point = byte & 0xF;
            } else if (byte >= 0xF0 && byte <= 0xF4) {
                if (byte == 0xF0) lower = 0x90;
                if (byte == 0xF4) upper = 0x8F;
                bytes_needed = 3, code_point = byte & 0x7;
            } else length += put_utf8(0xFFFD, out + length), count++;
            continue;
        }
        if (byte < lower || byte > upper) { /* error, and the byte is read again */
            code_point = bytes_needed = bytes_seen = 0, lower = 0x80, upper = 0xBF;
            length += put_utf8(0xFFFD, out + length), count++;
            i--;
            continue;
        }
        lower = 0x80, upper = 0xBF;
        code_point = code_point << 6 | (byte & 0x3F);
        if (++bytes_seen != bytes_needed) continue;
        length += put_utf8(code_point, out + length), count++;
        code_point = bytes_needed = bytes_seen = 0;
    }
    *code_points = count;
    return length;
}

/* ---------- token lists */

typedef struct {
    int32_t *ids, *starts, *ends;
    token_list list;
} owned_tokens;

static owned_tokens encode(const tokenizer *tok, const uint8_t *text, size_t size, int capacity, int limit) {
    owned_tokens t;
    t.ids = malloc(sizeof(int32_t) * (size_t)capacity);
    t.starts = malloc(sizeof(int32_t) * (size_t)capacity);
    t.ends = malloc(sizeof(int32_t) * (size_t)capacity);
    FUZZ_REQUIRE(t.ids && t.starts && t.ends);
    t.list = (token_list){t.ids, t.starts, t.ends, 0, 0, 0};
    FUZZ_REQUIRE(tokenizer_encode(tok, (const char *)text, size, capacity, limit, &t.list) == TOKENIZER_OK);
    return t;
}

static void release(owned_tokens *t) {
    free(t->ids);
    free(t->starts);
    free(t->ends);
}

static void check_well_formed(const tokenizer *tok, const token_list *l, int capacity, size_t code_points) {
    FUZZ_REQUIRE(l->count >= 2 && l->count <= capacity && l->full_count >= l->count);
    FUZZ_REQUIRE(l->ids[0] == tokenizer_special_id(tok, SPECIAL_CLS));
    FUZZ_REQUIRE(l->ids[l->count - 1] == tokenizer_special_id(tok, SPECIAL_SEP));
    FUZZ_REQUIRE(l->truncated == (l->full_count > capacity));
    for (int i = 0; i < l->count; i++) FUZZ_REQUIRE(tokenizer_token(tok, l->ids[i]) != NULL);
    for (int i = 1; i + 1 < l->count; i++) {
        FUZZ_REQUIRE(l->starts[i] >= 0 && l->starts[i] < l->ends[i]);
        FUZZ_REQUIRE((size_t)l->ends[i] <= code_points);
        FUZZ_REQUIRE(i == 1 || l->starts[i] >= l->starts[i - 1]);
    }
}

static int same_tokens(const token_list *a, const token_list *b, int count) {
    return memcmp(a->ids, b->ids, sizeof(int32_t) * (size_t)count) == 0 &&
           memcmp(a->starts, b->starts, sizeof(int32_t) * (size_t)count) == 0 &&
           memcmp(a->ends, b->ends, sizeof(int32_t) * (size_t)count) == 0;
}

static const int CAPACITIES[8] = {2, 3, 4, 5, 8, 64, 512, 0 /* whole text */};
enum { COUNT_LIMIT = ATTN_COUNT_LIMIT };

static void check_tokenizer(const tokenizer *tok, const uint8_t *text, size_t size, unsigned selector) {
    const int whole = (int)size + 2; /* a text of b bytes gives at most b pieces */
    owned_tokens full = encode(tok, text, size, whole, INT_MAX);
    uint8_t *clean = malloc(3 * size + 1);
    size_t code_points = 0;
    const size_t clean_size = whatwg_sanitize(text, size, clean, &code_points);
    check_well_formed(tok, &full.list, whole, code_points);
    FUZZ_REQUIRE(!full.list.truncated && full.list.full_count == full.list.count);

    owned_tokens decoded = encode(tok, clean, clean_size, (int)clean_size + 2, INT_MAX);
    FUZZ_REQUIRE(decoded.list.count == full.list.count);
    FUZZ_REQUIRE(same_tokens(&decoded.list, &full.list, full.list.count));
    release(&decoded);
    free(clean);

    const int capacity = CAPACITIES[selector & 7] ? CAPACITIES[selector & 7] : whole;
    owned_tokens part = encode(tok, text, size, capacity, capacity + COUNT_LIMIT);
    check_well_formed(tok, &part.list, capacity, code_points);
    const int expected_full = full.list.count < capacity + COUNT_LIMIT ? full.list.count : capacity + COUNT_LIMIT;
    FUZZ_REQUIRE(part.list.full_count == expected_full);
    FUZZ_REQUIRE(part.list.count == (full.list.count < capacity ? full.list.count : capacity));
    FUZZ_REQUIRE(same_tokens(&part.list, &full.list, part.list.count - 1));
    release(&part);
    release(&full);
}

/* The C API's entry point on the same bytes: the counts agree with the tokenizer's. */
static void check_engine_tokenize(const uint8_t *text, size_t size, unsigned selector) {
    const int capacity = CAPACITIES[selector & 7] ? CAPACITIES[selector & 7] : (int)size + 2;
    int32_t *arrays = malloc(sizeof(int32_t) * 3 * (size_t)capacity);
    int32_t counts[2];
    FUZZ_REQUIRE(arrays != NULL);
    const int status = attn_engine_tokenize(fuzz_real_engine(), (const char *)text, size, capacity, arrays,
                                            arrays + capacity, arrays + 2 * capacity, counts);
    FUZZ_REQUIRE(status == ATTN_OK && counts[0] >= 2 && counts[0] <= capacity && counts[1] >= counts[0]);
    free(arrays);
}

/* A vocabulary: the five special tokens, then the input's lines. NULL when it is refused. */
static tokenizer *vocabulary_from(const uint8_t *bytes, size_t size) {
    static const char specials[] = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n";
    char *text = malloc(sizeof specials + size + 1);
    FUZZ_REQUIRE(text != NULL);
    size_t length = sizeof specials - 1;
    memcpy(text, specials, length);
    memcpy(text + length, bytes, size);
    length += size;
    if (size > 0 && text[length - 1] != '\n') text[length++] = '\n';
    tokenizer *tok = NULL;
    const tokenizer_status status = tokenizer_create(text, length, NULL, &tok);
    FUZZ_REQUIRE(status == TOKENIZER_OK || status == TOKENIZER_ERR_VOCAB);
    free(text);
    return tok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0 || size > 1 << 20) return 0;
    const unsigned selector = data[0];
    const uint8_t *text = data + 1;
    size_t text_size = size - 1;
    if (!(selector & 0x80)) {
        check_tokenizer(real_tokenizer, text, text_size, selector);
        check_engine_tokenize(text, text_size, selector);
        return 0;
    }
    const uint8_t *nul = memchr(text, 0, text_size);
    const size_t vocab_size = nul ? (size_t)(nul - text) : text_size;
    tokenizer *tok = vocabulary_from(text, vocab_size);
    if (tok) {
        const size_t skip = nul ? vocab_size + 1 : text_size;
        check_tokenizer(tok, text + skip, text_size - skip, selector);
        tokenizer_destroy(tok);
    }
    return 0;
}
