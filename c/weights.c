/* Loading and validating a weights file; the byte layout is in weights/FORMAT.md.
 * Every offset and size from the file is checked with 64-bit arithmetic against the size
 * given, before anything is read through it, so no input can make this read outside the
 * buffer (size_t is 32 bits on wasm32). Tensors are read in place: the host must be
 * little-endian (x86, ARM, wasm). */
#include "weights.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The format's sizes, field offsets (HEADER_*, ENTRY_*, PART_*), kinds, limits and the tensor
 * plan come from spec.h, generated from c/spec.mjs, which the converter reads too. The limits
 * (BERT_MAX_*) are generous for bert-mini-like models, and small enough that every byte count
 * below fits in 32 bits. */
enum {
    HEADER_SIZE = WEIGHTS_HEADER_SIZE,
    ENTRY_SIZE = WEIGHTS_ENTRY_SIZE,
    PART_ENTRY_SIZE = WEIGHTS_PART_ENTRY_SIZE,
    NAME_SIZE = WEIGHTS_NAME_SIZE,
    ALIGN = WEIGHTS_ALIGN,
    CHECKSUM_OFFSET = WEIGHTS_CHECKSUM_OFFSET,
    CHECKSUM_BYTES = 4,
};

static const char MAGIC[] = WEIGHTS_MAGIC;

/* ------------------------------------------------------------------ CRC-32 */

/* The reflected CRC-32 polynomial (IEEE 802.3, zlib, PNG). */
static const uint32_t CRC_POLYNOMIAL = 0xedb88320u;

/* Slicing by 8: CRC_SLICES[k][b] is the CRC of byte b followed by k zero bytes, so eight bytes
 * are folded in with eight table reads instead of eight dependent steps (~6× faster on a
 * 23 MB file, which is checked before every engine start). CRC_SLICES[0] is the byte-at-a-time
 * table. All computed at the first use. */
static uint32_t CRC_SLICES[8][256];
static int crc_slices_ready;

static void build_crc_slices(void) {
    for (uint32_t b = 0; b < 256; b++) {
        uint32_t crc = b;
        for (int bit = 0; bit < 8; bit++) crc = (crc & 1u) ? (crc >> 1) ^ CRC_POLYNOMIAL : crc >> 1;
        CRC_SLICES[0][b] = crc;
    }
    for (int b = 0; b < 256; b++) {
        for (int k = 1; k < 8; k++)
            CRC_SLICES[k][b] = (CRC_SLICES[k - 1][b] >> 8) ^ CRC_SLICES[0][CRC_SLICES[k - 1][b] & 0xffu];
    }
    crc_slices_ready = 1;
}

static uint32_t crc32_update(uint32_t crc, const uint8_t *bytes, size_t size) {
    if (!crc_slices_ready) build_crc_slices();
    size_t i = 0;
    for (; i + 8 <= size; i += 8) {
        const uint8_t *p = bytes + i;
        const uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        crc = CRC_SLICES[7][lo & 0xffu] ^ CRC_SLICES[6][(lo >> 8) & 0xffu] ^ CRC_SLICES[5][(lo >> 16) & 0xffu] ^
              CRC_SLICES[4][lo >> 24] ^ CRC_SLICES[3][p[4]] ^ CRC_SLICES[2][p[5]] ^ CRC_SLICES[1][p[6]] ^
              CRC_SLICES[0][p[7]];
    }
    for (; i < size; i++) crc = (crc >> 8) ^ CRC_SLICES[0][(crc ^ bytes[i]) & 0xffu];
    return crc;
}

uint32_t weights_crc32(const uint8_t *bytes, size_t size) { return ~crc32_update(0xffffffffu, bytes, size); }

/* CRC-32 of the head (the first head_bytes of the file) with the 4-byte checksum field read
 * as zeros. */
static uint32_t head_checksum(const uint8_t *bytes, size_t head_bytes) {
    static const uint8_t zeros[CHECKSUM_BYTES] = {0};
    uint32_t crc = crc32_update(0xffffffffu, bytes, CHECKSUM_OFFSET);
    crc = crc32_update(crc, zeros, CHECKSUM_BYTES);
    crc = crc32_update(crc, bytes + CHECKSUM_OFFSET + CHECKSUM_BYTES, head_bytes - CHECKSUM_OFFSET - CHECKSUM_BYTES);
    return ~crc;
}

/* ------------------------------------------------------------------ reading integers */

