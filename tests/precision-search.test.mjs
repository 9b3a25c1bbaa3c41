// The precision search (weights/precision-search.mjs) on a random checkpoint off the int8 grid:
// the figure it reports is what the written file does on the calibration text (checked here by
// loading the file through createEngine, as the page does, and running the float64 reference
// separately), its prediction bounds the engine's error on sentences it never saw, it meets a
// target between all-int8 and all-int16 with a mix, and it says so when no mix can.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { convert } from '../weights/convert.mjs';
import { referenceForward, maxAttentionDelta, loadCheckpoint } from '../weights/reference.mjs';
import {
  calibrationIds, calibrationBudget, firstLayerMoved, movesAttention, PlanJudge, RankingFiles, HELD_OUT_FACTOR,
} from '../weights/precision-search.mjs';
import { parseConfig } from '../weights/convert-core.mjs';
import { CALIBRATION_SENTENCES, tokenizeAscii } from '../weights/calibration.mjs';
import { createEngine, Engine } from '../web/src/engine.mjs';
import { writeFloatCheckpoint, BERT_VOCAB } from './lib/float-checkpoints.mjs';
import { compactConfig, randomTensors } from './lib/checkpoints.mjs';
import { defaultWasm, repoRoot } from './lib/node-engine.mjs';

const skip = fs.existsSync(BERT_VOCAB) ? false : `${BERT_VOCAB} is missing (the real BERT vocabulary)`;
const tempRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-search-'));
process.on('exit', () => fs.rmSync(tempRoot, { recursive: true, force: true }));
const wasm = new WebAssembly.Module(fs.readFileSync(defaultWasm));

// Sentences the converter does not see (none of them is in weights/calibration.mjs).
const HELD_OUT = [
  'The lighthouse keeper wrote the same three words in the log every night: calm, clear, nothing.',
  'Why would anyone paint a bicycle bright orange?',
  'Heat the milk gently; if it boils, the skin that forms will ruin the custard.',
  'Our train was cancelled, so we shared a taxi with two strangers and a very patient goat.',
  'Between 1850 and 1900 the population of the valley tripled, from 4,200 to roughly 12,900.',
  '"Turn left at the bakery," she said, "then keep going until the road runs out."',
];

let checkpoint = null;
function smallCheckpoint() {
  checkpoint ??= writeFloatCheckpoint(path.join(tempRoot, 'float-2x128'), { layers: 2, hidden: 128, positions: 128, seed: 5 });
  return checkpoint;
}

const quiet = { log: () => {}, predict: true };

// The engine's attention max |Δ| on `texts` (token ids) for a weights file, against the float64
// reference on the checkpoint's own values.
async function engineDelta(bytes, model, idsList) {
  const engine = await createEngine({ wasm, weights: bytes });
  const session = engine.createSession();
  let worst = 0;
  for (const ids of idsList) {
    session.runIds(ids);
    worst = Math.max(worst, maxAttentionDelta(session.attention(), referenceForward(model, ids).attention));
  }
  session.destroy();
  engine.destroy();
  return worst;
}

test('firstLayerMoved: the embeddings move layer 0, a layer its own Q, K, V and the next its output and FFN; the rest nothing', () => {
  assert.equal(firstLayerMoved('bert.embeddings.position_embeddings.weight', 4), 0);
  for (const m of ['query', 'key', 'value']) assert.equal(firstLayerMoved(`bert.encoder.layer.2.attention.self.${m}.weight`, 4), 2, m);
  for (const m of ['attention.output.dense', 'intermediate.dense', 'output.dense']) {
    assert.equal(firstLayerMoved(`bert.encoder.layer.2.${m}.weight`, 4), 3, m);
    assert.equal(firstLayerMoved(`bert.encoder.layer.3.${m}.weight`, 4), null, m);
  }
  assert.equal(firstLayerMoved('cls.predictions.transform.dense.weight', 4), null);
});

