// What a server, the network or the page's own life can do to a drawn explorer, in real
// Chromium (tests/browser/faults.test.mjs, whose scripted server answers the weights' range
// requests as each test sets: `behaviour`): a failed request for a weights part the sentence
// does not need (retried, never shown), a part that keeps failing (only the view that needs it
// says so, with a control that fetches it again), a server that answers part requests with the
// whole file (read once), explorers added and removed after the engine has loaded (each one
// freed), and runs that find no memory (nothing of the previous text stays on show as if it
// were the new one's). Each test is an `async function testX(ctx)`; ctx: check, openPage(body),
// behaviour, reset(), weights, parts, ROOT.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { createEngine } from '../../../web/src/engine.mjs';
import { partOfToken } from '../../lib/corrupt-weights.mjs';

export const WEIGHTS_PATH = '/web/dist/bert-mini.int8.bin';
const SENTENCE = 'The cat sat on the mat.';
/** The part the sentence does not need: the last one. */
const unneededPart = (ctx) => ctx.parts.length - 1;

const drawn = (page, count = 1) => page.waitForFunction((n) => [...document.querySelectorAll('attention-explorer')]
  .every((e) => Number(e.dataset.drawn || 0) >= n), count, { timeout: 30000 });

/** What the explorer shows: its start error, the in-place weights notice, a figure. */
const shown = (page) => page.locator('attention-explorer').first().evaluate((e) => {
  const root = e.shadowRoot;
  const visible = (selector) => { const el = root.querySelector(selector); return !!el && !el.closest('[hidden]'); };
  return { startError: visible('.error[role="alert"]:not(.weights-missing)') && !root.querySelector('.main:not([hidden])'),
    notice: visible('.weights-missing'), figure: !!root.querySelector('.figure-box svg'), main: visible('.main'),
    missing: e.engine?.partsMissing?.() ?? null };
});

/** The test sentence's parts, read by the engine in Node: the fault cases fail a part it does not need. */
export async function testUnneededPart(ctx) {
  const { check, weights, ROOT } = ctx;
  const nodeEngine = await createEngine({ wasm: readFileSync(path.join(ROOT, 'web/dist/attn.wasm')), weights });
  const neededParts = new Set(nodeEngine.tokenize(SENTENCE).ids.map((id) => partOfToken(weights, id)).filter((p) => p >= 0));
  const unneeded = unneededPart(ctx);
  check(`setup: the sentence needs parts ${[...neededParts].join(', ')}, not part ${unneeded}`, !neededParts.has(unneeded));
}

/** One 503 for a part the sentence does not need: retried, never shown. */
export async function testOneFailedPart(ctx) {
  const { check, openPage, behaviour, reset } = ctx, unneeded = unneededPart(ctx);
  reset();
  behaviour.failing.set(unneeded, 1);
  const page = await openPage(`<attention-explorer sentence="${SENTENCE}"></attention-explorer>`);
  await drawn(page);
  await page.waitForFunction(() => document.querySelector('attention-explorer').engine?.partsMissing() === 0, null, { timeout: 30000 });
  const state = await shown(page);
  const asked = behaviour.requests.filter((r) => r.part <= unneeded && r.last >= unneeded).length;
  check(`a 503 for part ${unneeded}, which the sentence does not need: retried (${asked} requests), every part in, the figure stays, no notice`,
    asked >= 2 && state.missing === 0 && state.figure && state.main && !state.notice && !state.startError, JSON.stringify(state));
  await page.context().close();
}