static uint32_t read_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t read_u64(const uint8_t *p) { return (uint64_t)read_u32(p) | (uint64_t)read_u32(p + 4) << 32; }

static float read_f32(const uint8_t *p) {
    uint32_t bits = read_u32(p);
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

static int all_zero(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0) return 0;
    return 1;
}

/* ------------------------------------------------------------------ header */

typedef struct {
    uint32_t version, checksum, header_size, tensor_count, entry_size, part_count, card_bytes;
    uint64_t file_size, vocab_offset, vocab_bytes, table_offset, table_bytes, head_bytes, parts_offset;
    uint64_t card_offset;
    uint32_t vocab_size, hidden, layers, heads, ffn, max_positions, type_vocab;
    float ln_eps;
    uint32_t tokenizer_flags; /* version 3; version 2 implies BERT uncased */
    uint8_t subword_prefix[WEIGHTS_SUBWORD_PREFIX_SIZE];
} file_header;

enum { ALL_TOKENIZER_FLAGS = TOKENIZER_FLAG_LOWERCASE | TOKENIZER_FLAG_STRIP_ACCENTS | TOKENIZER_FLAG_CHINESE_CHARS };

/* The header's length in a file of this version (0: a version this engine does not read). */
static uint32_t header_size_of(uint32_t version) {
    if (version == WEIGHTS_UNCASED_FORMAT_VERSION) return HEADER_SIZE;
    return version == WEIGHTS_FORMAT_VERSION ? WEIGHTS_TOKENIZER_HEADER_SIZE : 0;
}

static file_header read_header(const uint8_t *b) {
    file_header h;
    h.version = read_u32(b + HEADER_VERSION);
    h.checksum = read_u32(b + HEADER_HEAD_CHECKSUM);
    h.file_size = read_u64(b + HEADER_FILE_SIZE);
    h.header_size = read_u32(b + HEADER_HEADER_SIZE);
    h.tensor_count = read_u32(b + HEADER_TENSOR_COUNT);
    h.vocab_offset = read_u64(b + HEADER_VOCAB_OFFSET);
    h.vocab_bytes = read_u64(b + HEADER_VOCAB_BYTES);
    h.table_offset = read_u64(b + HEADER_TABLE_OFFSET);
    h.table_bytes = read_u64(b + HEADER_TABLE_BYTES);
    h.vocab_size = read_u32(b + HEADER_VOCAB_SIZE);
    h.hidden = read_u32(b + HEADER_HIDDEN);
    h.layers = read_u32(b + HEADER_LAYERS);
    h.heads = read_u32(b + HEADER_HEADS);
    h.ffn = read_u32(b + HEADER_FFN);
    h.max_positions = read_u32(b + HEADER_MAX_POSITIONS);
    h.type_vocab = read_u32(b + HEADER_TYPE_VOCAB);
    h.ln_eps = read_f32(b + HEADER_LAYER_NORM_EPS);
    h.head_bytes = read_u64(b + HEADER_HEAD_BYTES);
    h.entry_size = read_u32(b + HEADER_ENTRY_SIZE);
    h.part_count = read_u32(b + HEADER_PART_COUNT);
    h.parts_offset = read_u64(b + HEADER_PARTS_OFFSET);
    h.card_bytes = read_u32(b + HEADER_CARD_BYTES);
    h.card_offset = read_u32(b + HEADER_CARD_OFFSET);
    h.tokenizer_flags = ALL_TOKENIZER_FLAGS;
    memset(h.subword_prefix, 0, sizeof h.subword_prefix);
    memcpy(h.subword_prefix, "##", 2);
    return h;
}

/* Version 3's tokenizer settings, read once the buffer is known to hold the longer header. */
static void read_tokenizer_settings(const uint8_t *b, file_header *h) {
    h->tokenizer_flags = read_u32(b + HEADER_TOKENIZER_FLAGS);
    memcpy(h->subword_prefix, b + HEADER_SUBWORD_PREFIX, sizeof h->subword_prefix);
}

/* 1 when the bytes are well-formed UTF-8 (no overlong form, surrogate or value past U+10FFFF). */
static int utf8_valid(const uint8_t *s, size_t length) {
    for (size_t i = 0; i < length;) {
        const uint8_t lead = s[i++];
        if (lead < 0x80) continue;
        size_t more = lead >= 0xC2 && lead <= 0xDF   ? 1
                      : lead >= 0xE0 && lead <= 0xEF ? 2
                      : lead >= 0xF0 && lead <= 0xF4 ? 3
                                                     : 0;
        if (more == 0 || more > length - i) return 0;
        uint8_t low = 0x80, high = 0xBF;
        if (lead == 0xE0) low = 0xA0;
        if (lead == 0xED) high = 0x9F;
        if (lead == 0xF0) low = 0x90;
        if (lead == 0xF4) high = 0x8F;
        for (size_t k = 0; k < more; k++, low = 0x80, high = 0xBF)
            if (s[i + k] < low || s[i + k] > high) return 0;
        i += more;
    }
    return 1;
}

