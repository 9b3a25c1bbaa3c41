// What each view of the page draws, read from the page (data-* attributes of its bars, cells and
// strips, and its displayed text), against the float64 analyses of the sentence the page ran
// (float64-reference.mjs): never against the engine that drew it. Each check names the view,
// the head and token it read and the largest difference it found.
import { ANALYSIS_BARS as BARS, ATTENTION_BAR, MLM_PROBABILITY_BAR, maxDelta, maxAbs, sum,
  expectedReading, borderlineReading } from './float64-reference.mjs';
import { ROLE_NAMES } from '../lib/analysis-reference.mjs';

/** Smallest weight the head view draws a line for (web/src/views/head-view.mjs). */
const MIN_LINE_WEIGHT = 0.02;
/** The head view also draws each token's TOP_LINES strongest lines in each head, whatever their weight (web/src/views/head-view.mjs). */
const TOP_LINES = 3;
/** Smallest |B − A| the compare view draws as a difference (web/src/views/compare.mjs). */
const NO_DIFFERENCE_BELOW = 1e-3;

const short = (d) => (Number.isFinite(d) ? d.toExponential(1) : String(d));
/** A number shown as text ("0.42", ".42", "−0.013", "1.2×"): the first number in it. */
const shownNumber = (text) => Number((/[−-]?\d*\.?\d+(?:e[−-]?\d+)?/.exec(text ?? '') ?? ['NaN'])[0].replace(/−/g, '-'));
/** Half a unit of the last decimal a value is shown with, e.g. 0.005 for "0.42". */
const rounding = (text) => {
  const decimals = /\.(\d+)/.exec(text ?? '')?.[1].length ?? 0;
  return 0.5 * 10 ** -decimals;
};

/** What the checks use, given once by viewValueChecks (one browser session per process). */
let check, explorer, pageState, selectView, andRedraw, reference, see;

/**
 * The view checks, reading the page through `explorer` (a Playwright locator, or
 * lib/puppeteer-locators.mjs's) and recording through `check`.
 */
export function viewValueChecks(uses) {
  ({ check, explorer, pageState, selectView, andRedraw, reference } = uses);
  see = reference.see;
  return { float64, checkRow, checkGrid, checkLines, checkRollout, checkMatrix, checkEntropy, checkContributions, checkLayer, checkScaling,
    checkEveryView, checkCompare, checkMlm };
}

/** The page's run (or its compare run) and its float64 analyses. */
async function float64(page, which = 'run') {
  const run = await explorer(page).evaluate((e, w) => ({ ids: Array.from(e[w].ids), tokens: [...e[w].tokens] }), which);
  return { run, ref: reference.of(run) };
}
const barsOf = (page, selector) => explorer(page).locator(`${selector} rect.bar`)
  .evaluateAll((all) => all.map((r) => ({ token: Number(r.dataset.token), value: Number(r.dataset.value) })));
const datasetOf = (page, selector) => explorer(page).locator(selector).first().evaluate((g) => ({ ...g.dataset }));
const textOf = async (page, selector) => (await explorer(page).locator(selector).first().textContent()).trim();

/** Bars of a column against an expected row: one bar per token, |Δ| recorded under view/reading. */
function compareBars(view, reading, bars, expected, bar, relativeTo = 1) {
  const values = bars.map((b) => b.value);
  const inOrder = bars.every((b, i) => b.token === i);
  const delta = inOrder ? maxDelta(values, expected) / relativeTo : Infinity;
  return { ok: see(view, reading, delta, bar), delta };
}

