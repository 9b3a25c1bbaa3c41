// What a course that brings a base-size BERT (12 layers × 768, FFN 3072, 30,522 words, 512
// positions) gets: a random checkpoint at a trained BERT's scales (tests/lib/checkpoints.mjs,
// scales 'trained'), converted to int8 by weights/convert.mjs, then
//   - in Node, our wasm engine's forward pass at n = 16 / 128 / 512 against onnxruntime-web f32
//     (wasm, 1 thread, SIMD) on the same weights (bench/onnx-bert.mjs writes the ONNX model),
//     the two alternated round by round, medians and the median of the per-round ratios;
//   - the cost per token against bert-mini (web/dist/bert-mini.int8.bin) at the same lengths;
//   - the wasm memory: heap size and bytes in use with the model loaded and a 512-token run;
//   - the native CLI (build/attn, SIMD) against its portable build (build/scalar/attn,
//     -DATTN_SCALAR) on the same checkpoint at 128 tokens, whole command (load + run), its
//     CPU time (user + system: what a loaded machine does not inflate) and wall time;
//   - in headless Chromium (bench/scale.html): our engine against onnxruntime-web f32 on the same
//     checkpoint at the same lengths, alternated as in Node, and the wasm memory there; then the
//     page itself (bench/first-row.html, the Row view) on the checkpoint with a 128-token text:
//     its first row of layer 1, then typing at the end of the text, the time from each key to its
//     redraw and the longest task of the page's main thread meanwhile (Chromium's trace).
//
//   node bench/scale.mjs [--lengths 16,128,512] [--rounds N] [--no-ort] [--no-cli] [--no-chromium] [--dir DIR]
//
// The checkpoint and its conversion are kept in DIR (default build/scale/) and reused. Timings
// on a loaded machine: read the ratios, measured in the same run; the load is printed.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../web/src/engine.mjs';
import { compactConfig, randomTensors, writeCheckpoint, WORDS } from '../tests/lib/checkpoints.mjs';
import { traceMainThreadTasks } from '../tests/lib/trace-tasks.mjs';
import { convert } from '../weights/convert.mjs';
import { chromium } from 'playwright-core';
import { CHROMIUM, serve } from './browser.mjs';
import { bertEncoderOnnx } from './onnx-bert.mjs';
import { lcgIds, median } from './measure.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const MB = 1024 * 1024;

function parseArgs(argv) {
  const o = { lengths: [16, 128, 512], rounds: 5, ort: true, cli: true, chromium: true, dir: path.join(root, 'build/scale') };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--lengths') o.lengths = argv[++i].split(',').map(Number);
    else if (a === '--rounds') o.rounds = Number(argv[++i]);
    else if (a === '--no-ort') o.ort = false;
    else if (a === '--no-cli') o.cli = false;
    else if (a === '--no-chromium') o.chromium = false;
    else if (a === '--dir') o.dir = path.resolve(argv[++i]);
    else throw new Error(`usage: node bench/scale.mjs [--lengths 16,128,512] [--rounds N] [--no-ort] [--no-cli] [--no-chromium] [--dir DIR]; got ${a}`);
  }
  if (o.lengths.some((n) => !Number.isInteger(n) || n < 3 || n > 512)) throw new Error('--lengths: integers from 3 to 512');
  if (!(Number.isInteger(o.rounds) && o.rounds >= 1)) throw new Error('--rounds: a positive integer');
  return o;
}

const load = () => `load average ${loadavg().map((x) => x.toFixed(2)).join(' ')} (1, 5, 15 min; ${cpus().length} cores)`;

/** The base-size checkpoint (config, tensors) and its int8 conversion, made once into dir. */
function baseCheckpoint(dir) {
  const config = compactConfig({ layers: 12, hidden: 768, vocab: 30522, positions: 512 });
  const { tensors, shapes } = randomTensors(config, 768, { scales: 'trained' });
  const weightsFile = path.join(dir, 'base.int8.bin');
  let convertMs = null;
  if (!existsSync(weightsFile)) {
    mkdirSync(dir, { recursive: true });
    const checkpointDir = writeCheckpoint(path.join(dir, 'checkpoint'), { config, tensors, shapes });
    const start = performance.now();
    const { bytes } = convert({ checkpointDir, precision: 'int8', predict: false });
    convertMs = performance.now() - start;
    writeFileSync(weightsFile, bytes);
  }
  return { config, tensors, weightsFile, convertMs };
}

