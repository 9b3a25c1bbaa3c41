// bench/onnx-bert.mjs, the ONNX peer of bench/scale.mjs, computes the same BERT as our engine:
// a small random checkpoint (2 × 128, a trained BERT's weight sizes, every weight on the int8
// grid so that the conversion is exact) through onnxruntime-web f32 and through the engine;
// the final hidden states agree within the engine's activation rounding (measured 6.4e-5).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEngine } from '../web/src/engine.mjs';
import { compactConfig, randomTensors, writeCheckpoint } from './lib/checkpoints.mjs';
import { convert } from '../weights/convert.mjs';
import { bertEncoderOnnx } from '../bench/onnx-bert.mjs';
import { defaultWasm } from './lib/node-engine.mjs';

test('bench/onnx-bert.mjs: onnxruntime-web on its model gives the engine\'s hidden states', async () => {
  const config = compactConfig({ layers: 2, hidden: 128, vocab: 1000, positions: 128 });
  const { tensors, shapes } = randomTensors(config, 5, { scales: 'trained' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'onnx-bert-'));
  try {
    writeCheckpoint(dir, { config, tensors, shapes });
    const { bytes } = convert({ checkpointDir: dir, precision: 'int8', predict: false });
    const engine = await createEngine({ wasm: fs.readFileSync(defaultWasm), weights: bytes });
    const ort = await import('onnxruntime-web');
    ort.env.wasm.numThreads = 1;
    ort.env.logLevel = 'error';
    const session = await ort.InferenceSession.create(bertEncoderOnnx(config, tensors), { executionProviders: ['wasm'] });
    const n = 20, ids = Int32Array.from({ length: n }, (_, i) => (i === 0 ? 2 : i === n - 1 ? 3 : 5 + ((i * 37) % 900)));
    const run = engine.createSession();
    run.runIds(ids);
    const ours = run.hidden();
    const t = (values) => new ort.Tensor('int64', BigInt64Array.from(values, BigInt), [1, n]);
    const out = await session.run({ input_ids: t(ids), position_ids: t(ids.map((_, i) => i)), token_type_ids: t(new Int32Array(n)) });
    const theirs = out.last_hidden_state.data;
    assert.equal(theirs.length, ours.length);
    let worst = 0;
    theirs.forEach((v, i) => { worst = Math.max(worst, Math.abs(v - ours[i])); });
    assert.ok(worst < 5e-4, `max |Δ hidden| ${worst}`);
    // A model with one layer's query weights zeroed must not agree: the comparison can fail.
    const broken = new Map(tensors);
    broken.set('bert.encoder.layer.1.attention.self.query.weight', new Float32Array(128 * 128));
    const other = await ort.InferenceSession.create(bertEncoderOnnx(config, broken), { executionProviders: ['wasm'] });
    const far = (await other.run({ input_ids: t(ids), position_ids: t(ids.map((_, i) => i)), token_type_ids: t(new Int32Array(n)) })).last_hidden_state.data;
    let gap = 0;
    far.forEach((v, i) => { gap = Math.max(gap, Math.abs(v - ours[i])); });
    assert.ok(gap > 1e-2, `a broken model agrees too well: ${gap}`);
    run.destroy();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
