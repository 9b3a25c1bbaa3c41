// The mean importance computed in workers (web/src/importance-workers.mjs): the runs of targets
// they take in turn and how many workers; a share (Session.importanceSteps with first and count,
// importance-run.mjs's importanceShare, what each worker runs) gives its targets bit for bit as
// the whole computation does, with heads switched off and without, for a pair of texts too; an
// error of the engine comes back as its code. The workers themselves run in the browser suite
// (testImportanceInWorkers).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { targetRuns, workerCount } from '../web/src/importance-workers.mjs';
import { importanceShare, shareEngine } from '../web/src/importance-run.mjs';
import { STATUS } from '../web/src/engine.mjs';
import { defaultWasm, defaultWeights, loadEngine } from './lib/node-engine.mjs';

const engine = await loadEngine();
const bits = (targets) => JSON.stringify(targets.map((t) => [t.position, t.answer.id, t.top1.id, t.logProb, [...t.heads], [...t.layers], [...t.headTop1], [...t.layerTop1]]));

function wholeMean(session) {
  const steps = session.importanceSteps();
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

test('targetRuns: consecutive runs of whole batches, every target once, shrinking towards the end, every worker one', () => {
  for (const [total, workers, perBatch] of [[1, 1, 4], [1, 4, 21], [10, 2, 21], [53, 2, 4], [54, 4, 4], [7, 7, 2], [3, 5, 9], [200, 4, 1], [60, 3, 8]]) {
    const got = targetRuns(total, workers, perBatch);
    const covered = got.flatMap(({ first, count }) => Array.from({ length: count }, (_, i) => first + i));
    const what = `${total} targets for ${workers} workers, ${perBatch} a batch: ${got.map((r) => r.count)}`;
    assert.deepEqual(covered, Array.from({ length: total }, (_, i) => i), what);
    const sizes = got.map((s) => s.count), unit = Math.min(perBatch, Math.ceil(total / workers));
    assert.ok(sizes.every((size, k) => k === 0 || size <= sizes[k - 1]), `${what}: shrinking`);
    assert.ok(sizes.slice(0, -1).every((size) => size % unit === 0), `${what}: whole batches of ${unit}`);
    assert.ok(got.length >= Math.min(total, workers), `${what}: a run for every worker`);
    if (total >= 4 * workers * unit) assert.ok(got.length >= 2 * workers, `${what}: at least two a worker`);
  }
  assert.deepEqual(targetRuns(53, 2, 4).map((r) => r.count), [16, 12, 8, 8, 4, 4, 1]);
  assert.deepEqual(targetRuns(10, 2, 21).map((r) => r.count), [5, 5]);
});

test('workerCount: the cores, at most 4, at most one a target, and the weights copied for them within 256 MB', () => {
  assert.equal(workerCount(54, 12e6, 2), 2);
  assert.equal(workerCount(54, 12e6, 16), 4);
  assert.equal(workerCount(3, 12e6, 16), 3);
  assert.equal(workerCount(54, 12e6, undefined), 2, 'unknown cores: 2');
  assert.equal(workerCount(54, 111e6, 8), 2, 'a base-size model: two copies');
  assert.equal(workerCount(54, 700e6, 8), 1, 'never fewer than one');
});

test('a share of the targets is bit for bit the whole computation\'s, with heads switched off and without, for a pair too', async () => {
  const session = engine.createSession();
  const { engine: worker } = await shareEngine({ wasm: readFileSync(defaultWasm), weights: readFileSync(defaultWeights) });  // a worker's engine, kept between shares
  const cases = [
    { run: () => session.runText('The little dog ran to the park because the sun was out.'), removed: [] },
    { run: () => session.runText('The cat sat on the [MASK] and the [MASK] sat on the dog.'), removed: [[1, 2], [3, 0]] },
    { run: () => session.runPair('Where is the cat?', 'The cat sat on the mat.'), removed: [[0, 1]] },
  ];
  for (const { run, removed } of cases) {
    session.setRemovedHeads(removed);
    run();
    const whole = wholeMean(session);
    const ids = Array.from(session.tokens().ids), typeIds = session.typeIds();
    const parts = targetRuns(whole.targets.length, 2, session.importanceBatch());
    const shared = [];
    for (const part of parts) {
      let progress = 0, last = null;
      const answer = await importanceShare(worker, { ids, typeIds, removed, ...part }, (p) => { progress++; last = p; });
      assert.ok(answer.targets, JSON.stringify(answer));
      const steps = session.importanceStepCount(part.count);  // the page's count of the run's steps, for progress
      assert.ok(progress === steps && last.done === steps && last.total === steps, `progress after each of its ${steps} steps: ${progress}, ${JSON.stringify(last)}`);
      shared.push(...answer.targets);
    }
    assert.equal(bits(shared), bits(whole.targets), `${ids.length} tokens, ${removed.length} heads off: the shares equal the whole`);
  }
  session.destroy();
  worker.destroy();
});

test('a share stops between two steps once cancelled', async () => {
  const session = engine.createSession();
  session.runText('The little dog ran to the park because the sun was out.');
  const ids = Array.from(session.tokens().ids), typeIds = session.typeIds();
  let steps = 0;
  const answer = await importanceShare(engine, { ids, typeIds, removed: [], first: 0, count: 4 }, () => steps++, () => steps >= 3);
  assert.deepEqual(answer, { cancelled: true });
  assert.equal(steps, 3, 'no step after the one that saw it cancelled');
  session.destroy();
});

test('a worker whose model its engine refuses answers with the engine\'s status, never a throw', async () => {
  const answer = await shareEngine({ wasm: readFileSync(defaultWasm), weights: readFileSync(defaultWeights).slice(0, 4096) });
  assert.ok(!answer.engine && answer.error && Number.isInteger(answer.error.code) && answer.error.code !== STATUS.OK, JSON.stringify(answer));
});
