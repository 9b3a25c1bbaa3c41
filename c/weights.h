/* Loading and validating a weights file (format: weights/FORMAT.md). */
#ifndef ATTN_WEIGHTS_H
#define ATTN_WEIGHTS_H

#include <stddef.h>
#include <stdint.h>
#include "model.h"

typedef enum {
    WEIGHTS_OK = 0,
    WEIGHTS_ERR_TOO_SMALL,      /* shorter than a header */
    WEIGHTS_ERR_MAGIC,          /* not a weights file */
    WEIGHTS_ERR_VERSION,        /* another format version */
    WEIGHTS_ERR_TRUNCATED,      /* header says more bytes than were given */
    WEIGHTS_ERR_CHECKSUM,       /* bytes corrupted */
    WEIGHTS_ERR_SHAPE,          /* shape outside what the engine runs (not bert-mini-like) */
    WEIGHTS_ERR_TENSOR,         /* tensor table inconsistent: name, size, offset, alignment */
    WEIGHTS_ERR_VOCAB,          /* vocabulary does not match the header (line count, bytes) */
    WEIGHTS_ERR_ALIGNMENT,      /* buffer not 16-byte aligned in memory */
    WEIGHTS_ERR_TRAILING,       /* more bytes given than the header says (concatenated or padded) */
    WEIGHTS_ERR_OLD_FORMAT,     /* format version 1 (two int8 planes): reconvert */
} weights_status;

/* Parses and validates `bytes` (kept alive by the caller; tensors are read in place) and fills
 * `model`. Never reads outside [bytes, bytes + size). */
weights_status weights_load(const uint8_t *bytes, size_t size, bert_model *model);

/* A one-line English message for a status, for the CLI and the page. */
const char *weights_status_message(weights_status status);

/* CRC-32 (IEEE 802.3, as zlib) of a byte range. */
uint32_t weights_crc32(const uint8_t *bytes, size_t size);

#endif