/** A part that keeps failing: nothing shown until a view needs it; then a notice in place, and its retry control. */
export async function testPartThatKeepsFailing(ctx) {
  const { check, openPage, behaviour, reset } = ctx, unneeded = unneededPart(ctx);
  reset();
  behaviour.failing.set(unneeded, Infinity);
  const page = await openPage(`<attention-explorer sentence="${SENTENCE}"></attention-explorer>`);
  await drawn(page);
  await page.waitForFunction((p) => document.querySelector('attention-explorer').engine.loading.failedParts().includes(p), unneeded, { timeout: 30000 });
  let state = await shown(page);
  check('a part that keeps failing in the background: the drawn explorer stays, nothing is shown about it',
    state.figure && state.main && !state.notice && !state.startError, JSON.stringify(state));
  const explorer = page.locator('attention-explorer').first();
  await explorer.evaluate((e) => { e.setAttribute('sentence', 'The cat sat on the [MASK].'); });
  await page.waitForFunction(() => !!document.querySelector('attention-explorer').shadowRoot.querySelector('.weights-missing'), null, { timeout: 30000 });
  state = await shown(page);
  check('then a [MASK] sentence (it needs every part): the view says so in place, with a retry control; the explorer stays',
    state.notice && state.main && !state.startError, JSON.stringify(state));
  behaviour.failing.clear();
  await explorer.evaluate((e) => e.shadowRoot.querySelector('.retry-weights').click());
  await page.waitForFunction(() => document.querySelector('attention-explorer').engine.partsMissing() === 0, null, { timeout: 30000 });
  await page.waitForFunction(() => !document.querySelector('attention-explorer').shadowRoot.querySelector('.weights-missing')
    && !!document.querySelector('attention-explorer').shadowRoot.querySelector('.figure-box svg'), null, { timeout: 30000 });
  const predictions = await explorer.evaluate((e) => e.shadowRoot.querySelectorAll('.mask-line').length);
  check(`once the server answers again, "Try again" brings every part and the figure back (${predictions} [MASK] line)`, predictions === 1);
  check('no page error in the fault cases', page.problems.length === 0, page.problems.join('; '));
  await page.context().close();
}

/**
 * A server that answers ranges inside the head (206) but a range reaching into the parts with the
 * whole file (200): the page reads that one body and cuts every part from it. With the default
 * weights the head and layer 1 come in one request, which gets the whole file at once; with a
 * weights file given by the page, the header and the head come first, then the first part request
 * goes alone, and the others wait for its answer.
 */
// The page's own files, sent once whatever the weights do, and the test page's html besides.
const PAGE_FILES = ['web/dist/attention-explorer.js', 'web/dist/attn.wasm'];
const PAGE_SLACK_BYTES = 50000;

export async function testServerIgnoringRangesForParts({ check, openPage, behaviour, reset, weights, ROOT }) {
  const headBytes = Number(weights.readBigUInt64LE(96));
  const pageFilesBytes = PAGE_FILES.reduce((sum, f) => sum + statSync(path.join(ROOT, f)).size, 0);
  for (const [label, attribute] of [['the default weights', ''], ['weights given by the page', ` weights="${WEIGHTS_PATH}"`]]) {
    reset();
    behaviour.wholeFrom = headBytes;
    const page = await openPage(`<attention-explorer sentence="${SENTENCE}"${attribute}></attention-explorer>`);
    await drawn(page);
    await page.waitForFunction(() => document.querySelector('attention-explorer').engine.partsMissing() === 0, null, { timeout: 30000 });
    await page.waitForTimeout(300);
    const sent = behaviour.bytesSent, file = weights.length;
    const partRequests = behaviour.requests.filter((r) => r.start >= headBytes).length;
    const most = headBytes + file + pageFilesBytes + PAGE_SLACK_BYTES;
    check(`a server that answers part requests with the whole file (200), ${label}: drawn, every part in, ${(sent / 1e6).toFixed(2)} MB sent `
      + `for a ${(file / 1e6).toFixed(1)} MB file (at most the head, the page's script and wasm and one whole file: ${(most / 1e6).toFixed(2)} MB), `
      + `${partRequests} part requests`, sent <= most && partRequests <= 8, `${sent} bytes`);
    await page.context().close();
  }
}

