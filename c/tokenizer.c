/* BERT WordPiece tokenizer, identical to Hugging Face `tokenizers`
 * (BertNormalizer + BertPreTokenizer + WordPiece, special tokens matched on the raw text), for
 * each setting of tokenizer_settings.
 *
 * The input is processed as a stream, one decoded code point at a time:
 *   special-token match -> clean -> [CJK spacing] -> [NFD (minus Mn)] -> [lowercase]
 *   -> split on whitespace/punctuation -> WordPiece per word
 * so that work stops as soon as `count_limit` tokens are known. Every normalized
 * character carries the code-point index ("origin") of the input character it came from. */
#include "tokenizer.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"
#include "unicode_tables.h"

#define MAX_WORD_CHARS 100 /* WordPiece max_input_chars_per_word */

const tokenizer_settings TOKENIZER_UNCASED = {1, 1, 1, "##"};

/* SPECIAL_CLS … SPECIAL_UNK, SPECIAL_COUNT and their names: spec.h (from c/spec.mjs). */
static const char *const special_names[SPECIAL_COUNT] = SPECIAL_TOKEN_NAMES;

struct tokenizer {
    char *entries;          /* vocabulary text, each entry NUL-terminated */
    uint32_t *entry_start;  /* [vocab_size] offset into entries */
    uint32_t *entry_length; /* [vocab_size] bytes, without NUL */
    int vocab_size;
    int32_t *slots; /* open-addressing hash table of ids, -1 = empty */
    uint32_t slot_mask;
    size_t max_word_bytes;   /* longest entry without the "##" prefix */
    size_t max_suffix_bytes; /* longest entry starting with the prefix, prefix excluded */
    int32_t special_ids[SPECIAL_COUNT];
    int lowercase, strip_accents, chinese_chars;
    char prefix[WEIGHTS_SUBWORD_PREFIX_SIZE]; /* continuing-subword prefix, NUL-terminated */
    size_t prefix_length;
};

/* ---------- vocabulary ---------- */

static uint32_t hash_bytes(uint32_t hash, const char *bytes, size_t length) {
    for (size_t i = 0; i < length; i++) {
        hash ^= (unsigned char)bytes[i];
        hash *= 16777619u;
    }
    return hash;
}

#define HASH_SEED 2166136261u

/* The slot holding prefix+bytes (prefix may be empty), or the empty slot where it would go. */
static uint32_t find_slot(const tokenizer *tok, const char *prefix, size_t prefix_length, const char *bytes,
                          size_t length) {
    uint32_t slot = hash_bytes(hash_bytes(HASH_SEED, prefix, prefix_length), bytes, length);
    for (;; slot++) {
        int32_t id = tok->slots[slot & tok->slot_mask];
        if (id < 0) return slot & tok->slot_mask;
        const char *entry = tok->entries + tok->entry_start[id];
        if (tok->entry_length[id] == prefix_length + length && memcmp(entry, prefix, prefix_length) == 0 &&
            memcmp(entry + prefix_length, bytes, length) == 0)
            return slot & tok->slot_mask;
    }
}

/* Finds the id of prefix+bytes (prefix may be empty), -1 when absent. */
static int32_t vocab_find(const tokenizer *tok, const char *prefix, size_t prefix_length, const char *bytes,
                          size_t length) {
    return tok->slots[find_slot(tok, prefix, prefix_length, bytes, length)];
}

static int count_vocab_lines(const char *text, size_t bytes) {
    size_t lines = 0;
    for (size_t i = 0; i < bytes; i++) lines += text[i] == '\n';
    if (bytes > 0 && text[bytes - 1] != '\n') lines++;
    return lines > (size_t)(1 << 24) ? -1 : (int)lines;
}

static uint32_t decode_utf8(const unsigned char *s, size_t length, size_t *pos);
static int is_white_space(uint32_t c);

