// The views beyond the values: a view added by web/README.md's diff and by a page's script,
// honest readings, Compare's alignment and headers, the head view, the model card.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ANALYSIS_BARS, ATTENTION_BAR, borderlineReading, expectedReading } from '../float64-reference.mjs';
import { layoutProblemsInPage } from '../layout.mjs';
import { FILE, OUT, ROOT, andRedraw, check, explorer, float64, gotoHash, newPage, nodeSession, pageState, selectView, shot, url, viewValues, waitDrawn } from '../lib/session.mjs';
import { LONG_TEXT } from './layout.mjs';
import { build as esbuild } from 'esbuild';

/**
 * The checks of a page whose explorer has the "hello" view (web/README.md's example): its tab,
 * its state and hash parameter, the keyboard's way to its tab and its focus target, its own
 * messages in French. `address(lang)` is the page in that language.
 */
export async function checkHelloView(label, address) {
  const page = await newPage();
  await page.goto(`${address('en')}#view=hello&greeting=again&token=2`);
  await waitDrawn(page);
  const tab = explorer(page).locator('.tab[data-view="hello"]');
  check(`${label}: a tab with its label, last in the tab list`, (await tab.textContent()) === 'Hello' &&
    (await explorer(page).locator('.tab').last().getAttribute('data-view')) === 'hello');
  const state = await pageState(page);
  check(`${label}: the hash chose it and set its own parameter`, state.view === 'hello' && state.greeting === 'again', JSON.stringify({ view: state.view, greeting: state.greeting }));
  const drawn = await explorer(page).locator('.figure-box .hello-target').textContent();
  check(`${label}: its figure is drawn from the run and its state`, drawn === `Hello, ${state.tokens[2]} (again)`, drawn);
  await page.goto(address('en'));
  await waitDrawn(page);
  await explorer(page).locator('.tab[data-view="row"]').click();
  await explorer(page).locator('.tab[data-view="row"]').focus();
  await andRedraw(page, () => page.keyboard.press('End'));
  const focused = await page.evaluate(() => document.querySelector('attention-explorer').shadowRoot.activeElement?.dataset.view);
  check(`${label}: End on the tabs reaches its tab and focuses it`, focused === 'hello', String(focused));
  await explorer(page).locator('.hello-target').focus();
  await andRedraw(page, () => page.keyboard.press('Enter'));
  const after = await page.evaluate(() => ({ greeting: document.querySelector('attention-explorer').state.greeting,
    focus: document.querySelector('attention-explorer').shadowRoot.activeElement?.getAttribute('class') }));
  await page.waitForFunction(() => location.hash.includes('greeting=again'), null, { timeout: 3000 }).catch(() => {});
  const hash = await page.evaluate(() => location.hash);
  check(`${label}: its keyboard handling changes its state, the focus returns to its target, the hash keeps both`,
    after.greeting === 'again' && after.focus === 'hello-target' && hash.includes('view=hello') && hash.includes('greeting=again'), `${JSON.stringify(after)} ${hash}`);
  check(`${label}: layout clean`, (await page.evaluate(layoutProblemsInPage, 0)).length === 0);
  await page.goto(`${address('fr')}#view=hello`);
  await waitDrawn(page);
  check(`${label}: its own messages in French`, (await explorer(page).locator('.tab[data-view="hello"]').textContent()) === 'Bonjour');
  check(`${label}: no page errors`, page.problems.length === 0, page.problems.join('; '));
  await page.context().close();
}

/** The page of a course holding one explorer (with the URL hash) and the given scripts. */
export const helloPage = (lang, scripts, assets = '') => `<!doctype html><html lang="${lang}"><meta charset="utf-8">` +
  scripts.map((src) => `<script src="${src}"></script>`).join('') + `<attention-explorer hash${assets ? ` assets="${assets}"` : ''}></attention-explorer>\n`;

/**
 * Adding a view is one diff: web/README.md's, applied with `git apply` to a scratch copy of
 * web/src/, touches only the new view's module and its line in views/index.mjs; the copy,
 * bundled, shows the view with everything it declares.
 */
