/* Native tests of c/tokenizer.c against the reference fixtures.
 *
 * Build and run (from the repository root):
 *   gcc -std=c11 -O2 -Wall -Wextra -Werror -Ic tests/native/test_tokenizer.c c/tokenizer.c \
 *       c/unicode_tables.c -o /tmp/test_tokenizer
 *   clang -std=c11 -g -O1 -Wall -Wextra -Werror -fsanitize=address,undefined -fno-sanitize-recover=all \
 *       -Ic tests/native/test_tokenizer.c c/tokenizer.c c/unicode_tables.c -o /tmp/test_tokenizer_asan
 *   /tmp/test_tokenizer /work/shared/checkpoints/bert-mini-mlm/vocab.txt \
 *       tests/fixtures/tokenize.jsonl tests/fixtures/vocab_roundtrip.json
 *
 * Checks: every tokenize.jsonl line (ids, tokens, offsets exactly); the vocabulary round trip
 * (each whole-word entry typed as text gives [CLS] entry [SEP]); edge cases (empty and
 * whitespace-only text, truncation, full_count/count_limit, invalid UTF-8, a 1 MB input,
 * another vocabulary, malformed vocabularies, random bytes). Prints "N passed, N failed". */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json_min.h"
#include "tokenizer.h"
#include "weights.h"

static int passed, failed;

static void check(int ok, const char *what, const char *detail) {
    if (ok) {
        passed++;
        return;
    }
    failed++;
    if (failed <= 40) fprintf(stderr, "FAIL %s: %s\n", what, detail);
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static char *read_file(const char *path, size_t *length) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t capacity = 1 << 16, used = 0;
    char *data = malloc(capacity);
    for (size_t n; data && (n = fread(data + used, 1, capacity - used, f)) > 0;) {
        used += n;
        if (used == capacity) {
            char *grown = realloc(data, capacity *= 2);
            if (!grown) free(data);
            data = grown;
        }
    }
    fclose(f);
    *length = used;
    return data;
}

/* ---------- token lists ---------- */

typedef struct {
    token_list list;
    int capacity;
} owned_list;

static owned_list *list_new(int capacity) {
    owned_list *o = calloc(1, sizeof *o);
    o->capacity = capacity;
    o->list.ids = calloc((size_t)capacity, sizeof(int32_t));
    o->list.starts = calloc((size_t)capacity, sizeof(int32_t));
    o->list.ends = calloc((size_t)capacity, sizeof(int32_t));
    return o;
}

static void list_free(owned_list *o) {
    free(o->list.ids);
    free(o->list.starts);
    free(o->list.ends);
    free(o);
}

static tokenizer_status encode(const tokenizer *tok, const char *text, size_t bytes, owned_list *o, int limit) {
    return tokenizer_encode(tok, text, bytes, o->capacity, limit, &o->list);
}

/* ---------- tokenize.jsonl ---------- */

typedef struct {
    char *text;
    size_t text_bytes;
    long ids[4096], offsets[4096][2];
    char *tokens[4096];
    int id_count, token_count, offset_count;
} fixture_line;

static void read_int_array(json_cursor *c, long *out, int *count, int max) {
    json_expect(c, '[');
    if (json_accept(c, ']')) return;
    do {
        long v = json_integer(c);
        if (*count < max) out[(*count)++] = v;
        else c->error = 1;
    } while (!c->error && json_accept(c, ','));
    json_expect(c, ']');
}

static void read_offsets(json_cursor *c, fixture_line *f) {
    json_expect(c, '[');
    if (json_accept(c, ']')) return;
    do {
        long pair[2];
        int n = 0;
        read_int_array(c, pair, &n, 2);
        if (n != 2 || f->offset_count >= 4096) {
            c->error = 1;
            return;
        }
        f->offsets[f->offset_count][0] = pair[0];
        f->offsets[f->offset_count++][1] = pair[1];
    } while (!c->error && json_accept(c, ','));
    json_expect(c, ']');
}

