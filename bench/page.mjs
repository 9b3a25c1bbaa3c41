// The browser side of bench/browser.mjs: loads our engine the way the explorer page does
// (web/src/loader.mjs: fetch, WebAssembly.compile, engine start), onnxruntime-web from the
// server's /ort/ and the peers from /peers/, then runs the same measurement as the Node bench.
import { loadEngine } from '../web/src/loader.mjs';
import { benchBlock, FIXTURE_SETS, loadPeak, oursEngine, pickFixtures } from './measure.mjs';

async function bytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

async function loadFixture(prefix, model) {
  const { sentences } = await (await fetch(`/${prefix}.json`)).json();
  const plain = await fetch(`/${prefix}.f32`);
  if (plain.ok) return { model, sentences, floats: new Float32Array(await plain.arrayBuffer()) };
  const zipped = await fetch(`/${prefix}.f32.gz`);
  if (!zipped.ok) throw new Error(`no /${prefix}.f32 or .f32.gz (HTTP ${zipped.status})`);
  const raw = await new Response(zipped.body.pipeThrough(new DecompressionStream('gzip'))).arrayBuffer();
  return { model, sentences, floats: new Float32Array(raw) };
}

async function loadOrt(useOrt) {
  if (!useOrt) return { sessions: {}, note: 'ORT skipped (--no-ort)' };
  const ort = await import('/ort/ort.wasm.min.mjs');
  ort.env.wasm.wasmPaths = '/ort/';
  ort.env.wasm.numThreads = 1;
  ort.env.logLevel = 'error';
  const sessions = {};
  for (const [name, file] of [['f32', 'bert-mini-f32.onnx'], ['int8', 'bert-mini-int8-dyn.onnx']])
    sessions[name] = await ort.InferenceSession.create(await bytes(`/peers/${file}`), { executionProviders: ['wasm'] });
  return { ort, sessions, note: `onnxruntime-web ${ort.env.versions.web} (wasm, numThreads = 1, SIMD)` };
}

/** One block of the run, called by bench/browser.mjs in a fresh page with the parsed options
 * (paths as server URLs, `block` its number); the errors are measured where options.errors > 0. */
window.benchBlock = async (options) => {
  const log = (line) => console.log(line);
  const engine = await loadEngine({ assetBase: new URL('/web/dist/', location.href).href, wasm: options.wasm, weights: options.weights });
  const { ort, sessions, note } = await loadOrt(options.ort);
  const notes = [`peer: ${note}`,
    `timer: crossOriginIsolated ${self.crossOriginIsolated} (performance.now() resolution ${self.crossOriginIsolated ? '5 µs' : '100 µs'})`];
  const peak = options.peak ? await loadPeak(await bytes(options.peak)) : null;
  const sets = await Promise.all(FIXTURE_SETS.map((s) => loadFixture(s.prefix, s.model)));
  const forced = options.fixtures ? await loadFixture(options.fixtures, options.fixtures) : null;
  const ours = oursEngine(engine);
  const fixtures = await pickFixtures(ours, sets, forced);
  notes.push(fixtures.note);
  return benchBlock({ engine, ours, ort, sessions, fixtures, peak, notes, options, log });
};
window.benchReady = true;
