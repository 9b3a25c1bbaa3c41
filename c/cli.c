/* attn: the engine on the command line, for course authors and scripts.
 *
 *   attn "The cat sat on the mat." --layer 2 --head 1 --token cat
 *   attn "The cat sat on the mat." --pair "It was tired." --token tired
 *   attn "The cat sat on the [MASK]." --mask
 *   attn "The cat sat on the [MASK]." --mask --ablate 2.1,3.4
 *   attn "Some text" --tokenize [--json]
 *   echo "Some text" | attn - --tokenize
 *
 * Layers and heads are numbered from 1, as the page shows them; --token takes a token's
 * text (its first occurrence) or its index in the token list ([CLS] is 0). A number that is
 * also a token of the text is read as that token (the CLI says so); #N is always an index.
 * --ablate L.H,… removes those heads (their context zeroed before the layer's output projection);
 * L.A-B names heads A to B of layer L, as the page's off= does (one grammar: parse_ablate).
 * Tokens and card text reach the terminal with control characters escaped (\xHH); with --json
 * every output, a failure's too, is one JSON object ({"error":{…}} on failure).
 * Exit status: 0 done, 1 the weights or the run failed, 2 a bad argument (the message names it). */
#define _POSIX_C_SOURCE 200809L /* readlink (the executable's folder); open, fstat, mmap */
#if defined(__unix__) || defined(__APPLE__)
#define ATTN_CLI_MMAP 1 /* the weights mapped, not copied */
#endif

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn.h"

#ifdef ATTN_CLI_MMAP
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

enum { MAX_REMOVED = 12 * 12 };

#ifndef ATTN_DEFAULT_WEIGHTS
#define ATTN_DEFAULT_WEIGHTS "web/dist/bert-mini.int8.bin"
#endif
#define ATTN_WEIGHTS_NAME "bert-mini.int8.bin"
enum { PATH_BYTES = 4096 };

enum { EXIT_RUN_FAILED = 1, EXIT_BAD_ARGUMENT = 2 };
enum { STDIN_LIMIT = 64 << 20 }; /* bytes read from standard input at most */

typedef struct {
    const char *text, *pair, *weights, *token, *ablate;
    size_t text_bytes, pair_bytes;
    int layer, head, json, tokenize, mask, info, help;
    int layer_given, head_given, weights_given;
    char default_weights[PATH_BYTES]; /* the default weights file found (find_default_weights) */
    int removed[MAX_REMOVED][2];      /* --ablate's layer.head pairs, from 1 */
    int removed_count;
} options;

/* shape[8] of attn_engine_shape, by name */
enum { SHAPE_VOCAB, SHAPE_HIDDEN, SHAPE_LAYERS, SHAPE_HEADS, SHAPE_FFN, SHAPE_POSITIONS, SHAPE_TYPES, SHAPE_HEAD_SIZE };

static int usage(FILE *out) {
    fputs("usage: attn TEXT [--pair TEXT_B] [--layer L] [--head H] [--token WORD|INDEX|#INDEX] [--json]\n"
          "       attn TEXT [--pair TEXT_B] --tokenize [--json]\n"
          "       attn TEXT [--pair TEXT_B] --mask [--json]   (top-5 predictions at each [MASK])\n"
          "       attn --info [--json]                        (the model: shape and model card)\n"
          "       --ablate L.H[,L.H…] removes heads (layer.head, from 1) from the run, e.g. --ablate 2.1,3.4;\n"
          "                   L.A-B removes heads A to B of layer L, e.g. --ablate 2.1-4\n"
          "       --weights FILE (default " ATTN_DEFAULT_WEIGHTS ", else " ATTN_WEIGHTS_NAME " beside attn or in\n"
          "                       the web/dist/ of the repository attn was built in)\n"
          "TEXT or TEXT_B \"-\" is read from standard input; layers and heads count from 1,\n"
          "tokens from 0 ([CLS]); --pair runs [CLS] TEXT [SEP] TEXT_B [SEP]\n",
          out);
    return out == stdout ? 0 : EXIT_BAD_ARGUMENT;
}

/* The last error, for the {"error":…} object a --json run prints when it fails. */
static char last_error[1024];

static void report_error(const char *format, va_list args) {
    vsnprintf(last_error, sizeof last_error, format, args);
    fprintf(stderr, "attn: %s\n", last_error);
}

/* Prints "attn: <message>" and returns the bad-argument exit status. */
static int bad_argument(const char *format, ...) {
    va_list args;
    va_start(args, format);
    report_error(format, args);
    va_end(args);
    return EXIT_BAD_ARGUMENT;
}

/* Prints "attn: <message>" and returns the run-failed exit status. */
static int run_failed(const char *format, ...) {
    va_list args;
    va_start(args, format);
    report_error(format, args);
    va_end(args);
    return EXIT_RUN_FAILED;
}

static int parse_int(const char *s, int *out) {
    char *end;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < -1000000 || v > 1000000) return -1;
    *out = (int)v;
    return 0;
}

static int parse_number_option(const char *flag, const char *value, int *out) {
    if (parse_int(value, out)) return bad_argument("%s \"%s\" is not a whole number", flag, value);
    return 0;
}

/* The one grammar of a list of heads, read the same by the page (web/src/head-list.mjs, which
 * states it) and here; tests/fixtures/head-lists.json holds the cases both are held to:
 *   list = [ item { "," item } ]       spaces and tabs allowed around items and commas
 *   item = LAYER "." HEAD [ "-" HEAD ]  1 to 4 digits each, from 1; L.A-B is heads A to B of L
 * A head named twice, an empty item and more than MAX_REMOVED heads are refused. The ranges
 * are checked against the model later (check_removed). */
static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* 1 to 4 digits at *at, moved past; -1 when there are none or more. */
static long read_count(const char **at) {
    long value = 0;
    int digits = 0;
    while (**at >= '0' && **at <= '9') {
        if (++digits > 4) return -1;
        value = value * 10 + (**at - '0');
        (*at)++;
    }
    return digits ? value : -1;
}

