// Every reading of the attention that the page shows, computed again in plain float64 from the
// float64 reference forward pass (weights/reference.mjs), written from the definitions in
// c/analysis.h and not from its code: row statistics, rollout, head roles, value-weighted
// contributions, the √d what-if and the inside-a-layer steps. Tests hold the engine's values
// (and what the page draws) against these.
//
//   const model = loadCheckpoint(dir);
//   const ref = analyseSentence(model, ids, { tokens, typeIds, checkpoint: dir });
//   (with `checkpoint`, the forward pass is kept in build/cache/ between runs: reference-cache.mjs)
//   ref.row(l, h, i)  ref.rowStats(l, h, i)  ref.rollout(lastLayer)  ref.headRoles(l, h)
//   ref.contributions(l, h, i)  ref.rowScaled(l, h, i, divide)  ref.walkthrough(l, token)
//
// Layers, heads, rows and tokens count from 0, as in web/src/engine.mjs.
import { modelTensor, referenceInternals } from '../../weights/reference.mjs';
import { cachedReference } from './reference-cache.mjs';

// Largest |engine − reference| allowed per reading, for the int8-native default: a few times
// the largest difference measured on the fixtures' sentences (`node --test
// tests/analysis.test.mjs` prints each beside its bar). A page test comparing what a view draws
// with these values uses the same bars.
export const ANALYSIS_BARS = Object.freeze({
  rowMax: 2e-4,            // max of a row (attention itself is within 5e-5)
  ratio: 2e-4,             // ratio to uniform / n, i.e. the max again
  entropy: 2e-3,           // nats
  effective: 2e-3,         // relative
  normalized: 5e-4,
  rollout: 2e-4,
  mass: 2e-4,              // mean mass on a token kind
  contributions: 2e-3,     // relative to the row's largest contribution
  scaled: 2e-4,            // what-if row, divided by √d
  unscaled: 2e-3,          // what-if row, not divided: the scores are 8× larger
  walkthrough: 2e-3,       // relative to the step's largest |value|
  roleBorderline: 1e-2,    // a role reading this close to its threshold is not compared
});

/** Largest |a[i] − b[i]|; Infinity when the lengths differ or a value is not a number. */
export function maxDelta(a, b) {
  if (a.length !== b.length) return Infinity;
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= worst)) worst = Number.isNaN(d) ? Infinity : d;
  }
  return worst;
}

export const maxAbs = (values) => values.reduce((m, v) => Math.max(m, Math.abs(v)), 0);

/** Role names in the order of web/src/engine.mjs, and the rules that define them. */
export const ROLE_NAMES = ['previous', 'next', 'cls-sink', 'sep-sink', 'punct-sink', 'broad'];
export const ROLE_RULES = Object.freeze({
  positionalShare: 0.9,    // argmax at i−1 (or i+1) on at least this share of the rows that have one
  positionalMinTokens: 5,  // fewer tokens: no positional role
  sinkMass: 0.5,           // mean mass on [CLS], [SEP] or punctuation tokens at least this
  broadEntropy: 0.9,       // mean entropy / ln n at least this
});

