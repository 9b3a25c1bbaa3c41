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
// 3. Ranking, on the calibration text too: the error each candidate causes alone at int8, every other int16, in the attention of the layer it moves
//    first (firstLayerMoved) and the next. A query or key matrix moves its own layer's attention
//    and hardly any later one (weights/README.md), so one run with every query int8 ranks all
//    queries, one more all keys. Each other candidate has a run of its own on a small ranking
//    file (RankingFiles): the layers it needs and the calibration tokens' rows; from layer 1 on,
//    started from the input the all-int16 file gave its layer, so the layers before are not run.
// 4. Bisection on the length of the ranked list's prefix promoted to int16 (the rest int8),
//    judged on the whole calibration text with the converter's own files, starting above the
//    candidates whose figure alone is over the aim; the plan chosen is measured on all of it.
//
// The aim on the calibration text is target / HELD_OUT_FACTOR: other text sees errors up to that
// factor larger (measured on held-out sentences: weights/README.md), and the printed prediction
// is the calibration figure times that factor.
import { referenceForward, maxAttentionDelta } from './reference.mjs';
import { CALIBRATION_SENTENCES, tokenizeAscii } from './calibration.mjs';
import { buildFile, paddingEntry, quantize, tensorPlan, WORD_EMBEDDINGS } from './convert-core.mjs';
import { ENTRY, ENTRY_SIZE, HEADER, KINDS, LAYER_PREFIX, QMAX, SPECIAL_TOKENS, readField } from '../c/spec.mjs';

