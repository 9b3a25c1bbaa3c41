// Head importance (every head alone and every whole layer removed) timed for bert-mini in Node
// and in headless Chromium, each beside the plain forward pass of the same sentence measured in
// the same rounds: the chosen word alone (Session.importanceWord, the view's default) and the
// mean over every target (Session.importanceSteps, batched copies of the run) at 12 and 56 tokens:
//
//   node bench/importance.mjs [--rounds N] [--no-chromium] [--against OLD.wasm]
//
// Prints `importance (node, …): importance_ms=… forward_ms=… ratio=…` (the chosen word) and
// `importance_all_ms=… longest_step_ms=…` (the means), and the same for chromium.
// --against OLD.wasm (another build of the engine, e.g. `git show main:web/dist/attn.wasm >
// /tmp/old.wasm`): the means at 12 and 56 tokens with this build and OLD in alternating rounds
// in Node, each timed as this process's CPU time (and wall time), printing
// `importance_all (node, n = …): new_ms=… old_ms=… new/old=…` (the median of the rounds' ratios)
// and whether the two builds' numbers are bit-identical.
// --workers: the page itself (web/index.html from file://, the Head importance view, over=all)
// at 56 tokens, the mean computed in the page's workers against the same page under a policy
// that refuses workers (the page's thread, between frames), in alternating rounds, printing
// `importance_all (chromium page, n = …): workers_ms=… page_thread_ms=… workers/page_thread=…`;
// then at 12 tokens the mean asked for after the word's map has been read (the view started the
// workers when it was shown) against the page opened at the mean (the workers start while the
// weights arrive): `… after_word_ms=… opened_at_mean_ms=… ratio=…`.
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { pageUnderPolicy } from '../tests/browser/no-worker.mjs';
import { loadEngine } from '../tests/lib/node-engine.mjs';
import { compareBuilds, comparisonLines, importanceLines, measureImportance, SENTENCES } from './importance-measure.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const TYPES = { '.html': 'text/html; charset=utf-8', '.mjs': 'text/javascript', '.wasm': 'application/wasm' };

const args = process.argv.slice(2);
const rounds = args.includes('--rounds') ? Number(args[args.indexOf('--rounds') + 1]) : 15;
const withChromium = !args.includes('--no-chromium');
const against = args.includes('--against') ? args[args.indexOf('--against') + 1] : null;
const withWorkers = args.includes('--workers');
/** The middle of the rounds (the upper of the two middle ones for an even count). */
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

