// Heads switched off (ablation) and head importance, against the float64 reference; the entropy
// reading hidden where it would mislead.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { diverging } from '../../../web/src/palette.mjs';
import { COLOUR_NATS } from '../../../web/src/views/importance.mjs';
import { referenceForward } from '../../../weights/reference.mjs';
import { importanceReference } from '../../lib/importance-reference.mjs';
import { ANALYSIS_BARS, ATTENTION_BAR } from '../float64-reference.mjs';
import { pageUnderPolicy } from '../no-worker.mjs';
import { FILE, HTTP, andRedraw, browserName, check, explorer, float64, gotoHash, newPage, pageState, selectView, url, waitDrawn } from '../lib/session.mjs';

/** The float64 row (layer, head, token) of `ids` with `removedHeads` removed (weights/reference.mjs). */
export function ablatedRow(ids, removedHeads, layer, head, token) {
  const { heads } = float64.model.shape;
  const n = ids.length;
  const attention = referenceForward(float64.model, ids, { removedHeads }).attention;
  const start = ((layer * heads + head) * n + token) * n;
  return Array.from(attention.subarray(start, start + n));
}

export const drawnRow = (page) => explorer(page).locator('.attention-row rect.bar').evaluateAll((all) => all.map((r) => Number(r.dataset.value)));

export const maxDiff = (a, b) => (a.length === b.length ? Math.max(...a.map((v, i) => Math.abs(v - b[i]))) : Infinity);

/**
 * A head switched off from the All-heads grid: the Row view draws the float64 reference's ablated
 * row, the page says how many heads are off, the hash keeps it and restores it, the reset draws
 * the unablated row again; an unusable `off=` is reported; the head view's legend switch works
 * from the keyboard.
 */
