// Where our engine's time goes, per length: the forward pass split into its parts (each weight
// product by matrix, attention scores, softmax, mixing, LayerNorm, GELU, the activations'
// quantization, residual adds, embeddings, and the boundary: ids in, token list out), in ms,
// as a share of the pass and, for the products, of the integer-dot peak (build/peak.wasm), in
// Node and then in headless Chromium (bench/profile-core.mjs has the method).
//
//   make profile [PROFILE_ARGS='--lengths 16,128 --repeats 9 --no-browser']
//   node bench/profile.mjs [--lengths 8,16,…,512] [--repeats N] [--no-browser] [--no-node]
//        [--wasm FILE] [--weights FILE] [--profile build/profile.wasm] [--peak build/peak.wasm]
//
// Prints one Markdown table per place, and lines `profile (node): products_of_dot_peak_n16=…`.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { createEngine } from '../web/src/engine.mjs';
import { CHROMIUM, serve } from './browser.mjs';
import { loadPeak, productMacs } from './measure.mjs';
import { engineTimer, loadProfiler, PRODUCT_MACS, profileLengths, profileTables } from './profile-core.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const USAGE = 'usage: node bench/profile.mjs [--lengths 8,16,...] [--repeats N] [--no-browser] [--no-node] ' +
  '[--wasm FILE] [--weights FILE] [--profile FILE] [--peak FILE]';

function parseArgs(argv) {
  const o = { lengths: [8, 16, 32, 64, 128, 256, 512], repeats: 9, node: true, browser: true,
    wasm: `${ROOT}web/dist/attn.wasm`, weights: `${ROOT}web/dist/bert-mini.int8.bin`,
    profile: `${ROOT}build/profile.wasm`, peak: `${ROOT}build/peak.wasm` };
  const fail = (m) => { throw new Error(`profile: ${m}\n${USAGE}`); };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => (i + 1 < argv.length ? argv[++i] : fail(`${a} needs a value`));
    if (a === '--lengths') o.lengths = v().split(',').map(Number);
    else if (a === '--repeats') o.repeats = Number(v());
    else if (a === '--no-browser') o.browser = false;
    else if (a === '--no-node') o.node = false;
    else if (['--wasm', '--weights', '--profile', '--peak'].includes(a)) o[a.slice(2)] = path.resolve(v());
    else fail(`unknown option ${a}`);
  }
  if (o.lengths.some((n) => !Number.isInteger(n) || n < 2 || n > 512)) fail('--lengths: integers from 2 to 512');
  if (!(Number.isInteger(o.repeats) && o.repeats >= 1)) fail('--repeats: a positive integer');
  return o;
}

/** `profile (place): products_of_dot_peak_n16=… pass_of_dot_peak_n16=… …` for n = 16 and 128 where measured. */
function summaryLine(place, { names, rows, dotPeak }) {
  const fields = [];
  for (const r of rows.filter((x) => x.n === 16 || x.n === 128)) {
    const products = names.reduce((a, name, k) => a + (PRODUCT_MACS[name] ? r.parts[k] : 0), 0);
    const atPeak = productMacs(r.n) / (dotPeak * 1e6);
    fields.push(`products_of_dot_peak_n${r.n}=${(atPeak / products).toFixed(2)}`, `pass_of_dot_peak_n${r.n}=${(atPeak / r.runIds).toFixed(2)}`);
  }
  return `profile (${place}): dot_peak_gmacs=${dotPeak?.toFixed(1)} ${fields.join(' ')}`;
}

function report(place, result) {
  console.log(`\n${place}: integer-dot peak ${result.dotPeak?.toFixed(1)} GMAC/s (build/peak.wasm, best of the run); ms per pass ` +
    '(share of the parts\' sum; products: their multiply-adds at the peak rate over their time)\n');
  console.log(profileTables(result));
  console.log('');
  console.log(summaryLine(place, result));
}

async function inNode(o) {
  const engine = await createEngine({ wasm: readFileSync(o.wasm), weights: readFileSync(o.weights) });
  const profiler = await loadProfiler(readFileSync(o.profile), readFileSync(o.weights));
  const peak = await loadPeak(readFileSync(o.peak));
  for (let i = 0; i < 6; i++) peak.measure();
  const { sentences } = JSON.parse(readFileSync(`${ROOT}tests/fixtures/attention.json`, 'utf8'));
  return profileLengths({ profiler, timer: engineTimer(engine), peak, sentences, lengths: o.lengths, repeats: o.repeats,
    log: (line) => console.log(line) });
}

async function inChromium(o) {
  const url = (file) => `/${path.relative(ROOT, file).split(path.sep).join('/')}`;
  const server = await serve({});
  const browser = await chromium.launch({ executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--js-flags=--no-liftoff', '--disable-renderer-backgrounding'] });
  try {
    console.log(`Chromium ${browser.version()} --js-flags=--no-liftoff`);
    const page = await (await browser.newContext()).newPage();
    page.on('console', (m) => console.log(m.text()));
    page.on('pageerror', (e) => console.log(`page error: ${e.message}`));
    await page.goto(`http://127.0.0.1:${server.address().port}/bench/profile.html`);
    await page.waitForFunction(() => window.profileReady === true, null, { timeout: 30000 });
    return await page.evaluate((options) => window.profileRun(options),
      { wasm: url(o.wasm), weights: url(o.weights), profile: url(o.profile), peak: url(o.peak), lengths: o.lengths, repeats: o.repeats });
  } finally {
    await browser.close();
    server.close();
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (!process.execArgv.includes('--no-liftoff')) {
    const child = spawnSync(process.execPath, ['--no-liftoff', ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
    process.exit(child.status ?? 1);
  }
  const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
  console.log(`machine: ${cpus()[0]?.model} × ${cpus().length}; load average ${load()}; lengths ${o.lengths.join(',')}, ` +
    `${o.repeats} repeats (the least of each)`);
  if (o.node) report(`node ${process.version}`, await inNode(o));
  if (o.browser) report('chromium', await inChromium(o));
  console.log(`end: load average ${load()}`);
}

try {
  await main();
} catch (error) {
  console.error(error.stack ?? error.message);
  process.exit(2);
}
