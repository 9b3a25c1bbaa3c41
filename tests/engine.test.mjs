// The wasm engine through its JavaScript API: row sums, ratio to uniform, truncation,
// empty input, the analysis readings' own consistency, and weights the loader must refuse.
// The analyses' values against an independent float64 computation: tests/analysis.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createEngine, EngineError } from '../web/src/engine.mjs';
import { defaultWasm, defaultWeights } from './lib/node-engine.mjs';

const wasm = readFileSync(defaultWasm);
const weights = readFileSync(defaultWeights);
const engine = await createEngine({ wasm, weights });
const { layers, heads, maxPositions } = engine.shape;
const SENTENCE = 'The animal didn\'t cross the street because it was too tired.';

function everyRow(session, fn) {
  for (let l = 0; l < layers; l++) for (let h = 0; h < heads; h++) for (let i = 0; i < session.n; i++) fn(l, h, i);
}

test('every attention row sums to 1 within 1e-6', () => {
  const session = engine.createSession();
  for (const text of [SENTENCE, 'a', '', 'Hello, world!']) {
    session.runText(text);
    everyRow(session, (l, h, i) => {
      const row = session.row(l, h, i);
      const sum = row.reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(sum - 1) <= 1e-6, `layer ${l} head ${h} row ${i}: sum ${sum}`);
      assert.ok(row.every((p) => p >= 0 && p <= 1));
    });
  }
  session.destroy();
});

test('ratio to uniform is max × n, and the other row readings agree with the row', () => {
  const session = engine.createSession();
  const { n } = session.runText(SENTENCE);
  everyRow(session, (l, h, i) => {
    const row = session.row(l, h, i);
    const stats = session.rowStats(l, h, i);
    const max = Math.max(...row);
    assert.ok(Math.abs(stats.max - max) < 1e-9);
    assert.ok(Math.abs(stats.ratio - max * n) < 1e-6);
    assert.equal(row[stats.argmax], max);
    const entropy = -row.reduce((a, p) => a + (p > 0 ? p * Math.log(p) : 0), 0);
    assert.ok(Math.abs(stats.entropy - entropy) < 1e-5);
    assert.ok(Math.abs(stats.effective - Math.exp(entropy)) < 1e-4);
    assert.ok(stats.ratio >= 1 - 1e-6 && stats.ratio <= n + 1e-6);
  });
  session.destroy();
});

test('empty input gives [CLS] [SEP] and a run of n = 2', () => {
  const session = engine.createSession();
  const run = session.runText('');
  assert.equal(run.n, 2);
  assert.deepEqual(run.tokens, ['[CLS]', '[SEP]']);
  assert.equal(run.truncated, false);
  assert.equal(session.attention().length, layers * heads * 4);
  session.destroy();
});

test('long input is truncated to 512 tokens, [SEP] last, and the caller is told', () => {
  const session = engine.createSession();
  const text = 'word '.repeat(600);
  const run = session.runText(text);
  assert.equal(run.n, maxPositions);
  assert.equal(run.truncated, true);
  assert.equal(run.fullLength, 602);
  assert.equal(run.tokens.at(-1), '[SEP]');
  assert.equal(run.tokens[0], '[CLS]');
  const row = session.row(layers - 1, heads - 1, maxPositions - 1);
  assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) <= 1e-6);
  session.destroy();
});

test('rollout rows sum to 1 and equal the product of the mixed layers', () => {
  const session = engine.createSession();
  const { n } = session.runText('The cat sat on the mat.');
  const attention = session.attention();
  const mixed = (l) => Array.from({ length: n }, (_, i) => {
    const row = Array.from({ length: n }, (_, j) => {
      let mean = 0;
      for (let h = 0; h < heads; h++) mean += attention[((l * heads + h) * n + i) * n + j];
      return 0.5 * mean / heads + (i === j ? 0.5 : 0);
    });
    const total = row.reduce((a, b) => a + b, 0);
    return row.map((v) => v / total);
  });
  let expected = mixed(0);
  for (let l = 1; l < layers; l++) {
    const m = mixed(l);
    expected = m.map((row) => expected[0].map((_, j) => row.reduce((a, v, k) => a + v * expected[k][j], 0)));
  }
  const rollout = session.rollout();
  for (let i = 0; i < n; i++) {
    let sum = 0;
    for (let j = 0; j < n; j++) {
      sum += rollout[i * n + j];
      assert.ok(Math.abs(rollout[i * n + j] - expected[i][j]) < 1e-5);
    }
    assert.ok(Math.abs(sum - 1) < 1e-5);
  }
  session.destroy();
});

test('the √d what-if: dividing gives the model row, not dividing saturates it', () => {
  const session = engine.createSession();
  session.runText(SENTENCE);
  for (let l = 0; l < layers; l++) for (let h = 0; h < heads; h++) {
    const model = session.row(l, h, 3);
    const divided = session.rowScaled(l, h, 3, true);
    divided.forEach((p, j) => assert.ok(Math.abs(p - model[j]) < 1e-6));
    const undivided = session.rowScaled(l, h, 3, false);
    assert.ok(Math.max(...undivided) >= Math.max(...model) - 1e-6, 'no division sharpens the softmax');
  }
  session.destroy();
});

