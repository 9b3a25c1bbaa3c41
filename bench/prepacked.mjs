// Weights stored in the order the tile reads them (bench/prepacked.c), against the engine's
// row-major int8 weights, on the whole forward pass: both builds of bench/prepacked.c in one
// Node process, each sample a batch of bert_forward calls timed on the process's CPU time
// (≥ ~20 ms), the builds in a new random order each round; per length the median of the
// per-round ratios row-major / prepacked (> 1: the prepacked layout is faster) with a 95%
// bootstrap interval over rounds, and the largest difference of the final hidden states.
//
//   node bench/prepacked.mjs [--lengths 16,128] [--rounds 60] [--weights FILE]
//
// Also PREPACKED=2, the same layout widened to int16 (what the widening costs; twice the bytes).
// Builds build/prepacked-0.wasm, -1 and -2 with emcc first (NODE_PATH as the
// Makefile sets it).
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { blockBootstrapMedian, median, seededRandom, shuffled, timingIds } from './measure.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const o = { lengths: [16, 128], rounds: 60, weights: `${root}web/dist/bert-mini.int8.bin` };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--lengths') o.lengths = argv[++i].split(',').map(Number);
  else if (argv[i] === '--rounds') o.rounds = Number(argv[++i]);
  else if (argv[i] === '--weights') o.weights = argv[++i];
  else throw new Error(`prepacked: unknown option ${argv[i]}`);
}
if (!process.execArgv.includes('--no-liftoff')) {
  const child = spawnSync(process.execPath, ['--no-liftoff', ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(child.status ?? 1);
}

const builds = [0, 1, 2].map((packed) => {
  const out = `${root}build/prepacked-${packed}.wasm`;
  execFileSync('emcc', ['-O3', '-msimd128', '-std=c11', '-Wall', '-Wextra', '-Werror', '-Wno-unused-function', `-DPREPACKED=${packed}`,
    `-I${root}c`, `${root}bench/prepacked.c`, `${root}c/forward.c`, `${root}c/weights.c`, '-o', out, '--no-entry', '-sSTANDALONE_WASM',
    '-sALLOW_MEMORY_GROWTH=1', '-sINITIAL_MEMORY=32MB', '-sMAXIMUM_MEMORY=512MB', '-sTOTAL_STACK=1MB'],
  { env: { ...process.env, NODE_PATH: '/usr/share/nodejs' }, stdio: 'inherit' });
  return { name: ['row-major', 'prepacked', 'prepacked int16'][packed], file: out };
});

const weights = readFileSync(o.weights);
for (const b of builds) {
  const { instance } = await WebAssembly.instantiate(readFileSync(b.file), { env: { emscripten_notify_memory_growth() {} },
    wasi_snapshot_preview1: { proc_exit() {}, fd_write() { return 0; }, fd_close() { return 0; }, fd_seek() { return 0; } } });
  const x = instance.exports;
  x._initialize?.();
  const p = x.bench_alloc(weights.length);
  new Uint8Array(x.memory.buffer, p, weights.length).set(weights);
  if (!x.bench_load(p, weights.length)) throw new Error(`${b.name}: weights refused`);
  b.x = x;
  b.ids = x.bench_alloc(4 * 512);
}

const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const { sentences } = JSON.parse(readFileSync(`${root}tests/fixtures/attention.json`, 'utf8'));
const random = seededRandom(Date.now() % 1e9);
console.log(`prepacked: ${o.rounds} rounds per length, CPU time, one process; load ${loadavg().map((v) => v.toFixed(2)).join(' ')}`);
for (const n of o.lengths) {
  const ids = timingIds(sentences, n);
  for (const b of builds) new Int32Array(b.x.memory.buffer, b.ids, n).set(ids);
  const run = (b, runs) => { if (!b.x.bench_forward(b.ids, n, runs)) throw new Error(`n = ${n} refused`); };
  for (const b of builds) run(b, 20);
  const start = cpuMs();
  for (const b of builds) run(b, 5);
  const batch = Math.max(1, Math.ceil(20 / ((cpuMs() - start) / 10)));
  const times = builds.map(() => []);
  for (let r = 0; r < o.rounds; r++)
    for (const k of shuffled([0, 1, 2], random)) {
      const t = cpuMs();
      run(builds[k], batch);
      times[k].push((cpuMs() - t) / batch);
    }
  const hidden = builds.map((b) => new Float32Array(b.x.memory.buffer, b.x.bench_hidden(), n * 256).slice());
  const cells = builds.slice(1).map((b, i) => {
    const k = i + 1;
    const diff = hidden[0].reduce((m, v, j) => Math.max(m, Math.abs(v - hidden[k][j])), 0);
    const ratio = blockBootstrapMedian([times[0].map((t, r) => t / times[k][r])], random);
    return `row-major / ${b.name} = ${ratio.median.toFixed(3)} [${ratio.lo.toFixed(3)}, ${ratio.hi.toFixed(3)}] ` +
      `(${median(times[k]).toFixed(3)} ms, final hidden max |Δ| ${diff.toExponential(2)})`;
  });
  console.log(`n=${n}: row-major ${median(times[0]).toFixed(3)} ms; ${cells.join('; ')}`);
}
console.log(`end: load ${loadavg().map((v) => v.toFixed(2)).join(' ')}`);