/** Median ms of each engine at each length, and the median of the per-round ratios to `base`. */
async function timeEngines(engines, lengths, rounds, log) {
  const results = {};
  for (const n of lengths) {
    const ids = lcgIds(n);
    ids[0] = 2;
    ids[n - 1] = 3;
    const inputs = engines.map((e) => e.prepare(ids));
    const warm = n >= 512 ? 2 : 4;
    for (let w = 0; w < warm; w++) for (const [i, e] of engines.entries()) await e.run(inputs[i]);
    const times = engines.map(() => []);
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 ? [...engines.keys()].reverse() : [...engines.keys()];
      for (const i of order) {
        const start = performance.now();
        await engines[i].run(inputs[i]);
        times[i].push(performance.now() - start);
      }
    }
    results[n] = engines.map((e, i) => ({ name: e.name, ms: median(times[i]), ratios: times[i].map((t, r) => t / times[0][r]) }));
    log(`n = ${n}: ${results[n].map((e) => `${e.name} ${e.ms.toFixed(1)} ms`).join(', ')}`);
  }
  return results;
}

function oursAt(engine, name) {
  const session = engine.createSession();
  return { name, prepare: (ids) => ids, run: (ids) => { session.runIds(ids); } };
}

function ortAt(ort, session) {
  const t = (values) => new ort.Tensor('int64', BigInt64Array.from(values, BigInt), [1, values.length]);
  return {
    name: 'ORT-web f32',
    prepare: (ids) => ({ input_ids: t(ids), position_ids: t(Array.from(ids, (_, i) => i)), token_type_ids: t(new Int32Array(ids.length)) }),
    run: (feeds) => session.run(feeds),
  };
}

/** A text of `pieces` word pieces from the checkpoint's vocabulary (tests/lib/checkpoints.mjs WORDS). */
function textOfPieces(engine, pieces) {
  const words = WORDS.filter((w) => !w.startsWith('##') && /^[a-z]+$/.test(w));
  const text = [];
  for (let i = 0; engine.tokenize(text.join(' ')).ids.length - 2 < pieces; i++) text.push(words[(i * 5) % words.length]);
  while (engine.tokenize(text.join(' ')).ids.length - 2 > pieces) text.pop();
  return text.join(' ');
}

/** Seconds of wall clock and of CPU (user + system) of one command, from /usr/bin/time. */
function timed(command, args) {
  const run = spawnSync('/usr/bin/time', ['-f', 'TIMES %e %U %S', command, ...args], { maxBuffer: 1 << 28 });
  const times = String(run.stderr).match(/TIMES (\S+) (\S+) (\S+)\s*$/);
  if (run.status !== 0 || !times) throw new Error(`${command}: ${run.stderr}`);
  return { wall: Number(times[1]), cpu: Number(times[2]) + Number(times[3]), stdout: run.stdout };
}

/** build/attn against build/scalar/attn, whole commands, alternated, medians of `rounds`. */
function timeCli(weightsFile, text, rounds, log) {
  execFileSync('make', ['-s', 'build/attn', 'build/scalar/attn'], { cwd: root, stdio: 'inherit' });
  const builds = { simd: path.join(root, 'build/attn'), scalar: path.join(root, 'build/scalar/attn') };
  const runs = { simd: [], scalar: [], info: [] };
  for (let r = 0; r < rounds; r++) {
    for (const name of r % 2 ? ['scalar', 'simd'] : ['simd', 'scalar'])
      runs[name].push(timed(builds[name], ['--weights', weightsFile, text, '--json']));
    runs.info.push(timed(builds.simd, ['--weights', weightsFile, '--info']));
  }
  const tokens = JSON.parse(runs.simd[0].stdout).tokens?.length;
  const identical = runs.simd.every((run) => run.stdout.equals(runs.scalar[0].stdout));
  const m = (name, key) => median(runs[name].map((run) => run[key]));
  const result = { tokens, identical };
  for (const name of ['simd', 'scalar', 'info']) result[name] = { wall: m(name, 'wall'), cpu: m(name, 'cpu') };
  log(`native CLI, ${tokens ?? '?'} tokens, whole command (load + run): SIMD ${result.simd.cpu.toFixed(2)} s CPU ` +
    `(${result.simd.wall.toFixed(2)} s wall), scalar ${result.scalar.cpu.toFixed(2)} s CPU (${result.scalar.wall.toFixed(2)} s wall): ` +
    `×${(result.scalar.cpu / result.simd.cpu).toFixed(1)}; outputs ${identical ? 'byte-identical' : 'DIFFERENT'}; ` +
    `loading alone (--info) ${result.info.cpu.toFixed(2)} s CPU (${result.info.wall.toFixed(2)} s wall)`);
  return result;
}

