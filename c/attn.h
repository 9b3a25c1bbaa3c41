/* The engine's public C API: the same calls are used by the native CLI and tests and are
 * exported from the wasm build (see web/src/engine.mjs for the JavaScript side).
 *
 * An engine holds the model (read in place from the caller's weights bytes) and the
 * tokenizer; a session holds one run's tokens and activations. Several sessions may share
 * one engine. */
#ifndef ATTN_H
#define ATTN_H

#include <stddef.h>
#include <stdint.h>

typedef struct attn_engine attn_engine;
typedef struct attn_session attn_session;

/* The status codes, ATTN_OK and ATTN_ERR_* (1 … 19 are the weights_status codes), and the
 * indices of every positional array below (ATTN_SHAPE_*, ATTN_ROW_STATS_*, ATTN_MASS_*,
 * ATTN_WALKTHROUGH_*, ATTN_COUNTS_*): spec.h, generated from c/spec.mjs. VOCAB: the vocabulary
 * lacks [CLS]/[SEP]/[UNK]/[MASK]/[PAD] or is not UTF-8; ARGUMENT: layer/head/token/position out
 * of range, or no run yet; PAIR: a sentence pair given to a model with a single token type;
 * NO_MLM: attn_session_mlm on a model without a masked-LM head; NOT_LOADED: a run or [MASK]
 * prediction needs a part that has not arrived; NOT_FINITE: the weights make a NaN or an
 * infinity (attention, a layer's output or the masked-word logits): no number of that run is
 * given. */
#include "spec.h"

/* A run stops reading its text once ATTN_COUNT_LIMIT tokens are known, so a huge paste costs
 * a bounded amount of work whatever its length: a full length equal to ATTN_COUNT_LIMIT means
 * "at least that many". attn_engine_tokenize counts up to capacity + ATTN_COUNT_LIMIT. */
enum { ATTN_COUNT_LIMIT = 8192 };

const char *attn_status_message(int status);

/* 16-byte aligned memory for the weights bytes and result buffers (JavaScript side). */
void *attn_alloc(size_t size);
void attn_free(void *pointer);

/* Heap bytes currently allocated (malloc's count: wasm and glibc; 0 where unknown), and the
 * bytes the heap occupies (wasm: linear memory size; native: malloc's arena). A leak shows as
 * in_use not returning to its level after a run is undone. */
size_t attn_memory_in_use(void);
size_t attn_memory_size(void);

/* `bytes` must stay alive and unchanged while the engine lives. */
int attn_engine_create(const uint8_t *bytes, size_t size, attn_engine **out);
void attn_engine_destroy(attn_engine *engine);
/* shape[ATTN_SHAPE_COUNT]: vocab, hidden, layers, heads, ffn, max_positions, type_vocab, head_size */
void attn_engine_shape(const attn_engine *engine, int32_t *shape);
const char *attn_engine_token(const attn_engine *engine, int32_t id);                /* NULL when out of range */
int32_t attn_engine_special_id(const attn_engine *engine, enum special_token which); /* -1 for another value */
/* The model card stored by the converter (JSON text: name, source, training, held-out quality,
 * limits), or "" when the weights file has none. */
const char *attn_engine_card(const attn_engine *engine);
/* 1 when the model has its masked-LM head (attn_session_mlm works); 0 for a file converted from
 * a BertModel checkpoint, which has attention only. */
int attn_engine_has_mlm(const attn_engine *engine);

/* Tokenizes without running the model and without truncation beyond `capacity` tokens.
 * counts[ATTN_COUNTS_COUNT] receives the tokens written and the tokens the whole text gives. */
int attn_engine_tokenize(const attn_engine *engine, const char *text, size_t bytes, int capacity, int32_t *ids,
                         int32_t *starts, int32_t *ends, int32_t *counts);

attn_session *attn_session_create(const attn_engine *engine);
void attn_session_destroy(attn_session *session);

