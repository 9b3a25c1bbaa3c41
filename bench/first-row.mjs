#!/usr/bin/env node
// The page's first row on any weights file: time from navigation to the first drawn row of
// layer 1 and the weight bytes read before it, over http (range requests, a server that reads
// only the bytes asked), over http throttled to 20 Mbit/s with 40 ms latency (Chromium's network
// emulation), and from file:// (the .weights.head.js and part scripts convert.mjs --scripts
// writes beside the .bin); then the engine's wasm memory once the sentence and a text
// of max_positions tokens have run (in Node, the page's own web/src/engine.mjs and web/dist/attn.wasm).
//
//   node bench/first-row.mjs WEIGHTS.bin [--sentence TEXT] [--loads 3] [--throttled-loads 1]
//
// Prints `first-row (PLACE): first_row_bytes=… first_row_ms=…` lines (medians). Chromium:
// $CHROMIUM or /usr/bin/chromium, through npm playwright-core. Times on a loaded machine are
// only comparable with a peer measured in the same run: the default bert-mini file is measured
// the same way first.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { createEngine } from '../web/src/engine.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FRENCH = "Le chat s'est assis sur le tapis parce qu'il était fatigué.";
const THROTTLED = { offline: false, latency: 40, downloadThroughput: 20e6 / 8, uploadThroughput: 5e6 / 8 };
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript',
  '.css': 'text/css', '.wasm': 'application/wasm', '.bin': 'application/octet-stream' };

function parseArguments(argv) {
  const options = { sentence: FRENCH, loads: 3, throttledLoads: 1, weights: null };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--sentence') options.sentence = argv[++i];
    else if (argv[i] === '--loads') options.loads = Number(argv[++i]);
    else if (argv[i] === '--throttled-loads') options.throttledLoads = Number(argv[++i]);
    else if (!options.weights) options.weights = path.resolve(argv[i]);
    else throw new Error(`unexpected ${argv[i]}`);
  }
  if (!options.weights) throw new Error('usage: node bench/first-row.mjs WEIGHTS.bin [--sentence TEXT] [--loads N] [--throttled-loads N]');
  return options;
}

/** Serves the repository at / and the weights' folder at /models/, one byte range per request. */
function startServer(modelDir) {
  const server = http.createServer((request, response) => {
    const pathname = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
    const [dir, rest] = pathname.startsWith('/models/') ? [modelDir, pathname.slice(7)] : [ROOT, pathname];
    const file = path.join(dir, path.normalize(rest));
    if (!file.startsWith(dir + path.sep) || !fs.existsSync(file)) { response.writeHead(404); response.end(); return; }
    const size = fs.statSync(file).size;
    const type = TYPES[path.extname(file)] || 'application/octet-stream';
    const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range || '');
    if (!range) {
      response.writeHead(200, { 'content-type': type, 'content-length': size, 'accept-ranges': 'bytes' });
      fs.createReadStream(file).pipe(response);
      return;
    }
    const start = Number(range[1]), end = Math.min(range[2] ? Number(range[2]) + 1 : size, size);
    response.writeHead(206, { 'content-type': type, 'content-length': end - start, 'accept-ranges': 'bytes',
      'content-range': `bytes ${start}-${end - 1}/${size}` });
    fs.createReadStream(file, { start, end: end - 1 }).pipe(response);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

async function firstRow(browser, address, loads, throttle) {
  const context = await browser.newContext();
  const page = await context.newPage();
  if (throttle) {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', throttle);
  }
  const times = [], bytes = [];
  for (let i = 0; i < loads; i++) {
    await page.goto('about:blank');
    await page.goto(address);
    await page.waitForFunction(() => performance.getEntriesByName('attn-first-row').length > 0, null, { timeout: 600000 });
    const mark = await page.evaluate(() => {
      const m = performance.getEntriesByName('attn-first-row')[0];
      return { time: m.startTime, weightBytes: m.detail?.weightBytes ?? null };
    });
    times.push(mark.time);
    bytes.push(mark.weightBytes);
  }
  await context.close();
  return { ms: Math.round(median(times)), bytes: bytes.at(-1), times: times.map(Math.round) };
}

async function wasmMemory(weightsFile, sentence) {
  const engine = await createEngine({ wasm: fs.readFileSync(path.join(ROOT, 'web/dist/attn.wasm')), weights: fs.readFileSync(weightsFile) });
  const session = engine.createSession();
  session.runText(sentence);
  const afterSentence = engine.heap.memory.buffer.byteLength;
  session.runText(Array.from({ length: 200 }, () => sentence).join(' '));
  const afterLong = engine.heap.memory.buffer.byteLength;
  session.destroy();
  engine.destroy();
  return { afterSentence, afterLong };
}

async function measure(browser, server, weights, options) {
  const stem = weights.replace(/\.bin$/, '');
  const page = (base, weightsUrl) => `${base}/bench/first-row.html?weights=${encodeURIComponent(weightsUrl)}&sentence=${encodeURIComponent(options.sentence)}`;
  const httpBase = `http://127.0.0.1:${server.address().port}`;
  const httpWeights = weights.startsWith(ROOT + path.sep) ? `/${path.relative(ROOT, weights)}` : `/models/${path.basename(weights)}`;
  const results = {};
  results.http = await firstRow(browser, page(httpBase, httpWeights), options.loads);
  results['throttled http'] = await firstRow(browser, page(httpBase, httpWeights), options.throttledLoads, THROTTLED);
  const headScript = [`${stem}.weights.head.js`, `${stem.replace(/\.int8$/, '')}.weights.head.js`].find((f) => fs.existsSync(f)) ?? '';
  if (fs.existsSync(headScript)) results['file://'] = await firstRow(browser, page(pathToFileURL(ROOT).href, pathToFileURL(headScript).href), options.loads);
  for (const [where, r] of Object.entries(results)) {
    console.log(`first-row (${where}): ${path.basename(weights)} first_row_bytes=${r.bytes} first_row_ms=${r.ms} (loads: ${r.times.join(', ')} ms)`);
  }
  const memory = await wasmMemory(weights, options.sentence);
  console.log(`wasm memory: ${path.basename(weights)} ${(fs.statSync(weights).size / 1e6).toFixed(1)} MB file, `
    + `${(memory.afterSentence / 2 ** 20).toFixed(0)} MiB after the sentence, ${(memory.afterLong / 2 ** 20).toFixed(0)} MiB after a text of max_positions tokens`);
}

const options = parseArguments(process.argv.slice(2));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
const server = await startServer(path.dirname(options.weights));
try {
  await measure(browser, server, path.join(ROOT, 'web/dist/bert-mini.int8.bin'), { ...options, sentence: options.sentence });
  await measure(browser, server, options.weights, options);
} finally {
  await browser.close();
  server.close();
}