export async function testAddedView() {
  const readme = readFileSync(path.join(ROOT, 'web/README.md'), 'utf8');
  const diff = /```diff\n([\s\S]*?)```/.exec(readme.split(/^## Views$/m)[1] ?? '')?.[1];
  if (!check('added view: web/README.md shows the diff of adding a view', !!diff)) return;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'attn-added-view-'));
  try {
    await cp(path.join(ROOT, 'web/src'), path.join(dir, 'web/src'), { recursive: true });
    for (const outside of ['c', 'weights']) {  // the modules web/src imports from beside it (the format's spec, the converter)
      await mkdir(path.join(dir, outside));
      for (const name of readdirSync(path.join(ROOT, outside)).filter((n) => n.endsWith('.mjs'))) await cp(path.join(ROOT, outside, name), path.join(dir, outside, name));
    }
    await writeFile(path.join(dir, 'hello.diff'), diff);
    const touched = execFileSync('git', ['apply', '--numstat', 'hello.diff'], { cwd: dir, encoding: 'utf8' }).trim().split('\n').map((line) => line.split('\t')[2]);
    check(`added view: the diff touches only the view's module and the view list (${touched.join(', ')})`,
      touched.sort().join() === 'web/src/views/hello.mjs,web/src/views/index.mjs', touched.join(', '));
    execFileSync('git', ['apply', 'hello.diff'], { cwd: dir });
    await esbuild({ entryPoints: [path.join(dir, 'web/src/attention-explorer.mjs')], outfile: path.join(dir, 'dist/attention-explorer.js'),
      bundle: true, format: 'iife', target: 'es2022', logLevel: 'silent' });
    const assets = pathToFileURL(path.join(ROOT, 'web/dist')).href + '/';
    for (const lang of ['en', 'fr']) await writeFile(path.join(dir, `lesson-${lang}.html`), helloPage(lang, ['dist/attention-explorer.js'], assets));
    await checkHelloView('added view', (lang) => pathToFileURL(path.join(dir, `lesson-${lang}.html`)).href);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The same view added from a page's own script (AttentionExplorerPage.registerView): no project file changes. */
export async function testRegisteredView() {
  const readme = readFileSync(path.join(ROOT, 'web/README.md'), 'utf8');
  const diff = /```diff\n([\s\S]*?)```/.exec(readme.split(/^## Views$/m)[1] ?? '')?.[1] ?? '';
  // The README's module as a classic script: its imports are the bundle's own helpers.
  const module = diff.split('\n+++ b/web/src/views/hello.mjs\n')[1]?.split('\ndiff --git')[0].split('\n').filter((l) => l.startsWith('+')).map((l) => l.slice(1)).join('\n') ?? '';
  const script = module.replace(/^import .*$/gm, '').replace('export const helloView =', 'const helloView =') +
    '\nAttentionExplorerPage.registerView(helloView);\n';
  const helpers = 'const { svg, figureRoot, enumParam } = AttentionExplorerPage.helpers;\n';
  await mkdir(OUT, { recursive: true });
  await writeFile(path.join(OUT, 'registered-view.js'), `(function () {\n${helpers}${script}})();\n`);
  for (const lang of ['en', 'fr']) await writeFile(path.join(OUT, `registered-view-${lang}.html`), helloPage(lang, ['../web/dist/attention-explorer.js', 'registered-view.js']));
  await checkHelloView('registered view', (lang) => `${FILE}/test-output/registered-view-${lang}.html`);
}

export async function testReadings() {
  const page = await newPage();
  const sentence = 'The cat sat on the mat because it was tired.';
  // Every head of layer 1 for "it": the reading follows the one definition.
  await gotoHash(page, { sentence, layer: 1, head: 1, token: 8, view: 'row' });
  const { ref } = await viewValues.float64(page);
  let readingsOk = true;
  const seen = [];
  for (let head = 1; head <= 4; head++) {
    await andRedraw(page, () => explorer(page).locator('.head-picker button').nth(head - 1).click());
    const shown = await explorer(page).locator('.bar-column.attention-row').getAttribute('data-reading');
    const stats = ref.rowStats(0, head - 1, 8);
    seen.push(`${shown}/${expectedReading(stats)}${borderlineReading(stats) ? ' (borderline, not compared)' : ''}`);
    if (shown !== expectedReading(stats) && !borderlineReading(stats)) readingsOk = false;
  }
  check(`readings: the row's reading follows the float64 normalised entropy for every head (${seen.join(', ')})`, readingsOk);
  const why = await explorer(page).locator('.why-sum').textContent();
  const definition = await explorer(page).locator('.definition').textContent();
  check('readings: one sentence near the row says why Σ = 1 (a softmax) and what the ratio compares with (1/n)',
    /softmax/.test(why) && /1\/n/.test(why) && /\u03a3 = 1/.test(why), why);
  check('readings: the definition of focused / spread / uniform-like is stated on the page', /0\.4/.test(definition) && /0\.85/.test(definition) && /whatever the number of tokens/.test(definition), definition);
  // Fixed 0–1 scale: the axis ends at 1 for every head.
  await andRedraw(page, () => explorer(page).locator('.scale-toggle').check());
  const axisEnds = [];
  for (let head = 1; head <= 2; head++) {
    await andRedraw(page, () => explorer(page).locator('.head-picker button').nth(head - 1).click());
    axisEnds.push(await explorer(page).locator('.attention-row text.axis').last().textContent());
  }
  check(`readings: the fixed scale option puts every head on one 0–1 axis (${axisEnds.join(', ')})`, axisEnds.every((t) => t === '1'));
  const hash = await page.waitForFunction(() => location.hash.includes('scale=fixed'), null, { timeout: 3000 }).then(() => true, () => false);
  check('readings: the fixed scale is kept in the URL hash', hash);
  // Entropy view: darker means more concentrated, as everywhere.
  await selectView(page, 'entropy');
  const cells = await explorer(page).locator('.table-cell').evaluateAll((all) => all.slice(0, 16).map((c) => ({ value: Number(c.dataset.value), fill: c.getAttribute('fill') })));
  const luminance = (fill) => { const [r, g, b] = fill.match(/\d+/g).map(Number); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const mostFocused = cells.reduce((a, b) => (b.value < a.value ? b : a));
  const broadest = cells.reduce((a, b) => (b.value > a.value ? b : a));
  check(`readings: entropy table, the head with fewest effective tokens (${mostFocused.value}) is darker than the broadest (${broadest.value})`,
    luminance(mostFocused.fill) < luminance(broadest.fill));
  // A long row that is not concentrated is not called focused, whatever its ratio.
  // The 512 tokens come from the engine's tokenizer; their analyses from the float64 reference.
  const long = float64.of(nodeSession.runText(LONG_TEXT));
  let target = null;
  for (let l = 0; l < 4 && !target; l++) {
    for (let h = 0; h < 4 && !target; h++) {
      for (let t = 1; t < 512 && !target; t += 7) {
        const stats = long.rowStats(l, h, t);
        if (stats.ratio >= 2.5 + 512 * ANALYSIS_BARS.ratio && stats.normalized >= 0.4 + ANALYSIS_BARS.normalized) target = { l, h, t, stats };
      }
    }
  }
  if (check('readings: the 512-token text has a row with ratio ≥ 2.5 that is not concentrated', !!target)) {
    await gotoHash(page, { sentence: LONG_TEXT, layer: target.l + 1, head: target.h + 1, token: target.t, view: 'row' });
    const shown = await explorer(page).locator('.reading').textContent();
    const kind = await explorer(page).locator('.reading').getAttribute('data-reading');
    const effective = Number(/([\d.]+) effective tokens of 512/.exec(shown)?.[1]);
    check(`readings: 512 tokens, ratio ${target.stats.ratio.toFixed(1)}, ${target.stats.effective.toFixed(1)} effective tokens: "${kind}", not "focused"`,
      kind === expectedReading(target.stats) && kind !== 'focused' &&
      Math.abs(effective - target.stats.effective) <= 0.05 + ANALYSIS_BARS.effective * target.stats.effective, shown);
  }
  // Empty input: [CLS] [SEP] alone is no positional head.
  await gotoHash(page, { sentence: '', view: 'row' });
  const warnings = await explorer(page).locator('.notes .warning').count();
  await selectView(page, 'all-heads');
  const positional = await explorer(page).locator('.head-cell[data-roles*="previous"], .head-cell[data-roles*="next"]').count();
  check('readings: empty input shows no positional-head warning and no positional badge', warnings === 0 && positional === 0, `${warnings} warnings, ${positional} badges`);
  check('readings: no page errors', page.problems.length === 0, page.problems.join('; '));
  await page.context().close();
}

export async function testCompareAlignment() {
  const page = await newPage();
  const a = 'The cat sat on the mat because it was tired.';
  const b = 'The old black cat sat on the mat because it was tired.';
  await gotoHash(page, { sentence: a, compare: b, layer: 2, head: 1, token: 'it', view: 'compare' });
  const itA = nodeSession.runText(a).tokens.indexOf('it');
  const bTokens = nodeSession.runText(b).tokens;
  const itB = bTokens.indexOf('it');
  const columns = await explorer(page).locator('.compare-row').evaluateAll((all) => all.map((g) => ({ ...g.dataset })));
  check(`compare: "it" (A token ${itA}) is compared with "it" (B token ${itB}), not with B token ${itA} ("${bTokens[itA]}")`,
    columns.length === 2 && columns[0].token === String(itA) && columns[1].token === String(itB), JSON.stringify(columns.map((c) => c.token)));
  // "old black" only in B: A's token i is B's token i + 2 from "cat" on.
  await viewValues.checkCompare(page, 'compare "The (old black) cat …", layer 2 · head 1', (i) => (i >= 2 ? i + 2 : i));
  const notice = await explorer(page).locator('.notes').textContent();
  check('compare: the note names the words only in B and blames no tokenizer', /Only in B: .*old.*black/.test(notice) && !/WordPiece/.test(notice), notice);
  // The same sentence twice: every difference is below the parity bar, drawn as "=".
  await gotoHash(page, { sentence: a, compare: a, layer: 2, head: 1, token: 'it', view: 'compare' });
  const bars = await explorer(page).locator('.difference-row rect.bar').count();
  const equals = await explorer(page).locator('.difference-row .val-none').count();
  const axis = await explorer(page).locator('.difference-row text.axis').allTextContents();
  check(`compare: no difference is drawn as "=" on the fixed ±1 axis (${bars} bars, ${equals} "=", axis ${axis.join(' ')})`,
    bars === 0 && equals === nodeSession.runText(a).n && axis[0] === '\u22121' && axis.at(-1) === '+1');
  check('compare: no page errors', page.problems.length === 0, page.problems.join('; '));
  await page.context().close();
}

export async function testHeadView() {
  const page = await newPage();
  const sentence = 'The cat sat on the mat because it was tired.';
  await gotoHash(page, { sentence, layer: 2, head: 1, token: 8, view: 'lines' });
  await viewValues.checkLines(page, 'head view "The cat sat …"');
  const { ref } = await viewValues.float64(page);
  const n = ref.n;
  const lines = await explorer(page).locator('.hv-line').evaluateAll((all) => all.map((l) => ({ head: l.dataset.head, colour: l.getAttribute('stroke') })));
  check('head view: each head has its own colour', new Set(lines.map((l) => `${l.head}:${l.colour}`)).size === new Set(lines.map((l) => l.colour)).size && new Set(lines.map((l) => l.colour)).size === 4);
  const visibleFrom = () => explorer(page).locator('.hv-from').evaluateAll((all) => all.filter((g) => getComputedStyle(g).display !== 'none').map((g) => g.dataset.from));
  await explorer(page).locator('.hv-left[data-index="3"]').hover();
  const hovered = await visibleFrom();
  check('head view: hovering a token isolates its lines', hovered.length === 1 && hovered[0] === '3', hovered.join(','));
  await explorer(page).locator('.hv-left[data-index="8"]').focus();
  await page.keyboard.press('ArrowDown');
  const focusedIndex = await page.evaluate(() => document.querySelector('attention-explorer').shadowRoot.activeElement?.dataset.index);
  const focusedLines = await visibleFrom();
  check('head view: ArrowDown moves the keyboard focus to the next token and isolates its lines', focusedIndex === '9' && focusedLines.join(',') === '9', `${focusedIndex}: ${focusedLines}`);
  await andRedraw(page, () => page.keyboard.press('Enter'));
  check('head view: Enter picks the focused token', (await pageState(page)).token === 9);
  // Hide [CLS]/[SEP]: gone from both columns; the row view's bars are the renormalised row.
  await andRedraw(page, () => explorer(page).locator('.special-toggle').check());
  const labels = await explorer(page).locator('.hv-left').allTextContents();
  const hiddenTargets = await explorer(page).locator('.hv-line').evaluateAll((all) => all.filter((l) => l.dataset.to === '0').length);
  check('head view: hiding [CLS]/[SEP] removes them from the columns', !labels.includes('[CLS]') && !labels.includes('[SEP]') && hiddenTargets === 0);
  check('head view: the page says the shown weights are renormalised', /renormalised/.test(await explorer(page).locator('.notes').textContent()));
  await selectView(page, 'row');
  const bars = await explorer(page).locator('.attention-row rect.bar').evaluateAll((all) => all.map((r) => Number(r.dataset.value)));
  const raw = ref.row(1, 0, 9);
  const kept = raw[0] + raw[n - 1];
  const expected = raw.slice(1, n - 1).map((v) => v / (1 - kept));
  // Dividing by 1 − ([CLS] + [SEP]) scales each weight's error, and adds that of the divisor: 3× the bar over 1 − kept.
  const renormalisedBar = (3 * ATTENTION_BAR) / (1 - kept);
  const delta = bars.length === n - 2 ? Math.max(...bars.map((v, k) => Math.abs(v - expected[k]))) : Infinity;
  check(`row view with [CLS]/[SEP] hidden: ${bars.length} bars, the float64 row divided by 1 − ([CLS] + [SEP]) = ${(1 - kept).toFixed(3)} ` +
    `(max |Δ| ${delta.toExponential(1)}), summing to 1`,
  float64.see('row, [CLS]/[SEP] hidden', 'renormalised bars', delta, renormalisedBar) && Math.abs(bars.reduce((s, v) => s + v, 0) - 1) < 1e-5);
  check('row view with [CLS]/[SEP] hidden: a warning says the numbers are renormalised', (await explorer(page).locator('.renormalised').count()) === 1);
  check('head view: no page errors', page.problems.length === 0, page.problems.join('; '));
  await page.context().close();
}

export async function testModelCard() {
  const page = await newPage();
  await gotoHash(page, { sentence: 'The cat sat on the [MASK].', view: 'mlm' });
  const caveat = await explorer(page).locator('.mlm-caveat').textContent();
  check('model card: the [MASK] view says the predictions are mostly frequency guesses', /frequency guesses/.test(caveat), caveat);
  const hasCard = await explorer(page).evaluate((e) => e.engine.modelCard() !== null);
  const panel = await explorer(page).locator('.model-card').evaluate((d) => ({ card: d.dataset.card, text: d.textContent }));
  check(`model card: the page shows ${hasCard ? 'the card' : 'an honest note that the weights file has no card'}`,
    hasCard ? panel.card === 'present' && /Held-out masked-word accuracy/.test(panel.text) && /all 28 matrices int8/.test(panel.text)
      && /13,017,689 tokens of text in English/.test(panel.text) && /No positional head/.test(panel.text) : panel.card === 'none' && /no model card/.test(panel.text) && /4 layers \u00d7 4 heads/.test(panel.text),
    panel.text);
  // A card as the converter writes it is shown field by field.
  const shown = await explorer(page).evaluate((e) => {
    e.engine.card = { name: 'bert-mini (test card)', source: 'a checkpoint', trained_on: 'some text', heldout_mlm_accuracy: 0.142, heldout_mlm_loss: 4.9, limits: ['no long-range reasoning'] };
    e.buildShapeControls();
    return e.shadowRoot.querySelector('.model-card').textContent;
  });
  check('model card: name, training data, held-out accuracy and limits are shown when the file has a card',
    ['bert-mini (test card)', 'some text', '14% top-1', 'no long-range reasoning'].every((t) => shown.includes(t)), shown);
  check('model card: no page errors', page.problems.length === 0, page.problems.join('; '));
  await page.context().close();
}

/**
 * Compare's column headings and stat lines break between words at 320 px, in French and
 * English: each column's lines, joined by spaces, give back its texts (a word cut in two would
 * not: "phras e A"), and they stay inside the figure (the layout checks).
 * Screenshot: test-output/screenshots/compare-fr-320.png.
 */
export async function testCompareHeaders() {
  for (const lang of ['fr', 'en']) {
    const page = await newPage({ viewport: { width: 320, height: 844 }, isMobile: true });
    const hash = new URLSearchParams({ sentence: 'The cat sat on the mat.', compare: 'The cat sat on the rug.', token: 'cat', view: 'compare' }).toString().replace(/\+/g, '%20');
    await page.goto(url(FILE, `index.html?lang=${lang}`) + '#' + hash);
    await waitDrawn(page);
    const columns = await explorer(page).locator('.figure-box .bar-column').evaluateAll((all) => all.map((g) =>
      [...g.querySelectorAll('text.col-head, text.col-stat')].map((t) => t.textContent).join(' ')));
    const t = lang === 'fr' ? { a: 'phrase A', b: 'phrase B', none: 'pas de différence', largest: '|Δ| maximal' } : { a: 'sentence A', b: 'sentence B', none: 'no difference', largest: 'largest |Δ|' };
    check(`compare headers (${lang}) at 320 px break between words: ${columns.map((c) => `"${c}"`).join(', ')}`,
      columns.length === 3 && columns[0].startsWith(t.a) && columns[1].startsWith(t.b) && (columns[2].includes(t.none) || columns[2].includes(t.largest)), JSON.stringify(columns));
    const problems = await page.evaluate(layoutProblemsInPage, 0);
    check(`compare headers (${lang}) at 320 px: no overlapping or cut text`, problems.length === 0, problems.slice(0, 3).join('; '));
    if (lang === 'fr') await shot(page, 'compare-fr-320');
    await page.context().close();
  }
}
