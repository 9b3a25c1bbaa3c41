// Head importance timing, shared by bench/importance.mjs (Node) and bench/importance.html
// (Chromium): the same engine calls in both, each against the plain forward pass of the same
// sentence measured in the same rounds, alternating, so a ratio survives a loaded machine.

/** 12 tokens each with [CLS] and [SEP]: one [MASK], and none (each word masked in turn). */
export const SENTENCES = Object.freeze({
  mask: 'The cat sat on the [MASK] by the door.',
  words: 'The cat sat on the mat by the door.',
});

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * {mode: {n, targets, importanceMs, forwardMs, ratio}} over `rounds` alternating rounds (after
 * `warmup` untimed ones): importanceMs is Session.importance() on a fresh run (its cache empty),
 * forwardMs one runText of the same sentence.
 */
export function measureImportance(engine, { rounds = 15, warmup = 3, now = () => performance.now() } = {}) {
  const session = engine.createSession();
  const out = {};
  for (const [mode, text] of Object.entries(SENTENCES)) {
    const importance = [], forward = [];
    let n = 0, targets = 0;
    for (let round = 0; round < warmup + rounds; round++) {
      let started = now();
      n = session.runText(text).n;
      const forwardMs = now() - started;
      started = now();
      targets = session.importance().targets.length;
      const importanceMs = now() - started;
      if (round >= warmup) {
        forward.push(forwardMs);
        importance.push(importanceMs);
      }
    }
    const importanceMs = median(importance), forwardMs = median(forward);
    out[mode] = { n, targets, importanceMs, forwardMs, ratio: importanceMs / forwardMs };
  }
  session.destroy();
  return out;
}

/** One line per mode: "importance (node, [MASK]): importance_ms=… forward_ms=… ratio=… (n = 12, 1 target)". */
export function importanceLines(where, result) {
  const label = { mask: 'one [MASK]', words: 'no [MASK]: each word masked in turn' };
  return Object.entries(result).map(([mode, r]) => `importance (${where}, ${label[mode]}): importance_ms=${r.importanceMs.toFixed(1)} ` +
    `forward_ms=${r.forwardMs.toFixed(2)} ratio=${r.ratio.toFixed(1)} (n = ${r.n}, ${r.targets} target${r.targets === 1 ? '' : 's'})`);
}
