// Tables and summary lines of a bench result (bench/measure.mjs combineBlocks), as text for the
// terminal or as Markdown for the READMEs (`--markdown`), so no figure is typed by hand.
import { productMacs } from './measure.mjs';

const fixed = (x, d = 2) => (x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(d));
const sci = (x) => (Number.isFinite(x) ? x.toExponential(1) : 'n/a');

const peers = (result) => result.engines.slice(1);
const oursName = (result) => result.engines[0].name;

/** The weight products' multiply-adds per ms of a whole forward pass taking `ms`, as a fraction
 * of the machine's i32x4.dot_i16x8_s peak (bench/peak.c): an upper bound on what faster
 * products could give, since the products cannot beat that peak and the rest is not free. */
export function dotPeakFraction(result, n, ms) {
  return result.dotPeakGmacs ? productMacs(n) / (ms * 1e6) / result.dotPeakGmacs : null;
}

function speedTable(result) {
  const ours = oursName(result);
  const header = ['n', 'rounds', `${result.engines[0].label} ms`];
  for (const p of peers(result)) header.push(`${p.label} ms`, `${p.label} / ours (95% CI)`);
  header.push('ours GFLOP/s');
  if (result.peakGflops) header.push('of f32 peak');
  if (result.dotPeakGmacs) header.push('products of dot peak');
  const rows = result.rows.map((row) => {
    const cells = [String(row.n), String(row.rounds), fixed(row.cells[ours].ms, 3)];
    for (const p of peers(result)) {
      const c = row.cells[p.name];
      cells.push(fixed(c.ms, 2), `${fixed(c.ratio.median)}× [${fixed(c.ratio.lo)}, ${fixed(c.ratio.hi)}]`);
    }
    cells.push(fixed(row.gflops, 1));
    if (result.peakGflops) cells.push(`${fixed((100 * row.gflops) / result.peakGflops, 0)}%`);
    if (result.dotPeakGmacs) cells.push(`${fixed(100 * dotPeakFraction(result, row.n, row.cells[ours].ms), 0)}%`);
    return cells;
  });
  return { header, rows };
}

function accuracyTable(result) {
  const at = (n, name) => result.rows.find((r) => r.n === n)?.cells[name]?.ms;
  const header = ['engine', 'reference (float64 fixtures)', 'attention max |Δ|', 'mean |Δ|', 'ms at n = 16', 'ms at n = 128'];
  const rows = result.engines.map(({ name, label }) => {
    const e = result.errors[name];
    return [label, e ? e.model : 'n/a', e ? sci(e.max) : 'n/a', e ? sci(e.mean) : 'n/a', fixed(at(16, name), 3), fixed(at(128, name), 2)];
  });
  return { header, rows };
}

function textTable({ header, rows }) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => '| ' + cells.map((c, i) => c.padStart(widths[i])).join(' | ') + ' |';
  return [line(header), '|' + widths.map((w) => '-'.repeat(w + 1) + ':').join('|') + '|', ...rows.map(line)].join('\n');
}

function markdownTable({ header, rows }) {
  const esc = (c) => c.replace(/\|/g, '\\|');
  return [`| ${header.map(esc).join(' | ')} |`, `|${header.map(() => '---:').join('|')}|`,
    ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`)].join('\n');
}

export function tables(result, { markdown = false } = {}) {
  const render = markdown ? markdownTable : textTable;
  return `${render(speedTable(result))}\n\n${render(accuracyTable(result))}`;
}

export const markdownSpeed = (result) => markdownTable(speedTable(result));
export const markdownAccuracy = (result) => markdownTable(accuracyTable(result));

const ratioAt = (result, n, name) => result.rows.find((r) => r.n === n)?.cells[name]?.ratio ?? null;

/** `speedup: ort_f32_n16=… ort_f32_n16_lo=… …` (medians of per-round ratios, and their lower bounds). */
export function speedupLine(result, label = 'speedup') {
  const parts = [];
  for (const kind of ['f32', 'int8']) {
    for (const n of [16, 128]) {
      const r = ratioAt(result, n, kind);
      parts.push(`ort_${kind}_n${n}=${fixed(r?.median)}`, `ort_${kind}_n${n}_lo=${fixed(r?.lo)}`);
    }
  }
  const at128 = result.rows.find((r) => r.n === 128);
  parts.push(`peak_fraction_n128=${at128 && result.peakGflops ? fixed(at128.gflops / result.peakGflops) : 'n/a'}`);
  for (const n of [16, 128]) {
    const row = result.rows.find((r) => r.n === n);
    parts.push(`dot_peak_fraction_n${n}=${row && result.dotPeakGmacs ? fixed(dotPeakFraction(result, n, row.cells[oursName(result)].ms)) : 'n/a'}`);
  }
  return `${label}: ${parts.join(' ')}`;
}

/** The goals on the intervals' lower bounds: ≥ 3× ORT f32 at n = 16, ≥ 2× at n = 128, > 1× ORT int8 at every n. */
export function goalsLine(result) {
  const verdict = (lo, goal) => (lo === null ? 'n/a' : lo >= goal ? 'met' : `missed by ${fixed(100 * (1 - lo / goal), 0)}%`);
  const parts = [];
  for (const [n, goal] of [[16, 3], [128, 2]]) {
    const lo = ratioAt(result, n, 'f32')?.lo ?? null;
    const row = result.rows.find((r) => r.n === n);
    let needs = '';
    if (lo !== null && lo < goal && result.dotPeakGmacs) {
      // The whole pass in ORT f32's time / goal: what share of the dot peak its products would need.
      const now = dotPeakFraction(result, n, row.cells[oursName(result)].ms);
      const needed = dotPeakFraction(result, n, row.cells.f32.ms / goal);
      needs = ` (the products would need ${fixed(100 * needed, 0)}% of the dot peak over the whole pass; now ${fixed(100 * now, 0)}%)`;
    }
    parts.push(`f32 n=${n} lo ${fixed(lo)} ≥ ${goal}: ${verdict(lo, goal)}${needs}`);
  }
  const int8 = result.rows.filter((r) => r.cells.int8).map((r) => [r.n, r.cells.int8.ratio.lo]);
  const below = int8.filter(([, lo]) => !(lo > 1));
  parts.push(int8.length === 0 ? 'int8: n/a' : below.length === 0 ? `int8 lo > 1 at every n (${int8.map(([n]) => n).join(',')}): met`
    : `int8 lo > 1: missed at ${below.map(([n, lo]) => `n=${n} (lo ${fixed(lo)})`).join(', ')}`);
  return `goals: ${parts.join('; ')}`;
}

/** Whether this run's intervals overlap the previous run's, cell by cell. */
export function agreementLine(result, previous) {
  if (!previous) return 'vs previous run: none saved';
  const apart = [];
  let compared = 0;
  for (const row of result.rows) {
    const old = previous.rows.find((r) => r.n === row.n);
    for (const p of peers(result)) {
      const a = row.cells[p.name]?.ratio, b = old?.cells[p.name]?.ratio;
      if (!a || !b) continue;
      compared++;
      if (a.lo > b.hi || b.lo > a.hi) apart.push(`${p.name} n=${row.n} [${fixed(a.lo)}, ${fixed(a.hi)}] vs [${fixed(b.lo)}, ${fixed(b.hi)}]`);
    }
  }
  const when = previous.date ? ` (${previous.date})` : '';
  if (!compared) return `vs previous run${when}: no common cells`;
  return apart.length ? `vs previous run${when}: ${apart.length} of ${compared} intervals disjoint: ${apart.join('; ')}`
    : `vs previous run${when}: all ${compared} intervals overlap`;
}
