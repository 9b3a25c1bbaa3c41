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
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { loadEngine } from '../tests/lib/node-engine.mjs';
import { compareBuilds, comparisonLines, importanceLines, measureImportance } from './importance-measure.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const TYPES = { '.html': 'text/html; charset=utf-8', '.mjs': 'text/javascript', '.wasm': 'application/wasm' };

const args = process.argv.slice(2);
const rounds = args.includes('--rounds') ? Number(args[args.indexOf('--rounds') + 1]) : 15;
const withChromium = !args.includes('--no-chromium');
const against = args.includes('--against') ? args[args.indexOf('--against') + 1] : null;

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
