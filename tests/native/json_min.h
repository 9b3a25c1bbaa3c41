/* Minimal JSON reading for the native tests: a cursor over a NUL-free buffer with helpers
 * for strings (UTF-8 output, \uXXXX escapes incl. surrogate pairs), integers and skipping
 * values. Every read is bounds-checked; on malformed input `error` is set and reads return 0. */
#ifndef JSON_MIN_H
#define JSON_MIN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *at, *end;
    int error;
} json_cursor;

static void json_skip_space(json_cursor *c) {
    while (c->at < c->end && (*c->at == ' ' || *c->at == '\t' || *c->at == '\n' || *c->at == '\r')) c->at++;
}

/* Next non-space character without consuming it, 0 at end or after an error. */
static char json_peek(json_cursor *c) {
    json_skip_space(c);
    return (c->error || c->at >= c->end) ? 0 : *c->at;
}

static int json_expect(json_cursor *c, char wanted) {
    if (json_peek(c) != wanted) {
        c->error = 1;
        return 0;
    }
    c->at++;
    return 1;
}

/* Consumes `separator` if next; returns 1 when it did. Used for ',' in arrays and objects. */
static int json_accept(json_cursor *c, char separator) {
    if (json_peek(c) != separator) return 0;
    c->at++;
    return 1;
}

static int json_hex4(json_cursor *c, uint32_t *out) {
    if (c->end - c->at < 4) return 0;
    uint32_t value = 0;
    for (int i = 0; i < 4; i++) {
        char h = c->at[i];
        int digit = (h >= '0' && h <= '9') ? h - '0' : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                  : (h >= 'A' && h <= 'F') ? h - 'A' + 10 : -1;
        if (digit < 0) return 0;
        value = value * 16 + (uint32_t)digit;
    }
    c->at += 4;
    *out = value;
    return 1;
}

static size_t json_put_utf8(uint32_t cp, char *out) {
    if (cp < 0x80) { out[0] = (char)cp; return 1; }
    if (cp < 0x800) { out[0] = (char)(0xC0 | (cp >> 6)); out[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12)); out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18)); out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* \uXXXX, combining a surrogate pair; a lone surrogate becomes U+FFFD. */
static int json_unicode_escape(json_cursor *c, uint32_t *cp) {
    if (!json_hex4(c, cp)) return 0;
    if (*cp >= 0xD800 && *cp <= 0xDBFF && c->end - c->at >= 6 && c->at[0] == '\\' && c->at[1] == 'u') {
        json_cursor look = *c;
        uint32_t low;
        look.at += 2;
        if (json_hex4(&look, &low) && low >= 0xDC00 && low <= 0xDFFF) {
            *c = look;
            *cp = 0x10000 + ((*cp - 0xD800) << 10) + (low - 0xDC00);
            return 1;
        }
    }
    if (*cp >= 0xD800 && *cp <= 0xDFFF) *cp = 0xFFFD;
    return 1;
}

static int json_escape(json_cursor *c, char *out, size_t *length) {
    if (c->at >= c->end) return 0;
    char e = *c->at++;
    const char *simple = "\"\\/bfnrt", *value = "\"\\/\b\f\n\r\t";
    const char *found = strchr(simple, e);
    if (e != 0 && found) {
        out[(*length)++] = value[found - simple];
        return 1;
    }
    uint32_t cp;
    if (e != 'u' || !json_unicode_escape(c, &cp)) return 0;
    *length += json_put_utf8(cp, out + *length);
    return 1;
}

/* Reads a string into a malloc'd NUL-terminated buffer (may contain NUL bytes: use *length). */
static char *json_string(json_cursor *c, size_t *length) {
    if (!json_expect(c, '"')) return NULL;
    char *out = malloc((size_t)(c->end - c->at) + 1); /* decoded text is never longer */
    if (!out) { c->error = 1; return NULL; }
    *length = 0;
    while (c->at < c->end && *c->at != '"') {
        if (*c->at == '\\') {
            c->at++;
            if (!json_escape(c, out, length)) break;
        } else {
            out[(*length)++] = *c->at++;
        }
    }
    if (c->at >= c->end || *c->at != '"') {
        c->error = 1;
        free(out);
        return NULL;
    }
    c->at++;
    out[*length] = '\0';
    return out;
}

static long json_integer(json_cursor *c) {
    json_skip_space(c);
    int negative = c->at < c->end && *c->at == '-';
    if (negative) c->at++;
    if (c->at >= c->end || *c->at < '0' || *c->at > '9') { c->error = 1; return 0; }
    long value = 0;
    while (c->at < c->end && *c->at >= '0' && *c->at <= '9') {
        if (value > 100000000000L) { c->error = 1; return 0; }
        value = value * 10 + (*c->at++ - '0');
    }
    return negative ? -value : value;
}

static void json_skip_value(json_cursor *c, int depth);

static void json_skip_container(json_cursor *c, char close, int depth) {
    c->at++;
    if (json_accept(c, close)) return;
    do {
        if (close == '}') {
            size_t n;
            free(json_string(c, &n));
            json_expect(c, ':');
        }
        json_skip_value(c, depth + 1);
    } while (!c->error && json_accept(c, ','));
    json_expect(c, close);
}

static void json_skip_value(json_cursor *c, int depth) {
    char next = json_peek(c);
    if (depth > 64 || next == 0) { c->error = 1; return; }
    if (next == '{' || next == '[') { json_skip_container(c, next == '{' ? '}' : ']', depth); return; }
    if (next == '"') { size_t n; free(json_string(c, &n)); return; }
    while (c->at < c->end && strchr(",]} \t\r\n", *c->at) == NULL) c->at++; /* number, true, false, null */
}

#endif
