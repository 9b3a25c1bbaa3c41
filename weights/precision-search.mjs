// Where to spend precision: which matrices of a float-trained checkpoint must be int16 so that
// the engine's attention stays within a target of the float model's. Measured, not modelled:
// the float64 reference (reference.mjs) runs once per calibration sentence (calibration.mjs),
// and each candidate plan is a real weights file run by the real engine (the wasm build through
// web/src/engine.mjs, as the page runs it) on the same token ids, so what the search sees on the
// calibration text is exactly what the engine will do there.
//
// 1. The reference's attention on the calibration sentences, once, kept in memory.
// 2. Every candidate int8, then every candidate int16: done if the first is within the aim;
//    if the second is not, no choice reaches the target and the search says so.
// 3. Ranking: each candidate alone at int8 (every other int16) on the ranking sentences (the
//    first part of the calibration text): the error it causes by itself.
// 4. Bisection on the length of the ranked list's prefix promoted to int16 (the rest int8),
//    judged on the whole calibration text, then that plan measured on all of it.
//
// The aim on the calibration text is target / HELD_OUT_FACTOR: other text sees errors up to that
// factor larger (measured on held-out sentences: weights/README.md), and the printed prediction
// is the calibration figure times that factor.
import { Engine } from '../web/src/engine.mjs';
import { referenceForward, maxAttentionDelta } from './reference.mjs';
import { CALIBRATION_SENTENCES, tokenizeAscii } from './calibration.mjs';

// At most this many calibration tokens, and about this many multiply-accumulates of float64
// reference per calibration pass (600 tokens of bert-mini), but never fewer than
// MIN_CALIBRATION_TOKENS: the float64 reference in JavaScript is the slow part on large models.
export const CALIBRATION_TOKENS = 600;
export const CALIBRATION_MACS = 2e9;
export const MIN_CALIBRATION_TOKENS = 160;
// The ranking pass runs once per candidate, on this share of the calibration tokens.
export const RANKING_SHARE = 1 / 3;
// Held-out sentences (the parity fixtures of bert-mini-mlm and bert-mini-int8, the parity
// checkpoint sentences on random sharp checkpoints) measured at most this multiple of the
// calibration text's max |Δ| for the same weights file (weights/README.md).
export const HELD_OUT_FACTOR = 2;

// The calibration sentences in an order that mixes their kinds (narrative, technical, dialogue,
// lists, numbers, punctuation, short, long), so that a short budget still sees each kind.
function mixedOrder(count) {
  const stride = 7;  // coprime with the sentence count: every sentence once
  const order = [];
  for (let k = 0; k < count; k++) order.push((k * stride) % count);
  return order;
}

/** Multiply-accumulates per token of the encoder (the attention scores aside). */
export function macsPerToken(shape) {
  return shape.layers * (4 * shape.hidden * shape.hidden + 2 * shape.hidden * shape.ffn);
}

export function calibrationBudget(shape) {
  const byCost = Math.round(CALIBRATION_MACS / macsPerToken(shape));
  return Math.max(MIN_CALIBRATION_TOKENS, Math.min(CALIBRATION_TOKENS, byCost));
}

export function calibrationIds(vocabLines, maxPositions, budget = CALIBRATION_TOKENS) {
  if (CALIBRATION_SENTENCES.length % 7 === 0) throw new Error('calibration: the sentence count must be coprime with 7');
  const list = [];
  let total = 0;
  for (const index of mixedOrder(CALIBRATION_SENTENCES.length)) {
    const ids = tokenizeAscii(vocabLines, CALIBRATION_SENTENCES[index]).slice(0, maxPositions);
    list.push(ids);
    total += ids.length;
    if (total >= budget) break;
  }
  return list;
}

// One wasm instance for the whole search; each plan's weights file is loaded into it, run on
// the calibration ids and destroyed (its memory is reused by the next plan).
export class PlanJudge {
  constructor(wasmModule, idsList, references) {
    const instance = new WebAssembly.Instance(wasmModule, { env: { emscripten_notify_memory_growth() {} } });
    instance.exports._initialize?.();
    this.exports = instance.exports;
    this.memory = instance.exports.memory;
    this.idsList = idsList;
    this.references = references;
    this.runs = 0;
  }

  /**
   * The engine's attention max |Δ| from the reference over the first `count` sentences; with
   * `stopAbove`, returns as soon as one sentence exceeds it (the value is then a lower bound).
   */
  measure(bytes, { count = this.idsList.length, stopAbove = Infinity } = {}) {
    this.runs++;
    const engine = new Engine(this.exports, this.memory, bytes);
    const session = engine.createSession();
    let worst = 0;
    try {
      for (let i = 0; i < count && worst <= stopAbove; i++) {
        session.runIds(this.idsList[i]);
        worst = Math.max(worst, maxAttentionDelta(session.attention(), this.references[i]));
      }
    } finally {
      session.destroy();
      engine.destroy();
    }
    return worst;
  }
}

const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
const exp = (x) => x.toExponential(2);

/**
 * shape, floats (Map name → Float32Array, the checkpoint), vocabLines, candidates (names whose
 * precision is open), fixed (Map name → precision, decided), planFile(precisionOf) → the bytes
 * of a weights file with each matrix at precisionOf(name), wasm (a WebAssembly.Module of
 * web/dist/attn.wasm), target, log, referenceCache (optional { get(idsList), set(idsList,
 * attentions) } for the same checkpoint: convert.mjs keeps one on disk). Returns { choice: Map, predicted, calibration, reachable,
 * runs }: predicted = calibration max |Δ| × HELD_OUT_FACTOR; reachable false when no choice
 * meets the aim, null when there was nothing to choose (the file as forced, measured).
 */