/** The row view: bars, Σ, ratio to uniform (n · max), effective tokens and the reading. */
async function checkRow(page, label) {
  const state = await pageState(page);
  const { ref } = await float64(page);
  const column = '.bar-column.attention-row';
  const data = await datasetOf(page, column);
  const l = Number(data.layer) - 1, h = Number(data.head) - 1, t = Number(data.token), n = ref.n;
  check(`${label}: the row view names layer ${data.layer} · head ${data.head}, token ${t}`,
    l === state.layer && h === state.head && t === state.token);
  const stats = ref.rowStats(l, h, t);
  const bars = compareBars('row', 'bars', await barsOf(page, column), ref.row(l, h, t), ATTENTION_BAR);
  check(`${label}: the row view's ${n} bars are the float64 row (max |Δ| ${short(bars.delta)}, bar ${ATTENTION_BAR})`, bars.ok);
  const shownSum = await textOf(page, '[data-role="row-sum"]');
  check(`${label}: Σ reads 1.000 and data-sum is the float64 row's sum`, shownSum === '1.000' &&
    see('row', 'Σ', Math.abs(Number(data.sum) - stats.sum), ATTENTION_BAR), `shown "${shownSum}", data-sum ${data.sum}`);
  const shownRatio = await textOf(page, '[data-role="row-ratio"]');
  const [ratioText, maxText, nText] = shownRatio.split(/\s*[=×\u00d7]\s*/);
  const ratioOk = see('row', 'ratio / n', Math.abs(Number(data.ratio) - stats.ratio) / n, BARS.ratio) &&
    Math.abs(shownNumber(ratioText) - stats.ratio) <= rounding(ratioText) + BARS.ratio * n &&
    Math.abs(shownNumber(maxText) - stats.max) <= rounding(maxText) + BARS.rowMax && Number(nText) === n;
  check(`${label}: the ratio to uniform is n × max of the float64 row (${n} × ${stats.max.toFixed(4)} = ${stats.ratio.toFixed(4)})`,
    ratioOk, `data-ratio ${data.ratio}, shown "${shownRatio}"`);
  const shownEffective = await textOf(page, '[data-role="row-effective"]');
  check(`${label}: effective tokens read ${stats.effective.toFixed(2)} of ${n}`,
    Math.abs(shownNumber(shownEffective) - stats.effective) <= rounding(shownEffective) + BARS.effective * stats.effective &&
    shownEffective.endsWith(`of ${n}`), `shown "${shownEffective}"`);
  if (!borderlineReading(stats)) {
    check(`${label}: the reading follows the float64 normalised entropy ${stats.normalized.toFixed(3)} (${expectedReading(stats)})`,
      data.reading === expectedReading(stats), data.reading);
  }
  const tokens = await explorer(page).locator('.tokens .token').allTextContents();
  check(`${label}: token strip shows [CLS] and [SEP]`, tokens[0].endsWith('[CLS]') && tokens.at(-1).endsWith('[SEP]'), tokens.join(' '));
}

/** The head grid: each cell's ratio, Σ, effective tokens and role badges. */
async function checkGrid(page, label) {
  await selectView(page, 'all-heads');
  const { ref } = await float64(page);
  const n = ref.n;
  const cells = await explorer(page).locator('.head-cell').evaluateAll((all) => all.map((c) => ({
    ...c.dataset, ratioText: c.querySelector('.cell-ratio, .cell-ratio-compact')?.textContent ?? '',
  })));
  check(`${label}: head grid has 16 cells`, cells.length === 16, `${cells.length}`);
  const bad = [], roleDifferences = [];
  let compared = 0, borderline = 0;
  for (const cell of cells) {
    const l = Number(cell.layer) - 1, h = Number(cell.head) - 1, where = `L${l + 1}H${h + 1}`;
    const stats = ref.rowStats(l, h, Number(cell.token));
    const ok = see('grid', 'ratio / n', Math.abs(Number(cell.ratio) - stats.ratio) / n, BARS.ratio) &
      see('grid', 'Σ', Math.abs(Number(cell.sum) - stats.sum), ATTENTION_BAR) &
      see('grid', 'effective tokens (relative)', Math.abs(Number(cell.effective) - stats.effective) / stats.effective, BARS.effective);
    const textOk = Math.abs(shownNumber(cell.ratioText) - stats.ratio) <= rounding(cell.ratioText) + BARS.ratio * n;
    if (!ok || !textOk) bad.push(`${where} ratio ${cell.ratio} "${cell.ratioText}" vs ${stats.ratio}, Σ ${cell.sum}, eff ${cell.effective} vs ${stats.effective}`);
    const roles = ref.headRoles(l, h);
    const shown = cell.roles ? cell.roles.split(' ') : [];
    ROLE_NAMES.forEach((role, r) => {
      if (roles.margins[r] < BARS.roleBorderline) { borderline++; return; }
      compared++;
      if (shown.includes(role) !== roles.roles.includes(role)) roleDifferences.push(`${where} ${shown.includes(role) ? 'shows' : 'lacks'} ${role}`);
    });
  }
  check(`${label}: every grid cell's ratio, Σ and effective tokens are the float64 row's`, bad.length === 0, bad.slice(0, 4).join('; '));
  check(`${label}: the role badges are the float64 head roles (${compared} calls compared, ${borderline} within ${BARS.roleBorderline} of their threshold not)`,
    roleDifferences.length === 0, roleDifferences.join('; '));
  const badges = await explorer(page).locator('.head-cell .badge').count();
  const expectedBadges = cells.reduce((k, c) => k + (c.roles ? c.roles.split(' ').length : 0), 0);
  check(`${label}: ${expectedBadges} role badges drawn`, badges === expectedBadges, `${badges}`);
}