/** Ids of n tokens for a timing: [CLS], lcgIds, [SEP] (the ids bench.mjs times). */
const timingIds = (n) => Array.from(lcgIds(n), (v, i) => (i === 0 ? 2 : i === n - 1 ? 3 : v));

/** Our engine and ORT-web f32 in a Chromium page (bench/scale-page.mjs) on the same checkpoint. */
async function chromiumForward(browser, address, { weights, onnx, lengths, rounds }, log) {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on('console', (m) => log(`  ${m.text()}`));
  await page.goto(`${address}/bench/scale.html`);
  await page.waitForFunction(() => window.ready === true);
  const result = await page.evaluate((o) => window.scaleForward(o), { weights, onnx, inputs: lengths.map(timingIds), rounds });
  await context.close();
  return result;
}

/**
 * The page (bench/first-row.html, the Row view) on `weights` with `text`: the first row of layer
 * 1 (ms from navigation; the server sends files whole), then, once the run is complete, keys typed
 * at the end of the text one at a time, each waiting for its redraw: {n, firstRowMs, keyMs,
 * longestTaskMs, heapBytes}.
 */
async function pageTyping(browser, address, weights, text) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${address}/bench/first-row.html?weights=${encodeURIComponent(weights)}&sentence=${encodeURIComponent(text)}`);
  await page.waitForFunction(() => performance.getEntriesByName('attn-first-row').length > 0, null, { timeout: 600000 });
  const firstRowMs = await page.evaluate(() => performance.getEntriesByName('attn-first-row')[0].startTime);
  const complete = () => document.querySelector('attention-explorer').session?.complete?.() === true;
  await page.waitForFunction(complete, null, { timeout: 600000 });
  await page.locator('attention-explorer textarea').first().focus();
  await page.keyboard.press('Control+End');
  const cdp = await context.newCDPSession(page);
  const endTrace = await traceMainThreadTasks(cdp);
  await page.evaluate(() => performance.clearMeasures('attn-keystroke'));
  const keyMs = [];
  for (const key of ' ran') {
    await page.keyboard.type(key);
    await page.waitForFunction(() => performance.getEntriesByName('attn-keystroke').length > 0, null, { timeout: 600000 });
    keyMs.push(await page.evaluate(() => performance.getEntriesByName('attn-keystroke')[0].duration));
    await page.waitForFunction(complete, null, { timeout: 600000 });
    await page.evaluate(() => performance.clearMeasures('attn-keystroke'));
  }
  const tasks = await endTrace();
  const { n, heapBytes } = await page.evaluate(() => {
    const e = document.querySelector('attention-explorer');
    return { n: e.session.n, heapBytes: e.session.engine?.heapBytes?.() ?? null };
  });
  await context.close();
  return { n, firstRowMs, keyMs, longestTaskMs: tasks[0] ?? null, heapBytes };
}

/** The Chromium part: forward times against ORT-web (when o.ort) and the page at 128 tokens, on the base checkpoint and on bert-mini. */
async function inChromium(o, base, text, miniText, log) {
  const onnxFile = path.join(o.dir, 'base-f32.onnx');
  if (o.ort && !existsSync(onnxFile)) writeFileSync(onnxFile, bertEncoderOnnx(base.config, base.tensors));
  const server = await serve({ '/ort/': path.join(root, 'node_modules/onnxruntime-web/dist'), '/scale/': o.dir });
  const address = `http://127.0.0.1:${server.address().port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu',
    '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-renderer-backgrounding', '--js-flags=--no-liftoff'] });
  try {
    const weights = `/scale/${path.basename(base.weightsFile)}`;
    log(`Chromium ${browser.version()}`);
    const forward = o.ort ? await chromiumForward(browser, address, { weights, onnx: '/scale/base-f32.onnx', lengths: o.lengths, rounds: o.rounds }, log) : null;
    const pages = {};
    for (const [name, file, sentence] of [['bert-mini', '/web/dist/bert-mini.int8.bin', miniText], ['base', weights, text]]) {
      pages[name] = await pageTyping(browser, address, file, sentence);
      log(`chromium page (${name}): ${JSON.stringify(pages[name])}`);
    }
    return { forward, pages };
  } finally {
    await browser.close();
    server.close();
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const log = (line) => console.log(line);
  log(load());
  const base = baseCheckpoint(o.dir);
  const bytes = readFileSync(base.weightsFile);
  log(`base-size checkpoint: ${base.weightsFile.replace(root, '')} ${(bytes.length / 1e6).toFixed(1)} MB int8` +
    (base.convertMs === null ? ' (reused)' : `, converted in ${(base.convertMs / 1000).toFixed(1)} s`));
  const wasm = readFileSync(path.join(root, 'web/dist/attn.wasm'));
  const engine = await createEngine({ wasm, weights: bytes });
  const mini = await createEngine({ wasm, weights: readFileSync(path.join(root, 'web/dist/bert-mini.int8.bin')) });
  const engines = [oursAt(engine, 'ours (base)'), oursAt(mini, 'ours (bert-mini)')];
  if (o.ort) {
    const ort = await import('onnxruntime-web');
    ort.env.wasm.numThreads = 1;
    ort.env.logLevel = 'error';
    const model = bertEncoderOnnx(base.config, base.tensors);
    const session = await ort.InferenceSession.create(model, { executionProviders: ['wasm'] });
    engines.push(ortAt(ort, session));
    log(`onnxruntime-web ${ort.env.versions.web} f32 (wasm, numThreads = 1, SIMD), model ${(model.length / 1e6).toFixed(0)} MB`);
  }
  const results = await timeEngines(engines, o.lengths, o.rounds, log);
  const summary = [];
  for (const n of o.lengths) {
    const [ours, miniRun, ort] = results[n];
    const perToken = (e) => e.ms / n;
    let line = `scale n=${n}: base ${ours.ms.toFixed(1)} ms (${perToken(ours).toFixed(2)} ms/token), ` +
      `×${median(miniRun.ratios.map((r) => 1 / r)).toFixed(1)} bert-mini's cost per token`;
    if (ort) line += `, ORT-web f32 ${ort.ms.toFixed(1)} ms: ours ×${median(ort.ratios).toFixed(2)} faster`;
    summary.push(line);
  }
  const session = engine.createSession();
  session.runIds(lcgIds(512).map((v, i) => (i === 0 ? 2 : i === 511 ? 3 : v)));
  const memory = `wasm memory (base, after a 512-token run): heap ${(engine.heapBytes() / MB).toFixed(0)} MB, ` +
    `in use ${(engine.x.attn_memory_in_use() / MB).toFixed(1)} MB (weights ${(bytes.length / MB).toFixed(1)} MB)`;
  let cli = null;
  if (o.cli) cli = timeCli(base.weightsFile, textOfPieces(engine, 126), Math.max(3, Math.min(o.rounds, 5)), log);
  const browser = o.chromium ? await inChromium(o, base, textOfPieces(engine, 126), textOfPieces(mini, 126), log) : null;
  log('');
  for (const line of summary) log(line);
  log(memory);
  log(load());
  if (browser?.forward) {
    for (const n of o.lengths) {
      const r = browser.forward.lengths[n];
      log(`scale chromium n=${n}: base ${r.ours.toFixed(1)} ms (${(r.ours / n).toFixed(2)} ms/token), ORT-web f32 ${r.ort.toFixed(1)} ms: ours ×${r.ratio.toFixed(2)} faster`);
    }
    log(`wasm memory in Chromium (base, after the longest run): heap ${(browser.forward.heapBytes / MB).toFixed(0)} MB, in use ${(browser.forward.inUse / MB).toFixed(1)} MB; onnxruntime-web ${browser.forward.version}`);
  }
  for (const [name, r] of Object.entries(browser?.pages ?? {})) {
    log(`page (chromium, ${name}, n = ${r.n}): first_row_ms=${Math.round(r.firstRowMs)} keystroke_ms=${r.keyMs.map((t) => t.toFixed(0)).join('/')} ` +
      `longest_task_ms=${r.longestTaskMs?.toFixed(1)} heap_mb=${r.heapBytes === null ? '?' : (r.heapBytes / MB).toFixed(0)}`);
  }
  if (cli) log(`cli: tokens=${cli.tokens} simd_cpu_s=${cli.simd.cpu.toFixed(2)} simd_wall_s=${cli.simd.wall.toFixed(2)} ` +
    `scalar_cpu_s=${cli.scalar.cpu.toFixed(2)} info_cpu_s=${cli.info.cpu.toFixed(2)} identical=${cli.identical}`);
}

await main();
