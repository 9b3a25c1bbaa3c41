// How the benchmark measures, shared by the Node run (bench/bench.mjs) and the Chromium page
// (bench/page.mjs): no Node or DOM imports here.
//
// An engine is { name, label, prepare(ids) → input, run(input) → undefined | Promise,
// attention(ids) → Promise<Float32Array [layers][heads][n][n]> }. The first engine is ours;
// every ratio is another engine's time over ours in the same round.

export const LAYERS = 4, HEADS = 4;

/** Mulberry32: a small seeded generator, so a run's orders and resamples can be replayed. */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function shuffled(items, random) {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

export function median(values) {
  const s = Float64Array.from(values).sort(), m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function quantile(sorted, q) {
  const i = q * (sorted.length - 1), lo = Math.floor(i), hi = Math.ceil(i);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (i - lo);
}

/**
 * The median of all rounds and its 95% percentile-bootstrap interval over blocks: each resample
 * draws `blocks.length` blocks with replacement, then as many rounds as each drawn block has
 * from that block, with replacement. A block is a fresh process (Node) or page (Chromium) with
 * its own warm-up, so the interval carries what changes between runs (code placement, the
 * machine's load over time), not only the round-to-round scatter within one process.
 */
export function blockBootstrapMedian(blocks, random, { resamples = 2000, level = 0.95 } = {}) {
  const longest = Math.max(...blocks.map((b) => b.length));
  const sample = new Float64Array(blocks.length * longest), medians = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let k = 0;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[Math.floor(random() * blocks.length)];
      for (let i = 0; i < block.length; i++) sample[k++] = block[Math.floor(random() * block.length)];
    }
    medians[r] = median(sample.subarray(0, k));
  }
  medians.sort();
  return { median: median(blocks.flat()), lo: quantile(medians, (1 - level) / 2), hi: quantile(medians, (1 + level) / 2) };
}

/** Rounds per length over the whole run (shared out among the blocks): ≥ 101 where a run is
 * short and noise is relatively largest. */
export function defaultRounds(n) {
  return n <= 32 ? 201 : n <= 128 ? 101 : 61;
}

/** Blocks per run: each one a fresh process or page, so that the interval sees between-run change. */
export const DEFAULT_BLOCKS = 8;

/** Rounds each block runs so that the blocks together run at least `rounds`. */
export const roundsPerBlock = (rounds, blocks) => Math.ceil(rounds / blocks);

/** Multiply-adds of the weight-matrix products of one forward pass (the integer path's work):
 * per layer Q, K, V, O (4·n·H²) and the FFN (2·n·H·F). */
export function productMacs(n, { hidden: H = 256, ffn: F = 1024, layers: L = 4 } = {}) {
  return L * n * (4 * H * H + 2 * H * F);
}

/** Multiply-adds of one forward pass × 2: the weight products (productMacs) and the attention
 * scores and context (2·n²·H per layer over all heads); embeddings/LN/softmax not counted. */
export function forwardFlops(n, { hidden: H = 256, ffn: F = 1024, layers: L = 4 } = {}) {
  return 2 * (productMacs(n, { hidden: H, ffn: F, layers: L }) + L * 2 * n * n * H);
}

/** peers/README.md's ids: ids[i] = 5 + (s_i mod 29996), s_{k+1} = 1664525·s_k + 1013904223 mod 2^32, s_0 = n. */
export function lcgIds(n) {
  const ids = new Int32Array(n);
  let s = n >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(1664525, s) + 1013904223) >>> 0;
    ids[i] = 5 + (s % 29996);
  }
  return ids;
}

/** Real text of length n: [CLS], the fixture sentences' word pieces one after another
 * (repeated if needed), [SEP]. Both engines time the same ids. */
export function timingIds(sentences, n) {
  const pieces = [];
  for (const s of sentences) pieces.push(...s.ids.slice(1, -1));
  const [cls, sep] = [sentences[0].ids[0], sentences[0].ids.at(-1)];
  const ids = new Int32Array(n);
  ids[0] = cls;
  for (let i = 1; i < n - 1; i++) ids[i] = pieces[(i - 1) % pieces.length];
  ids[n - 1] = sep;
  return ids;
}