/** The head view (no tokens hidden): every line's weight, and a line for every weight ≥ 0.02. */
async function checkLines(page, label) {
  await selectView(page, 'head-view');
  const state = await pageState(page);
  const { ref } = await float64(page);
  const lines = await explorer(page).locator('.hv-line').evaluateAll((all) => all.map((l) => ({
    head: Number(l.dataset.head) - 1, to: Number(l.dataset.to), weight: Number(l.dataset.weight), from: Number(l.parentNode.dataset.from),
  })));
  let worst = 0;
  const drawn = new Set();
  for (const line of lines) {
    worst = Math.max(worst, Math.abs(line.weight - ref.row(state.layer, line.head, line.from)[line.to]));
    drawn.add(`${line.head}/${line.from}/${line.to}`);
  }
  const misses = [];
  for (let h = 0; h < reference.model.shape.heads; h++) {
    for (let i = 0; i < ref.n; i++) {
      const row = ref.row(state.layer, h, i);
      const ranked = Array.from(row.keys()).sort((a, b) => row[b] - row[a]);
      const kth = row[ranked[TOP_LINES - 1]], next = row[ranked[TOP_LINES]] ?? -Infinity;
      row.forEach((w, j) => {
        const isDrawn = drawn.has(`${h}/${i}/${j}`);
        const mustDraw = w >= MIN_LINE_WEIGHT + ATTENTION_BAR || w - next > ATTENTION_BAR;
        const mayDraw = w >= MIN_LINE_WEIGHT - ATTENTION_BAR || w >= kth - ATTENTION_BAR;
        if (mustDraw && !isDrawn) misses.push(`no line ${i}→${j} of head ${h + 1} (${w.toFixed(4)})`);
        if (!mayDraw && isDrawn) misses.push(`a line ${i}→${j} of head ${h + 1} (${w.toFixed(4)})`);
      });
    }
  }
  check(`${label}: head view, ${lines.length} lines of layer ${state.layer + 1}, each at its float64 weight (max |Δ| ${short(worst)}), ` +
    `one for every float64 weight ≥ ${MIN_LINE_WEIGHT} and for each token's ${TOP_LINES} strongest in each head`, lines.length > 0 && see('lines', 'line weights', worst, ATTENTION_BAR) && misses.length === 0,
  misses.slice(0, 5).join('; '));
}