export function searchPrecision({ shape, floats, vocabLines, candidates, fixed, planFile, wasm, target, log = () => {}, referenceCache }) {
  const started = performance.now();
  const aim = target / HELD_OUT_FACTOR;
  const idsList = calibrationIds(vocabLines, shape.maxPositions, calibrationBudget(shape));
  const tokens = idsList.reduce((a, ids) => a + ids.length, 0);
  log(`calibration: ${idsList.length} sentences, ${tokens} tokens (weights/calibration.mjs); `
    + (candidates.length ? `the engine must stay within ${exp(aim)} of the float64 reference there (target / ${HELD_OUT_FACTOR}, the held-out factor)`
      : 'every precision decided: the file is measured, not searched'));
  const model = { shape, tensors: floats };
  const cached = referenceCache?.get(idsList);
  const references = cached ?? idsList.map((ids) => referenceForward(model, ids, {}).attention);
  if (!cached) referenceCache?.set(idsList, references);
  log(`float64 reference on the calibration text: ${cached ? 'kept from an earlier run, ' : ''}${seconds(started)}`);
  const judge = new PlanJudge(wasm, idsList, references);
  const fileFor = (choice) => planFile((name) => choice.get(name) ?? fixed.get(name) ?? 'int8');
  const measure = (choice, options) => judge.measure(fileFor(choice), options);
  const allAt = (precision) => new Map(candidates.map((n) => [n, precision]));
  const result = (choice, calibration, reachable) => {
    log(`${candidates.length ? 'search' : 'measured'}: ${judge.runs} engine run${judge.runs === 1 ? '' : 's'}, ${seconds(started)}`);
    return { choice, calibration, predicted: calibration * HELD_OUT_FACTOR, reachable, runs: judge.runs };
  };

  const allInt8 = measure(allAt('int8'));
  log(`${candidates.length ? 'every candidate int8' : 'the file as chosen'}: calibration max |Δ| ${exp(allInt8)} (${seconds(started)})`);
  if (candidates.length === 0) return result(allAt('int8'), allInt8, null);  // nothing to choose
  if (allInt8 <= aim) return result(allAt('int8'), allInt8, true);
  const allInt16 = measure(allAt('int16'));
  log(`every candidate int16: calibration max |Δ| ${exp(allInt16)} (${seconds(started)})`);
  if (allInt16 > aim) {
    const closest = allInt16 <= allInt8 ? 'int16' : 'int8';
    log(`no choice of precisions reaches ${exp(aim)} on the calibration text: the engine's own rounding dominates; `
      + `every candidate ${closest}, the closest measured`);
    return result(allAt(closest), Math.min(allInt8, allInt16), false);
  }

  const rankingCount = rankingSentences(idsList);
  const sensitivity = new Map();
  const ranked = candidates.filter((name) => movesAttention(name, shape.layers));
  for (const name of candidates) if (!ranked.includes(name)) sensitivity.set(name, 0);
  if (ranked.length < candidates.length) {
    log(`${candidates.length - ranked.length} candidates act after the last softmax (the last layer's attention output and FFN `
      + 'matrices, the MLM head): they cannot move attention and are ranked last');
  }
  ranked.forEach((name, i) => {
    const onlyThis = allAt('int16').set(name, 'int8');
    sensitivity.set(name, measure(onlyThis, { count: rankingCount }));
    log(`ranking ${i + 1}/${ranked.length}: ${name} alone int8: ${exp(sensitivity.get(name))} (${seconds(started)})`);
  });
  const order = [...candidates].sort((a, b) => sensitivity.get(b) - sensitivity.get(a) || (a < b ? -1 : 1));
  const prefixChoice = (k) => new Map(order.map((n, i) => [n, i < k ? 'int16' : 'int8']));
  const measured = new Map([[order.length, allInt16]]);  // whole-text figures of prefixes within the aim
  let lo = 0, hi = order.length;  // prefix lo misses the aim; prefix hi meets it
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    const delta = measure(prefixChoice(mid), { stopAbove: aim });
    if (delta <= aim) measured.set(mid, delta);
    log(`bisection: the ${mid} most sensitive int16: ${delta <= aim ? `${exp(delta)}, within` : `over ${exp(aim)}`} (${seconds(started)})`);
    if (delta <= aim) hi = mid; else lo = mid;
  }
  return result(prefixChoice(hi), measured.get(hi), true);
}

// Whether a matrix can change any attention probability: the last layer's attention output and
// FFN matrices, and the MLM head, act after the last softmax. (The last layer's value matrix
// can: its input is quantized once with the query's and key's, c/kernels.c matmul_q8_shared.)
export function movesAttention(name, layers) {
  if (name.startsWith('cls.')) return false;
  const last = `bert.encoder.layer.${layers - 1}.`;
  return !(name.startsWith(last) && /(attention\.output\.dense|intermediate\.dense|output\.dense)\.weight$/.test(name));
}

function rankingSentences(idsList) {
  const total = idsList.reduce((a, ids) => a + ids.length, 0);
  let count = 0, tokens = 0;
  while (count < idsList.length && tokens < total * RANKING_SHARE) tokens += idsList[count++].length;
  return Math.max(1, count);
}