async function timeOnce(engine, input) {
  const start = performance.now();
  const pending = engine.run(input);
  if (pending) await pending;
  return performance.now() - start;
}

/**
 * Runs every engine (a new random order each pass) until its time is stable: the median of
 * its last `window` runs within `tolerance` of the median of the `window` before. Engines
 * that never settle stop after `maxRuns` runs or `maxMs`, and are reported as unstable.
 */
export async function warmUp(engines, inputs, random, { window = 7, tolerance = 0.03, maxRuns = 300, maxMs = 30000 } = {}) {
  const state = new Map(engines.map((e) => [e.name, { times: [], stable: false }]));
  const start = performance.now();
  const settled = (times) => {
    if (times.length < 2 * window) return false;
    const last = median(times.slice(-window)), before = median(times.slice(-2 * window, -window));
    return Math.abs(last / before - 1) <= tolerance;
  };
  for (;;) {
    const open = engines.filter((e) => !state.get(e.name).stable);
    if (!open.length) break;
    if (performance.now() - start > maxMs || open.every((e) => state.get(e.name).times.length >= maxRuns)) break;
    for (const e of shuffled(open, random)) {
      const s = state.get(e.name);
      s.times.push(await timeOnce(e, inputs[e.name]));
      s.stable = settled(s.times);
    }
  }
  return Object.fromEntries([...state].map(([name, s]) => [name, { runs: s.times.length, stable: s.stable }]));
}

/** `rounds` rounds, each engine once per round in a new random order; times in ms. */
export async function timeRounds(engines, inputs, rounds, random, between = () => {}) {
  const times = Object.fromEntries(engines.map((e) => [e.name, new Float64Array(rounds)]));
  for (let r = 0; r < rounds; r++) {
    for (const e of shuffled(engines, random)) times[e.name][r] = await timeOnce(e, inputs[e.name]);
    between(r);
  }
  return times;
}

/** One length in one block: warm-up, then `rounds` rounds; each engine's times (plain arrays). */
export async function timeLength(engines, ids, { rounds, random, warm = {}, between }) {
  const inputs = Object.fromEntries(engines.map((e) => [e.name, e.prepare(ids)]));
  const warmup = await warmUp(engines, inputs, random, warm);
  const times = await timeRounds(engines, inputs, rounds, random, between);
  return { warmup, times: Object.fromEntries(Object.entries(times).map(([name, t]) => [name, Array.from(t)])) };
}

/** A block's seed: the run's seed and the block number, so that `--seed` replays every block. */
export const blockSeed = (seed, block) => (seed + 1000003 * block) % 4294967296;

/**
 * One block: every length in turn on engines started for this block alone (a fresh process or
 * page). Returns plain data, since it crosses a process or page boundary.
 */
export async function runBlock({ engines, sentences, lengths, rounds, blocks, block, seed, peak, warm, log }) {
  const random = seededRandom(blockSeed(seed, block));
  if (peak) for (let i = 0; i < 6; i++) peak.measure();
  const out = [];
  for (const n of lengths) {
    const r = roundsPerBlock(rounds ?? defaultRounds(n), blocks);
    const { warmup, times } = await timeLength(engines, timingIds(sentences, n),
      { rounds: r, random, warm, between: (k) => { if (peak && k % 10 === 0) peak.measure(); } });
    out.push({ n, warmup, times });
    log?.(`  block ${block + 1}/${blocks} n=${n}: ${r} rounds, ` + engines.map((e) => `${e.name} ${median(times[e.name]).toFixed(3)} ms` +
      ` (warm-up ${warmup[e.name].runs}${warmup[e.name].stable ? '' : ', NOT stable'})`).join(', '));
  }
  if (peak) for (let i = 0; i < 6; i++) peak.measure();
  return { block, lengths: out, peakGflops: peak ? peak.best : null, dotPeakGmacs: peak ? peak.bestDot : null };
}