static void read_tokens(json_cursor *c, fixture_line *f) {
    json_expect(c, '[');
    if (json_accept(c, ']')) return;
    do {
        size_t n;
        char *s = json_string(c, &n);
        if (!s || f->token_count >= 4096) {
            free(s);
            c->error = 1;
            return;
        }
        f->tokens[f->token_count++] = s;
    } while (!c->error && json_accept(c, ','));
    json_expect(c, ']');
}

static int parse_fixture_line(const char *line, size_t length, fixture_line *f) {
    json_cursor c = {line, line + length, 0};
    memset(f, 0, sizeof *f);
    json_expect(&c, '{');
    do {
        size_t n;
        char *key = json_string(&c, &n);
        json_expect(&c, ':');
        if (!key) break;
        if (strcmp(key, "text") == 0) f->text = json_string(&c, &f->text_bytes);
        else if (strcmp(key, "ids") == 0) read_int_array(&c, f->ids, &f->id_count, 4096);
        else if (strcmp(key, "offsets") == 0) read_offsets(&c, f);
        else if (strcmp(key, "tokens") == 0) read_tokens(&c, f);
        else json_skip_value(&c, 0);
        free(key);
    } while (!c.error && json_accept(&c, ','));
    json_expect(&c, '}');
    return !c.error && f->text && f->id_count == f->offset_count && f->id_count == f->token_count;
}

static void free_fixture_line(fixture_line *f) {
    free(f->text);
    for (int i = 0; i < f->token_count; i++) free(f->tokens[i]);
}

static int list_matches(const tokenizer *tok, const token_list *l, const fixture_line *f) {
    if (l->count != f->id_count || l->truncated || l->full_count != f->id_count) return 0;
    for (int i = 0; i < l->count; i++) {
        const char *token = tokenizer_token(tok, l->ids[i]);
        if (l->ids[i] != f->ids[i] || l->starts[i] != f->offsets[i][0] || l->ends[i] != f->offsets[i][1] || !token ||
            strcmp(token, f->tokens[i]) != 0)
            return 0;
    }
    return 1;
}

static void describe_mismatch(const tokenizer *tok, const token_list *l, const fixture_line *f, int line_no) {
    fprintf(stderr, "line %d: %.80s\n  got:     ", line_no, f->text);
    for (int i = 0; i < l->count && i < 40; i++)
        fprintf(stderr, "%s[%d,%d] ", tokenizer_token(tok, l->ids[i]), l->starts[i], l->ends[i]);
    fprintf(stderr, "\n  expected:");
    for (int i = 0; i < f->id_count && i < 40; i++)
        fprintf(stderr, "%s[%ld,%ld] ", f->tokens[i], f->offsets[i][0], f->offsets[i][1]);
    fprintf(stderr, "\n");
}

static void test_fixture_file(const tokenizer *tok, const char *path, const char *label) {
    size_t length;
    char *data = read_file(path, &length);
    check(data != NULL, "read tokenize.jsonl", path);
    if (!data) return;
    fixture_line *f = malloc(sizeof *f);
    int lines = 0, ok_lines = 0;
    double encode_ms = 0;
    for (char *line = data, *end; line < data + length; line = end + 1) {
        end = memchr(line, '\n', (size_t)(data + length - line));
        if (!end) end = data + length;
        if (end == line) continue;
        lines++;
        if (!parse_fixture_line(line, (size_t)(end - line), f)) {
            check(0, "parse fixture line", "malformed JSON");
            free_fixture_line(f);
            continue;
        }
        owned_list *o = list_new(f->id_count + 8);
        double t0 = now_ms();
        tokenizer_status status = encode(tok, f->text, f->text_bytes, o, 1 << 20);
        encode_ms += now_ms() - t0;
        int ok = status == TOKENIZER_OK && list_matches(tok, &o->list, f);
        if (!ok && failed < 40) describe_mismatch(tok, &o->list, f, lines);
        check(ok, "tokenize.jsonl line", f->text);
        ok_lines += ok;
        list_free(o);
        free_fixture_line(f);
    }
    printf("tokenize.jsonl%s: %d/%d lines match (encode time %.2f ms total)\n", label, ok_lines, lines, encode_ms);
    free(f);
    free(data);
}