export async function testAblation() {
  const page = await newPage();
  const sentence = 'The cat sat on the mat because it was tired.';
  await gotoHash(page, { sentence, layer: 3, head: 1, token: 8, view: 'grid' });
  const ids = await explorer(page).evaluate((e) => Array.from(e.run.ids));
  const plain = ablatedRow(ids, [], 2, 0, 8);
  const removed = [[1, 0], [1, 2]];
  const ablated = ablatedRow(ids, removed, 2, 0, 8);
  const change = maxDiff(plain, ablated);
  await andRedraw(page, () => explorer(page).locator('.head-switch[data-layer="2"][data-head="1"]').click());
  const afterClick = await pageState(page);
  check('ablation: the grid cell\'s switch switches L2·H1 off without selecting it', JSON.stringify(afterClick.off) === '[[1,0]]' && afterClick.layer === 2 && afterClick.head === 0,
    JSON.stringify(afterClick));
  const focused = await page.evaluate(() => document.querySelector('attention-explorer').shadowRoot.activeElement?.getAttribute('aria-checked'));
  await andRedraw(page, () => page.keyboard.press('ArrowRight'));
  await explorer(page).locator('.head-switch[data-layer="3"][data-head="2"]').focus();
  await andRedraw(page, () => explorer(page).locator('.head-switch[data-layer="3"][data-head="2"]').press('Space'));
  await andRedraw(page, () => explorer(page).locator('.head-switch[data-layer="3"][data-head="2"]').press('Enter'));
  await andRedraw(page, () => explorer(page).locator('.head-cell[data-layer="2"][data-head="3"]').click());
  await andRedraw(page, () => explorer(page).locator('.head-switch[data-layer="2"][data-head="3"]').press('Enter'));
  const state = await pageState(page);
  check('ablation: the switch keeps the focus and works from the keyboard (Space, Enter)', focused === 'false' && JSON.stringify(state.off) === JSON.stringify(removed), `${focused} ${JSON.stringify(state.off)}`);
  await andRedraw(page, () => explorer(page).locator('.head-cell[data-layer="3"][data-head="1"]').click());
  await selectView(page, 'row');
  const bars = await drawnRow(page);
  const delta = maxDiff(bars, ablated);
  check(`ablation: with L2·H1 and L2·H3 off the Row view draws the float64 reference's ablated row of L3·H1 "it" (max |Δ| ${delta.toExponential(1)}; removing them moves it by ${change.toExponential(1)})`,
    float64.see('ablation', 'row with heads removed', delta, ATTENTION_BAR) && change > 20 * ATTENTION_BAR);
  const banner = await explorer(page).locator('.ablation').textContent();
  check('ablation: the page says "2 heads off" and which', /2 heads off/.test(banner) && /L2 · H1, L2 · H3/.test(banner), banner);
  await page.waitForTimeout(300);
  const hash = await page.evaluate(() => location.hash);
  check('ablation: the hash keeps the heads that are off (off=2.1,2.3)', new URLSearchParams(hash.slice(1)).get('off') === '2.1,2.3', hash);
  await page.goto('about:blank');
  await page.goto(url(FILE, 'index.html') + hash);
  await waitDrawn(page);
  const restored = maxDiff(await drawnRow(page), ablated);
  check(`ablation: the hash restores it: the ablated row again (max |Δ| ${restored.toExponential(1)})`, float64.see('ablation', 'row restored from the hash', restored, ATTENTION_BAR));
  await andRedraw(page, () => explorer(page).locator('.ablation-reset').click());
  const reset = maxDiff(await drawnRow(page), plain);
  check(`ablation: the reset draws the unablated float64 row (max |Δ| ${reset.toExponential(1)}) and hides the line`,
    float64.see('ablation', 'row after the reset', reset, ATTENTION_BAR) && await explorer(page).locator('.ablation').isHidden());
  await gotoHash(page, { sentence, view: 'lines', layer: 2, off: '2.9,x' });
  const notice = await explorer(page).locator('.problems').textContent();
  check('ablation: an unusable off= is reported with what is used instead', /off=/.test(notice) && (await pageState(page)).off.length === 0, notice);
  await explorer(page).locator('.hv-legend-item[data-head="2"]').focus();
  const alone = await explorer(page).locator('.hv-line').evaluateAll((all) => new Set(all.filter((l) => getComputedStyle(l).display !== 'none').map((l) => l.dataset.head)).size);
  await page.keyboard.press('Tab');
  check('head view: focusing a head in the legend shows it alone; its switch (Tab, then Space) is next', alone === 1);
  await andRedraw(page, () => page.keyboard.press('Space'));
  check('head view: the legend switch switches L2·H2 off', JSON.stringify((await pageState(page)).off) === '[[1,1]]');
  check('ablation: no page errors', page.problems.length === 0, page.problems.join('; '));
  await page.context().close();
}

/** Cells, effect bar and colours of the Head importance view against importanceReference (the bar of tests/ablation.test.mjs: 1e-3 nats). */
export async function checkImportanceFigure(page, ref, label, DELTA_BAR) {
  const { heads } = float64.model.shape;
  const cells = await explorer(page).locator('.imp-cell').evaluateAll((all) => all.map((c) => ({
    layer: Number(c.dataset.layer) - 1, head: c.dataset.head, delta: Number(c.dataset.delta), off: c.dataset.off === 'true',
    fill: c.querySelector('.imp-bg').getAttribute('fill'), text: c.querySelector('text').textContent })));
  const mean = (pick) => ref.targets.reduce((sum, target) => sum + pick(target), 0) / ref.targets.length;
  const want = (cell) => (cell.head === '' ? mean((target) => target.layers[cell.layer]) : mean((target) => target.heads[cell.layer * heads + Number(cell.head) - 1]));
  let worst = 0, colourWorst = 0;
  for (const cell of cells) {
    const expected = want(cell);
    worst = Math.max(worst, Math.abs(cell.delta - expected));
    if (cell.off) continue;
    // the absolute scale: the reference's Δ over COLOUR_NATS, the same for every sentence
    const rgb = (text) => text.match(/\d+/g).map(Number);
    const drawn = rgb(cell.fill), fromRef = rgb(diverging(Math.max(-1, Math.min(1, expected / COLOUR_NATS)), 'light'));
    colourWorst = Math.max(colourWorst, ...drawn.map((v, i) => Math.abs(v - fromRef[i])));
  }
  check(`${label}: ${cells.length} cells are the float64 reference's Δ log p (max |Δ| ${worst.toExponential(1)}), coloured on the absolute ±${COLOUR_NATS} nat scale (max channel difference ${colourWorst})`,
    cells.length === float64.model.shape.layers * (heads + 1) && float64.see('head importance', 'Δ log p per head and layer', worst, DELTA_BAR) && colourWorst <= 2);
  return { cells, mean };
}