/**
 * The blocks of a run as one result: per length and engine the median time over every round
 * and, against ours, the median of the per-round ratios with its block-bootstrap interval.
 */
export function combineBlocks({ engines, blocks, errors, seed }) {
  const random = seededRandom(seed);
  const ours = engines[0].name;
  const rows = blocks[0].lengths.map(({ n }, i) => {
    const parts = blocks.map((b) => b.lengths[i]);
    const cells = {};
    for (const { name } of engines) {
      const cell = {
        ms: median(parts.flatMap((p) => p.times[name])),
        warmupRuns: Math.max(...parts.map((p) => p.warmup[name].runs)),
        stable: parts.every((p) => p.warmup[name].stable),
      };
      if (name !== ours) {
        const ratios = parts.map((p) => p.times[name].map((t, r) => t / p.times[ours][r]));
        cell.ratio = { ...blockBootstrapMedian(ratios, random), blockMedians: ratios.map(median) };
      }
      cells[name] = cell;
    }
    const rounds = parts.reduce((a, p) => a + p.times[ours].length, 0);
    return { n, rounds, blocks: parts.length, cells, gflops: forwardFlops(n) / (cells[ours].ms * 1e6) };
  });
  const best = (key) => {
    const values = blocks.map((b) => b[key]).filter((x) => x);
    return values.length ? Math.max(...values) : null;
  };
  return { seed, blocks: blocks.length, engines: engines.map(({ name, label }) => ({ name, label })), errors, rows,
    peakGflops: best('peakGflops'), dotPeakGmacs: best('dotPeakGmacs') };
}

// ---------------------------------------------------------------- accuracy

/** Attention max and mean |Δ| of an engine against a float64 fixture set (fixtures/README.md:
 * attention [layer][head][len(rows)][n] at attention_offset of the .f32 floats). */
export async function attentionError(attentionOf, fixture, { limit = Infinity } = {}) {
  let max = 0, sum = 0, count = 0, worst = null;
  for (const s of fixture.sentences.slice(0, limit)) {
    const ours = await attentionOf(Int32Array.from(s.ids));
    const n = s.n, rows = s.rows, base = s.attention_offset / 4;
    for (let lh = 0; lh < LAYERS * HEADS; lh++) {
      for (let k = 0; k < rows.length; k++) {
        const theirs = base + (lh * rows.length + k) * n, mine = (lh * n + rows[k]) * n;
        for (let j = 0; j < n; j++) {
          const d = Math.abs(ours[mine + j] - fixture.floats[theirs + j]);
          if (!(d <= max)) { max = d; worst = s.text; }
          sum += d;
          count++;
        }
      }
    }
  }
  return { max, mean: sum / count, sentences: Math.min(limit, fixture.sentences.length), worst };
}

/** The float64 fixture sets an engine's attention can be compared with (tests/fixtures/README.md). */
export const FIXTURE_SETS = [
  { model: 'bert-mini-mlm', prefix: 'tests/fixtures/attention' },
  { model: 'bert-mini-int8', prefix: 'tests/fixtures/bert-mini-int8/attention' },
];
/** The ORT peers are the float-trained checkpoint (../shared/peers/README.md). */
export const PEER_MODEL = 'bert-mini-mlm';

/**
 * The fixtures each engine is judged by: the peers by PEER_MODEL's; ours by `forced` (a loaded
 * fixture, from --fixtures) or else by the set its weights reproduce best on a few sentences
 * (the weights file does not name its checkpoint, and the two differ by ~1e-2).
 */
export async function pickFixtures(ours, sets, forced = null) {
  const peer = sets.find((s) => s.model === PEER_MODEL);
  if (forced) return { ours: forced, peer, note: `ours: judged by ${forced.model} (--fixtures)` };
  const scored = [];
  for (const f of sets) scored.push({ f, error: (await attentionError((ids) => ours.attention(ids), f, { limit: 6 })).max });
  scored.sort((a, b) => a.error - b.error);
  const others = scored.slice(1).map((s) => `${s.f.model} ${s.error.toExponential(1)}`).join(', ');
  return { ours: scored[0].f, peer,
    note: `ours: weights reproduce ${scored[0].f.model} (attention max |Δ| ${scored[0].error.toExponential(1)} on 6 sentences; ${others})` };
}