static int head_listed(const options *o, long layer, long head) {
    for (int i = 0; i < o->removed_count; i++)
        if (o->removed[i][0] == layer && o->removed[i][1] == head) return 1;
    return 0;
}

/* One item "L.H" or "L.A-B" (blanks around it skipped) into o->removed; *at moves past it. */
static int parse_head_item(const char **at, const char *list, options *o) {
    while (is_blank(**at)) (*at)++;
    const long layer = read_count(at);
    const int dot = layer >= 0 && **at == '.';
    if (dot) (*at)++;
    const long first = dot ? read_count(at) : -1;
    long last = first;
    if (first >= 0 && **at == '-') {
        (*at)++;
        last = read_count(at);
    }
    while (is_blank(**at)) (*at)++;
    if (first < 0 || last < 0 || (**at && **at != ','))
        return bad_argument("--ablate \"%s\": write each head as LAYER.HEAD (or LAYER.FIRST-LAST), counted from 1, "
                            "separated by commas (e.g. --ablate 2.1,3.4)",
                            list);
    if (last < first) return bad_argument("--ablate: heads %ld.%ld-%ld run backwards", layer, first, last);
    for (long head = first; head <= last; head++) {
        if (head_listed(o, layer, head)) return bad_argument("--ablate: head %ld.%ld is listed twice", layer, head);
        if (o->removed_count == MAX_REMOVED) return bad_argument("--ablate: more than %d heads listed", MAX_REMOVED);
        o->removed[o->removed_count][0] = (int)layer;
        o->removed[o->removed_count][1] = (int)head;
        o->removed_count++;
    }
    return 0;
}

static int parse_ablate(const char *list, options *o) {
    const char *at = list;
    while (is_blank(*at)) at++;
    if (!*at)
        return bad_argument("--ablate \"%s\" names no head: write each head as LAYER.HEAD, counted from 1, "
                            "separated by commas (e.g. --ablate 2.1,3.4)",
                            list);
    at = list;
    for (;;) {
        const int status = parse_head_item(&at, list, o);
        if (status) return status;
        if (!*at) return 0;
        at++; /* the comma */
    }
}

/* One option with its value; returns 1 when it took the value, 0 when it takes none, or a
 * negative number after reporting a bad argument. */
static int parse_option(const char *flag, const char *value, options *o) {
    if (!strcmp(flag, "--json")) return o->json = 1, 0;
    if (!strcmp(flag, "--tokenize")) return o->tokenize = 1, 0;
    if (!strcmp(flag, "--mask")) return o->mask = 1, 0;
    if (!strcmp(flag, "--info")) return o->info = 1, 0;
    if (!strcmp(flag, "--help")) return o->help = 1, 0;
    const int takes_value = !strcmp(flag, "--weights") || !strcmp(flag, "--token") || !strcmp(flag, "--pair") ||
                            !strcmp(flag, "--layer") || !strcmp(flag, "--head") || !strcmp(flag, "--ablate");
    if (!takes_value) {
        bad_argument("unknown option \"%s\"", flag);
        return -1;
    }
    if (!value) {
        bad_argument("%s needs a value", flag);
        return -1;
    }
    if (!strcmp(flag, "--weights")) {
        o->weights = value;
        o->weights_given = 1;
    } else if (!strcmp(flag, "--ablate")) {
        if (o->ablate) {
            bad_argument("--ablate given twice; list every head in one: --ablate 2.1,3.4");
            return -1;
        }
        o->ablate = value;
    } else if (!strcmp(flag, "--token")) o->token = value;
    else if (!strcmp(flag, "--pair")) {
        if (o->pair) {
            bad_argument("--pair given twice (\"%s\" and \"%s\"); a pair has one second segment", o->pair, value);
            return -1;
        }
        o->pair = value;
    } else if (!strcmp(flag, "--layer")) {
        if (parse_number_option(flag, value, &o->layer)) return -1;
        o->layer_given = 1;
    } else {
        if (parse_number_option(flag, value, &o->head)) return -1;
        o->head_given = 1;
    }
    return 1;
}

static int parse_options(int argc, char **argv, options *o) {
    *o = (options){.weights = ATTN_DEFAULT_WEIGHTS, .layer = 1, .head = 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] == '-' && a[1] == '-') {
            const int taken = parse_option(a, i + 1 < argc ? argv[i + 1] : NULL, o);
            if (taken < 0) return EXIT_BAD_ARGUMENT;
            i += taken;
        } else if (!o->text) {
            o->text = a;
        } else {
            return bad_argument("unexpected argument \"%s\" after the text \"%s\" (quote a sentence "
                                "with spaces; give a second segment with --pair)",
                                a, o->text);
        }
    }
    if (o->help) return 0;
    if (!o->text && !o->info) return bad_argument("no text given (give TEXT, or - to read it from standard input)");
    if (o->text && o->pair && !strcmp(o->text, "-") && !strcmp(o->pair, "-"))
        return bad_argument("TEXT and --pair are both \"-\": standard input can be read only once");
    if (o->tokenize && o->mask) return bad_argument("--tokenize and --mask are two different outputs: choose one");
    return o->ablate ? parse_ablate(o->ablate, o) : 0;
}

