/* attn: the engine on the command line, for course authors and tests.
 *
 *   attn "The cat sat on the mat." --layer 2 --head 1 --token cat
 *   attn "The cat sat on the [MASK]." --mask
 *   attn "Some text" --tokenize [--json]
 *
 * Layers and heads are numbered from 1, as the page shows them; --token takes a token's
 * text (its first occurrence) or its index in the token list ([CLS] is 0). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn.h"

#ifndef ATTN_DEFAULT_WEIGHTS
#define ATTN_DEFAULT_WEIGHTS "weights/bert-mini.int8.bin"
#endif

typedef struct {
    const char *text, *weights, *token;
    int layer, head, json, tokenize, mask, info;
} options;

static int usage(void) {
    fputs("usage: attn TEXT [--layer L] [--head H] [--token WORD|INDEX] [--json]\n"
          "       attn TEXT --tokenize [--json]\n"
          "       attn TEXT --mask [--json]       (top-5 predictions at each [MASK])\n"
          "       attn --info [--json]            (the model: shape and model card)\n"
          "       --weights FILE (default " ATTN_DEFAULT_WEIGHTS ")\n"
          "layers and heads count from 1\n",
          stderr);
    return 2;
}

static int parse_int(const char *s, int *out) {
    char *end;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < -1000000 || v > 1000000) return -1;
    *out = (int)v;
    return 0;
}

static int parse_options(int argc, char **argv, options *o) {
    *o = (options){NULL, ATTN_DEFAULT_WEIGHTS, NULL, 1, 1, 0, 0, 0, 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const int has_value = i + 1 < argc;
        if (!strcmp(a, "--json")) o->json = 1;
        else if (!strcmp(a, "--tokenize")) o->tokenize = 1;
        else if (!strcmp(a, "--mask")) o->mask = 1;
        else if (!strcmp(a, "--info")) o->info = 1;
        else if (!strcmp(a, "--weights") && has_value) o->weights = argv[++i];
        else if (!strcmp(a, "--token") && has_value) o->token = argv[++i];
        else if (!strcmp(a, "--layer") && has_value) {
            if (parse_int(argv[++i], &o->layer)) return -1;
        } else if (!strcmp(a, "--head") && has_value) {
            if (parse_int(argv[++i], &o->head)) return -1;
        } else if (a[0] == '-' && a[1] == '-') return -1;
        else if (!o->text) o->text = a;
        else return -1;
    }
    return o->text || o->info ? 0 : -1;
}

/* Reads a whole file into 16-byte aligned memory. */
static unsigned char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *data = NULL;
    /* A directory opens but cannot be read (errno EISDIR): find out before sizing it. */
    const int readable = fgetc(f) != EOF || !ferror(f);
    if (readable && fseek(f, 0, SEEK_END) == 0) {
        const long length = ftell(f);
        if (length >= 0 && fseek(f, 0, SEEK_SET) == 0) {
            data = attn_alloc((size_t)length);
            if (data && fread(data, 1, (size_t)length, f) != (size_t)length) {
                attn_free(data);
                data = NULL;
            }
            *size = (size_t)length;
        }
    }
    fclose(f);
    return data;
}

static void print_json_string(const char *s) {
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') printf("\\%c", *p);
        else if (*p < 0x20) printf("\\u%04x", *p);
        else putchar(*p);
    }
    putchar('"');
}

static void print_tokens_json(const attn_engine *e, const attn_session *s) {
    const int n = attn_session_length(s);
    const int32_t *ids = attn_session_ids(s);
    printf("\"n\":%d,\"truncated\":%s,\"full_length\":%d,\"ids\":[", n,
           attn_session_truncated(s) ? "true" : "false", attn_session_full_length(s));
    for (int i = 0; i < n; i++) printf("%s%d", i ? "," : "", ids[i]);
    printf("],\"tokens\":[");
    for (int i = 0; i < n; i++) {
        if (i) putchar(',');
        print_json_string(attn_engine_token(e, ids[i]));
    }
    printf("],\"offsets\":[");
    for (int i = 0; i < n; i++)
        printf("%s[%d,%d]", i ? "," : "", attn_session_starts(s)[i], attn_session_ends(s)[i]);
    putchar(']');
}

static void print_tokens_text(const attn_engine *e, const attn_session *s) {
    const int n = attn_session_length(s);
    for (int i = 0; i < n; i++) {
        const int32_t id = attn_session_ids(s)[i];
        printf("%4d  %-16s id %-6d [%d, %d)\n", i, attn_engine_token(e, id), id,
               attn_session_starts(s)[i], attn_session_ends(s)[i]);
    }
    if (attn_session_truncated(s))
        printf("truncated: the text gives %d tokens, only the first %d are used\n",
               attn_session_full_length(s), n);
}

static int find_token(const attn_engine *e, const attn_session *s, const char *wanted) {
    const int n = attn_session_length(s);
    int index;
    if (!parse_int(wanted, &index)) return index >= 0 && index < n ? index : -1;
    for (int i = 0; i < n; i++)
        if (!strcmp(attn_engine_token(e, attn_session_ids(s)[i]), wanted)) return i;
    return -1;
}