/* Known flag bits only; the prefix UTF-8 without NUL, then NUL padding to the end. */
static weights_status check_tokenizer_settings(const file_header *h) {
    if ((h->tokenizer_flags & ~(uint32_t)ALL_TOKENIZER_FLAGS) != 0) return WEIGHTS_ERR_VERSION;
    size_t length = 0;
    while (length < sizeof h->subword_prefix && h->subword_prefix[length] != 0) length++;
    if (length == sizeof h->subword_prefix || !utf8_valid(h->subword_prefix, length)) return WEIGHTS_ERR_VERSION;
    for (size_t i = length; i < sizeof h->subword_prefix; i++)
        if (h->subword_prefix[i] != 0) return WEIGHTS_ERR_VERSION;
    return WEIGHTS_OK;
}

/* [offset, offset + bytes) inside [start, size), without overflow. */
static int region_inside(uint64_t offset, uint64_t bytes, uint64_t start, uint64_t size) {
    return offset >= start && offset <= size && bytes <= size - offset;
}

/* What must hold before the head's checksum can be computed over its bytes. */
static weights_status check_envelope(const uint8_t *bytes, size_t size, const file_header *h) {
    if (memcmp(bytes + HEADER_MAGIC, MAGIC, sizeof MAGIC - 1) != 0) return WEIGHTS_ERR_MAGIC;
    if (h->version == WEIGHTS_OLD_FORMAT_VERSION) return WEIGHTS_ERR_OLD_FORMAT;
    if (header_size_of(h->version) == 0) return WEIGHTS_ERR_VERSION;
    if (h->file_size > (uint64_t)size) return WEIGHTS_ERR_TRUNCATED;
    if (h->file_size < (uint64_t)size) return WEIGHTS_ERR_TRAILING;
    if (((uintptr_t)bytes & (ALIGN - 1)) != 0) return WEIGHTS_ERR_ALIGNMENT;
    if (h->head_bytes < header_size_of(h->version) || h->head_bytes > h->file_size) return WEIGHTS_ERR_VERSION;
    if (head_checksum(bytes, (size_t)h->head_bytes) != h->checksum) {
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION /* lets a fuzzer reach the checks below */
        return WEIGHTS_ERR_CHECKSUM;
#endif
    }
    return WEIGHTS_OK;
}

/* The parts after the head: a table of part_count entries {u64 offset, u32 bytes, u32 crc}
 * inside the head, the parts back to back from head_bytes to file_size. Each part's CRC is
 * checked when its bytes are there (weights_check_part). */
static weights_status check_parts(const uint8_t *bytes, const file_header *h) {
    const uint64_t table_bytes = (uint64_t)h->part_count * PART_ENTRY_SIZE;
    if (!region_inside(h->parts_offset, table_bytes, HEADER_SIZE, h->head_bytes)) return WEIGHTS_ERR_TENSOR;
    uint64_t expected = h->head_bytes;
    for (uint32_t i = 0; i < h->part_count; i++) {
        const uint8_t *e = bytes + (size_t)(h->parts_offset + (uint64_t)i * PART_ENTRY_SIZE);
        const uint64_t offset = read_u64(e + PART_OFFSET);
        const uint32_t length = read_u32(e + PART_BYTES);
        if (offset != expected || length == 0 || !region_inside(offset, length, h->head_bytes, h->file_size))
            return WEIGHTS_ERR_TENSOR;
        expected = offset + length;
    }
    return expected == h->file_size ? WEIGHTS_OK : WEIGHTS_ERR_TENSOR;
}

static int in_range(uint32_t value, uint32_t low, uint32_t high) { return value >= low && value <= high; }

static weights_status check_layout_fields(const file_header *h) {
    if (h->header_size != header_size_of(h->version) || h->entry_size != ENTRY_SIZE) return WEIGHTS_ERR_VERSION;
    return check_tokenizer_settings(h);
}