/* The options that the chosen output does not use, reported so that a script learns of it. */
static void report_unused(const options *o) {
    const char *mode = o->info ? "--info" : o->tokenize ? "--tokenize" : o->mask ? "--mask" : NULL;
    if (!mode) return;
    const struct {
        int given;
        const char *name;
    } unused[] = {
        {o->layer_given, "--layer"},
        {o->head_given, "--head"},
        {o->token != NULL, "--token"},
        {o->info && o->text != NULL, "TEXT"},
        {o->info && o->pair != NULL, "--pair"},
        {(o->info || o->tokenize) && o->ablate != NULL, "--ablate"},
    };
    for (size_t i = 0; i < sizeof unused / sizeof unused[0]; i++)
        if (unused[i].given) fprintf(stderr, "attn: note: %s does not apply to %s (ignored)\n", unused[i].name, mode);
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

/* All of standard input (up to STDIN_LIMIT bytes), or NULL with a message. */
static char *read_stdin(size_t *size) {
    size_t capacity = 4096, length = 0;
    char *text = malloc(capacity);
    while (text) {
        length += fread(text + length, 1, capacity - length, stdin);
        if (ferror(stdin)) {
            run_failed("cannot read standard input: %s", strerror(errno));
            break;
        }
        if (feof(stdin)) {
            *size = length;
            return text;
        }
        if (capacity >= STDIN_LIMIT) {
            run_failed("standard input is longer than %d MiB", STDIN_LIMIT >> 20);
            break;
        }
        char *grown = realloc(text, capacity * 2);
        if (!grown) run_failed("out of memory reading standard input");
        else capacity *= 2;
        if (!grown) break;
        text = grown;
    }
    free(text);
    return NULL;
}

/* Fills a text and its length from its argument; "-" reads standard input into *owned. */
static int take_text(const char *argument, const char **text, size_t *bytes, char **owned) {
    if (!argument) return 0;
    if (strcmp(argument, "-")) {
        *text = argument;
        *bytes = strlen(argument);
        return 0;
    }
    *owned = read_stdin(bytes);
    *text = *owned;
    return *owned ? 0 : -1;
}

/* A C1 control character (U+0080 … U+009F) is the two bytes C2 80 … C2 9F in UTF-8. */
static int is_c1_control(const unsigned char *p) { return p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f; }

/* JSON string: quotes and backslashes escaped, every control character (C0, DEL, C1) as \uXXXX. */
static void print_json_string(const char *s) {
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') printf("\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f) printf("\\u%04x", *p);
        else if (is_c1_control(p)) printf("\\u%04x", *++p); /* C2 xx is U+00xx */
        else putchar(*p);
    }
    putchar('"');
}

/* Text for the terminal: control characters (C0, DEL, C1: escape sequences, bells) written as
 * \xHH, padded with spaces to `width` bytes as printf's %-*s would. */
static void print_terminal(const char *s, int width) {
    int written = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p == 0x7f || *p == '\\') {
            written += *p == '\\' ? printf("\\\\") : printf("\\x%02x", *p);
        } else if (is_c1_control(p)) {
            written += printf("\\x%02x", *++p);
        } else {
            putchar(*p);
            written++;
        }
    }
    for (; written < width; written++) putchar(' ');
}

/* A number in JSON: null where a C printf would write nan or inf. */
static void print_json_number(double value) {
    if (value == value && value - value == 0) printf("%.9g", value);
    else fputs("null", stdout);
}

static void print_shape_json(const int32_t *shape) {
    printf("\"shape\":{\"vocab\":%d,\"hidden\":%d,\"layers\":%d,\"heads\":%d,\"ffn\":%d,"
           "\"max_positions\":%d,\"type_vocab\":%d,\"head_size\":%d}",
           shape[SHAPE_VOCAB], shape[SHAPE_HIDDEN], shape[SHAPE_LAYERS], shape[SHAPE_HEADS], shape[SHAPE_FFN],
           shape[SHAPE_POSITIONS], shape[SHAPE_TYPES], shape[SHAPE_HEAD_SIZE]);
}

static int is_pair(const attn_session *s) { return attn_session_segment_count(s) == 2; }

/* The full length is a lower bound once the tokenizer stopped counting (attn.h). */
static int counting_stopped(const attn_session *s) { return attn_session_full_length(s) >= ATTN_COUNT_LIMIT; }

static void print_tokens_json(const attn_engine *e, const attn_session *s) {
    const int n = attn_session_length(s);
    const int32_t *ids = attn_session_ids(s);
    printf("\"n\":%d,\"pair\":%s,\"truncated\":%s,\"full_length\":%d,\"full_length_exact\":%s,\"ids\":[", n,
           is_pair(s) ? "true" : "false", attn_session_truncated(s) ? "true" : "false", attn_session_full_length(s),
           counting_stopped(s) ? "false" : "true");
    for (int i = 0; i < n; i++) printf("%s%d", i ? "," : "", ids[i]);
    printf("],\"tokens\":[");
    for (int i = 0; i < n; i++) {
        if (i) putchar(',');
        print_json_string(attn_engine_token(e, ids[i]));
    }
    printf("],\"offsets\":[");
    for (int i = 0; i < n; i++) printf("%s[%d,%d]", i ? "," : "", attn_session_starts(s)[i], attn_session_ends(s)[i]);
    printf("],\"type_ids\":[");
    for (int i = 0; i < n; i++) printf("%s%d", i ? "," : "", attn_session_type_ids(s)[i]);
    putchar(']');
}

/* "shape":{…},"tokens"…: the fields every --json output starts with. */
static void print_shape_and_tokens_json(const attn_engine *e, const attn_session *s) {
    int32_t shape[8];
    attn_engine_shape(e, shape);
    print_shape_json(shape);
    putchar(',');
    print_tokens_json(e, s);
}

/* "A" or "B" after each token of a pair (whose text its offsets index), nothing otherwise. */
static const char *segment_label(const attn_session *s, int token) {
    if (!is_pair(s)) return "";
    return attn_session_segment(s, token) == 0 ? "  A" : "  B";
}

static void print_truncation(const attn_session *s) {
    if (!attn_session_truncated(s)) return;
    const int n = attn_session_length(s), full = attn_session_full_length(s);
    const char *at_least = counting_stopped(s) ? "at least " : "";
    if (!is_pair(s)) {
        printf("truncated: the text gives %s%d tokens, only the first %d are used\n", at_least, full, n);
        return;
    }
    int first = 0;
    while (first < n && attn_session_segment(s, first) == 0) first++;
    printf("truncated: the pair gives %s%d tokens, cut longest-first to %d: A keeps %d pieces, B keeps %d\n", at_least,
           full, n, first - 2, n - first - 1);
}

