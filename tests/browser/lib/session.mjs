// One browser session of the browser suite: the local server, the browser (lib/browsers.mjs),
// the float64 reference, and the calls the tests share, for Chromium and Firefox alike.
// openSession() sets the exported bindings, which topic modules import (ES module bindings are
// live); `ctx` holds the same values for tests written as `async function testX(ctx)`.
//
// check(name, ok, detail) records one check of the running test: the runner (suite.mjs)
// fails the test when any of its checks failed, naming them all.
import { readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createEngine } from '../../../web/src/engine.mjs';
import { float64Reference } from '../float64-reference.mjs';
import { viewValueChecks } from '../view-values.mjs';
import { launchBrowser } from './browsers.mjs';
import { checkTally } from './checks.mjs';
import { explorerOf } from './puppeteer-locators.mjs';
import { runDrawnInPage, twoFramesInPage } from './page-waits.mjs';
import { startServer } from './static-server.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const OUT = path.join(ROOT, 'test-output');
export const SHOTS = path.join(OUT, 'screenshots');
export const FILE = pathToFileURL(ROOT).href;
export const url = (base, page) => `${base}/web/${page}`;
/** The local server's directories beyond the repository, and its misbehaviours (lib/static-server.mjs). */
export const SERVED = new Map();
export const noRanges = new Set();
export const missingRanges = new Map();
export const slowRanges = new Map();

export let HTTP, browserName, browser, network, float64, engine, nodeSession, viewValues, ctx;
let launched, server;

// ---- checks ------------------------------------------------------------------------------
/** The session's checks (lib/checks.mjs): a failure is printed at once and fails the running test. */
export const checks = checkTally();
export const { check, takeFailures } = checks;
export const checkCounts = checks.counts;

// ---- the session -------------------------------------------------------------------------
export async function openSession(name) {
  server = await startServer(ROOT, { served: SERVED, noRanges, missingRanges, slowRanges });
  HTTP = `http://127.0.0.1:${server.address().port}`;
  const launching = launchBrowser(name, HTTP);
  launching.catch(() => {});
  float64 = float64Reference(ROOT);
  engine = await createEngine({
    wasm: readFileSync(path.join(ROOT, 'web/dist/attn.wasm')),
    weights: readFileSync(path.join(ROOT, 'web/dist/bert-mini.int8.bin')),
  });
  nodeSession = engine.createSession();
  launched = await launching;
  ({ browser, network } = launched);
  browserName = name;
  viewValues = viewValueChecks({ check, explorer, pageState, selectView, andRedraw, reference: float64 });
  await mkdir(SHOTS, { recursive: true });
  ctx = { newPage, closePage, check, waitDrawn, andRedraw, drawnCount, nextFrames, explorer, pageState, selectView, typeSentence,
    waitRunDrawn, gotoHash, shot, url, viewValues, float64, FILE, HTTP, ROOT, SHOTS, SERVED, browserName };
  return launched.version;
}

/** The checks of the whole session: every request local. */
export function sessionChecks() {
  return [[`network: ${network.total} requests, all to file:// or the local server (0 network requests)`, network.outside.length === 0,
    network.outside.slice(0, 5).join(', ')], ...launched.networkChecks()];
}

export async function closeSession() {
  await launched?.close();
  server?.close();
}

// ---- pages -------------------------------------------------------------------------------
/** A fresh page in a context of its own; options as Playwright's newContext (Firefox: viewport, colorScheme). */
export const newPage = (options) => launched.newPage(options);
export const closePage = (page) => page.context().close();

/** Waits until every explorer on the page has drawn at least `count` times (or shows its error). */
export async function waitDrawn(page, count = 1, selector = 'attention-explorer') {
  await page.waitForFunction(([sel, n]) => {
    const all = [...document.querySelectorAll(sel)];
    return all.length && all.every((e) => Number(e.dataset.drawn || 0) >= n || e.shadowRoot?.querySelector('.error:not([hidden])'));
  }, [selector, count], { timeout: 60000 });
}

export async function drawnCount(page, index = 0) {
  return page.evaluate((i) => Number(document.querySelectorAll('attention-explorer')[i].dataset.drawn || 0), index);
}

/** Runs an action and waits for the explorer to redraw. */
export async function andRedraw(page, action, index = 0) {
  const before = await drawnCount(page, index);
  await action();
  await page.waitForFunction(([i, b]) => Number(document.querySelectorAll('attention-explorer')[i].dataset.drawn || 0) > b, [index, before], { timeout: 30000 });
  await nextFrames(page);
}

/** Two animation frames: a long figure draws the rows in sight in the first one. */
export const nextFrames = (page) => page.evaluate(twoFramesInPage);

/** The explorer number `index`, as a Playwright locator (puppeteer: lib/puppeteer-locators.mjs). */
export function explorer(page, index = 0) {
  return page.raw ? explorerOf(page.raw, index) : page.locator('attention-explorer').nth(index);
}

export async function pageState(page, index = 0) {
  return page.evaluate((i) => {
    const e = document.querySelectorAll('attention-explorer')[i];
    return { ...e.state, sentence: e.state.sentence, n: e.run?.n, tokens: e.run?.tokens };
  }, index);
}

export async function selectView(page, view, index = 0) {
  await andRedraw(page, () => explorer(page, index).locator(`.tab[data-view="${view}"]`).click(), index);
}

export async function typeSentence(page, text, index = 0) {
  const box = explorer(page, index).locator('textarea').first();
  await box.fill('');
  await box.fill(text);
  await waitRunDrawn(page, index);
}

/** Waits until the explorer's run of its current sentence is complete and drawn. */
export async function waitRunDrawn(page, index = 0) {
  await page.waitForFunction(runDrawnInPage, index, { timeout: 60000 });
  await nextFrames(page);
}

/** Opens index.html from file:// with these hash parameters, afresh. */
export async function gotoHash(page, params) {
  const hash = new URLSearchParams(params).toString().replace(/\+/g, '%20');
  await page.goto('about:blank');
  await page.goto(url(FILE, 'index.html') + '#' + hash);
  await waitDrawn(page);
}

/** test-output/screenshots/NAME.png (firefox-NAME.png in Firefox): the explorer, or the whole page. */
export async function shot(page, name, index = 0, fullPage = false) {
  const file = path.join(SHOTS, `${browserName === 'chromium' ? '' : browserName + '-'}${name}.png`);
  if (fullPage) await page.screenshot({ path: file, fullPage: true });
  else await explorer(page, index).screenshot({ path: file });
}