/** Rollout beside the chosen head: both columns' bars, the rollout's Σ and ratio. */
async function checkRollout(page, label) {
  await selectView(page, 'rollout');
  const state = await pageState(page);
  const { ref } = await float64(page);
  const n = ref.n;
  const data = await datasetOf(page, '.bar-column.rollout-row');
  const last = Number(data.layer) - 1, t = Number(data.token);
  const expected = Array.from(ref.rollout(last)[t]);
  const head = compareBars('rollout', 'head bars', await barsOf(page, '.bar-column.attention-row'), ref.row(state.layer, state.head, state.token), ATTENTION_BAR);
  const rollout = compareBars('rollout', 'rollout bars', await barsOf(page, '.bar-column.rollout-row'), expected, BARS.rollout);
  check(`${label}: the rollout view's head column is the float64 row (max |Δ| ${short(head.delta)})`, head.ok);
  check(`${label}: the rollout row through layer ${last + 1} for token ${t} is the float64 rollout's (max |Δ| ${short(rollout.delta)}, bar ${BARS.rollout})`,
    rollout.ok && last === state.rolloutLayer && t === state.token);
  const shownSum = await textOf(page, '[data-role="rollout-sum"]');
  const shownRatio = await textOf(page, '[data-role="rollout-ratio"]');
  const max = Math.max(...expected);
  check(`${label}: rollout Σ reads 1.000 and its ratio is n × max of the float64 rollout row (${(n * max).toFixed(3)})`,
    shownSum === '1.000' && see('rollout', 'Σ', Math.abs(Number(data.sum) - sum(expected)), BARS.rollout) &&
    see('rollout', 'ratio / n', Math.abs(Number(data.ratio) - n * max) / n, BARS.rollout) &&
    Math.abs(shownNumber(shownRatio) - n * max) <= rounding(shownRatio) + BARS.rollout * n,
  `shown ${shownSum} / ${shownRatio}, data ${data.sum} / ${data.ratio}`);
  check(`${label}: rollout is labelled as an average of ${data.heads} heads`, Number(data.heads) === (last + 1) * reference.model.shape.heads &&
    (await explorer(page).locator('.rollout-row .col-head').textContent()).includes(`average of ${data.heads} heads`));
}

/** The matrix (every drawn cell, with its text) and each row's Σ and ratio. */
async function checkMatrix(page, label) {
  await selectView(page, 'matrix');
  const state = await pageState(page);
  const { ref } = await float64(page);
  const n = ref.n;
  const rows = await explorer(page).locator('.matrix-row').evaluateAll((all) => all.map((g) => ({
    token: Number(g.dataset.token), sum: Number(g.dataset.sum), ratio: Number(g.dataset.ratio),
    cells: [...g.querySelectorAll('rect')].map((r) => ({ column: Number(r.dataset.column), value: Number(r.dataset.value) })),
    texts: [...g.querySelectorAll('.cell-value')].map((t) => t.textContent),
  })));
  let worst = 0, worstText = 0, cells = 0;
  const bad = [];
  for (const row of rows) {
    const expected = ref.row(state.layer, state.head, row.token), stats = ref.rowStats(state.layer, state.head, row.token);
    row.cells.forEach(({ column, value }, c) => {
      cells++;
      worst = Math.max(worst, Math.abs(value - expected[column]));
      const text = row.texts[c];
      if (text !== undefined) {
        const d = Math.abs(shownNumber(text) - expected[column]);
        worstText = Math.max(worstText, d);
        if (d > rounding(text) + ATTENTION_BAR) bad.push(`row ${row.token} column ${column} shows "${text}" for ${expected[column].toFixed(4)}`);
      }
    });
    if (!(see('matrix', 'row Σ', Math.abs(row.sum - stats.sum), ATTENTION_BAR) & see('matrix', 'row ratio / n', Math.abs(row.ratio - stats.ratio) / n, BARS.ratio))) {
      bad.push(`row ${row.token}: Σ ${row.sum}, ratio ${row.ratio} vs ${stats.ratio}`);
    }
  }
  const whole = rows.length === n && rows.every((r) => r.cells.length === n);
  check(`${label}: the matrix of layer ${state.layer + 1} · head ${state.head + 1}, ${cells} cells at the float64 weights (max |Δ| ${short(worst)}), ` +
    `their text within its rounding, each row's Σ and ratio`, whole && see('matrix', 'cells', worst, ATTENTION_BAR) && bad.length === 0,
  `${rows.length} rows; ${bad.slice(0, 4).join('; ')}`);
}

