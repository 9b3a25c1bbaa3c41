/* Test helpers shared by the native weights tests: the pass/fail count, aligned buffers,
 * whole files, and little-endian fields. One test program per translation unit. */
#ifndef ATTN_TEST_UTIL_H
#define ATTN_TEST_UTIL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int passed, failed;

/* Counts a check; prints "FAIL: " and the formatted message when it does not hold. */
static inline void check(int ok, const char *format, ...)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    va_list args;
    va_start(args, format);
    fputs("FAIL: ", stdout);
    vprintf(format, args);
    fputc('\n', stdout);
    va_end(args);
}

typedef struct {
    uint8_t *bytes;  /* 16-byte aligned, exactly `size` bytes */
    size_t size;
} buffer;

/* Exactly `size` bytes (1 for 0), so the address sanitizer sees any read past the end. */
static inline buffer aligned_buffer(size_t size)
{
    void *p = NULL;
    if (posix_memalign(&p, 16, size ? size : 1) != 0) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return (buffer){p, size};
}

static inline buffer read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL || fseek(f, 0, SEEK_END) != 0) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    long length = ftell(f);
    rewind(f);
    if (length < 0) exit(2);
    buffer b = aligned_buffer((size_t)length);
    if (fread(b.bytes, 1, b.size, f) != b.size) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    return b;
}

static inline uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t get_u64(const uint8_t *p)
{
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

static inline void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static inline void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

#endif
