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

test('a run waits for its rows, then equals the whole-file engine', async () => {
  const engine = await partial();
  const session = engine.createSession();
  assert.throws(() => session.runText(SENTENCE), (e) => e.code === STATUS.NOT_LOADED);
  const needed = engine.partsForIds(engine.tokenize(SENTENCE).ids);
  assert.ok(needed.length >= 1 && needed.length < engine.partCount() / 4, `${needed.length} parts`);
  for (const index of needed) engine.partArrived(index, bytesOf(engine, index));
  assert.deepEqual(engine.partsForIds(engine.tokenize(SENTENCE).ids), []);
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
  assert.equal(engine.describePart(0), `part 0 of ${engine.partCount()} (the masked-word prediction head)`);
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
