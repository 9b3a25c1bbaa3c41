// The fault cases (tests/browser/topics/faults.mjs) on node:test, in Chromium, against a server
// of this file whose answers to the weights' range requests each test sets. A test fails when one
// of its checks fails, and names them; each has its own time limit. `make test-browser-all` runs
// this file; `node --test --test-name-pattern=testOneFailedPart tests/browser/faults.test.mjs`
// runs one test. Without Chromium every test skips (CI=true: fails).
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { partsOf } from '../lib/corrupt-weights.mjs';
import { CHROMIUM, startChromium } from './lib/browsers.mjs';
import { TEST_LIMIT_S, checkTally, runChecked } from './lib/checks.mjs';
import { prerequisites, requirePrerequisites } from './lib/prerequisites.mjs';
import { FAULT_TESTS, WEIGHTS_PATH } from './topics/faults.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm' };
const checks = checkTally();
const { reason, skip } = prerequisites('faults', [[CHROMIUM, "Debian's chromium, tools/install-deps.sh"]]);
let ctx, server, browser, scratch;

/**
 * A server of the repository whose answers to the weights' range requests follow `behaviour`:
 * `failing` (part → how many more requests touching it answer 503), `wholeFrom` (a range ending
 * past this byte gets the whole file, 200); it records each range request (`requests`: its first
 * byte, first and last part) and the bytes it sent.
 */
function scriptedServer(weightsFile, parts) {
  const behaviour = { failing: new Map(), wholeFrom: Infinity, requests: [], bytesSent: 0 };
  const partAt = (start) => parts.findIndex((p) => start >= p.offset && start < p.offset + p.bytes);
  const answer = (response, status, headers, body) => {
    response.writeHead(status, headers);
    response.end(body);
    behaviour.bytesSent += body.length;
  };
  const rangeAnswer = (response, data, type, [start, end]) => {
    const part = partAt(start), last = partAt(end - 1);
    behaviour.requests.push({ start, part, last });
    const hit = [...behaviour.failing.keys()].find((p) => p >= part && p <= last && behaviour.failing.get(p) > 0);
    if (hit !== undefined) {
      behaviour.failing.set(hit, behaviour.failing.get(hit) - 1);
      answer(response, 503, { 'content-type': 'text/plain' }, Buffer.from('busy'));
      return true;
    }
    if (end > behaviour.wholeFrom) return false;
    answer(response, 206, { 'content-type': type, 'content-range': `bytes ${start}-${end - 1}/${data.length}`,
      'content-length': end - start }, data.subarray(start, end));
    return true;
  };
  const listening = http.createServer(async (request, response) => {
    try {
      const pathname = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
      const file = path.join(ROOT, path.normalize(pathname));
      if (!file.startsWith(ROOT + path.sep)) throw new Error('outside');
      const data = await readFile(file);
      const type = TYPES[path.extname(file)] || 'application/octet-stream';
      const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range || '');
      const bounds = range && [Number(range[1]), Math.min(Number(range[2]) + 1, data.length)];
      if (pathname === weightsFile && range && rangeAnswer(response, data, type, bounds)) return;
      answer(response, 200, { 'content-type': type, 'content-length': data.length }, data);
    } catch {
      answer(response, 404, { 'content-type': 'text/plain' }, Buffer.from('not found'));
    }
  });
  const reset = () => Object.assign(behaviour, { failing: new Map(), wholeFrom: Infinity, requests: [], bytesSent: 0 });
  return { listening, behaviour, reset };
}

/** A page of `body` (after the explorer's script), served from the scratch folder, in a context of its own. */
async function openPage(body) {
  const name = `page-${Math.random().toString(36).slice(2)}.html`;
  await writeFile(path.join(scratch, name), `<!doctype html><meta charset="utf-8"><title>faults</title>
<script src="/web/dist/attention-explorer.js" defer></script>\n${body}\n`);
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (error) => page.problems.push(error.message));
  await page.goto(`http://127.0.0.1:${server.listening.address().port}/test-output/${path.basename(scratch)}/${name}`);
  return page;
}

if (!skip) {
  before(async () => {
    requirePrerequisites('faults', reason);
    const weights = readFileSync(path.join(ROOT, WEIGHTS_PATH));
    const parts = partsOf(weights);
    server = scriptedServer(WEIGHTS_PATH, parts);
    await new Promise((resolve) => server.listening.listen(0, '127.0.0.1', resolve));
    await mkdir(path.join(ROOT, 'test-output'), { recursive: true });
    scratch = await mkdtemp(path.join(ROOT, 'test-output', 'faults-'));
    browser = await startChromium();
    console.log(`faults: Chromium ${browser.version()} (${CHROMIUM})`);
    ctx = { check: checks.check, openPage, behaviour: server.behaviour, reset: server.reset, weights, parts, ROOT };
  });
  after(async () => {
    const { passed, failed } = checks.counts();
    console.log(`faults: ${passed} checks passed, ${failed} failed`);
    await browser?.close();
    server?.listening.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });
}

for (const [name, body] of Object.entries(FAULT_TESTS)) {
  test(name, { timeout: TEST_LIMIT_S * 1000, skip }, () => runChecked(checks, name, () => body(ctx)));
}