/** Entropy: both head tables, the per-row bars and the readout, against the float64 row statistics. */
async function checkEntropy(page, label) {
  await selectView(page, 'entropy');
  const state = await pageState(page);
  const { ref } = await float64(page);
  const n = ref.n;
  const table = (name) => explorer(page).locator(`svg[data-table="${name}"] .table-cell`).evaluateAll((all) => all.map((c) => ({ ...c.dataset })));
  const tokenCells = await table('token'), meanCells = await table('mean');
  const bad = [];
  const relative = (shown, expected) => Math.abs(shown - expected) / expected;
  for (const cell of tokenCells) {
    const l = Number(cell.layer) - 1, h = Number(cell.head) - 1;
    const stats = ref.rowStats(l, h, state.token);
    const ok = see('entropy', 'effective tokens per head (relative)', relative(Number(cell.effective), stats.effective), BARS.effective) &
      see('entropy', 'entropy per head (nats)', Math.abs(Number(cell.entropy) - stats.entropy), BARS.entropy) &
      see('entropy', 'normalised entropy per head', Math.abs(Number(cell.normalized) - stats.normalized), BARS.normalized);
    const textOk = Math.abs(Number(cell.value) - stats.effective) <= rounding(cell.value) + BARS.effective * stats.effective;
    if (!ok || !textOk) bad.push(`token table L${l + 1}H${h + 1}: "${cell.value}" ${cell.effective} / ${cell.entropy} / ${cell.normalized} vs ${stats.effective} / ${stats.entropy} / ${stats.normalized}`);
  }
  // the mean table: each head's row entropy (nats) averaged over the sentence's words ([CLS] and [SEP] rows left out)
  const wordRows = Array.from(ref.kinds).flatMap((kind, i) => (kind === 1 || kind === 2 ? [] : [i]));
  for (const cell of meanCells) {
    const l = Number(cell.layer) - 1, h = Number(cell.head) - 1;
    const mean = wordRows.reduce((total, i) => total + ref.rowStats(l, h, i).entropy, 0) / wordRows.length;
    const ok = see('entropy', 'mean row entropy over the words (nats)', Math.abs(Number(cell.entropy) - mean), BARS.entropy) &
      see('entropy', 'uniform maximum ln n', Math.abs(Number(cell.max) - Math.log(n)), 1e-12);
    if (!ok || Math.abs(Number(cell.value) - mean) > rounding(cell.value) + BARS.entropy) bad.push(`mean table L${l + 1}H${h + 1}: "${cell.value}" ${cell.entropy} vs ${mean}`);
  }
  check(`${label}: entropy tables, ${tokenCells.length} heads for token ${state.token} (effective tokens, entropy, normalised) and ${meanCells.length} mean row entropies over the ${wordRows.length} words, at the float64 values`,
    tokenCells.length === 16 && meanCells.length === 16 && bad.length === 0, bad.slice(0, 3).join('; '));
  const bars = await explorer(page).locator('.entropy-row rect.bar').evaluateAll((all) => all.map((r) => ({ ...r.dataset })));
  const rowBad = [];
  bars.forEach((bar, i) => {
    const stats = ref.rowStats(state.layer, state.head, i);
    if (!(Number(bar.token) === i & see('entropy', 'effective tokens per row (relative)', relative(Number(bar.value), stats.effective), BARS.effective) &
      see('entropy', 'entropy per row (nats)', Math.abs(Number(bar.entropy) - stats.entropy), BARS.entropy) &
      see('entropy', 'normalised entropy per row', Math.abs(Number(bar.normalized) - stats.normalized), BARS.normalized))) {
      rowBad.push(`row ${i}: ${bar.value} / ${bar.entropy} vs ${stats.effective} / ${stats.entropy}`);
    }
  });
  check(`${label}: entropy bars, effective tokens and entropy of every row of layer ${state.layer + 1} · head ${state.head + 1} at the float64 values`,
    bars.length === n && rowBad.length === 0, rowBad.slice(0, 3).join('; '));
  const stats = ref.rowStats(state.layer, state.head, state.token);
  const shown = { entropy: await textOf(page, '[data-role="entropy"]'), effective: await textOf(page, '[data-role="effective"]'),
    normalized: await textOf(page, '[data-role="normalized"]') };
  check(`${label}: the entropy readout shows ${stats.entropy.toFixed(3)} nats, ${stats.effective.toFixed(2)} effective tokens, normalised ${stats.normalized.toFixed(3)}`,
    Math.abs(shownNumber(shown.entropy) - stats.entropy) <= rounding(shown.entropy) + BARS.entropy &&
    Math.abs(shownNumber(shown.effective) - stats.effective) <= rounding(shown.effective) + BARS.effective * stats.effective &&
    Math.abs(shownNumber(shown.normalized) - stats.normalized) <= rounding(shown.normalized) + BARS.normalized,
  JSON.stringify(shown));
}

