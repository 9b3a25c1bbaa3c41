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

/** CPU time of this process (user + system), ms; null where there is no process (a page). */
const cpuNow = () => (globalThis.process?.cpuUsage ? (({ user, system }) => (user + system) / 1000)(process.cpuUsage()) : null);

/** The mean over every word (importanceSteps to its end) of `text` in `engine`'s session: times and the numbers. */
function timedMean(session, text) {
  session.runText(text);
  const wall = performance.now(), cpu = cpuNow();
  const steps = session.importanceSteps();
  let step = steps.next();
  while (!step.done) step = steps.next();
  return { wallMs: performance.now() - wall, cpuMs: cpuNow() - cpu, result: step.value };
}

const sameNumbers = (a, b) => a.targets.length === b.targets.length && a.targets.every((t, i) => {
  const u = b.targets[i];
  const bytes = (x) => Buffer.from(x.buffer, x.byteOffset, x.byteLength);
  return t.position === u.position && t.answer.id === u.answer.id && t.top1.id === u.top1.id && Object.is(t.logProb, u.logProb) &&
    ['heads', 'headTop1', 'layers', 'layerTop1'].every((k) => bytes(t[k]).equals(bytes(u[k])));
});

/**
 * The mean over every word at 12 tokens (SENTENCES.words) and at 56 (SENTENCES.long) with two
 * builds of the engine, alternating within each round (which goes first alternates too), after
 * one untimed round: per mode {n, newMs, oldMs, ratio, wallRatio, identical}, the times medians
 * of CPU time, ratio the median of the rounds' new/old CPU-time ratios (wallRatio of wall times),
 * identical whether every round's numbers were bit-identical between the builds.
 */
export function compareBuilds(engine, old, { rounds = 5 } = {}) {
  const sessions = [engine.createSession(), old.createSession()];
  const out = {};
  for (const [mode, text] of [['words', SENTENCES.words], ['long', SENTENCES.long]]) {
    const count = mode === 'long' ? Math.max(3, Math.ceil(rounds / 2)) : rounds;
    const cpu = [[], []], ratios = [], wallRatios = [];
    let identical = true;
    for (let round = 0; round <= count; round++) {
      const order = round % 2 ? [1, 0] : [0, 1];
      const got = [];
      for (const which of order) got[which] = timedMean(sessions[which], text);
      identical &&= sameNumbers(got[0].result, got[1].result);
      if (round === 0) continue;
      cpu[0].push(got[0].cpuMs);
      cpu[1].push(got[1].cpuMs);
      ratios.push(got[0].cpuMs / got[1].cpuMs);
      wallRatios.push(got[0].wallMs / got[1].wallMs);
    }
    const targets = sessions[0].importanceTargets().positions.length;
    out[mode] = { n: sessions[0].n, macs: importanceMacs(engine.shape, sessions[0].n, targets), newMs: median(cpu[0]), oldMs: median(cpu[1]), ratio: median(ratios), wallRatio: median(wallRatios), identical };
  }
  for (const session of sessions) session.destroy();
  return out;
}

/**
 * Multiply-adds of the mean over `targets` words of an n-token text (weight products, attention
 * scores and mixing, the masked-word head) as c/attn.c's batches make them, per target: the
 * masked run, whose last layer computes the target's row alone (every row's keys and values);
 * for each layer l and each of its heads + 1 removals, layer l's W_O and FFN on every row, the
 * layers above whole, the last one as in the masked run (l below the last), or the row alone;
 * the masked-word head on every run's row.
 */
export function importanceMacs({ hidden: h, layers, heads, ffn, vocab }, n, targets) {
  const whole = n * (4 * h * h + 2 * h * ffn) + 2 * n * n * h;  // a layer on every row
  const lastRow = 2 * n * h * h + 2 * h * h + 2 * h * ffn + 2 * n * h;  // K, V of every row; Q, attention, W_O, FFN of one
  const decoder = h * h + vocab * h;
  let probes = 0;
  for (let l = 0; l < layers; l++)
    probes += l === layers - 1 ? h * h + 2 * h * ffn + decoder : n * (h * h + 2 * h * ffn) + (layers - 2 - l) * whole + lastRow + decoder;
  return targets * ((layers - 1) * whole + lastRow + decoder + (heads + 1) * probes);
}

/** One line per mode of compareBuilds. */
export function comparisonLines(result) {
  return Object.values(result).map((r) => `importance_all (node, n = ${r.n}): new_ms=${r.newMs.toFixed(1)} old_ms=${r.oldMs.toFixed(1)} ` +
    `new/old=${r.ratio.toFixed(3)} (CPU time; wall new/old=${r.wallRatio.toFixed(3)}) ${r.identical ? 'bit-identical' : 'NUMBERS DIFFER'}; ` +
    `${(r.macs / 1e9).toFixed(1)} G multiply-adds, ${(r.macs / r.newMs / 1e6).toFixed(1)} G/s`);
}