/* ---------- vocabulary round trip ---------- */

static int is_bracketed(const char *entry) {
    size_t n = strlen(entry);
    return n >= 2 && entry[0] == '[' && entry[n - 1] == ']';
}

/* The reference checks whole-word entries, i.e. not "##..." and not "[...]" placeholders
 * ([PAD], [unused0], ...): 25,625 entries for bert-mini-mlm. */
static void test_round_trip(const tokenizer *tok, const char *roundtrip_path) {
    size_t length;
    char *data = read_file(roundtrip_path, &length);
    long expected_checked = -1;
    const char *at = data ? strstr(data, "\"checked\"") : NULL;
    if (at) expected_checked = strtol(strchr(at, ':') + 1, NULL, 10);
    check(data && strstr(data, "\"not_self\":[]") != NULL, "vocab_roundtrip.json", "expects an empty not_self");
    owned_list *o = list_new(64);
    long checked = 0, good = 0;
    for (int id = 0; id < tokenizer_vocab_size(tok); id++) {
        const char *entry = tokenizer_token(tok, id);
        if (entry[0] == '\0' || strncmp(entry, "##", 2) == 0 || is_bracketed(entry)) continue;
        checked++;
        encode(tok, entry, strlen(entry), o, 64);
        int ok = o->list.count == 3 && o->list.ids[1] == id;
        if (!ok && failed < 40) fprintf(stderr, "round trip: %s\n", entry);
        good += ok;
    }
    printf("vocab round trip: %ld/%ld entries give themselves (reference checked %ld)\n", good, checked,
           expected_checked);
    check(good == checked, "vocab round trip", "some entries do not tokenize to themselves");
    check(checked == expected_checked, "vocab round trip count", "entry count differs from the reference");
    list_free(o);
    free(data);
}

/* ---------- edge cases ---------- */

static int32_t id_of(const tokenizer *tok, const char *token) { return tokenizer_entry_id(tok, token); }

/* Compares against "token start end|token start end|..." between [CLS] and [SEP]. */
static int pieces_are(const tokenizer *tok, const token_list *l, const char *expected) {
    char buffer[512];
    int i = 1;
    snprintf(buffer, sizeof buffer, "%s", expected);
    for (char *save, *item = strtok_r(buffer, "|", &save); item; item = strtok_r(NULL, "|", &save), i++) {
        char token[64];
        int start, end;
        if (sscanf(item, "%63s %d %d", token, &start, &end) != 3 || i >= l->count - 1) return 0;
        if (l->ids[i] != id_of(tok, token) || l->starts[i] != start || l->ends[i] != end) return 0;
    }
    return i == l->count - 1 && l->ids[0] == id_of(tok, "[CLS]") && l->ids[i] == id_of(tok, "[SEP]");
}

static void expect_pieces(const tokenizer *tok, const char *text, size_t bytes, const char *expected) {
    owned_list *o = list_new(64);
    tokenizer_status status = encode(tok, text, bytes, o, 64);
    check(status == TOKENIZER_OK && pieces_are(tok, &o->list, expected), "pieces", expected);
    list_free(o);
}

static void test_empty_and_whitespace(const tokenizer *tok) {
    const char *texts[] = {"", " ", "\t\n\r ", "\xE3\x80\x80\xC2\xA0\xE2\x80\xA8", "\x01\x7F\xEF\xBF\xBD"};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        owned_list *o = list_new(8);
        encode(tok, texts[i], strlen(texts[i]), o, 8);
        token_list *l = &o->list;
        int ok = l->count == 2 && l->full_count == 2 && !l->truncated && l->ids[0] == id_of(tok, "[CLS]") &&
                 l->ids[1] == id_of(tok, "[SEP]") && l->starts[0] == 0 && l->ends[1] == 0;
        check(ok, "empty/whitespace-only text", texts[i]);
        list_free(o);
    }
    owned_list *o = list_new(2);
    check(tokenizer_encode(tok, NULL, 0, 2, 2, &o->list) == TOKENIZER_OK && o->list.count == 2, "NULL text",
          "gives [CLS] [SEP]");
    list_free(o);
}

