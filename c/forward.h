/* The BERT encoder forward pass, keeping what the explorer shows. */
#ifndef ATTN_FORWARD_H
#define ATTN_FORWARD_H

#include <stddef.h>
#include <stdint.h>
#include "model.h"

/* Options of a run (NULL: every head, from the embeddings, whole phases). */
typedef struct {
    /* [layers][heads]; nonzero: that head's context vectors are zeroed before the layer's output
     * projection W_O (its attention is still computed and kept); NULL: no head removed. Read at
     * each layer's turn, so it must stay alive while the run goes on. */
    const uint8_t *removed_heads;
    /* 0 with ids: embed the tokens and run every layer. l > 0, or ids NULL: layer_input[l]
     * already holds the input of layer l for the state's n tokens (an earlier run of this state,
     * or copied in), and layers l … layers − 1 run from it; what lies below is left as it is. */
    int first_layer;
    /* 1: the last layer computes, for a reading of one position, the query, attention row,
     * context and output of row `final_row` alone, and of the other rows only the keys and values
     * that row reads; their rows of that layer's query, attention, context and of
     * layer_input[layers] are then not written. The row's numbers are those of a whole run. */
    int final_row_only, final_row;
    /* The work of one step (bert_step), in multiply-adds: the projections and the layer output
     * go by blocks of tokens of about this much work, the attention by heads; 0: each phase
     * whole (one step per phase and head). The numbers do not depend on it. */
    long long step_macs;
    /* 1 (a resumed run only, see first_layer): context[first_layer] already holds that layer's
     * head outputs (an earlier run of the same layer input), so the run starts at its output
     * projection: the heads removed here are zeroed in it and its attention is not computed
     * again (attention[first_layer] is left as it is). The numbers are those of a run that
     * computes the layer whole, bit for bit. */
    int context_given;
    /* > 0: the n tokens are n / copy_length copies of copy_length tokens run side by side (n a
     * multiple of it): positions count from each copy's start and each token attends within its
     * own copy only, so each copy's numbers are, bit for bit, those of a run of that copy alone.
     * The attention of layer l, head h is then stored as [n][copy_length] from
     * attention_index(state, l, h, 0) (read it with copy_attention_index). With final_row_only,
     * the last layer computes for each copy c its row final_rows[c] (from the copy's start).
     * 0: one sequence. */
    int copy_length;
    const int32_t *final_rows;
} bert_run_options;

/* Where a run stands: the layer being computed and its phase (the Q/K/V projections by blocks of
 * tokens, then each head's attention, then the output projection, LayerNorm and FFN by blocks of
 * tokens), `index` the next token block's first token or the next head. */
enum { BERT_PHASE_PROJECT, BERT_PHASE_HEADS, BERT_PHASE_OUTPUT };
typedef struct {
    int layer, phase, index;
    int failed; /* a step failed: the run is over */
} bert_cursor;

/* Buffers of one run, sized for `capacity` tokens; grown on demand, reused between runs.
 * Per layer l: the layer input x_l, and its Q, K, V and the concatenated head outputs
 * (context, before W_O), so the analysis views can look inside a layer afterwards. */
typedef struct {
    const bert_model *model;
    int capacity;
    int n;                                /* tokens of the last run */
    float *attention;                     /* [layers][heads][n][n] softmax probabilities */
    float *layer_input;                   /* [layers + 1][n][hidden]; [layers] is the final hidden state */
    float *query, *key, *value, *context; /* [layers][n][hidden] */
    float *scratch;                       /* [n][max(ffn, hidden) + hidden] */
    bert_run_options options;             /* of the run begun */
    bert_cursor cursor;
} bert_state;

void bert_state_init(bert_state *state, const bert_model *model);
void bert_state_free(bert_state *state);

/* What a run returns. */
enum {
    BERT_OK = 0,
    BERT_ERR = -1,            /* memory could not be had, or an id, a type id or n is out of range */
    BERT_ERR_NOT_FINITE = -2, /* a layer's attention or output holds a NaN or an infinity */
};

/* Runs the encoder on ids[n] with token types type_ids[n] (NULL: type 0 everywhere),
 * 1 ≤ n ≤ model->max_positions: bert_begin, then bert_step until the run is complete. Returns
 * BERT_OK or a BERT_ERR code. When memory cannot be had the state's buffers are left as they
 * were (a failed run never leaves a buffer smaller than the capacity says); buffers much larger
 * than n needs are given back. */
int bert_run(bert_state *state, const int32_t *ids, const int32_t *type_ids, int n, const bert_run_options *options);
/* A run in steps: bert_begin embeds the tokens (or takes the stored input of
 * options->first_layer) and computes no layer; each bert_step computes the next piece of the
 * run (see bert_cursor and step_macs) and returns BERT_OK or a BERT_ERR code, after which the
 * run is over. A run made in steps gives the same numbers, bit for bit, as one made whole. */
int bert_begin(bert_state *state, const int32_t *ids, const int32_t *type_ids, int n, const bert_run_options *options);
int bert_step(bert_state *state);
/* The layer the next step computes (model->layers once the run is complete): layers below it
 * are done. */
int bert_next_layer(const bert_state *state);
int bert_run_complete(const bert_state *state);
/* bert_run with every head, from the embeddings. */
int bert_forward(bert_state *state, const int32_t *ids, const int32_t *type_ids, int n);
/* Makes room for n tokens (the buffers of bert_run), keeping nothing; 0 or -1 (state unchanged). */
int bert_reserve(bert_state *state, int n);

/* Index helpers into the state's arrays. */
/* Row `row` of layer l, head h's attention in a run of copies (bert_run_options.copy_length). */
static inline size_t copy_attention_index(const bert_state *s, int layer, int head, int row, int copy_length) {
    return (((size_t)layer * (size_t)s->model->heads + (size_t)head) * (size_t)s->n + (size_t)row) *
           (size_t)copy_length;
}
static inline size_t attention_index(const bert_state *s, int layer, int head, int row) {
    const size_t n = (size_t)s->n;
    return (((size_t)layer * (size_t)s->model->heads + (size_t)head) * n + (size_t)row) * n;
}
static inline size_t hidden_index(const bert_state *s, int layer, int token) {
    return ((size_t)layer * (size_t)s->n + (size_t)token) * (size_t)s->model->hidden;
}

/* MLM head at one position: writes the `k` most probable ids and their probabilities
 * (softmax over the whole vocabulary), most probable first. Returns BERT_OK, BERT_ERR or
 * BERT_ERR_NOT_FINITE (a logit is a NaN or an infinity). */
int bert_mlm_top_k(const bert_state *state, int position, int k, int32_t *ids, float *probs);
/* MLM head on `count` final hidden states hidden[count][model->hidden] (rows of layer_input[layers],
 * of one state or gathered from several): log_probs[count][vocab], the log-softmax of the logits.
 * Same returns. */
int bert_mlm_log_probs(const bert_model *model, const float *hidden, int count, float *log_probs);

/* 1 when every one of the count values is finite. */
int all_finite(const float *values, size_t count);

#endif
