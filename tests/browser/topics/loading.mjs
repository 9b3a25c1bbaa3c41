// The page loads and draws, in Chromium and Firefox alike: index.html from file:// and over
// http (the first row, a typed sentence, every view's numbers against the float64 analyses),
// web/embed.html under its Content-Security-Policy, the README's copy-the-files recipe, and a
// one-file page of tools/explorer-html.mjs alone in a folder.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { onePage } from '../../../tools/explorer-html.mjs';
import { allDrawnInPage, carriedPageInPage, checkDrawnRow } from '../lib/carried-pages.mjs';
import { embeddingRecipe, writeCoursePage } from '../lib/course-page.mjs';
import { FILE, HTTP, ROOT, SERVED, andRedraw, check, closePage, drawnCount, explorer, float64, gotoHash, newPage, pageState, shot,
  typeSentence, url, viewValues, waitDrawn } from '../lib/session.mjs';

export async function testFileIndex() {
  const page = await newPage();
  await page.goto(url(FILE, 'index.html'));
  await waitDrawn(page);
  check('file:// index.html: the explorer draws a row', (await explorer(page).locator('.attention-row').count()) === 1);
  await viewValues.checkRow(page, 'file:// default sentence');
  await typeSentence(page, 'The bank by the river was closed, so she walked to the other one.');
  await andRedraw(page, () => explorer(page).locator('.tokens .token').nth(9).click());
  await andRedraw(page, () => explorer(page).locator('.layer-picker button').nth(2).click());
  await andRedraw(page, () => explorer(page).locator('.head-picker button').nth(1).click());
  await viewValues.checkRow(page, 'file:// typed sentence, token 9, layer 3 · head 2');
  await viewValues.checkMatrix(page, 'file:// typed sentence');
  await viewValues.checkGrid(page, 'file://');
  await viewValues.checkRollout(page, 'file://');
  await page.waitForFunction(() => location.hash.includes('view=rollout'), null, { timeout: 5000 }).catch(() => {});
  const hash = await page.evaluate(() => location.hash);
  check('file://: the URL hash holds sentence, layer, head, token and view',
    /sentence=The%20bank/.test(hash) && /layer=3/.test(hash) && /head=2/.test(hash) && /token=9/.test(hash) && /view=rollout/.test(hash), hash);
  check('file://: no page errors', page.problems.length === 0, page.problems.join('; '));
  await closePage(page);
}

export async function testHttpIndex() {
  const page = await newPage();
  await page.goto(url(HTTP, 'index.html'));
  await waitDrawn(page);
  await viewValues.checkRow(page, 'http default sentence');
  await typeSentence(page, 'Time flies like an arrow; fruit flies like a banana.');
  await andRedraw(page, () => explorer(page).locator('.tokens .token').nth(4).click());
  await viewValues.checkRow(page, 'http typed sentence, token 4');
  await viewValues.checkMatrix(page, 'http typed sentence');
  await viewValues.checkGrid(page, 'http');
  await viewValues.checkRollout(page, 'http');
  const binaryFetched = await page.evaluate(() => performance.getEntriesByType('resource').some((e) => e.name.endsWith('bert-mini.int8.bin')));
  check('http: the weights were fetched as the binary file', binaryFetched);
  check('http: no page errors', page.problems.length === 0, page.problems.join('; '));
  await closePage(page);
}

/**
 * Every view that draws numbers, on fixture sentences with a head and token other than the
 * default (and once with the default), against the float64 analyses of the fixture's ids.
 */
export const VALUE_SENTENCES = [
  { sentence: 'The animal didn\'t cross the street because it was too tired.', compare: 'The animal didn\'t cross the street because it was too wide.',
    layer: 3, head: 2, token: 'it', rollout: 2 },
  { sentence: 'She gave him the book because he asked for it.', layer: 4, head: 3, token: 'book', rollout: 4 },
  { sentence: 'The cat sat on the mat.', layer: 1, head: 1, token: 1, rollout: 1 },
];

export const MLM_SENTENCES = ['The cat sat on the [MASK].', 'Paris is the capital of [MASK].'];

