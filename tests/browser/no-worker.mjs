// The "Use your own model" panel where the page's policy allows no worker (Content-Security-Policy
// worker-src 'none'): the conversion runs on the main thread in slices (web/src/convert-run.mjs),
// so the page keeps painting, no task of the conversion is long, Cancel stops it, and the file
// is the worker's byte for byte. The pages are web/index.html under another policy, written to a
// temporary folder with a <base> pointing at web/. Run from tests/browser/run.mjs (testNoWorker).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// The slices are 40 ms; the longest indivisible step (the engine loading the converted file to
// measure the head roles, one calibration sentence, the vocabulary) is 50–75 ms on an idle
// machine. On a loaded one every task stretches with the whole conversion: the bound is the
// larger of 150 ms and an eighth of the conversion's time in the same run (one piece would
// block the page for all of it); the gap between two frames, which can hold a slice and the
// page's own work, at most twice that.
const LONGEST_TASK_MS = 150;
const SHARE_OF_ONE_PIECE = 1 / 8;
const CONVERTING = 'Converting';
const CANCELLED = 'Conversion cancelled.';

export function pageUnderPolicy(dir, name, policy, FILE) {
  const index = fs.readFileSync(new URL(`${FILE}/web/index.html`), 'utf8');
  const meta = /<meta http-equiv="Content-Security-Policy" content="[^"]*">/;
  if (!meta.test(index)) throw new Error('web/index.html has no Content-Security-Policy to replace');
  const text = index.replace(meta, `<base href="${FILE}/web/"><meta http-equiv="Content-Security-Policy" content="${policy}">`);
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return `file://${file}`;
}

// Opens a page and waits for its explorer; window.panelRoot() is then the panel's shadow root.
async function openExplorer(page, address, waitDrawn) {
  await page.goto(address);
  await waitDrawn(page);
  await page.evaluate(() => {
    window.panelRoot = () => document.querySelector('attention-explorer').shadowRoot.querySelector('.convert-host').shadowRoot;
  });
}

async function chooseFolder(page, dir) {
  const handle = await page.evaluateHandle(() => window.panelRoot().querySelector('.convert input.folder-input'));
  const input = handle.asElement?.() ?? handle;
  if (input.setInputFiles) await input.setInputFiles(dir);
  else await input.uploadFile(...fs.readdirSync(dir).map((n) => path.join(dir, n)));
}

// Long tasks and animation frames from now on, each frame with the panel's status text.
function record(page) {
  return page.evaluate(() => {
    const log = { tasks: [], frames: [], refused: [], longTasksSeen: PerformanceObserver.supportedEntryTypes.includes('longtask') };
    window.conversionLog = log;
    document.addEventListener('securitypolicyviolation', (e) => log.refused.push(e.effectiveDirective));
    if (log.longTasksSeen) {
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) log.tasks.push({ start: e.startTime, duration: e.duration });
      }).observe({ type: 'longtask' });
    }
    const status = () => window.panelRoot().querySelector('.convert .status')?.textContent ?? '';
    const frame = (now) => { log.frames.push([now, status()]); requestAnimationFrame(frame); };
    requestAnimationFrame(frame);
  });
}

// How many turns (setTimeout 0) the page has in `ms`: few while a conversion holds the thread.
const turnsIn = (page, ms) => page.evaluate((span) => new Promise((resolve) => {
  const end = performance.now() + span;
  let turns = 0;
  const turn = () => { turns++; if (performance.now() < end) setTimeout(turn, 0); else resolve(turns); };
  setTimeout(turn, 0);
}), ms);

const panelText = (page, selector) => page.evaluate((sel) => window.panelRoot().querySelector(`.convert ${sel}`)?.textContent ?? '', selector);
const modelOf = (page) => page.evaluate(() => document.querySelector('attention-explorer').dataset.model ?? null);

// The converted file's length and SHA-256, read from the panel's download link.
const downloaded = (page) => page.evaluate(async () => {
  const link = window.panelRoot().querySelector('.convert a.download');
  const bytes = await (await fetch(link.href)).arrayBuffer();
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return `${bytes.byteLength} bytes, sha256 ${Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('')}`;
});

/**
 * The conversion window (frames whose status says it converts), the long tasks in it, the
 * frames' largest gap. A browser without long-task entries (Firefox) is judged on the gaps
 * between its frames alone: a task holds the next frame back.
 */
function conversionWindow({ tasks, frames, longTasksSeen }) {
  const first = frames.findIndex(([, text]) => text.includes(CONVERTING));
  const after = frames.findIndex(([, text], i) => i > first && !text.includes(CONVERTING));
  if (first < 0 || after < 0) return null;
  const [begin, end] = [frames[first][0], frames[after][0]];
  const inside = tasks.filter((t) => t.start < end && t.start + t.duration > begin);
  let gap = 0;
  for (let i = first + 1; i <= after; i++) gap = Math.max(gap, frames[i][0] - frames[i - 1][0]);
  if (process.env.ATTN_DEBUG_SLICES) console.log(JSON.stringify(inside.map((t) => [Math.round(t.start - begin), Math.round(t.duration)])));
  const longTasks = inside.map((t) => [Math.round(t.start - begin), Math.round(t.duration)]);
  const longest = longTasksSeen ? Math.max(0, ...inside.map((t) => t.duration)) : gap;
  return { ms: end - begin, frames: after - first, longest, gap, longTasks };
}

