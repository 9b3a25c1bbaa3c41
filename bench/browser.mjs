// The same comparison as bench/bench.mjs inside headless Chromium (where the explorer runs):
// bench/page.html loads our engine through web/src/loader.mjs and onnxruntime-web in the same
// page, one fresh browser context per block (bench/README.md); a local server on 127.0.0.1
// serves the repository, node_modules/onnxruntime-web/dist as /ort/ and the peer models as
// /peers/ (read in place, never copied). The page is
// cross-origin isolated so that performance.now() has 5 µs resolution.
//
//   node bench/browser.mjs [the options of bench/bench.mjs]
//
// Ends with `goals (chromium): …` and `speedup (chromium): …` (the names of bench.mjs's line);
// the result also goes to bench/out/chromium.json.
import http from 'node:http';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { loadLine, parseArgs } from './bench.mjs';
import { combineBlocks } from './measure.mjs';
import { agreementLine, goalsLine, speedupLine, tables } from './report.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const TYPES = { '.html': 'text/html; charset=utf-8', '.mjs': 'text/javascript', '.js': 'text/javascript',
  '.json': 'application/json', '.wasm': 'application/wasm' };

/** Serves `ROOT`, and the directories of `mounts` under their URL prefixes, with the headers
 * that make the page cross-origin isolated. */
export function serve(mounts) {
  const server = http.createServer(async (request, response) => {
    try {
      const pathname = decodeURIComponent(new URL(request.url, 'http://127.0.0.1').pathname);
      const prefix = Object.keys(mounts).find((p) => pathname.startsWith(p));
      const dir = prefix ? mounts[prefix] : ROOT;
      const file = path.join(dir, path.normalize(prefix ? pathname.slice(prefix.length) : pathname));
      if (!file.startsWith(dir + path.sep)) throw new Error('outside the served directory');
      const data = await readFile(file);
      response.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
        'content-length': data.length, 'cross-origin-opener-policy': 'same-origin',
        'cross-origin-embedder-policy': 'require-corp', 'cache-control': 'no-store' });
      response.end(data);
    } catch {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('not found');
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** A file given on the command line as a URL path of the server (it must lie in the repository). */
function served(file) {
  const absolute = path.resolve(file);
  if (!absolute.startsWith(ROOT + path.sep)) throw new Error(`bench: ${file} is outside the repository, which the page cannot load`);
  return '/' + path.relative(ROOT, absolute).split(path.sep).join('/');
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  // chromium.json goes next to the Node run's node.json (bench/readme.mjs reads the pair).
  opts.out = path.join(path.dirname(path.resolve(opts.out)), 'chromium.json');
  const peers = path.resolve(opts.peers);
  const options = { wasm: served(opts.wasm), weights: served(opts.weights), peak: existsSync(opts.peak) ? served(opts.peak) : null,
    fixtures: opts.fixtures ? served(opts.fixtures).slice(1) : null, ort: opts.ort && existsSync(path.join(peers, 'bert-mini-f32.onnx')), aa: opts.aa,
    lengths: opts.lengths, rounds: opts.rounds, blocks: opts.blocks, seed: opts.seed };
  const errors = Number.isFinite(opts.errors) ? opts.errors : 1e9;
  for (const file of [opts.wasm, opts.weights]) if (!existsSync(file)) throw new Error(`bench: ${file} not found`);
  const server = await serve({ '/ort/': path.join(ROOT, 'node_modules/onnxruntime-web/dist'), '/peers/': peers });
  const base = `http://127.0.0.1:${server.address().port}`;
  const args = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--no-first-run', '--disable-renderer-backgrounding'];
  if (!opts.liftoff) args.push('--js-flags=--no-liftoff');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args });
  const maxLoad = { value: loadavg()[0] };
  const sampler = setInterval(() => { maxLoad.value = Math.max(maxLoad.value, loadavg()[0]); }, 2000);
  const started = performance.now();
  const at = () => `[${((performance.now() - started) / 1000).toFixed(1)} s] `;
  try {
    console.log(`machine: ${cpus()[0]?.model ?? '?'} × ${cpus().length}, Chromium ${browser.version()} ` +
      `${opts.liftoff ? '(default tiers)' : '--js-flags=--no-liftoff'}`);
    console.log(`start: ${loadLine()}`);
    console.log(`ours: ${options.wasm}, ${options.weights} (loaded by web/src/loader.mjs)`);
    console.log(`blocks: ${opts.blocks}, each in a new browser context (its own renderer process): ` +
      'engines loaded, warmed up and timed afresh');
    const blocks = [];
    let first = null;
    for (let block = 0; block < opts.blocks; block++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      page.on('console', (m) => {
        if (m.text().startsWith('Failed to load resource')) return;  // the page tries .f32 before .f32.gz
        console.log(at() + (m.type() === 'log' ? m.text() : `page ${m.type()}: ${m.text()}`));
      });
      page.on('pageerror', (e) => console.log(`page error: ${e.message}`));
      await page.goto(`${base}/bench/page.html`);
      await page.waitForFunction(() => window.benchReady === true, null, { timeout: 30000 });
      const out = await page.evaluate((o) => window.benchBlock(o), { ...options, block, errors: block === 0 ? errors : 0 });
      first ??= out;
      blocks.push(out.block);
      await context.close();
    }
    const result = combineBlocks({ engines: first.engines, blocks, errors: first.errors, seed: opts.seed });
    console.log(`end: ${loadLine()}; highest 1-minute load during the run ${maxLoad.value.toFixed(2)}`);

    const saved = existsSync(opts.out) ? JSON.parse(readFileSync(opts.out, 'utf8')) : null;
    const previous = saved?.weights === options.weights ? saved : null;  // same weights only
    mkdirSync(path.dirname(opts.out), { recursive: true });
    const agreement = agreementLine(result, previous);
    writeFileSync(opts.out, JSON.stringify({ date: new Date().toISOString(), environment: `Chromium ${browser.version()}`,
      machine: cpus()[0]?.model, load: loadavg(), maxLoad: maxLoad.value, weights: options.weights, agreement, ...result }, null, 1));
    console.log('');
    console.log(tables(result, { markdown: opts.markdown }));
    console.log('');
    console.log(agreement);
    console.log(goalsLine(result).replace(/^goals:/, 'goals (chromium):'));
    console.log(speedupLine(result, 'speedup (chromium)'));
  } finally {
    clearInterval(sampler);
    await browser.close();
    server.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  try {
    await main();
  } catch (error) {
    console.error(error.message);
    process.exit(2);
  }
}