// At most this many calibration tokens, and about this many multiply-accumulates of float64
// reference per calibration pass (600 tokens of bert-mini), but never fewer than
// MIN_CALIBRATION_TOKENS: the float64 reference in JavaScript is the slow part on large models.
export const CALIBRATION_TOKENS = 600;
export const CALIBRATION_MACS = 2e9;
export const MIN_CALIBRATION_TOKENS = 160;
// A ranking file holds the layers up to this many after the first one a candidate moves.
export const RANKING_LAYERS_AFTER = 1;
// Held-out sentences (the parity fixtures of bert-mini-mlm and bert-mini-int8, the parity
// checkpoint sentences on random checkpoints, sharp or at a trained BERT's scales) measured at
// most 1.82 times the calibration text's max |Δ| for the same weights file (weights/README.md).
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
// token ids and destroyed (its memory is reused by the next plan).
export class PlanJudge {
  constructor({ Engine, wasm }, idsList, references) {
    const instance = new WebAssembly.Instance(wasm, { env: { emscripten_notify_memory_growth() {} } });
    this.Engine = Engine;
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
   * keep(session, index), when given, sees each run's session.
   */
  measure(bytes, { count = this.idsList.length, stopAbove = Infinity, keep } = {}) {
    let worst = 0;
    this.run(bytes, this.idsList.slice(0, count), (session, i) => {
      worst = Math.max(worst, maxAttentionDelta(session.attention(), this.references[i]));
      keep?.(session, i);
      return worst <= stopAbove;
    });
    return worst;
  }

  /**
   * Each layer's attention max |Δ| ([layers] of the file) from the reference's layer `from` +
   * that layer, over `idsList` (ids of the file's vocabulary) standing for the first sentences.
   */
  layerDeltas(bytes, idsList, from = 0) {
    let worst = null;
    this.run(bytes, idsList, (session, i) => {
      const { layers } = session.engine.shape;
      const attention = session.attention(), size = attention.length / layers;
      worst ??= new Float64Array(layers);
      for (let layer = 0; layer < layers; layer++) {
        const theirs = this.references[i].subarray((from + layer) * size, (from + layer + 1) * size);
        worst[layer] = Math.max(worst[layer], maxAttentionDelta(attention.subarray(layer * size, (layer + 1) * size), theirs));
      }
      return true;
    });
    return worst;
  }

  // Loads `bytes`, runs each ids of `idsList` and gives the session to each(session, index)
  // until that returns false.
  run(bytes, idsList, each) {
    this.runs++;
    const engine = new this.Engine(this.exports, this.memory, bytes);
    const session = engine.createSession();
    try {
      for (let i = 0; i < idsList.length; i++) {
        session.runIds(idsList[i]);
        if (!each(session, i)) break;
      }
    } finally {
      session.destroy();
      engine.destroy();
    }
  }
}

// Smaller weights files for the ranking, made of the arrays of the all-int8 and all-int16 files
// as the converter wrote them (nothing quantized again) and without the masked-word head.
// file(): the layers up to a depth, and a vocabulary of the given sentences' tokens and the
// special tokens only, with those rows of the word embeddings (the sentences' ids mapped onto
// it: `idsList`). On those sentences the engine reads the same bytes for every layer it runs as
// in the whole file, so its attention there is the whole file's, layer for layer.
// resumed(): layers from a layer `from` on, started from the input the all-int16 file gave that
// layer (`inputs`): one vocabulary entry per token of those sentences (`resumedIds`), its
// word-embedding row that input before the previous layer's LayerNorm scale and shift, which the
// embedding LayerNorm then applies (position and token-type rows zero). The rows are stored at
// 15 bits, as the engine rounds its activations, so the engine's attention differs from the
// whole file's by far less than what a candidate at int8 moves (tests/precision-search.test.mjs).
export class RankingFiles {
  constructor(shape, vocabLines, { int8, int16 }, idsList, inputs = null) {
    const plan = tensorPlan(shape, { mlm: false });
    this.tables = { int8: tableOf(int8, plan), int16: tableOf(int16, plan) };
    const specials = SPECIAL_TOKENS.map((token) => vocabLines.indexOf(token)).filter((id) => id >= 0);
    this.rows = [...new Set([...idsList.flat(), ...specials])].sort((a, b) => a - b);
    const rowOf = new Map(this.rows.map((id, row) => [id, row]));
    this.idsList = idsList.map((ids) => ids.map((id) => rowOf.get(id)));
    this.vocab = new TextEncoder().encode(`${this.rows.map((id) => vocabLines[id]).join('\n')}\n`);
    this.shape = { ...shape, vocab: this.rows.length };
    this.inputs = inputs;
    let next = SPECIAL_TOKENS.length;
    this.resumedIds = idsList.map((ids) => ids.map(() => next++));
    this.resumedCount = next;
    const entries = [...SPECIAL_TOKENS, ...Array.from({ length: next - SPECIAL_TOKENS.length }, (_, i) => paddingEntry(i))];
    this.resumedVocab = new TextEncoder().encode(`${entries.join('\n')}\n`);
    this.resumedRows = new Map();  // layer → its inputs as word-embedding rows
  }

  /** The file of the first `layers` layers, each matrix at precisionOf(name). */
  file(precisionOf, layers) {
    const shape = { ...this.shape, layers };
    const tensors = tensorPlan(shape, { mlm: false }).map((t) => {
      const source = this.source(t, precisionOf);
      return t.name === WORD_EMBEDDINGS ? { ...t, ...wordRows(source, this.rows) } : { ...t, ...source };
    });
    return buildFile(shape, this.vocab, '', tensors);
  }

  /** Whether resumed() can start at layer `from`: stored inputs, and a LayerNorm scale without a 0 before it. */
  resumes(from) {
    return from >= 1 && this.inputs !== null && this.tables.int16.get(`${LAYER_PREFIX}${from - 1}.output.LayerNorm.weight`).data.every((g) => g !== 0);
  }