/**
 * Head importance: by default the chosen word's (masked for the reading; at a [MASK] the model's
 * top guess, or the word the reader gives), the mean over every word an explicit choice; map and
 * effect bar the same quantity; the absolute colour scale with its legend in nats; the effect on
 * its own axis in nats; a switched-off head says so. All against the float64 reference.
 */
export async function testImportance() {
  const DELTA_BAR = 1e-3;
  const page = await newPage();
  const vocab = float64.model.vocab;
  const special = { maskId: vocab.indexOf('[MASK]'), clsId: vocab.indexOf('[CLS]'), sepId: vocab.indexOf('[SEP]') };
  const { heads } = float64.model.shape;
  const cases = [
    { sentence: 'The cat sat on the mat because it was tired.', token: 3 },
    { sentence: 'The cat [MASK] on the mat.', token: 3, off: '1.2' },
    { sentence: 'The cat [MASK] on the mat.', token: 3, answer: 'sat' },
    { sentence: 'The cat [MASK] on the mat.', token: 3, answer: 'xqzv' },
  ];
  for (const { sentence, token, off, answer } of cases) {
    await gotoHash(page, { sentence, view: 'head-importance', layer: 2, head: 1, token, ...(off ? { off } : {}), ...(answer ? { answer } : {}) });
    await explorer(page).locator('.imp-cell').first().waitFor({ timeout: 120000 });
    const ids = await explorer(page).evaluate((e) => Array.from(e.run.ids));
    const removedHeads = off ? [off.split('.').map((v) => Number(v) - 1)] : [];
    const answerId = answer && vocab.includes(answer) ? vocab.indexOf(answer) : undefined;
    const ref = importanceReference(float64.model, ids, { ...special, removedHeads, word: { position: token, answer: answerId } });
    const label = `importance "${sentence}" word ${token}${off ? ` with ${off} off` : ''}${answer ? ` answer=${answer}` : ''}`;
    const figure = await explorer(page).locator('.figure-box svg').first().evaluate((svg) => ({ ...svg.dataset }));
    const subtitle = (await explorer(page).locator('.figure-box .fig-sub').allTextContents()).join(' ');
    const { cells } = await checkImportanceFigure(page, ref, label, DELTA_BAR);
    const target = ref.targets[0];
    const masked = ids[token] === special.maskId;
    const says = !masked ? /masked for the reading; the answer is the word that was there/.test(subtitle)
      : answerId !== undefined ? new RegExp(`the answer is \u201c${answer}\u201d, the word you said belongs there`).test(subtitle)
        : answer ? /is not one word of the model.s vocabulary, so the answer is the model.s top guess/.test(subtitle)
          : /the answer is the model.s top guess/.test(subtitle);
    check(`${label}: the view reads the chosen word by default (over=${figure.over}), its answer ${vocab[target.answer]} is the reference's and the subtitle says which`,
      figure.over === 'word' && Number(figure.target) === token && Number(figure.answer) === target.answer && figure.answerGiven === String(answerId !== undefined) && says, subtitle);
    const effect = await explorer(page).locator('.imp-bar-effect').evaluate((g) => ({ ...g.dataset, axis: g.querySelector('.imp-axis-label')?.textContent }));
    const wantEffect = target.heads[1 * heads + 0];
    const cell = cells.find((c) => c.layer === 1 && c.head === '1');
    check(`${label}: the effect bar of L2·H1 is the map's cell and the reference's (${Number(effect.value).toFixed(4)} vs ${wantEffect.toFixed(4)}), on its own axis in nats (±${effect.reach})`,
      Number(effect.value) === cell.delta && float64.see('head importance', 'effect bar', Math.abs(Number(effect.value) - wantEffect), DELTA_BAR) &&
      /nats/.test(effect.axis ?? '') && Number(effect.reach) >= Math.abs(wantEffect));
    if (off) {
      const offCell = cells.find((c) => c.layer === 0 && c.head === '2');
      check(`${label}: the switched-off head L1·H2 says so in its cell ("${offCell.text}")`, offCell.off && offCell.text === 'off');
      await andRedraw(page, () => explorer(page).locator('.imp-cell[data-layer="1"][data-head="2"]').click());
      const line = await explorer(page).locator('.imp-off-line').allTextContents();
      check(`${label}: with the switched-off head chosen, its row says it is off`, /is switched off/.test(line.join(' ')), line.join(' '));
    }
  }
  const legend = await explorer(page).locator('.imp-legend').evaluate((g) => ({ nats: g.dataset.nats, text: [...g.querySelectorAll('text')].map((x) => x.textContent).join(' | ') }));
  check(`importance: the legend gives the absolute scale in nats (${legend.text})`, legend.nats === String(COLOUR_NATS) && /\u2264 \u22121 nat/.test(legend.text) && /\u2265 \+1 nat/.test(legend.text), legend.text);
  // the mean over every word: an explicit choice, map and bar the same mean
  for (const [sentence, off] of [['A dog ran.', ''], ['The cat sat on the [MASK].', '1.2']]) {
    await gotoHash(page, { sentence, view: 'head-importance', layer: 2, head: 1, token: 3, over: 'all', ...(off ? { off } : {}) });
    await explorer(page).locator('.imp-cell').first().waitFor({ timeout: 120000 });
    const ids = await explorer(page).evaluate((e) => Array.from(e.run.ids));
    const removedHeads = off ? [off.split('.').map((v) => Number(v) - 1)] : [];
    const ref = importanceReference(float64.model, ids, { ...special, removedHeads });
    const label = `importance over=all "${sentence}"${off ? ` with ${off} off` : ''}`;
    const { cells, mean } = await checkImportanceFigure(page, ref, label, DELTA_BAR);
    const subtitle = (await explorer(page).locator('.figure-box .fig-sub').allTextContents()).join(' ');
    const says = ref.maskedInTurn ? /masked in turn/.test(subtitle) : /\[MASK\]/.test(subtitle);
    const effect = Number(await explorer(page).locator('.imp-bar-effect').getAttribute('data-value'));
    check(`${label}: the mean over ${ref.targets.length} target(s), said in the subtitle; the effect bar is the map's cell (${effect.toFixed(4)})`,
      says && effect === cells.find((c) => c.layer === 1 && c.head === '1').delta &&
      float64.see('head importance', 'effect bar (mean)', Math.abs(effect - mean((target) => target.heads[heads])), DELTA_BAR), subtitle);
  }
  await andRedraw(page, () => explorer(page).locator('.over-toggle').click());
  check('importance: the switch goes back to the chosen word', (await pageState(page)).importanceOver === 'word');
  await andRedraw(page, () => explorer(page).locator('.imp-cell[data-layer="3"][data-head="4"]').click());
  const picked = await pageState(page);
  check('importance: clicking a cell picks its head', picked.layer === 2 && picked.head === 3);
  check('importance: no page errors', page.problems.length === 0, page.problems.join('; '));
  await page.context().close();
}