/* 1 when the bytes are well-formed UTF-8 (the reference refuses a vocabulary that is not). */
static int is_valid_utf8(const char *text, size_t length) {
    const unsigned char *s = (const unsigned char *)text;
    for (size_t pos = 0; pos < length;) {
        size_t start = pos;
        if (decode_utf8(s, length, &pos) == 0xFFFD &&
            !(pos - start == 3 && s[start] == 0xEF && s[start + 1] == 0xBF && s[start + 2] == 0xBD))
            return 0;
    }
    return 1;
}

/* Length of the entry without its trailing White_Space (which takes in the '\r' of CRLF),
 * as the reference's trim_end reads each line. */
static size_t trimmed_length(const char *entry, size_t length) {
    while (length > 0) {
        size_t start = length - 1;
        while (start > 0 && ((unsigned char)entry[start] & 0xC0) == 0x80) start--;
        size_t end = start;
        if (!is_white_space(decode_utf8((const unsigned char *)entry, length, &end)) || end != length) break;
        length = start;
    }
    return length;
}

/* Splits the copied vocabulary into NUL-terminated entries, one per '\n'-ended line. */
static tokenizer_status split_entries(tokenizer *tok, size_t bytes) {
    size_t start = 0;
    for (int id = 0; id < tok->vocab_size; id++) {
        size_t end = start;
        while (end < bytes && tok->entries[end] != '\n') {
            if (tok->entries[end] == '\0') return TOKENIZER_ERR_VOCAB;
            end++;
        }
        if (!is_valid_utf8(tok->entries + start, end - start)) return TOKENIZER_ERR_VOCAB;
        size_t length = trimmed_length(tok->entries + start, end - start);
        tok->entries[start + length] = '\0';
        tok->entry_start[id] = (uint32_t)start;
        tok->entry_length[id] = (uint32_t)length;
        start = end + 1;
    }
    return TOKENIZER_OK;
}

static void note_entry_length(tokenizer *tok, const char *entry, size_t length) {
    const size_t p = tok->prefix_length;
    if (length >= p && memcmp(entry, tok->prefix, p) == 0 && length - p > tok->max_suffix_bytes)
        tok->max_suffix_bytes = length - p;
    if (length > tok->max_word_bytes) tok->max_word_bytes = length;
}

/* As in the reference, an entry that appears twice (after trimming) takes the later line's id;
 * the earlier id keeps its text but is never produced. */
static tokenizer_status build_hash(tokenizer *tok) {
    uint32_t slot_count = 16;
    while (slot_count < (uint32_t)tok->vocab_size * 2u) slot_count *= 2;
    tok->slots = malloc(sizeof *tok->slots * slot_count);
    if (!tok->slots) return TOKENIZER_ERR_NO_MEMORY;
    memset(tok->slots, 0xff, sizeof *tok->slots * slot_count);
    tok->slot_mask = slot_count - 1;
    for (int id = 0; id < tok->vocab_size; id++) {
        const char *entry = tok->entries + tok->entry_start[id];
        size_t length = tok->entry_length[id];
        if (length == 0) continue; /* an empty line keeps its id but can never match */
        tok->slots[find_slot(tok, "", 0, entry, length)] = id;
        note_entry_length(tok, entry, length);
    }
    return TOKENIZER_OK;
}

static tokenizer_status find_special_ids(tokenizer *tok) {
    for (int i = 0; i < SPECIAL_COUNT; i++) {
        tok->special_ids[i] = vocab_find(tok, "", 0, special_names[i], strlen(special_names[i]));
        if (tok->special_ids[i] < 0) return TOKENIZER_ERR_VOCAB;
    }
    return TOKENIZER_OK;
}