/** Contributions: the weights and ‖α·f(x)‖ of every token, and their total. */
async function checkContributions(page, label) {
  await selectView(page, 'contributions');
  const state = await pageState(page);
  const { ref } = await float64(page);
  const { layer: l, head: h, token: t } = state;
  const expected = ref.contributions(l, h, t);
  const largest = maxAbs(expected);
  const weights = compareBars('contributions', 'weights', await barsOf(page, '.bar-column.attention-row'), ref.row(l, h, t), ATTENTION_BAR);
  const norms = compareBars('contributions', 'contributions (relative to the row\'s largest)', await barsOf(page, '.bar-column.contribution-row'),
    expected, BARS.contributions, largest);
  const data = await datasetOf(page, '.bar-column.contribution-row');
  check(`${label}: contribution view, layer ${l + 1} · head ${h + 1}, token ${t}: the weights are the float64 row (max |Δ| ${short(weights.delta)})`, weights.ok);
  check(`${label}: the contributions ‖α·f(x)‖ are the float64 ones with head ${h + 1}'s own W_O slice (max |Δ| ${short(norms.delta)} of the largest, bar ${BARS.contributions})`,
    norms.ok && see('contributions', 'Σ (relative)', Math.abs(Number(data.total) - sum(expected)) / sum(expected), BARS.contributions),
  `data-total ${data.total} vs ${sum(expected)}`);
}

/** Inside a layer: the four strips' numbers, means and standard deviations. */
async function checkLayer(page, label) {
  await selectView(page, 'inside-a-layer');
  const state = await pageState(page);
  const { ref } = await float64(page);
  const expected = ref.walkthrough(state.layer, state.token);
  const strips = await explorer(page).locator('.strip').evaluateAll((all) => all.map((g) => ({
    ...g.dataset, values: [...g.querySelectorAll('rect[data-value]')].map((r) => Number(r.dataset.value)),
  })));
  const parts = ['concat', 'projected', 'residual', 'normed'];
  const bad = [];
  let worst = 0;
  strips.forEach((strip, k) => {
    const theirs = expected[parts[k]], scale = maxAbs(theirs);
    const mean = sum(theirs) / theirs.length;
    const sd = Math.sqrt(theirs.reduce((a, v) => a + (v - mean) ** 2, 0) / theirs.length);
    const delta = maxDelta(strip.values, theirs) / scale;
    worst = Math.max(worst, delta);
    const ok = Number(strip.step) === k + 1 && Number(strip.layer) === state.layer + 1 && Number(strip.token) === state.token &&
      see('layer', `${parts[k]} (relative to its largest)`, delta, BARS.walkthrough) &
      see('layer', 'mean and sd (relative to the largest)', Math.max(Math.abs(Number(strip.mean) - mean), Math.abs(Number(strip.sd) - sd)) / scale, BARS.walkthrough);
    if (!ok) bad.push(`step ${k + 1} (${parts[k]}): |Δ| ${short(delta)}, mean ${strip.mean} vs ${mean}, sd ${strip.sd} vs ${sd}`);
  });
  check(`${label}: inside layer ${state.layer + 1} for token ${state.token}, the 4 strips (${strips.map((s) => s.values.length).join(', ')} numbers) at the float64 values ` +
    `(max |Δ| ${short(worst)} of the largest, bar ${BARS.walkthrough})`, strips.length === 4 && bad.length === 0, bad.join('; '));
}