static char *repeat(const char *unit, size_t times, size_t *bytes) {
    size_t n = strlen(unit);
    char *text = malloc(n * times + 1);
    for (size_t i = 0; i < times; i++) memcpy(text + i * n, unit, n);
    text[n * times] = '\0';
    *bytes = n * times;
    return text;
}

static void test_truncation(const tokenizer *tok) {
    size_t bytes;
    char *text = repeat("hello ", 600, &bytes);
    owned_list *o = list_new(512);
    encode(tok, text, bytes, o, 100000);
    token_list *l = &o->list;
    int32_t hello = id_of(tok, "hello");
    check(l->count == 512 && l->truncated == 1 && l->full_count == 602, "truncation counts", "512 of 602");
    check(l->ids[511] == id_of(tok, "[SEP]") && l->starts[511] == 0 && l->ends[511] == 0, "truncation", "[SEP] last");
    check(l->ids[510] == hello && l->starts[510] == 509 * 6 && l->ends[510] == 509 * 6 + 5, "truncation",
          "last kept word and its offsets");
    encode(tok, text, bytes, o, 550);
    check(l->count == 512 && l->truncated && l->full_count == 550, "count_limit", "full_count stops at 550");
    encode(tok, text, bytes, o, 10); /* count_limit below capacity acts as capacity */
    check(l->count == 512 && l->truncated && l->full_count == 512, "count_limit < capacity", "clamped");
    list_free(o);
    o = list_new(2);
    encode(tok, text, bytes, o, 2);
    check(o->list.count == 2 && o->list.truncated && o->list.ids[1] == id_of(tok, "[SEP]"), "capacity 2",
          "[CLS] [SEP] only");
    list_free(o);
    o = list_new(602);
    encode(tok, text, bytes, o, 602);
    check(o->list.count == 602 && !o->list.truncated && o->list.full_count == 602, "exact fit", "602 tokens");
    list_free(o);
    free(text);
}

static void test_one_megabyte(const tokenizer *tok) {
    size_t bytes;
    char *text = repeat("The quick brown fox jumps over the lazy dog. ", (1 << 20) / 45, &bytes);
    owned_list *o = list_new(512);
    double t0 = now_ms();
    encode(tok, text, bytes, o, 2048);
    double elapsed = now_ms() - t0;
    check(o->list.count == 512 && o->list.truncated && o->list.full_count == 2048, "1 MB input",
          "stops at count_limit");
    printf("1 MB input with count_limit 2048: %.3f ms\n", elapsed);
    free(text);
    text = repeat("a", 1 << 20, &bytes); /* one 1 MB word: a single [UNK] */
    t0 = now_ms();
    encode(tok, text, bytes, o, 2048);
    elapsed = now_ms() - t0;
    check(o->list.count == 3 && o->list.ids[1] == id_of(tok, "[UNK]") && o->list.ends[1] == 1 << 20, "1 MB single word",
          "[UNK] over the whole word");
    printf("1 MB single word: %.3f ms\n", elapsed);
    free(text);
    text = repeat("\xF0\x9D\x85\xAD\xF0\x9D\x85\xA5", (1 << 20) / 8, &bytes); /* alternating ccc 226/216 */
    t0 = now_ms();
    encode(tok, text, bytes, o, 2048);
    elapsed = now_ms() - t0;
    check(o->list.count == 3 && o->list.ends[1] == (1 << 20) / 4, "1 MB of combining marks", "one [UNK]");
    printf("1 MB of non-Mn combining marks: %.3f ms\n", elapsed);
    free(text);
    list_free(o);
}

