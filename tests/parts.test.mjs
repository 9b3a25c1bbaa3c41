// The weights read in parts through the JavaScript API (web/src/engine.mjs over c/attn.h): an
// engine from the head alone refuses runs until their rows arrive, names a corrupted part, and
// once its parts are in gives the whole-file engine's numbers. Needs web/dist/attn.wasm.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createEngine, createPartialEngine, readWeightsHeader, STATUS } from '../web/src/engine.mjs';
import { defaultWasm, defaultWeights } from './lib/node-engine.mjs';

const wasm = readFileSync(defaultWasm);
const weights = readFileSync(defaultWeights);
const header = readWeightsHeader(weights.subarray(0, 128));
const whole = await createEngine({ wasm, weights });
const partial = () => createPartialEngine({ wasm, head: weights.subarray(0, header.headBytes), fileSize: header.fileSize });
const bytesOf = (engine, index) => {
  const { offset, bytes } = engine.partRange(index);
  return weights.subarray(offset, offset + bytes);
};
const SENTENCE = 'The cat sat on the mat.';

test('the header gives the head and file sizes', () => {
  assert.equal(header.fileSize, weights.length);
  assert.ok(header.headBytes > 128 && header.headBytes < weights.length / 2, `head ${header.headBytes} bytes`);
  assert.equal(readWeightsHeader(Buffer.from('not a weights file at all'.repeat(8))), null);
});

test('a run waits for its rows and its layers, then equals the whole-file engine', async () => {
  const engine = await partial();
  const session = engine.createSession();
  assert.throws(() => session.runText(SENTENCE), (e) => e.code === STATUS.NOT_LOADED);
  const needed = engine.partsForIds(engine.tokenize(SENTENCE).ids);
  assert.ok(needed.length >= 1 && needed.length < engine.partCount() / 4, `${needed.length} parts`);
  for (const index of needed) engine.partArrived(index, bytesOf(engine, index));
  assert.deepEqual(engine.partsForIds(engine.tokenize(SENTENCE).ids), []);
  assert.throws(() => session.runText(SENTENCE), (e) => e.code === STATUS.NOT_LOADED, 'no layer yet');
  const { layers } = engine.shape;
  assert.equal(engine.layersReady(), 0);
  assert.deepEqual(engine.partsForLayers(layers), Array.from({ length: layers }, (_, l) => l), 'a part per layer, first');
  for (const index of engine.partsForLayers(layers)) engine.partArrived(index, bytesOf(engine, index));
  assert.equal(engine.layersReady(), layers);
  const run = session.runText(SENTENCE);
  const reference = whole.createSession();
  reference.runText(SENTENCE);
  assert.deepEqual(session.attention(), reference.attention());
  const mask = session.runText('The cat sat on the [MASK].');
  assert.throws(() => session.mlm(mask.tokens.indexOf('[MASK]')), (e) => e.code === STATUS.NOT_LOADED);
  assert.equal(run.n, reference.tokens().n);
});

test('a corrupted or cut part is refused and named; the good bytes are taken after', async () => {
  const engine = await partial();
  const cat = engine.tokenize('cat').ids[1];
  const index = engine.partOfToken(cat);
  const bad = Buffer.from(bytesOf(engine, index));
  bad[100] ^= 0x01;
  const rows = /^part (\d+) of (\d+) \(word embeddings rows (\d+)–(\d+)\): weights file is corrupted: checksum mismatch$/;
  assert.throws(() => engine.partArrived(index, bad), (e) => {
    const m = rows.exec(e.message);
    return e.code === 5 && m && Number(m[1]) === index && Number(m[2]) === engine.partCount() && Number(m[3]) <= cat && Number(m[4]) >= cat;
  });
  assert.equal(engine.partReady(index), false);
  assert.throws(() => engine.partArrived(index, bytesOf(engine, index).subarray(1)), /incomplete download/);
  engine.partArrived(index, bytesOf(engine, index));
  assert.equal(engine.partReady(index), true);
  assert.equal(engine.describePart(0), `part 0 of ${engine.partCount()} (layer 1)`);
  assert.equal(engine.describePart(engine.shape.layers), `part ${engine.shape.layers} of ${engine.partCount()} (the masked-word prediction head)`);
});

test('a run in steps: layer 1 readable once its weights are in, the rest as they arrive; the whole run\'s numbers', async () => {
  const engine = await partial();
  for (const index of engine.partsForIds(engine.tokenize(SENTENCE).ids)) engine.partArrived(index, bytesOf(engine, index));
  const session = engine.createSession();
  const tokens = session.beginText(SENTENCE);
  assert.equal(tokens.n, whole.tokenize(SENTENCE).n);
  assert.deepEqual(session.step(), { layersDone: 0, complete: false, waiting: true });
  assert.throws(() => session.rowStats(0, 0, 1), (e) => e.code === STATUS.NOT_LOADED);
  const reference = whole.createSession();
  reference.runText(SENTENCE);
  const { layers } = engine.shape;
  for (let layer = 0; layer < layers; layer++) {
    for (const index of engine.layerParts(layer)) engine.partArrived(index, bytesOf(engine, index));
    let progress;
    do progress = session.step(); while (!progress.waiting && !progress.complete);
    assert.equal(progress.layersDone, layer + 1);
    assert.deepEqual(session.row(layer, 1, 2), reference.row(layer, 1, 2));
    assert.deepEqual(session.rowStats(layer, 2, 3), reference.rowStats(layer, 2, 3));
    if (layer + 1 < layers) {
      assert.throws(() => session.row(layer + 1, 0, 0), (e) => e.code === STATUS.NOT_LOADED);
      assert.throws(() => session.attention(), (e) => e.code === STATUS.NOT_LOADED);
      assert.throws(() => session.hidden(layer + 2), (e) => e.code === STATUS.NOT_LOADED);
    }
  }
  assert.ok(session.complete());
  assert.deepEqual(session.attention(), reference.attention());
  assert.deepEqual(session.hidden(), reference.hidden());
});

test('a long text in steps: many steps, the same floats as a run made whole; a newer text abandons it', async () => {
  const text = Array.from({ length: 600 }, (_, i) => ['the', 'cat', 'sat', 'on', 'a', 'mat.'][i % 6]).join(' ');
  const a = whole.createSession(), b = whole.createSession();
  a.runText(text);
  assert.equal(b.beginText(text).n, 512);
  let steps = 0, progress;
  do { progress = b.step(); steps++; } while (!progress.complete);
  assert.ok(steps > 20 * whole.shape.layers, `${steps} steps`);
  assert.deepEqual(b.attention(), a.attention());
  assert.deepEqual(b.hidden(), a.hidden());
  b.beginText(text);
  b.step();
  assert.equal(b.beginText(SENTENCE).n, whole.tokenize(SENTENCE).n);
  do progress = b.step(); while (!progress.complete);
  const short = whole.createSession();
  short.runText(SENTENCE);
  assert.deepEqual(b.attention(), short.attention());
});

test('[MASK] predictions once every part is in: the whole-file engine\'s', async () => {
  const engine = await partial();
  for (let i = engine.partCount() - 1; i >= 0; i--) engine.partArrived(i, bytesOf(engine, i));
  assert.equal(engine.partsMissing(), 0);
  const a = engine.createSession(), b = whole.createSession();
  const text = 'The capital of France is [MASK].';
  const position = a.runText(text).tokens.indexOf('[MASK]');
  b.runText(text);
  assert.deepEqual(a.mlm(position, 5), b.mlm(position, 5));
});