static int show_row(const attn_engine *e, const attn_session *s, const options *o) {
    const int n = attn_session_length(s);
    const int row = o->token ? find_token(e, s, o->token) : 0;
    if (row < 0) {
        fprintf(stderr, "attn: no token \"%s\" in this text (try --tokenize)\n", o->token);
        return 1;
    }
    double stats[7];
    if (attn_session_row_stats(s, o->layer - 1, o->head - 1, row, stats) != ATTN_OK) {
        fprintf(stderr, "attn: layer and head count from 1 (this model: see --json shape)\n");
        return 1;
    }
    int32_t shape[8];
    attn_engine_shape(e, shape);
    const float *attention = attn_session_attention(s) +
        (((size_t)(o->layer - 1) * (size_t)shape[3] + (size_t)(o->head - 1)) * (size_t)n + (size_t)row) * (size_t)n;
    const char *word = attn_engine_token(e, attn_session_ids(s)[row]);
    if (o->json) {
        printf("{\"layer\":%d,\"head\":%d,\"token\":%d,", o->layer, o->head, row);
        print_tokens_json(e, s);
        printf(",\"row\":[");
        for (int j = 0; j < n; j++) printf("%s%.9g", j ? "," : "", attention[j]);
        printf("],\"sum\":%.9g,\"max\":%.9g,\"ratio\":%.9g,\"entropy\":%.9g,\"effective_tokens\":%.9g}\n",
               stats[0], stats[1], stats[3], stats[4], stats[5]);
        return 0;
    }
    printf("layer %d · head %d · token %d \"%s\" attends to:\n", o->layer, o->head, row, word);
    for (int j = 0; j < n; j++) {
        const int bar = (int)(attention[j] * 40 + 0.5f);
        printf("%4d  %-16s %.4f  %.*s\n", j, attn_engine_token(e, attn_session_ids(s)[j]),
               attention[j], bar, "########################################");
    }
    printf("sum %.6f   uniform 1/n = %.4f   ratio to uniform %.2f (max %.4f × n %d)   "
           "effective tokens %.2f\n",
           stats[0], 1.0 / n, stats[3], stats[1], n, stats[5]);
    if (attn_session_truncated(s))
        printf("truncated: the text gives %d tokens, only the first %d are used\n",
               attn_session_full_length(s), n);
    return 0;
}

static int show_masks(const attn_engine *e, const attn_session *s, int json) {
    const int n = attn_session_length(s);
    const int32_t mask = attn_engine_special_id(e, "[MASK]");
    int found = 0;
    if (json) printf("{\"masks\":[");
    for (int i = 0; i < n; i++) {
        if (attn_session_ids(s)[i] != mask) continue;
        int32_t ids[5];
        float probs[5];
        if (attn_session_mlm(s, i, 5, ids, probs) != ATTN_OK) return 1;
        if (json) printf("%s{\"position\":%d,\"top\":[", found ? "," : "", i);
        else printf("[MASK] at token %d:\n", i);
        for (int k = 0; k < 5; k++) {
            if (json) {
                printf("%s[%d,", k ? "," : "", ids[k]);
                print_json_string(attn_engine_token(e, ids[k]));
                printf(",%.9g]", probs[k]);
            } else printf("  %-16s %.4f\n", attn_engine_token(e, ids[k]), probs[k]);
        }
        if (json) printf("]}");
        found++;
    }
    if (json) printf("]}\n");
    else if (!found) printf("no [MASK] in this text\n");
    return 0;
}

/* The model's shape and the card the converter stored (JSON; "{}" when the file has none). */
static int show_info(const attn_engine *engine, int json) {
    int32_t shape[8];
    attn_engine_shape(engine, shape);
    const char *card = attn_engine_card(engine);
    if (!card[0]) card = "{}";
    if (json) {
        printf("{\"shape\":{\"vocab\":%d,\"hidden\":%d,\"layers\":%d,\"heads\":%d,\"ffn\":%d,"
               "\"max_positions\":%d,\"type_vocab\":%d,\"head_size\":%d},\"card\":%s}\n",
               shape[0], shape[1], shape[2], shape[3], shape[4], shape[5], shape[6], shape[7], card);
    } else {
        printf("%d layers x %d heads, hidden %d, FFN %d, vocabulary %d, up to %d tokens\nmodel card: %s\n",
               shape[2], shape[3], shape[1], shape[4], shape[0], shape[5], card);
    }
    return 0;
}

int main(int argc, char **argv) {
    options o;
    if (parse_options(argc, argv, &o)) return usage();
    size_t size = 0;
    unsigned char *bytes = read_file(o.weights, &size);
    if (!bytes) {
        fprintf(stderr, "attn: cannot read weights file %s: %s\n", o.weights, strerror(errno));
        return 1;
    }
    attn_engine *engine;
    int status = attn_engine_create(bytes, size, &engine);
    if (status != ATTN_OK) {
        fprintf(stderr, "attn: %s: %s (error %d)\n", o.weights, attn_status_message(status), status);
        attn_free(bytes);
        return 1;
    }
    if (o.info) {
        const int shown = show_info(engine, o.json);
        attn_engine_destroy(engine);
        attn_free(bytes);
        return shown;
    }
    attn_session *session = attn_session_create(engine);
    status = session ? attn_session_run_text(session, o.text, strlen(o.text)) : ATTN_ERR_NO_MEMORY;
    int result = 1;
    if (status != ATTN_OK) fprintf(stderr, "attn: %s\n", attn_status_message(status));
    else if (o.tokenize && o.json) {
        putchar('{');
        print_tokens_json(engine, session);
        puts("}");
        result = 0;
    } else if (o.tokenize) {
        print_tokens_text(engine, session);
        result = 0;
    } else if (o.mask) result = show_masks(engine, session, o.json);
    else result = show_row(engine, session, &o);
    attn_session_destroy(session);
    attn_engine_destroy(engine);
    attn_free(bytes);
    return result;
}