test('movesAttention: only what acts after the last softmax is left out of the ranking', () => {
  assert.equal(movesAttention('cls.predictions.transform.dense.weight', 4), false);
  for (const m of ['attention.output.dense', 'intermediate.dense', 'output.dense']) {
    assert.equal(movesAttention(`bert.encoder.layer.3.${m}.weight`, 4), false, m);
    assert.equal(movesAttention(`bert.encoder.layer.2.${m}.weight`, 4), true, m);
  }
  for (const m of ['query', 'key', 'value']) assert.equal(movesAttention(`bert.encoder.layer.3.attention.self.${m}.weight`, 4), true, m);
  assert.equal(movesAttention('bert.embeddings.word_embeddings.weight', 4), true);
});

test("random checkpoints at a trained BERT's scales: each layer's Q, K, V, attention output and FFN-in halved, the rest as 'sharp'", () => {
  const config = compactConfig({ layers: 2, hidden: 128 });
  const sharp = randomTensors(config, 3).tensors;
  const trained = randomTensors(config, 3, { scales: 'trained' }).tensors;
  const halved = /layer\.\d+\.(attention\.self\.(query|key|value)|attention\.output\.dense|intermediate\.dense)\.weight$/;
  let count = 0;
  for (const [name, values] of sharp) {
    const share = halved.test(name) ? 0.5 : 1;
    count += share < 1;
    assert.ok(trained.get(name).every((v, i) => v === values[i] * share), `${name} × ${share}`);
  }
  assert.equal(count, 2 * 5);
  assert.throws(() => randomTensors(config, 3, { scales: 'blunt' }), /scales: expected sharp or trained/);
});

test('the calibration budget: 600 tokens of bert-mini, fewer (never under 160) on larger models, every kind of sentence', () => {
  const mini = { layers: 4, hidden: 256, ffn: 1024 };
  assert.equal(calibrationBudget(mini), 600);
  assert.equal(calibrationBudget({ layers: 12, hidden: 768, ffn: 3072 }), 160);
  const vocab = fs.existsSync(BERT_VOCAB) ? fs.readFileSync(BERT_VOCAB, 'utf8').split('\n') : null;
  if (!vocab) return;
  const ids = calibrationIds(vocab, 512, 160);
  const tokens = ids.reduce((a, x) => a + x.length, 0);
  assert.ok(tokens >= 160 && tokens < 400, `${tokens} tokens`);
  const all = CALIBRATION_SENTENCES.map((s) => tokenizeAscii(vocab, s).join(' '));
  const used = new Set(ids.map((x) => all.indexOf(x.join(' '))));
  assert.ok(!used.has(-1), 'every calibration sentence comes from calibration.mjs');
  assert.ok([...used].some((i) => i >= 20) && [...used].some((i) => i < 12), 'early and late kinds both present');
});

test('the reported calibration figure is what the written file does, and the prediction bounds held-out text', { skip }, async () => {
  const dir = smallCheckpoint();
  const int8 = convert({ ...quiet, checkpointDir: dir, precision: 'int8' });
  const int16 = convert({ ...quiet, checkpointDir: dir, precision: 'int16' });
  assert.ok(int16.calibration < int8.calibration, `int16 ${int16.calibration} < int8 ${int8.calibration}`);
  const target = HELD_OUT_FACTOR * Math.sqrt(int8.calibration * int16.calibration);
  const auto = convert({ ...quiet, checkpointDir: dir, target });
  const int16Count = auto.tensors.filter((t) => t.precision === 'int16').length;
  const matrices = auto.tensors.filter((t) => t.kind === 'matrix').length;
  assert.ok(auto.reachable && auto.predicted <= target, `predicted ${auto.predicted} within ${target}`);
  assert.ok(int16Count >= 1 && int16Count < matrices, `${int16Count} of ${matrices} int16`);
  assert.equal(auto.predicted, auto.calibration * HELD_OUT_FACTOR);

  const model = loadCheckpoint(dir);
  const calibration = calibrationIds(model.vocab, model.shape.maxPositions, calibrationBudget(model.shape));
  assert.equal(await engineDelta(auto.bytes, model, calibration), auto.calibration, 'exactly the measured figure');
  const heldOut = HELD_OUT.map((s) => tokenizeAscii(model.vocab, s));
  for (const [name, result] of [['auto', auto], ['int8', int8], ['int16', int16]]) {
    const measured = await engineDelta(result.bytes, model, heldOut);
    assert.ok(measured <= result.predicted, `${name}: held-out ${measured} within the predicted ${result.predicted}`);
  }
});