static tokenizer_status load_vocab(tokenizer *tok, const char *vocab_text, size_t vocab_bytes) {
    int lines = count_vocab_lines(vocab_text, vocab_bytes);
    if (lines <= 0 || vocab_bytes >= UINT32_MAX) return TOKENIZER_ERR_VOCAB;
    tok->vocab_size = lines;
    tok->entries = malloc(vocab_bytes + 1);
    tok->entry_start = malloc(sizeof *tok->entry_start * (size_t)lines);
    tok->entry_length = malloc(sizeof *tok->entry_length * (size_t)lines);
    if (!tok->entries || !tok->entry_start || !tok->entry_length) return TOKENIZER_ERR_NO_MEMORY;
    memcpy(tok->entries, vocab_text, vocab_bytes);
    tok->entries[vocab_bytes] = '\0';
    tokenizer_status status = split_entries(tok, vocab_bytes);
    if (status == TOKENIZER_OK) status = build_hash(tok);
    if (status == TOKENIZER_OK) status = find_special_ids(tok);
    return status;
}

/* The settings copied into the tokenizer; the prefix must fit and be UTF-8. */
static tokenizer_status take_settings(tokenizer *tok, const tokenizer_settings *settings) {
    if (!settings) settings = &TOKENIZER_UNCASED;
    const char *prefix = settings->subword_prefix ? settings->subword_prefix : "";
    size_t length = 0;
    while (length < sizeof tok->prefix && prefix[length] != '\0') length++;
    if (length == sizeof tok->prefix || !is_valid_utf8(prefix, length)) return TOKENIZER_ERR_VOCAB;
    memcpy(tok->prefix, prefix, length + 1);
    tok->prefix_length = length;
    tok->lowercase = settings->lowercase != 0;
    tok->strip_accents = settings->strip_accents != 0;
    tok->chinese_chars = settings->chinese_chars != 0;
    return TOKENIZER_OK;
}

tokenizer_status tokenizer_create(const char *vocab_text, size_t vocab_bytes, const tokenizer_settings *settings,
                                  tokenizer **out) {
    *out = NULL;
    if (!vocab_text) return TOKENIZER_ERR_VOCAB;
    tokenizer *tok = calloc(1, sizeof *tok);
    if (!tok) return TOKENIZER_ERR_NO_MEMORY;
    tokenizer_status status = take_settings(tok, settings);
    if (status == TOKENIZER_OK) status = load_vocab(tok, vocab_text, vocab_bytes);
    if (status != TOKENIZER_OK) {
        tokenizer_destroy(tok);
        return status;
    }
    *out = tok;
    return TOKENIZER_OK;
}

void tokenizer_destroy(tokenizer *tok) {
    if (!tok) return;
    free(tok->entries);
    free(tok->entry_start);
    free(tok->entry_length);
    free(tok->slots);
    free(tok);
}

const char *tokenizer_token(const tokenizer *tok, int32_t id) {
    if (!tok || id < 0 || id >= tok->vocab_size) return NULL;
    return tok->entries + tok->entry_start[id];
}

int tokenizer_vocab_size(const tokenizer *tok) { return tok ? tok->vocab_size : 0; }

int32_t tokenizer_special_id(const tokenizer *tok, enum special_token which) {
    if (!tok || (int)which < 0 || which >= SPECIAL_COUNT) return -1;
    return tok->special_ids[which];
}

int32_t tokenizer_entry_id(const tokenizer *tok, const char *entry) {
    if (!tok || !entry) return -1;
    return vocab_find(tok, "", 0, entry, strlen(entry));
}

/* ---------- Unicode properties ---------- */

static int in_ranges(uint32_t c, const unicode_range *ranges, size_t count) {
    size_t low = 0, high = count;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (c < ranges[mid].first) high = mid;
        else if (c > ranges[mid].last) low = mid + 1;
        else return 1;
    }
    return 0;
}

static const unicode_mapping *find_mapping(uint32_t c, const unicode_mapping *table, size_t count) {
    size_t low = 0, high = count;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (c < table[mid].code) high = mid;
        else if (c > table[mid].code) low = mid + 1;
        else return &table[mid];
    }
    return NULL;
}

