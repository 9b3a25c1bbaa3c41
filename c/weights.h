/* Loading and validating a weights file (format: weights/FORMAT.md). */
#ifndef ATTN_WEIGHTS_H
#define ATTN_WEIGHTS_H

#include <stddef.h>
#include <stdint.h>
#include "model.h"

/* weights_status (WEIGHTS_OK, WEIGHTS_ERR_*) and the format's constants: spec.h (from c/spec.mjs).
 * TOO_SMALL shorter than a header; MAGIC not a weights file; VERSION another format version or
 * layout; TRUNCATED the header says more bytes than were given; CHECKSUM bytes corrupted; SHAPE a
 * shape outside what the engine runs; TENSOR tensor or part table inconsistent (name, size,
 * offset, alignment, values); VOCAB vocabulary not matching the header; ALIGNMENT buffer not
 * 16-byte aligned in memory; TRAILING more bytes given than the header says; OLD_FORMAT format
 * version 1 (two int8 planes): reconvert. */

/* Parses and validates `bytes` (kept alive by the caller; tensors are read in place) and fills
 * `model`: weights_load_head, then weights_check_part for every part. Never reads outside
 * [bytes, bytes + size). */
weights_status weights_load(const uint8_t *bytes, size_t size, bert_model *model);

/* Reading a file in parts (weights/FORMAT.md): the head first, then each part as it arrives. */
enum {
    /* The most byte ranges a file names: 2 per tensor, plus header, vocabulary, tensor table,
     * part table and model card. */
    WEIGHTS_MAX_ARRAYS = 2 * (WEIGHTS_EMBEDDING_TENSOR_COUNT + WEIGHTS_LAYER_TENSOR_COUNT * BERT_MAX_LAYERS +
                              WEIGHTS_MLM_HEAD_TENSOR_COUNT) +
                         5,
};

typedef enum { WEIGHTS_CONTENT_NONE, WEIGHTS_CONTENT_FLOATS, WEIGHTS_CONTENT_INT16 } weights_content;

/* What an array is needed for: the file's own tables, every run, the rows of the tokens a run
 * reads, the runs that reach one layer (weights_array.layer), or [MASK] predictions. */
typedef enum {
    WEIGHTS_ROLE_LAYOUT,
    WEIGHTS_ROLE_CORE,
    WEIGHTS_ROLE_WORD_ROWS,
    WEIGHTS_ROLE_LAYER,
    WEIGHTS_ROLE_MLM
} weights_role;

typedef struct {
    uint64_t offset, bytes;
    int32_t qmax;    /* WEIGHTS_CONTENT_INT16: the bound on |value| */
    uint8_t content; /* weights_content: which values are checked where they lie */
    uint8_t role;    /* weights_role */
    uint8_t layer;   /* WEIGHTS_ROLE_LAYER: the layer (from 0) */
} weights_array;

typedef struct {
    uint64_t offset;
    uint32_t bytes, crc;
} weights_part;

/* Where everything lies in a file whose head was checked. */
typedef struct {
    const uint8_t *bytes;
    uint64_t file_size, head_bytes, parts_offset;
    uint32_t part_count;
    int array_count;
    weights_array arrays[WEIGHTS_MAX_ARRAYS];
} weights_layout;

/* Checks the head of a file whose `size` bytes are allocated but of which only the head has
 * arrived (its length is at offset 96 of the header): everything weights_load checks except
 * each part's CRC and the values that lie in parts. Binds `model` and fills `layout`. Reads no
 * byte past the head. */
weights_status weights_load_head(const uint8_t *bytes, size_t size, bert_model *model, weights_layout *layout);

/* Once part `index` has arrived: its CRC, then the values of every array that lie in it
 * (WEIGHTS_ERR_CHECKSUM, WEIGHTS_ERR_TENSOR). Reads only that part's bytes. */
weights_status weights_check_part(const weights_layout *layout, uint32_t index);

/* Part `index` (< part_count) as its table entry gives it. */
weights_part weights_part_at(const weights_layout *layout, uint32_t index);

/* The part holding byte `offset` of the file, -1 for a byte of the head (or past the end). */
int64_t weights_part_of_offset(const weights_layout *layout, uint64_t offset);

/* A one-line English message for a status, for the CLI and the page. */
const char *weights_status_message(weights_status status);

/* CRC-32 (IEEE 802.3, as zlib) of a byte range. */
uint32_t weights_crc32(const uint8_t *bytes, size_t size);

#endif