test('a target no choice reaches: every candidate int16 and a plain warning with the closest figure', { skip }, () => {
  const dir = smallCheckpoint();
  const out = path.join(tempRoot, 'unreachable.bin');
  const run = spawnSync('node', [path.join(repoRoot, 'weights/convert.mjs'), dir, out, '--target', '1e-7'], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /no choice of precisions reaches/);
  assert.match(run.stderr, /WARNING: over the target 1e-7: no choice of precisions reaches it/);
  assert.doesNotMatch(run.stderr, /within the target/);
  assert.doesNotMatch(run.stderr, /^ranking /m, 'no ranking when even all-int16 misses');
});

// The converter's files of `dir` with every matrix int16 but those whose name holds one of `int8`.
function fileWithInt8(dir, int8) {
  return convert({ ...quiet, predict: false, checkpointDir: dir, precision: 'int16', precisionFor: int8.map((substring) => ({ substring, precision: 'int8' })) }).bytes;
}

function rankingSetup(dir) {
  const shape = parseConfig(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')).shape;
  const vocabLines = fs.readFileSync(path.join(dir, 'vocab.txt'), 'utf8').split('\n').slice(0, shape.vocab);
  const model = loadCheckpoint(dir);
  const idsList = calibrationIds(vocabLines, shape.maxPositions, 60);
  const files = { int8: fileWithInt8(dir, ['weight']), int16: fileWithInt8(dir, []) };
  const references = idsList.map((ids) => referenceForward(model, ids).attention);
  const judge = new PlanJudge({ Engine, wasm }, idsList, references);
  const inputs = [];
  judge.measure(files.int16, { keep: (session) => inputs.push(Array.from({ length: shape.layers }, (_, l) => session.hidden(l))) });
  return { shape, vocabLines, idsList, ranking: new RankingFiles(shape, vocabLines, files, idsList, inputs), judge };
}

test('a ranking file: the first layers of the whole file and the sentences\' rows; the engine\'s attention there is the whole file\'s, bit for bit', { skip }, async () => {
  const dir = path.dirname(BERT_VOCAB);  // bert-mini-mlm: rows with scales of their own
  const { shape, vocabLines, idsList, ranking } = rankingSetup(dir);
  const int8 = ['layer.0.attention.self.query', 'layer.0.intermediate', 'word_embeddings'];
  const precisionOf = (name) => (int8.some((s) => name.includes(s)) ? 'int8' : 'int16');
  const wholeBytes = fileWithInt8(dir, int8);
  const whole = await createEngine({ wasm, weights: wholeBytes });
  const bytes = ranking.file(precisionOf, 1);
  assert.ok(bytes.length < wholeBytes.length / 5, `${bytes.length} bytes, the whole file ${wholeBytes.length}`);
  const part = await createEngine({ wasm, weights: bytes });
  assert.equal(part.shape.layers, 1);
  const specials = ['[CLS]', '[SEP]', '[MASK]', '[PAD]', '[UNK]'].map((token) => vocabLines.indexOf(token));
  assert.equal(part.shape.vocab, new Set([...idsList.flat(), ...specials]).size, 'the tokens and the special tokens');
  const [wholeSession, partSession] = [whole.createSession(), part.createSession()];
  idsList.forEach((ids, i) => {
    wholeSession.runIds(ids);
    partSession.runIds(ranking.idsList[i]);
    const size = shape.heads * ids.length ** 2;
    assert.deepEqual(partSession.attention(), wholeSession.attention().subarray(0, size), `sentence ${i}`);
  });
  for (const e of [whole, part]) e.destroy();
});

test('one run ranks every query (and every key): a query matrix at int8 moves its own layer\'s attention, hardly any later one', { skip }, () => {
  const dir = path.join(tempRoot, 'trained-4x128');
  writeFloatCheckpoint(dir, { layers: 4, hidden: 128, positions: 128, seed: 7, scales: 'trained' });
  const { shape, ranking, judge } = rankingSetup(dir);
  for (const kind of ['query', 'key']) {
    const names = Array.from({ length: shape.layers }, (_, l) => `bert.encoder.layer.${l}.attention.self.${kind}.weight`);
    const file = (int8) => ranking.file((name) => (int8.includes(name) ? 'int8' : 'int16'), shape.layers);
    const together = judge.layerDeltas(file(names), ranking.idsList);
    const none = judge.layerDeltas(file([]), ranking.idsList);
    names.forEach((name, layer) => {
      const alone = judge.layerDeltas(file([name]), ranking.idsList);
      assert.ok(alone[layer] > 2 * none[layer], `${name}: ${alone[layer]} moves its layer (${none[layer]} with none int8)`);
      for (let later = layer + 1; later < shape.layers; later++) {
        assert.ok(alone[later] < alone[layer] / 2, `${name}: layer ${later} ${alone[later]}, its own ${alone[layer]}`);
      }
      const ratio = together[layer] / alone[layer];
      assert.ok(ratio > 0.8 && ratio < 1.25, `${name}: ${together[layer]} with every ${kind} int8, ${alone[layer]} alone`);
    });
  }
});

test('a resumed ranking file: from a layer\'s stored input, the whole file\'s attention within an activation step, and the same figures for what moves it', { skip }, async () => {
  const dir = path.dirname(BERT_VOCAB);
  const { shape, idsList, ranking, judge } = rankingSetup(dir);
  const candidates = [['bert.encoder.layer.1.intermediate.dense.weight', 1], ['bert.encoder.layer.2.output.dense.weight', 2],
    ['bert.encoder.layer.2.attention.self.value.weight', 2]];
  let compared = 0;
  for (const [name, layer] of candidates) {
    const precisionOf = (n) => (n === name ? 'int8' : 'int16');
    const layers = shape.layers - layer;
    const whole = await createEngine({ wasm, weights: ranking.file(precisionOf, shape.layers) });
    const resumed = await createEngine({ wasm, weights: ranking.resumed(precisionOf, layer, layers) });
    assert.equal(resumed.shape.layers, layers);
    const [a, b] = [whole.createSession(), resumed.createSession()];
    let apart = 0;
    idsList.forEach((ids, i) => {
      a.runIds(ranking.idsList[i]);
      b.runIds(ranking.resumedIds[i]);
      const size = shape.heads * ids.length ** 2;
      apart = Math.max(apart, maxAttentionDelta(b.attention(), a.attention().subarray(layer * size)));
    });
    for (const e of [whole, resumed]) e.destroy();
    assert.ok(apart > 0 && apart < 1.5e-4, `${name}: ${apart} from the whole file's attention`);
    const fromStart = judge.layerDeltas(ranking.file(precisionOf, shape.layers), ranking.idsList).subarray(layer);
    const fromInput = judge.layerDeltas(ranking.resumed(precisionOf, layer, layers), ranking.resumedIds, layer);
    const [x, y] = [Math.max(...fromStart), Math.max(...fromInput)];
    if (x < 5e-4) continue;  // near what every matrix int16 does: the step apart decides
    compared++;
    assert.ok(Math.abs(x - y) < 0.1 * x, `${name}: ${y} resumed, ${x} from the start`);
  }
  assert.equal(compared, 2, 'the FFN matrices move attention well above the engine\'s own rounding');
  const gamma = ranking.tables.int16.get('bert.encoder.layer.0.output.LayerNorm.weight').data;
  assert.ok(ranking.resumes(1) && !ranking.resumes(0), 'from layer 1 on');
  const kept = gamma[3];
  gamma[3] = 0;
  assert.equal(ranking.resumes(1), false, 'a LayerNorm scale of 0 cannot be divided out');
  gamma[3] = kept;
});