static void test_invalid_utf8(const tokenizer *tok) {
    /* Each maximal invalid subpart is one U+FFFD, which the cleaning step then drops. */
    expect_pieces(tok, "a\xC3(b", 5, "a 0 1|( 2 3|b 3 4");
    expect_pieces(tok, "\xF0\x9F\x98x", 4, "x 1 2");
    expect_pieces(tok, "\xED\xA0\x80x", 4, "x 3 4");
    expect_pieces(tok, "\xF4\x90\x80\x80x", 5, "x 4 5");
    expect_pieces(tok, "\xC0\xAFx", 3, "x 2 3");
    expect_pieces(tok, "\xE0\x80x", 3, "x 2 3");
    expect_pieces(tok, "\xE1\x80x", 3, "x 1 2");
    expect_pieces(tok, "\xFF\xFEx\x80", 4, "x 2 3");
    expect_pieces(tok, "x\xF0\x90\x80", 4, "x 0 1");
    expect_pieces(tok, "do\xFFg", 4, "dog 0 4"); /* the dropped char stays inside the word */
    expect_pieces(tok, "x\0y", 3, "x 0 1|##y 2 3");
}

static void test_special_tokens(const tokenizer *tok) {
    expect_pieces(tok, "a[MASK]b", 8, "a 0 1|[MASK] 1 7|b 7 8");
    expect_pieces(tok, "[MASK", 5, "[ 0 1|mask 1 5");
    expect_pieces(tok, "[[UNK]]", 7, "[ 0 1|[UNK] 1 6|] 6 7");
    expect_pieces(tok, "\xC3\xA9[SEP]", 7, "e 0 1|[SEP] 1 6");
    expect_pieces(tok, "\xC3[CLS]", 6, "[CLS] 1 6");
}

static void test_other_vocabulary(void) {
    /* entry 8 is x + U+1D165 (ccc 216) + U+1D16D (ccc 226), non-Mn marks that NFD reorders */
    const char *vocab = "[UNK]\r\n[SEP]\r\n[PAD]\r\n[CLS]\r\n[MASK]\r\nhello\r\n##s\r\n!\r\n"
                        "x\xF0\x9D\x85\xA5\xF0\x9D\x85\xAD";
    tokenizer *tok;
    check(tokenizer_create(vocab, strlen(vocab), NULL, &tok) == TOKENIZER_OK, "other vocabulary", "loads");
    if (!tok) return;
    check(tokenizer_special_id(tok, SPECIAL_CLS) == 3 && tokenizer_special_id(tok, SPECIAL_MASK) == 4 &&
              tokenizer_special_id(tok, SPECIAL_UNK) == 0 && tokenizer_special_id(tok, SPECIAL_COUNT) == -1 &&
              tokenizer_entry_id(tok, "[MASK]") == 4 && tokenizer_vocab_size(tok) == 9 &&
              tokenizer_token(tok, 9) == NULL && tokenizer_entry_id(tok, "x") == -1,
          "other vocabulary", "ids come from the file");
    expect_pieces(tok, "HELLOS! byebye", 14, "hello 0 5|##s 5 6|! 6 7|[UNK] 8 14");
    owned_list *o = list_new(8);
    encode(tok, "X\xF0\x9D\x85\xAD\xF0\x9D\x85\xA5", 9, o, 8);
    check(o->list.count == 3 && o->list.ids[1] == 8 && o->list.starts[1] == 0 && o->list.ends[1] == 3,
          "canonical reordering", "marks sorted by combining class");
    list_free(o);
    tokenizer_destroy(tok);
}

/* Each BertNormalizer setting and another continuing-subword prefix (format version 3): the
 * pieces Hugging Face `tokenizers` gives with those settings (tests/tokenizer-modes.test.mjs
 * holds the engine to the library itself on every setting). */