static void print_tokens_text(const attn_engine *e, const attn_session *s) {
    const int n = attn_session_length(s);
    for (int i = 0; i < n; i++) {
        const int32_t id = attn_session_ids(s)[i];
        printf("%4d  ", i);
        print_terminal(attn_engine_token(e, id), 16);
        printf(" id %-6d [%d, %d)%s\n", id, attn_session_starts(s)[i], attn_session_ends(s)[i], segment_label(s, i));
    }
    print_truncation(s);
}

/* The first token whose text is `wanted`, or else the first that is the one piece the
 * tokenizer makes of it (so "Cat" and "Café" find "cat" and "cafe"); -1 when none. */
static int find_word(const attn_engine *e, const attn_session *s, const char *wanted) {
    const int n = attn_session_length(s);
    const int32_t *ids = attn_session_ids(s);
    for (int i = 0; i < n; i++)
        if (!strcmp(attn_engine_token(e, ids[i]), wanted)) return i;
    int32_t pieces[3], starts[3], ends[3], counts[2];
    if (attn_engine_tokenize(e, wanted, strlen(wanted), 3, pieces, starts, ends, counts) != ATTN_OK || counts[1] != 3)
        return -1;
    for (int i = 0; i < n; i++)
        if (ids[i] == pieces[1]) return i;
    return -1;
}

/* The row --token names, or -1 after a message. A word wins over an index it could also be. */
static int find_token(const attn_engine *e, const attn_session *s, const char *wanted) {
    const int n = attn_session_length(s);
    int index;
    if (wanted[0] == '#' && !parse_int(wanted + 1, &index)) {
        if (index >= 0 && index < n) return index;
        bad_argument("--token %s: this text has tokens 0–%d", wanted, n - 1);
        return -1;
    }
    const int word = find_word(e, s, wanted);
    const int numeric = !parse_int(wanted, &index);
    if (word >= 0 && numeric) {
        fprintf(stderr,
                "attn: note: --token %s is read as the word \"%s\" (token %d), not as index %d; "
                "write #%d for the index\n",
                wanted, wanted, word, index, index);
    }
    if (word >= 0) return word;
    if (numeric) {
        if (index >= 0 && index < n) return index;
        bad_argument("--token %s: this text has tokens 0–%d", wanted, n - 1);
        return -1;
    }
    bad_argument("--token \"%s\": no token \"%s\" in this text (see --tokenize for its tokens)", wanted, wanted);
    return -1;
}

static int check_layer_and_head(const options *o, const int32_t *shape) {
    if (o->layer < 1 || o->layer > shape[SHAPE_LAYERS])
        return bad_argument("--layer %d: this model has layers 1–%d", o->layer, shape[SHAPE_LAYERS]);
    if (o->head < 1 || o->head > shape[SHAPE_HEADS])
        return bad_argument("--head %d: this model has heads 1–%d", o->head, shape[SHAPE_HEADS]);
    return 0;
}

/* "removed_heads":[[2,1],…] (layer, head from 1): the heads the run removed. */
static void print_removed_json(const options *o) {
    printf("\"removed_heads\":[");
    for (int i = 0; i < o->removed_count; i++) printf("%s[%d,%d]", i ? "," : "", o->removed[i][0], o->removed[i][1]);
    putchar(']');
}

static void print_removed_text(const options *o) {
    if (!o->removed_count) return;
    printf("removed heads (context zeroed before W_O):");
    for (int i = 0; i < o->removed_count; i++) printf(" %d.%d", o->removed[i][0], o->removed[i][1]);
    putchar('\n');
}

static void print_row_json(const attn_engine *e, const attn_session *s, const options *o, int row,
                           const float *attention, const double *stats) {
    const int n = attn_session_length(s);
    printf("{\"layer\":%d,\"head\":%d,\"token\":%d,", o->layer, o->head, row);
    print_shape_and_tokens_json(e, s);
    printf(",");
    print_removed_json(o);
    printf(",\"row\":[");
    for (int j = 0; j < n; j++) {
        if (j) putchar(',');
        print_json_number(attention[j]);
    }
    const char *names[] = {"sum", "max", NULL, "ratio", "entropy", "effective_tokens"};
    printf("]");
    for (int k = 0; k < 6; k++) {
        if (!names[k]) continue;
        printf(",\"%s\":", names[k]);
        print_json_number(stats[k]);
    }
    puts("}");
}

static void print_row_text(const attn_engine *e, const attn_session *s, const options *o, int row,
                           const float *attention, const double *stats) {
    const int n = attn_session_length(s);
    printf("layer %d · head %d · token %d \"", o->layer, o->head, row);
    print_terminal(attn_engine_token(e, attn_session_ids(s)[row]), 0);
    printf("\"%s attends to:\n", is_pair(s) ? (attn_session_segment(s, row) ? " (segment B)" : " (segment A)") : "");
    for (int j = 0; j < n; j++) {
        const int bar = (int)(attention[j] * 40 + 0.5f);
        printf("%4d  ", j);
        print_terminal(attn_engine_token(e, attn_session_ids(s)[j]), 16);
        printf(" %.4f%s  %.*s\n", attention[j], segment_label(s, j), bar, "########################################");
    }
    print_removed_text(o);
    printf("sum %.6f   uniform 1/n = %.4f   ratio to uniform %.2f (max %.4f × n %d)   "
           "effective tokens %.2f\n",
           stats[0], 1.0 / n, stats[3], stats[1], n, stats[5]);
    print_truncation(s);
}

