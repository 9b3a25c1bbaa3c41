// The per-length profile of bench/profile.mjs, shared by Node and the Chromium page
// (bench/profile-page.mjs): no Node or DOM imports here.
//
// Four measurements per length, repeated and alternated; of the `repeats` the smallest is kept
// (on a machine shared with other work, the least disturbed one; the integer-dot peak is also
// the best of the run):
//  - the parts: build/profile.wasm (bench/profile.c) runs the encoder step by step, each step
//    timed, the activations' quantization inside the weight products separated out;
//  - the whole pass in the same module (bert_forward), against which the parts' sum is checked;
//  - the production engine (web/dist/attn.wasm) through Session.runIds, and its wasm call
//    attn_session_run_ids alone: the difference is the boundary (ids in, token list out).
import { productMacs, timingIds } from './measure.mjs';

const H = 256, F = 1024, L = 4;

/** Multiply-adds of each weight product over a pass (the products of productMacs, by matrix). */
export const PRODUCT_MACS = {
  'Q, K, V products': (n) => L * n * 3 * H * H,
  'attention output product': (n) => L * n * H * H,
  'FFN in product': (n) => L * n * H * F,
  'FFN out product': (n) => L * n * H * F,
};

export async function loadProfiler(wasmBytes, weightsBytes) {
  let memory = null;
  const { instance } = await WebAssembly.instantiate(wasmBytes, {
    env: { profile_clock: () => performance.now(), emscripten_notify_memory_growth() {} },
  });
  const x = instance.exports;
  x._initialize?.();
  memory = x.memory;
  const p = x.profile_alloc(weightsBytes.length);
  new Uint8Array(memory.buffer, p, weightsBytes.length).set(weightsBytes);
  if (!x.profile_load(p, weightsBytes.length)) throw new Error('profile: the weights were refused');
  const names = [];
  for (let k = 0; k < x.profile_part_count(); k++) {
    const s = x.profile_part_name(k), bytes = new Uint8Array(memory.buffer, s);
    names.push(new TextDecoder().decode(bytes.subarray(0, bytes.indexOf(0))));
  }
  const idsAt = x.profile_alloc(4 * 512);
  const place = (ids) => new Int32Array(memory.buffer, idsAt, ids.length).set(ids);
  return {
    names,
    parts(ids, runs) {
      place(ids);
      if (!x.profile_parts(idsAt, ids.length, runs)) throw new Error(`profile: n = ${ids.length} refused`);
      return names.map((_, k) => x.profile_part_ms(k));
    },
    forward(ids, runs) {
      place(ids);
      return x.profile_forward(idsAt, ids.length, runs);
    },
  };
}

/** ms per Session.runIds, and per attn_session_run_ids call alone, on the production engine. */
export function engineTimer(engine) {
  const session = engine.createSession();
  const timed = (runs, run) => {
    const t = performance.now();
    for (let i = 0; i < runs; i++) run();
    return (performance.now() - t) / runs;
  };
  return {
    runIds: (ids, runs) => timed(runs, () => session.runIds(ids)),
    call: (ids, runs) => session.heap.withBuffer(4 * ids.length, (p) => session.heap.i32(p, ids.length).set(ids),
      (p) => timed(runs, () => session.x.attn_session_run_ids(session.pointer, p, ids.length))),
  };
}

export const runsFor = (n) => Math.max(2, Math.round(320 / n));

/** One row per length: parts (ms), the parts' sum, the module's whole pass, the engine's runIds and
 * call, the dot peak (GMAC/s) measured between them. */
export async function profileLengths({ profiler, timer, peak, sentences, lengths, repeats = 9, log = () => {} }) {
  const rows = [];
  for (const n of lengths) {
    const ids = timingIds(sentences, n), runs = runsFor(n);
    profiler.parts(ids, 2), profiler.forward(ids, 2), timer.runIds(ids, 2), timer.call(ids, 2);  // warm
    const samples = { parts: [], forward: [], runIds: [], call: [] };
    for (let r = 0; r < repeats; r++) {
      samples.parts.push(profiler.parts(ids, runs));
      samples.forward.push(profiler.forward(ids, runs));
      samples.runIds.push(timer.runIds(ids, runs));
      samples.call.push(timer.call(ids, runs));
      peak?.measure(1_000_000);
    }
    const least = (values) => Math.min(...values);
    const parts = profiler.names.map((_, k) => least(samples.parts.map((p) => p[k])));
    const row = { n, runs, parts, sum: parts.reduce((a, b) => a + b, 0), forward: least(samples.forward),
      runIds: least(samples.runIds), call: least(samples.call), dotPeak: peak?.bestDot ?? null };
    log(`  n=${n}: ${runs} runs × ${repeats}: parts ${row.sum.toFixed(3)} ms, bert_forward ${row.forward.toFixed(3)} ms, ` +
      `runIds ${row.runIds.toFixed(3)} ms (call ${row.call.toFixed(3)} ms)`);
    rows.push(row);
  }
  return { names: profiler.names, rows, dotPeak: peak?.bestDot ?? null };
}

const pct = (x) => `${(100 * x).toFixed(0)}%`;

/** The profile as Markdown: ms and share of the pass per part and length; the products' own rate
 * as a share of the dot peak; the lines that say what bounds the pass. */
export function profileTables({ names, rows, dotPeak }) {
  const header = `| part | ${rows.map((r) => `n = ${r.n}`).join(' | ')} |`;
  const rule = `|---|${rows.map(() => '---:').join('|')}|`;
  const lines = [header, rule];
  const peakMs = (macs) => (dotPeak ? macs / (dotPeak * 1e6) : NaN);
  names.forEach((name, k) => {
    const cells = rows.map((r) => {
      const ms = r.parts[k], share = ms / r.sum, macs = PRODUCT_MACS[name]?.(r.n);
      const rate = macs && dotPeak ? `, ${pct(peakMs(macs) / ms)} of peak` : '';
      return `${ms.toFixed(3)} (${pct(share)}${rate})`;
    });
    lines.push(`| ${name} | ${cells.join(' | ')} |`);
  });
  const product = (r) => names.reduce((a, name, k) => a + (PRODUCT_MACS[name] ? r.parts[k] : 0), 0);
  lines.push(`| **sum of the parts** | ${rows.map((r) => `**${r.sum.toFixed(3)}**`).join(' | ')} |`);
  lines.push(`| bert_forward, same module | ${rows.map((r) => r.forward.toFixed(3)).join(' | ')} |`);
  lines.push(`| engine: attn_session_run_ids | ${rows.map((r) => r.call.toFixed(3)).join(' | ')} |`);
  lines.push(`| engine: Session.runIds (boundary: ${rows.map((r) => `${(r.runIds - r.call).toFixed(3)}`).join(', ')} ms) | ${rows.map((r) => r.runIds.toFixed(3)).join(' | ')} |`);
  lines.push(`| products at the dot peak would take | ${rows.map((r) => peakMs(productMacs(r.n)).toFixed(3)).join(' | ')} |`);
  lines.push(`| **products of dot peak, on their own** | ${rows.map((r) => `**${pct(peakMs(productMacs(r.n)) / product(r))}**`).join(' | ')} |`);
  lines.push(`| **products of dot peak, over runIds** | ${rows.map((r) => `**${pct(peakMs(productMacs(r.n)) / r.runIds)}**`).join(' | ')} |`);
  lines.push(`| everything but the products, share of the parts | ${rows.map((r) => pct(1 - product(r) / r.sum)).join(' | ')} |`);
  return lines.join('\n');
}