static int combining_class(uint32_t c) {
    size_t low = 0, high = unicode_combining_class_count;
    if (c < 0x300) return 0;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (c < unicode_combining_class[mid].first) high = mid;
        else if (c > unicode_combining_class[mid].last) low = mid + 1;
        else return unicode_combining_class[mid].value;
    }
    return 0;
}

static int is_white_space(uint32_t c) {
    if (c < 0x80) return c == ' ' || (c >= '\t' && c <= '\r');
    return in_ranges(c, unicode_white_space, unicode_white_space_count);
}

/* BertNormalizer: \t \n \r count as whitespace, not control. */
static int is_control(uint32_t c) {
    if (c == '\t' || c == '\n' || c == '\r') return 0;
    if (c < 0xA0) return c < 0x20 || (c >= 0x7F && c < 0xA0);
    return in_ranges(c, unicode_other, unicode_other_count);
}

static int is_punctuation(uint32_t c) {
    if (c < 0x80) return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
    return in_ranges(c, unicode_punctuation, unicode_punctuation_count);
}

static int is_nonspacing_mark(uint32_t c) {
    return c >= 0x300 && in_ranges(c, unicode_nonspacing_mark, unicode_nonspacing_mark_count);
}

static int is_chinese_char(uint32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

/* Writes the full canonical decomposition of c (at most 4 code points). */
static int decompose(uint32_t c, uint32_t out[4]) {
    enum {
        S_BASE = 0xAC00,
        L_BASE = 0x1100,
        V_BASE = 0x1161,
        T_BASE = 0x11A7,
        V_COUNT = 21,
        T_COUNT = 28,
        S_COUNT = 11172
    };
    if (c >= S_BASE && c < S_BASE + S_COUNT) {
        uint32_t index = c - S_BASE;
        out[0] = L_BASE + index / (V_COUNT * T_COUNT);
        out[1] = V_BASE + (index % (V_COUNT * T_COUNT)) / T_COUNT;
        out[2] = T_BASE + index % T_COUNT;
        return out[2] == T_BASE ? 2 : 3;
    }
    const unicode_mapping *m = c < 0xC0 ? NULL : find_mapping(c, unicode_decomposition, unicode_decomposition_count);
    if (!m || m->length > 4) {
        out[0] = c;
        return 1;
    }
    memcpy(out, unicode_decomposition_pool + m->start, sizeof *out * m->length);
    return m->length;
}

static int to_lowercase(uint32_t c, uint32_t out[4]) {
    if (c < 0x80) {
        out[0] = (c >= 'A' && c <= 'Z') ? c + 32 : c;
        return 1;
    }
    const unicode_mapping *m = find_mapping(c, unicode_lowercase, unicode_lowercase_count);
    if (!m || m->length > 4) {
        out[0] = c;
        return 1;
    }
    memcpy(out, unicode_lowercase_pool + m->start, sizeof *out * m->length);
    return m->length;
}

/* ---------- UTF-8 ---------- */

/* WHATWG UTF-8 decoding: one U+FFFD per maximal invalid subpart. Advances *pos by >= 1. */
static uint32_t decode_utf8(const unsigned char *s, size_t length, size_t *pos) {
    size_t i = *pos;
    unsigned lead = s[i++];
    if (lead < 0x80) {
        *pos = i;
        return lead;
    }
    int needed;
    uint32_t c;
    unsigned low = 0x80, high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) needed = 1, c = lead & 0x1F;
    else if (lead >= 0xE0 && lead <= 0xEF) {
        needed = 2, c = lead & 0x0F;
        if (lead == 0xE0) low = 0xA0;
        if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        needed = 3, c = lead & 0x07;
        if (lead == 0xF0) low = 0x90;
        if (lead == 0xF4) high = 0x8F;
    } else {
        *pos = i;
        return 0xFFFD;
    }
    for (; needed > 0; needed--) {
        if (i >= length || s[i] < low || s[i] > high) {
            *pos = i;
            return 0xFFFD;
        }
        c = (c << 6) | (s[i++] & 0x3F);
        low = 0x80, high = 0xBF;
    }
    *pos = i;
    return c;
}

