#!/usr/bin/env node
// The browser suite's core checks in Firefox: Debian's `firefox-esr` driven by npm
// `puppeteer-core` over WebDriver BiDi (no browser is downloaded). The first row drawn from
// file:// and over http (web/index.html); the Row view's bars, Σ and ratio, the Matrix view's
// cells and seven other views' numbers against the float64 analyses of fixture sentences (the
// Chromium suite's checks, view-values.mjs); the README's copy-the-files recipe over http and
// from file://; web/embed.html under its Content-Security-Policy; a one-file page of
// tools/explorer-html.mjs alone in a folder, from file:// (its rows against the float64 analyses); every view's layout at every
// column width from 320 to 1280 px (layout.mjs); screenshots of index.html at 390 and 1280 px (test-output/screenshots/firefox-*.png).
// Firefox runs in a fresh profile whose proxy is a local sink: a request for anything but
// file:// and the local server, the page's or Firefox's own (updates, telemetry, remote
// settings, …), reaches the sink and fails the run. Pass test names to run a subset
// (`node tests/browser/firefox.mjs layout`). Ends with "N passed, N failed"; exits 1 on any failure.

import net from 'node:net';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';
import { layoutProblemsInPage } from './layout.mjs';
import { runDrawnInPage, twoFramesInPage } from './lib/page-waits.mjs';
import { float64Reference } from './float64-reference.mjs';
import { viewValueChecks } from './view-values.mjs';
import { explorerOf } from './lib/puppeteer-locators.mjs';
import { startServer } from './lib/static-server.mjs';
import { embeddingRecipe, writeCoursePage } from './lib/course-page.mjs';
import { checkLog, withinLimit } from './lib/check-log.mjs';
import { allDrawnInPage, carriedPageInPage, checkDrawnRow } from './lib/carried-pages.mjs';
import { onePage } from '../../tools/explorer-html.mjs';
import { VIEWS } from '../../web/src/views/index.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SHOTS = path.join(ROOT, 'test-output/screenshots');
const FIREFOX = process.env.FIREFOX || '/usr/bin/firefox-esr';
const only = process.argv.slice(2);
const started = Date.now();

const log = checkLog();
const { check } = log;

// ---- the network: a local server, and a sink for everything else -------------------------
const SERVED = new Map();
const server = await startServer(ROOT, { served: SERVED });
const HTTP = `http://127.0.0.1:${server.address().port}`;
const FILE = pathToFileURL(ROOT).href;
const url = (base, page) => `${base}/web/${page}`;
const isLocal = (address) => ['file:', 'data:', 'blob:', 'about:'].some((p) => address.startsWith(p)) || address.startsWith(HTTP + '/');
const network = { requests: 0, outside: [], proxied: [] };

/** Firefox's proxy: records the first line of every connection (CONNECT host:443, GET http://…) and refuses it. */
function startSink() {
  const sink = net.createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', (data) => {
      network.proxied.push(data.toString('latin1').split('\r\n')[0]);
      socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    });
  });
  return new Promise((resolve) => sink.listen(0, '127.0.0.1', () => resolve(sink)));
}
const sink = await startSink();

/**
 * The profile's preferences beyond puppeteer's own (which already turn off safebrowsing,
 * search updates, data reporting, …). Every outside connection goes to the sink (loopback
 * addresses are never proxied); the background services that would make one are off.
 * file:// keeps Firefox's default origin policy (puppeteer relaxes it), so the page loads
 * from file:// as a reader's Firefox loads it.
 */