/**
 * Entropy with [CLS] and [SEP] hidden (special=hide) on the course's "the cat sat on mat": the
 * maximum is ln 5, every row renormalised over the 5 words, the mean row entropy per head over
 * the words; all against the float64 rows renormalised here.
 */
export async function testEntropyHidden() {
  const page = await newPage();
  await gotoHash(page, { sentence: 'the cat sat on mat', view: 'entropy', special: 'hide', layer: 2, head: 3, token: 2 });
  const run = await explorer(page).evaluate((e) => ({ ids: Array.from(e.run.ids), tokens: [...e.run.tokens] }));
  const ref = float64.of(run);
  const words = run.tokens.flatMap((token, i) => (token === '[CLS]' || token === '[SEP]' ? [] : [i]));
  const statsOf = (l, h, i) => {
    const row = ref.row(l, h, i);
    const total = words.reduce((sum, j) => sum + row[j], 0);
    let entropy = 0;
    for (const j of words) { const p = row[j] / total; if (p > 0) entropy -= p * Math.log(p); }
    return { entropy, effective: Math.exp(entropy) };
  };
  const table = await explorer(page).locator('svg[data-table="mean"]').evaluate((svg) => ({ max: Number(svg.dataset.max), rows: svg.dataset.rows,
    cells: [...svg.querySelectorAll('.table-cell')].map((c) => ({ ...c.dataset })) }));
  let worst = 0;
  for (const cell of table.cells) {
    const l = Number(cell.layer) - 1, h = Number(cell.head) - 1;
    const mean = words.reduce((sum, i) => sum + statsOf(l, h, i).entropy, 0) / words.length;
    worst = Math.max(worst, Math.abs(Number(cell.entropy) - mean));
  }
  check(`entropy special=hide "the cat sat on mat": ${words.length} words, maximum ln 5 (${table.max.toFixed(4)}); ${table.cells.length} mean row entropies over the words at the float64 values (max |Δ| ${worst.toExponential(1)})`,
    words.length === 5 && Math.abs(table.max - Math.log(5)) < 1e-12 && table.rows === words.join(',') && table.cells.length === 16 &&
    float64.see('entropy', 'mean row entropy, [CLS]/[SEP] hidden (nats)', worst, ANALYSIS_BARS.entropy) && table.cells.every((c) => Number(c.entropy) <= Math.log(5) + 1e-6));
  const bars = await explorer(page).locator('.entropy-row rect.bar').evaluateAll((all) => all.map((r) => ({ ...r.dataset })));
  let barWorst = 0;
  bars.forEach((bar) => { barWorst = Math.max(barWorst, Math.abs(Number(bar.entropy) - statsOf(1, 2, Number(bar.row)).entropy)); });
  check(`entropy special=hide: ${bars.length} bars, the words' rows renormalised, at the float64 entropies (max |Δ| ${barWorst.toExponential(1)})`,
    bars.length === 5 && bars.map((b) => b.row).join(',') === words.join(',') && float64.see('entropy', 'row entropy, [CLS]/[SEP] hidden (nats)', barWorst, ANALYSIS_BARS.entropy));
  const readout = { entropy: await explorer(page).locator('[data-role="entropy"]').textContent(), max: await explorer(page).locator('[data-role="max-entropy"]').textContent() };
  const want = statsOf(1, 2, 2).entropy;
  check(`entropy special=hide: the readout gives ${want.toFixed(3)} nats against the maximum ln 5 = 1.609 (${readout.entropy} / ${readout.max})`,
    Math.abs(Number(readout.entropy.replace(/[^\d.]/g, '')) - want) <= 6e-4 && /1\.609/.test(readout.max), JSON.stringify(readout));
  await andRedraw(page, () => explorer(page).locator('.special-toggle').click());
  const shown = await explorer(page).locator('svg[data-table="mean"]').evaluate((svg) => Number(svg.dataset.max));
  check('entropy: the switch shows [CLS] and [SEP] again, the maximum back to ln 7', Math.abs(shown - Math.log(7)) < 1e-12 && !(await pageState(page)).hideSpecial);
  check('entropy special=hide: no page errors', page.problems.length === 0, page.problems.join('; '));
  await page.context().close();
}