int tokenizer_is_punctuation_token(const tokenizer *tok, int32_t id) {
    const unsigned char *entry = (const unsigned char *)tokenizer_token(tok, id);
    if (!entry || !entry[0]) return 0;
    const size_t length = strlen((const char *)entry);
    size_t end = 0;
    const uint32_t c = decode_utf8(entry, length, &end);
    return end == length && is_punctuation(c);
}

static int encode_utf8(uint32_t c, char *out) {
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (char)(0xC0 | (c >> 6));
        out[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | (c >> 12));
        out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (c >> 18));
    out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* ---------- encoding state ---------- */

typedef struct {
    uint32_t code, order;
    uint8_t ccc, inserted;
} pending_mark;

typedef struct {
    const tokenizer *tok;
    token_list *out;
    int capacity; /* writable slots for word pieces (capacity - 2) */
    int count_limit;
    int pieces; /* word-piece tokens produced so far */
    int stop;   /* set once pieces + 2 > count_limit */
    int no_memory;
    /* NFD: run of non-starters awaiting canonical reordering, and the origins of the input
     * chars they replace, in arrival order */
    pending_mark *marks;
    int32_t *mark_origins;
    size_t mark_count, mark_origin_count, mark_capacity;
    int32_t last_consumed_origin;
    /* current word: first MAX_WORD_CHARS + 1 chars kept, the rest only counted */
    char word_bytes[(MAX_WORD_CHARS + 1) * 4];
    int char_byte_start[MAX_WORD_CHARS + 2];
    int32_t char_origin[MAX_WORD_CHARS + 1];
    int word_chars;
    int32_t word_first_origin, word_last_origin;
} encoder;

static void emit_token(encoder *e, int32_t id, int32_t start, int32_t end) {
    if (e->stop) return;
    if ((int64_t)e->pieces + 2 >= e->count_limit) { /* this token would pass count_limit */
        e->stop = 1;
        e->pieces++;
        return;
    }
    if (e->pieces < e->capacity) {
        e->out->ids[1 + e->pieces] = id;
        e->out->starts[1 + e->pieces] = start;
        e->out->ends[1 + e->pieces] = end;
    }
    e->pieces++;
}

typedef struct {
    int32_t id;
    int first_char, end_char;
} word_piece;

/* Greedy longest-match-first; returns the number of pieces, or -1 if the word cannot be split. */
static int split_word(const encoder *e, word_piece pieces[MAX_WORD_CHARS]) {
    const tokenizer *tok = e->tok;
    int count = 0;
    for (int start = 0; start < e->word_chars;) {
        int is_first = start == 0;
        size_t max_bytes = is_first ? tok->max_word_bytes : tok->max_suffix_bytes;
        const char *prefix = is_first ? "" : tok->prefix;
        size_t prefix_length = is_first ? 0 : tok->prefix_length;
        int end = e->word_chars;
        int32_t id = -1;
        for (; end > start; end--) {
            size_t bytes = (size_t)(e->char_byte_start[end] - e->char_byte_start[start]);
            if (bytes > max_bytes) continue;
            id = vocab_find(tok, prefix, prefix_length, e->word_bytes + e->char_byte_start[start], bytes);
            if (id >= 0) break;
        }
        if (id < 0) return -1;
        pieces[count++] = (word_piece){id, start, end};
        start = end;
    }
    return count;
}

static void emit_unknown_word(encoder *e) {
    emit_token(e, e->tok->special_ids[SPECIAL_UNK], e->word_first_origin, e->word_last_origin + 1);
}

static void end_word(encoder *e) {
    if (e->word_chars == 0) return;
    word_piece pieces[MAX_WORD_CHARS];
    int count = e->word_chars > MAX_WORD_CHARS ? -1 : split_word(e, pieces);
    if (count < 0) emit_unknown_word(e);
    for (int i = 0; i < count; i++)
        emit_token(e, pieces[i].id, e->char_origin[pieces[i].first_char], e->char_origin[pieces[i].end_char - 1] + 1);
    e->word_chars = 0;
}