export async function testViewValues() {
  const page = await newPage();
  for (const { sentence, compare, ...selection } of VALUE_SENTENCES) {
    await gotoHash(page, { sentence, ...(compare ? { compare } : {}), ...selection, view: 'row', whatif: 'on' });
    const state = await pageState(page);
    const label = `"${sentence.slice(0, 24)}…" layer ${state.layer + 1} · head ${state.head + 1}, token ${state.token} "${state.tokens[state.token]}"`;
    const fixture = float64.fixture(sentence);
    const { run } = await viewValues.float64(page);
    check(`${label}: the page runs the fixture's ${fixture?.ids.length} token ids`, !!fixture && run.ids.join() === fixture.ids.join(),
      `${run.tokens.join(' ')} / ${fixture?.tokens.join(' ')}`);
    await viewValues.checkEveryView(page, label);
    if (compare) {
      check(`${label}: sentence B is a fixture sentence of the same length`, float64.fixture(compare)?.ids.length === fixture.ids.length);
      await viewValues.checkCompare(page, `${label}, B "…too wide."`, (i) => i);
    }
  }
  for (const sentence of MLM_SENTENCES) {
    await gotoHash(page, { sentence, view: 'mlm' });
    await viewValues.checkMlm(page, `[MASK] "${sentence}"`, sentence);
  }
  check('view values: no page errors', page.problems.length === 0, page.problems.join('; '));
  await closePage(page);
}

export const testEmbedFile = () => embedPageChecks(FILE, 'file://');
export const testEmbedHttp = () => embedPageChecks(HTTP, 'http');

/** web/embed.html: two explorers on one engine, under its strict Content-Security-Policy. */
async function embedPageChecks(base, label) {
  const page = await newPage();
  await page.goto(url(base, 'embed.html'));
  await waitDrawn(page);
  const count = await page.evaluate(() => document.querySelectorAll('attention-explorer').length);
  check(`${label} embed.html: two explorers drawn`, count === 2 && (await drawnCount(page, 1)) >= 1);
  const shared = await page.evaluate(() => {
    const [a, b] = document.querySelectorAll('attention-explorer');
    return { same: a.engine === b.engine && !!a.engine, sessions: a.session !== b.session, engines: window.AttentionExplorerPage.engineCount(),
      weightScripts: [...document.querySelectorAll('script[src*="weights"]')].map((e) => e.src) };
  });
  // From file:// the weights come as a head script and part scripts: each one loaded once.
  const heads = shared.weightScripts.filter((src) => src.includes('.head.')).length;
  check(`${label} embed.html: both explorers share one engine (one load: ${heads} head script, ${shared.weightScripts.length - heads} part scripts), each has its own session`,
    shared.same && shared.sessions && shared.engines === 1 && heads <= 1 && new Set(shared.weightScripts).size === shared.weightScripts.length,
    JSON.stringify(shared));
  const csp = await page.evaluate(() => document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content || '');
  check(`${label} embed.html: the CSP is strict (script-src 'self' 'wasm-unsafe-eval', no inline script)`,
    /script-src 'self' 'wasm-unsafe-eval'(;|$)/.test(csp) && (await page.evaluate(() => document.querySelectorAll('script:not([src])').length)) === 0, csp);
  const violations = await page.evaluate(() => window.__cspViolations);
  check(`${label} embed.html: no CSP violations`, violations.length === 0, violations.join('; '));
  const second = await explorer(page, 1).locator('.difference-row, .compare-row').count();
  check(`${label} embed.html: the second explorer shows the Compare view`, second >= 2);
  check(`${label} embed.html: no page errors`, page.problems.length === 0, page.problems.join('; '));
  if (base === FILE) {
    await shot(page, 'embed-page', 0, true);
  }
  await closePage(page);
}

/** The README's embedding section, followed literally: copy its files, paste its HTML, serve it, load it. */
export async function testCopyTheFiles() {
  const { files, snippet } = embeddingRecipe(ROOT, 'README.md', 'Put an explorer in a course page');
  const web = embeddingRecipe(ROOT, 'web/README.md', 'Putting an explorer in a course page');
  if (!check(`copy the files: the README lists ${files.length} files and one HTML snippet`, files.length >= 4 && !!snippet)) return;
  check('copy the files: web/README.md gives the same files and snippet as README.md',
    web.snippet === snippet && web.files.join() === files.join(), `${web.files} / ${files}`);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'attn-course-'));
  const lesson = await writeCoursePage(ROOT, dir, { files, snippet });
  // The same snippet in a French course page: the explorer speaks French.
  await writeFile(path.join(dir, 'lecon.html'), `<!doctype html>\n<html lang="fr">\n<meta charset="utf-8">\n<title>une page de cours</title>\n${snippet}`);
  const prefix = `/course-${path.basename(dir)}/`;
  SERVED.set(prefix, dir);
  try {
    for (const [label, address] of [['http', `${HTTP}${prefix}lesson.html`], ['file://', pathToFileURL(lesson).href],
      ['http, <html lang="fr">', `${HTTP}${prefix}lecon.html`], ['file://, <html lang="fr">', pathToFileURL(path.join(dir, 'lecon.html')).href]]) {
      await checkCoursePage(label, address, files);
    }
  } finally {
    SERVED.delete(prefix);
    await rm(dir, { recursive: true, force: true });
  }
}

