// Two (or more) builds of our engine against each other, measured as bench.mjs measures ours
// against ORT (bench/README.md): blocks in fresh Node processes, in each block every length
// warmed up until stable, then rounds in a new random order each; per round the ratio of the
// first build's time to each other build's (> 1: the other build is faster), and the median
// ratio with its 95% bootstrap interval over blocks and rounds.
//
//   node bench/ab.mjs [--lengths 16,128] [--rounds N] [--blocks N] [--seed N] [--clock cpu|wall]
//        A.wasm[:weights.bin] B.wasm[:weights.bin] ...
//
// --clock cpu (the default) times each sample as this process's CPU time (process.cpuUsage,
// user + system) over a batch of runs of at least ~20 ms: on a machine shared with other work
// the time spent waiting for a core is left out, which wall time (--clock wall, the time
// bench.mjs uses against ORT) counts.
// Weights default to web/dist/bert-mini.int8.bin; ids are bench.mjs's (the fixture sentences'
// pieces). Block 1 also compares every build's attention and final hidden state with the first
// build's at each length: "bit-identical", or the largest difference.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../web/src/engine.mjs';
import { runBlocksInChildren } from './blocks.mjs';
import { blockBootstrapMedian, blockSeed, median, oursEngine, seededRandom, shuffled, timeLength, timingIds } from './measure.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const USAGE = 'usage: node bench/ab.mjs [--lengths 16,128] [--rounds N] [--blocks N] [--seed N] [--clock cpu|wall] A.wasm[:weights.bin] B.wasm[:weights.bin] ...';

function parseArgs(argv) {
  const o = { lengths: [16, 128], rounds: 120, blocks: 4, seed: Date.now() % 1e9, clock: 'cpu', specs: [], block: null, blockOut: null };
  const fail = (m) => { throw new Error(`ab: ${m}\n${USAGE}`); };
  const count = (a, v, min) => {
    const x = Number(v);
    if (!Number.isInteger(x) || x < min) fail(`${a} needs an integer ≥ ${min}, got ${v}`);
    return x;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => (i + 1 < argv.length ? argv[++i] : fail(`${a} needs a value`));
    if (a === '--lengths') o.lengths = v().split(',').map((x) => count(a, x, 2));
    else if (a === '--rounds') o.rounds = count(a, v(), 3);
    else if (a === '--blocks') o.blocks = count(a, v(), 1);
    else if (a === '--seed') o.seed = count(a, v(), 0);
    else if (a === '--clock') o.clock = ['cpu', 'wall'].includes(argv[i + 1]) ? v() : fail('--clock: cpu or wall');
    else if (a === '--block') o.block = count(a, v(), 0);
    else if (a === '--block-out') o.blockOut = v();
    else if (a.startsWith('--')) fail(`unknown option ${a}`);
    else o.specs.push(a);
  }
  if (o.specs.length < 2) fail('give at least two builds');
  if (o.lengths.some((n) => n > 512)) fail('--lengths: at most 512 tokens');
  return o;
}

const sentences = () => JSON.parse(readFileSync(`${root}tests/fixtures/attention.json`, 'utf8')).sentences;

async function loadBuilds(specs) {
  const builds = [];
  for (const [i, spec] of specs.entries()) {
    const [wasm, weights = `${root}web/dist/bert-mini.int8.bin`] = spec.split(':');
    const engine = await createEngine({ wasm: readFileSync(wasm), weights: readFileSync(weights) });
    builds.push({ spec, engine, timed: oursEngine(engine, `b${i}`, spec) });
  }
  return builds;
}

/** Largest |Δ| of attention and final hidden state against the first build (0: bit-identical). */
function outputDifference(builds, ids) {
  const outputs = builds.map(({ engine }) => {
    const s = engine.createSession();
    s.runIds(ids);
    const out = [Float32Array.from(s.attention()), Float32Array.from(s.hidden())];
    s.destroy();
    return out;
  });
  return outputs.slice(1).map((o) => {
    let worst = 0, differ = 0;
    o.forEach((values, k) => values.forEach((v, i) => {
      const w = outputs[0][k][i];
      if (!Object.is(v, w)) differ++;
      worst = Math.max(worst, Math.abs(v - w));
    }));
    return { differ, worst };
  });
}