static int show_row(const attn_engine *e, const attn_session *s, const options *o) {
    int32_t shape[8];
    attn_engine_shape(e, shape);
    const int n = attn_session_length(s);
    const int row = o->token ? find_token(e, s, o->token) : 0;
    if (row < 0) return EXIT_BAD_ARGUMENT;
    double stats[7];
    if (attn_session_row_stats(s, o->layer - 1, o->head - 1, row, stats) != ATTN_OK)
        return run_failed("%s", attn_status_message(ATTN_ERR_ARGUMENT));
    const float *attention =
        attn_session_attention(s) +
        (((size_t)(o->layer - 1) * (size_t)shape[SHAPE_HEADS] + (size_t)(o->head - 1)) * (size_t)n + (size_t)row) *
            (size_t)n;
    if (o->json) print_row_json(e, s, o, row, attention, stats);
    else print_row_text(e, s, o, row, attention, stats);
    return 0;
}

typedef struct {
    int position;
    int32_t ids[5];
    float probs[5];
} mask_guess;

static void print_masks_json(const attn_engine *e, const attn_session *s, const options *o, const mask_guess *guesses,
                             int count) {
    putchar('{');
    print_shape_and_tokens_json(e, s);
    putchar(',');
    print_removed_json(o);
    printf(",\"masks\":[");
    for (int g = 0; g < count; g++) {
        printf("%s{\"position\":%d,\"top\":[", g ? "," : "", guesses[g].position);
        for (int k = 0; k < 5; k++) {
            printf("%s[%d,", k ? "," : "", guesses[g].ids[k]);
            print_json_string(attn_engine_token(e, guesses[g].ids[k]));
            putchar(',');
            print_json_number(guesses[g].probs[k]);
            putchar(']');
        }
        printf("]}");
    }
    printf("]}\n");
}

static void print_masks_text(const attn_engine *e, const attn_session *s, const mask_guess *guesses, int count) {
    for (int g = 0; g < count; g++) {
        const int i = guesses[g].position;
        printf("[MASK] at token %d%s:\n", i,
               is_pair(s) ? (attn_session_segment(s, i) ? " (segment B)" : " (segment A)") : "");
        for (int k = 0; k < 5; k++) {
            printf("  ");
            print_terminal(attn_engine_token(e, guesses[g].ids[k]), 16);
            printf(" %.4f\n", guesses[g].probs[k]);
        }
    }
    if (!count) printf("no [MASK] in this text\n");
    print_truncation(s);
}

/* Every [MASK]'s guesses are had before anything is printed, so a failure prints nothing. */
static int show_masks(const attn_engine *e, const attn_session *s, const options *o) {
    if (!o->json) print_removed_text(o);
    const int n = attn_session_length(s);
    const int32_t mask = attn_engine_special_id(e, SPECIAL_MASK);
    if (!attn_engine_has_mlm(e)) return run_failed("--mask: %s", attn_status_message(ATTN_ERR_NO_MLM));
    mask_guess *guesses = malloc((size_t)n * sizeof *guesses);
    if (!guesses) return run_failed("%s", attn_status_message(ATTN_ERR_NO_MEMORY));
    int count = 0, status = ATTN_OK;
    for (int i = 0; i < n && status == ATTN_OK; i++) {
        if (attn_session_ids(s)[i] != mask) continue;
        guesses[count].position = i;
        status = attn_session_mlm(s, i, 5, guesses[count].ids, guesses[count].probs);
        count++;
    }
    if (status != ATTN_OK) {
        free(guesses);
        return run_failed("%s", attn_status_message(status));
    }
    if (o->json) print_masks_json(e, s, o, guesses, count);
    else print_masks_text(e, s, guesses, count);
    free(guesses);
    return 0;
}

static void show_tokens(const attn_engine *e, const attn_session *s, int json) {
    if (!json) {
        print_tokens_text(e, s);
        return;
    }
    putchar('{');
    print_shape_and_tokens_json(e, s);
    puts("}");
}

/* ---- the model card: one JSON object whose keys are the converter's (weights/FORMAT.md), each
 * once, each value a string, a number, true or false, or a list of numbers. Anything else is
 * refused, so the card cannot add fields to the output around it. */
static const char *const CARD_KEYS[] = CARD_KEY_NAMES; /* c/spec.mjs */
enum { CARD_KEY_COUNT = sizeof CARD_KEYS / sizeof CARD_KEYS[0], CARD_KEY_MAX = 32 };

static const char *skip_space(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    return p;
}

static int is_hex(char c) { return (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'f'); }

/* A JSON string at p: the byte after it, or NULL. Its text, escapes unread, to key[CARD_KEY_MAX]. */
static const char *card_string(const char *p, char *key) {
    if (*p != '"') return NULL;
    int length = 0;
    for (p++; *p != '"'; p++) {
        if ((unsigned char)*p < 0x20) return NULL;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                if (!is_hex(p[1]) || !is_hex(p[2]) || !is_hex(p[3]) || !is_hex(p[4])) return NULL;
                p += 4;
            } else if (!*p || !strchr("\"\\/bfnrt", *p)) return NULL;
            length = CARD_KEY_MAX; /* a key with an escape is not one of the known keys */
        }
        if (key && length < CARD_KEY_MAX - 1) key[length++] = *p;
    }
    if (key) key[length < CARD_KEY_MAX ? length : 0] = '\0';
    return p + 1;
}

/* A JSON number at p (RFC 8259 grammar): the byte after it, or NULL. */
static const char *card_number(const char *p) {
    if (*p == '-') p++;
    if (*p == '0') p++;
    else if (*p >= '1' && *p <= '9')
        while (*p >= '0' && *p <= '9') p++;
    else return NULL;
    if (*p == '.') {
        if (*++p < '0' || *p > '9') return NULL;
        while (*p >= '0' && *p <= '9') p++;
    }
    if (*p == 'e' || *p == 'E') {
        if (*++p == '+' || *p == '-') p++;
        if (*p < '0' || *p > '9') return NULL;
        while (*p >= '0' && *p <= '9') p++;
    }
    return p;
}

