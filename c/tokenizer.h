/* BERT WordPiece (BertNormalizer, BertPreTokenizer, WordPiece), identical to the Hugging Face
 * reference for each of its settings (see DESIGN.md). */
#ifndef ATTN_TOKENIZER_H
#define ATTN_TOKENIZER_H

#include <stddef.h>
#include <stdint.h>

#include "spec.h" /* enum special_token */

typedef struct tokenizer tokenizer;

typedef enum {
    TOKENIZER_OK = 0,
    TOKENIZER_ERR_NO_MEMORY,
    TOKENIZER_ERR_VOCAB, /* vocabulary not UTF-8, holding a NUL byte, or missing a special token */
} tokenizer_status;

/* BertNormalizer's and WordPiece's settings (clean_text is always on, 100 chars per word). */
typedef struct {
    int lowercase;              /* lowercase every character */
    int strip_accents;          /* NFD, then drop the nonspacing marks (Mn) */
    int chinese_chars;          /* each CJK ideograph a word of its own */
    const char *subword_prefix; /* continuing-subword prefix: UTF-8, at most 11 bytes, may be "" */
} tokenizer_settings;

/* BERT uncased: lowercase, accents stripped, Chinese characters spaced, "##". */
extern const tokenizer_settings TOKENIZER_UNCASED;

/* Builds a tokenizer over vocab.txt bytes (settings NULL: TOKENIZER_UNCASED; a prefix that is
 * longer or not UTF-8 gives TOKENIZER_ERR_VOCAB), read as the reference reads them: one entry per line,
 * '\n' separated, id = line number, trailing White_Space (so also the '\r' of CRLF) dropped;
 * an entry listed twice takes the later line's id. Special-token ids are looked up in the
 * vocabulary, never assumed. */
tokenizer_status tokenizer_create(const char *vocab_text, size_t vocab_bytes, const tokenizer_settings *settings,
                                  tokenizer **out);
void tokenizer_destroy(tokenizer *tok);

typedef struct {
    int32_t *ids;    /* [capacity] token ids, [CLS] first and [SEP] last */
    int32_t *starts; /* [capacity] offsets: [start, end) in Unicode code points of the input */
    int32_t *ends;   /* special tokens [CLS]/[SEP] added by the tokenizer have [0, 0] */
    int count;       /* tokens written, including [CLS] and [SEP]; always >= 2 when capacity >= 2 */
    int truncated;   /* 1 when more tokens were produced than fit: then count == capacity and
                            the last token is [SEP] */
    int full_count;  /* how many tokens the whole input gives (>= count), for "truncated from N";
                            stops counting at `count_limit` so a 1 MB paste stays cheap */
} token_list;

/* Tokenizes `text` (UTF-8; invalid sequences read as U+FFFD, one per maximal invalid
 * subpart, as the WHATWG decoder does) into at most `capacity` tokens (capacity >= 2).
 * Work stops once the token count passes `count_limit` (>= capacity). */
tokenizer_status tokenizer_encode(const tokenizer *tok, const char *text, size_t text_bytes, int capacity,
                                  int count_limit, token_list *out);

/* Encodes a sentence pair as `[CLS] A [SEP] B [SEP]` into at most `capacity` tokens
 * (capacity >= 3), each segment's offsets into its own text. When the pieces do not fit, the
 * segments are cut as the reference's longest-first truncation cuts them. *first_count receives
 * the tokens of the first segment with [CLS] and its [SEP] (token type 0; the rest are type 1);
 * full_count counts both segments and the three special tokens, up to `count_limit`. */
tokenizer_status tokenizer_encode_pair(const tokenizer *tok, const char *a, size_t a_bytes, const char *b,
                                       size_t b_bytes, int capacity, int count_limit, token_list *out,
                                       int *first_count);

/* The vocabulary entry of an id (NUL-terminated), or NULL when out of range. */
const char *tokenizer_token(const tokenizer *tok, int32_t id);
int tokenizer_vocab_size(const tokenizer *tok);
/* The id of a special token by its spec name (SPECIAL_MASK …, spec.h), -1 for any other value. */
int32_t tokenizer_special_id(const tokenizer *tok, enum special_token which);
/* The id of the vocabulary entry spelled exactly `entry` (NUL-terminated), -1 if absent. */
int32_t tokenizer_entry_id(const tokenizer *tok, const char *entry);
/* 1 when the entry is one character that the pre-tokenizer splits off as punctuation. */
int tokenizer_is_punctuation_token(const tokenizer *tok, int32_t id);

#endif