const cpuMs = () => { const { user, system } = process.cpuUsage(); return (user + system) / 1000; };

/** Rounds timed by CPU time: a batch of runs per sample (≥ ~20 ms), builds in a new random order
 * each round, after 20 runs of each build; every sample is ms per run. */
function cpuRounds(engines, ids, rounds, random) {
  for (let i = 0; i < 20; i++) for (const e of engines) e.run(ids);
  let start = cpuMs();
  for (const e of engines) e.run(ids);
  const batch = Math.max(1, Math.ceil((20 * engines.length) / Math.max(cpuMs() - start, 0.01)));
  const times = Object.fromEntries(engines.map((e) => [e.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (const e of shuffled(engines, random)) {
      start = cpuMs();
      for (let k = 0; k < batch; k++) e.run(ids);
      times[e.name].push((cpuMs() - start) / batch);
    }
  }
  const warmup = Object.fromEntries(engines.map((e) => [e.name, { runs: 20, stable: true }]));
  return { warmup, times };
}

async function runOneBlock(o) {
  const builds = await loadBuilds(o.specs);
  const random = seededRandom(blockSeed(o.seed, o.block));
  const text = sentences();
  const lengths = [];
  for (const n of o.lengths) {
    const ids = timingIds(text, n);
    const differences = o.block === 0 ? outputDifference(builds, ids) : null;
    const rounds = Math.ceil(o.rounds / o.blocks);
    const { warmup, times } = o.clock === 'wall' ? await timeLength(builds.map((b) => b.timed), ids, { rounds, random })
      : cpuRounds(builds.map((b) => b.timed), ids, rounds, random);
    lengths.push({ n, times, warmup, differences });
    console.log(`  block ${o.block + 1}/${o.blocks} n=${n}: ` + builds.map((b) => `${median(times[b.timed.name]).toFixed(3)} ms` +
      (warmup[b.timed.name].stable ? '' : ' (NOT stable)')).join(' / '));
  }
  writeFileSync(o.blockOut, JSON.stringify(lengths));
}

function runBlocks(o) {
  return runBlocksInChildren(import.meta.url, o.blocks, 'ab');
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (!process.execArgv.includes('--no-liftoff')) {
    const child = spawnSync(process.execPath, ['--no-liftoff', ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
    process.exit(child.status ?? 1);
  }
  if (o.block !== null) return runOneBlock(o);
  console.log(`ab: ${o.specs.length} builds, ${o.blocks} blocks (fresh processes), ${o.rounds} rounds per length, ${o.clock} time, seed ${o.seed}; ` +
    `load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const blocks = runBlocks(o);
  const random = seededRandom(o.seed);
  console.log(`end: load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  o.lengths.forEach((n, i) => {
    const parts = blocks.map((b) => b[i]);
    const ms = o.specs.map((_, k) => median(parts.flatMap((p) => p.times[`b${k}`])));
    console.log(`n=${n}: ${o.specs.map((s, k) => `${s} ${ms[k].toFixed(3)} ms`).join(', ')}`);
    for (let k = 1; k < o.specs.length; k++) {
      const ratios = parts.map((p) => p.times[`b${k}`].map((t, r) => p.times.b0[r] / t));
      const { median: m, lo, hi } = blockBootstrapMedian(ratios, random);
      const d = parts[0].differences[k - 1];
      const same = d.differ === 0 ? 'outputs bit-identical' : `outputs differ in ${d.differ} values, max |Δ| ${d.worst.toExponential(2)}`;
      console.log(`ab: n=${n} ${o.specs[0]} / ${o.specs[k]} = ${m.toFixed(3)} [${lo.toFixed(3)}, ${hi.toFixed(3)}] (${same})`);
    }
  });
}

try {
  await main();
} catch (error) {
  console.error(error.message);
  process.exit(2);
}
