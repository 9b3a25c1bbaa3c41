/* Native test of the weights loader (c/weights.c) on a real converted file.
 *
 *   gcc -std=c11 -Wall -Wextra -Werror -O2 -o /tmp/test_weights tests/native/test_weights.c c/weights.c -lm
 *   clang -std=c11 -Wall -Wextra -Werror -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
 *       -o /tmp/test_weights_san tests/native/test_weights.c c/weights.c -lm
 *   /tmp/test_weights weights/bert-mini.int8.bin [../shared/checkpoints/bert-mini-mlm]
 *
 * With a checkpoint directory (F32 model.safetensors + vocab.txt) every tensor is compared
 * with the source floats; without one that part is skipped. Prints "N passed, M failed". */
#include "../../c/weights.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

static void check(int ok, const char *format, ...)
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

/* ------------------------------------------------------------------ files and bytes */

typedef struct {
    uint8_t *bytes;  /* 16-byte aligned */
    size_t size;
} buffer;

static buffer aligned_buffer(size_t size)
{
    buffer b = {aligned_alloc(16, (size + 16) / 16 * 16), size};
    if (b.bytes == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return b;
}

static buffer aligned_copy(const uint8_t *bytes, size_t size)
{
    buffer b = aligned_buffer(size);
    if (size > 0) memcpy(b.bytes, bytes, size);
    return b;
}

static buffer read_file(const char *path)
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

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* The file checksum: CRC-32 of the whole file with the field at 12..15 read as zero. */
static void rechecksum(uint8_t *bytes, size_t size)
{
    put_u32(bytes + 12, 0);
    put_u32(bytes + 12, weights_crc32(bytes, size));
}

/* ------------------------------------------------------------------ header layout (FORMAT.md) */

enum { HEADER_SIZE = 128, ENTRY_SIZE = 128 };
enum {
    AT_VERSION = 8, AT_FILE_SIZE = 16, AT_HEADER_SIZE = 24, AT_VOCAB_OFFSET = 32, AT_TABLE_OFFSET = 48,
    AT_TABLE_BYTES = 56, AT_VOCAB_SIZE = 64, AT_HIDDEN = 68, AT_LAYERS = 72, AT_HEADS = 76,
    AT_MAX_POSITIONS = 84, AT_LN_EPS = 92, AT_QUANT = 96, AT_RESERVED = 108,
};
enum {
    E_KIND = 64, E_ROWS = 68, E_GROUP = 76, E_DATA_OFFSET = 80, E_DATA_BYTES = 88, E_SCALE_OFFSET = 96,
    E_RESIDUAL_OFFSET = 112, E_RESIDUAL_SCALE_OFFSET = 120,
};
enum { KIND_INT8 = 1, KIND_F32 = 2, KIND_INT8_RESIDUAL = 3 };

static uint8_t *entry_named(uint8_t *bytes, const char *name)
{
    uint64_t table = get_u64(bytes + AT_TABLE_OFFSET), count = get_u64(bytes + AT_TABLE_BYTES) / ENTRY_SIZE;
    for (uint64_t i = 0; i < count; i++) {
        uint8_t *e = bytes + table + i * ENTRY_SIZE;
        if (strcmp((const char *)e, name) == 0) return e;
    }
    fprintf(stderr, "no tensor %s in the table\n", name);
    exit(2);
}

/* ------------------------------------------------------------------ loading the real file */

static void check_pointer(const buffer *file, const void *p, const char *what)
{
    const uint8_t *u = p;
    check(u >= file->bytes && u < file->bytes + file->size && ((uintptr_t)u & 15) == 0,
          "%s points inside the buffer, 16-byte aligned", what);
}

static void check_qmatrix(const buffer *file, const qmatrix *m, int rows, int cols, const char *what)
{
    check(m->rows == rows && m->cols == cols, "%s is %dx%d (expected %dx%d)", what, m->rows, m->cols, rows, cols);
    check(m->group > 0 && m->cols % m->group == 0, "%s group %d divides %d", what, m->group, m->cols);
    check_pointer(file, m->q, what);
    check_pointer(file, m->scale, what);
}

static void test_real_file_loads(const buffer *file, bert_model *m)
{
    weights_status s = weights_load(file->bytes, file->size, m);
    check(s == WEIGHTS_OK, "real file loads: %s", weights_status_message(s));
    if (s != WEIGHTS_OK) return;
    printf("shape: vocab %d, hidden %d, layers %d, heads %d, ffn %d, positions %d, types %d, eps %g\n",
           m->vocab_size, m->hidden, m->layers, m->heads, m->ffn, m->max_positions, m->type_vocab,
           (double)m->ln_eps);
    check(m->layers >= 1 && m->layers <= BERT_MAX_LAYERS && m->hidden % m->heads == 0, "shape in range");
    check_qmatrix(file, &m->word_emb, m->vocab_size, m->hidden, "word_emb");
    check_qmatrix(file, &m->pos_emb, m->max_positions, m->hidden, "pos_emb");
    check_qmatrix(file, &m->type_emb, m->type_vocab, m->hidden, "type_emb");
    check_qmatrix(file, &m->mlm_transform, m->hidden, m->hidden, "mlm_transform");
    for (int i = 0; i < m->layers; i++) {
        const bert_layer *l = &m->layer[i];
        check_qmatrix(file, &l->query, m->hidden, m->hidden, "query");
        check_qmatrix(file, &l->ffn_in, m->ffn, m->hidden, "ffn_in");
        check_qmatrix(file, &l->ffn_out, m->hidden, m->ffn, "ffn_out");
        check_pointer(file, l->ffn_ln_beta, "ffn_ln_beta");
    }
    check_pointer(file, m->mlm_bias, "mlm_bias");
    check(m->vocab_bytes > 0 && m->vocab_text[m->vocab_bytes - 1] == '\n', "vocab ends with a newline");
}

/* ------------------------------------------------------------------ comparing with the checkpoint */

typedef struct {
    buffer file;
    char *header;  /* NUL-terminated JSON */
    size_t data_start;
} safetensors;

static safetensors open_safetensors(const char *path)
{
    safetensors st = {read_file(path), NULL, 0};
    uint64_t length = st.file.size >= 8 ? get_u64(st.file.bytes) : UINT64_MAX;
    if (length > st.file.size - 8) {
        fprintf(stderr, "%s: not a safetensors file\n", path);
        exit(2);
    }
    st.header = calloc((size_t)length + 1, 1);
    memcpy(st.header, st.file.bytes + 8, (size_t)length);
    st.data_start = 8 + (size_t)length;
    return st;
}

/* The F32 values of a tensor (an unaligned-safe copy) and its element count, or NULL. */
static float *safetensors_floats(const safetensors *st, const char *name, size_t *count)
{
    char key[128];
    snprintf(key, sizeof key, "\"%s\"", name);
    const char *at = strstr(st->header, key);
    const char *end = at ? strchr(at, '}') : NULL;
    const char *dtype = at ? strstr(at, "\"dtype\"") : NULL;
    const char *offsets = at ? strstr(at, "\"data_offsets\"") : NULL;
    unsigned long long begin, stop;
    if (!end || !dtype || dtype > end || !offsets || offsets > end || !strstr(dtype, "\"F32\"") ||
        strstr(dtype, "\"F32\"") > end || sscanf(offsets, "\"data_offsets\" : [ %llu , %llu", &begin, &stop) != 2 ||
        stop < begin || st->data_start + stop > st->file.size)
        return NULL;
    *count = (size_t)(stop - begin) / sizeof(float);
    float *values = malloc(*count * sizeof(float) + 1);
    memcpy(values, st->file.bytes + st->data_start + begin, *count * sizeof(float));
    return values;
}

/* A per-tensor scale is stored as the same value in every row's slot. */
static int single_scale(const qmatrix *m)
{
    size_t count = (size_t)m->rows * (size_t)(m->cols / m->group);
    for (size_t i = 1; i < count; i++)
        if (m->scale[i] != m->scale[0]) return 0;
    return 1;
}

/* Two planes: w ≈ q·s + q2·s2 (in float32, as the engine computes it), where q2·s2 quantizes
 * the first plane's residual: every value must lie within s2/2 of the checkpoint's. */
static double worst_two_plane_steps;  /* over all two-plane matrices, in units of s2 */
static int two_plane_matrices;

static void compare_two_planes(const char *name, const qmatrix *m, const float *w)
{
    const size_t groups = (size_t)(m->cols / m->group);
    int bad = 0;
    double worst_in_steps = 0;
    for (size_t r = 0; r < (size_t)m->rows; r++)
        for (size_t c = 0; c < (size_t)m->cols; c++) {
            const size_t i = r * (size_t)m->cols + c, g = r * groups + c / (size_t)m->group;
            const float value = (float)m->q[i] * m->scale[g] + (float)m->q2[i] * m->scale2[g];
            const double error = fabs((double)value - w[i]), step = m->scale2[g];
            bad += m->q2[i] < -127 || error > 0.5 * step * (1 + 1e-4) + 2e-7 * fabs(w[i]) + 1e-12;
            if (step > 0 && error / step > worst_in_steps) worst_in_steps = error / step;
        }
    check(bad == 0, "%s: q*s + q2*s2 within s2/2 of the checkpoint (%d off, worst %.3f s2)", name, bad,
          worst_in_steps);
    two_plane_matrices++;
    if (worst_in_steps > worst_two_plane_steps) worst_two_plane_steps = worst_in_steps;
}

static void compare_matrix(const safetensors *st, const char *name, const qmatrix *m)
{
    size_t count = 0;
    float *w = safetensors_floats(st, name, &count);
    check(w != NULL && count == (size_t)m->rows * (size_t)m->cols, "%s found as F32 with %dx%d values", name, m->rows, m->cols);
    if (w == NULL || count != (size_t)m->rows * (size_t)m->cols) {
        free(w);
        return;
    }
    if (m->q2 != NULL) {
        compare_two_planes(name, m, w);
        free(w);
        return;
    }
    int bad = 0, not_full = 0;
    double worst = 0;
    for (size_t r = 0; r < (size_t)m->rows; r++) {
        int row_max = 0;
        for (size_t c = 0; c < (size_t)m->cols; c++) {
            size_t i = r * (size_t)m->cols + c;
            float scale = m->scale[r * (size_t)(m->cols / m->group) + c / (size_t)m->group];
            double error = fabs((double)m->q[i] * scale - w[i]);
            worst = error > worst ? error : worst;
            bad += m->q[i] < -127 || error > 0.5 * scale * (1 + 1e-5) + 1e-12;
            row_max = abs(m->q[i]) > row_max ? abs(m->q[i]) : row_max;
        }
        not_full += row_max != 127 && row_max != 0;  /* the row's largest |w| maps to 127 */
    }
    check(bad == 0, "%s: every value within scale/2 of the checkpoint (%d off, max |err| %.3g)", name, bad, worst);
    int per_row = m->group == m->cols && !single_scale(m);
    check(!per_row || not_full == 0, "%s: %d per-row rows without a +-127 entry", name, not_full);
    free(w);
}

static void compare_vector(const safetensors *st, const char *name, const float *v, int length)
{
    size_t count = 0;
    float *w = safetensors_floats(st, name, &count);
    check(w != NULL && count == (size_t)length && memcmp(w, v, count * sizeof(float)) == 0,
          "%s identical to the checkpoint", name);
    free(w);
}

static void compare_layer(const safetensors *st, const bert_layer *l, int i, int hidden, int ffn)
{
    static const char *const matrix_names[] = {"attention.self.query.weight", "attention.self.key.weight",
        "attention.self.value.weight", "attention.output.dense.weight", "intermediate.dense.weight",
        "output.dense.weight"};
    const qmatrix *matrices[] = {&l->query, &l->key, &l->value, &l->attn_out, &l->ffn_in, &l->ffn_out};
    static const char *const vector_names[] = {"attention.self.query.bias", "attention.self.key.bias",
        "attention.self.value.bias", "attention.output.dense.bias", "attention.output.LayerNorm.weight",
        "attention.output.LayerNorm.bias", "intermediate.dense.bias", "output.dense.bias",
        "output.LayerNorm.weight", "output.LayerNorm.bias"};
    const float *vectors[] = {l->query_bias, l->key_bias, l->value_bias, l->attn_out_bias, l->attn_ln_gamma,
        l->attn_ln_beta, l->ffn_in_bias, l->ffn_out_bias, l->ffn_ln_gamma, l->ffn_ln_beta};
    char name[96];
    for (int k = 0; k < 6; k++) {
        snprintf(name, sizeof name, "bert.encoder.layer.%d.%s", i, matrix_names[k]);
        compare_matrix(st, name, matrices[k]);
    }
    for (int k = 0; k < 10; k++) {
        snprintf(name, sizeof name, "bert.encoder.layer.%d.%s", i, vector_names[k]);
        compare_vector(st, name, vectors[k], k == 6 ? ffn : hidden);
    }
}

static void test_matches_checkpoint(const bert_model *m, const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    safetensors st = open_safetensors(path);
    compare_matrix(&st, "bert.embeddings.word_embeddings.weight", &m->word_emb);
    compare_matrix(&st, "bert.embeddings.position_embeddings.weight", &m->pos_emb);
    compare_matrix(&st, "bert.embeddings.token_type_embeddings.weight", &m->type_emb);
    compare_vector(&st, "bert.embeddings.LayerNorm.weight", m->emb_ln_gamma, m->hidden);
    compare_vector(&st, "bert.embeddings.LayerNorm.bias", m->emb_ln_beta, m->hidden);
    for (int i = 0; i < m->layers; i++) compare_layer(&st, &m->layer[i], i, m->hidden, m->ffn);
    compare_matrix(&st, "cls.predictions.transform.dense.weight", &m->mlm_transform);
    compare_vector(&st, "cls.predictions.transform.dense.bias", m->mlm_transform_bias, m->hidden);
    compare_vector(&st, "cls.predictions.transform.LayerNorm.weight", m->mlm_ln_gamma, m->hidden);
    compare_vector(&st, "cls.predictions.transform.LayerNorm.bias", m->mlm_ln_beta, m->hidden);
    compare_vector(&st, "cls.predictions.bias", m->mlm_bias, m->vocab_size);
    free(st.header);
    free(st.file.bytes);

    printf("two-plane matrices: %d compared, worst |q*s + q2*s2 - w| = %.4f s2 (bar: 0.5 s2 + float32 rounding)\n", two_plane_matrices,
           worst_two_plane_steps);
    snprintf(path, sizeof path, "%s/vocab.txt", dir);
    buffer vocab = read_file(path);
    check(vocab.size == m->vocab_bytes && memcmp(vocab.bytes, m->vocab_text, vocab.size) == 0,
          "vocabulary byte-identical to vocab.txt");
    free(vocab.bytes);
}

/* ------------------------------------------------------------------ refusals */

static weights_status load_status(const uint8_t *bytes, size_t size)
{
    bert_model m;
    return weights_load(bytes, size, &m);
}

/* Loads an exact-size copy, so the sanitizer sees any read past `size`. */
static weights_status load_exact_copy(const uint8_t *bytes, size_t size)
{
    buffer b = aligned_copy(bytes, size);
    weights_status s = load_status(b.bytes, b.size);
    free(b.bytes);
    return s;
}

static void test_truncation(const buffer *file)
{
    size_t table_end = (size_t)(get_u64(file->bytes + AT_TABLE_OFFSET) + get_u64(file->bytes + AT_TABLE_BYTES));
    int wrong = 0;
    for (size_t k = 0; k <= table_end; k++) {  /* every cut through the header, vocabulary and table */
        weights_status s = k < 2048 ? load_exact_copy(file->bytes, k) : load_status(file->bytes, k);
        wrong += s != (k < HEADER_SIZE ? WEIGHTS_ERR_TOO_SMALL : WEIGHTS_ERR_TRUNCATED);
    }
    check(wrong == 0, "cut at every byte up to the end of the table: TOO_SMALL / TRUNCATED (%d wrong)", wrong);
    wrong = 0;
    for (size_t k = table_end; k < file->size; k += file->size / 97 + 1)
        wrong += load_exact_copy(file->bytes, k) != WEIGHTS_ERR_TRUNCATED;
    wrong += load_exact_copy(file->bytes, file->size - 1) != WEIGHTS_ERR_TRUNCATED;
    check(wrong == 0, "cuts sampled through the tensor data: TRUNCATED (%d wrong)", wrong);
    check(load_status(NULL, 0) == WEIGHTS_ERR_TOO_SMALL, "NULL, 0: TOO_SMALL");
}

static weights_status expected_for_flip(size_t position)
{
    if (position < 8) return WEIGHTS_ERR_MAGIC;
    if (position < 12) return WEIGHTS_ERR_VERSION;
    if (position >= 16 && position < 24) return WEIGHTS_OK;  /* file size: TRUNCATED or TRAILING */
    return WEIGHTS_ERR_CHECKSUM;
}

static void test_flipped_bytes(buffer *work)
{
    int wrong = 0, tried = 0;
    /* Each flip past the file-size field costs a full CRC pass: sample. */
    for (size_t p = 0; p < work->size; p = p < 24 ? p + 1 : p < HEADER_SIZE ? p + 7 : p + work->size / 41 + 7) {
        work->bytes[p] ^= 0x5a;
        weights_status s = load_status(work->bytes, work->size), want = expected_for_flip(p);
        work->bytes[p] ^= 0x5a;
        tried++;
        if (want == WEIGHTS_OK ? (s != WEIGHTS_ERR_TRUNCATED && s != WEIGHTS_ERR_TRAILING) : s != want) {
            wrong++;
            printf("  flip at %zu: %s\n", p, weights_status_message(s));
        }
    }
    check(wrong == 0, "%d single-byte flips refused with the specific error (%d wrong)", tried, wrong);
    work->bytes[work->size - 1] ^= 1;
    check(load_status(work->bytes, work->size) == WEIGHTS_ERR_CHECKSUM, "last byte flipped: CHECKSUM");
    work->bytes[work->size - 1] ^= 1;
}

/* Applies an edit to a fresh copy, re-checksums it, and expects `want`. */
typedef void edit_fn(uint8_t *bytes);

static void expect_after_edit(const buffer *file, buffer *work, edit_fn *edit, weights_status want, const char *what)
{
    memcpy(work->bytes, file->bytes, file->size);
    edit(work->bytes);
    rechecksum(work->bytes, work->size);
    weights_status s = load_status(work->bytes, work->size);
    check(s == want, "%s: got \"%s\", expected \"%s\"", what, weights_status_message(s), weights_status_message(want));
}

static void heads_3(uint8_t *b) { put_u32(b + AT_HEADS, 3); }
static void heads_5(uint8_t *b) { put_u32(b + AT_HEADS, 5); }
static void layers_5(uint8_t *b) { put_u32(b + AT_LAYERS, 5); }
static void layers_0(uint8_t *b) { put_u32(b + AT_LAYERS, 0); }
static void layers_minus_1(uint8_t *b) { put_u32(b + AT_LAYERS, get_u32(b + AT_LAYERS) - 1); }
static void hidden_0(uint8_t *b) { put_u32(b + AT_HIDDEN, 0); }
static void hidden_plus_4(uint8_t *b) { put_u32(b + AT_HIDDEN, get_u32(b + AT_HIDDEN) + 4); }
static void positions_513(uint8_t *b) { put_u32(b + AT_MAX_POSITIONS, 513); }
static void eps_nan(uint8_t *b) { put_u32(b + AT_LN_EPS, 0x7fc00000u); }
static void eps_negative(uint8_t *b) { put_u32(b + AT_LN_EPS, 0xbf800000u); }
static void version_2(uint8_t *b) { put_u32(b + AT_VERSION, 2); }
static void header_size_256(uint8_t *b) { put_u32(b + AT_HEADER_SIZE, 256); }
static void quant_2(uint8_t *b) { put_u32(b + AT_QUANT, 2); }
static void reserved_set(uint8_t *b) { b[AT_RESERVED + 3] = 1; }
static void vocab_size_minus_1(uint8_t *b) { put_u32(b + AT_VOCAB_SIZE, get_u32(b + AT_VOCAB_SIZE) - 1); }

static uint8_t *vocab_byte(uint8_t *b, const char *what)
{
    uint8_t *text = b + get_u64(b + AT_VOCAB_OFFSET);
    return (uint8_t *)strstr((char *)text, what);  /* the vocab has no NUL; the table after it does */
}

static void vocab_newline_removed(uint8_t *b) { *vocab_byte(b, "\n") = 'x'; }
static void vocab_newline_added(uint8_t *b) { *vocab_byte(b, "]") = '\n'; }
static void vocab_nul(uint8_t *b) { *vocab_byte(b, "]") = '\0'; }
static void vocab_offset_huge(uint8_t *b) { put_u64(b + AT_VOCAB_OFFSET, UINT64_MAX - 7); }

static const char *const QUERY = "bert.encoder.layer.0.attention.self.query.weight";
static const char *const LN = "bert.embeddings.LayerNorm.weight";

static void offset_misaligned(uint8_t *b)
{
    uint8_t *e = entry_named(b, QUERY);
    put_u64(e + E_DATA_OFFSET, get_u64(e + E_DATA_OFFSET) + 1);
}
static void offset_past_end(uint8_t *b) { put_u64(entry_named(b, QUERY) + E_DATA_OFFSET, get_u64(b + AT_FILE_SIZE)); }
static void offset_wraps(uint8_t *b) { put_u64(entry_named(b, QUERY) + E_DATA_OFFSET, UINT64_MAX - 15); }
static void offset_into_header(uint8_t *b) { put_u64(entry_named(b, QUERY) + E_DATA_OFFSET, 0); }
static void scale_offset_wraps(uint8_t *b) { put_u64(entry_named(b, QUERY) + E_SCALE_OFFSET, UINT64_MAX - 15); }
static void data_bytes_huge(uint8_t *b) { put_u64(entry_named(b, QUERY) + E_DATA_BYTES, UINT64_MAX); }
static void group_3(uint8_t *b) { put_u32(entry_named(b, QUERY) + E_GROUP, 3); }
static void group_0(uint8_t *b) { put_u32(entry_named(b, QUERY) + E_GROUP, 0); }
static void rows_plus_1(uint8_t *b) { uint8_t *e = entry_named(b, QUERY); put_u32(e + E_ROWS, get_u32(e + E_ROWS) + 1); }
static void kind_f32(uint8_t *b) { put_u32(entry_named(b, QUERY) + E_KIND, 2); }
static void name_changed(uint8_t *b) { entry_named(b, QUERY)[0] = 'B'; }
static void vector_group_set(uint8_t *b) { put_u32(entry_named(b, LN) + E_GROUP, 1); }
static void scale_nan(uint8_t *b) { put_u32(b + get_u64(entry_named(b, QUERY) + E_SCALE_OFFSET), 0x7fc00000u); }
static void vector_inf(uint8_t *b) { put_u32(b + get_u64(entry_named(b, LN) + E_DATA_OFFSET), 0x7f800000u); }
static void no_edit(uint8_t *b) { (void)b; }

/* The two-plane kind (3): residual values at entry byte 112, their scales at 120. */
static uint8_t *query_residual(uint8_t *b)
{
    uint8_t *e = entry_named(b, QUERY);
    if (get_u32(e + E_KIND) != KIND_INT8_RESIDUAL) {
        fprintf(stderr, "%s is not a two-plane matrix in this file\n", QUERY);
        exit(2);
    }
    return e;
}
static void residual_misaligned(uint8_t *b) { uint8_t *e = query_residual(b); put_u64(e + E_RESIDUAL_OFFSET, get_u64(e + E_RESIDUAL_OFFSET) + 8); }
static void residual_scale_misaligned(uint8_t *b) { uint8_t *e = query_residual(b); put_u64(e + E_RESIDUAL_SCALE_OFFSET, get_u64(e + E_RESIDUAL_SCALE_OFFSET) + 4); }
static void residual_past_end(uint8_t *b) { put_u64(query_residual(b) + E_RESIDUAL_OFFSET, get_u64(b + AT_FILE_SIZE) - 16); }
static void residual_wraps(uint8_t *b) { put_u64(query_residual(b) + E_RESIDUAL_OFFSET, UINT64_MAX - 15); }
static void residual_scale_wraps(uint8_t *b) { put_u64(query_residual(b) + E_RESIDUAL_SCALE_OFFSET, UINT64_MAX - 15); }
static void residual_into_table(uint8_t *b) { put_u64(query_residual(b) + E_RESIDUAL_OFFSET, get_u64(b + AT_TABLE_OFFSET)); }
static void residual_on_first_plane(uint8_t *b) { uint8_t *e = query_residual(b); put_u64(e + E_RESIDUAL_OFFSET, get_u64(e + E_DATA_OFFSET)); }
static void residual_scales_on_scales(uint8_t *b) { uint8_t *e = query_residual(b); put_u64(e + E_RESIDUAL_SCALE_OFFSET, get_u64(e + E_SCALE_OFFSET)); }
static void residual_on_other_tensor(uint8_t *b)
{
    put_u64(query_residual(b) + E_RESIDUAL_OFFSET, get_u64(entry_named(b, "bert.encoder.layer.0.attention.self.key.weight") + E_DATA_OFFSET));
}
static void residual_half_overlaps(uint8_t *b)  /* starts inside the first plane's scales */
{
    uint8_t *e = query_residual(b);
    put_u64(e + E_RESIDUAL_OFFSET, get_u64(e + E_SCALE_OFFSET) + 16);
}
static void residual_scale_nan(uint8_t *b) { put_u32(b + get_u64(query_residual(b) + E_RESIDUAL_SCALE_OFFSET), 0x7fc00000u); }
static void single_plane_with_residual_fields(uint8_t *b) { put_u32(query_residual(b) + E_KIND, KIND_INT8); }
static void vector_as_two_planes(uint8_t *b) { put_u32(entry_named(b, LN) + E_KIND, KIND_INT8_RESIDUAL); }
static void residual_dropped(uint8_t *b)  /* kind 1, residual fields cleared: a valid one-plane matrix */
{
    uint8_t *e = query_residual(b);
    put_u32(e + E_KIND, KIND_INT8);
    put_u64(e + E_RESIDUAL_OFFSET, 0);
    put_u64(e + E_RESIDUAL_SCALE_OFFSET, 0);
}
static void first_planes_overlap(uint8_t *b)  /* two single-plane-sized arrays on the same bytes */
{
    put_u64(entry_named(b, "bert.encoder.layer.0.attention.self.key.weight") + E_DATA_OFFSET,
            get_u64(entry_named(b, QUERY) + E_DATA_OFFSET));
}

static void test_two_plane_edits(const buffer *file, buffer *work)
{
    expect_after_edit(file, work, residual_misaligned, WEIGHTS_ERR_TENSOR, "two planes: residual offset misaligned");
    expect_after_edit(file, work, residual_scale_misaligned, WEIGHTS_ERR_TENSOR, "two planes: residual scale offset misaligned");
    expect_after_edit(file, work, residual_past_end, WEIGHTS_ERR_TENSOR, "two planes: residual runs past the end");
    expect_after_edit(file, work, residual_wraps, WEIGHTS_ERR_TENSOR, "two planes: residual offset wraps around");
    expect_after_edit(file, work, residual_scale_wraps, WEIGHTS_ERR_TENSOR, "two planes: residual scale offset wraps around");
    expect_after_edit(file, work, residual_into_table, WEIGHTS_ERR_TENSOR, "two planes: residual over the tensor table");
    expect_after_edit(file, work, residual_on_first_plane, WEIGHTS_ERR_TENSOR, "two planes: residual on the first plane");
    expect_after_edit(file, work, residual_scales_on_scales, WEIGHTS_ERR_TENSOR, "two planes: residual scales on the first scales");
    expect_after_edit(file, work, residual_on_other_tensor, WEIGHTS_ERR_TENSOR, "two planes: residual on another tensor");
    expect_after_edit(file, work, residual_half_overlaps, WEIGHTS_ERR_TENSOR, "two planes: residual partly over the scales");
    expect_after_edit(file, work, residual_scale_nan, WEIGHTS_ERR_TENSOR, "two planes: NaN residual scale");
    expect_after_edit(file, work, single_plane_with_residual_fields, WEIGHTS_ERR_TENSOR, "kind 1 with residual fields set");
    expect_after_edit(file, work, vector_as_two_planes, WEIGHTS_ERR_TENSOR, "f32 vector marked two-plane");
    expect_after_edit(file, work, first_planes_overlap, WEIGHTS_ERR_TENSOR, "two matrices on the same bytes");
    expect_after_edit(file, work, residual_dropped, WEIGHTS_OK, "two planes turned into one: still valid");
    memcpy(work->bytes, file->bytes, file->size);
}

static void test_edits(const buffer *file, buffer *work)
{
    expect_after_edit(file, work, no_edit, WEIGHTS_OK, "re-checksummed unchanged copy");
    expect_after_edit(file, work, heads_3, WEIGHTS_ERR_SHAPE, "hidden not a multiple of heads");
    expect_after_edit(file, work, heads_5, WEIGHTS_ERR_SHAPE, "5 heads");
    expect_after_edit(file, work, layers_5, WEIGHTS_ERR_SHAPE, "5 layers");
    expect_after_edit(file, work, layers_0, WEIGHTS_ERR_SHAPE, "0 layers");
    expect_after_edit(file, work, hidden_0, WEIGHTS_ERR_SHAPE, "hidden 0");
    expect_after_edit(file, work, positions_513, WEIGHTS_ERR_SHAPE, "513 positions");
    expect_after_edit(file, work, eps_nan, WEIGHTS_ERR_SHAPE, "NaN layer_norm_eps");
    expect_after_edit(file, work, eps_negative, WEIGHTS_ERR_SHAPE, "negative layer_norm_eps");
    expect_after_edit(file, work, layers_minus_1, WEIGHTS_ERR_TENSOR, "one layer fewer than the table holds");
    expect_after_edit(file, work, hidden_plus_4, WEIGHTS_ERR_TENSOR, "hidden disagrees with the tensors");
    expect_after_edit(file, work, version_2, WEIGHTS_ERR_VERSION, "version 2");
    expect_after_edit(file, work, header_size_256, WEIGHTS_ERR_VERSION, "header size 256");
    expect_after_edit(file, work, quant_2, WEIGHTS_ERR_VERSION, "unknown quantization scheme");
    expect_after_edit(file, work, reserved_set, WEIGHTS_ERR_VERSION, "reserved header byte set");
    expect_after_edit(file, work, vocab_size_minus_1, WEIGHTS_ERR_VOCAB, "vocab_size one less than the lines");
    expect_after_edit(file, work, vocab_newline_removed, WEIGHTS_ERR_VOCAB, "vocab one line short");
    expect_after_edit(file, work, vocab_newline_added, WEIGHTS_ERR_VOCAB, "vocab one line more");
    expect_after_edit(file, work, vocab_nul, WEIGHTS_ERR_VOCAB, "NUL inside the vocab");
    expect_after_edit(file, work, vocab_offset_huge, WEIGHTS_ERR_VOCAB, "vocab offset wraps around");
    expect_after_edit(file, work, offset_misaligned, WEIGHTS_ERR_TENSOR, "misaligned tensor offset");
    expect_after_edit(file, work, offset_past_end, WEIGHTS_ERR_TENSOR, "tensor offset at the end of the file");
    expect_after_edit(file, work, offset_wraps, WEIGHTS_ERR_TENSOR, "tensor offset wraps around");
    expect_after_edit(file, work, offset_into_header, WEIGHTS_ERR_TENSOR, "tensor data over the header");
    expect_after_edit(file, work, scale_offset_wraps, WEIGHTS_ERR_TENSOR, "scale offset wraps around");
    expect_after_edit(file, work, data_bytes_huge, WEIGHTS_ERR_TENSOR, "tensor byte count huge");
    expect_after_edit(file, work, group_3, WEIGHTS_ERR_TENSOR, "group does not divide the columns");
    expect_after_edit(file, work, group_0, WEIGHTS_ERR_TENSOR, "group 0");
    expect_after_edit(file, work, rows_plus_1, WEIGHTS_ERR_TENSOR, "rows disagree with the shape");
    expect_after_edit(file, work, kind_f32, WEIGHTS_ERR_TENSOR, "matrix stored as f32");
    expect_after_edit(file, work, name_changed, WEIGHTS_ERR_TENSOR, "unexpected tensor name");
    expect_after_edit(file, work, vector_group_set, WEIGHTS_ERR_TENSOR, "f32 vector with a group");
    expect_after_edit(file, work, scale_nan, WEIGHTS_ERR_TENSOR, "NaN scale");
    expect_after_edit(file, work, vector_inf, WEIGHTS_ERR_TENSOR, "infinite LayerNorm weight");
    memcpy(work->bytes, file->bytes, file->size);
}

static void test_envelope(const buffer *file, buffer *work)
{
    work->bytes[0] = 'X';
    check(load_status(work->bytes, work->size) == WEIGHTS_ERR_MAGIC, "bad magic: MAGIC");
    work->bytes[0] = file->bytes[0];
    version_2(work->bytes);
    check(load_status(work->bytes, work->size) == WEIGHTS_ERR_VERSION, "version 2 without re-checksum: VERSION");
    memcpy(work->bytes, file->bytes, HEADER_SIZE);

    buffer longer = aligned_copy(file->bytes, file->size + 1);
    longer.bytes[file->size] = 0;
    check(load_status(longer.bytes, longer.size) == WEIGHTS_ERR_TRAILING, "one extra byte: TRAILING");
    free(longer.bytes);

    buffer shifted = aligned_buffer(file->size + 16);
    memcpy(shifted.bytes + 1, file->bytes, file->size);
    check(load_status(shifted.bytes + 1, file->size) == WEIGHTS_ERR_ALIGNMENT, "misaligned buffer: ALIGNMENT");
    free(shifted.bytes);
}

static void test_messages(void)
{
    for (int s = WEIGHTS_OK; s <= WEIGHTS_ERR_TRAILING; s++) {
        const char *m = weights_status_message((weights_status)s);
        check(m != NULL && m[0] != '\0' && strchr(m, '\n') == NULL, "status %d has a one-line message", s);
        for (int t = WEIGHTS_OK; t < s; t++)
            check(strcmp(m, weights_status_message((weights_status)t)) != 0, "messages %d and %d differ", t, s);
    }
    check(weights_crc32((const uint8_t *)"123456789", 9) == 0xcbf43926u, "CRC-32 check value");
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s WEIGHTS.bin [CHECKPOINT_DIR]\n", argv[0]);
        return 2;
    }
    buffer file = read_file(argv[1]);
    bert_model model;
    test_messages();
    test_real_file_loads(&file, &model);
    if (argc == 3 && model.layers > 0) test_matches_checkpoint(&model, argv[2]);
    else printf("skipped: comparison with the checkpoint (no CHECKPOINT_DIR given)\n");
    if (file.size > 4096) {
        buffer work = aligned_copy(file.bytes, file.size);
        test_truncation(&file);
        test_envelope(&file, &work);
        test_flipped_bytes(&work);
        test_edits(&file, &work);
        test_two_plane_edits(&file, &work);
        free(work.bytes);
    }
    free(file.bytes);
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
