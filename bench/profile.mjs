// Where our engine's time goes at one length: V8's sampling profiler over `runs` forward
// passes, self time summed per wasm function. Needs a build that keeps function names:
//
//   EXPORTS=$(grep -oE '\battn_[a-z_]+\(' c/attn.h | tr -d '(' | sort -u | sed 's/^/_/' | paste -sd, -)
//   emcc -O3 -msimd128 -std=c11 c/attn.c c/forward.c c/kernels.c c/analysis.c c/tokenizer.c \
//     c/unicode_tables.c c/weights.c -o build/attn.prof.wasm --profiling-funcs --no-entry \
//     -sSTANDALONE_WASM -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=16MB -sMAXIMUM_MEMORY=256MB \
//     -sTOTAL_STACK=1MB -sEXPORTED_FUNCTIONS="$EXPORTS" -sFILESYSTEM=0
//   node --no-liftoff bench/profile.mjs build/attn.prof.wasm WEIGHTS N RUNS
import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createEngine } from '../web/src/engine.mjs';
import { timingIds } from './measure.mjs';

const [wasm, weights, n = '16', runs = '300'] = process.argv.slice(2);
if (!wasm || !weights) {
  console.error('usage: node --no-liftoff bench/profile.mjs BUILD.wasm WEIGHTS.bin [N] [RUNS]');
  process.exit(2);
}
const engine = await createEngine({ wasm: readFileSync(wasm), weights: readFileSync(weights) });
const session = engine.createSession();
const { sentences } = JSON.parse(readFileSync(new URL('../tests/fixtures/attention.json', import.meta.url), 'utf8'));
const ids = timingIds(sentences, Number(n));
for (let i = 0; i < 30; i++) session.runIds(ids);

const inspector = new Session();
inspector.connect();
await inspector.post('Profiler.enable');
await inspector.post('Profiler.setSamplingInterval', { interval: 100 });
await inspector.post('Profiler.start');
const start = performance.now();
for (let i = 0; i < Number(runs); i++) session.runIds(ids);
const ms = (performance.now() - start) / Number(runs);
const { profile } = await inspector.post('Profiler.stop');

const hits = new Map(profile.nodes.map((node) => [node.id, 0]));
for (const id of profile.samples) hits.set(id, hits.get(id) + 1);
const self = new Map();
for (const node of profile.nodes) {
  const name = node.callFrame.functionName || `(${node.callFrame.url || 'anonymous'})`;
  self.set(name, (self.get(name) ?? 0) + hits.get(node.id));
}
const total = profile.samples.length;
console.log(`n=${n}: ${ms.toFixed(3)} ms per run, ${total} samples`);
for (const [name, count] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 14))
  console.log(`${((100 * count) / total).toFixed(1).padStart(5)}%  ${name}`);