/* Tokenizes UTF-8 text (invalid bytes read as U+FFFD), truncates to max_positions tokens
 * and runs the model. Returns ATTN_OK or an error code. */
int attn_session_run_text(attn_session *session, const char *text, size_t bytes);
/* Runs given ids (1 ≤ n ≤ max_positions, each a vocabulary id); offsets are set to [0, 0]. */
int attn_session_run_ids(attn_session *session, const int32_t *ids, int n);
/* A sentence pair, `[CLS] A [SEP] B [SEP]` as Hugging Face builds it: token type 0 for [CLS], A
 * and its [SEP], 1 for B and the closing [SEP]; each token's offsets are code points of its own
 * segment's text. When the pair passes max_positions tokens both segments are cut, longest
 * first, as the reference cuts them. ATTN_ERR_PAIR when the model has a single token type. */
int attn_session_run_pair(attn_session *session, const char *a, size_t a_bytes, const char *b, size_t b_bytes);
/* Runs given ids with their token types (each 0 … type_vocab − 1; NULL: 0 everywhere). */
int attn_session_run_typed_ids(attn_session *session, const int32_t *ids, const int32_t *type_ids, int n);

/* A run in steps, for a page that must answer keystrokes while a long text runs: begin_text
 * tokenizes and embeds, as run_text does, and computes no layer; each
 * attn_session_step then computes the next piece (a block of tokens of a layer's projections or
 * of its output and FFN, or one head's attention: about 2^24 multiply-adds), ATTN_OK, until
 * attn_session_layers_done gives the model's layer count. A layer is readable (row stats,
 * analyses, hidden states) once it is done; before that those calls answer ATTN_ERR_NOT_LOADED.
 * step answers ATTN_ERR_NOT_LOADED, and does nothing, while the next layer's weights have not
 * arrived (an engine read in parts): the run goes on once they have. Any other failure empties
 * the session. The numbers are those of a run made whole, bit for bit; a run_* call is a begin
 * and every step at once (it answers NOT_LOADED and keeps the layers done when it stops at a
 * layer whose weights are missing). Beginning another run abandons the one under way. */
int attn_session_begin_text(attn_session *session, const char *text, size_t bytes);
int attn_session_step(attn_session *session);
/* Layers of the current run computed, 0 … layers (0 without a run). */
int attn_session_layers_done(const attn_session *session);

int attn_session_length(const attn_session *session);    /* n of the last run, 0 before */
int attn_session_truncated(const attn_session *session); /* 1 when the text gave more than n */
/* Tokens the whole text gives, counted up to ATTN_COUNT_LIMIT (which then means "at least"). */
int attn_session_full_length(const attn_session *session);
const int32_t *attn_session_ids(const attn_session *session);
const int32_t *attn_session_starts(const attn_session *session); /* code-point offsets */
const int32_t *attn_session_ends(const attn_session *session);
const int32_t *attn_session_type_ids(const attn_session *session); /* [n] token types */
/* The segment a token belongs to (its token type: 0 first, 1 second), -1 when out of range. */
int attn_session_segment(const attn_session *session, int token);
/* Texts the last run read: 1 (run_text), 2 (run_pair), 0 (id runs, before a run, failed run). */
int attn_session_segment_count(const attn_session *session);

/* [layers][heads][n][n] softmax probabilities, row-major; valid until the next run (the layers
 * done: attn_session_layers_done). */
const float *attn_session_attention(const attn_session *session);
/* [n][hidden] input of `layer` (0 = embedding output, layers = final hidden state); NULL until
 * the layers below it are done. */
const float *attn_session_hidden(const attn_session *session, int layer);

/* out[ATTN_ROW_STATS_COUNT] = sum, max, argmax, ratio to uniform (max·n), entropy (nats), effective
 * tokens, normalised entropy */
int attn_session_row_stats(const attn_session *session, int layer, int head, int row, double *out);
int attn_session_rollout(const attn_session *session, int last_layer, float *out /* [n][n] */);
/* Role bit mask (spec.h enum head_role), or a negative status; mass[ATTN_MASS_COUNT]: mean mass
 * on words, [CLS], [SEP], punctuation (may be NULL). */