// ---------------------------------------------------------------- wasm SIMD f32 peak

export async function loadPeak(bytes) {
  if (!bytes) return null;
  const { instance } = await WebAssembly.instantiate(bytes, {});
  const { peak_f32x4: f32, peak_flops_per_iteration: flops, peak_dot_i16x8: dot, peak_dot_macs_per_iteration: macs } = instance.exports;
  const rate = (run, perIteration, iterations) => {
    const t = performance.now();
    run(iterations);
    return (iterations * perIteration) / ((performance.now() - t) * 1e6);
  };
  return {
    best: 0,
    bestDot: 0,
    /** Two ~15 ms measurements; keeps the best rates seen (noise only ever lowers them). */
    measure(iterations = 2_000_000) {
      this.best = Math.max(this.best, rate((i) => f32(i, 0.999999, 1e-6), flops(), iterations));
      this.bestDot = Math.max(this.bestDot, rate((i) => dot(i, 3), macs(), iterations / 2));
    },
  };
}

// ---------------------------------------------------------------- ORT-web (the same code in Node and Chromium)

export function ortEngines(ort, sessions) {
  const feeds = (ids) => {
    const n = ids.length, t = (a) => new ort.Tensor('int64', a, [1, n]);
    return { input_ids: t(BigInt64Array.from(ids, BigInt)), attention_mask: t(new BigInt64Array(n).fill(1n)),
      token_type_ids: t(new BigInt64Array(n)) };
  };
  return Object.entries(sessions).map(([kind, session]) => ({
    name: kind, label: `ORT-web ${kind}`,
    prepare: feeds,
    run: (input) => session.run(input),
    async attention(ids) {
      const n = ids.length, out = await session.run(feeds(ids)), all = new Float32Array(LAYERS * HEADS * n * n);
      for (let l = 0; l < LAYERS; l++) all.set(out[`attentions_${l}`].data, l * HEADS * n * n);
      return all;
    },
  }));
}

export function oursEngine(engine, name = 'ours', label = 'ours') {
  const session = engine.createSession();
  return {
    name, label,
    prepare: (ids) => ids,
    run: (ids) => { session.runIds(ids); },
    async attention(ids) { session.runIds(ids); return session.attention(); },
  };
}

/**
 * A block on engines loaded by its caller (bench.mjs in a child process, page.mjs in a fresh
 * page; `ours` is oursEngine(engine)): the engine list, the errors when options.errors > 0, then the timed block. Block 0
 * logs the notes on what was loaded.
 */
export async function benchBlock({ engine, ours, ort, sessions, fixtures, peak, notes, options, log }) {
  if (options.block === 0) for (const line of notes) log(line);
  const engines = [ours];
  if (options.aa) engines.push(oursEngine(engine, 'ours_b', 'ours (A/A)'));
  if (ort) engines.push(...ortEngines(ort, sessions));
  const errors = await measureErrors(engines, (name) => (name.startsWith('ours') ? fixtures.ours : fixtures.peer), options.errors);
  const block = await runBlock({ engines, sentences: fixtures.ours.sentences, lengths: options.lengths, rounds: options.rounds,
    blocks: options.blocks, block: options.block, seed: options.seed, peak, log });
  return { block, errors, notes, engines: engines.map(({ name, label }) => ({ name, label })) };
}

/** Each engine's attention error against its fixture set (null where there is none or limit is 0). */
export async function measureErrors(engines, fixtureOf, limit) {
  const errors = {};
  for (const e of engines) {
    const fixture = limit > 0 ? fixtureOf(e.name) : null;
    errors[e.name] = fixture ? { ...(await attentionError((ids) => e.attention(ids), fixture, { limit })), model: fixture.model } : null;
  }
  return errors;
}