  /** The file of layers from, from + 1, … (`layers` of them) started from layer from's input. */
  resumed(precisionOf, from, layers) {
    if (!this.resumes(from)) throw new Error(`ranking files: no file resumed at layer ${from}`);
    const shape = { ...this.shape, layers, vocab: this.resumedCount };
    const layerName = (name, layer) => name.replace(/^bert\.encoder\.layer\.(\d+)\./, (_, l) => `${LAYER_PREFIX}${Number(l) + layer}.`);
    const norm = (part) => this.tables.int16.get(`${LAYER_PREFIX}${from - 1}.output.LayerNorm.${part}`).data;
    const tensors = tensorPlan(shape, { mlm: false }).map((t) => {
      if (t.name === WORD_EMBEDDINGS) return { ...t, ...this.inputRows(from, norm('weight'), norm('bias')) };
      if (t.name === 'bert.embeddings.LayerNorm.weight') return { ...t, data: norm('weight') };
      if (t.name === 'bert.embeddings.LayerNorm.bias') return { ...t, data: norm('bias') };
      if (t.kind === 'matrix' && t.role === 'lookup') return { ...t, ...zeroRows(t.rows, t.cols) };
      const name = layerName(t.name, from);
      return { ...t, ...this.source({ ...t, name }, precisionOf) };
    });
    return buildFile(shape, this.resumedVocab, '', tensors);
  }

  source(t, precisionOf) {
    return this.tables[t.kind === 'matrix' && precisionOf(t.name) === 'int8' ? 'int8' : 'int16'].get(t.name);
  }

  // Layer `from`'s inputs, (input − β) / γ of the LayerNorm that made them, as int16 rows after
  // the special tokens' (zero).
  inputRows(from, gamma, beta) {
    if (!this.resumedRows.has(from)) {
      const { hidden } = this.shape;
      const count = this.resumedCount;
      const rows = new Float32Array(count * hidden);
      let at = SPECIAL_TOKENS.length * hidden;
      for (const sentence of this.inputs) {
        const x = sentence[from];
        for (let i = 0; i < x.length; i++) rows[at + i] = (x[i] - beta[i % hidden]) / gamma[i % hidden];
        at += x.length;
      }
      const { q, scales } = quantize(rows, count, hidden, hidden, QMAX.int16Lookup);
      this.resumedRows.set(from, { data: q, scales, precision: 'int16', group: hidden, qmax: QMAX.int16Lookup });
    }
    return this.resumedRows.get(from);
  }
}

// An int16 lookup table of zeros (scale 0).
function zeroRows(rows, cols) {
  return { data: new Int16Array(rows * cols), scales: new Float32Array(rows), precision: 'int16', group: cols, qmax: QMAX.int16Lookup };
}

const PRECISION_OF_KIND = Object.fromEntries(Object.entries(KINDS).map(([name, code]) => [code, name]));
const ARRAY_OF = { int8: Int8Array, int16: Int16Array, f32: Float32Array };

// name → { data, scales, precision, group, qmax } of a weights file's tensors (views on its bytes).
function tableOf(bytes, plan) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const table = readField(view, 0, HEADER.tableOffset);
  const entries = new Map();
  for (let i = 0; i < readField(view, 0, HEADER.tensorCount); i++) {
    const at = table + i * ENTRY_SIZE, field = (name) => readField(view, at, ENTRY[name]);
    const name = new TextDecoder().decode(field('name')).replace(/\0+$/, '');
    const precision = PRECISION_OF_KIND[field('kind')];
    const array = (Type, offset, length) => new Type(bytes.buffer, bytes.byteOffset + offset, length / Type.BYTES_PER_ELEMENT);
    const entry = { data: array(ARRAY_OF[precision], field('dataOffset'), field('dataBytes')) };
    if (precision !== 'f32') {
      Object.assign(entry, { scales: array(Float32Array, field('scaleOffset'), field('scaleBytes')), precision,
        group: field('group'), qmax: field('qmax') });
    }
    entries.set(name, entry);
  }
  for (const t of plan) if (!entries.has(t.name)) throw new Error(`ranking files: the weights file has no ${t.name}`);
  return entries;
}

// The word-embedding rows `rows` (one scale per row) of a table entry.
function wordRows(entry, rows) {
  const cols = entry.data.length / entry.scales.length;
  const data = new entry.data.constructor(rows.length * cols);
  const scales = new Float32Array(rows.length);
  rows.forEach((id, row) => {
    data.set(entry.data.subarray(id * cols, (id + 1) * cols), row * cols);
    scales[row] = entry.scales[id];
  });
  return { ...entry, data, scales };
}

const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
const exp = (x) => x.toExponential(2);

