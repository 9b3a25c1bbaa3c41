/* Helpers shared by the fuzz targets: reading the weights file once, and checks that abort
 * (so libFuzzer records the input as a crash) when an invariant of the C API fails. */
#ifndef FUZZ_UTIL_H
#define FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn.h"

#define FUZZ_REQUIRE(condition)                                                        \
    do {                                                                               \
        if (!(condition)) {                                                            \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #condition); \
            abort();                                                                   \
        }                                                                              \
    } while (0)

/* The real weights file: $ATTN_FUZZ_WEIGHTS, else web/dist/bert-mini.int8.bin relative to the
 * working directory (the repository root when run by tests/fuzz/run.sh). */
static inline const char *fuzz_weights_path(void) {
    const char *path = getenv("ATTN_FUZZ_WEIGHTS");
    return path && path[0] ? path : "web/dist/bert-mini.int8.bin";
}

/* A 16-byte aligned copy of `size` bytes; the allocation is exactly `size` bytes long, so the
 * address sanitizer sees any read past the end. */
static inline uint8_t *fuzz_aligned_copy(const uint8_t *bytes, size_t size) {
    void *p = NULL;
    if (posix_memalign(&p, 16, size ? size : 1) != 0) abort();
    if (size) memcpy(p, bytes, size);
    return p;
}

static inline uint8_t *fuzz_read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "fuzz: cannot open %s (set ATTN_FUZZ_WEIGHTS)\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    const long length = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc(length > 0 ? (size_t)length : 1);
    if (!data || length < 0 || fread(data, 1, (size_t)length, f) != (size_t)length) {
        fprintf(stderr, "fuzz: cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    uint8_t *aligned = fuzz_aligned_copy(data, (size_t)length);
    free(data);
    *size = (size_t)length;
    return aligned;
}

/* An engine over the real weights, created once per process and kept for its lifetime. */
static inline attn_engine *fuzz_real_engine(void) {
    static attn_engine *engine;
    if (engine) return engine;
    size_t size = 0;
    uint8_t *bytes = fuzz_read_file(fuzz_weights_path(), &size);
    const int status = attn_engine_create(bytes, size, &engine);
    if (status != ATTN_OK) {
        fprintf(stderr, "fuzz: %s: %s\n", fuzz_weights_path(), attn_status_message(status));
        exit(2);
    }
    return engine;
}

/* Reads input bytes front to back; past the end it yields zeros. */
typedef struct {
    const uint8_t *data;
    size_t size, at;
} fuzz_reader;

static inline unsigned fuzz_byte(fuzz_reader *r) { return r->at < r->size ? r->data[r->at++] : 0; }

static inline unsigned fuzz_u16(fuzz_reader *r) {
    const unsigned low = fuzz_byte(r);
    return low | fuzz_byte(r) << 8;
}

#endif
