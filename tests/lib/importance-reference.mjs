// Head importance computed again in float64 from its definition (weights/reference.mjs), not
// from the engine's code: every removal is a whole forward pass from the embeddings, with no
// stored layer inputs reused and no rows batched.
//
//   importanceReference(model, ids, { maskId, typeIds, removedHeads, word })
//
// Targets: every [MASK] of the ids, the answer being the unablated model's top-1 there; without
// one, every token but [CLS] and [SEP], each replaced by [MASK] in turn, the answer being the
// token that was there. For each target: logProb (log p(answer) without a further removal),
// heads[l·H + h] / layers[l] = log p(answer) with head (l, h) alone / layer l whole removed −
// logProb, headTop1 / layerTop1 the top-1 id then, and margins (the top-1's lead over the second,
// nats) so a comparison can leave out top-1 words too close to call.
import { mlmLogProbs, referenceForward } from '../../weights/reference.mjs';

function reading(model, ids, typeIds, removedHeads, position) {
  const result = referenceForward(model, ids, { typeIds, removedHeads });
  const logProbs = mlmLogProbs(model, result, position);
  let top = 0, second = -1;
  for (let v = 1; v < logProbs.length; v++) {
    if (logProbs[v] > logProbs[top]) { second = top; top = v; }
    else if (second < 0 || logProbs[v] > logProbs[second]) second = v;
  }
  return { logProbs, top1: top, margin: logProbs[top] - logProbs[second], result };
}

export function importanceTargets(ids, { maskId, clsId, sepId }) {
  const masks = ids.flatMap((id, i) => (id === maskId ? [i] : []));
  if (masks.length) return { positions: masks, maskedInTurn: false };
  return { positions: ids.flatMap((id, i) => (id === clsId || id === sepId ? [] : [i])), maskedInTurn: true };
}

export function importanceReference(model, ids, { maskId, clsId, sepId, typeIds, removedHeads = [], word }) {
  const { layers, heads } = model.shape;
  // word {position, answer}: that word alone (Session.importanceWord), masked unless a [MASK]
  // stands there, its answer the one given, else the top-1 at a [MASK], else the word there
  const { positions, maskedInTurn } = word ? { positions: [word.position], maskedInTurn: ids[word.position] !== maskId }
    : importanceTargets(ids, { maskId, clsId, sepId });
  const targets = positions.map((position) => {
    const input = maskedInTurn ? ids.map((id, i) => (i === position ? maskId : id)) : ids;
    const base = reading(model, input, typeIds, removedHeads, position);
    const answer = word?.answer ?? (maskedInTurn ? ids[position] : base.top1);
    const logProb = base.logProbs[answer];
    const out = { position, answer, top1: base.top1, margin: base.margin, logProb,
      heads: new Float64Array(layers * heads), headTop1: new Int32Array(layers * heads), headMargin: new Float64Array(layers * heads),
      layers: new Float64Array(layers), layerTop1: new Int32Array(layers), layerMargin: new Float64Array(layers) };
    for (let l = 0; l < layers; l++) {
      for (let h = 0; h <= heads; h++) {
        const extra = h < heads ? [[l, h]] : Array.from({ length: heads }, (_, k) => [l, k]);
        const r = reading(model, input, typeIds, [...removedHeads, ...extra], position);
        if (h < heads) {
          out.heads[l * heads + h] = r.logProbs[answer] - logProb;
          out.headTop1[l * heads + h] = r.top1;
          out.headMargin[l * heads + h] = r.margin;
        } else {
          out.layers[l] = r.logProbs[answer] - logProb;
          out.layerTop1[l] = r.top1;
          out.layerMargin[l] = r.margin;
        }
      }
    }
    return out;
  });
  return { maskedInTurn, targets };
}