const PREFERENCES = {
  'network.proxy.type': 1,
  'network.proxy.http': '127.0.0.1', 'network.proxy.http_port': sink.address().port,
  'network.proxy.ssl': '127.0.0.1', 'network.proxy.ssl_port': sink.address().port,
  'network.proxy.no_proxies_on': '',
  'network.proxy.allow_hijacking_localhost': false,
  'security.fileuri.strict_origin_policy': true,
  'app.update.auto': false, 'app.update.enabled': false, 'app.update.staging.enabled': false,
  'toolkit.telemetry.enabled': false, 'toolkit.telemetry.unified': false, 'toolkit.telemetry.archive.enabled': false,
  'toolkit.telemetry.server': '', 'toolkit.telemetry.updatePing.enabled': false, 'toolkit.telemetry.firstShutdownPing.enabled': false,
  'toolkit.telemetry.newProfilePing.enabled': false, 'toolkit.telemetry.shutdownPingSender.enabled': false,
  'datareporting.usage.uploadEnabled': false, 'browser.ping-centre.telemetry': false,
  'network.captive-portal-service.enabled': false, 'captivedetect.canonicalURL': '',
  'network.connectivity-service.enabled': false,
  'network.trr.mode': 5, 'network.dns.disablePrefetch': true, 'network.prefetch-next': false, 'network.predictor.enabled': false,
  'browser.safebrowsing.provider.google4.updateURL': '', 'browser.safebrowsing.provider.mozilla.updateURL': '',
  'browser.safebrowsing.provider.google.updateURL': '', 'browser.safebrowsing.update.enabled': false,
  'app.normandy.enabled': false, 'app.shield.optoutstudies.enabled': false, 'messaging-system.rsexperimentloader.enabled': false,
  'extensions.blocklist.enabled': false, 'extensions.systemAddon.update.enabled': false, 'extensions.getAddons.showPane': false,
  'browser.region.network.url': '', 'browser.region.update.enabled': false, 'browser.search.geoip.url': '',
  'geo.provider.network.url': '', 'media.gmp-gmpopenh264.enabled': false, 'media.gmp-widevinecdm.enabled': false,
  'security.OCSP.enabled': 0, 'security.remote_settings.crlite_filters.enabled': false,
  'security.remote_settings.intermediates.enabled': false, 'browser.newtabpage.activity-stream.feeds.telemetry': false,
  'browser.newtabpage.activity-stream.telemetry': false, 'browser.discovery.enabled': false,
  'privacy.query_stripping.enabled': false, 'browser.topsites.contile.enabled': false,
  // Scrollbars overlay the page, as in Firefox for Android and on Linux and macOS desktops: a 390 px
  // viewport is a 390 px page, as in the Chromium suite (headless Chromium shows no scrollbars).
  'ui.useOverlayScrollbars': 1,
  'browser.chrome.site_icons': false,  // no /favicon.ico request: a page's own failed requests are what the checks count
};

// ---- Firefox and its pages ---------------------------------------------------------------
// Launched before the checkpoint is read, so that the two overlap. MOZ_DISABLE_NONLOCAL_CONNECTIONS
// is Firefox's own switch for test runs: it refuses non-local connections and lets the profile
// point remote settings at nothing (a release build ignores that preference otherwise).
const launching = puppeteer.launch({
  browser: 'firefox', executablePath: FIREFOX, headless: true, protocol: 'webDriverBiDi',
  env: { ...process.env, MOZ_DISABLE_NONLOCAL_CONNECTIONS: '1' }, extraPrefsFirefox: PREFERENCES,
  defaultViewport: { width: 1100, height: 900 }, timeout: 90000,
});
const float64 = float64Reference(ROOT);
const browser = await launching.catch((error) => {
  console.log(`FAIL firefox: ${FIREFOX} does not start (${error.message.split('\n')[0]}); tools/install-deps.sh installs Debian's firefox-esr`);
  console.log('0 passed, 1 failed');
  process.exit(1);
});
const version = await browser.version();

async function newPage() {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  page.problems = [];
  page.on('request', (request) => {
    network.requests++;
    if (!isLocal(request.url())) network.outside.push(request.url());
  });
  page.on('pageerror', (error) => page.problems.push(`page error: ${error.message}`));
  page.on('console', (message) => { if (message.type() === 'error') page.problems.push(`console: ${message.text()}`); });
  // Resources that failed to load (from file:// the browser reports no request, only the element's error event).
  await page.evaluateOnNewDocument(() => {
    window.__failedLoads = [];
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
    window.addEventListener('error', (e) => { if (e.target !== window) window.__failedLoads.push(e.target.src || e.target.href || e.target.tagName); }, true);
  });
  return page;
}

/** Every resource the page loaded must be local; then the page's context is closed. */
async function closePage(page) {
  const loaded = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name)).catch(() => []);
  network.requests += loaded.length;
  network.outside.push(...loaded.filter((address) => !isLocal(address)));
  await page.browserContext().close();
}

