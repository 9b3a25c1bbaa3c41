// Our wasm engine against onnxruntime-web (wasm backend, 1 thread, SIMD) in Node, measured as a
// skeptic would (bench/README.md): every engine warmed up until its time is stable, V8's
// optimising tier only (--no-liftoff), a new random engine order every round, the ratio of
// each round's times, blocks in fresh processes, and the median ratio with its 95% bootstrap
// interval over blocks.
//
//   node bench/bench.mjs [--lengths 8,16,...] [--rounds N] [--blocks N] [--seed N] [--markdown]
//        [--weights FILE] [--wasm FILE] [--fixtures PREFIX] [--errors N] [--peers DIR]
//        [--peak FILE] [--no-ort] [--aa] [--liftoff] [--out FILE]
//
// Ends with two lines:
//   speedup: ort_f32_n16=<x> ort_f32_n16_lo=<x> ort_f32_n128=… ort_int8_n16=… … peak_fraction_n128=<x>
//   goals: …
// (> 1 means we are faster). The result also goes to bench/out/node.json.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { createEngine } from '../web/src/engine.mjs';
import { benchBlock, combineBlocks, DEFAULT_BLOCKS, FIXTURE_SETS, loadPeak, oursEngine, pickFixtures } from './measure.mjs';
import { runBlocksInChildren } from './blocks.mjs';
import { agreementLine, goalsLine, speedupLine, tables } from './report.mjs';

export { lcgIds as benchIds, forwardFlops } from './measure.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const rel = (p) => p.replace(root, '');

export const USAGE = 'usage: node bench/bench.mjs [--lengths 8,16,...] [--rounds N] [--blocks N] [--seed N] [--markdown] ' +
  '[--weights FILE] [--wasm FILE] [--fixtures PREFIX] [--errors N] [--peers DIR] [--peak FILE] [--no-ort] [--aa] ' +
  '[--liftoff] [--out FILE]';

export function parseArgs(argv) {
  const o = {
    lengths: [8, 16, 32, 64, 128, 256, 512], rounds: null, blocks: DEFAULT_BLOCKS, seed: Date.now() % 1e9, markdown: false,
    wasm: `${root}web/dist/attn.wasm`, weights: `${root}web/dist/bert-mini.int8.bin`, fixtures: null,
    errors: Infinity, peers: `${root}../shared/peers/`, peak: `${root}build/peak.wasm`, ort: true,
    aa: false, liftoff: false, out: `${root}bench/out/node.json`, block: null, blockOut: null,
  };
  const fail = (m) => { throw new Error(`bench: ${m}\n${USAGE}`); };
  const count = (a, v, min) => {
    const x = Number(v);
    if (!Number.isInteger(x) || x < min) fail(`${a} needs an integer ≥ ${min}, got ${v}`);
    return x;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => (i + 1 < argv.length ? argv[++i] : fail(`${a} needs a value`));
    if (a === '--lengths') {
      o.lengths = v().split(',').map((x) => count(a, x, 2));
      if (o.lengths.some((n) => n > 512)) fail('--lengths: at most 512 tokens');
    } else if (a === '--rounds') o.rounds = count(a, v(), 3);
    else if (a === '--blocks') o.blocks = count(a, v(), 2);
    else if (a === '--block') o.block = count(a, v(), 0);  // internal: run one block in this process
    else if (a === '--block-out') o.blockOut = v();
    else if (a === '--seed') o.seed = count(a, v(), 0);
    else if (a === '--errors') o.errors = count(a, v(), 0);
    else if (a === '--markdown') o.markdown = true;
    else if (a === '--no-ort') o.ort = false;
    else if (a === '--aa') o.aa = true;
    else if (a === '--liftoff') o.liftoff = true;
    else if (a === '--wasm') o.wasm = v();
    else if (a === '--weights') o.weights = v();
    else if (a === '--fixtures') o.fixtures = v();
    else if (a === '--peers') o.peers = v().replace(/\/?$/, '/');
    else if (a === '--peak') o.peak = v();
    else if (a === '--out') o.out = v();
    else fail(`unknown argument ${a}`);
  }
  return o;
}

export function loadFixture(prefix, model) {
  const path = prefix.startsWith('/') ? prefix : `${root}${prefix}`;
  const { sentences } = JSON.parse(readFileSync(`${path}.json`, 'utf8'));
  const raw = existsSync(`${path}.f32`) ? readFileSync(`${path}.f32`) : gunzipSync(readFileSync(`${path}.f32.gz`));
  const floats = new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
  return { model: model ?? rel(path), sentences, floats };
}

async function loadOrt(opts) {
  const files = { f32: `${opts.peers}bert-mini-f32.onnx`, int8: `${opts.peers}bert-mini-int8-dyn.onnx` };
  if (!opts.ort) return { sessions: {}, note: 'ORT skipped (--no-ort)' };
  const missing = Object.values(files).filter((f) => !existsSync(f));
  if (missing.length) return { sessions: {}, note: `peer files missing: ${missing.join(', ')} — ours only` };
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = 1;
  ort.env.logLevel = 'error';
  const sessions = {};
  for (const [name, file] of Object.entries(files))
    sessions[name] = await ort.InferenceSession.create(readFileSync(file), { executionProviders: ['wasm'] });
  return { ort, sessions, note: `onnxruntime-web ${ort.env.versions.web} (wasm, numThreads = 1, SIMD)` };
}

