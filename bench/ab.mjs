// Two (or more) builds of our engine against each other in one process, alternating run by
// run, so that a change is measured as a ratio on the same machine state (bench/README.md).
//
//   node bench/ab.mjs N RUNS A.wasm[:weights.bin] B.wasm[:weights.bin] ...
//
// Prints, per build, the median and minimum of RUNS timings of Session.runIds on N tokens
// (the ids of bench.mjs); weights default to web/dist/bert-mini.int8.bin.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../web/src/engine.mjs';
import { benchIds } from './bench.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const [n, runs] = process.argv.slice(2, 4).map(Number);
const specs = process.argv.slice(4);
if (!(n >= 1 && n <= 512 && runs >= 1 && specs.length >= 1)) {
  console.error('usage: node bench/ab.mjs N RUNS A.wasm[:weights.bin] B.wasm[:weights.bin] ...');
  process.exit(2);
}

const builds = [];
for (const spec of specs) {
  const [wasm, weights = `${root}web/dist/bert-mini.int8.bin`] = spec.split(':');
  const engine = await createEngine({ wasm: readFileSync(wasm), weights: readFileSync(weights) });
  builds.push({ spec, session: engine.createSession(), times: [] });
}
const ids = benchIds(n);
for (const b of builds) for (let i = 0; i < 10; i++) b.session.runIds(ids);  // V8 tiers up
for (let r = 0; r < runs; r++) {
  for (const b of builds) {
    const start = performance.now();
    b.session.runIds(ids);
    b.times.push(performance.now() - start);
  }
}
for (const b of builds) {
  b.times.sort((x, y) => x - y);
  console.log(`n=${n} ${b.spec}: median ${b.times[b.times.length >> 1].toFixed(3)} ms, min ${b.times[0].toFixed(3)} ms`);
}
