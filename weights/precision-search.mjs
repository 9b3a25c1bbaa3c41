// Where to spend precision: which matrices of a float-trained checkpoint must be int16 so that
// the attention stays within a target of the float model's, measured by the float64 reference
// forward pass (reference.mjs) over the converter's own calibration text (calibration.mjs).
//
// 1. Baseline: the checkpoint's float attention on the calibration sentences.
// 2. Each candidate matrix alone at int8 (every other matrix exact): its attention max |Δ|.
// 3. Matrices sorted by that sensitivity, most sensitive first; the shortest prefix promoted to
//    int16 (the rest int8) that keeps the predicted max |Δ| ≤ target, found by bisection on the
//    prefix length (the error grows with each matrix left at int8), then checked.
import { referenceForward, maxAttentionDelta } from './reference.mjs';
import { CALIBRATION_SENTENCES, tokenizeAscii } from './calibration.mjs';

// Enough tokens to see every head at work, few enough for a forward pass in about a second.
export const CALIBRATION_TOKENS = 600;

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
export function searchPrecision({ shape, floats, vocabLines, candidates, versions, fixed, target, log = () => {} }) {
  const idsList = calibrationIds(vocabLines, shape.maxPositions);
  const tokens = idsList.reduce((a, ids) => a + ids.length, 0);
  log(`calibration: ${idsList.length} sentences, ${tokens} tokens (weights/calibration.mjs)`);
  const baseline = runAll({ shape, tensors: floats }, idsList);
  const withChoice = (choice) => {
    const tensors = new Map(floats);
    for (const [name, precision] of [...fixed, ...choice]) tensors.set(name, versions.get(name)[precision]);
    return { shape, tensors };
  };
  const allAt = (precision) => new Map(candidates.map((n) => [n, precision]));
  const evaluate = (choice) => deltaOf(withChoice(choice), idsList, baseline);

  const allInt8 = evaluate(allAt('int8'));
  log(`every candidate int8: predicted attention max |Δ| ${allInt8.toExponential(2)}`);
  if (allInt8 <= target) return { choice: allAt('int8'), predicted: allInt8, sensitivity: new Map() };

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
  let lo = 0, hi = order.length;  // deltaAt(lo) > target; hi: the answer if no shorter prefix is
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (deltaAt(mid) <= target) hi = mid; else lo = mid;
  }
  return { choice: prefixChoice(hi), predicted: deltaAt(hi), sensitivity };
}