/** Why √d: the model's row and the what-if without the division, with their effective tokens. */
async function checkScaling(page, label) {
  await selectView(page, 'why-sqrt-d');
  if (!(await explorer(page).locator('.whatif-toggle').isChecked())) await andRedraw(page, () => explorer(page).locator('.whatif-toggle').check());
  const state = await pageState(page);
  const { ref } = await float64(page);
  const { layer: l, head: h, token: t } = state;
  const n = ref.n;
  const scaled = ref.rowScaled(l, h, t, true), unscaled = ref.rowScaled(l, h, t, false);
  const model = compareBars('scaling', 'model row (÷√d)', await barsOf(page, '.bar-column.attention-row'), scaled, BARS.scaled);
  const whatIf = compareBars('scaling', 'what-if row (no ÷√d)', await barsOf(page, '.bar-column.whatif-row'), unscaled, BARS.unscaled);
  check(`${label}: why √d, layer ${l + 1} · head ${h + 1}, token ${t}: the model's row is the float64 softmax(q·k/√d) (max |Δ| ${short(model.delta)}, bar ${BARS.scaled})`, model.ok);
  check(`${label}: the what-if row is the float64 softmax(q·k) (max |Δ| ${short(whatIf.delta)}, bar ${BARS.unscaled})`, whatIf.ok);
  const modelData = await datasetOf(page, '.bar-column.attention-row'), whatIfData = await datasetOf(page, '.bar-column.whatif-row');
  const effective = (row) => Math.exp(-row.reduce((a, p) => a + (p > 0 ? p * Math.log(p) : 0), 0));
  const modelEffective = effective(scaled), whatIfEffective = effective(unscaled);
  const shownModel = await textOf(page, '[data-role="effective-model"]'), shownWhatIf = await textOf(page, '[data-role="effective-whatif"]');
  check(`${label}: effective tokens ${modelEffective.toFixed(2)} (model) and ${whatIfEffective.toFixed(2)} (what-if), shown and in the data, are the float64 rows'`,
    see('scaling', 'effective tokens, model (relative)', Math.abs(Number(modelData.effective) - modelEffective) / modelEffective, BARS.effective) &&
    see('scaling', 'effective tokens, what-if (relative)', Math.abs(Number(whatIfData.effective) - whatIfEffective) / whatIfEffective, BARS.effective) &&
    Math.abs(shownNumber(shownModel) - modelEffective) <= rounding(shownModel) + BARS.effective * modelEffective &&
    Math.abs(shownNumber(shownWhatIf) - whatIfEffective) <= rounding(shownWhatIf) + BARS.effective * whatIfEffective &&
    see('scaling', 'what-if ratio / n', Math.abs(Number(whatIfData.ratio) - n * Math.max(...unscaled)) / n, BARS.unscaled),
  `data ${modelData.effective} / ${whatIfData.effective}, shown "${shownModel}" / "${shownWhatIf}"`);
}

/**
 * Compare: sentence A's row, sentence B's row at the aligned tokens and the drawn differences,
 * against the float64 rows of both sentences. `partnerOf(i)`: B's token aligned with A's token i, or −1.
 */