static void expect_with(const tokenizer_settings *settings, const char *text, const char *expected) {
    const char *vocab = "[UNK]\n[SEP]\n[PAD]\n[CLS]\n[MASK]\nCaf\xC3\xA9\ncaf\xC3\xA9\ncafe\n##s\n@@s\ns\n"
                        "\xC3\x89"
                        "cole\nEcole\n\xE7\x8C\xAB\xE7\x8C\xAB\n";
    tokenizer *tok = NULL;
    check(tokenizer_create(vocab, strlen(vocab), settings, &tok) == TOKENIZER_OK, "settings", "load");
    if (tok) expect_pieces(tok, text, strlen(text), expected);
    tokenizer_destroy(tok);
}

static void test_settings(void) {
    const tokenizer_settings cased = {0, 0, 1, "##"}, lower_keep = {1, 0, 1, "##"}, strip_cased = {0, 1, 1, "##"};
    const tokenizer_settings at = {0, 0, 1, "@@"}, bare = {0, 0, 1, ""}, no_cjk = {0, 0, 0, "##"};
    expect_with(NULL, "CAF\xC3\x89S", "cafe 0 4|##s 4 5");
    expect_with(&cased,
                "Caf\xC3\xA9s CAF\xC3\x89 \xC3\x89"
                "cole",
                "Caf\xC3\xA9 0 4|##s 4 5|[UNK] 6 10|\xC3\x89"
                "cole 11 16");
    expect_with(&lower_keep,
                "CAF\xC3\x89S \xC3\x89"
                "cole",
                "caf\xC3\xA9 0 4|##s 4 5|[UNK] 6 11");
    expect_with(&strip_cased,
                "\xC3\x89"
                "cole Caf\xC3\xA9",
                "Ecole 0 5|[UNK] 6 10");
    expect_with(&at, "Caf\xC3\xA9s", "Caf\xC3\xA9 0 4|@@s 4 5");
    expect_with(&bare, "Caf\xC3\xA9s", "Caf\xC3\xA9 0 4|s 4 5");
    expect_with(&no_cjk, "\xE7\x8C\xAB\xE7\x8C\xAB", "\xE7\x8C\xAB\xE7\x8C\xAB 0 2");
    expect_with(&cased, "\xE7\x8C\xAB\xE7\x8C\xAB", "[UNK] 0 1|[UNK] 1 2");
    const tokenizer_settings long_prefix = {1, 1, 1, "############"}, bad_prefix = {1, 1, 1, "\xFF"};
    tokenizer *tok = NULL;
    check(tokenizer_create("[UNK]\n[SEP]\n[PAD]\n[CLS]\n[MASK]\n", 30, &long_prefix, &tok) == TOKENIZER_ERR_VOCAB &&
              !tok,
          "settings", "a 12-byte prefix is refused");
    check(tokenizer_create("[UNK]\n[SEP]\n[PAD]\n[CLS]\n[MASK]\n", 30, &bad_prefix, &tok) == TOKENIZER_ERR_VOCAB &&
              !tok,
          "settings", "a prefix that is not UTF-8 is refused");
}

static void test_bad_vocabularies(void) {
    const char *bad[] = {"", "[UNK]\n[SEP]\n[PAD]\n[CLS]\n", "[UNK]\n[SEP]\n[PAD]\n[CLS]\n[MASK]\na\xFF\n",
                         "[UNK]\n[SEP]\n[PAD]\n[CLS]\n[MASK]\n\xED\xA0\x80\n", "[UNK]\n[SEP]\n[PAD]\n[CLS]\n[MASK \n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        tokenizer *tok = (tokenizer *)&bad;
        check(tokenizer_create(bad[i], strlen(bad[i]), NULL, &tok) == TOKENIZER_ERR_VOCAB && tok == NULL,
              "bad vocabulary", bad[i]);
    }
    const char with_nul[] = "[UNK]\n[SEP]\n[PAD]\n[CLS]\n[MASK]\na\0b\n";
    tokenizer *tok;
    check(tokenizer_create(with_nul, sizeof with_nul - 1, NULL, &tok) == TOKENIZER_ERR_VOCAB, "bad vocabulary", "NUL");
}

