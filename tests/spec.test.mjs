// node --test tests/spec.test.mjs
// c/spec.mjs is the one definition of the weights format and the wasm boundary: c/spec.h must be
// what tools/gen-spec.mjs gives from it, the C loader and the JavaScript readers must read every
// header field where it says, and a change made there must reach both languages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { HEADER, HEADER_FIELDS, HEADER_SIZE, STATUS, readRecord, writeField } from '../c/spec.mjs';
import { generate, SPEC_H } from '../tools/gen-spec.mjs';
import { createEngine, readWeightsHeader } from '../web/src/engine.mjs';
import { headChecksum } from '../weights/crc32.mjs';
import { rechecksum } from './lib/corrupt-weights.mjs';
import { compactConfig, randomTensors, writeCheckpoint } from './lib/checkpoints.mjs';
import { defaultWasm, defaultWeights, repoRoot } from './lib/node-engine.mjs';

test('c/spec.h is what tools/gen-spec.mjs gives from c/spec.mjs', () => {
  assert.equal(fs.readFileSync(SPEC_H, 'utf8'), generate(), 'run `node tools/gen-spec.mjs` and commit c/spec.h');
});

// Each header field given a wrong value (the file re-checksummed), and the status the C loader
// must answer for it: the loader reads that field, at the offset c/spec.mjs gives.
const WRONG = {
  magic: [(v) => v.map((b) => b ^ 0x20), 'MAGIC'],
  version: [(v) => v + 1, 'VERSION'],
  headChecksum: [(v) => (v ^ 1) >>> 0, 'CHECKSUM'],
  fileSize: [(v) => v + 16, 'TRUNCATED'],
  headerSize: [(v) => v + 1, 'VERSION'],
  tensorCount: [(v) => v + 1, 'TENSOR'],
  vocabOffset: [(v) => v + 1, 'VOCAB_TABLE'],
  vocabBytes: [(v) => v + 1, 'VOCAB_TABLE'],
  tableOffset: [(v) => v + 16, 'TENSOR'],
  tableBytes: [(v) => v + 1, 'TENSOR'],
  vocabSize: [(v) => v + 1, 'VOCAB_TABLE'],
  hidden: [(v) => v + 4, 'TENSOR'],
  layers: [(v) => v + 1, 'TENSOR'],
  heads: [(v) => v + 1, 'SHAPE'],
  ffn: [(v) => v + 1, 'TENSOR'],
  maxPositions: [(v) => v + 1, 'SHAPE'],
  typeVocab: [(v) => v + 1, 'TENSOR'],
  layerNormEps: [() => NaN, 'SHAPE'],
  headBytes: [(v) => v + 16, 'TENSOR'],
  entrySize: [(v) => v + 1, 'VERSION'],
  partCount: [(v) => v + 1, 'TENSOR'],
  partsOffset: [(v) => v + 16, 'TENSOR'],
  cardBytes: [(v) => v + 1, 'TENSOR'],
  cardOffset: [(v) => v + 1, 'TENSOR'],
};

test('every header field, perturbed alone: the JS reader sees that field change, the C loader refuses it', async () => {
  assert.deepEqual(Object.keys(WRONG).sort(), HEADER_FIELDS.map((f) => f.name).sort(), 'a case for every field');
  const good = fs.readFileSync(defaultWeights);
  const wasm = new WebAssembly.Module(fs.readFileSync(defaultWasm));
  const before = readRecord(new DataView(good.buffer, good.byteOffset, HEADER_SIZE), 0, HEADER_FIELDS);
  assert.equal(before.headChecksum, headChecksum(good, before.headBytes), 'the head checksum as c/spec.mjs defines it');
  (await createEngine({ wasm, weights: good })).destroy();
  for (const field of HEADER_FIELDS) {
    const [wrong, status] = WRONG[field.name];
    const copy = Buffer.from(good);
    const view = new DataView(copy.buffer, copy.byteOffset, copy.byteLength);
    writeField(view, 0, field, wrong(before[field.name]));
    if (field.name !== 'headChecksum') rechecksum(copy);
    const after = readRecord(view, 0, HEADER_FIELDS);
    for (const other of HEADER_FIELDS) {
      if (other.name === field.name || other.name === 'headChecksum') continue;
      assert.deepEqual(after[other.name], before[other.name], `${field.name} perturbed: ${other.name} unchanged`);
    }
    const error = await createEngine({ wasm, weights: copy }).then((e) => { e.destroy(); return null; }, (e) => e);
    assert.ok(error, `${field.name} perturbed: the C loader accepted the file`);
    assert.equal(error.code, STATUS[status], `${field.name} perturbed: status ${error.code} (${error.message}), expected ${status}`);
  }
  const header = readWeightsHeader(good);
  assert.deepEqual(header, { headBytes: before.headBytes, fileSize: before.fileSize });
});

