/* GENERATED FILE, do not edit: node tools/gen_unicode_tables.mjs (from Debian's unicode-data,
 * /usr/share/unicode, UCD 15.0.0). As in the reference tokenizer: category tables
 * (Cc Cf Co, Mn, P*) follow Unicode 8.0, decompositions and combining classes Unicode 9.0,
 * White_Space and lowercase mappings the current data files, with the case pairs of 16.0 and 17.0. */
#ifndef ATTN_UNICODE_TABLES_H
#define ATTN_UNICODE_TABLES_H

#include <stddef.h>
#include <stdint.h>

typedef struct { uint32_t first, last; } unicode_range;                 /* inclusive, sorted */
typedef struct { uint32_t first, last; uint8_t value; } unicode_class_range;
typedef struct { uint32_t code; uint16_t start, length; } unicode_mapping; /* into *_pool */

extern const unicode_range unicode_other[];              /* Cc, Cf, Co */
extern const size_t unicode_other_count;
extern const unicode_range unicode_nonspacing_mark[];    /* Mn */
extern const size_t unicode_nonspacing_mark_count;
extern const unicode_range unicode_punctuation[];        /* Pc Pd Ps Pe Pi Pf Po */
extern const size_t unicode_punctuation_count;
extern const unicode_range unicode_white_space[];        /* White_Space property */
extern const size_t unicode_white_space_count;
extern const unicode_class_range unicode_combining_class[]; /* non-zero only */
extern const size_t unicode_combining_class_count;
extern const unicode_mapping unicode_decomposition[];    /* full canonical, excluding Hangul */
extern const uint32_t unicode_decomposition_pool[];
extern const size_t unicode_decomposition_count;
extern const unicode_mapping unicode_lowercase[];        /* full lowercase mapping */
extern const uint32_t unicode_lowercase_pool[];
extern const size_t unicode_lowercase_count;

#endif