int attn_session_head_roles(const attn_session *session, int layer, int head, float *mass);
int attn_session_contributions(const attn_session *session, int layer, int head, int row, float *out);
/* The row recomputed from the same q·k scores, divided by sqrt(d) or not (the what-if), into
 * out[n], and its statistics as attn_session_row_stats gives them into stats (may be NULL). */
int attn_session_row_scaled(const attn_session *session, int layer, int head, int row, int divide_by_sqrt_d, float *out,
                            double *stats);
int attn_session_walkthrough(const attn_session *session, int layer, int token,
                             float *out /* [ATTN_WALKTHROUGH_COUNT][hidden] */);
/* The k most probable ids at a position (usually a [MASK]) and their probabilities;
 * ATTN_ERR_NO_MLM when the model has no masked-LM head. */
int attn_session_mlm(const attn_session *session, int position, int k, int32_t *ids, float *probs);

/* ---- removing heads (ablation) and head importance
 *
 * removed[layers × heads] (layer-major; nonzero: removed; NULL: none): each removed head's
 * context vectors are zeroed before its layer's output projection W_O; its own attention and
 * everything else of the layer are computed as before. The set holds for every following run of
 * the session, and when the session holds a run it is run again at once, from the lowest layer
 * whose set changed (the layers below it are unchanged). A run with no head removed is
 * bit-identical to one before any call. Returns ATTN_OK, or a run's error (the session is then
 * empty, as after any failed run). */
int attn_session_set_ablation(attn_session *session, const uint8_t *removed);
/* Heads the session's runs remove (0 … layers × heads). */
int attn_session_removed_count(const attn_session *session);

/* Head importance for the last run. The targets are every [MASK] of it, the answer being the
 * token the run (as it is) ranks first there; or, when it has no [MASK], every token but [CLS]
 * and [SEP], each replaced by [MASK] in turn, the answer being the token that was there.
 * Writes the target positions to positions[n] and returns their count, or −status
 * (−ATTN_ERR_NO_MLM for a model without the masked-word head). *masked_in_turn: 1 for the second
 * kind of targets (may be NULL). */
int attn_session_importance_targets(const attn_session *session, int32_t *positions, int32_t *masked_in_turn);
/* For target `target` (an index into those positions) and the layer `layer`: what removing each
 * of the layer's heads alone (entries 0 … heads − 1), and the whole layer (entry heads), on top
 * of the session's removed heads, does to the answer. answer[2] = the answer id and the top-1 id
 * without the extra removal, *log_prob = its log-probability of the answer (nats); per entry:
 * delta[heads + 1] = log p(answer) with the removal − without it (nats), top1[heads + 1] = the most
 * probable id with the removal. Runs only the layers from `layer` up, from the stored input of
 * `layer` (with the target masked, that run is made once per target and kept). */
int attn_session_importance(attn_session *session, int target, int layer, int32_t *answer, float *log_prob,
                            float *delta, int32_t *top1);

/* Head importance for the word at `position` (any token but [CLS] and [SEP]), every layer in one
 * call: the run starts from the session's run when a [MASK] stands there, else from the run with
 * that token replaced by [MASK] (kept for the next call at the same position). The answer is
 * `answer_id` when it is a vocabulary id (the word the reader says belongs there), or with −1 the
 * run's top-1 at a [MASK] of the text, else the token that was there. answer[2], *log_prob as
 * attn_session_importance; delta and top1 hold layers × (heads + 1) entries, layer-major, each
 * layer's heads alone then the whole layer. Each removal runs from its layer's stored head
 * outputs (its W_O on), the last layer computes the one row read, and the masked-word head reads
 * every removal's row in one product. ATTN_ERR_ARGUMENT for a position or id out of range. */