/** Explorers added and removed after the engine has loaded: each one freed (DOM, listeners, JS and wasm heaps). */
export async function testAddAndRemoveAfterLoad({ check, openPage, reset }) {
  reset();
  const page = await openPage(`<attention-explorer sentence="${SENTENCE}"></attention-explorer>`);
  await drawn(page);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const metrics = async () => {
    await cdp.send('HeapProfiler.collectGarbage');
    const { metrics: list } = await cdp.send('Performance.getMetrics');
    const get = (name) => list.find((m) => m.name === name)?.value ?? NaN;
    const wasm = await page.evaluate(() => document.querySelector('attention-explorer').engine.x.attn_memory_in_use());
    return { nodes: get('Nodes'), listeners: get('JSEventListeners'), heap: get('JSHeapUsedSize'), wasm };
  };
  const before = await metrics();
  const ROUNDS = 50;
  await page.evaluate(async ({ rounds, sentence }) => {
    window.__gone = [];
    for (let i = 0; i < rounds; i++) {
      const e = document.createElement('attention-explorer');
      e.setAttribute('sentence', `${sentence} Round ${i}.`);
      document.body.append(e);
      await e.ready;
      await new Promise((resolve) => { const wait = () => (Number(e.dataset.drawn) >= 1 ? resolve() : setTimeout(wait, 10)); wait(); });
      e.remove();
      window.__gone.push(new WeakRef(e));
    }
  }, { rounds: ROUNDS, sentence: SENTENCE });
  await page.waitForTimeout(200);
  const after = await metrics();
  const alive = await page.evaluate(() => window.__gone.filter((ref) => ref.deref()).length);
  check(`${ROUNDS} explorers added and removed after load: ${alive} still held (0 expected)`, alive === 0);
  check(`memory back to its level: nodes ${before.nodes} → ${after.nodes}, listeners ${before.listeners} → ${after.listeners}, `
    + `JS heap ${(before.heap / 1e6).toFixed(1)} → ${(after.heap / 1e6).toFixed(1)} MB, wasm heap in use ${(before.wasm / 1e6).toFixed(2)} → ${(after.wasm / 1e6).toFixed(2)} MB`,
    after.nodes <= before.nodes + 60 && after.listeners <= before.listeners + 10 && after.heap <= before.heap + 4e6
      && after.wasm <= before.wasm + 65536, JSON.stringify({ before, after }));
  await page.context().close();
}

/** Out of memory in a run: the engine's NO_MEMORY for sentence B as it begins, then for sentence A on its way. */
export async function testRunWithoutMemory({ check, openPage, reset }) {
  reset();
  const page = await openPage(`<attention-explorer sentence="${SENTENCE}" view="compare"></attention-explorer>`);
  await drawn(page);
  const explorer = page.locator('attention-explorer').first();
  const state = () => explorer.evaluate((e) => {
    const root = e.shadowRoot;
    return { tokens: [...root.querySelectorAll('.token .piece')].map((t) => t.textContent), text: root.querySelector('textarea').value,
      error: root.querySelector('.figure-box .error')?.textContent ?? null, figure: !!root.querySelector('.figure-box svg') };
  });
  await explorer.evaluate((e) => {
    const fail = () => { const error = new Error('out of memory'); error.code = 20; throw error; };
    e.compareSession.beginText = fail;
    const box = e.shadowRoot.querySelector('textarea');
    box.value = 'The dog sat on the mat.';
    box.dispatchEvent(new InputEvent('input', { bubbles: true }));
  });
  await page.waitForFunction(() => !!document.querySelector('attention-explorer').shadowRoot.querySelector('.figure-box .error'), null, { timeout: 10000 });
  let now = await state();
  check(`sentence B out of memory: the view says why ("${(now.error || '').slice(0, 60)}"), the tokens are the new sentence A's`,
    /memory/i.test(now.error || '') && now.tokens.includes('dog') && !now.figure, JSON.stringify(now));
  await explorer.evaluate((e) => {
    const fail = () => { const error = new Error('out of memory'); error.code = 20; throw error; };
    e.session.step = fail;  // a run that fails on its way, after it began
    const box = e.shadowRoot.querySelector('textarea');
    box.value = 'A bird flew over the house.';
    box.dispatchEvent(new InputEvent('input', { bubbles: true }));
  });
  await page.waitForFunction(() => document.querySelector('attention-explorer').shadowRoot.querySelectorAll('.token').length === 0, null, { timeout: 10000 });
  now = await state();
  check('sentence A out of memory: no token or figure of the previous text stays on show, the view says why',
    now.tokens.length === 0 && !now.figure && /memory/i.test(now.error || ''), JSON.stringify(now));
  check('no uncaught error when a run finds no memory', page.problems.length === 0, page.problems.join('; '));
  await page.context().close();
}

/** name → async (ctx) => void, in the run's order. */
export const FAULT_TESTS = { testUnneededPart, testRunWithoutMemory, testOneFailedPart, testPartThatKeepsFailing,
  testServerIgnoringRangesForParts, testAddAndRemoveAfterLoad };
