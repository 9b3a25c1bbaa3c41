/* Native test of the weights loader (c/weights.c) on a real converted file, format version 2.
 *
 *   make build/san/test_weights
 *   build/san/test_weights web/dist/bert-mini.int8.bin [../shared/checkpoints/bert-mini-int8]
 *
 * With a checkpoint directory (F32 model.safetensors + vocab.txt) every tensor is compared
 * with the source floats: a matrix on the checkpoint's per-row int8 grid, stored as int8, must
 * come back exactly (up to the float32 rounding of q·s); any other matrix, int8 or int16,
 * within half a quantization step. Without one that part is skipped. Then every way a file
 * can be wrong is built from the good one and must be refused with its own status.
 * Prints "N passed, M failed". */
#define _POSIX_C_SOURCE 200809L /* posix_memalign */
#include "../../c/spec.h"       /* the layout: header and entry offsets, sizes, kinds */
#include "../../c/weights.h"
#include "test_util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ files and bytes */

static buffer aligned_copy(const uint8_t *bytes, size_t size) {
    buffer b = aligned_buffer(size);
    if (size > 0) memcpy(b.bytes, bytes, size);
    return b;
}

static void put_i16(uint8_t *p, int v) {
    p[0] = (uint8_t)((unsigned)v & 0xffu);
    p[1] = (uint8_t)(((unsigned)v >> 8) & 0xffu);
}

static size_t align16(size_t n) { return (n + 15) / 16 * 16; }

/* ------------------------------------------------------------------ the layout (c/spec.h) */

/* The old format's two-plane kind: no longer in the spec, refused by its own status. */
enum { KIND_TWO_PLANE = 3 };

static const char *const WORD = "bert.embeddings.word_embeddings.weight";
static const char *const TYPE = "bert.embeddings.token_type_embeddings.weight";
static const char *const QUERY = "bert.encoder.layer.0.attention.self.query.weight";
static const char *const KEY = "bert.encoder.layer.0.attention.self.key.weight";
static const char *const LN = "bert.embeddings.LayerNorm.weight";
static const char *const LN_BIAS = "bert.embeddings.LayerNorm.bias";
static const char *const MLM_DENSE = "cls.predictions.transform.dense.weight";

static uint64_t head_bytes_of(const uint8_t *b) { return get_u64(b + HEADER_HEAD_BYTES); }
static uint32_t part_count_of(const uint8_t *b) { return get_u32(b + HEADER_PART_COUNT); }

static uint8_t *part_entry(uint8_t *b, uint32_t i) {
    return b + get_u64(b + HEADER_PARTS_OFFSET) + (uint64_t)i * WEIGHTS_PART_ENTRY_SIZE;
}

static uint8_t *entry_named(uint8_t *bytes, const char *name) {
    uint64_t table = get_u64(bytes + HEADER_TABLE_OFFSET), count = get_u32(bytes + HEADER_TENSOR_COUNT);
    for (uint64_t i = 0; i < count; i++) {
        uint8_t *e = bytes + table + i * WEIGHTS_ENTRY_SIZE;
        if (strncmp((const char *)e, name, WEIGHTS_NAME_SIZE) == 0) return e;
    }
    fprintf(stderr, "no tensor %s in the table\n", name);
    exit(2);
}

/* The head checksum: CRC-32 of the first head_bytes with the field at 12..15 read as zero. */
static void seal_head(uint8_t *b, size_t size) {
    uint64_t head = head_bytes_of(b);
    if (head < WEIGHTS_HEADER_SIZE || head > size) return; /* the loader refuses before the checksum */
    put_u32(b + HEADER_HEAD_CHECKSUM, 0);
    put_u32(b + HEADER_HEAD_CHECKSUM, weights_crc32(b, (size_t)head));
}

/* Every part's CRC recomputed where the part lies inside the file, then the head's. */
static void seal_all(uint8_t *b, size_t size) {
    uint64_t head = head_bytes_of(b), table = get_u64(b + HEADER_PARTS_OFFSET);
    uint32_t count = part_count_of(b);
    if (head >= WEIGHTS_HEADER_SIZE && head <= size && table <= head &&
        (uint64_t)count * WEIGHTS_PART_ENTRY_SIZE <= head - table)
        for (uint32_t i = 0; i < count; i++) {
            uint8_t *e = part_entry(b, i);
            uint64_t offset = get_u64(e), bytes = get_u32(e + PART_BYTES);
            if (offset <= size && bytes <= size - offset)
                put_u32(e + PART_CRC, weights_crc32(b + offset, (size_t)bytes));
        }
    seal_head(b, size);
}

/* ------------------------------------------------------------------ the real file loads */

static int inside(const buffer *file, const void *p, size_t bytes) {
    const uint8_t *u = p;
    return u >= file->bytes && bytes <= file->size && (size_t)(u - file->bytes) <= file->size - bytes;
}

static void check_pointer(const buffer *file, const void *p, size_t bytes, const char *what) {
    check(inside(file, p, bytes) && ((uintptr_t)p & 15) == 0, "%s lies inside the buffer, 16-byte aligned", what);
}

static void check_qmatrix(const buffer *file, const qmatrix *m, int rows, int cols, const char *what) {
    check(m->rows == rows && m->cols == cols, "%s is %dx%d (expected %dx%d)", what, m->rows, m->cols, rows, cols);
    check((m->bits == 8 && m->qmax == 128) || (m->bits == 16 && m->qmax >= 1 && m->qmax <= 32767),
          "%s: %d bits, qmax %d", what, m->bits, m->qmax);
    size_t count = (size_t)rows * (size_t)cols;
    check_pointer(file, m->q, count * (size_t)(m->bits / 8), what);
    check_pointer(file, m->scale, (size_t)rows * sizeof(float), what);
}

static int matrix_count(const bert_model *m) { return 4 + 6 * m->layers; }

/* Every matrix of the model in file order, with its Hugging Face name. */
static const qmatrix *matrix_at(const bert_model *m, int k, char name[96]) {
    static const char *const layer_names[] = {"attention.self.query.weight", "attention.self.key.weight",
                                              "attention.self.value.weight", "attention.output.dense.weight",
                                              "intermediate.dense.weight",   "output.dense.weight"};
    if (k == 0) return strcpy(name, WORD), &m->word_emb;
    if (k == 1) return strcpy(name, "bert.embeddings.position_embeddings.weight"), &m->pos_emb;
    if (k == 2) return strcpy(name, TYPE), &m->type_emb;
    if (k == matrix_count(m) - 1) return strcpy(name, MLM_DENSE), &m->mlm_transform;
    const int layer = (k - 3) / 6, which = (k - 3) % 6;
    snprintf(name, 96, "bert.encoder.layer.%d.%s", layer, layer_names[which]);
    const bert_layer *l = &m->layer[layer];
    const qmatrix *all[] = {&l->query, &l->key, &l->value, &l->attn_out, &l->ffn_in, &l->ffn_out};
    return all[which];
}

static int q_at(const qmatrix *m, size_t i) {
    return m->bits == 8 ? ((const int8_t *)m->q)[i] : ((const int16_t *)m->q)[i];
}

static void test_real_file_loads(const buffer *file, bert_model *m) {
    weights_status s = weights_load(file->bytes, file->size, m);
    check(s == WEIGHTS_OK, "real file loads: %s", weights_status_message(s));
    if (s != WEIGHTS_OK) return;
    printf("shape: vocab %d, hidden %d, layers %d, heads %d, ffn %d, positions %d, types %d, eps %g\n", m->vocab_size,
           m->hidden, m->layers, m->heads, m->ffn, m->max_positions, m->type_vocab, (double)m->ln_eps);
    check(m->layers >= 1 && m->layers <= BERT_MAX_LAYERS && m->hidden % m->heads == 0, "shape in range");
    check_qmatrix(file, &m->word_emb, m->vocab_size, m->hidden, "word_emb");
    check_qmatrix(file, &m->pos_emb, m->max_positions, m->hidden, "pos_emb");
    check_qmatrix(file, &m->type_emb, m->type_vocab, m->hidden, "type_emb");
    check_qmatrix(file, &m->mlm_transform, m->hidden, m->hidden, "mlm_transform");
    for (int i = 0; i < m->layers; i++) {
        const bert_layer *l = &m->layer[i];
        check_qmatrix(file, &l->query, m->hidden, m->hidden, "query");
        check_qmatrix(file, &l->key, m->hidden, m->hidden, "key");
        check_qmatrix(file, &l->value, m->hidden, m->hidden, "value");
        check_qmatrix(file, &l->attn_out, m->hidden, m->hidden, "attn_out");
        check_qmatrix(file, &l->ffn_in, m->ffn, m->hidden, "ffn_in");
        check_qmatrix(file, &l->ffn_out, m->hidden, m->ffn, "ffn_out");
        check_pointer(file, l->ffn_ln_beta, (size_t)m->hidden * sizeof(float), "ffn_ln_beta");
    }
    check_pointer(file, m->mlm_bias, (size_t)m->vocab_size * sizeof(float), "mlm_bias");
    check(m->vocab_bytes > 0 && m->vocab_text[m->vocab_bytes - 1] == '\n', "vocab ends with a newline");

    int bits8 = 0, bits16 = 0;
    for (int k = 0; k < matrix_count(m); k++) {
        char name[96];
        const qmatrix *q = matrix_at(m, k, name);
        bits8 += q->bits == 8;
        bits16 += q->bits == 16;
    }
    printf("matrices: %d int8, %d int16; file %zu bytes, head %llu bytes, %u parts\n", bits8, bits16, file->size,
           (unsigned long long)head_bytes_of(file->bytes), (unsigned)part_count_of(file->bytes));

    const uint64_t card_bytes = get_u32(file->bytes + HEADER_CARD_BYTES);
    check(m->card != NULL && strlen(m->card) + (card_bytes ? 1 : 0) == card_bytes,
          "model card: %llu bytes with its NUL", (unsigned long long)card_bytes);
    if (card_bytes > 1)
        check(m->card[0] == '{' && m->card[strlen(m->card) - 1] == '}' && strstr(m->card, "\"name\"") != NULL,
              "model card is a JSON object with a name: %.80s", m->card);
}