static void append_to_word(encoder *e, uint32_t c, int32_t origin) {
    if (e->word_chars == 0) e->word_first_origin = origin;
    e->word_last_origin = origin;
    if (e->word_chars <= MAX_WORD_CHARS) {
        int at = e->char_byte_start[e->word_chars];
        e->char_origin[e->word_chars] = origin;
        e->char_byte_start[e->word_chars + 1] = at + encode_utf8(c, e->word_bytes + at);
    }
    if (e->word_chars < INT_MAX) e->word_chars++;
}

/* BertPreTokenizer: whitespace separates words, each punctuation char is a word of its own. */
static void pre_tokenize_char(encoder *e, uint32_t c, int32_t origin) {
    if (is_white_space(c)) {
        end_word(e);
    } else if (is_punctuation(c)) {
        end_word(e);
        append_to_word(e, c, origin);
        end_word(e);
    } else {
        append_to_word(e, c, origin);
    }
}

/* Lowercase, when the settings ask for it. */
static void case_char(encoder *e, uint32_t c, int32_t origin) {
    if (!e->tok->lowercase) {
        pre_tokenize_char(e, c, origin);
        return;
    }
    uint32_t lower[4];
    int n = to_lowercase(c, lower);
    for (int i = 0; i < n; i++) pre_tokenize_char(e, lower[i], origin);
}

/* StripAccents drops Mn from the NFD output, then Lowercase. */
static void nfd_output(encoder *e, uint32_t c, int32_t origin) {
    if (!is_nonspacing_mark(c)) case_char(e, c, origin);
}