export const loadLine = () => {
  const load = loadavg(), cores = cpus().length;
  const warning = load[0] > 1 ? ` — WARNING: load above 1: other processes share these ${cores} cores, so times and intervals widen` : '';
  return `load average ${load.map((x) => x.toFixed(2)).join(' ')} (1, 5, 15 min; ${cores} cores)${warning}`;
};

/** One block in this process (a child of main): engines started here, errors measured if
 * asked, raw times written to opts.blockOut as JSON. */
async function runOneBlock(opts) {
  const log = (line) => console.log(line);
  const engine = await createEngine({ wasm: readFileSync(opts.wasm), weights: readFileSync(opts.weights) });
  const { ort, sessions, note } = await loadOrt(opts);
  const peak = existsSync(opts.peak) ? await loadPeak(readFileSync(opts.peak)) : null;
  const sets = FIXTURE_SETS.map((s) => loadFixture(s.prefix, s.model));
  const ours = oursEngine(engine);
  const fixtures = await pickFixtures(ours, sets, opts.fixtures ? loadFixture(opts.fixtures) : null);
  const notes = [`peer: ${note}`, fixtures.note];
  if (!peak) notes.push(`peak: ${opts.peak} missing (make bench builds it) — no peak fraction`);
  const out = await benchBlock({ engine, ours, ort, sessions, fixtures, peak, notes, options: opts, log });
  writeFileSync(opts.blockOut, JSON.stringify(out));
}

/** Each block in a fresh Node process (this script with --block), one after another. */
function runBlocks(opts) {
  // The attention errors are measured in the first block only.
  const errors = (block) => (block === 0 ? (Number.isFinite(opts.errors) ? opts.errors : 1e9) : 0);
  return runBlocksInChildren(import.meta.url, opts.blocks, 'bench', (block) => ['--errors', String(errors(block))]);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!opts.liftoff && !process.execArgv.includes('--no-liftoff')) {
    // V8's baseline tier (Liftoff) makes early runs of a large wasm module slow for an unknown
    // number of runs; without it every function is compiled by the optimising tier up front.
    const child = spawnSync(process.execPath, ['--no-liftoff', ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
    process.exit(child.status ?? 1);
  }
  if (opts.block !== null) {
    if (!opts.blockOut) throw new Error('bench: --block needs --block-out FILE');
    return runOneBlock(opts);
  }
  const log = (line) => console.log(line);
  log(`machine: ${cpus()[0]?.model ?? '?'} × ${cpus().length}, node ${process.version} ${process.execArgv.join(' ') || '(default tiers)'}`);
  log(`start: ${loadLine()}`);
  log(`ours: ${rel(opts.wasm)} (${readFileSync(opts.wasm).length} bytes), ${rel(opts.weights)} (${readFileSync(opts.weights).length} bytes)`);
  log(`timing: ${opts.liftoff ? 'default tiers (Liftoff, then TurboFan)' : 'TurboFan only (--no-liftoff)'}; ${opts.blocks} blocks, ` +
    'each a new Node process; in a block, each length: warm-up until every engine\'s median of 7 runs is within 3% of the 7 before, ' +
    'then rounds in a new random order each, ratio = peer / ours per round; ' +
    `${opts.rounds ?? 'n ≤ 32: 201, n ≤ 128: 101, else 61'} rounds over the blocks; seed ${opts.seed}; ids: fixture sentences' pieces`);
  const outs = runBlocks(opts);
  const result = combineBlocks({ engines: outs[0].engines, blocks: outs.map((o) => o.block), errors: outs[0].errors, seed: opts.seed });
  log(`end: ${loadLine()}`);

  const saved0 = existsSync(opts.out) ? JSON.parse(readFileSync(opts.out, 'utf8')) : null;
  const previous = saved0?.weights === rel(opts.weights) ? saved0 : null;  // same weights only
  const agreement = agreementLine(result, previous);
  const saved = { date: new Date().toISOString(), environment: `Node ${process.version}`, machine: cpus()[0]?.model,
    load: loadavg(), weights: rel(opts.weights), agreement, ...result };
  mkdirSync(path.dirname(path.resolve(opts.out)), { recursive: true });
  writeFileSync(opts.out, JSON.stringify(saved, null, 1));

  log('');
  log(tables(result, { markdown: opts.markdown }));
  log('');
  log(`Ratios are medians of per-round ratios [95% bootstrap interval over ${result.blocks} blocks and their rounds]; ` +
    `attention error over ${result.errors.ours?.sentences ?? 0} fixture sentences.`);
  log(agreement);
  log(goalsLine(result));
  log(speedupLine(result));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    await main();
  } catch (error) {
    console.error(error.message);
    process.exit(2);
  }
}