async function checkCompare(page, label, partnerOf) {
  await selectView(page, 'compare');
  const state = await pageState(page);
  const { ref: refA } = await float64(page);
  const { ref: refB } = await float64(page, 'compareRun');
  const { layer: l, head: h, token: t } = state;
  const columns = await explorer(page).locator('.compare-row').evaluateAll((all) => all.map((g) => ({ ...g.dataset })));
  const tB = partnerOf(t);
  check(`${label}: compare, token ${t} of A beside token ${tB} of B`, columns.length === 2 && Number(columns[0].token) === t && Number(columns[1].token) === tB,
    JSON.stringify(columns.map((c) => c.token)));
  const rowA = refA.row(l, h, t), rowB = refB.row(l, h, tB);
  const alignedB = rowA.map((_, i) => (partnerOf(i) < 0 ? 0 : rowB[partnerOf(i)]));
  const a = compareBars('compare', 'sentence A bars', await barsOf(page, '.compare-row[data-kind="compare-a"]'), rowA, ATTENTION_BAR);
  const b = compareBars('compare', 'sentence B bars', await barsOf(page, '.compare-row[data-kind="compare-b"]'), alignedB, ATTENTION_BAR);
  check(`${label}: sentence A's bars are A's float64 row, sentence B's bars B's float64 row at the aligned tokens (max |Δ| ${short(a.delta)}, ${short(b.delta)})`,
    a.ok && b.ok && see('compare', 'B ratio / n', Math.abs(Number(columns[1].ratio) - refB.rowStats(l, h, tB).ratio) / refB.n, BARS.ratio));
  const drawn = new Map((await barsOf(page, '.difference-row')).map((d) => [d.token, d.value]));
  const bad = [];
  let worst = 0;
  rowA.forEach((v, i) => {
    if (partnerOf(i) < 0) return;
    const expected = rowB[partnerOf(i)] - v;
    if (drawn.has(i)) worst = Math.max(worst, Math.abs(drawn.get(i) - expected));
    else if (Math.abs(expected) >= NO_DIFFERENCE_BELOW + ATTENTION_BAR) bad.push(`no bar at token ${i} for ${expected.toFixed(4)}`);
    if (drawn.has(i) && Math.abs(expected) < NO_DIFFERENCE_BELOW - ATTENTION_BAR) bad.push(`a bar at token ${i} for ${expected.toFixed(4)}`);
  });
  check(`${label}: the ${drawn.size} differences drawn are B − A of the float64 rows (max |Δ| ${short(worst)}), one for every |B − A| ≥ ${NO_DIFFERENCE_BELOW}`,
    see('compare', 'differences', worst, 2 * ATTENTION_BAR) && bad.length === 0, bad.slice(0, 4).join('; '));
}

/** [MASK]: the top-5 guesses and their probabilities against the float64 MLM fixture of `text`. */
async function checkMlm(page, label, text) {
  const fixture = reference.mlmFixture(text);
  if (!check(`${label}: "${text}" has an MLM fixture`, !!fixture)) return;
  // [MASK] predictions need every part of the weights: the view says it waits until they are in
  await explorer(page).locator('.mlm-row').first().waitFor({ state: 'attached', timeout: 60000 });
  const columns = await explorer(page).locator('.mlm-row').evaluateAll((all) => all.map((g) => ({
    position: Number(g.dataset.token), top: g.dataset.top,
    bars: [...g.querySelectorAll('rect.bar')].map((r) => ({ value: Number(r.dataset.value), token: r.querySelector('title').textContent.replace(/ \(token \d+\):.*$/, '') })),
  })));
  const bad = [];
  let worst = 0;
  for (const mask of fixture.masks) {
    const column = columns.find((c) => c.position === mask.position);
    if (!column) { bad.push(`no column for the [MASK] at ${mask.position}`); continue; }
    if (column.top !== mask.top[0][1]) bad.push(`top guess "${column.top}", fixture "${mask.top[0][1]}"`);
    const fixtureTop5 = mask.top.slice(0, 5);
    column.bars.forEach((bar) => {
      const entry = mask.top.find(([, token]) => token === bar.token);
      if (!entry) { bad.push(`"${bar.token}" is not in the fixture's top ${mask.top.length}`); return; }
      worst = Math.max(worst, Math.abs(bar.value - entry[2]));
    });
    // A guess may leave the top 5 only for one whose probability is within the bar of it.
    for (const [, token, p] of fixtureTop5) {
      if (!column.bars.some((b) => b.token === token) && p - fixtureTop5.at(-1)[2] > 2 * MLM_PROBABILITY_BAR) bad.push(`"${token}" (${p.toFixed(4)}) not shown`);
    }
  }
  check(`${label}: [MASK] top-5 guesses and probabilities are the float64 fixture's (max |Δ| ${short(worst)}, bar ${MLM_PROBABILITY_BAR})`,
    columns.length === fixture.masks.length && see('mlm', 'probabilities', worst, MLM_PROBABILITY_BAR) && bad.length === 0, bad.join('; '));
}

/** Every view of one sentence and selection that draws from one run (not Compare, not [MASK]). */
async function checkEveryView(page, label) {
  for (const checkView of [checkRow, checkGrid, checkLines, checkRollout, checkMatrix, checkEntropy, checkContributions, checkLayer, checkScaling]) {
    await checkView(page, label);
  }
}