/**
 * The mean importance over every word runs in the page's workers, off the page's thread: the
 * numbers the view keeps are bit for bit those the page's own session computes step by step, with
 * heads switched off and without, from file:// and over http.
 */
export async function testImportanceInWorkers() {
  const page = await newPage();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'importance-policy-'));
  const noWorker = pageUnderPolicy(dir, 'no-worker.html', "worker-src 'none'", FILE);
  const cases = [[url(FILE, 'index.html'), '', 'file://'], [url(FILE, 'index.html'), '2.3', 'file://'], [url(HTTP, 'index.html'), '1.1', 'http'],
    [noWorker, '', "a policy with worker-src 'none'"]].filter((_, k) => browserName !== 'firefox' || k === 0 || k === 3);  // Firefox: file:// and the policy
  for (const [address, off, where] of cases) {
    const sentence = 'The little dog ran to the park because the sun was out.';
    await page.goto(address + '#' + new URLSearchParams({ sentence, view: 'head-importance', over: 'all', token: '3', ...(off ? { off } : {}) }));
    await waitDrawn(page);
    await explorer(page).locator('.imp-cell').first().waitFor({ timeout: 120000 });
    const seen = await explorer(page).evaluate(importanceAgainstPageThread);
    const workers = where.startsWith('a policy') ? seen.workers === 0 : seen.workers >= 1;
    check(`importance over every word (${where}${off ? `, ${off} off` : ''}): computed in ${seen.workers} worker(s), its ${seen.targets} targets and mean bit for bit the page thread's`,
      workers && seen.same && seen.mean && seen.targets > 5, JSON.stringify(seen));
  }
  if (browserName === 'chromium') await warmedByTheWordsMap(page);
  // the policy page's console reports the workers it refused: the only messages expected
  const problems = page.problems.filter((p) => !/violates the following (Content Security Policy )?directive: .worker-src 'none'./.test(p));
  check('importance in workers: no page errors', problems.length === 0, problems.join('; '));
  await page.context().close();
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * The view for the chosen word starts the workers and gives them the model (bert-mini is small),
 * so that the mean, once asked for, runs in them at once: no worker started again, no model sent again.
 */