/**
 * shape, floats (Map name → Float32Array, the checkpoint), vocabLines, candidates (names whose
 * precision is open), fixed (Map name → precision, decided), planFile(precisionOf) → the bytes
 * of a weights file with each matrix at precisionOf(name), engine ({ Engine: web/src/engine.mjs's
 * class, wasm: a WebAssembly.Module of web/dist/attn.wasm }), target, log, referenceCache (optional { get(idsList), set(idsList,
 * attentions) } for the same checkpoint: convert.mjs keeps one on disk). Returns { choice: Map, predicted, calibration, reachable,
 * runs }: predicted = calibration max |Δ| × HELD_OUT_FACTOR; reachable false when no choice
 * meets the aim, null when there was nothing to choose (the file as forced, measured).
 */
export function searchPrecision({ shape, floats, vocabLines, candidates, fixed, planFile, engine, target, log = () => {}, referenceCache }) {
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
  const judge = new PlanJudge(engine, idsList, references);
  const precisionIn = (choice) => (name) => choice.get(name) ?? fixed.get(name) ?? 'int8';
  const allAt = (precision) => new Map(candidates.map((n) => [n, precision]));
  const result = (choice, calibration, reachable) => {
    log(`${candidates.length ? 'search' : 'measured'}: ${judge.runs} engine run${judge.runs === 1 ? '' : 's'}, ${seconds(started)}`);
    return { choice, calibration, predicted: calibration * HELD_OUT_FACTOR, reachable, runs: judge.runs };
  };

  const int8File = planFile(precisionIn(allAt('int8')));
  const allInt8 = judge.measure(int8File);
  log(`${candidates.length ? 'every candidate int8' : 'the file as chosen'}: calibration max |Δ| ${exp(allInt8)} (${seconds(started)})`);
  if (candidates.length === 0) return result(allAt('int8'), allInt8, null);  // nothing to choose
  if (allInt8 <= aim) return result(allAt('int8'), allInt8, true);
  const int16File = planFile(precisionIn(allAt('int16')));
  // Every layer's input, kept for the resumed ranking files.
  const inputs = [];
  const keep = (session) => inputs.push(Array.from({ length: shape.layers }, (_, layer) => session.hidden(layer)));
  const allInt16 = judge.measure(int16File, { keep });
  log(`every candidate int16: calibration max |Δ| ${exp(allInt16)} (${seconds(started)})`);
  if (allInt16 > aim) {
    const closest = allInt16 <= allInt8 ? 'int16' : 'int8';
    log(`no choice of precisions reaches ${exp(aim)} on the calibration text: the engine's own rounding dominates; `
      + `every candidate ${closest}, the closest measured`);
    return result(allAt(closest), Math.min(allInt8, allInt16), false);
  }

  const ranking = new RankingFiles(shape, vocabLines, { int8: int8File, int16: int16File }, idsList, inputs);
  const sensitivity = rank({ shape, candidates, ranking, judge, precisionIn, allAt, log, started });
  const order = [...candidates].sort((a, b) => sensitivity.get(b) - sensitivity.get(a) || (a < b ? -1 : 1));
  const prefixChoice = (k) => new Map(order.map((n, i) => [n, i < k ? 'int16' : 'int8']));
  const measured = new Map([[order.length, allInt16]]);  // whole-text figures of prefixes within the aim
  // Prefix lo misses the aim; prefix hi meets it. A candidate whose figure alone is over the aim
  // (with every other one int16) does not come within it beside other int8 ones: the prefix
  // that leaves the last of them int8 is taken to miss.
  const over = order.filter((n) => sensitivity.get(n) > aim).length;
  let lo = Math.max(0, over - 1), hi = order.length;
  log(`bisection: ${over} candidates are over ${exp(aim)} alone; between the ${lo} and the ${hi} most sensitive int16`);
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    const delta = judge.measure(planFile(precisionIn(prefixChoice(mid))), { stopAbove: aim });
    if (delta <= aim) measured.set(mid, delta);
    log(`bisection: the ${mid} most sensitive int16: ${delta <= aim ? `${exp(delta)}, within` : `over ${exp(aim)}`} (${seconds(started)})`);
    if (delta <= aim) hi = mid; else lo = mid;
  }
  return result(prefixChoice(hi), measured.get(hi), true);
}