/* ---------- vocabulary files with trailing whitespace and CRLF ---------- */

/* The reference (WordPiece.from_file) splits on '\n' and trims trailing White_Space from each
 * line, so these variants of the vocabulary must give the reference's ids, i.e. tokenize.jsonl
 * and the round trip unchanged. tests/tokenizer-exhaustive.test.mjs checks the same variants
 * against the reference itself. */
static const char *const trailing_space[] = {
    "", " ", "\t", " \t ", "\r", "\xC2\xA0", "\xE3\x80\x80", "\xC2\x85", "\xE2\x80\xA8", "\x0B\x0C", "\xE2\x80\x83\r"};
#define TRAILING_SPACE_KINDS (sizeof trailing_space / sizeof *trailing_space)

/* Rewrites each line as line + trailing_space[line % kinds] (or "" when kinds is 0) + "\r\n" (when crlf)
 * or "\n". */
static char *vocab_variant(const char *vocab, size_t bytes, size_t kinds, int crlf, size_t *out_bytes) {
    size_t lines = 0;
    for (size_t i = 0; i < bytes; i++) lines += vocab[i] == '\n';
    char *out = malloc(bytes + (lines + 1) * 8);
    size_t used = 0, line = 0;
    for (size_t start = 0; start < bytes; line++) {
        const char *end = memchr(vocab + start, '\n', bytes - start);
        size_t length = end ? (size_t)(end - (vocab + start)) : bytes - start;
        memcpy(out + used, vocab + start, length);
        used += length;
        const char *space = kinds ? trailing_space[line % kinds] : "";
        memcpy(out + used, space, strlen(space));
        used += strlen(space);
        if (crlf) out[used++] = '\r';
        out[used++] = '\n';
        start += length + 1;
    }
    *out_bytes = used;
    return out;
}

static void test_vocab_variants(const char *vocab, size_t bytes, const char *fixtures, const char *roundtrip) {
    const struct {
        size_t kinds;
        int crlf;
        const char *label;
    } variants[] = {
        {0, 1, " (vocabulary with CRLF)"},
        {TRAILING_SPACE_KINDS, 0, " (vocabulary with trailing whitespace)"},
        {TRAILING_SPACE_KINDS, 1, " (vocabulary with trailing whitespace and CRLF)"},
    };
    for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
        size_t variant_bytes;
        char *text = vocab_variant(vocab, bytes, variants[v].kinds, variants[v].crlf, &variant_bytes);
        tokenizer *tok = NULL;
        tokenizer_status status = tokenizer_create(text, variant_bytes, NULL, &tok);
        check(status == TOKENIZER_OK, "vocabulary variant loads", variants[v].label);
        if (tok) {
            test_fixture_file(tok, fixtures, variants[v].label);
            test_round_trip(tok, roundtrip);
        }
        tokenizer_destroy(tok);
        free(text);
    }
}

/* Ids (without [CLS] and [SEP]) that the reference gives for small vocabularies; the same
 * cases are run through the reference in tests/tokenizer-exhaustive.test.mjs. */
static void expect_ids(const char *vocab, const char *text, const int32_t *ids, int count) {
    tokenizer *tok = NULL;
    tokenizer_status status = tokenizer_create(vocab, strlen(vocab), NULL, &tok);
    check(status == TOKENIZER_OK, "small vocabulary loads", text);
    if (!tok) return;
    owned_list *o = list_new(32);
    encode(tok, text, strlen(text), o, 32);
    int ok = o->list.count == count + 2;
    for (int i = 0; ok && i < count; i++) ok = o->list.ids[i + 1] == ids[i];
    check(ok, "small vocabulary ids as the reference's", text);
    list_free(o);
    tokenizer_destroy(tok);
}