const explorer = (page, index = 0) => explorerOf(page, index);

async function waitDrawn(page, count = 1) {
  await page.waitForFunction((n) => {
    const all = [...document.querySelectorAll('attention-explorer')];
    return all.length && all.every((e) => Number(e.dataset.drawn || 0) >= n || e.shadowRoot?.querySelector('.error:not([hidden])'));
  }, { timeout: 60000, polling: 50 }, count);
}

const drawnCount = (page, index = 0) => page.evaluate((i) => Number(document.querySelectorAll('attention-explorer')[i].dataset.drawn || 0), index);

/** Runs an action and waits for the explorer to redraw. */
async function andRedraw(page, action, index = 0) {
  const before = await drawnCount(page, index);
  await action();
  await page.waitForFunction((i, b) => Number(document.querySelectorAll('attention-explorer')[i].dataset.drawn || 0) > b,
    { timeout: 30000, polling: 20 }, index, before);
  await nextFrames(page);
}

/** Two animation frames: a long figure draws the rows in sight in the first one. */
const nextFrames = (page) => page.evaluate(twoFramesInPage);

/** Waits until the explorer's run of its current sentence is complete and drawn. */
async function waitRunDrawn(page, index = 0) {
  await page.waitForFunction(runDrawnInPage, { timeout: 60000, polling: 20 }, index);
  await nextFrames(page);
}

async function pageState(page, index = 0) {
  return page.evaluate((i) => {
    const e = document.querySelectorAll('attention-explorer')[i];
    return { ...e.state, sentence: e.state.sentence, n: e.run?.n, tokens: e.run?.tokens };
  }, index);
}

async function selectView(page, view, index = 0) {
  await andRedraw(page, () => explorer(page, index).locator(`.tab[data-view="${view}"]`).click(), index);
}

async function typeSentence(page, text) {
  const box = explorer(page).locator('textarea').first();
  await box.fill('');
  await box.fill(text);
  await waitRunDrawn(page);
}

async function gotoHash(page, params) {
  const hash = new URLSearchParams(params).toString().replace(/\+/g, '%20');
  await page.goto('about:blank');
  await page.goto(url(FILE, 'index.html') + '#' + hash);
  await waitDrawn(page);
}

const viewValues = viewValueChecks({ check, explorer, pageState, selectView, andRedraw, reference: float64 });

// ---- the checks --------------------------------------------------------------------------

async function testFileIndex() {
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
  check('file://: no page errors', page.problems.length === 0, page.problems.join('; '));
  await closePage(page);
}

async function testHttpIndex() {
  const page = await newPage();
  await page.goto(url(HTTP, 'index.html'));
  await waitDrawn(page);
  await viewValues.checkRow(page, 'http default sentence');
  await typeSentence(page, 'Time flies like an arrow; fruit flies like a banana.');
  await andRedraw(page, () => explorer(page).locator('.tokens .token').nth(4).click());
  await viewValues.checkRow(page, 'http typed sentence, token 4');
  await viewValues.checkMatrix(page, 'http typed sentence');
  const binaryFetched = await page.evaluate(() => performance.getEntriesByType('resource').some((e) => e.name.endsWith('bert-mini.int8.bin')));
  check('http: the weights were fetched as the binary file', binaryFetched);
  check('http: no page errors', page.problems.length === 0, page.problems.join('; '));
  await closePage(page);
}

/** Fixture sentences with a head and token other than the default, every view's numbers against their float64 analyses. */
const VALUE_SENTENCES = [
  { sentence: 'The animal didn\'t cross the street because it was too tired.', layer: 3, head: 2, token: 'it', rollout: 2 },
  { sentence: 'She gave him the book because he asked for it.', layer: 4, head: 3, token: 'book', rollout: 4 },
];

async function testViewValues() {
  const page = await newPage();
  for (const { sentence, ...selection } of VALUE_SENTENCES) {
    await gotoHash(page, { sentence, ...selection, view: 'row', whatif: 'on' });
    const state = await pageState(page);
    const label = `"${sentence.slice(0, 24)}…" layer ${state.layer + 1} · head ${state.head + 1}, token ${state.token} "${state.tokens[state.token]}"`;
    const fixture = float64.fixture(sentence);
    const { run } = await viewValues.float64(page);
    check(`${label}: the page runs the fixture's ${fixture?.ids.length} token ids`, !!fixture && run.ids.join() === fixture.ids.join(),
      `${run.tokens.join(' ')} / ${fixture?.tokens.join(' ')}`);
    await viewValues.checkEveryView(page, label);
  }
  check('view values: no page errors', page.problems.length === 0, page.problems.join('; '));
  await closePage(page);
}