/* A JSON list of numbers at p ([] included): the byte after it, or NULL. */
static const char *card_numbers(const char *p) {
    if (*p != '[') return NULL;
    p = skip_space(p + 1);
    if (*p == ']') return p + 1;
    for (;;) {
        p = card_number(p);
        if (!p) return NULL;
        p = skip_space(p);
        if (*p == ']') return p + 1;
        if (*p++ != ',') return NULL;
        p = skip_space(p);
    }
}

/* A card value at p (string, number, true, false, list of numbers): the byte after it, or NULL. */
static const char *card_value_end(const char *p) {
    if (*p == '"') return card_string(p, NULL);
    if (*p == '[') return card_numbers(p);
    if (!strncmp(p, "true", 4)) return p + 4;
    if (!strncmp(p, "false", 5)) return p + 5;
    return card_number(p);
}

static int card_key_index(const char *key) {
    for (int k = 0; k < CARD_KEY_COUNT; k++)
        if (!strcmp(key, CARD_KEYS[k])) return k;
    return -1;
}

/* NULL when `card` is a valid card, else why it is not. */
static const char *card_problem(const char *card) {
    int seen[CARD_KEY_COUNT] = {0};
    const char *p = skip_space(card);
    if (*p++ != '{') return "it is not a JSON object";
    p = skip_space(p);
    if (*p == '}') return *skip_space(p + 1) ? "text follows the object" : NULL;
    for (;;) {
        char key[CARD_KEY_MAX];
        p = card_string(skip_space(p), key);
        if (!p) return "a key is not a JSON string";
        const int k = card_key_index(key);
        if (k < 0) return "it has a key the converter does not write";
        if (seen[k]++) return "a key appears twice";
        p = skip_space(p);
        if (*p++ != ':') return "it is not valid JSON";
        p = card_value_end(skip_space(p));
        if (!p) return "a value is not a JSON string, number, true, false or list of numbers";
        p = skip_space(p);
        if (*p == '}') return *skip_space(p + 1) ? "text follows the object" : NULL;
        if (*p++ != ',') return "it is not valid JSON";
    }
}

/* The start of `key`'s value in a valid card, or NULL when the card has no such key. */
static const char *card_find(const char *card, const char *key) {
    const char *p = skip_space(skip_space(card) + 1);
    while (*p == '"') {
        char name[CARD_KEY_MAX];
        p = skip_space(skip_space(card_string(p, name)) + 1); /* past the ':' */
        if (!strcmp(name, key)) return p;
        p = skip_space(skip_space(card_value_end(p)) + 1); /* past the ',' or '}' */
    }
    return NULL;
}

/* `key`'s number in a valid card, or NaN. */
static double card_number_of(const char *card, const char *key) {
    const char *p = card_find(card, key);
    return p && (*p == '-' || (*p >= '0' && *p <= '9')) ? strtod(p, NULL) : (double)NAN;
}

/* Up to `max` numbers of `key`'s list in a valid card, to out: how many (0 when absent). */
static int card_numbers_of(const char *card, const char *key, double *out, int max) {
    const char *p = card_find(card, key);
    if (!p || *p != '[') return 0;
    int count = 0;
    for (p = skip_space(p + 1); *p != ']' && count < max;) {
        char *end;
        out[count++] = strtod(p, &end);
        p = skip_space(end);
        if (*p == ',') p = skip_space(p + 1);
    }
    return count;
}

/* `key`'s string in a valid card, printed for the terminal after `label`; nothing when absent. */
static void print_card_string(const char *card, const char *key, const char *label) {
    const char *p = card_find(card, key);
    if (!p || *p != '"') return;
    const char *end = card_string(p, NULL) - 1;
    char *text = malloc((size_t)(end - p));
    if (!text) return;
    memcpy(text, p + 1, (size_t)(end - p - 1));
    text[end - p - 1] = '\0';
    printf("%s", label);
    print_terminal(text, 0);
    putchar('\n');
    free(text);
}

static int is_number(double value) { return value == value; }

/* A count with thousands separators: 13,017,689 (below 1e15, else as %.0f). */
static void print_grouped(double value) {
    if (!(value >= 0 && value < 1e15)) {
        printf("%.0f", value);
        return;
    }
    char digits[32];
    const int n = snprintf(digits, sizeof digits, "%.0f", value);
    for (int i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0) putchar(',');
        putchar(digits[i]);
    }
}

/* The heads (1-based layer.head) whose value in `list` reaches `at_least`, after `label`. */
static int print_heads_reaching(const double *list, int count, int heads, double at_least, const char *label) {
    int found = 0;
    for (int i = 0; i < count; i++) {
        if (list[i] < at_least) continue;
        printf("%s%d.%d", found++ ? ", " : label, i / heads + 1, i % heads + 1);
    }
    if (found) putchar('\n');
    return found;
}

enum { CARD_HEADS_MAX = 12 * 12 };

/* The measured head roles and what they leave out of reach, in English (the page's catalogue
 * says the same: web/src/model-card.mjs). */
static void print_card_roles(const char *card, const int32_t *shape) {
    const int heads = shape[SHAPE_HEADS];
    double next[CARD_HEADS_MAX], previous[CARD_HEADS_MAX], cls[CARD_HEADS_MAX], sep[CARD_HEADS_MAX],
        sink[CARD_HEADS_MAX];
    const int count = card_numbers_of(card, "head_next", next, CARD_HEADS_MAX);
    if (count == 0 || count != shape[SHAPE_LAYERS] * heads ||
        card_numbers_of(card, "head_previous", previous, CARD_HEADS_MAX) != count ||
        card_numbers_of(card, "head_cls", cls, CARD_HEADS_MAX) != count ||
        card_numbers_of(card, "head_sep", sep, CARD_HEADS_MAX) != count) {
        puts("head roles: not measured");
        return;
    }
    puts("head roles on the calibration text (share of words whose largest weight is on the next /\n"
         "previous word; mean weight on [CLS] / [SEP]):");
    for (int i = 0; i < count; i++) {
        printf("  head %d.%d  next %3.0f%%  previous %3.0f%%  [CLS] %3.0f%%  [SEP] %3.0f%%\n", i / heads + 1,
               i % heads + 1, 100 * next[i], 100 * previous[i], 100 * cls[i], 100 * sep[i]);
        sink[i] = cls[i] + sep[i];
    }
    const int positional =
        print_heads_reaching(next, count, heads, CARD_POSITIONAL_SHARE, "heads on the next word: ") +
        print_heads_reaching(previous, count, heads, CARD_POSITIONAL_SHARE, "heads on the previous word: ");
    if (!positional)
        printf("what it cannot show: no positional head (no head puts its largest weight on the next or the previous\n"
               "word for %.0f%% of the words); to show those patterns, convert Google's bert-mini (README,\n"
               "\"Show Google's bert-mini in your course\")\n",
               100 * CARD_POSITIONAL_SHARE);
    print_heads_reaching(sink, count, heads, CARD_SINK_MASS,
                         "heads with most of their weight on [CLS] and [SEP] (attention sinks): ");
}

