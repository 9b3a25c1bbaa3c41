/* The BERT encoder forward pass, keeping what the explorer shows. */
#ifndef ATTN_FORWARD_H
#define ATTN_FORWARD_H

#include <stddef.h>
#include <stdint.h>
#include "model.h"

/* Buffers of one run, sized for `capacity` tokens; grown on demand, reused between runs.
 * Per layer l: the layer input x_l, and its Q, K, V and the concatenated head outputs
 * (context, before W_O), so the analysis views can look inside a layer afterwards. */
typedef struct {
    const bert_model *model;
    int capacity;
    int n;                  /* tokens of the last run */
    float *attention;       /* [layers][heads][n][n] softmax probabilities */
    float *layer_input;     /* [layers + 1][n][hidden]; [layers] is the final hidden state */
    float *query, *key, *value, *context;  /* [layers][n][hidden] */
    float *scratch;         /* [n][max(ffn, hidden) + hidden] */
} bert_state;

void bert_state_init(bert_state *state, const bert_model *model);
void bert_state_free(bert_state *state);

/* Runs the encoder on ids[n] with token types type_ids[n] (NULL: type 0 everywhere),
 * 1 ≤ n ≤ model->max_positions. Returns 0, or -1 when memory could not be had or an id, a
 * type id or n is out of range. */
int bert_forward(bert_state *state, const int32_t *ids, const int32_t *type_ids, int n);

/* Index helpers into the state's arrays. */
static inline size_t attention_index(const bert_state *s, int layer, int head, int row) {
    const size_t n = (size_t)s->n;
    return (((size_t)layer * (size_t)s->model->heads + (size_t)head) * n + (size_t)row) * n;
}
static inline size_t hidden_index(const bert_state *s, int layer, int token) {
    return ((size_t)layer * (size_t)s->n + (size_t)token) * (size_t)s->model->hidden;
}

/* MLM head at one position: writes the `k` most probable ids and their probabilities
 * (softmax over the whole vocabulary), most probable first. Returns 0 or -1. */
int bert_mlm_top_k(const bert_state *state, int position, int k, int32_t *ids, float *probs);

#endif