int attn_session_importance_word(attn_session *session, int position, int32_t answer_id, int32_t *answer,
                                 float *log_prob, float *delta, int32_t *top1);

/* Head importance of targets first … first + count − 1 (indices into the positions of
 * attn_session_importance_targets) as one batch: copies of the run, each with its target masked
 * as attn_session_importance does, run side by side with the attention kept within each copy
 * (count × n ≤ the model's positions), so the products run at the efficiency of count × n tokens.
 * For the removal `entry` of `layer` (a head of it alone, or heads: the whole layer), per copy c:
 * answer[2c], answer[2c + 1], log_prob[c], delta[c] and top1[c] as attn_session_importance gives
 * them for that target, bit for bit. The copies' run is made at a batch's first call and kept for
 * the next calls with the same first and count; layer −1 makes it alone (a step of its own for a
 * page) and writes only answer and log_prob. A removal the session's set holds already (the
 * head, or every head of the layer) is the copies' run itself: Δ 0 and its top-1, with no run. */
int attn_session_importance_batch(attn_session *session, int first, int count, int layer, int entry, int32_t *answer,
                                  float *log_prob, float *delta, int32_t *top1);

/* Row `row` of attn_session_rollout's matrix, out[n]: one vector-matrix product per layer
 * instead of n × n matrix products, for a view that shows one token's rollout. */
int attn_session_rollout_row(const attn_session *session, int last_layer, int row, float *out);

/* Reading the weights in parts (weights/FORMAT.md, "Reading in parts"). `bytes` is the buffer
 * for the whole file (size = its file_size) of which only the head has arrived yet: the head
 * is checked whole (header, head checksum, vocabulary, card, tables, the arrays inside it) and
 * every tensor bound; the bytes of the parts are not read until attn_engine_part_arrived says
 * they are there. A run whose tokens' rows (or any array every run reads) lie in parts not yet
 * arrived returns ATTN_ERR_NOT_LOADED without reading them; a run stops before a layer whose
 * weights lie in parts not yet arrived (attn_session_step); attn_session_mlm waits for every
 * part (the tied decoder reads every row). */
int attn_engine_create_partial(const uint8_t *bytes, size_t size, attn_engine **out);
/* Part `index` is in the buffer: checks its CRC and the values in it, then marks it ready.
 * ATTN_OK (also when it was ready already), a weights status (5: corrupted, 7: bad values;
 * the part stays not ready), or ATTN_ERR_ARGUMENT for an index out of range. */
int attn_engine_part_arrived(attn_engine *engine, int32_t index);
int32_t attn_engine_part_count(const attn_engine *engine);
/* 1 when part `index` has arrived and was found whole (every part, for a whole-file engine). */
int attn_engine_part_ready(const attn_engine *engine, int32_t index);
/* Parts not ready yet (0 for a whole-file engine). */
int32_t attn_engine_parts_missing(const attn_engine *engine);
/* Byte offset and length of part `index` in the file; ATTN_ERR_ARGUMENT when out of range or
 * for a whole-file engine (nothing to fetch). */
int attn_engine_part_range(const attn_engine *engine, int32_t index, size_t *offset, size_t *bytes);
/* Layers whose weights have all arrived, counted from the first (layers for a whole-file
 * engine): a run can compute that many. */
int attn_engine_layers_ready(const attn_engine *engine);
/* Parts *first … *first + *count − 1 hold layer `layer`'s arrays (*count 0: they lie in the head,
 * or the engine is a whole-file one); ATTN_ERR_ARGUMENT for a layer out of range. */
int attn_engine_layer_parts(const attn_engine *engine, int32_t layer, int32_t *first, int32_t *count);
/* The part holding the first byte of token `id`'s word-embedding row; -1 when the row lies in
 * the head or the engine is a whole-file one (nothing to fetch), -2 when the id is out of
 * range. A row never spans parts in a converted file (a reader that splits one needs both). */
int32_t attn_engine_part_of_token(const attn_engine *engine, int32_t id);

#endif