/** The README's embedding section, followed literally: copy its files, paste its HTML, serve it, load it. */
async function testCopyTheFiles() {
  const recipe = embeddingRecipe(ROOT, 'README.md', 'Put an explorer in a course page');
  if (!check(`copy the files: the README lists ${recipe.files.length} files and one HTML snippet`, recipe.files.length >= 4 && !!recipe.snippet)) return;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'attn-course-'));
  const lesson = await writeCoursePage(ROOT, dir, recipe);
  const prefix = `/course-${path.basename(dir)}/`;
  SERVED.set(prefix, dir);
  try {
    for (const [label, address] of [['http', `${HTTP}${prefix}lesson.html`], ['file://', pathToFileURL(lesson).href]]) {
      const page = await newPage();
      const failedRequests = [];
      page.on('requestfailed', (request) => failedRequests.push(`${request.url()} (${request.failure()?.errorText})`));
      page.on('response', (response) => { if (response.status() >= 400) failedRequests.push(`${response.url()} ${response.status()}`); });
      await page.goto(address);
      await waitDrawn(page);
      const drawn = await explorer(page).locator('.attention-row').count();
      const { loaded, failedLoads } = await page.evaluate(() => ({
        // Firefox keeps no resource timing for file://: there the page's scripts are what it loaded.
        loaded: [...performance.getEntriesByType('resource').map((e) => e.name), ...[...document.scripts].map((s) => s.src)]
          .map((address) => address.split('/').pop()),
        failedLoads: window.__failedLoads,
      }));
      const failures = [...failedRequests, ...failedLoads];
      check(`copy the files (${label}): the README's ${recipe.files.length} files and snippet give a drawn explorer with no failed request`,
        drawn === 1 && failures.length === 0, `${failures.join(', ')}; drawn ${drawn}`);
      if (label === 'http') {
        check('copy the files (http): the weights come from the .bin next to the script, not from the base64 script',
          loaded.includes('bert-mini.int8.bin') && !loaded.some((n) => n.startsWith('bert-mini.weights.')), loaded.join(', '));
      } else {
        check('copy the files (file://): the engine and the weights come from the base64 scripts next to the page',
          loaded.includes('attn.wasm.js') && loaded.includes('bert-mini.weights.head.js') && !loaded.includes('bert-mini.int8.bin'), loaded.join(', '));
      }
      check(`copy the files (${label}): no page errors`, page.problems.length === 0, page.problems.join('; '));
      await closePage(page);
    }
  } finally {
    SERVED.delete(prefix);
    await rm(dir, { recursive: true, force: true });
  }
}

/** web/embed.html: two explorers on one engine, under its strict Content-Security-Policy. */
async function testEmbed() {
  for (const [label, base] of [['file://', FILE], ['http', HTTP]]) {
    const page = await newPage();
    await page.goto(url(base, 'embed.html'));
    await waitDrawn(page);
    const shown = await page.evaluate(() => {
      const [a, b] = document.querySelectorAll('attention-explorer');
      return { drawn: [a, b].map((e) => Number(e?.dataset.drawn || 0)), shared: !!a?.engine && a.engine === b?.engine, violations: window.__cspViolations };
    });
    check(`${label} embed.html: two explorers drawn from one engine, no CSP violation`,
      shown.drawn.every((d) => d >= 1) && shown.shared && shown.violations.length === 0, JSON.stringify(shown));
    check(`${label} embed.html: no page errors`, page.problems.length === 0, page.problems.join('; '));
    await closePage(page);
  }
}

