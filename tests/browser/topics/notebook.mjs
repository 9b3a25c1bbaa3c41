// The explorer in a notebook and as one file (web/notebook/attention_explorer.py,
// tools/explorer-html.mjs), in real Chromium; run by tests/browser/notebook.test.mjs. A notebook
// made of README.md's "In a notebook" lines, plus a cell showing a checkpoint converted by
// weights/convert.mjs through `weights=`, is executed by Debian's Jupyter (`jupyter-nbconvert
// --execute --to html`); its HTML export, alone in an empty folder, opens from file://: every
// explorer draws, its Row view sums to 1 and is the float64 reference's row (weights/reference.mjs,
// on the checkpoints, never the engine), the French one speaks French, the element is defined
// once, the outputs share one engine per model, and the page makes no request but for itself
// (nbconvert's own template scripts aside, refused). The README's save() line run in that kernel
// and its command line give the same bytes, of the size the README states, and that file, alone,
// draws too. Outputs rendered one at a time as a live JupyterLab renders them draw too, and so do
// figures alone carrying only the weights they read.
//
// Each test is an `async function testX(ctx)`; ctx (notebookContext()): browser (Playwright's
// Chromium), check, work (a scratch folder), readme, tiny ({ checkpoint, bin }), reference.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { float64Reference } from '../float64-reference.mjs';
import { allDrawnInPage, carriedPageInPage, checkDrawnRow } from '../lib/carried-pages.mjs';
import { compactConfig, randomTensors, writeCheckpoint } from '../../lib/checkpoints.mjs';
import { loadCheckpoint, referenceForward } from '../../../weights/reference.mjs';
import fr from '../../../web/src/i18n/fr.mjs';
import { VIEWS } from '../../../web/src/views/index.mjs';
import { EVERY_PART_VIEWS, onePage } from '../../../tools/explorer-html.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const NBCONVERT = process.env.JUPYTER_NBCONVERT || '/usr/bin/jupyter-nbconvert';
// nbconvert's HTML template loads these from Debian's packages; the explorer needs neither.
const TEMPLATE_SCRIPTS = /^file:\/\/\/usr\/share\/javascript\/(mathjax|requirejs)\//;
const TINY_SENTENCE = 'the cat sat on the mat.';

/** What the tests share: the README's section, a converted tiny checkpoint in `work`, the float64 reference. */
export function notebookContext({ browser, check, work }) {
  return { browser, check, work, readme: readmeNotebookSection(), tiny: tinyModel(work), reference: float64Reference(ROOT) };
}