export async function noWorkerConversionTest({ newPage, check, waitDrawn, FILE, ROOT }) {
  const checkpoint = process.env.ATTN_CHECKPOINT ?? path.join(ROOT, '../shared/checkpoints/bert-mini-int8');
  if (!fs.existsSync(path.join(checkpoint, 'model.safetensors'))) {
    check(`no-worker conversion: the checkpoint ${checkpoint} is there`, false, 'set ATTN_CHECKPOINT');
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-no-worker-'));
  const folder = path.join(dir, 'bert-mini-int8');
  fs.mkdirSync(folder);
  for (const name of ['config.json', 'vocab.txt', 'model.safetensors', 'training.json']) {
    if (fs.existsSync(path.join(checkpoint, name))) fs.copyFileSync(path.join(checkpoint, name), path.join(folder, name));
  }
  const blocked = pageUnderPolicy(dir, 'no-worker.html', "worker-src 'none'", FILE);
  const allowed = pageUnderPolicy(dir, 'worker.html', 'worker-src blob:', FILE);
  try {
    // Cancel, on the main thread, between two slices.
    let page = await newPage();
    await openExplorer(page, blocked, waitDrawn);
    const before = await modelOf(page);
    const idleTurns = await turnsIn(page, 1000);
    await record(page);
    await chooseFolder(page, folder);
    await page.waitForFunction((text) => window.panelRoot().querySelector('.convert .status')?.textContent.includes(text),
      CONVERTING, { timeout: 60000, polling: 'raf' });
    await page.evaluate(() => new Promise((resolve) => { setTimeout(resolve, 200); }));
    await page.evaluate(() => window.panelRoot().querySelector('.convert button.cancel').click());
    await page.waitForFunction((text) => window.panelRoot().querySelector('.convert .refusal')?.textContent.includes(text),
      CANCELLED, { timeout: 10000 }).catch(() => {});
    await page.evaluate(() => new Promise((resolve) => { setTimeout(resolve, 300); }));
    const turns = await turnsIn(page, 1000);
    await page.evaluate(() => new Promise((resolve) => { setTimeout(resolve, 2000); }));
    const cancelled = await panelText(page, '.refusal strong');
    const afterCancel = await modelOf(page);
    check(`no-worker conversion: Cancel stops it between two slices ("${cancelled}"; the explorer keeps its model; `
      + `the page has ${turns} turns in the second after, ${idleTurns} before the conversion: ≥ half)`,
    cancelled === CANCELLED && afterCancel === before && before !== 'bert-mini-int8' && turns >= idleTurns / 2, JSON.stringify({ cancelled, afterCancel, turns, idleTurns }));
    await page.context().close();

    // The whole conversion in slices.
    page = await newPage();
    await openExplorer(page, blocked, waitDrawn);
    await record(page);
    await chooseFolder(page, folder);
    await page.waitForFunction(() => document.querySelector('attention-explorer').dataset.model === 'bert-mini-int8', null, { timeout: 180000 });
    await waitDrawn(page);
    const log = await page.evaluate(() => window.conversionLog);
    const sliced = conversionWindow(log);
    const bound = Math.max(LONGEST_TASK_MS, (sliced?.ms ?? 0) * SHARE_OF_ONE_PIECE);
    const slicedFile = await downloaded(page);
    check(`no-worker conversion: under worker-src 'none' (the worker refused: ${log.refused.join(', ') || 'no violation reported'}) bert-mini-int8 converts on the main thread in ${sliced?.ms.toFixed(0)} ms `
      + `(what one piece would block), its longest task ${sliced?.longest.toFixed(0)} ms (≤ ${bound.toFixed(0)}: max(${LONGEST_TASK_MS}, 1/8 of the conversion)), ${sliced?.frames} frames painted meanwhile, the longest gap between two ${sliced?.gap.toFixed(0)} ms`,
    log.refused.includes('worker-src') && sliced !== null && sliced.longest <= bound && sliced.gap <= 2 * bound && sliced.frames >= sliced.ms / (2 * bound),
    JSON.stringify(sliced));
    await page.context().close();

    // The same folder through the worker: the same bytes.
    page = await newPage();
    await openExplorer(page, allowed, waitDrawn);
    await chooseFolder(page, folder);
    await page.waitForFunction(() => document.querySelector('attention-explorer').dataset.model === 'bert-mini-int8', null, { timeout: 180000 });
    const workerFile = await downloaded(page);
    check(`no-worker conversion: the sliced conversion's file is the worker's byte for byte (${slicedFile})`, slicedFile === workerFile, `${slicedFile} vs ${workerFile}`);
    await page.context().close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