static weights_status check_shape(const file_header *h) {
    int ok = in_range(h->vocab_size, 1, BERT_MAX_VOCAB) && in_range(h->hidden, 1, BERT_MAX_HIDDEN) &&
             in_range(h->layers, 1, BERT_MAX_LAYERS) && in_range(h->heads, 1, BERT_MAX_HEADS) &&
             h->hidden % h->heads == 0 && in_range(h->ffn, 1, BERT_MAX_FFN) &&
             in_range(h->max_positions, BERT_MIN_TOKENS, BERT_MAX_TOKENS) &&
             in_range(h->type_vocab, 1, BERT_MAX_TYPE_VOCAB) && isfinite(h->ln_eps) && h->ln_eps > 0.0f;
    return ok ? WEIGHTS_OK : WEIGHTS_ERR_SHAPE;
}

static uint32_t expected_tensor_count(uint32_t layers) {
    return WEIGHTS_EMBEDDING_TENSOR_COUNT + WEIGHTS_LAYER_TENSOR_COUNT * layers + WEIGHTS_MLM_HEAD_TENSOR_COUNT;
}

/* 1 when the table holds the MLM head; 0 for the attention-only table (tensor_count 5 + 16 × layers). */
static int has_mlm_head(const file_header *h) { return h->tensor_count == expected_tensor_count(h->layers); }

static weights_status check_table_region(const file_header *h) {
    if ((h->tensor_count != expected_tensor_count(h->layers) &&
         h->tensor_count != expected_tensor_count(h->layers) - WEIGHTS_MLM_HEAD_TENSOR_COUNT) ||
        h->table_bytes != (uint64_t)h->tensor_count * ENTRY_SIZE ||
        !region_inside(h->table_offset, h->table_bytes, HEADER_SIZE, h->head_bytes))
        return WEIGHTS_ERR_TENSOR;
    return WEIGHTS_OK;
}

/* The model card: card_bytes of UTF-8 JSON ending in one NUL, inside the head; or none (0, 0). */
static weights_status check_card(const uint8_t *bytes, const file_header *h) {
    if (h->card_bytes == 0) return h->card_offset == 0 ? WEIGHTS_OK : WEIGHTS_ERR_TENSOR;
    if (!region_inside(h->card_offset, h->card_bytes, HEADER_SIZE, h->head_bytes)) return WEIGHTS_ERR_TENSOR;
    const uint8_t *card = bytes + (size_t)h->card_offset;
    const size_t n = h->card_bytes;
    return card[n - 1] == '\0' && memchr(card, '\0', n - 1) == NULL ? WEIGHTS_OK : WEIGHTS_ERR_TENSOR;
}

/* ------------------------------------------------------------------ vocabulary */

static weights_status check_vocab(const uint8_t *bytes, const file_header *h) {
    if (h->vocab_bytes == 0 || h->vocab_bytes > UINT32_MAX ||
        !region_inside(h->vocab_offset, h->vocab_bytes, HEADER_SIZE, h->head_bytes))
        return WEIGHTS_ERR_VOCAB;
    const uint8_t *text = bytes + (size_t)h->vocab_offset;
    size_t n = (size_t)h->vocab_bytes;
    if (text[n - 1] != '\n' || memchr(text, '\0', n) != NULL) return WEIGHTS_ERR_VOCAB;
    uint64_t lines = 0;
    for (size_t i = 0; i < n; i++) lines += text[i] == '\n';
    return lines == h->vocab_size ? WEIGHTS_OK : WEIGHTS_ERR_VOCAB;
}

/* ------------------------------------------------------------------ tensor table */

typedef struct {
    const uint8_t *name; /* NAME_SIZE bytes, NUL-padded */
    uint32_t kind, rows, cols, group, qmax;
    uint64_t data_offset, data_bytes, scale_offset, scale_bytes;
    int reserved_zero;
} table_entry;

static table_entry read_entry(const uint8_t *e) {
    table_entry t;
    t.name = e + ENTRY_NAME;
    t.kind = read_u32(e + ENTRY_KIND);
    t.rows = read_u32(e + ENTRY_ROWS);
    t.cols = read_u32(e + ENTRY_COLS);
    t.group = read_u32(e + ENTRY_GROUP);
    t.data_offset = read_u64(e + ENTRY_DATA_OFFSET);
    t.data_bytes = read_u64(e + ENTRY_DATA_BYTES);
    t.scale_offset = read_u64(e + ENTRY_SCALE_OFFSET);
    t.scale_bytes = read_u64(e + ENTRY_SCALE_BYTES);
    t.qmax = read_u32(e + ENTRY_QMAX);
    t.reserved_zero = all_zero(e + ENTRY_RESERVED, ENTRY_SIZE - ENTRY_RESERVED);
    return t;
}