/* The card's facts in English, after the shape; a file written before prints its sentences. */
static void print_card_text(const char *card, const int32_t *shape) {
    print_card_string(card, "name", "model: ");
    const double tokens = card_number_of(card, "training_tokens");
    if (is_number(tokens)) {
        fputs("trained on ", stdout);
        print_grouped(tokens);
        const char *language = card_find(card, "training_language");
        if (language && !strncmp(language, "\"en\"", 4)) puts(" tokens of English text");
        else {
            fputs(" tokens of text", stdout);
            if (language) print_card_string(card, "training_language", " in language ");
            else putchar('\n');
        }
    }
    const double accuracy = card_number_of(card, "heldout_mlm_accuracy"),
                 loss = card_number_of(card, "heldout_mlm_loss");
    if (is_number(accuracy)) {
        printf("held-out masked-word accuracy: %.1f%% top-1", 100 * accuracy);
        if (is_number(loss)) printf(" (loss %.2f)", loss);
        putchar('\n');
    }
    const double int8 = card_number_of(card, "matrices_int8"), int16 = card_number_of(card, "matrices_int16");
    if (is_number(int8) && is_number(int16))
        printf("precision: %.0f matrices int8, %.0f int16 (one float scale per row)\n", int8, int16);
    const char *mlm = card_find(card, "masked_word_head");
    if (mlm)
        puts(*mlm == 't' ? "masked-word head: yes" : "masked-word head: none (attention only, no [MASK] predictions)");
    static const char *const legacy[][2] = {
        {"architecture", "architecture: "}, {"precision", "precision: "}, {"objective", "objective: "},
        {"trained_on", "trained on: "},     {"derived", "derived: "},     {"limits", "limits: "},
    };
    for (size_t i = 0; i < sizeof legacy / sizeof legacy[0]; i++) print_card_string(card, legacy[i][0], legacy[i][1]);
    if (card_find(card, "limits")) return; /* a file written before: its sentences say it */
    if (is_number(accuracy) && accuracy < CARD_LOW_MLM_ACCURACY)
        puts("what it cannot show: the right masked word, most of the time: its guesses are often frequent words");
    print_card_roles(card, shape);
    puts("attention weights show where the model looks, not why it decides");
}

/* The model's shape and the card the converter stored ({} when the file has none; refused, with
 * the reason, when it is not a valid card). */
static int show_info(const attn_engine *engine, int json) {
    int32_t shape[8];
    attn_engine_shape(engine, shape);
    const char *card = attn_engine_card(engine);
    if (!card[0]) card = "{}";
    const char *problem = card_problem(card);
    if (problem) fprintf(stderr, "attn: note: the model card is not shown: %s\n", problem);
    if (json) {
        putchar('{');
        print_shape_json(shape);
        if (problem) {
            printf(",\"card\":null,\"card_refused\":");
            print_json_string(problem);
            puts("}");
        } else printf(",\"card\":%s}\n", card);
    } else {
        printf("%d layers x %d heads, hidden %d, FFN %d, vocabulary %d, up to %d tokens, %d token types\n",
               shape[SHAPE_LAYERS], shape[SHAPE_HEADS], shape[SHAPE_HIDDEN], shape[SHAPE_FFN], shape[SHAPE_VOCAB],
               shape[SHAPE_POSITIONS], shape[SHAPE_TYPES]);
        if (problem) printf("model card: (not shown: %s)\n", problem);
        else if (!strcmp(skip_space(skip_space(card) + 1), "}")) puts("model card: none in this weights file");
        else print_card_text(card, shape);
    }
    return 0;
}

/* The --ablate heads inside the model, or a message naming the first that is not. */
static int check_removed(const options *o, const int32_t *shape) {
    for (int i = 0; i < o->removed_count; i++) {
        const int layer = o->removed[i][0], head = o->removed[i][1];
        if (layer < 1 || layer > shape[SHAPE_LAYERS])
            return bad_argument("--ablate %d.%d: this model has layers 1–%d", layer, head, shape[SHAPE_LAYERS]);
        if (head < 1 || head > shape[SHAPE_HEADS])
            return bad_argument("--ablate %d.%d: this model has heads 1–%d", layer, head, shape[SHAPE_HEADS]);
    }
    return 0;
}

static int run_session(attn_session *s, const options *o, const int32_t *shape) {
    if (!s) return ATTN_ERR_NO_MEMORY;
    uint8_t removed[MAX_REMOVED] = {0};
    for (int i = 0; i < o->removed_count; i++)
        removed[(o->removed[i][0] - 1) * shape[SHAPE_HEADS] + o->removed[i][1] - 1] = 1;
    const int status = attn_session_set_ablation(s, removed);
    if (status != ATTN_OK) return status;
    if (o->pair) return attn_session_run_pair(s, o->text, o->text_bytes, o->pair, o->pair_bytes);
    return attn_session_run_text(s, o->text, o->text_bytes);
}

