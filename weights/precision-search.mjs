// Where to spend precision: which matrices of a float-trained checkpoint must be int16 so that
// the attention stays within a target of the float model's, measured by the float64 reference
// forward pass (reference.mjs) over the converter's own calibration text (calibration.mjs).
//
// The prediction models the engine's arithmetic: the quantized weights, and each matrix's
// input rounded to the levels the engine's integer kernels keep for it (inputLevels).
//
// 1. Baseline: the checkpoint's float attention on the calibration sentences (textbook model).
// 2. Each candidate matrix alone at int8 (every other matrix exact): its attention max |Δ|.
// 3. Matrices sorted by that sensitivity, most sensitive first; the shortest prefix promoted to
//    int16 (the rest int8) that keeps the predicted max |Δ| ≤ target, found by bisection on the
//    prefix length (the error grows with each matrix left at int8), then checked.
import { referenceForward, maxAttentionDelta } from './reference.mjs';
import { CALIBRATION_SENTENCES, tokenizeAscii } from './calibration.mjs';
import { INT8_QMAX, int16QmaxFor } from './convert-core.mjs';

// Enough tokens to see every head at work, few enough for a forward pass in about a second.
export const CALIBRATION_TOKENS = 600;
// A few hundred calibration tokens see less than the worst case of a long list of sentences:
// on bert-mini-mlm a choice predicted at 7.9e-4 measured 1.18e-3 on the 153 fixture sentences
// (weights/README.md). The search therefore aims at this fraction of the target.
export const TARGET_MARGIN = 0.5;

export function calibrationIds(vocabLines, maxPositions, budget = CALIBRATION_TOKENS) {
  const list = [];
  let total = 0;
  for (const text of CALIBRATION_SENTENCES) {
    const ids = tokenizeAscii(vocabLines, text).slice(0, maxPositions);
    list.push(ids);
    total += ids.length;
    if (total >= budget) break;
  }
  return list;
}

// The activation levels the engine's integer kernels give a matrix's input (c/kernels.c
// plan_for, per row scales: group = cols): the largest chunk of columns (≤ 1024) whose exact
// int32 sums leave at least 8191 levels, and as many levels as that chunk allows, at most
// 32767. int8 counts as ±128.
export function inputLevels(qmax, cols) {
  for (let chunk = Math.min(1024, cols - (cols % 8)); chunk >= 8; chunk -= 8) {
    if (cols % chunk !== 0) continue;
    const levels = Math.floor((2 ** 31 - 1) / ((chunk / 4) * qmax));
    if (levels >= 8191 || chunk === 8) return Math.min(levels, 32767);
  }
  return 32767;
}

// Map matrix name → levels for a choice of precisions; Q, K and V share their input, quantized
// once to the smallest of their levels.
function levelsFor(matrices, precisionOf) {
  const levels = new Map();
  for (const t of matrices) {
    if (t.role === 'lookup') continue;  // read row by row (the MLM decoder is not in the attention)
    const qmax = precisionOf(t.name) === 'int16' ? int16QmaxFor(t) : INT8_QMAX + 1;
    levels.set(t.name, inputLevels(qmax, t.cols));
  }
  for (const [name, value] of levels) {
    const qkv = /^(.*attention\.self\.)(query|key|value)\.weight$/.exec(name);
    if (!qkv) continue;
    const shared = Math.min(...['query', 'key', 'value'].map((p) => levels.get(`${qkv[1]}${p}.weight`) ?? value));
    levels.set(name, shared);
  }
  return levels;
}

function runAll(model, idsList) {
  return idsList.map((ids) => referenceForward(model, ids, {}).attention);
}

function deltaOf(model, idsList, baseline) {
  let worst = 0;
  idsList.forEach((ids, i) => {
    const d = maxAttentionDelta(referenceForward(model, ids, {}).attention, baseline[i]);
    worst = Math.max(worst, d);
  });
  return worst;
}

// floats: Map name → Float32Array (the checkpoint); versions: Map name → { int8, int16 }
// (dequantized Float32Arrays); fixed: Map name → 'int8'|'int16' for matrices whose precision is
// already decided. Returns { choice: Map name → precision, predicted, sensitivity: Map }.
export function searchPrecision({ shape, floats, vocabLines, matrices, candidates, versions, fixed, target, log = () => {} }) {
  const aim = target * TARGET_MARGIN;
  const idsList = calibrationIds(vocabLines, shape.maxPositions);
  const tokens = idsList.reduce((a, ids) => a + ids.length, 0);
  log(`calibration: ${idsList.length} sentences, ${tokens} tokens (weights/calibration.mjs); aiming at ${aim.toExponential(1)} (target × ${TARGET_MARGIN})`);
  const baseline = runAll({ shape, tensors: floats }, idsList);
  const withChoice = (choice) => {
    const tensors = new Map(floats);
    const all = new Map([...fixed, ...choice]);
    for (const [name, precision] of all) tensors.set(name, versions.get(name)[precision]);
    return { shape, tensors, inputLevels: levelsFor(matrices, (name) => all.get(name) ?? 'int8') };
  };
  const allAt = (precision) => new Map(candidates.map((n) => [n, precision]));
  const evaluate = (choice) => deltaOf(withChoice(choice), idsList, baseline);

  const allInt8 = evaluate(allAt('int8'));
  log(`every candidate int8: predicted attention max |Δ| ${allInt8.toExponential(2)}`);
  if (allInt8 <= aim) return { choice: allAt('int8'), predicted: allInt8, sensitivity: new Map() };

  const sensitivity = new Map();
  for (const name of candidates) {
    const onlyThis = new Map([[name, 'int8']]);
    for (const other of candidates) if (other !== name) onlyThis.set(other, 'int16');
    sensitivity.set(name, evaluate(onlyThis));
  }
  const order = [...candidates].sort((a, b) => sensitivity.get(b) - sensitivity.get(a));
  const prefixChoice = (k) => new Map(order.map((n, i) => [n, i < k ? 'int16' : 'int8']));
  const cache = new Map([[0, allInt8]]);
  const deltaAt = (k) => {
    if (!cache.has(k)) cache.set(k, evaluate(prefixChoice(k)));
    return cache.get(k);
  };
  let lo = 0, hi = order.length;  // deltaAt(lo) > aim; hi: the answer if no shorter prefix is
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (deltaAt(mid) <= aim) hi = mid; else lo = mid;
  }
  return { choice: prefixChoice(hi), predicted: deltaAt(hi), sensitivity };
}