static int compare_marks(const void *a, const void *b) {
    const pending_mark *x = a, *y = b;
    if (x->ccc != y->ccc) return x->ccc < y->ccc ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Canonical ordering is a stable sort of the run by combining class (qsort with arrival order
 * as tie-break stays O(n log n) on adversarial runs). As in the reference, origins are then
 * handed out by position: each replacing char takes the next input char's origin and an
 * inserted char (decomposition tail) the previous one's. */
static void flush_marks(encoder *e) {
    if (e->mark_count > 1) qsort(e->marks, e->mark_count, sizeof *e->marks, compare_marks);
    size_t consumed = 0;
    for (size_t i = 0; i < e->mark_count; i++) {
        if (!e->marks[i].inserted) e->last_consumed_origin = e->mark_origins[consumed++];
        nfd_output(e, e->marks[i].code, e->last_consumed_origin);
    }
    e->mark_count = e->mark_origin_count = 0;
}

static int grow_marks(encoder *e) {
    size_t capacity = e->mark_capacity ? e->mark_capacity * 2 : 16;
    if (capacity > UINT32_MAX) return 0; /* `order` is 32-bit */
    pending_mark *marks = realloc(e->marks, sizeof *marks * capacity);
    if (marks) e->marks = marks;
    int32_t *origins = realloc(e->mark_origins, sizeof *origins * capacity);
    if (origins) e->mark_origins = origins;
    if (!marks || !origins) return 0;
    e->mark_capacity = capacity;
    return 1;
}

static void push_mark(encoder *e, uint32_t c, int32_t origin, int ccc, int inserted) {
    if (e->mark_count == e->mark_capacity && !grow_marks(e)) {
        e->no_memory = e->stop = 1;
        return;
    }
    e->marks[e->mark_count] = (pending_mark){c, (uint32_t)e->mark_count, (uint8_t)ccc, (uint8_t)inserted};
    e->mark_count++;
    if (!inserted) e->mark_origins[e->mark_origin_count++] = origin;
}

/* One char of the NFD output; `inserted` for the 2nd, 3rd... char of a decomposition. */
static void decomposed_char(encoder *e, uint32_t c, int32_t origin, int inserted) {
    int ccc = combining_class(c);
    if (ccc != 0) {
        push_mark(e, c, origin, ccc, inserted);
        return;
    }
    flush_marks(e);
    if (!inserted) e->last_consumed_origin = origin;
    nfd_output(e, c, e->last_consumed_origin);
}

static void word_boundary(encoder *e) {
    flush_marks(e);
    end_word(e);
}

static void normalize_char(encoder *e, uint32_t c, int32_t origin) {
    if (c == 0 || c == 0xFFFD || is_control(c)) return;
    if (is_white_space(c)) {
        word_boundary(e);
        return;
    }
    int chinese = e->tok->chinese_chars && is_chinese_char(c);
    if (chinese) word_boundary(e);
    if (e->tok->strip_accents) {
        uint32_t parts[4];
        int n = decompose(c, parts);
        for (int i = 0; i < n; i++) decomposed_char(e, parts[i], origin, i > 0);
    } else {
        case_char(e, c, origin); /* no NFD: accents and composed forms stay as written */
    }
    if (chinese) word_boundary(e);
}

/* Leftmost-longest match of a special token at text[pos]; returns its length in bytes. */
static size_t match_special(const tokenizer *tok, const char *text, size_t length, int32_t *id) {
    size_t best = 0;
    for (int i = 0; i < SPECIAL_COUNT; i++) {
        size_t n = strlen(special_names[i]);
        if (n > best && n <= length && memcmp(text, special_names[i], n) == 0) {
            best = n;
            *id = tok->special_ids[i];
        }
    }
    return best;
}

static void encode_text(encoder *e, const char *text, size_t length) {
    size_t pos = 0;
    int32_t index = 0; /* code points of the decoded input so far */
    while (pos < length && !e->stop) {
        int32_t id;
        size_t special = text[pos] == '[' ? match_special(e->tok, text + pos, length - pos, &id) : 0;
        if (special > 0) { /* special names are ASCII: bytes == code points */
            word_boundary(e);
            emit_token(e, id, index, index + (int32_t)special);
            pos += special, index += (int32_t)special;
            continue;
        }
        uint32_t c = decode_utf8((const unsigned char *)text, length, &pos);
        normalize_char(e, c, index++);
    }
    word_boundary(e);
}

static void finish_list(const encoder *e, token_list *out, int capacity) {
    int written = e->pieces < e->capacity ? e->pieces : e->capacity;
    out->ids[0] = e->tok->special_ids[SPECIAL_CLS];
    out->starts[0] = out->ends[0] = 0;
    out->ids[written + 1] = e->tok->special_ids[SPECIAL_SEP];
    out->starts[written + 1] = out->ends[written + 1] = 0;
    out->count = written + 2;
    int64_t total = (int64_t)e->pieces + 2;
    out->truncated = total > capacity;
    out->full_count = total < e->count_limit ? (int)total : e->count_limit;
}

tokenizer_status tokenizer_encode(const tokenizer *tok, const char *text, size_t text_bytes, int capacity,
                                  int count_limit, token_list *out) {
    if (!out) return TOKENIZER_ERR_VOCAB;
    out->count = out->truncated = out->full_count = 0;
    if (!tok) return TOKENIZER_ERR_VOCAB;
    if (capacity < 2) return TOKENIZER_OK; /* nothing fits, not even [CLS] [SEP] */
    if (!text) text_bytes = 0;
    if (text_bytes > (size_t)INT32_MAX - 1) text_bytes = (size_t)INT32_MAX - 1; /* offsets are int32 */
    encoder *e = calloc(1, sizeof *e);
    if (!e) return TOKENIZER_ERR_NO_MEMORY;
    e->tok = tok;
    e->out = out;
    e->capacity = capacity - 2;
    e->count_limit = count_limit < capacity ? capacity : count_limit;
    encode_text(e, text, text_bytes);
    finish_list(e, out, capacity);
    int no_memory = e->no_memory;
    free(e->marks);
    free(e->mark_origins);
    free(e);
    return no_memory ? TOKENIZER_ERR_NO_MEMORY : TOKENIZER_OK;
}

/* ---------- sentence pairs ---------- */

/* The reference's longest-first truncation of two segments of a and b pieces to `room` pieces
 * (capacity − 3), as measured against it: each segment's count is first capped at `capacity`
 * (the reference cuts every sequence to the model's length before it looks at the pair); then
 * the shorter segment stays whole when the longer can have the rest, and otherwise the two
 * share the room, the longer one (the second on a tie) keeping the odd piece. */
static void longest_first(int a, int b, int capacity, int *keep_a, int *keep_b) {
    const int room = capacity - 3;
    if (a > capacity) a = capacity;
    if (b > capacity) b = capacity;
    *keep_a = a;
    *keep_b = b;
    if (a + b <= room) return;
    const int shorter = a < b ? a : b, half = room / 2;
    if (shorter <= room - shorter) {
        if (a <= b) *keep_b = room - a;
        else *keep_a = room - b;
        return;
    }
    *keep_a = a > b ? room - half : half;
    *keep_b = room - *keep_a;
}

static int pieces_of(const token_list *list) { return list->full_count - 2; }

static void put_token(token_list *out, int at, int32_t id, int32_t start, int32_t end) {
    out->ids[at] = id;
    out->starts[at] = start;
    out->ends[at] = end;
}

/* The first segment is encoded in place (its pieces land at out[1 ...]), the second into
 * scratch arrays, then moved behind the first segment's [SEP] once the cut is known. */
tokenizer_status tokenizer_encode_pair(const tokenizer *tok, const char *a, size_t a_bytes, const char *b,
                                       size_t b_bytes, int capacity, int count_limit, token_list *out,
                                       int *first_count) {
    if (!out || !first_count) return TOKENIZER_ERR_VOCAB;
    *first_count = 0;
    out->count = out->truncated = out->full_count = 0;
    if (!tok) return TOKENIZER_ERR_VOCAB;
    if (capacity < 3) return TOKENIZER_OK;     /* [CLS] [SEP] [SEP] does not fit */
    const int segment_capacity = capacity - 1; /* room for every piece the pair can keep */
    int32_t *scratch = malloc(sizeof *scratch * 3 * (size_t)segment_capacity);
    if (!scratch) return TOKENIZER_ERR_NO_MEMORY;
    token_list second = {scratch, scratch + segment_capacity, scratch + 2 * segment_capacity, 0, 0, 0};
    tokenizer_status status = tokenizer_encode(tok, a, a_bytes, segment_capacity, count_limit, out);
    if (status == TOKENIZER_OK) status = tokenizer_encode(tok, b, b_bytes, segment_capacity, count_limit, &second);
    if (status == TOKENIZER_OK) {
        const int a_pieces = pieces_of(out), b_pieces = pieces_of(&second);
        int keep_a, keep_b;
        longest_first(a_pieces, b_pieces, capacity, &keep_a, &keep_b);
        const int32_t sep = tok->special_ids[SPECIAL_SEP];
        put_token(out, keep_a + 1, sep, 0, 0);
        for (int i = 0; i < keep_b; i++)
            put_token(out, keep_a + 2 + i, second.ids[1 + i], second.starts[1 + i], second.ends[1 + i]);
        put_token(out, keep_a + keep_b + 2, sep, 0, 0);
        *first_count = keep_a + 2;
        out->count = keep_a + keep_b + 3;
        const int64_t total = (int64_t)a_pieces + b_pieces + 3;
        const int limit = count_limit < capacity ? capacity : count_limit;
        out->truncated = total > out->count;
        out->full_count = total < limit ? (int)total : limit;
    } else {
        out->count = out->truncated = out->full_count = 0;
    }
    free(scratch);
    return status;
}