/** A one-file page of tools/explorer-html.mjs (web/notebook/), alone in an empty folder, from file://. */
async function testOneFile() {
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
    await page.waitForFunction(allDrawnInPage, { timeout: 120000, polling: 100 });
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

const VIEW_IDS = VIEWS.map((view) => view.id);
const LONG_TEXT = Array.from({ length: 700 }, (_, i) => ['the', 'cat', 'sat', 'on', 'a', 'mat'][i % 6]).join(' ');

/**
 * Every view at every width a course column takes (320 to 1280 px) for 3, 12 and 512 tokens: no
 * two text boxes of a figure intersect, none is cut by the figure or its box, nothing scrolls
 * sideways. The 12-token views at 390 px are photographed (firefox-phone-NN-view.png).
 */
const LAYOUT_WIDTHS = [320, 390, 560, 620, 700, 900, 1280];

async function testLayout() {
  const page = await newPage();
  for (const width of LAYOUT_WIDTHS) {
    await page.setViewport({ width, height: 844 });
    await page.goto('about:blank');
    await page.goto(url(FILE, 'index.html') + '#view=row');
    await waitDrawn(page);
    for (const [label, sentence] of [['3 tokens', 'Hello'], ['12 tokens', 'The cat sat on the mat because it was tired.'], ['512 tokens', LONG_TEXT]]) {
      await typeSentence(page, sentence);
      const failures = [];
      for (const view of VIEW_IDS) {
        await selectView(page, view);
        if (view === 'why-sqrt-d' && !(await explorer(page).locator('.whatif-toggle').isChecked())) {
          await andRedraw(page, () => explorer(page).locator('.whatif-toggle').check());
        }
        const problems = await page.evaluate(layoutProblemsInPage, 0, { box: 'ink' });
        if (problems.length) failures.push(`${view}: ${problems.slice(0, 3).join('; ')}`);
        if (label === '12 tokens' && width === 390) {
          await explorer(page).screenshot({ path: path.join(SHOTS, `firefox-phone-${String(VIEW_IDS.indexOf(view) + 1).padStart(2, '0')}-${view}.png`) });
        }
      }
      check(`layout ${width} px, ${label}: ${VIEW_IDS.length} views, no overlapping or cut text`, failures.length === 0, failures.join(' | '));
    }
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    check(`layout ${width} px: the page does not scroll sideways`, overflow <= 0, `${overflow}px`);
  }
  check('layout: no page errors', page.problems.length === 0, page.problems.join('; '));
  await closePage(page);
}

/** index.html as a reader opens it, at a phone's and a desktop's width. */
async function testScreenshots() {
  for (const width of [390, 1280]) {
    const page = await newPage();
    await page.setViewport({ width, height: width === 390 ? 844 : 900 });
    await page.goto(url(FILE, 'index.html'));
    await waitDrawn(page);
    await page.screenshot({ path: path.join(SHOTS, `firefox-index-${width}.png`), fullPage: true });
    check(`screenshot: index.html at ${width} px (firefox-index-${width}.png), no page errors`, page.problems.length === 0, page.problems.join('; '));
    await closePage(page);
  }
}

const TESTS = { testFileIndex, testHttpIndex, testViewValues, testCopyTheFiles, testEmbed, testOneFile, testLayout, testScreenshots };

await mkdir(SHOTS, { recursive: true });
console.log(`${version} (${FIREFOX}), puppeteer-core over WebDriver BiDi`);
try {
  for (const [name, test] of Object.entries(TESTS)) {
    if (only.length && !only.some((o) => name.toLowerCase().includes(o.toLowerCase()))) continue;
    const testStarted = Date.now();
    try {
      await withinLimit(name, test, name === 'testLayout' ? 900 : undefined);
    } catch (error) {
      check(`${name} ran to the end`, false, error.stack || error.message);
    }
    console.log(`     ${name}: ${((Date.now() - testStarted) / 1000).toFixed(1)} s`);
  }
  check(`network: ${network.requests} requests and loads, all to file:// or the local server`, network.outside.length === 0,
    network.outside.slice(0, 5).join(', '));
  check(`network: no connection reached the proxy sink (Firefox's own traffic included)`, network.proxied.length === 0,
    [...new Set(network.proxied)].slice(0, 5).join(', '));
  for (const line of float64.summary()) console.log(line);
} finally {
  await browser.close();
  server.close();
  sink.close();
}
console.log(`firefox: ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`${log.passed} passed, ${log.failed} failed`);
process.exit(log.failed ? 1 : 0);