/** README.md's "In a notebook" section: its python blocks, its command line, the size it states. */
function readmeNotebookSection() {
  const section = readFileSync(path.join(ROOT, 'README.md'), 'utf8').split(/^## /m).find((s) => s.startsWith('In a notebook')) ?? '';
  return {
    cells: [...section.matchAll(/```python\n([\s\S]*?)```/g)].map((m) => m[1]),
    command: /^ {4}(node tools\/explorer-html\.mjs[\s\S]*?[^\\])\n/m.exec(section)?.[1],
    statedMB: Number(/The file is ([\d.]+) MB with the default model/.exec(section)?.[1]),
  };
}

/** A 2-layer, 2-head checkpoint and its .bin (weights/convert.mjs). */
function tinyModel(dir) {
  const config = compactConfig({ layers: 2, hidden: 128, vocab: 200, positions: 64 });
  const checkpoint = writeCheckpoint(path.join(dir, 'tiny-bert'), { config, ...randomTensors(config, 31) });
  const bin = path.join(dir, 'tiny-bert.bin');
  execFileSync('node', [path.join(ROOT, 'weights/convert.mjs'), checkpoint, bin], { stdio: 'pipe' });
  return { checkpoint, bin };
}

const defaultRow = (ctx, shown) => (l, h, t) => ctx.reference.of(shown).row(l, h, t);

const tinyRow = (checkpoint, shown) => (l, h, t) => {
  const model = loadCheckpoint(checkpoint);
  const { attention } = referenceForward(model, shown.ids);
  const n = shown.ids.length, heads = model.shape.heads;
  return Array.from(attention.subarray(((l * heads + h) * n + t) * n, ((l * heads + h) * n + t + 1) * n));
};

// ---- the notebook, executed once for the tests that read it ---------------------------------
function notebook(cells) {
  return JSON.stringify({
    cells: cells.map((source) => ({ cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source })),
    metadata: { kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' } },
    nbformat: 4, nbformat_minor: 5,
  });
}

/** The README's three cells and one showing the tiny checkpoint, in work/lesson.ipynb. */
function lessonCells(ctx) {
  return [
    ctx.readme.cells[0].replace('"web/notebook"', JSON.stringify(path.join(ROOT, 'web/notebook'))),
    ctx.readme.cells[1],
    ctx.readme.cells[2],
    `show(${JSON.stringify(TINY_SENTENCE)}, weights=${JSON.stringify(ctx.tiny.bin)}, layer=2, head=2, token="cat")`,
  ];
}

/** A program's exit status and the end of its stderr (the test's own limit stops a hang). */
function runProgram(program, args, options) {
  return new Promise((resolve) => {
    const child = spawn(program, args, { ...options, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (data) => { stderr = (stderr + data).slice(-4000); });
    child.on('error', (error) => resolve({ status: null, stderr: String(error) }));
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

/**
 * The lesson executed by nbconvert into work/lesson.html (its third cell, the README's save(),
 * writes work/figure.html), once for every test that asks: { cells, status, stderr }.
 */
function executedNotebook(ctx) {
  ctx.executed ??= (async () => {
    const cells = lessonCells(ctx);
    writeFileSync(path.join(ctx.work, 'lesson.ipynb'), notebook(cells));
    const run = await runProgram(NBCONVERT, ['--to', 'html', '--execute', '--ExecutePreprocessor.timeout=300', 'lesson.ipynb',
      '--output', 'lesson.html'], { cwd: ctx.work, env: { ...process.env, PYDEVD_DISABLE_FILE_VALIDATION: '1' } });
    return { cells, ...run };
  })();
  return ctx.executed;
}

// ---- pages opened alone -------------------------------------------------------------------
/** Opens `file` copied alone into an empty folder; the requests other than itself are refused and listed.
 * With `settledInPage`, also waits for it and then reads each explorer's error and figure. */
async function openAlone(browser, file, settledInPage = null) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attn-alone-'));
  const copy = path.join(dir, path.basename(file));
  copyFileSync(file, copy);
  const address = pathToFileURL(copy).href;
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  try {
    const page = await context.newPage();
    const others = [], problems = [];
    await context.route((u) => u.href !== address, (route) => { others.push(route.request().url()); return route.abort(); });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => { if (message.type() === 'error' && !/ERR_FAILED|net::/.test(message.text())) problems.push(`console: ${message.text()}`); });
    await page.goto(address);
    await page.waitForFunction(allDrawnInPage, null, { timeout: 120000, polling: 100 });
    const shown = await page.evaluate(carriedPageInPage);
    let settled = null;
    if (settledInPage) {
      await page.waitForFunction(settledInPage, null, { timeout: 120000, polling: 200 });
      settled = await page.evaluate(() => [...document.querySelectorAll('attention-explorer')].map((e) => ({
        view: e.getAttribute('view'), error: e.shadowRoot.querySelector('.error:not([hidden])')?.textContent ?? null,
        figure: !!e.shadowRoot.querySelector('.figure-box svg'),
      })));
    }
    return { shown, others, problems, settled };
  } finally {
    await context.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The HTML IPython sends for each explorer (Explorer._repr_html_, what show() displays). */
function outputsOf(calls) {
  const code = `import sys, json; sys.path.insert(0, ${JSON.stringify(path.join(ROOT, 'web/notebook'))})
import attention_explorer as a
print(json.dumps([${calls.join(', ')}]))`;
  return JSON.parse(execFileSync('python3', ['-S', '-c', code], { encoding: 'utf8', maxBuffer: 1 << 28 }));
}

/**
 * A live notebook's outputs, rendered as JupyterLab renders a trusted text/html output: the HTML
 * set as innerHTML (its scripts do not run), then each script replaced by a new one with the same
 * attributes and text (those of a script type run). Run in the page, one output at a time.
 */
function renderOutputInPage(html) {
  const output = document.createElement('div');
  document.body.append(output);
  output.innerHTML = html;
  for (const old of output.querySelectorAll('script')) {
    const script = document.createElement('script');
    for (const { name, value } of old.attributes) script.setAttribute(name, value);
    script.textContent = old.textContent;
    old.replaceWith(script);
  }
}

// ---- the tests ----------------------------------------------------------------------------
/** README's "In a notebook" has what the other tests read: three python blocks, a command line, a stated size. */
export async function testNotebookReadme({ check, readme }) {
  check(`README's "In a notebook": ${readme.cells.length} python blocks (show, French, save), a command line, a stated size`,
    readme.cells.length === 3 && !!readme.command && readme.statedMB > 0);
}

/** The lesson executed by Jupyter; its HTML export, alone from file://: each cell's explorer drawn. */
export async function testNotebookExport(ctx) {
  const { check } = ctx;
  const executed = await executedNotebook(ctx);
  if (!check(`notebook: ${executed.cells.length} cells executed in a kernel by ${path.basename(NBCONVERT)} --execute --to html`,
    executed.status === 0, executed.stderr.slice(-1500))) throw new Error('no notebook to open');
  const exported = path.join(ctx.work, 'lesson.html');
  const { shown, others, problems } = await openAlone(ctx.browser, exported);
  const [first, french, tiny] = shown.explorers;
  check(`notebook export (${(statSync(exported).size / 1e6).toFixed(1)} MB, alone, file://): three explorers from three cells`, shown.explorers.length === 3);
  checkDrawnRow(check, 'notebook, cell 1 (README)', first, { layer: 1, head: 1, token: first.tokens.indexOf('it') }, defaultRow(ctx, first));
  checkDrawnRow(check, 'notebook, cell 2 (README, lang="fr")', french,
    { layer: 3, head: 2, token: french.tokens.indexOf('it'), shownSum: '1,000' }, defaultRow(ctx, french));
  check(`notebook, cell 2: the explorer speaks French (Row tab "${french.rowTab}")`, french.rowTab === fr['view.row']);
  checkDrawnRow(check, 'notebook, cell 4 (weights=tiny-bert.bin)', tiny, { layer: 2, head: 2, token: tiny.tokens.indexOf('cat') },
    tinyRow(ctx.tiny.checkpoint, tiny));
  check(`notebook, cell 4: weights= shows the converted checkpoint (${tiny.layers} layers × ${tiny.heads} heads)`, tiny.layers === 2 && tiny.heads === 2);
  check(`notebook: the element is defined once (the bundle ran ${shown.bundleRuns} time) and the outputs share one engine per model (${shown.engines})`,
    shown.bundleRuns === 1 && shown.engines === 2);
  const outside = others.filter((u) => !TEMPLATE_SCRIPTS.test(u));
  check(`notebook export: no request but the page's own (${others.length} of nbconvert's template refused)`, outside.length === 0, outside.slice(0, 3).join(', '));
  check('notebook export: no page errors', problems.length === 0, problems.join('; '));
}

/** Two outputs rendered one after the other, the second once the first has drawn: each draws, one bundle run, one engine per model. */
export async function testNotebookLiveOutputs(ctx) {
  const { check, tiny: { checkpoint, bin } } = ctx;
  const [first, second] = outputsOf([
    'a.explorer("The cat sat on the mat because it was tired.", layer=4, head=4, token="cat")._repr_html_()',
    `a.explorer(${JSON.stringify(TINY_SENTENCE)}, weights=${JSON.stringify(bin)}, token="mat", lang="fr")._repr_html_()`,
  ]);
  const context = await ctx.browser.newContext({ viewport: { width: 1100, height: 900 } });
  const requests = [], problems = [];
  let shown;
  try {
    const page = await context.newPage();
    await context.route('**/*', (route) => { requests.push(route.request().url()); return route.abort(); });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await page.setContent('<!doctype html><title>notebook</title><body></body>');
    await page.evaluate(renderOutputInPage, first);
    await page.waitForFunction(allDrawnInPage, null, { timeout: 120000, polling: 100 });
    await page.evaluate(renderOutputInPage, second);
    await page.waitForFunction(() => document.querySelectorAll('attention-explorer').length === 2, null, { timeout: 10000 });
    await page.waitForFunction(allDrawnInPage, null, { timeout: 120000, polling: 100 });
    shown = await page.evaluate(carriedPageInPage);
  } finally {
    await context.close();
  }
  const [english, tiny] = shown.explorers;
  checkDrawnRow(check, 'live notebook (outputs rendered as JupyterLab does), output 1', english,
    { layer: 4, head: 4, token: english.tokens.indexOf('cat') }, defaultRow(ctx, english));
  checkDrawnRow(check, 'live notebook, output 2 (weights=, lang="fr"), rendered after output 1 had drawn', tiny,
    { layer: 1, head: 1, token: tiny.tokens.indexOf('mat'), shownSum: '1,000' }, tinyRow(checkpoint, tiny));
  check(`live notebook: the element defined once (${shown.bundleRuns}), one engine per model (${shown.engines}), no request, no page errors`,
    shown.bundleRuns === 1 && shown.engines === 2 && requests.length === 0 && problems.length === 0, [...requests, ...problems].slice(0, 3).join('; '));
}

/**
 * Figures alone with only the weights they read (tools/explorer-html.mjs --only-needed): one
 * explorer in each view that allows it, alone from file://. Each draws; once the page has tried
 * every part it does not carry (while idle), no explorer shows an error and each keeps its figure.
 */
export async function testNotebookOnlyNeeded(ctx) {
  const { check } = ctx;
  const views = VIEWS.map((v) => v.id).filter((id) => !EVERY_PART_VIEWS.includes(id));
  const sentence = 'The animal didn\'t cross the street because it was too tired.';
  const explorers = views.map((view) => ({ sentence, options: new Map([['view', view], ['controls', 'none'], ['token', 'it'], ['layer', '3'], ['head', '2']]) }));
  const file = path.join(ctx.work, 'figures.html');
  writeFileSync(file, await onePage({ title: 'figures', pageLang: 'en', explorers, onlyNeeded: true }));
  const whole = Buffer.byteLength(await onePage({ title: 'figures', pageLang: 'en', explorers }));
  const { shown, others, problems, settled } = await openAlone(ctx.browser, file, () => [...document.querySelectorAll('attention-explorer')]
    .every((e) => e.engine.loading.failedParts().length === e.engine.partsMissing()));
  const size = statSync(file).size;
  check(`only needed: ${views.length} figures alone (${views.join(', ')}) in ${(size / 1e6).toFixed(1)} MB, the whole weights ${(whole / 1e6).toFixed(1)} MB`,
    shown.explorers.length === views.length && size < whole / 2);
  checkDrawnRow(check, 'only needed, the Row view', shown.explorers[0], { layer: 3, head: 2, token: shown.explorers[0].tokens.indexOf('it') },
    defaultRow(ctx, shown.explorers[0]));
  const broken = settled.filter((e) => e.error !== null || !e.figure).map((e) => `${e.view}: ${e.error ?? 'no figure'}`);
  check('only needed: every part not carried tried and missing, and still every figure drawn, no error shown', broken.length === 0, broken.join('; '));
  check('only needed: no request but the page\'s own, no page errors', others.length === 0 && problems.length === 0, [...others, ...problems].slice(0, 3).join('; '));
}

/** README's save() run in the kernel (the lesson's third cell) and its command line: the same bytes, the size stated; the file alone draws. */
export async function testNotebookOneFile(ctx) {
  const { check, readme, work } = ctx;
  const executed = await executedNotebook(ctx);
  if (executed.status !== 0) throw new Error(`the lesson did not run in the kernel: ${executed.stderr.slice(-500)}`);
  const saved = path.join(work, 'figure.html');
  const fromCommand = path.join(work, 'figure-cli.html');
  const command = await runProgram('bash', ['-c', readme.command.replace(/ figure\.html /, ` ${JSON.stringify(fromCommand)} `)], { cwd: ROOT });
  const same = command.status === 0 && readFileSync(saved).equals(readFileSync(fromCommand));
  const megabytes = statSync(saved).size / 1e6;
  check(`one file: README's save() in the kernel and its command line write the same ${megabytes.toFixed(1)} MB file (README: ${readme.statedMB} MB)`,
    same && megabytes.toFixed(1) === String(readme.statedMB), command.stderr);
  const single = await openAlone(ctx.browser, saved);
  const [english, french] = single.shown.explorers;
  checkDrawnRow(check, 'one file, explorer 1', english, { layer: 1, head: 1, token: english.tokens.indexOf('it') }, defaultRow(ctx, english));
  checkDrawnRow(check, 'one file, explorer 2 (lang="fr")', french, { layer: 1, head: 1, token: french.tokens.indexOf('it'), shownSum: '1,000' },
    defaultRow(ctx, french));
  check('one file: no request but the page\'s own, no page errors', single.others.length === 0 && single.problems.length === 0,
    [...single.others, ...single.problems].slice(0, 3).join('; '));
}

/** name → async (ctx) => void, in the run's order. */
export const NOTEBOOK_TESTS = { testNotebookReadme, testNotebookExport, testNotebookLiveOutputs, testNotebookOnlyNeeded, testNotebookOneFile };