// Map candidate → the attention max |Δ| it causes alone at int8 (every other candidate int16)
// in the layers it moves first, on the calibration text; 0 for those that move no attention.
function rank({ shape, candidates, ranking, judge, precisionIn, allAt, log, started }) {
  const sensitivity = new Map();
  const moving = candidates.filter((name) => firstLayerMoved(name, shape.layers) !== null);
  for (const name of candidates) if (!moving.includes(name)) sensitivity.set(name, 0);
  if (moving.length < candidates.length) {
    log(`${candidates.length - moving.length} candidates act after the last softmax (the last layer's attention output and FFN `
      + 'matrices, the MLM head): they cannot move attention and are ranked last');
  }
  log('ranking on the calibration text: each candidate alone int8, every other int16, in the attention of the layer it '
    + `moves first and the ${RANKING_LAYERS_AFTER} after it`);
  let done = 0;
  const line = (what, figure) => log(`ranking ${++done}/${moving.length}: ${what}: ${exp(figure)} (${seconds(started)})`);
  // Queries, then keys: one run each for every layer's.
  for (const kind of ['query', 'key']) {
    const group = moving.filter((name) => attentionKind(name) === kind);
    if (group.length < 2) continue;
    const deltas = judge.layerDeltas(ranking.file(precisionIn(withInt8(allAt('int16'), group)), shape.layers), ranking.idsList);
    for (const name of group) {
      sensitivity.set(name, deltas[firstLayerMoved(name, shape.layers)]);
      line(`${name} int8 with every ${kind} matrix`, sensitivity.get(name));
    }
  }
  for (const name of moving) {
    if (sensitivity.has(name)) continue;
    const first = firstLayerMoved(name, shape.layers), own = layerOf(name);
    const end = Math.min(shape.layers, first + 1 + RANKING_LAYERS_AFTER);
    const precisionOf = precisionIn(withInt8(allAt('int16'), [name]));
    // A matrix of layer 1 or later: its layer and the next, from its layer's stored input.
    const resumed = ranking.resumes(own);
    const deltas = resumed
      ? judge.layerDeltas(ranking.resumed(precisionOf, own, end - own), ranking.resumedIds, own).subarray(first - own)
      : judge.layerDeltas(ranking.file(precisionOf, end), ranking.idsList).subarray(first);
    sensitivity.set(name, Math.max(...deltas));
    line(`${name} alone int8 (layers ${resumed ? `${own} to ${end - 1}, from layer ${own}'s input` : `0 to ${end - 1}`})`, sensitivity.get(name));
  }
  return sensitivity;
}

const layerOf = (name) => Number(/^bert\.encoder\.layer\.(\d+)\./.exec(name)?.[1] ?? -1);
const withInt8 = (choice, names) => { for (const name of names) choice.set(name, 'int8'); return choice; };

function attentionKind(name) {
  return /attention\.self\.(query|key)\.weight$/.exec(name)?.[1] ?? null;
}

/**
 * The first layer whose attention a matrix can change, or null: the embeddings move layer 0's;
 * a layer's query, key and value matrices its own (the value's input is quantized once with
 * the query's and key's, c/linear.c linear_shared); its attention output and FFN matrices
 * the next layer's, and nothing in the last layer; the MLM head nothing.
 */
export function firstLayerMoved(name, layers) {
  if (name.startsWith('bert.embeddings.')) return 0;
  const match = /^bert\.encoder\.layer\.(\d+)\.(.*)$/.exec(name);
  if (!match) return null;
  const layer = Number(match[1]);
  if (/^attention\.self\./.test(match[2])) return layer;
  return layer + 1 < layers ? layer + 1 : null;
}

// Whether a matrix can change any attention probability: the last layer's attention output and
// FFN matrices, and the MLM head, act after the last softmax.
export function movesAttention(name, layers) {
  return firstLayerMoved(name, layers) !== null;
}