async function warmedByTheWordsMap(page) {
  await page.addInitScript(() => {
    const PageWorker = window.Worker;
    window.workerLog = { made: 0, models: 0 };
    window.Worker = class extends PageWorker {
      constructor(...args) { super(...args); window.workerLog.made++; }
      postMessage(message, transfer) { if (message?.load) window.workerLog.models++; return super.postMessage(message, transfer); }
    };
  });
  const sentence = 'The little dog ran to the park because the sun was out.';
  await page.goto(url(FILE, 'index.html') + '#' + new URLSearchParams({ sentence, view: 'head-importance', token: '3' }));
  await explorer(page).locator('.imp-cell').first().waitFor({ timeout: 120000 });
  await page.waitForFunction(() => window.workerLog.made > 0 && window.workerLog.models === window.workerLog.made, null, { timeout: 60000 });
  const before = await page.evaluate(() => ({ ...window.workerLog }));
  await explorer(page).locator('input.over-toggle').check();
  await page.waitForFunction(() => document.querySelector('attention-explorer').session.runMemo.has('importance'), null, { timeout: 120000 });
  const seen = await explorer(page).evaluate(importanceAgainstPageThread);
  const after = await page.evaluate(() => ({ ...window.workerLog }));
  check(`importance: the chosen word's map starts ${before.made} worker(s) and gives them the model; the mean, asked for then, computed in ${seen.workers} of them, ` +
    `none started or loaded again (${after.made}, ${after.models}), bit for bit the page thread's`,
    before.made >= 1 && after.made === before.made && after.models === before.models && seen.workers >= 1 && seen.same && seen.mean, JSON.stringify({ before, after, seen }));
}

/** In the page: the view's kept mean against one the page's thread computes step by step now. */
function importanceAgainstPageThread(e) {
  const kept = e.session.importance();
  const own = e.engine.createSession();
  own.setRemovedHeads(e.session.removedHeads());
  own.runTypedIds(Array.from(e.run.ids), e.session.typeIds());
  const steps = own.importanceSteps();
  let step = steps.next();
  while (!step.done) step = steps.next();
  own.destroy();
  const bits = (result) => JSON.stringify(result.targets.map((t) => [t.position, t.answer.id, t.top1.id, t.logProb, [...t.heads], [...t.layers], [...t.headTop1], [...t.layerTop1]]));
  const means = (result) => JSON.stringify([result.mean.heads, result.mean.layers, result.changed.heads, result.changed.layers].map((a) => [...a]));
  return { workers: kept.workers ?? 0, same: bits(kept) === bits(step.value), mean: means(kept) === means(step.value), targets: kept.targets.length };
}