/* Runs the text (or pair) and prints the chosen output. */
static int show_run(const attn_engine *engine, const options *o) {
    int32_t shape[8];
    attn_engine_shape(engine, shape);
    if (!o->tokenize && !o->mask && check_layer_and_head(o, shape)) return EXIT_BAD_ARGUMENT;
    if (!o->tokenize && check_removed(o, shape)) return EXIT_BAD_ARGUMENT;
    attn_session *session = attn_session_create(engine);
    const int status = run_session(session, o, shape);
    int result = EXIT_RUN_FAILED;
    if (status != ATTN_OK) run_failed("%s (error %d)", attn_status_message(status), status);
    else if (o->tokenize) {
        show_tokens(engine, session, o->json);
        result = 0;
    } else if (o->mask) result = show_masks(engine, session, o);
    else result = show_row(engine, session, o);
    attn_session_destroy(session);
    return result;
}

/* The weights file: mapped read-only where the system can (no copy: a 110 MB base-size file
 * loads in about two thirds of the time), else read into memory. */
typedef struct {
    unsigned char *bytes;
    size_t size;
    int mapped;
} weights_file;

static int open_weights(const char *path, weights_file *w) {
    w->mapped = 0;
#ifdef ATTN_CLI_MMAP
    const int fd = open(path, O_RDONLY);
    if (fd >= 0) {
        struct stat st;
        void *p = MAP_FAILED;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
            p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        close(fd);
        if (p != MAP_FAILED) {
            w->bytes = p, w->size = (size_t)st.st_size, w->mapped = 1;
            return 1;
        }
    }
#endif
    w->bytes = read_file(path, &w->size); /* and errno says why not */
    return w->bytes != NULL;
}

static void close_weights(weights_file *w) {
#ifdef ATTN_CLI_MMAP
    if (w->mapped) {
        munmap(w->bytes, w->size);
        return;
    }
#endif
    attn_free(w->bytes);
}

/* ---- the default weights, from any working directory: web/dist/ under the working directory
 * (the repository's root), then beside the executable, then in the web/dist/ of the repository
 * the executable was built in (build/attn → ../web/dist/). */

/* The executable's folder, with its final '/', to dir[PATH_BYTES]; 0 when it cannot be known. */
static int executable_folder(const char *argv0, char *dir) {
    size_t length = 0;
#if defined(__linux__)
    const ssize_t n = readlink("/proc/self/exe", dir, PATH_BYTES - 1);
    if (n > 0) length = (size_t)n;
#endif
    if (length == 0 && argv0 && strchr(argv0, '/') && strlen(argv0) < PATH_BYTES) {
        length = strlen(argv0);
        memcpy(dir, argv0, length);
    }
    dir[length] = '\0';
    char *slash = strrchr(dir, '/');
    if (!slash) return 0;
    slash[1] = '\0';
    return 1;
}

static int readable(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
}

/* The first default weights file that can be read, to o->weights; else o->weights is left as
 * it is and the places looked at are in `looked` (for the message). */
static void find_default_weights(options *o, const char *argv0, char *looked, size_t looked_size) {
    char dir[PATH_BYTES];
    snprintf(looked, looked_size, "%s", ATTN_DEFAULT_WEIGHTS);
    if (readable(ATTN_DEFAULT_WEIGHTS) || !executable_folder(argv0, dir)) return;
    const char *const beside[] = {ATTN_WEIGHTS_NAME, "../web/dist/" ATTN_WEIGHTS_NAME};
    for (size_t i = 0; i < sizeof beside / sizeof beside[0]; i++) {
        const int n = snprintf(o->default_weights, PATH_BYTES, "%s%s", dir, beside[i]);
        if (n < 0 || n >= PATH_BYTES) continue;
        const size_t used = strlen(looked);
        snprintf(looked + used, looked_size - used, ", %s", o->default_weights);
        if (readable(o->default_weights)) {
            o->weights = o->default_weights;
            return;
        }
    }
}

static int run_with_weights(options *o, const char *argv0) {
    char looked[3 * PATH_BYTES + 8];
    if (!o->weights_given) find_default_weights(o, argv0, looked, sizeof looked);
    weights_file file;
    const int opened = open_weights(o->weights, &file);
    if (!opened && !o->weights_given) {
        return run_failed("cannot find the default weights file %s (looked at %s); give one with --weights FILE",
                          ATTN_WEIGHTS_NAME, looked);
    }
    if (!opened) { return run_failed("cannot read weights file %s: %s", o->weights, strerror(errno)); }
    attn_engine *engine;
    const int status = attn_engine_create(file.bytes, file.size, &engine);
    if (status != ATTN_OK) {
        close_weights(&file);
        return run_failed("%s: %s (error %d)", o->weights, attn_status_message(status), status);
    }
    const int result = o->info ? show_info(engine, o->json) : show_run(engine, o);
    attn_engine_destroy(engine);
    close_weights(&file);
    return result;
}
/* With --json anywhere on the line, a failure still prints one JSON object. */
static int wants_json(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--json")) return 1;
    return 0;
}

static int finish(int result, int json) {
    if (result && json) {
        printf("{\"error\":{\"exit\":%d,\"message\":", result);
        print_json_string(last_error[0] ? last_error : "failed");
        puts("}}");
    }
    return result;
}

int main(int argc, char **argv) {
    options o;
    if (argc < 2) return usage(stderr);
    if (parse_options(argc, argv, &o)) {
        fputs("(attn --help lists the options)\n", stderr);
        return finish(EXIT_BAD_ARGUMENT, wants_json(argc, argv));
    }
    if (o.help) return usage(stdout);
    report_unused(&o);
    char *owned_text = NULL, *owned_pair = NULL;
    int result = EXIT_RUN_FAILED;
    if (o.info || (!take_text(o.text, &o.text, &o.text_bytes, &owned_text) &&
                   !take_text(o.pair, &o.pair, &o.pair_bytes, &owned_pair)))
        result = run_with_weights(&o, argv[0]);
    free(owned_text);
    free(owned_pair);
    return finish(result, o.json);
}