/** One course page of the copy-the-files recipe: drawn, nothing failed to load, the right weights, French where asked. */
async function checkCoursePage(label, address, files) {
  const page = await newPage();
  const failed = [];
  page.on('requestfailed', (request) => failed.push(`${request.url()} (${request.failure()?.errorText})`));
  page.on('response', (response) => { if (response.status() >= 400) failed.push(`${response.url()} ${response.status()}`); });
  await page.goto(address);
  await waitDrawn(page);
  const drawn = await explorer(page).locator('.attention-row').count();
  const { loaded, failedLoads } = await page.evaluate(() => ({
    // Firefox keeps no resource timing for file://: there the page's scripts are what it loaded.
    loaded: [...performance.getEntriesByType('resource').map((e) => e.name), ...[...document.scripts].map((s) => s.src)]
      .map((address) => address.split('/').pop()),
    failedLoads: window.__failedLoads,
  }));
  failed.push(...failedLoads);
  check(`copy the files (${label}): the README's ${files.length} files and snippet give a drawn explorer with no failed request`,
    drawn === 1 && failed.length === 0, `${failed.join(', ')}; drawn ${drawn}`);
  if (label.includes('fr')) {
    const french = await explorer(page).evaluate((e) => ({ tab: e.shadowRoot.querySelector('.tab[aria-selected="true"]').textContent,
      sum: e.shadowRoot.querySelector('.attention-row').dataset.sum, shown: e.shadowRoot.querySelector('[data-role="row-sum"]').textContent }));
    check(`copy the files (${label}): the explorer speaks French ("${french.tab}", \u03a3 ${french.shown})`,
      french.tab === 'Ligne' && french.shown === Number(french.sum).toFixed(3).replace('.', ','), JSON.stringify(french));
  }
  if (label === 'http') {
    check('copy the files (http): the weights come from the .bin next to the script, not from the base64 script',
      loaded.includes('bert-mini.int8.bin') && !loaded.some((n) => n.startsWith('bert-mini.weights.')), loaded.join(', '));
  } else if (label === 'file://') {
    check('copy the files (file://): the engine and the weights come from the base64 scripts next to the page',
      loaded.includes('attn.wasm.js') && loaded.includes('bert-mini.weights.head.js') && !loaded.includes('bert-mini.int8.bin'), loaded.join(', '));
  }
  check(`copy the files (${label}): no page errors`, page.problems.length === 0, page.problems.join('; '));
  await closePage(page);
}

/** A one-file page of tools/explorer-html.mjs (web/notebook/), alone in an empty folder, from file://. */
export async function testOneFile() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'attn-one-file-'));
  const file = path.join(dir, 'figure.html');
  const explorers = [
    { sentence: 'The cat sat on the mat because it was tired.', options: new Map([['layer', '2'], ['head', '3'], ['token', 'it']]) },
    { sentence: 'The animal didn\'t cross the street because it was too tired.', options: new Map([['token', 'street'], ['lang', 'fr'], ['controls', 'none']]) },
  ];
  await writeFile(file, await onePage({ title: 'one file', pageLang: 'en', explorers }));
  const page = await newPage();
  try {
    await page.goto(pathToFileURL(file).href);
    await page.waitForFunction(allDrawnInPage, null, { timeout: 120000 });
    const shown = await page.evaluate(carriedPageInPage);
    const [first, second] = shown.explorers;
    const row = (s) => (l, h, t) => float64.of(s).row(l, h, t);
    checkDrawnRow(check, 'one file (file://, alone), explorer 1', first, { layer: 2, head: 3, token: first.tokens.indexOf('it') }, row(first));
    checkDrawnRow(check, 'one file, explorer 2 (lang="fr", controls="none")', second,
      { layer: 1, head: 1, token: second.tokens.indexOf('street'), shownSum: '1,000' }, row(second));
    const { loaded, failedLoads } = await page.evaluate(() => ({
      loaded: performance.getEntriesByType('resource').map((e) => e.name), failedLoads: window.__failedLoads,
    }));
    check(`one file: nothing loaded but the page, defined once (${shown.bundleRuns}), one engine (${shown.engines}), no page errors`,
      loaded.length === 0 && failedLoads.length === 0 && shown.bundleRuns === 1 && shown.engines === 1 && page.problems.length === 0,
      [...loaded, ...failedLoads, ...page.problems].slice(0, 3).join('; '));
  } finally {
    await closePage(page);
    await rm(dir, { recursive: true, force: true });
  }
}