/* Whether [at, at + bytes) lies inside part `index`. */
static int inside_part(uint8_t *b, uint64_t index, uint64_t at, uint64_t bytes) {
    const uint64_t begin = get_u64(part_entry(b, index)), end = begin + get_u32(part_entry(b, index) + PART_BYTES);
    return at >= begin && at + bytes <= end;
}

/* The converter's layout: the head holds the embeddings' arrays but the word-embedding values;
 * part l holds layer l's arrays and nothing else, part `layers` the MLM head, and the next parts
 * cut the word-embedding values at whole rows, about 16 KB each. */
static void test_parts_layout(const buffer *file, const bert_model *m) {
    uint8_t *b = file->bytes;
    const uint64_t head = head_bytes_of(b), count = part_count_of(b);
    const uint64_t layers = (uint64_t)m->layers, row_bytes = (uint64_t)m->hidden * (uint64_t)(m->word_emb.bits / 8);
    const uint64_t word_offset = (uint64_t)((const uint8_t *)m->word_emb.q - b);
    check(count >= layers + 2, "a part per layer, the MLM head's, the rows' (%llu parts)", (unsigned long long)count);
    if (count < layers + 2) return;
    check(get_u64(part_entry(b, 0)) == head, "part 0 starts at the end of the head");
    int misplaced = 0;
    for (int k = 3; k < matrix_count(m) - 1; k++) {
        char name[96];
        const qmatrix *q = matrix_at(m, k, name);
        const uint64_t layer = (uint64_t)(k - 3) / 6,
                       values = (uint64_t)q->rows * (uint64_t)q->cols * (uint64_t)(q->bits / 8);
        misplaced += !inside_part(b, layer, (uint64_t)((const uint8_t *)q->q - b), values) ||
                     !inside_part(b, layer, (uint64_t)((const uint8_t *)q->scale - b), (uint64_t)q->rows * 4);
    }
    for (int l = 0; l < m->layers; l++) {
        const float *vectors[] = {m->layer[l].query_bias, m->layer[l].attn_ln_gamma, m->layer[l].ffn_ln_beta};
        for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++)
            misplaced += !inside_part(b, (uint64_t)l, (uint64_t)((const uint8_t *)vectors[i] - b), 4);
    }
    check(misplaced == 0, "part l holds layer l's matrices, scales and vectors (%d misplaced)", misplaced);
    const uint8_t *const mlm_arrays[] = {m->mlm_transform.q,
                                         (const uint8_t *)m->mlm_transform.scale,
                                         (const uint8_t *)m->mlm_transform_bias,
                                         (const uint8_t *)m->mlm_ln_gamma,
                                         (const uint8_t *)m->mlm_ln_beta,
                                         (const uint8_t *)m->mlm_bias};
    int outside = 0;
    for (size_t i = 0; i < sizeof mlm_arrays / sizeof mlm_arrays[0]; i++)
        outside += !inside_part(b, layers, (uint64_t)(mlm_arrays[i] - b), 4);
    check(outside == 0, "part %llu holds the MLM head", (unsigned long long)layers);
    const uint64_t mlm_end = get_u64(part_entry(b, layers)) + get_u32(part_entry(b, layers) + PART_BYTES);
    check(word_offset == mlm_end, "the word-embedding values follow the MLM part");
    int bad = 0;
    uint64_t covered = 0, largest = 0;
    for (uint64_t i = layers + 1; i < count; i++) {
        const uint64_t offset = get_u64(part_entry(b, i)), bytes = get_u32(part_entry(b, i) + PART_BYTES);
        bad += (offset - word_offset) % row_bytes != 0 || bytes % row_bytes != 0 || offset != word_offset + covered;
        covered += bytes;
        largest = bytes > largest ? bytes : largest;
    }
    check(bad == 0 && covered == (uint64_t)m->vocab_size * row_bytes && word_offset + covered == file->size,
          "word-embedding parts: whole rows, back to back, to the end of the file (%d bad)", bad);
    check(largest <= 16384 + row_bytes, "word-embedding parts of about 16 KB (largest %llu bytes)",
          (unsigned long long)largest);
    int in_head = 1;
    for (int k = 1; k < 3; k++) {
        char name[96];
        const qmatrix *q = matrix_at(m, k, name);
        in_head &= (uint64_t)((const uint8_t *)q->q - b) < head && (uint64_t)((const uint8_t *)q->scale - b) < head;
    }
    in_head &= (uint64_t)((const uint8_t *)m->word_emb.scale - b) < head;
    in_head &= (uint64_t)((const uint8_t *)m->emb_ln_gamma - b) < head &&
               (uint64_t)((const uint8_t *)m->emb_ln_beta - b) < head;
    check(
        in_head,
        "the position and token-type tables, the embeddings' LayerNorm and the word-embedding scales lie in the head");
}

/* ------------------------------------------------------------------ comparing with the checkpoint */

typedef struct {
    buffer file;
    char *header; /* NUL-terminated JSON */
    size_t data_start;
} safetensors;