function serve() {
  const server = http.createServer(async (request, response) => {
    try {
      const pathname = decodeURIComponent(new URL(request.url, 'http://127.0.0.1').pathname);
      const file = path.join(ROOT, path.normalize(pathname));
      if (!file.startsWith(ROOT + path.sep)) throw new Error('outside the repository');
      const data = await readFile(file);
      response.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
        'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' });
      response.end(data);
    } catch {
      response.writeHead(404);
      response.end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function inChromium() {
  const server = await serve();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/bench/importance.html`);
    await page.waitForFunction(() => window.ready === true);
    return await page.evaluate((options) => window.measure(options), { rounds });
  } finally {
    await browser.close();
    server.close();
  }
}

console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ${rounds} rounds, medians`);
const engine = await loadEngine();
if (against) {
  const old = await loadEngine({ wasm: against });
  for (const line of comparisonLines(compareBuilds(engine, old, { rounds }))) console.log(line);
  old.destroy();
  console.log(`load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
}
for (const line of importanceLines('node', measureImportance(engine, { rounds }))) console.log(line);
engine.destroy();
if (withChromium) for (const line of importanceLines('chromium', await inChromium())) console.log(line);
if (withWorkers) console.log(await workersAgainstPageThread());
if (withWorkers) console.log(await afterWordAgainstOpened());

/** The page's mean at 56 tokens: in its workers, and on its thread (a policy refusing workers). */
async function workersAgainstPageThread() {
  const dir = mkdtempSync(path.join(tmpdir(), 'importance-bench-'));
  const pages = { workers: `file://${ROOT}/web/index.html`, pageThread: pageUnderPolicy(dir, 'no-worker.html', "worker-src 'none'", `file://${ROOT}`) };
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--allow-file-access-from-files'] });
  const times = { workers: [], pageThread: [] };
  let n = 0, workers = 0;
  try {
    const page = await browser.newPage();
    for (let round = 0; round < Math.max(3, Math.ceil(rounds / 5)) + 1; round++) {
      for (const [kind, address] of Object.entries(pages)) {
        const sentence = SENTENCES.long + ' '.repeat(round);  // a new text: nothing kept from the last round
        await page.goto(`${address}#${new URLSearchParams({ sentence, view: 'head-importance', over: 'all', token: '3' })}`);
        await page.waitForFunction(() => document.querySelector('attention-explorer')?.shadowRoot?.querySelector('.imp-cell'), null, { timeout: 300000 });
        const kept = await page.evaluate(() => {
          const importance = document.querySelector('attention-explorer').session.importance();
          return { ms: importance.computeMs, workers: importance.workers ?? 0, n: document.querySelector('attention-explorer').run.n };
        });
        if (round > 0) times[kind].push(kept.ms);  // the first round warms the page up
        n = kept.n;
        if (kind === 'workers') workers = kept.workers;
      }
    }
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const ratios = times.workers.map((ms, i) => ms / times.pageThread[i]);
  return `importance_all (chromium page, n = ${n}): workers_ms=${median(times.workers).toFixed(0)} page_thread_ms=${median(times.pageThread).toFixed(0)} ` +
    `workers/page_thread=${median(ratios).toFixed(3)} (${workers} workers, ${times.workers.length} rounds, load ${loadavg()[0].toFixed(2)})`;
}

/**
 * The page's mean at 12 tokens asked for after the chosen word's map has been read for 2 s (the
 * view started the workers and gave them the model when it was shown) against the page opened at
 * the mean (the workers start while the rest of the weights arrive), alternating rounds.
 */
async function afterWordAgainstOpened() {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--allow-file-access-from-files'] });
  const times = { afterWord: [], openedAtMean: [] };
  let n = 0;
  try {
    const page = await browser.newPage();
    for (let round = 0; round < Math.max(3, Math.ceil(rounds / 5)) + 1; round++) {
      for (const kind of round % 2 ? ['openedAtMean', 'afterWord'] : ['afterWord', 'openedAtMean']) {
        const sentence = SENTENCES.words + ' '.repeat(round);
        await page.goto(`file://${ROOT}/web/index.html#${new URLSearchParams({ sentence, view: 'head-importance', over: kind === 'openedAtMean' ? 'all' : 'word', token: '3' })}`);
        await page.waitForFunction(() => document.querySelector('attention-explorer')?.shadowRoot?.querySelector('.imp-cell'), null, { timeout: 300000 });
        if (kind === 'afterWord') {
          await page.waitForTimeout(2000);
          await page.locator('attention-explorer input.over-toggle').check();
        }
        await page.waitForFunction(() => document.querySelector('attention-explorer').session.runMemo.has('importance'), null, { timeout: 300000 });
        const kept = await page.evaluate(() => ({ ms: document.querySelector('attention-explorer').session.importance().computeMs, n: document.querySelector('attention-explorer').run.n }));
        if (round > 0) times[kind].push(kept.ms);  // the first round warms the page up
        n = kept.n;
      }
    }
  } finally {
    await browser.close();
  }
  const ratios = times.afterWord.map((ms, i) => ms / times.openedAtMean[i]);
  return `importance_all (chromium page, n = ${n}): after_word_ms=${median(times.afterWord).toFixed(0)} opened_at_mean_ms=${median(times.openedAtMean).toFixed(0)} ` +
    `ratio=${median(ratios).toFixed(3)} (${times.afterWord.length} rounds, load ${loadavg()[0].toFixed(2)})`;
}