/* Walks the table in file order; the first failure sticks and later takes do nothing. Every
 * accepted range is recorded, so overlaps can be refused once the table is read. */
typedef struct {
    const uint8_t *bytes;
    uint64_t size, table_offset;
    uint32_t count, next;
    weights_status status;
    uint8_t role;  /* weights_role of the arrays taken next */
    uint8_t layer; /* and their layer, for WEIGHTS_ROLE_LAYER */
    weights_layout *layout;
} table_cursor;

static int name_matches(const uint8_t *field, const char *name) {
    size_t n = strlen(name);
    return n < NAME_SIZE && memcmp(field, name, n) == 0 && all_zero(field + n, NAME_SIZE - n);
}

static int array_ok(const table_cursor *t, uint64_t offset, uint64_t bytes) {
    return offset % ALIGN == 0 && region_inside(offset, bytes, HEADER_SIZE, t->size);
}

static int floats_finite(const float *values, uint64_t count) {
    for (uint64_t i = 0; i < count; i++)
        if (!isfinite(values[i])) return 0;
    return 1;
}

/* Every int16 value within ±qmax: the kernels size their exact int32 sums by it. */
static int int16_bounded(const int16_t *values, uint64_t count, int32_t qmax) {
    for (uint64_t i = 0; i < count; i++)
        if (values[i] > qmax || values[i] < -qmax) return 0;
    return 1;
}

/* The next entry if it is named `name`, else NULL with the status set. */
static const uint8_t *next_entry(table_cursor *t, const char *name, table_entry *out) {
    if (t->status != WEIGHTS_OK) return NULL;
    if (t->next >= t->count) {
        t->status = WEIGHTS_ERR_TENSOR;
        return NULL;
    }
    const uint8_t *e = t->bytes + (size_t)(t->table_offset + (uint64_t)t->next * ENTRY_SIZE);
    t->next++;
    *out = read_entry(e);
    if (!name_matches(out->name, name) || !out->reserved_zero) {
        t->status = WEIGHTS_ERR_TENSOR;
        return NULL;
    }
    return e;
}

static int matrix_entry_ok(const table_cursor *t, const table_entry *e, uint32_t rows, uint32_t cols) {
    const int int8 = e->kind == WEIGHTS_KIND_INT8;
    if (!int8 && e->kind != WEIGHTS_KIND_INT16) return 0;
    if (int8 ? e->qmax != WEIGHTS_INT8_QMAX : (e->qmax < 1 || e->qmax > INT16_MAX)) return 0;
    if (e->rows != rows || e->cols != cols) return 0;
    if (e->group != cols) return 0; /* one scale per row: the only layout the kernels read */
    const uint64_t count = (uint64_t)rows * cols, scale_count = rows;
    return e->data_bytes == count * (int8 ? 1 : 2) && e->scale_bytes == scale_count * sizeof(float) &&
           array_ok(t, e->data_offset, e->data_bytes) && array_ok(t, e->scale_offset, e->scale_bytes);
}

/* Empty ranges (no card, no parts) hold no byte and cannot overlap anything. `content` says
 * which values are checked where the array's bytes arrive (weights_check_region). */
static void record_array(table_cursor *t, uint64_t offset, uint64_t bytes, uint8_t content, int32_t qmax) {
    weights_layout *l = t->layout;
    if (bytes > 0 && l->array_count < WEIGHTS_MAX_ARRAYS)
        l->arrays[l->array_count++] = (weights_array){offset, bytes, qmax, content, t->role, t->layer};
}

