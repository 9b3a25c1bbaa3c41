// The browser side of bench/scale.mjs: our engine (web/src/engine.mjs, web/dist/attn.wasm) and
// onnxruntime-web f32 (wasm, 1 thread, SIMD, from the server's /ort/) on the same base-size
// checkpoint, alternated round by round at each length, as the Node part does.
import { createEngine } from '../web/src/engine.mjs';

async function bytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

/** {version, heapBytes, lengths: {n: {ours, ort, ratio}}}: medians of `rounds` after a warm-up, ratio the median of ORT / ours per round. */
window.scaleForward = async ({ weights, onnx, inputs, rounds }) => {
  const engine = await createEngine({ wasm: await bytes('/web/dist/attn.wasm'), weights: await bytes(weights) });
  const ort = await import('/ort/ort.wasm.min.mjs');
  ort.env.wasm.wasmPaths = '/ort/';
  ort.env.wasm.numThreads = 1;
  ort.env.logLevel = 'error';
  const model = await ort.InferenceSession.create(await bytes(onnx), { executionProviders: ['wasm'] });
  const session = engine.createSession();
  const tensor = (values) => new ort.Tensor('int64', BigInt64Array.from(values, BigInt), [1, values.length]);
  const lengths = {};
  for (const ids of inputs) {
    const n = ids.length;
    const feeds = { input_ids: tensor(ids), position_ids: tensor(ids.map((_, i) => i)), token_type_ids: tensor(ids.map(() => 0)) };
    const runs = [() => session.runIds(Int32Array.from(ids)), () => model.run(feeds)];
    for (let w = 0; w < (n >= 512 ? 2 : 4); w++) for (const run of runs) await run();
    const times = [[], []];
    for (let r = 0; r < rounds; r++) {
      for (const i of r % 2 ? [1, 0] : [0, 1]) {
        const start = performance.now();
        await runs[i]();
        times[i].push(performance.now() - start);
      }
    }
    lengths[n] = { ours: median(times[0]), ort: median(times[1]), ratio: median(times[1].map((t, r) => t / times[0][r])) };
    console.log(`chromium n = ${n}: ours ${lengths[n].ours.toFixed(1)} ms, ORT-web f32 ${lengths[n].ort.toFixed(1)} ms`);
  }
  const heapBytes = engine.heapBytes(), inUse = engine.x.attn_memory_in_use();
  session.destroy();
  engine.destroy();
  return { version: ort.env.versions.web, heapBytes, inUse, lengths };
};
window.ready = true;