test('inside a layer: LayerNorm output has mean ≈ β̄ and the residual adds the layer input', () => {
  const session = engine.createSession();
  session.runText(SENTENCE);
  const hidden = engine.shape.hidden;
  const input = session.hidden(0);
  const steps = session.walkthrough(0, 2);
  for (let i = 0; i < hidden; i++) {
    assert.ok(Math.abs(steps.residual[i] - (steps.projected[i] + input[2 * hidden + i])) < 1e-5);
  }
  const mean = steps.normed.reduce((a, b) => a + b, 0) / hidden;
  assert.ok(Math.abs(mean) < 0.1, `mean ${mean}`);
  session.destroy();
});

test('contributions are α_ij · ‖f(x_j)‖, with ‖f(x_j)‖ the same whichever row reads it', () => {
  const session = engine.createSession();
  const { n } = session.runText(SENTENCE);
  const [l, h] = [1, 2];
  const norms = (row) => {
    const alpha = session.row(l, h, row);
    return Array.from(session.contributions(l, h, row), (c, j) => c / alpha[j]);
  };
  const fromRow4 = norms(4), fromRow7 = norms(7);
  assert.equal(fromRow4.length, n);
  for (let j = 0; j < n; j++) {
    assert.ok(fromRow4[j] > 0 && Number.isFinite(fromRow4[j]));
    assert.ok(Math.abs(fromRow4[j] - fromRow7[j]) <= 1e-4 * fromRow4[j], `token ${j}`);
  }
  session.destroy();
});

test('head roles come back as names, with the mass on each token kind', () => {
  const session = engine.createSession();
  session.runText(SENTENCE);
  for (let l = 0; l < layers; l++) for (let h = 0; h < heads; h++) {
    const { roles, mass } = session.headRoles(l, h);
    assert.ok(Array.isArray(roles));
    const total = mass.word + mass.cls + mass.sep + mass.punctuation;
    assert.ok(Math.abs(total - 1) < 1e-5, `mass sums to ${total}`);
  }
  session.destroy();
});

test('[MASK] predictions are sorted probabilities of real tokens', () => {
  const session = engine.createSession();
  const { tokens } = session.runText('The cat sat on the [MASK].');
  const top = session.mlm(tokens.indexOf('[MASK]'), 5);
  assert.equal(top.length, 5);
  for (let i = 1; i < 5; i++) assert.ok(top[i - 1].probability >= top[i].probability);
  assert.ok(top.every((t) => typeof t.token === 'string' && t.probability > 0 && t.probability < 1));
  session.destroy();
});

test('out-of-range layer, head, row and ids are refused with an error, not a crash', () => {
  const session = engine.createSession();
  assert.throws(() => session.rowStats(0, 0, 0), EngineError);  // no run yet
  session.runText('a b c');
  assert.throws(() => session.row(layers, 0, 0), EngineError);
  assert.throws(() => session.rowStats(0, heads, 0), EngineError);
  assert.throws(() => session.rowStats(0, 0, 99), EngineError);
  assert.throws(() => session.runIds([]), EngineError);
  assert.throws(() => session.runIds([2, engine.shape.vocab, 3]), EngineError);
  assert.throws(() => session.runIds(new Array(maxPositions + 1).fill(5)), EngineError);
  session.destroy();
});

test('two sessions on one engine keep their own runs', () => {
  const a = engine.createSession();
  const b = engine.createSession();
  a.runText('The cat sat on the mat.');
  const before = a.row(2, 1, 3);
  b.runText('Something else entirely, and longer than the first one.');
  assert.deepEqual(a.row(2, 1, 3), before);
  a.destroy();
  b.destroy();
});

async function refusal(bytes) {
  try {
    await createEngine({ wasm, weights: bytes });
  } catch (error) {
    assert.ok(error instanceof EngineError, `expected EngineError, got ${error}`);
    return error;
  }
  assert.fail('the engine accepted a broken weights file');
}

test('the loader refuses a truncated file, a bad magic, another version and one flipped byte', async () => {
  const truncated = await refusal(weights.subarray(0, weights.length - 1000));
  assert.match(truncated.message, /truncated|shorter|size/i);
  assert.match((await refusal(weights.subarray(0, 50))).message, /small|short|header/i);
  const badMagic = Buffer.from(weights);
  badMagic[0] ^= 0xff;
  assert.match((await refusal(badMagic)).message, /magic|not a weights file/i);
  const otherVersion = Buffer.from(weights);
  otherVersion.writeUInt32LE(99, 8);
  assert.match((await refusal(otherVersion)).message, /version/i);
  const flipped = Buffer.from(weights);
  flipped[Math.floor(weights.length / 2)] ^= 0x10;
  assert.match((await refusal(flipped)).message, /checksum|corrupt/i);
});