static int by_offset(const void *a, const void *b) {
    const weights_array *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* No two recorded ranges share a byte (each was checked to lie inside the file). */
static int arrays_disjoint(weights_layout *l) {
    qsort(l->arrays, (size_t)l->array_count, sizeof l->arrays[0], by_offset);
    for (int i = 1; i < l->array_count; i++)
        if (l->arrays[i].offset - l->arrays[i - 1].offset < l->arrays[i - 1].bytes) return 0;
    return 1;
}

static void take_matrix(table_cursor *t, const char *name, uint32_t rows, uint32_t cols, qmatrix *out) {
    table_entry e;
    if (!next_entry(t, name, &e)) return;
    if (!matrix_entry_ok(t, &e, rows, cols)) {
        t->status = WEIGHTS_ERR_TENSOR;
        return;
    }
    out->q = t->bytes + (size_t)e.data_offset;
    out->scale = (const float *)(t->bytes + (size_t)e.scale_offset);
    out->kind = (int)e.kind;
    out->bits = e.kind == WEIGHTS_KIND_INT8 ? 8 : 16;
    out->qmax = e.kind == WEIGHTS_KIND_INT8 ? 128 : (int)e.qmax; /* int8: -128 is not excluded */
    record_array(t, e.data_offset, e.data_bytes,
                 e.kind == WEIGHTS_KIND_INT8 ? WEIGHTS_CONTENT_NONE : WEIGHTS_CONTENT_INT16, (int32_t)e.qmax);
    const uint8_t role = t->role;
    if (role == WEIGHTS_ROLE_WORD_ROWS) t->role = WEIGHTS_ROLE_CORE; /* per-row scales: read with every row */
    record_array(t, e.scale_offset, e.scale_bytes, WEIGHTS_CONTENT_FLOATS, 0);
    t->role = role;
    out->rows = (int)rows;
    out->cols = (int)cols;
}

static void take_vector(table_cursor *t, const char *name, uint32_t length, const float **out) {
    table_entry e;
    if (!next_entry(t, name, &e)) return;
    int ok = e.kind == WEIGHTS_KIND_F32 && e.rows == 1 && e.cols == length && e.group == 0 && e.qmax == 0 &&
             e.scale_offset == 0 && e.scale_bytes == 0 && e.data_bytes == (uint64_t)length * sizeof(float) &&
             array_ok(t, e.data_offset, e.data_bytes);
    if (!ok) {
        t->status = WEIGHTS_ERR_TENSOR;
        return;
    }
    *out = (const float *)(t->bytes + (size_t)e.data_offset);
    record_array(t, e.data_offset, e.data_bytes, WEIGHTS_CONTENT_FLOATS, 0);
}

/* ------------------------------------------------------------------ binding the model */

/* One tensor of the plan (spec.h): its name (a layer's: the part after the layer prefix), kind,
 * the shape its entry must have, what it is needed for, and the bert_model or bert_layer field
 * it binds (a qmatrix for a matrix, a const float * for a vector). */
typedef struct {
    const char *name;
    uint8_t matrix, rows, cols, role;
    size_t field;
} plan_entry;

enum { PLAN_VECTOR, PLAN_MATRIX };
#define PLAN_ENTRY(type, name, kind, rows, cols, field, role) \
    {name, PLAN_##kind, WEIGHTS_DIM_##rows, WEIGHTS_DIM_##cols, WEIGHTS_ROLE_##role, offsetof(type, field)},
#define MODEL_ENTRY(...) PLAN_ENTRY(bert_model, __VA_ARGS__)
#define LAYER_ENTRY(...) PLAN_ENTRY(bert_layer, __VA_ARGS__)

static const plan_entry EMBEDDING_PLAN[] = {WEIGHTS_EMBEDDING_TENSORS(MODEL_ENTRY)};
static const plan_entry LAYER_PLAN[] = {WEIGHTS_LAYER_TENSORS(LAYER_ENTRY)};
static const plan_entry MLM_HEAD_PLAN[] = {WEIGHTS_MLM_HEAD_TENSORS(MODEL_ENTRY)};

static uint32_t dim_of(const file_header *h, uint8_t dim) {
    switch ((enum weights_dim)dim) {
    case WEIGHTS_DIM_ONE: return 1;
    case WEIGHTS_DIM_VOCAB: return h->vocab_size;
    case WEIGHTS_DIM_HIDDEN: return h->hidden;
    case WEIGHTS_DIM_FFN: return h->ffn;
    case WEIGHTS_DIM_MAX_POSITIONS: return h->max_positions;
    case WEIGHTS_DIM_TYPE_VOCAB: return h->type_vocab;
    }
    return 0;
}

/* Takes the next table entries, which must be `plan`'s tensors in order, into the fields of
 * `target` (a bert_model or a bert_layer). `layer` >= 0 names them as that layer's. */
static void take_plan(table_cursor *t, const plan_entry *plan, size_t count, void *target, int layer,
                      const file_header *h) {
    for (size_t i = 0; i < count; i++) {
        const plan_entry *p = &plan[i];
        char name[NAME_SIZE];
        if (layer >= 0) snprintf(name, sizeof name, WEIGHTS_LAYER_PREFIX "%d.%s", layer, p->name);
        else snprintf(name, sizeof name, "%s", p->name);
        void *field = (char *)target + p->field;
        t->role = p->role;
        t->layer = layer >= 0 ? (uint8_t)layer : 0;
        if (p->matrix) take_matrix(t, name, dim_of(h, p->rows), dim_of(h, p->cols), field);
        else take_vector(t, name, dim_of(h, p->cols), field);
    }
}

#define PLAN(array) array, sizeof array / sizeof array[0]

static weights_status bind_tensors(const uint8_t *bytes, const file_header *h, bert_model *m, weights_layout *l) {
    table_cursor t = {
        .bytes = bytes,
        .size = h->file_size,
        .table_offset = h->table_offset,
        .count = h->tensor_count,
        .next = 0,
        .status = WEIGHTS_OK,
        .role = WEIGHTS_ROLE_LAYOUT,
        .layout = l,
    };
    record_array(&t, 0, h->header_size, WEIGHTS_CONTENT_NONE, 0);
    record_array(&t, h->vocab_offset, h->vocab_bytes, WEIGHTS_CONTENT_NONE, 0);
    record_array(&t, h->table_offset, h->table_bytes, WEIGHTS_CONTENT_NONE, 0);
    record_array(&t, h->parts_offset, (uint64_t)h->part_count * PART_ENTRY_SIZE, WEIGHTS_CONTENT_NONE, 0);
    record_array(&t, h->card_offset, h->card_bytes, WEIGHTS_CONTENT_NONE, 0);
    take_plan(&t, PLAN(EMBEDDING_PLAN), m, -1, h);
    for (uint32_t i = 0; i < h->layers; i++) take_plan(&t, PLAN(LAYER_PLAN), &m->layer[i], (int)i, h);
    if (has_mlm_head(h)) take_plan(&t, PLAN(MLM_HEAD_PLAN), m, -1, h);
    if (t.status == WEIGHTS_OK && !arrays_disjoint(l)) t.status = WEIGHTS_ERR_TENSOR;
    return t.status;
}

static void fill_shape(bert_model *m, const uint8_t *bytes, const file_header *h) {
    m->vocab_size = (int)h->vocab_size;
    m->hidden = (int)h->hidden;
    m->layers = (int)h->layers;
    m->heads = (int)h->heads;
    m->ffn = (int)h->ffn;
    m->max_positions = (int)h->max_positions;
    m->type_vocab = (int)h->type_vocab;
    m->ln_eps = h->ln_eps;
    m->vocab_text = (const char *)(bytes + (size_t)h->vocab_offset);
    m->vocab_bytes = (uint32_t)h->vocab_bytes;
    m->card = h->card_bytes ? (const char *)(bytes + (size_t)h->card_offset) : "";
    m->tokenizer_flags = h->tokenizer_flags;
    memcpy(m->subword_prefix, h->subword_prefix, sizeof m->subword_prefix);
}

/* ------------------------------------------------------------------ regions: the head and the parts */

static size_t element_size(uint8_t content) {
    return content == WEIGHTS_CONTENT_FLOATS ? sizeof(float) : content == WEIGHTS_CONTENT_INT16 ? sizeof(int16_t) : 1;
}

weights_part weights_part_at(const weights_layout *l, uint32_t index) {
    const uint8_t *e = l->bytes + (size_t)(l->parts_offset + (uint64_t)index * PART_ENTRY_SIZE);
    return (weights_part){read_u64(e + PART_OFFSET), read_u32(e + PART_BYTES), read_u32(e + PART_CRC)};
}

int64_t weights_part_of_offset(const weights_layout *l, uint64_t offset) {
    if (offset < l->head_bytes || offset >= l->file_size || l->part_count == 0) return -1;
    uint32_t low = 0, high = l->part_count - 1; /* parts are back to back (check_parts) */
    while (low < high) {
        const uint32_t mid = low + (high - low + 1) / 2;
        if (weights_part_at(l, mid).offset <= offset) low = mid;
        else high = mid - 1;
    }
    return low;
}

/* Every place where a region (the head, a part) ends inside an array falls between two of its
 * values, so each region's values can be checked on their own as the region arrives. */
static weights_status check_region_edges(const weights_layout *l) {
    for (int i = 0; i < l->array_count; i++) {
        const weights_array *a = &l->arrays[i];
        const size_t size = element_size(a->content);
        const uint64_t end = a->offset + a->bytes;
        if (size == 1 || end <= l->head_bytes) continue;
        if (a->offset < l->head_bytes && (l->head_bytes - a->offset) % size != 0) return WEIGHTS_ERR_TENSOR;
        int64_t p = weights_part_of_offset(l, a->offset > l->head_bytes ? a->offset : l->head_bytes);
        for (; p >= 0 && (uint32_t)p < l->part_count; p++) {
            const weights_part part = weights_part_at(l, (uint32_t)p);
            const uint64_t part_end = part.offset + part.bytes;
            if (part_end >= end) break;
            if ((part_end - a->offset) % size != 0) return WEIGHTS_ERR_TENSOR;
        }
    }
    return WEIGHTS_OK;
}

/* The values of every array that lie in [from, to): finite floats, int16 within ±qmax. */
static weights_status check_values(const weights_layout *l, uint64_t from, uint64_t to) {
    for (int i = 0; i < l->array_count; i++) {
        const weights_array *a = &l->arrays[i];
        const uint64_t low = a->offset > from ? a->offset : from;
        const uint64_t high = a->offset + a->bytes < to ? a->offset + a->bytes : to;
        if (low >= high || a->content == WEIGHTS_CONTENT_NONE) continue;
        const uint8_t *p = l->bytes + (size_t)low;
        const uint64_t count = (high - low) / element_size(a->content);
        const int ok = a->content == WEIGHTS_CONTENT_FLOATS ? floats_finite((const float *)p, count)
                                                            : int16_bounded((const int16_t *)p, count, a->qmax);
        if (!ok) return WEIGHTS_ERR_TENSOR;
    }
    return WEIGHTS_OK;
}

static weights_status validate_head(const uint8_t *bytes, size_t size, bert_model *model, weights_layout *l) {
    if (bytes == NULL || size < HEADER_SIZE) return WEIGHTS_ERR_TOO_SMALL;
    file_header h = read_header(bytes);
    weights_status s = check_envelope(bytes, size, &h);
    if (s == WEIGHTS_OK && h.version == WEIGHTS_FORMAT_VERSION) read_tokenizer_settings(bytes, &h);
    if (s == WEIGHTS_OK) s = check_layout_fields(&h);
    if (s == WEIGHTS_OK) s = check_shape(&h);
    if (s == WEIGHTS_OK) s = check_vocab(bytes, &h);
    if (s == WEIGHTS_OK) s = check_table_region(&h);
    if (s == WEIGHTS_OK) s = check_card(bytes, &h);
    if (s == WEIGHTS_OK) s = check_parts(bytes, &h);
    if (s != WEIGHTS_OK) return s;
    *l = (weights_layout){.bytes = bytes,
                          .file_size = h.file_size,
                          .head_bytes = h.head_bytes,
                          .parts_offset = h.parts_offset,
                          .part_count = h.part_count};
    s = bind_tensors(bytes, &h, model, l);
    if (s == WEIGHTS_OK) s = check_region_edges(l);
    if (s == WEIGHTS_OK) s = check_values(l, 0, h.head_bytes);
    if (s == WEIGHTS_OK) fill_shape(model, bytes, &h);
    return s;
}

weights_status weights_load_head(const uint8_t *bytes, size_t size, bert_model *model, weights_layout *layout) {
    memset(model, 0, sizeof *model);
    weights_status s = validate_head(bytes, size, model, layout);
    if (s != WEIGHTS_OK) {
        memset(model, 0, sizeof *model);
        memset(layout, 0, sizeof *layout);
    }
    return s;
}

weights_status weights_check_part(const weights_layout *l, uint32_t index) {
    if (index >= l->part_count) return WEIGHTS_ERR_TENSOR;
    const weights_part part = weights_part_at(l, index);
    if (weights_crc32(l->bytes + (size_t)part.offset, part.bytes) != part.crc) {
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION /* lets a fuzzer reach the value checks */
        return WEIGHTS_ERR_CHECKSUM;
#endif
    }
    return check_values(l, part.offset, part.offset + part.bytes);
}

weights_status weights_load(const uint8_t *bytes, size_t size, bert_model *model) {
    weights_layout layout;
    weights_status s = weights_load_head(bytes, size, model, &layout);
    for (uint32_t i = 0; s == WEIGHTS_OK && i < layout.part_count; i++) s = weights_check_part(&layout, i);
    if (s != WEIGHTS_OK) memset(model, 0, sizeof *model);
    return s;
}

const char *weights_status_message(weights_status status) {
    const char *message = (int)status >= 0 && (int)status < WEIGHTS_STATUS_END ? status_message_of((int)status) : NULL;
    return message ? message : UNKNOWN_STATUS_MESSAGE;
}