const PUNCTUATION = /^(?:\p{P}|[!-/:-@[-`{-~])$/u;

/** Token kinds as the roles read them: 0 word, 1 [CLS], 2 [SEP], 3 one punctuation character. */
export function tokenKinds(tokens) {
  return tokens.map((t) => (t === '[CLS]' ? 1 : t === '[SEP]' ? 2 : PUNCTUATION.test(t) ? 3 : 0));
}

/** sum, max, argmax (first), ratio to uniform max·n, entropy (nats), effective tokens e^H, H / ln n. */
export function rowStats(row) {
  const n = row.length;
  let sum = 0, max = -Infinity, argmax = -1, entropy = 0;
  for (let j = 0; j < n; j++) {
    const p = row[j];
    sum += p;
    if (p > max) { max = p; argmax = j; }
    if (p > 0) entropy -= p * Math.log(p);
  }
  return { sum, max, argmax, ratio: max * n, entropy, effective: Math.exp(entropy),
    normalized: n > 1 ? entropy / Math.log(n) : 1 };
}

/** softmax of a row of scores, in float64. */
export function softmax(scores) {
  const max = Math.max(...scores);
  const e = scores.map((s) => Math.exp(s - max));
  const total = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / total);
}

/**
 * The continuous readings behind a head's roles: the share of rows whose argmax is the previous
 * (next) token, the mean mass per token kind, the mean normalised entropy.
 */
export function headReadings(rows, kinds) {
  const n = rows.length;
  let previous = 0, next = 0, normalized = 0;
  const mass = [0, 0, 0, 0];
  rows.forEach((row, i) => {
    const stats = rowStats(row);
    if (i > 0 && stats.argmax === i - 1) previous++;
    if (i < n - 1 && stats.argmax === i + 1) next++;
    normalized += stats.normalized;
    row.forEach((p, j) => { mass[kinds[j]] += p; });
  });
  return {
    previousShare: n > 1 ? previous / (n - 1) : 0,
    nextShare: n > 1 ? next / (n - 1) : 0,
    mass: { word: mass[0] / n, cls: mass[1] / n, sep: mass[2] / n, punctuation: mass[3] / n },
    meanNormalizedEntropy: normalized / n,
    n,
  };
}

/**
 * Roles from the readings, and for each rule how far its reading lies from the threshold
 * (`margins`, same order as ROLE_NAMES): a caller can tell a clear call from a borderline one.
 */
export function rolesOf(readings) {
  const { n, mass } = readings;
  const positional = n >= ROLE_RULES.positionalMinTokens;
  const values = [
    positional ? readings.previousShare : -Infinity, positional ? readings.nextShare : -Infinity,
    mass.cls, mass.sep, mass.punctuation, n > 1 ? readings.meanNormalizedEntropy : -Infinity,
  ];
  const thresholds = [ROLE_RULES.positionalShare, ROLE_RULES.positionalShare, ROLE_RULES.sinkMass,
    ROLE_RULES.sinkMass, ROLE_RULES.sinkMass, ROLE_RULES.broadEntropy];
  return {
    roles: ROLE_NAMES.filter((_, r) => values[r] >= thresholds[r]),
    margins: values.map((v, r) => Math.abs(v - thresholds[r])),
  };
}

/** Rollout through lastLayer: per layer ½·(mean of heads) + ½·I, rows renormalised, multiplied up. */
export function rollout(attentionOf, n, heads, lastLayer) {
  let result = null;
  for (let l = 0; l <= lastLayer; l++) {
    const mixed = Array.from({ length: n }, (_, i) => {
      const row = new Float64Array(n);
      for (let h = 0; h < heads; h++) attentionOf(l, h, i).forEach((p, j) => { row[j] += p / heads; });
      for (let j = 0; j < n; j++) row[j] = 0.5 * row[j] + (i === j ? 0.5 : 0);
      const total = row.reduce((a, b) => a + b, 0);
      return row.map((v) => v / total);
    });
    result = result === null ? mixed : mixed.map((row) => {
      const out = new Float64Array(n);
      for (let k = 0; k < n; k++) for (let j = 0; j < n; j++) out[j] += row[k] * result[k][j];
      return out;
    });
  }
  return result;
}

function layerNorm(x, gamma, beta, eps) {
  const width = x.length;
  const mean = x.reduce((a, b) => a + b, 0) / width;
  const variance = x.reduce((a, b) => a + (b - mean) ** 2, 0) / width;
  const inverse = 1 / Math.sqrt(variance + eps);
  return x.map((v, k) => (v - mean) * inverse * gamma[k] + beta[k]);
}

/**
 * Every reading of one sentence, from the reference forward pass of `model` on `ids`. With
 * `checkpoint` (the directory `model` was loaded from), the pass is cached across runs.
 */
export function analyseSentence(model, ids, { tokens, typeIds, checkpoint } = {}) {
  const { hidden, heads, lnEps } = model.shape;
  const size = hidden / heads;
  const forward = () => referenceInternals(model, ids, { typeIds });
  const internals = checkpoint ? cachedReference(checkpoint, 'referenceInternals', { ids, typeIds }, forward) : forward();
  const { n, attention } = internals;
  const kinds = tokenKinds(tokens ?? ids.map((id) => model.vocab[id]));
  const slice = (a, token, start, width) => Array.from(a.subarray(token * hidden + start, token * hidden + start + width));
  const weight = (layer, part) => modelTensor(model, `bert.encoder.layer.${layer}.attention.${part}`);

  const row = (l, h, i) => Array.from(attention.subarray(((l * heads + h) * n + i) * n, ((l * heads + h) * n + i + 1) * n));
  const rows = (l, h) => Array.from({ length: n }, (_, i) => row(l, h, i));
  const rollouts = new Map();
  const normsCache = new Map();

  // ‖W_O[:, head h's columns] · v_j^h‖ for every token j: what head h adds to the residual
  // stream per unit of attention on token j.
  function valueNorms(l, h) {
    const key = `${l}/${h}`;
    if (normsCache.has(key)) return normsCache.get(key);
    const wOut = weight(l, 'output.dense.weight');
    const { value } = internals.layers[l];
    const norms = Array.from({ length: n }, (_, j) => {
      const v = slice(value, j, h * size, size);
      let norm2 = 0;
      for (let r = 0; r < hidden; r++) {
        let y = 0;
        for (let d = 0; d < size; d++) y += wOut[r * hidden + h * size + d] * v[d];
        norm2 += y * y;
      }
      return Math.sqrt(norm2);
    });
    normsCache.set(key, norms);
    return norms;
  }

  return {
    n, kinds, internals,
    row,
    rowStats: (l, h, i) => rowStats(row(l, h, i)),
    headRoles(l, h) {
      const readings = headReadings(rows(l, h), kinds);
      return { ...rolesOf(readings), mass: readings.mass, readings };
    },
    rollout(lastLayer = model.shape.layers - 1) {
      if (!rollouts.has(lastLayer)) rollouts.set(lastLayer, rollout(row, n, heads, lastLayer));
      return rollouts.get(lastLayer);
    },
    contributions(l, h, i) {
      const alpha = row(l, h, i), norms = valueNorms(l, h);
      return alpha.map((a, j) => a * norms[j]);
    },
    rowScaled(l, h, i, divideBySqrtD) {
      const { query, key } = internals.layers[l];
      const q = slice(query, i, h * size, size);
      const scale = divideBySqrtD ? 1 / Math.sqrt(size) : 1;
      return softmax(Array.from({ length: n }, (_, j) => {
        const k = slice(key, j, h * size, size);
        return q.reduce((a, qd, d) => a + qd * k[d], 0) * scale;
      }));
    },
    walkthrough(l, token) {
      const { context, input } = internals.layers[l];
      const concat = slice(context, token, 0, hidden);
      const wOut = weight(l, 'output.dense.weight'), bias = weight(l, 'output.dense.bias');
      const projected = Array.from({ length: hidden }, (_, r) =>
        concat.reduce((a, c, k) => a + c * wOut[r * hidden + k], bias[r]));
      const residual = projected.map((p, k) => p + input[token * hidden + k]);
      const normed = layerNorm(residual, weight(l, 'output.LayerNorm.weight'), weight(l, 'output.LayerNorm.bias'), lnEps);
      return { concat, projected, residual, normed };
    },
  };
}
