/* Readings of the attention that the explorer shows, computed from a finished run. */
#ifndef ATTN_ANALYSIS_H
#define ATTN_ANALYSIS_H

#include "forward.h"

typedef struct {
    double sum; /* Σ row: 1 up to float rounding, because a softmax made it */
    double max;
    int argmax;
    double ratio;      /* max / (1/n) = max·n: 1.0 means no better than uniform */
    double entropy;    /* nats */
    double effective;  /* exp(entropy): how many tokens the row spreads over */
    double normalized; /* entropy / ln n, in [0, 1]; 1 for n == 1 */
} row_stats;

row_stats analyse_row(const float *row, int n);

/* Attention rollout (Abnar & Zuidema 2020): per layer ½·mean over heads + ½·I, rows
 * renormalised, multiplied from the first layer up to `last_layer`. out[n][n]. */
int attention_rollout(const bert_state *s, int last_layer, float *out);
/* Row `row` of the same rollout, out[n], in O(layers · heads · n²): what the Rollout view shows. */
int attention_rollout_row(const bert_state *s, int last_layer, int row, float *out);

/* Fewer tokens than this give too few rows to call a head positional ([CLS] [SEP] alone
 * would always look like a "previous token" head). */
enum { POSITIONAL_MIN_TOKENS = 5 };

/* Roles of one head: a mask of enum head_role bits (spec.h: ROLE_PREVIOUS, ROLE_NEXT,
 * ROLE_CLS_SINK, ROLE_SEP_SINK, ROLE_PUNCT_SINK, ROLE_BROAD, with their criteria). kinds[n] tags each token: 0 word, 1 [CLS], 2 [SEP], 3 punctuation. */
int head_roles(const bert_state *s, int layer, int head, const unsigned char *kinds,
               float *mass_on_kind /* [4], may be NULL */);

/* Value-weighted norms (Kobayashi et al. 2020): out[j] = ‖α_ij · W_O^h (W_V^h x_j + b_V^h)‖. */
int attention_contributions(const bert_state *s, int layer, int head, int row, float *out);

/* The chosen head's row from the same q·k scores, with or without the division by √d. */
int attention_row_scaled(const bert_state *s, int layer, int head, int row, int divide_by_sqrt_d, float *out);

/* Inside a layer, for one token: out[4][hidden] = the heads' outputs concatenated, after W_O
 * (with its bias), after + residual, after LayerNorm. */
int layer_walkthrough(const bert_state *s, int layer, int token, float *out);

#endif