// A copy of the sources with two header fields swapped in c/spec.mjs (layers at 76, heads at
// 72): c/spec.h regenerated, the CLI built from the copy and the copy's converter both follow.
test('a field moved in c/spec.mjs moves in the converter and in the C loader', async (t) => {
  const cc = process.env.CC || 'cc';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-spec-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const sub of ['c', 'weights', 'tools', 'web/src']) {
    fs.cpSync(path.join(repoRoot, sub), path.join(dir, sub), { recursive: true, filter: (f) => !f.endsWith('.bin') });
  }
  const specFile = path.join(dir, 'c/spec.mjs');
  const original = fs.readFileSync(specFile, 'utf8');
  const swapped = original.replace("{ name: 'layers', offset: 72", '{ name: @@, offset: 72')
    .replace("{ name: 'heads', offset: 76", "{ name: 'layers', offset: 76").replace('{ name: @@, offset: 72', "{ name: 'heads', offset: 72");
  assert.notEqual(swapped, original);
  fs.writeFileSync(specFile, swapped);
  execFileSync(process.execPath, [path.join(dir, 'tools/gen-spec.mjs')], { encoding: 'utf8' });
  assert.match(fs.readFileSync(path.join(dir, 'c/spec.h'), 'utf8'), /HEADER_HEADS += 72,/);
  const sources = fs.readdirSync(path.join(dir, 'c')).filter((f) => f.endsWith('.c')).map((f) => path.join(dir, 'c', f));
  const cli = path.join(dir, 'attn');
  execFileSync(cc, ['-std=c11', '-O1', '-o', cli, ...sources, '-lm']);

  const config = compactConfig({ layers: 2, hidden: 256 });  // 2 layers, 4 heads
  const { tensors, shapes } = randomTensors(config, 7);
  const checkpoint = writeCheckpoint(path.join(dir, 'checkpoint'), { config, tensors, shapes });
  const { convert } = await import(pathToFileURL(path.join(dir, 'weights/convert.mjs')).href);
  const weights = path.join(dir, 'model.bin');
  fs.writeFileSync(weights, convert({ checkpointDir: checkpoint, precision: 'int8', predict: false }).bytes);
  const bytes = fs.readFileSync(weights);
  assert.equal(bytes.readUInt32LE(72), 4, 'the converter wrote heads at 72');
  assert.equal(bytes.readUInt32LE(76), 2, 'the converter wrote layers at 76');
  const info = JSON.parse(execFileSync(cli, ['--weights', weights, '--info', '--json'], { encoding: 'utf8' }));
  const shape = info.shape ?? info;
  assert.equal(shape.layers, 2, 'the C loader of the copy reads layers at 76');
  assert.equal(shape.heads, 4, 'the C loader of the copy reads heads at 72');
  const wasm = new WebAssembly.Module(fs.readFileSync(defaultWasm));
  const refused = await createEngine({ wasm, weights: bytes }).then((e) => { e.destroy(); return null; }, (e) => e);
  assert.ok(refused, 'the unchanged engine reads the fields where they were, and refuses the file');
  assert.equal(HEADER.layers.offset, 72, 'the repository itself is unchanged');
});