static safetensors open_safetensors(const char *path) {
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
static float *safetensors_floats(const safetensors *st, const char *name, size_t *count) {
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

/* A row lies on the per-row int8 grid when every value is an integer multiple of
 * max|row|/127, up to float32 rounding. */
static int row_on_int8_grid(const float *w, size_t cols) {
    double amax = 0;
    for (size_t c = 0; c < cols; c++) amax = fabs(w[c]) > amax ? fabs(w[c]) : amax;
    const double step = amax / 127;
    for (size_t c = 0; c < cols; c++)
        if (fabs(w[c] - round(w[c] / step) * step) > amax * 0x1p-20) return 0;
    return 1;
}

typedef struct {
    int exact, int8_rounded, int16_rounded; /* matrices of each kind */
    double worst_exact_ulps, worst_int8_steps, worst_int16_steps;
} comparison;

/* w ≈ float32(q·s): exact for an int8 matrix on the checkpoint's grid, else within s/2. */
static void compare_matrix(const safetensors *st, const char *name, const qmatrix *m, comparison *c) {
    size_t count = 0;
    float *w = safetensors_floats(st, name, &count);
    const size_t rows = (size_t)m->rows, cols = (size_t)m->cols;
    check(w != NULL && count == rows * cols, "%s found as F32 with %zux%zu values", name, rows, cols);
    if (w == NULL || count != rows * cols) {
        free(w);
        return;
    }
    int on_grid = 1;
    for (size_t r = 0; r < rows && on_grid; r++) on_grid = row_on_int8_grid(w + r * cols, cols);
    const int exact = on_grid && m->bits == 8;
    const int qmax = m->bits == 8 ? 127 : m->qmax;
    int bad = 0, rows_not_full = 0;
    double worst = 0;
    for (size_t r = 0; r < rows; r++) {
        const size_t begin = r * cols;
        const float scale = m->scale[r];
        int row_max = 0;
        for (size_t i = begin; i < begin + cols; i++) {
            const int q = q_at(m, i);
            const float value = (float)q * scale; /* what the engine computes with */
            const double error = fabs((double)value - (double)w[i]);
            const double bound =
                exact ? 0x1p-22 * fabs((double)w[i]) : 0.5 * scale * (1 + 1e-6) + 0x1p-24 * fabs((double)w[i]);
            const double measure = exact ? (w[i] != 0 ? error / (0x1p-24 * fabs((double)w[i])) : error) : error / scale;
            bad += abs(q) > qmax || error > bound;
            worst = measure > worst ? measure : worst;
            row_max = abs(q) > row_max ? abs(q) : row_max;
        }
        rows_not_full += row_max != qmax && row_max != 0; /* the row's largest |w| maps to qmax */
    }
    if (exact) {
        check(bad == 0, "%s: on the int8 grid, stored exactly (%d off, worst %.2f half-ulps)", name, bad, worst);
        c->exact++;
        c->worst_exact_ulps = worst > c->worst_exact_ulps ? worst : c->worst_exact_ulps;
    } else {
        check(bad == 0, "%s: int%d within half a step of the checkpoint (%d off, worst %.4f steps)", name, m->bits, bad,
              worst);
        double *slot = m->bits == 8 ? &c->worst_int8_steps : &c->worst_int16_steps;
        *(m->bits == 8 ? &c->int8_rounded : &c->int16_rounded) += 1;
        *slot = worst > *slot ? worst : *slot;
    }
    check(rows_not_full == 0, "%s: %d rows whose largest |q| is not %d", name, rows_not_full, qmax);
    free(w);
}

static void compare_vector(const safetensors *st, const char *name, const float *v, int length) {
    size_t count = 0;
    float *w = safetensors_floats(st, name, &count);
    check(w != NULL && count == (size_t)length && memcmp(w, v, count * sizeof(float)) == 0,
          "%s identical to the checkpoint", name);
    free(w);
}

static void compare_layer_vectors(const safetensors *st, const bert_layer *l, int i, int hidden, int ffn) {
    static const char *const names[] = {"attention.self.query.bias",         "attention.self.key.bias",
                                        "attention.self.value.bias",         "attention.output.dense.bias",
                                        "attention.output.LayerNorm.weight", "attention.output.LayerNorm.bias",
                                        "intermediate.dense.bias",           "output.dense.bias",
                                        "output.LayerNorm.weight",           "output.LayerNorm.bias"};
    const float *vectors[] = {l->query_bias,   l->key_bias,    l->value_bias,   l->attn_out_bias, l->attn_ln_gamma,
                              l->attn_ln_beta, l->ffn_in_bias, l->ffn_out_bias, l->ffn_ln_gamma,  l->ffn_ln_beta};
    char name[96];
    for (int k = 0; k < 10; k++) {
        snprintf(name, sizeof name, "bert.encoder.layer.%d.%s", i, names[k]);
        compare_vector(st, name, vectors[k], k == 6 ? ffn : hidden);
    }
}

static void test_matches_checkpoint(const bert_model *m, const char *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    safetensors st = open_safetensors(path);
    comparison c = {0};
    for (int k = 0; k < matrix_count(m); k++) {
        char name[96];
        const qmatrix *q = matrix_at(m, k, name);
        compare_matrix(&st, name, q, &c);
    }
    compare_vector(&st, LN, m->emb_ln_gamma, m->hidden);
    compare_vector(&st, LN_BIAS, m->emb_ln_beta, m->hidden);
    for (int i = 0; i < m->layers; i++) compare_layer_vectors(&st, &m->layer[i], i, m->hidden, m->ffn);
    compare_vector(&st, "cls.predictions.transform.dense.bias", m->mlm_transform_bias, m->hidden);
    compare_vector(&st, "cls.predictions.transform.LayerNorm.weight", m->mlm_ln_gamma, m->hidden);
    compare_vector(&st, "cls.predictions.transform.LayerNorm.bias", m->mlm_ln_beta, m->hidden);
    compare_vector(&st, "cls.predictions.bias", m->mlm_bias, m->vocab_size);
    free(st.header);
    free(st.file.bytes);
    printf("against %s: %d int8 matrices exact (on the int8 grid; worst |q*s - w| %.2f half-ulps of w, bar 4), "
           "%d int8 within half a step (worst %.4f steps), %d int16 within half a step (worst %.4f steps)\n",
           dir, c.exact, c.worst_exact_ulps, c.int8_rounded, c.worst_int8_steps, c.int16_rounded, c.worst_int16_steps);

    snprintf(path, sizeof path, "%s/vocab.txt", dir);
    buffer vocab = read_file(path);
    check(vocab.size == m->vocab_bytes && memcmp(vocab.bytes, m->vocab_text, vocab.size) == 0,
          "vocabulary byte-identical to vocab.txt");
    free(vocab.bytes);
}

/* ------------------------------------------------------------------ refusals: the envelope */

static weights_status load_status(const uint8_t *bytes, size_t size) {
    bert_model m;
    return weights_load(bytes, size, &m);
}

/* Loads an exact-size copy, so the sanitizer sees any read past `size`. */
static weights_status load_exact_copy(const uint8_t *bytes, size_t size) {
    buffer b = aligned_copy(bytes, size);
    weights_status s = load_status(b.bytes, b.size);
    free(b.bytes);
    return s;
}

static void test_truncation(const buffer *file) {
    const size_t parts_end = (size_t)(get_u64(file->bytes + HEADER_PARTS_OFFSET) +
                                      (uint64_t)part_count_of(file->bytes) * WEIGHTS_PART_ENTRY_SIZE);
    int wrong = 0;
    for (size_t k = 0; k <= parts_end; k++) { /* every cut through header, vocabulary, card and tables */
        weights_status s = k < 2048 ? load_exact_copy(file->bytes, k) : load_status(file->bytes, k);
        wrong += s != (k < WEIGHTS_HEADER_SIZE ? WEIGHTS_ERR_TOO_SMALL : WEIGHTS_ERR_TRUNCATED);
    }
    check(wrong == 0, "cut at every byte up to the end of the part table: TOO_SMALL / TRUNCATED (%d wrong)", wrong);
    wrong = 0;
    for (size_t k = parts_end; k < file->size; k += file->size / 97 + 1)
        wrong += load_exact_copy(file->bytes, k) != WEIGHTS_ERR_TRUNCATED;
    wrong += load_exact_copy(file->bytes, file->size - 1) != WEIGHTS_ERR_TRUNCATED;
    check(wrong == 0, "cuts sampled through the arrays and parts: TRUNCATED (%d wrong)", wrong);
    check(load_status(NULL, 0) == WEIGHTS_ERR_TOO_SMALL, "NULL, 0: TOO_SMALL");

    /* Cut, with file_size rewritten and every checksum recomputed: only the parts can tell. */
    const uint64_t last = get_u64(part_entry(file->bytes, part_count_of(file->bytes) - 1));
    const size_t cuts[] = {file->size - 1, (size_t)last + 8, (size_t)last, (size_t)head_bytes_of(file->bytes) + 16};
    wrong = 0;
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        buffer cut = aligned_copy(file->bytes, cuts[i]);
        put_u64(cut.bytes + HEADER_FILE_SIZE, cuts[i]);
        seal_all(cut.bytes, cut.size);
        weights_status s = load_status(cut.bytes, cut.size);
        if (s != WEIGHTS_ERR_TENSOR) {
            wrong++;
            printf("  cut at %zu with its size in the header: %s\n", cuts[i], weights_status_message(s));
        }
        free(cut.bytes);
    }
    check(wrong == 0, "cut files claiming their own size, re-checksummed: TENSOR (parts past the end) (%d wrong)",
          wrong);
}

/* What a flip of one byte (xor 0x5a) at `position` must give. */
static weights_status expected_for_flip(const buffer *file, size_t position) {
    if (position < 8) return WEIGHTS_ERR_MAGIC;
    if (position < 12) return WEIGHTS_ERR_VERSION;                                          /* 2 ^ 0x5a is not 1 */
    if (position >= HEADER_FILE_SIZE && position < HEADER_FILE_SIZE + 8) return WEIGHTS_OK; /* TRUNCATED or TRAILING */
    if (position >= HEADER_HEAD_BYTES && position < HEADER_HEAD_BYTES + 8) {
        uint8_t field[8];
        memcpy(field, file->bytes + HEADER_HEAD_BYTES, 8);
        field[position - HEADER_HEAD_BYTES] ^= 0x5a;
        const uint64_t head = get_u64(field);
        if (head < WEIGHTS_HEADER_SIZE || head > file->size) return WEIGHTS_ERR_VERSION;
    }
    return WEIGHTS_ERR_CHECKSUM; /* the head's CRC, or for a byte after the head its part's */
}

static void test_flipped_bytes(const buffer *file, buffer *work) {
    int wrong = 0, tried = 0;
    const size_t head = (size_t)head_bytes_of(file->bytes);
    /* Every header byte; then samples, each costing a CRC pass. */
    for (size_t p = 0; p < work->size; p = p < WEIGHTS_HEADER_SIZE ? p + 1
                                           : p < head              ? p + head / 23 + 5
                                                                   : p + work->size / 29 + 7) {
        work->bytes[p] ^= 0x5a;
        weights_status s = load_status(work->bytes, work->size), want = expected_for_flip(file, p);
        work->bytes[p] ^= 0x5a;
        tried++;
        if (want == WEIGHTS_OK ? (s != WEIGHTS_ERR_TRUNCATED && s != WEIGHTS_ERR_TRAILING) : s != want) {
            wrong++;
            printf("  flip at %zu: %s\n", p, weights_status_message(s));
        }
    }
    check(wrong == 0, "%d single-byte flips refused with the specific error (%d wrong)", tried, wrong);
    const size_t positions[] = {head - 1, head, work->size - 1}; /* head's last byte, MLM part, last word part */
    for (size_t i = 0; i < 3; i++) {
        work->bytes[positions[i]] ^= 1;
        check(load_status(work->bytes, work->size) == WEIGHTS_ERR_CHECKSUM, "bit flipped at %zu: CHECKSUM",
              positions[i]);
        work->bytes[positions[i]] ^= 1;
    }
}

static void test_envelope(const buffer *file, buffer *work) {
    work->bytes[0] = 'X';
    check(load_status(work->bytes, work->size) == WEIGHTS_ERR_MAGIC, "bad magic: MAGIC");
    work->bytes[0] = file->bytes[0];

    const uint32_t versions[] = {0, 4, 0x01000000u, 0x02000000u};
    for (int i = 0; i < 4; i++) {
        put_u32(work->bytes + HEADER_VERSION, versions[i]);
        check(load_status(work->bytes, work->size) == WEIGHTS_ERR_VERSION, "version %u: VERSION",
              (unsigned)versions[i]);
        seal_head(work->bytes, work->size);
        check(load_status(work->bytes, work->size) == WEIGHTS_ERR_VERSION, "version %u, re-checksummed: VERSION",
              (unsigned)versions[i]);
        memcpy(work->bytes, file->bytes, WEIGHTS_HEADER_SIZE);
    }
    /* Version 3 says its header is 144 bytes, with the tokenizer's settings: a 128-byte one is refused. */
    put_u32(work->bytes + HEADER_VERSION, 3);
    seal_head(work->bytes, work->size);
    check(load_status(work->bytes, work->size) == WEIGHTS_ERR_VERSION,
          "version 3 with a 128-byte header, re-checksummed: VERSION");
    memcpy(work->bytes, file->bytes, WEIGHTS_HEADER_SIZE);
    seal_head(work->bytes, work->size);

    /* A version-1 file (two int8 planes per matrix): its own status, whatever follows the version. */
    put_u32(work->bytes + HEADER_VERSION, 1);
    weights_status s = load_status(work->bytes, work->size);
    check(s == WEIGHTS_ERR_OLD_FORMAT, "version 1: OLD_FORMAT (got \"%s\")", weights_status_message(s));
    check(WEIGHTS_ERR_OLD_FORMAT == 11, "OLD_FORMAT is status 11");
    check(strstr(weights_status_message(WEIGHTS_ERR_OLD_FORMAT), "version 1") != NULL,
          "the OLD_FORMAT message names format version 1");
    buffer header_only = aligned_copy(work->bytes, WEIGHTS_HEADER_SIZE);
    check(load_status(header_only.bytes, header_only.size) == WEIGHTS_ERR_OLD_FORMAT,
          "a bare version-1 header: OLD_FORMAT");
    free(header_only.bytes);
    memcpy(work->bytes, file->bytes, WEIGHTS_HEADER_SIZE);

    put_u64(work->bytes + HEADER_FILE_SIZE, file->size + 1);
    check(load_status(work->bytes, work->size) == WEIGHTS_ERR_TRUNCATED, "file_size one more: TRUNCATED");
    put_u64(work->bytes + HEADER_FILE_SIZE, file->size - 1);
    check(load_status(work->bytes, work->size) == WEIGHTS_ERR_TRAILING, "file_size one less: TRAILING");
    memcpy(work->bytes, file->bytes, WEIGHTS_HEADER_SIZE);

    work->bytes[HEADER_HEAD_CHECKSUM] ^= 1;
    check(load_status(work->bytes, work->size) == WEIGHTS_ERR_CHECKSUM, "head checksum field changed: CHECKSUM");
    work->bytes[HEADER_HEAD_CHECKSUM] ^= 1;

    buffer longer = aligned_buffer(file->size + 1);
    memcpy(longer.bytes, file->bytes, file->size);
    longer.bytes[file->size] = 0;
    check(load_status(longer.bytes, longer.size) == WEIGHTS_ERR_TRAILING, "one extra byte: TRAILING");
    put_u64(longer.bytes + HEADER_FILE_SIZE, longer.size);
    seal_head(longer.bytes, longer.size);
    check(load_status(longer.bytes, longer.size) == WEIGHTS_ERR_TENSOR,
          "one extra byte counted in file_size, re-checksummed: TENSOR (no part covers it)");
    free(longer.bytes);

    buffer shifted = aligned_buffer(file->size + 16);
    memcpy(shifted.bytes + 1, file->bytes, file->size);
    check(load_status(shifted.bytes + 1, file->size) == WEIGHTS_ERR_ALIGNMENT, "misaligned buffer: ALIGNMENT");
    free(shifted.bytes);
}

/* ------------------------------------------------------------------ refusals: edits */

typedef void edit_fn(uint8_t *bytes);
typedef enum { SEAL_HEAD, SEAL_ALL, SEAL_NONE } sealing;

/* Applies an edit to a fresh copy, recomputes the checksums asked for, and expects `want`. */
static void expect_edit(const buffer *file, buffer *work, edit_fn *edit, sealing seal, weights_status want,
                        const char *what) {
    memcpy(work->bytes, file->bytes, file->size);
    edit(work->bytes);
    if (seal == SEAL_HEAD) seal_head(work->bytes, work->size);
    if (seal == SEAL_ALL) seal_all(work->bytes, work->size);
    weights_status s = load_status(work->bytes, work->size);
    check(s == want, "%s: got \"%s\", expected \"%s\"", what, weights_status_message(s), weights_status_message(want));
}

#define FIELD_EDIT(fn, at, put, value) \
    static void fn(uint8_t *b) { put(b + (at), (value)); }
#define ENTRY_EDIT(fn, tensor, at, put, value) \
    static void fn(uint8_t *b) {               \
        uint8_t *e = entry_named(b, tensor);   \
        (void)e;                               \
        put(e + (at), (value));                \
    }

FIELD_EDIT(header_size_256, HEADER_HEADER_SIZE, put_u32, 256)
FIELD_EDIT(entry_size_64, HEADER_ENTRY_SIZE, put_u32, 64)
FIELD_EDIT(head_bytes_127, HEADER_HEAD_BYTES, put_u64, 127)
FIELD_EDIT(head_bytes_past_end, HEADER_HEAD_BYTES, put_u64, get_u64(b + HEADER_FILE_SIZE) + 1)
FIELD_EDIT(head_bytes_huge, HEADER_HEAD_BYTES, put_u64, UINT64_MAX)
FIELD_EDIT(head_bytes_minus_16, HEADER_HEAD_BYTES, put_u64, get_u64(b + HEADER_HEAD_BYTES) - 16)
FIELD_EDIT(head_bytes_plus_16, HEADER_HEAD_BYTES, put_u64, get_u64(b + HEADER_HEAD_BYTES) + 16)
FIELD_EDIT(heads_3, HEADER_HEADS, put_u32, 3)
FIELD_EDIT(heads_13, HEADER_HEADS, put_u32, 13)
FIELD_EDIT(heads_0, HEADER_HEADS, put_u32, 0)
FIELD_EDIT(layers_13, HEADER_LAYERS, put_u32, 13)
FIELD_EDIT(layers_0, HEADER_LAYERS, put_u32, 0)
FIELD_EDIT(layers_minus_1, HEADER_LAYERS, put_u32, get_u32(b + HEADER_LAYERS) - 1)
FIELD_EDIT(layers_plus_1, HEADER_LAYERS, put_u32, get_u32(b + HEADER_LAYERS) + 1)
FIELD_EDIT(hidden_0, HEADER_HIDDEN, put_u32, 0)
FIELD_EDIT(hidden_1028, HEADER_HIDDEN, put_u32, 1028)
FIELD_EDIT(hidden_plus_4, HEADER_HIDDEN, put_u32, get_u32(b + HEADER_HIDDEN) + 4)
FIELD_EDIT(ffn_0, HEADER_FFN, put_u32, 0)
FIELD_EDIT(ffn_4097, HEADER_FFN, put_u32, 4097)
FIELD_EDIT(ffn_minus_1, HEADER_FFN, put_u32, get_u32(b + HEADER_FFN) - 1)
FIELD_EDIT(positions_513, HEADER_MAX_POSITIONS, put_u32, 513)
FIELD_EDIT(positions_0, HEADER_MAX_POSITIONS, put_u32, 0)
FIELD_EDIT(positions_1, HEADER_MAX_POSITIONS, put_u32, 1)
FIELD_EDIT(positions_2, HEADER_MAX_POSITIONS, put_u32, 2)
FIELD_EDIT(positions_minus_1, HEADER_MAX_POSITIONS, put_u32, get_u32(b + HEADER_MAX_POSITIONS) - 1)
FIELD_EDIT(type_vocab_0, HEADER_TYPE_VOCAB, put_u32, 0)
FIELD_EDIT(type_vocab_17, HEADER_TYPE_VOCAB, put_u32, 17)
FIELD_EDIT(type_vocab_plus_1, HEADER_TYPE_VOCAB, put_u32, get_u32(b + HEADER_TYPE_VOCAB) + 1)
FIELD_EDIT(eps_nan, HEADER_LAYER_NORM_EPS, put_u32, 0x7fc00000u)
FIELD_EDIT(eps_inf, HEADER_LAYER_NORM_EPS, put_u32, 0x7f800000u)
FIELD_EDIT(eps_zero, HEADER_LAYER_NORM_EPS, put_u32, 0)
FIELD_EDIT(eps_negative, HEADER_LAYER_NORM_EPS, put_u32, 0xbf800000u)
FIELD_EDIT(vocab_size_0, HEADER_VOCAB_SIZE, put_u32, 0)
FIELD_EDIT(vocab_size_minus_1, HEADER_VOCAB_SIZE, put_u32, get_u32(b + HEADER_VOCAB_SIZE) - 1)
FIELD_EDIT(vocab_offset_huge, HEADER_VOCAB_OFFSET, put_u64, UINT64_MAX - 7)
FIELD_EDIT(vocab_offset_in_header, HEADER_VOCAB_OFFSET, put_u64, 64)
FIELD_EDIT(vocab_bytes_0, HEADER_VOCAB_BYTES, put_u64, 0)
FIELD_EDIT(vocab_bytes_past_head, HEADER_VOCAB_BYTES, put_u64, get_u64(b + HEADER_HEAD_BYTES))
FIELD_EDIT(tensor_count_plus_1, HEADER_TENSOR_COUNT, put_u32, get_u32(b + HEADER_TENSOR_COUNT) + 1)
FIELD_EDIT(table_bytes_minus_128, HEADER_TABLE_BYTES, put_u64, get_u64(b + HEADER_TABLE_BYTES) - 128)
FIELD_EDIT(table_offset_past_head, HEADER_TABLE_OFFSET, put_u64, get_u64(b + HEADER_HEAD_BYTES) - 64)
FIELD_EDIT(table_offset_wraps, HEADER_TABLE_OFFSET, put_u64, UINT64_MAX - 127)
FIELD_EDIT(table_offset_misplaced, HEADER_TABLE_OFFSET, put_u64, get_u64(b + HEADER_TABLE_OFFSET) + 128)

static uint8_t *vocab_byte(uint8_t *b, const char *what) {
    uint8_t *text = b + get_u64(b + HEADER_VOCAB_OFFSET);
    return (uint8_t *)strstr((char *)text, what); /* the vocab has no NUL; the card or table after it does */
}

static void vocab_newline_removed(uint8_t *b) { *vocab_byte(b, "\n") = 'x'; }
static void vocab_newline_added(uint8_t *b) { *vocab_byte(b, "]") = '\n'; }
static void vocab_nul(uint8_t *b) { *vocab_byte(b, "]") = '\0'; }

static void test_header_edits(const buffer *file, buffer *work) {
    static const struct {
        edit_fn *edit;
        weights_status want;
        const char *what;
    } cases[] = {
        {header_size_256, WEIGHTS_ERR_VERSION, "header_size 256"},
        {entry_size_64, WEIGHTS_ERR_VERSION, "entry_size 64"},
        {head_bytes_127, WEIGHTS_ERR_VERSION, "head_bytes 127"},
        {head_bytes_past_end, WEIGHTS_ERR_VERSION, "head_bytes past the end of the file"},
        {head_bytes_huge, WEIGHTS_ERR_VERSION, "head_bytes 2^64 - 1"},
        {head_bytes_minus_16, WEIGHTS_ERR_TENSOR, "head_bytes 16 short (the first part no longer follows it)"},
        {head_bytes_plus_16, WEIGHTS_ERR_TENSOR, "head_bytes 16 long (into the first part)"},
        {heads_3, WEIGHTS_ERR_SHAPE, "hidden not a multiple of heads"},
        {heads_13, WEIGHTS_ERR_SHAPE, "13 heads"},
        {heads_0, WEIGHTS_ERR_SHAPE, "0 heads"},
        {layers_13, WEIGHTS_ERR_SHAPE, "13 layers"},
        {layers_0, WEIGHTS_ERR_SHAPE, "0 layers"},
        {hidden_0, WEIGHTS_ERR_SHAPE, "hidden 0"},
        {hidden_1028, WEIGHTS_ERR_SHAPE, "hidden 1028"},
        {ffn_0, WEIGHTS_ERR_SHAPE, "ffn 0"},
        {ffn_4097, WEIGHTS_ERR_SHAPE, "ffn 4097"},
        {positions_513, WEIGHTS_ERR_SHAPE, "513 positions"},
        {positions_0, WEIGHTS_ERR_SHAPE, "0 positions"},
        {positions_1, WEIGHTS_ERR_SHAPE, "1 position: no text fits"},
        {positions_2, WEIGHTS_ERR_SHAPE, "2 positions: [CLS] [SEP] and no word"},
        {type_vocab_0, WEIGHTS_ERR_SHAPE, "0 token types"},
        {type_vocab_17, WEIGHTS_ERR_SHAPE, "17 token types"},
        {eps_nan, WEIGHTS_ERR_SHAPE, "NaN layer_norm_eps"},
        {eps_inf, WEIGHTS_ERR_SHAPE, "infinite layer_norm_eps"},
        {eps_zero, WEIGHTS_ERR_SHAPE, "zero layer_norm_eps"},
        {eps_negative, WEIGHTS_ERR_SHAPE, "negative layer_norm_eps"},
        {vocab_size_0, WEIGHTS_ERR_SHAPE, "vocab_size 0"},
        {hidden_plus_4, WEIGHTS_ERR_TENSOR, "hidden disagrees with the tensors"},
        {ffn_minus_1, WEIGHTS_ERR_TENSOR, "ffn disagrees with the tensors"},
        {positions_minus_1, WEIGHTS_ERR_TENSOR, "max_positions disagrees with the tensors"},
        {type_vocab_plus_1, WEIGHTS_ERR_TENSOR, "type_vocab disagrees with the tensors"},
        {vocab_size_minus_1, WEIGHTS_ERR_VOCAB, "vocab_size one less than the lines"},
        {vocab_newline_removed, WEIGHTS_ERR_VOCAB, "vocab one line short"},
        {vocab_newline_added, WEIGHTS_ERR_VOCAB, "vocab one line more"},
        {vocab_nul, WEIGHTS_ERR_VOCAB, "NUL inside the vocab"},
        {vocab_offset_huge, WEIGHTS_ERR_VOCAB, "vocab offset wraps around"},
        {vocab_offset_in_header, WEIGHTS_ERR_VOCAB, "vocab inside the header"},
        {vocab_bytes_0, WEIGHTS_ERR_VOCAB, "vocab_bytes 0"},
        {vocab_bytes_past_head, WEIGHTS_ERR_VOCAB, "vocab runs past the head"},
        {tensor_count_plus_1, WEIGHTS_ERR_TENSOR, "tensor_count one more"},
        {table_bytes_minus_128, WEIGHTS_ERR_TENSOR, "table_bytes one entry short"},
        {table_offset_past_head, WEIGHTS_ERR_TENSOR, "tensor table runs past the head"},
        {table_offset_wraps, WEIGHTS_ERR_TENSOR, "tensor table offset wraps around"},
        {table_offset_misplaced, WEIGHTS_ERR_TENSOR, "tensor table one entry off"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_edit(file, work, cases[i].edit, SEAL_HEAD, cases[i].want, cases[i].what);
    const uint32_t layers = get_u32(file->bytes + HEADER_LAYERS); /* 0 or 13 layers is a shape error */
    expect_edit(file, work, layers_minus_1, SEAL_HEAD, layers > 1 ? WEIGHTS_ERR_TENSOR : WEIGHTS_ERR_SHAPE,
                "one layer fewer than the table holds");
    expect_edit(file, work, layers_plus_1, SEAL_HEAD, layers < BERT_MAX_LAYERS ? WEIGHTS_ERR_TENSOR : WEIGHTS_ERR_SHAPE,
                "one layer more than the table holds");
}

/* ------------------------------------------------------------------ the model card */

static uint8_t *card_of(uint8_t *b) { return b + get_u32(b + HEADER_CARD_OFFSET); }

static void card_without_nul(uint8_t *b) { card_of(b)[get_u32(b + HEADER_CARD_BYTES) - 1] = '}'; }
static void card_nul_inside(uint8_t *b) { card_of(b)[1] = '\0'; }
static void card_one_byte_short(uint8_t *b) { put_u32(b + HEADER_CARD_BYTES, get_u32(b + HEADER_CARD_BYTES) - 1); }
static void card_offset_without_bytes(uint8_t *b) { put_u32(b + HEADER_CARD_BYTES, 0); }
static void card_past_head(uint8_t *b) {
    put_u32(b + HEADER_CARD_OFFSET, (uint32_t)get_u64(b + HEADER_HEAD_BYTES) - 4);
}
static void card_in_header(uint8_t *b) { put_u32(b + HEADER_CARD_OFFSET, 100); }
static void card_removed(uint8_t *b) {
    put_u32(b + HEADER_CARD_BYTES, 0);
    put_u32(b + HEADER_CARD_OFFSET, 0);
}

static void test_card_edits(const buffer *file, buffer *work) {
    if (get_u32(file->bytes + HEADER_CARD_BYTES) < 3) {
        printf("skipped: model card edits (the file has no card)\n");
        return;
    }
    expect_edit(file, work, card_without_nul, SEAL_HEAD, WEIGHTS_ERR_TENSOR, "card without its closing NUL");
    expect_edit(file, work, card_nul_inside, SEAL_HEAD, WEIGHTS_ERR_TENSOR, "card with a NUL inside");
    expect_edit(file, work, card_one_byte_short, SEAL_HEAD, WEIGHTS_ERR_TENSOR,
                "card_bytes one short (no NUL at its end)");
    expect_edit(file, work, card_offset_without_bytes, SEAL_HEAD, WEIGHTS_ERR_TENSOR, "card offset set, card_bytes 0");
    expect_edit(file, work, card_past_head, SEAL_HEAD, WEIGHTS_ERR_TENSOR, "card runs past the head");
    expect_edit(file, work, card_in_header, SEAL_HEAD, WEIGHTS_ERR_TENSOR, "card inside the header");
    expect_edit(file, work, card_removed, SEAL_HEAD, WEIGHTS_OK, "no card (0, 0): valid");
    bert_model m;
    check(weights_load(work->bytes, work->size, &m) == WEIGHTS_OK && m.card != NULL && m.card[0] == '\0',
          "no card: the model's card is \"\"");
}

/* ------------------------------------------------------------------ the part table */

static void part_count_plus_1(uint8_t *b) { put_u32(b + HEADER_PART_COUNT, part_count_of(b) + 1); }
static void part_count_minus_1(uint8_t *b) { put_u32(b + HEADER_PART_COUNT, part_count_of(b) - 1); }
static void part_count_0(uint8_t *b) { put_u32(b + HEADER_PART_COUNT, 0); }
static void part_count_huge(uint8_t *b) { put_u32(b + HEADER_PART_COUNT, UINT32_MAX); }
static void parts_offset_past_head(uint8_t *b) { put_u64(b + HEADER_PARTS_OFFSET, get_u64(b + HEADER_HEAD_BYTES) - 8); }
static void parts_offset_wraps(uint8_t *b) { put_u64(b + HEADER_PARTS_OFFSET, UINT64_MAX - 15); }
static void parts_offset_in_header(uint8_t *b) { put_u64(b + HEADER_PARTS_OFFSET, 64); }
static void first_part_late(uint8_t *b) /* a gap between the head and the first part */
{
    uint8_t *e = part_entry(b, 0);
    put_u64(e, get_u64(e) + 16);
    put_u32(e + PART_BYTES, get_u32(e + PART_BYTES) - 16);
}
static void gap_between_parts(uint8_t *b) {
    uint8_t *e = part_entry(b, 2);
    put_u64(e, get_u64(e) + 16);
    put_u32(e + PART_BYTES, get_u32(e + PART_BYTES) - 16);
}
static void parts_overlap(uint8_t *b) {
    uint8_t *e = part_entry(b, 2);
    put_u64(e, get_u64(e) - 16);
    put_u32(e + PART_BYTES, get_u32(e + PART_BYTES) + 16);
}
static void part_empty(uint8_t *b) /* part 1 of length 0, part 2 takes its bytes */
{
    uint8_t *one = part_entry(b, 1), *two = part_entry(b, 2);
    put_u64(two, get_u64(one));
    put_u32(two + PART_BYTES, get_u32(two + PART_BYTES) + get_u32(one + PART_BYTES));
    put_u32(one + PART_BYTES, 0);
}
static void last_part_past_end(uint8_t *b) {
    uint8_t *e = part_entry(b, part_count_of(b) - 1);
    put_u32(e + PART_BYTES, get_u32(e + PART_BYTES) + 16);
}
static void last_part_short(uint8_t *b) {
    uint8_t *e = part_entry(b, part_count_of(b) - 1);
    put_u32(e + PART_BYTES, get_u32(e + PART_BYTES) - 16);
}
static void part_offset_huge(uint8_t *b) { put_u64(part_entry(b, 1), UINT64_MAX - 15); }
static void parts_swapped(uint8_t *b) /* the table out of file order */
{
    uint8_t t[WEIGHTS_PART_ENTRY_SIZE];
    memcpy(t, part_entry(b, 1), WEIGHTS_PART_ENTRY_SIZE);
    memcpy(part_entry(b, 1), part_entry(b, 2), WEIGHTS_PART_ENTRY_SIZE);
    memcpy(part_entry(b, 2), t, WEIGHTS_PART_ENTRY_SIZE);
}
/* Parts 1 and 2 joined into one (the table one entry shorter): how the tail is cut is free. */
static void parts_joined(uint8_t *b) {
    uint8_t *one = part_entry(b, 1);
    const uint32_t count = part_count_of(b);
    put_u32(one + 8, get_u32(one + PART_BYTES) + get_u32(part_entry(b, 2) + PART_BYTES));
    memmove(part_entry(b, 2), part_entry(b, 3), (size_t)(count - 3) * WEIGHTS_PART_ENTRY_SIZE);
    memset(part_entry(b, count - 1), 0, WEIGHTS_PART_ENTRY_SIZE);
    put_u32(b + HEADER_PART_COUNT, count - 1);
}
static void part_crc_changed(uint8_t *b) { part_entry(b, 1)[12] ^= 1; }
static void mlm_part_byte_flipped(uint8_t *b) {
    b[get_u64(part_entry(b, 0)) + get_u32(part_entry(b, 0) + PART_BYTES) / 2] ^= 0x10;
}
static void word_part_byte_flipped(uint8_t *b) { b[get_u64(part_entry(b, 2)) + 5] ^= 0x01; }
static void last_part_byte_flipped(uint8_t *b) { b[get_u64(b + HEADER_FILE_SIZE) - 1] ^= 0x80; }

static void test_part_edits(const buffer *file, buffer *work) {
    if (part_count_of(file->bytes) < 4) {
        printf("skipped: part table edits (fewer than 4 parts)\n");
        return;
    }
    expect_edit(file, work, mlm_part_byte_flipped, SEAL_NONE, WEIGHTS_ERR_CHECKSUM, "a byte flipped in the MLM part");
    expect_edit(file, work, word_part_byte_flipped, SEAL_NONE, WEIGHTS_ERR_CHECKSUM,
                "a byte flipped in a word-embedding part");
    expect_edit(file, work, last_part_byte_flipped, SEAL_NONE, WEIGHTS_ERR_CHECKSUM,
                "the last byte of the last part flipped");
    expect_edit(file, work, mlm_part_byte_flipped, SEAL_HEAD, WEIGHTS_ERR_CHECKSUM,
                "MLM part flipped, head re-checksummed");
    expect_edit(file, work, part_crc_changed, SEAL_NONE, WEIGHTS_ERR_CHECKSUM, "a part CRC changed (head CRC fails)");
    expect_edit(file, work, part_crc_changed, SEAL_HEAD, WEIGHTS_ERR_CHECKSUM,
                "a part CRC changed, head re-checksummed");
    expect_edit(file, work, part_count_plus_1, SEAL_HEAD, WEIGHTS_ERR_TENSOR, "part_count one more");
    expect_edit(file, work, part_count_minus_1, SEAL_HEAD, WEIGHTS_ERR_TENSOR,
                "part_count one less (the tail uncovered)");
    expect_edit(file, work, part_count_0, SEAL_HEAD, WEIGHTS_ERR_TENSOR, "part_count 0");
    expect_edit(file, work, part_count_huge, SEAL_HEAD, WEIGHTS_ERR_TENSOR, "part_count 2^32 - 1");
    expect_edit(file, work, parts_offset_past_head, SEAL_HEAD, WEIGHTS_ERR_TENSOR, "part table runs past the head");
    expect_edit(file, work, parts_offset_wraps, SEAL_HEAD, WEIGHTS_ERR_TENSOR, "part table offset wraps around");
    expect_edit(file, work, parts_offset_in_header, SEAL_HEAD, WEIGHTS_ERR_TENSOR, "part table inside the header");
    expect_edit(file, work, first_part_late, SEAL_ALL, WEIGHTS_ERR_TENSOR, "gap between the head and the first part");
    expect_edit(file, work, gap_between_parts, SEAL_ALL, WEIGHTS_ERR_TENSOR, "gap between two parts");
    expect_edit(file, work, parts_overlap, SEAL_ALL, WEIGHTS_ERR_TENSOR, "two parts overlap");
    expect_edit(file, work, part_empty, SEAL_ALL, WEIGHTS_ERR_TENSOR, "a part of 0 bytes");
    expect_edit(file, work, last_part_past_end, SEAL_HEAD, WEIGHTS_ERR_TENSOR, "the last part runs past the end");
    expect_edit(file, work, last_part_short, SEAL_ALL, WEIGHTS_ERR_TENSOR, "the last part stops short of the end");
    expect_edit(file, work, part_offset_huge, SEAL_HEAD, WEIGHTS_ERR_TENSOR, "a part offset near 2^64");
    expect_edit(file, work, parts_swapped, SEAL_ALL, WEIGHTS_ERR_TENSOR, "two parts out of order");
    expect_edit(file, work, parts_joined, SEAL_ALL, WEIGHTS_OK, "two parts joined into one, CRC recomputed: valid");
}

/* ------------------------------------------------------------------ the tensor table */

ENTRY_EDIT(offset_misaligned, QUERY, ENTRY_DATA_OFFSET, put_u64, get_u64(e + ENTRY_DATA_OFFSET) + 1)
ENTRY_EDIT(offset_misaligned_8, QUERY, ENTRY_DATA_OFFSET, put_u64, get_u64(e + ENTRY_DATA_OFFSET) + 8)
ENTRY_EDIT(scale_misaligned, QUERY, ENTRY_SCALE_OFFSET, put_u64, get_u64(e + ENTRY_SCALE_OFFSET) + 4)
ENTRY_EDIT(vector_misaligned, LN, ENTRY_DATA_OFFSET, put_u64, get_u64(e + ENTRY_DATA_OFFSET) + 4)
ENTRY_EDIT(offset_past_end, QUERY, ENTRY_DATA_OFFSET, put_u64, get_u64(b + HEADER_FILE_SIZE))
ENTRY_EDIT(offset_wraps, QUERY, ENTRY_DATA_OFFSET, put_u64, UINT64_MAX - 15)
ENTRY_EDIT(offset_into_header, QUERY, ENTRY_DATA_OFFSET, put_u64, 0)
ENTRY_EDIT(scale_offset_wraps, QUERY, ENTRY_SCALE_OFFSET, put_u64, UINT64_MAX - 15)
ENTRY_EDIT(word_past_end, WORD, ENTRY_DATA_OFFSET, put_u64, get_u64(e + ENTRY_DATA_OFFSET) + 16)
ENTRY_EDIT(data_bytes_huge, QUERY, ENTRY_DATA_BYTES, put_u64, UINT64_MAX)
ENTRY_EDIT(data_bytes_minus_1, QUERY, ENTRY_DATA_BYTES, put_u64, get_u64(e + ENTRY_DATA_BYTES) - 1)
ENTRY_EDIT(scale_bytes_minus_4, QUERY, ENTRY_SCALE_BYTES, put_u64, get_u64(e + ENTRY_SCALE_BYTES) - 4)
ENTRY_EDIT(group_3, QUERY, ENTRY_GROUP, put_u32, 3)
ENTRY_EDIT(group_0, QUERY, ENTRY_GROUP, put_u32, 0)
ENTRY_EDIT(group_twice_cols, QUERY, ENTRY_GROUP, put_u32, 2 * get_u32(e + ENTRY_COLS))
ENTRY_EDIT(rows_plus_1, QUERY, ENTRY_ROWS, put_u32, get_u32(e + ENTRY_ROWS) + 1)
ENTRY_EDIT(cols_half, QUERY, ENTRY_COLS, put_u32, get_u32(e + ENTRY_COLS) / 2)
ENTRY_EDIT(kind_f32, QUERY, ENTRY_KIND, put_u32, WEIGHTS_KIND_F32)
ENTRY_EDIT(kind_two_plane, QUERY, ENTRY_KIND, put_u32, KIND_TWO_PLANE)
ENTRY_EDIT(kind_0, QUERY, ENTRY_KIND, put_u32, 0)
ENTRY_EDIT(kind_5, QUERY, ENTRY_KIND, put_u32, 5)
ENTRY_EDIT(vector_as_int8, LN, ENTRY_KIND, put_u32, WEIGHTS_KIND_INT8)
ENTRY_EDIT(vector_as_two_plane, LN, ENTRY_KIND, put_u32, KIND_TWO_PLANE)
ENTRY_EDIT(vector_group_set, LN, ENTRY_GROUP, put_u32, 1)
ENTRY_EDIT(vector_qmax_set, LN, ENTRY_QMAX, put_u32, 127)
ENTRY_EDIT(vector_scale_offset_set, LN, ENTRY_SCALE_OFFSET, put_u64, get_u64(e + ENTRY_DATA_OFFSET))
ENTRY_EDIT(vector_rows_2, LN, ENTRY_ROWS, put_u32, 2)
ENTRY_EDIT(reserved_set, QUERY, ENTRY_RESERVED + 5, put_u32, 1)
ENTRY_EDIT(reserved_last_set, LN, WEIGHTS_ENTRY_SIZE - 4, put_u32, 0x01000000u)
ENTRY_EDIT(name_changed, QUERY, 0, put_u32, get_u32(e) ^ 0x20)
ENTRY_EDIT(name_garbage_after_nul, QUERY, 62, put_i16, 0x4141)
/* A float of a tensor's array (its values, or a matrix's scales) set to `bits`. */
static void set_float(uint8_t *b, const char *name, int field, uint64_t index, uint32_t bits) {
    put_u32(b + get_u64(entry_named(b, name) + field) + 4 * index, bits);
}
static void scale_nan(uint8_t *b) { set_float(b, QUERY, ENTRY_SCALE_OFFSET, 0, 0x7fc00000u); }
static void scale_inf(uint8_t *b) { set_float(b, KEY, ENTRY_SCALE_OFFSET, 1, 0xff800000u); }
static void vector_inf(uint8_t *b) { set_float(b, LN, ENTRY_DATA_OFFSET, 0, 0x7f800000u); }
static void mlm_bias_nan(uint8_t *b) { set_float(b, "cls.predictions.bias", ENTRY_DATA_OFFSET, 2, 0xffc00001u); }

static void entries_swapped(uint8_t *b) /* query and its bias trade places in the table */
{
    uint8_t *q = entry_named(b, QUERY), t[WEIGHTS_ENTRY_SIZE];
    memcpy(t, q, WEIGHTS_ENTRY_SIZE);
    memcpy(q, q + WEIGHTS_ENTRY_SIZE, WEIGHTS_ENTRY_SIZE);
    memcpy(q + WEIGHTS_ENTRY_SIZE, t, WEIGHTS_ENTRY_SIZE);
}

static void qmax_for(uint8_t *b, const char *name, uint32_t qmax) { put_u32(entry_named(b, name) + ENTRY_QMAX, qmax); }
static void int8_qmax_126(uint8_t *b) { qmax_for(b, QUERY, 126); }
static void int8_qmax_128(uint8_t *b) { qmax_for(b, QUERY, 128); }
static void int8_qmax_0(uint8_t *b) { qmax_for(b, QUERY, 0); }

/* Two scales per row of the type embeddings, the second ones in the 8 bytes of padding after
 * their scales: a layout consistent in itself (a file of the former `--group` option) that only
 * the one-scale-per-row rule refuses. */
static void type_scales_per_half_row(uint8_t *b) {
    uint8_t *e = entry_named(b, TYPE);
    put_u32(e + ENTRY_GROUP, get_u32(e + ENTRY_COLS) / 2);
    put_u64(e + ENTRY_SCALE_BYTES, 2 * get_u64(e + ENTRY_SCALE_BYTES));
}

static void test_entry_edits(const buffer *file, buffer *work) {
    static const struct {
        edit_fn *edit;
        const char *what;
    } refused[] = {
        {offset_misaligned, "tensor offset misaligned by 1"},
        {offset_misaligned_8, "tensor offset misaligned by 8"},
        {scale_misaligned, "scale offset misaligned"},
        {vector_misaligned, "f32 vector offset misaligned"},
        {offset_past_end, "tensor offset at the end of the file"},
        {offset_wraps, "tensor offset wraps around"},
        {offset_into_header, "tensor data over the header"},
        {scale_offset_wraps, "scale offset wraps around"},
        {word_past_end, "word embeddings run past the end"},
        {data_bytes_huge, "data_bytes 2^64 - 1"},
        {data_bytes_minus_1, "data_bytes one short"},
        {scale_bytes_minus_4, "scale_bytes one scale short"},
        {group_3, "group does not divide the columns"},
        {group_0, "group 0"},
        {group_twice_cols, "group larger than the row"},
        {type_scales_per_half_row, "two scales per row (one scale per row is the only layout)"},
        {rows_plus_1, "rows disagree with the shape"},
        {cols_half, "cols disagree with the shape"},
        {kind_f32, "matrix marked f32"},
        {kind_two_plane, "matrix marked kind 3 (the two-plane kind is gone)"},
        {kind_0, "kind 0"},
        {kind_5, "kind 5"},
        {vector_as_int8, "f32 vector marked int8"},
        {vector_as_two_plane, "f32 vector marked kind 3"},
        {vector_group_set, "f32 vector with a group"},
        {vector_qmax_set, "f32 vector with qmax 127"},
        {vector_scale_offset_set, "f32 vector with a scale offset"},
        {vector_rows_2, "f32 vector with 2 rows"},
        {reserved_set, "entry bytes 116..127 not zero"},
        {reserved_last_set, "entry byte 127 not zero"},
        {name_changed, "unexpected tensor name"},
        {name_garbage_after_nul, "tensor name with bytes after its NUL"},
        {entries_swapped, "two table entries out of order"},
        {scale_nan, "NaN scale"},
        {scale_inf, "-Inf scale"},
        {vector_inf, "infinite LayerNorm weight"},
        {mlm_bias_nan, "NaN in the MLM bias"},
        {int8_qmax_126, "int8 matrix with qmax 126"},
        {int8_qmax_128, "int8 matrix with qmax 128"},
        {int8_qmax_0, "int8 matrix with qmax 0"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        expect_edit(file, work, refused[i].edit, SEAL_ALL, WEIGHTS_ERR_TENSOR, refused[i].what);
}

/* ------------------------------------------------------------------ overlapping arrays */

static void move_to(uint8_t *b, const char *name, int field, uint64_t offset) {
    put_u64(entry_named(b, name) + field, offset);
}
static uint64_t offset_of(uint8_t *b, const char *name, int field) { return get_u64(entry_named(b, name) + field); }

static void matrices_share_bytes(uint8_t *b) {
    move_to(b, KEY, ENTRY_DATA_OFFSET, offset_of(b, QUERY, ENTRY_DATA_OFFSET));
}
static void scales_share_bytes(uint8_t *b) {
    move_to(b, KEY, ENTRY_SCALE_OFFSET, offset_of(b, QUERY, ENTRY_SCALE_OFFSET));
}
static void data_on_own_scales(uint8_t *b) {
    move_to(b, QUERY, ENTRY_SCALE_OFFSET, offset_of(b, QUERY, ENTRY_DATA_OFFSET));
}
static void data_half_over_next(uint8_t *b) /* starts inside the query's data, ends inside its scales */
{
    move_to(b, KEY, ENTRY_DATA_OFFSET, offset_of(b, QUERY, ENTRY_SCALE_OFFSET) - 16);
}
static void vectors_share_bytes(uint8_t *b) {
    move_to(b, LN_BIAS, ENTRY_DATA_OFFSET, offset_of(b, LN, ENTRY_DATA_OFFSET));
}
static void data_on_vocab(uint8_t *b) { move_to(b, QUERY, ENTRY_DATA_OFFSET, get_u64(b + HEADER_VOCAB_OFFSET)); }
static void data_on_table(uint8_t *b) { move_to(b, TYPE, ENTRY_DATA_OFFSET, get_u64(b + HEADER_TABLE_OFFSET)); }
static void data_on_part_table(uint8_t *b) { move_to(b, TYPE, ENTRY_DATA_OFFSET, get_u64(b + HEADER_PARTS_OFFSET)); }
static void data_on_card(uint8_t *b) { move_to(b, TYPE, ENTRY_DATA_OFFSET, align16(get_u32(b + HEADER_CARD_OFFSET))); }
static void data_on_word_values(uint8_t *b) {
    move_to(b, QUERY, ENTRY_DATA_OFFSET, offset_of(b, WORD, ENTRY_DATA_OFFSET));
}

static void test_overlaps(const buffer *file, buffer *work) {
    static const struct {
        edit_fn *edit;
        const char *what;
    } cases[] = {
        {matrices_share_bytes, "two matrices on the same bytes"},
        {scales_share_bytes, "two matrices' scales on the same bytes"},
        {data_on_own_scales, "a matrix's scales on its own values"},
        {data_half_over_next, "values partly over another matrix's scales"},
        {vectors_share_bytes, "two f32 vectors on the same bytes"},
        {data_on_vocab, "matrix values over the vocabulary"},
        {data_on_table, "matrix values over the tensor table"},
        {data_on_part_table, "matrix values over the part table"},
        {data_on_word_values, "matrix values over the word embeddings"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_edit(file, work, cases[i].edit, SEAL_ALL, WEIGHTS_ERR_TENSOR, cases[i].what);
    if (get_u32(file->bytes + HEADER_CARD_BYTES) > 0)
        expect_edit(file, work, data_on_card, SEAL_ALL, WEIGHTS_ERR_TENSOR, "matrix values over the model card");
}

/* ------------------------------------------------------------------ int16 */

/* A copy of the file whose `name` matrix (int8, in the head) is stored as int16 with the same
 * values and scales: the int16 array is appended to the head, the parts move up. */
static buffer widen_to_int16(const buffer *file, const char *name) {
    const uint8_t *src = file->bytes;
    const uint64_t head = head_bytes_of(src);
    const uint8_t *old_entry = entry_named(file->bytes, name);
    const uint64_t count = get_u64(old_entry + ENTRY_DATA_BYTES), delta = align16((size_t)(2 * count));
    buffer out = aligned_buffer(file->size + (size_t)delta);
    memset(out.bytes, 0, out.size);
    memcpy(out.bytes, src, (size_t)head);
    memcpy(out.bytes + head + delta, src + head, file->size - (size_t)head);
    uint8_t *b = out.bytes;
    const uint64_t table = get_u64(b + HEADER_TABLE_OFFSET), tensors = get_u32(b + HEADER_TENSOR_COUNT);
    for (uint64_t i = 0; i < tensors; i++) {
        uint8_t *e = b + table + i * WEIGHTS_ENTRY_SIZE;
        if (get_u64(e + ENTRY_DATA_OFFSET) >= head)
            put_u64(e + ENTRY_DATA_OFFSET, get_u64(e + ENTRY_DATA_OFFSET) + delta);
        if (get_u64(e + ENTRY_SCALE_BYTES) > 0 && get_u64(e + ENTRY_SCALE_OFFSET) >= head)
            put_u64(e + ENTRY_SCALE_OFFSET, get_u64(e + ENTRY_SCALE_OFFSET) + delta);
    }
    for (uint32_t i = 0; i < part_count_of(b); i++) put_u64(part_entry(b, i), get_u64(part_entry(b, i)) + delta);
    const int8_t *values = (const int8_t *)(src + get_u64(old_entry + ENTRY_DATA_OFFSET));
    int qmax = 1;
    for (uint64_t i = 0; i < count; i++) {
        put_i16(b + head + 2 * i, values[i]);
        qmax = abs(values[i]) > qmax ? abs(values[i]) : qmax;
    }
    uint8_t *e = entry_named(b, name);
    put_u32(e + ENTRY_KIND, WEIGHTS_KIND_INT16);
    put_u64(e + ENTRY_DATA_OFFSET, head);
    put_u64(e + ENTRY_DATA_BYTES, 2 * count);
    put_u32(e + ENTRY_QMAX, (uint32_t)qmax);
    put_u64(b + HEADER_HEAD_BYTES, head + delta);
    put_u64(b + HEADER_FILE_SIZE, out.size);
    seal_head(b, out.size);
    return out;
}

static uint8_t *type_values(uint8_t *b) { return b + offset_of(b, TYPE, ENTRY_DATA_OFFSET); }
static int type_qmax(uint8_t *b) { return (int)get_u32(entry_named(b, TYPE) + ENTRY_QMAX); }

static void int16_over_qmax(uint8_t *b) { put_i16(type_values(b) + 6, type_qmax(b) + 1); }
static void int16_under_minus_qmax(uint8_t *b) { put_i16(type_values(b) + 2, -type_qmax(b) - 1); }
static void int16_at_minus_qmax(uint8_t *b) { put_i16(type_values(b) + 2, -type_qmax(b)); }
static void int16_full_range(uint8_t *b) {
    qmax_for(b, TYPE, 32767);
    put_i16(type_values(b), 32767);
    put_i16(type_values(b) + 2, -32767);
}
static void int16_minus_32768(uint8_t *b) {
    qmax_for(b, TYPE, 32767);
    put_i16(type_values(b) + 4, -32768);
}
static void int16_qmax_lowered(uint8_t *b) { qmax_for(b, TYPE, (uint32_t)type_qmax(b) - 1); }
static void int16_qmax_0(uint8_t *b) { qmax_for(b, TYPE, 0); }
static void int16_qmax_32768(uint8_t *b) { qmax_for(b, TYPE, 32768); }
static void int16_bytes_as_int8(uint8_t *b) {
    uint8_t *e = entry_named(b, TYPE);
    put_u64(e + ENTRY_DATA_BYTES, get_u64(e + ENTRY_DATA_BYTES) / 2);
}
static void int16_marked_int8(uint8_t *b) { put_u32(entry_named(b, TYPE) + ENTRY_KIND, WEIGHTS_KIND_INT8); }
static void int16_marked_two_plane(uint8_t *b) { put_u32(entry_named(b, TYPE) + ENTRY_KIND, KIND_TWO_PLANE); }

static void test_int16(const buffer *file, buffer *work) {
    const int converted_int16 = get_u32(entry_named(file->bytes, TYPE) + ENTRY_KIND) == WEIGHTS_KIND_INT16;
    buffer wide = converted_int16 ? aligned_copy(file->bytes, file->size) : widen_to_int16(file, TYPE);
    bert_model narrow_model, wide_model;
    weights_status s = weights_load(file->bytes, file->size, &narrow_model);
    weights_status w = weights_load(wide.bytes, wide.size, &wide_model);
    const qmatrix *a = &narrow_model.type_emb, *b = &wide_model.type_emb;
    int same = s == WEIGHTS_OK && w == WEIGHTS_OK && b->bits == 16 && a->rows == b->rows && a->cols == b->cols &&
               memcmp(a->scale, b->scale, (size_t)a->rows * sizeof(float)) == 0;
    for (size_t i = 0; same && i < (size_t)a->rows * (size_t)a->cols; i++) same = q_at(a, i) == q_at(b, i);
    check(same, "token-type embeddings rewritten as int16 (same values and scales) load as int16: %s",
          weights_status_message(w));
    if (w != WEIGHTS_OK) {
        free(wide.bytes);
        return;
    }
    buffer scratch = aligned_buffer(wide.size);
    static const struct {
        edit_fn *edit;
        weights_status want;
        const char *what;
    } cases[] = {
        {int16_over_qmax, WEIGHTS_ERR_TENSOR, "int16 value qmax + 1"},
        {int16_under_minus_qmax, WEIGHTS_ERR_TENSOR, "int16 value -(qmax + 1)"},
        {int16_at_minus_qmax, WEIGHTS_OK, "int16 value -qmax: valid"},
        {int16_full_range, WEIGHTS_OK, "int16 qmax 32767 with values +-32767: valid"},
        {int16_minus_32768, WEIGHTS_ERR_TENSOR, "int16 value -32768 with qmax 32767"},
        {int16_qmax_lowered, WEIGHTS_ERR_TENSOR, "int16 qmax below the largest |value|"},
        {int16_qmax_0, WEIGHTS_ERR_TENSOR, "int16 qmax 0"},
        {int16_qmax_32768, WEIGHTS_ERR_TENSOR, "int16 qmax 32768"},
        {int16_bytes_as_int8, WEIGHTS_ERR_TENSOR, "int16 matrix with the int8 byte count"},
        {int16_marked_int8, WEIGHTS_ERR_TENSOR, "int16 values marked int8"},
        {int16_marked_two_plane, WEIGHTS_ERR_TENSOR, "int16 values marked kind 3"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_edit(&wide, &scratch, cases[i].edit, SEAL_HEAD, cases[i].want, cases[i].what);
    free(scratch.bytes);
    free(wide.bytes);

    /* A file converted with int16 matrices: a value beyond qmax in a part, its CRC recomputed. */
    uint8_t *word = entry_named(file->bytes, WORD);
    if (get_u32(word + ENTRY_KIND) != WEIGHTS_KIND_INT16) {
        printf("skipped: int16 word embeddings in a part (this file's are int8)\n");
        return;
    }
    memcpy(work->bytes, file->bytes, file->size);
    uint8_t *e = entry_named(work->bytes, WORD);
    const uint64_t last = get_u64(e + ENTRY_DATA_OFFSET) + get_u64(e + ENTRY_DATA_BYTES) - 2;
    put_i16(work->bytes + last, (int)get_u32(e + ENTRY_QMAX) + 1);
    seal_all(work->bytes, work->size);
    s = load_status(work->bytes, work->size);
    check(s == WEIGHTS_ERR_TENSOR, "int16 word embedding beyond qmax in the last part, CRCs recomputed: %s",
          weights_status_message(s));
    memcpy(work->bytes, file->bytes, file->size);
}

/* ------------------------------------------------------------------ messages */

static void test_messages(void) {
    const int last = WEIGHTS_ERR_OLD_FORMAT > WEIGHTS_ERR_TRAILING ? WEIGHTS_ERR_OLD_FORMAT : WEIGHTS_ERR_TRAILING;
    for (int s = WEIGHTS_OK; s <= last; s++) {
        const char *m = weights_status_message((weights_status)s);
        check(m != NULL && m[0] != '\0' && strchr(m, '\n') == NULL && strcmp(m, "unknown weights status") != 0,
              "status %d has its own one-line message", s);
        for (int t = WEIGHTS_OK; t < s; t++)
            check(strcmp(m, weights_status_message((weights_status)t)) != 0, "messages %d and %d differ", t, s);
    }
    check(weights_crc32((const uint8_t *)"123456789", 9) == 0xcbf43926u, "CRC-32 check value");
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s WEIGHTS.bin [CHECKPOINT_DIR]\n", argv[0]);
        return 2;
    }
    buffer file = read_file(argv[1]);
    bert_model model;
    test_messages();
    if (file.size >= WEIGHTS_HEADER_SIZE && get_u32(file.bytes + HEADER_VERSION) != 2) {
        printf("FAIL: %s is format version %u; this test reads version 2\n", argv[1],
               (unsigned)get_u32(file.bytes + HEADER_VERSION));
        return 1;
    }
    test_real_file_loads(&file, &model);
    if (model.layers > 0) test_parts_layout(&file, &model);
    if (argc == 3 && model.layers > 0) test_matches_checkpoint(&model, argv[2]);
    else printf("skipped: comparison with the checkpoint (no CHECKPOINT_DIR given)\n");
    if (model.layers > 0) {
        buffer work = aligned_copy(file.bytes, file.size);
        test_truncation(&file);
        test_envelope(&file, &work);
        test_flipped_bytes(&file, &work);
        test_header_edits(&file, &work);
        test_card_edits(&file, &work);
        test_part_edits(&file, &work);
        test_entry_edits(&file, &work);
        test_overlaps(&file, &work);
        test_int16(&file, &work);
        free(work.bytes);
    }
    free(file.bytes);
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
