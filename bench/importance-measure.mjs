// Head importance timing, shared by bench/importance.mjs (Node) and bench/importance.html
// (Chromium): the same engine calls in both, each against the plain forward pass of the same
// sentence measured in the same rounds, alternating, so a ratio survives a loaded machine.

/** 12 tokens each with [CLS] and [SEP]: one [MASK], and none (each word masked in turn); and 56 tokens. */
export const SENTENCES = Object.freeze({
  mask: 'The cat sat on the [MASK] by the door.',
  words: 'The cat sat on the mat by the door.',
  long: 'The cat sat on the mat by the door because it was tired after a long day in the garden, where it had chased birds, ' +
    'watched the fish in the pond and slept for an hour under the old apple tree near the wall of the house.',
});
/** The chosen word of the view's default reading (Session.importanceWord): "sat". */
export const WORD_POSITION = 3;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * {mode: {n, targets, importanceMs, forwardMs, ratio, longestStepMs}} over alternating rounds
 * (after `warmup` untimed ones), each beside one runText of the same sentence measured in the same
 * round: `word` the chosen word alone (Session.importanceWord, the view's default), `mask` and
 * `words` the mean over every target at 12 tokens, `long` the mean at 56 tokens (fewer rounds).
 * The means run step by step (Session.importanceSteps, as the page runs them between frames):
 * longestStepMs is the longest step, the longest the page is kept from answering.
 */
export function measureImportance(engine, { rounds = 15, warmup = 3, now = () => performance.now() } = {}) {
  const session = engine.createSession();
  const out = {};
  const modes = { word: SENTENCES.words, mask: SENTENCES.mask, words: SENTENCES.words, long: SENTENCES.long };
  for (const [mode, text] of Object.entries(modes)) {
    const importance = [], forward = [], steps = [];
    let n = 0, targets = 0;
    const count = mode === 'long' ? Math.max(3, Math.ceil(rounds / 5)) : rounds;
    for (let round = 0; round < warmup + count; round++) {
      let started = now();
      n = session.runText(text).n;
      const forwardMs = now() - started;
      let longest = 0;
      started = now();
      if (mode === 'word') {
        session.importanceWord(WORD_POSITION);
        targets = 1;
      } else {
        const stepper = session.importanceSteps();
        for (let at = now(); !stepper.next().done; at = now()) longest = Math.max(longest, now() - at);
        targets = session.importanceTargets().positions.length;
      }
      const importanceMs = now() - started;
      if (round >= warmup) {
        forward.push(forwardMs);
        importance.push(importanceMs);
        steps.push(longest);
      }
    }
    const importanceMs = median(importance), forwardMs = median(forward);
    out[mode] = { n, targets, importanceMs, forwardMs, ratio: importanceMs / forwardMs, longestStepMs: Math.max(...steps) };
  }
  session.destroy();
  return out;
}

/** One line per mode: "importance (node, …): importance_ms=… forward_ms=… ratio=… (n = 12, 1 target)". */
export function importanceLines(where, result) {
  const label = { word: 'the chosen word', mask: 'one [MASK]', words: 'mean over every word, each masked in turn', long: 'mean over every word, 56 tokens' };
  const name = { word: 'importance_ms', mask: 'importance_all_ms', words: 'importance_all_ms', long: 'importance_all_ms' };
  return Object.entries(result).map(([mode, r]) => `importance (${where}, ${label[mode]}): ${name[mode]}=${r.importanceMs.toFixed(1)} ` +
    `forward_ms=${r.forwardMs.toFixed(2)} ratio=${r.ratio.toFixed(1)}${mode === 'word' ? '' : ` longest_step_ms=${r.longestStepMs.toFixed(1)}`} ` +
    `(n = ${r.n}, ${r.targets} target${r.targets === 1 ? '' : 's'})`);
}
