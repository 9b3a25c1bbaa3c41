// What the browser suite holds the page's views against: the float64 analyses of
// tests/lib/analysis-reference.mjs (on weights/reference.mjs, not on the engine), computed once
// per sentence (and kept in build/cache/ across runs) from the checkpoint the default weights
// were converted from, with the bars of
// ANALYSIS_BARS. Also the MLM fixtures' float64 probabilities, and a record of the largest
// difference seen per view and reading, printed at the end of the run.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadCheckpoint } from '../../weights/reference.mjs';
import { analyseSentence, ANALYSIS_BARS, maxAbs, maxDelta } from '../lib/analysis-reference.mjs';

export { ANALYSIS_BARS, maxAbs, maxDelta };

/**
 * Attention weights as drawn. The engine's attention matches the float64 reference to 5e-5 on
 * this model (the parity bar for its attention is 1e-3); drawn weights are held to 2e-4, the bar
 * ANALYSIS_BARS.rowMax puts on a row's largest weight.
 */
export const ATTENTION_BAR = ANALYSIS_BARS.rowMax;
/** MLM probabilities of the int8-native default against its float64 fixtures (tests/parity.mjs). */
export const MLM_PROBABILITY_BAR = 5e-5;

export function float64Reference(root) {
  const checkpoint = process.env.ATTN_CHECKPOINT ?? path.join(root, '../shared/checkpoints/bert-mini-int8');
  if (!existsSync(path.join(checkpoint, 'model.safetensors'))) {
    throw new Error(`${checkpoint} is missing: the browser suite compares the views with its float64 analyses`);
  }
  const model = loadCheckpoint(checkpoint);
  const fixtureDir = path.join(root, 'tests/fixtures/bert-mini-int8');
  const fixtures = JSON.parse(readFileSync(path.join(fixtureDir, 'attention.json'), 'utf8')).sentences
    .filter((s) => typeof s.text_b !== 'string');
  const mlmFixtures = JSON.parse(readFileSync(path.join(fixtureDir, 'mlm.json'), 'utf8'));
  const analyses = new Map();
  const worst = new Map();
  return {
    model,
    /** The fixture sentence with this text ({ids, tokens, …}), or undefined. */
    fixture: (text) => fixtures.find((s) => s.text === text),
    /** The MLM fixture of this text: {ids, masks: [{position, top: [[id, token, p], …]}]}, or undefined. */
    mlmFixture: (text) => mlmFixtures.find((s) => s.text === text),
    /** Every analysis of a run's token ids (see analyseSentence), computed once per id list. */
    of({ ids, tokens }) {
      const key = ids.join(',');
      if (!analyses.has(key)) analyses.set(key, analyseSentence(model, ids, { tokens, checkpoint }));
      return analyses.get(key);
    },
    /** Records |Δ| of one reading of one view; true when within the bar (NaN never is). */
    see(view, reading, delta, bar) {
      const value = Number.isNaN(delta) ? Infinity : delta;
      const key = `${view}: ${reading}`;
      const entry = worst.get(key) ?? { value: 0, bar, count: 0 };
      entry.value = Math.max(entry.value, value);
      entry.count++;
      worst.set(key, entry);
      return value <= bar;
    },
    /** One line per view and reading: the largest difference seen against its bar. */
    summary() {
      return [...worst].map(([key, { value, bar, count }]) =>
        `float64 reference, ${key}: max |Δ| ${value.toExponential(2)} (bar ${bar.toExponential(0)}, ${count} comparisons)`);
    },
  };
}

export const sum = (values) => values.reduce((a, b) => a + b, 0);

/** The reading the page gives a row (web/src/format.mjs): normalised entropy < 0.4 focused, ≥ 0.85 uniform-like. */
export const READING_BANDS = [0.4, 0.85];
export function expectedReading(stats) {
  return stats.normalized < READING_BANDS[0] ? 'focused' : stats.normalized >= READING_BANDS[1] ? 'uniform-like' : 'spread';
}
/** True when normalised entropy lies so close to a band's edge that the reading may go either way. */
export function borderlineReading(stats) {
  return READING_BANDS.some((edge) => Math.abs(stats.normalized - edge) < ANALYSIS_BARS.normalized);
}