static void test_small_vocabularies(void) {
    /* trailing space, tab+CRLF, U+3000, U+0085 are trimmed; U+200B is not White_Space; an empty
     * line keeps its id; a last line without '\n' ("q\r") counts */
    const char *trimmed = "[UNK]\n[SEP]\n[PAD]\n[CLS]\n[MASK]\nhello \nworld\t\r\n##s\xE3\x80\x80\n"
                          "x\xE2\x80\x8B\nab\xC2\x85\n\nq\r";
    expect_ids(trimmed, "hello worlds", (const int32_t[]){5, 6, 7}, 3);
    expect_ids(trimmed, "x ab q", (const int32_t[]){0, 9, 11}, 3);
    /* an entry that appears twice after trimming takes the later line's id */
    const char *repeated = "[UNK]\n[SEP]\n[PAD]\n[CLS]\n[MASK]\nhello\nhello \n##s\nhello\xC2\xA0\n[UNK] \n";
    expect_ids(repeated, "hellos", (const int32_t[]){8, 7}, 2);
    expect_ids(repeated, "zzz", (const int32_t[]){9}, 1);
}

static int offsets_sane(const token_list *l, size_t bytes) {
    for (int i = 1; i + 1 < l->count; i++)
        if (l->starts[i] < 0 || l->starts[i] >= l->ends[i] || (size_t)l->ends[i] > bytes) return 0;
    return l->count >= 2 && l->full_count >= l->count;
}

static void test_random_bytes(const tokenizer *tok) {
    unsigned state = 12345;
    owned_list *o = list_new(32);
    int sane = 1;
    char text[64];
    for (int round = 0; round < 20000; round++) {
        size_t n = (size_t)(round % 64);
        for (size_t i = 0; i < n; i++) {
            state = state * 1103515245u + 12345u;
            unsigned r = state >> 16;
            text[i] = r % 4 == 0 ? "aZ[]#\xCC\x81 \xE4\xB8\x80\xF0"[r % 13] : (char)r;
        }
        encode(tok, text, n, o, 40);
        sane &= offsets_sane(&o->list, n);
    }
    check(sane, "random bytes", "offsets within the text, count >= 2");
    list_free(o);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s vocab.txt|weights.bin tokenize.jsonl vocab_roundtrip.json\n", argv[0]);
        return 2;
    }
    size_t file_bytes;
    char *file = read_file(argv[1], &file_bytes);
    const char *vocab = file;
    size_t vocab_bytes = file_bytes;
    bert_model model;
    if (file && weights_load((const uint8_t *)file, file_bytes, &model) == WEIGHTS_OK) {
        vocab = model.vocab_text; /* a weights file: use the vocabulary stored in it */
        vocab_bytes = model.vocab_bytes;
    }
    tokenizer *tok = NULL;
    double t0 = now_ms();
    tokenizer_status status = vocab ? tokenizer_create(vocab, vocab_bytes, NULL, &tok) : TOKENIZER_ERR_VOCAB;
    printf("tokenizer_create: %.2f ms\n", now_ms() - t0);
    char *vocab_copy = vocab ? malloc(vocab_bytes + 1) : NULL;
    if (vocab_copy) memcpy(vocab_copy, vocab, vocab_bytes);
    free(file);
    if (status != TOKENIZER_OK || !vocab_copy) {
        fprintf(stderr, "cannot load %s (status %d)\n", argv[1], status);
        tokenizer_destroy(tok);
        free(vocab_copy);
        return 1;
    }
    test_fixture_file(tok, argv[2], "");
    test_round_trip(tok, argv[3]);
    test_empty_and_whitespace(tok);
    test_truncation(tok);
    test_one_megabyte(tok);
    test_invalid_utf8(tok);
    test_special_tokens(tok);
    test_other_vocabulary();
    test_settings();
    test_bad_vocabularies();
    test_vocab_variants(vocab_copy, vocab_bytes, argv[2], argv[3]);
    test_small_vocabularies();
    test_random_bytes(tok);
    tokenizer_destroy(tok);
    free(vocab_copy);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
