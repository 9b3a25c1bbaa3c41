#!/usr/bin/env node
// Writes the seed corpus of the weights-loader fuzz target: tiny synthetic models (a few KB
// each, where the real file is 11.7 MB) converted by weights/convert.mjs into format version 2,
// covering int8 and int16 (a scale per row), and int8 and int16 mixed in one file; one and two
// layers, two and four heads. Each has a model card and several parts.
//
//   node tests/fuzz/make_weights_seeds.mjs [OUT_DIR]   (default tests/fuzz/corpus/fuzz_weights)
//
// Deterministic: the same script gives the same bytes, so the committed seeds can be checked.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { convert } from '../../weights/convert.mjs';
import { bertTensorShapes, writeSafetensors } from '../lib/safetensors.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const outDir = path.resolve(process.argv[2] ?? path.join(repoRoot, 'tests/fuzz/corpus/fuzz_weights'));

const VOCAB = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', 'the', 'cat', 'sat', 'on', 'mat', '##s',
  ',', '.', 'caf', '##e', 'é', '—', '中'];

function writeCheckpoint(dir, config) {
  let seed = 12345;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5) * 0.4;
  const tensors = Object.entries(bertTensorShapes(config)).map(([name, shape]) => {
    const values = new Float32Array(shape.reduce((a, b) => a * b, 1)).map(() => random());
    if (name.endsWith('LayerNorm.weight')) values.forEach((v, i) => { values[i] = 1 + v; });
    return { name, shape, bytes: Buffer.from(values.buffer) };
  });
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
  fs.writeFileSync(path.join(dir, 'vocab.txt'), `${VOCAB.join('\n')}\n`);
  writeSafetensors(path.join(dir, 'model.safetensors'), tensors);
}

const base = {
  vocab_size: VOCAB.length, hidden_size: 8, num_hidden_layers: 1, num_attention_heads: 2,
  intermediate_size: 16, max_position_embeddings: 16, type_vocab_size: 2, layer_norm_eps: 1e-12,
  hidden_act: 'gelu', model_type: 'bert',
};
const SEEDS = [
  ['tiny-1layer-int8-row.bin', {}, { precision: 'int8' }],
  ['tiny-2layers-int8-4heads.bin', { num_hidden_layers: 2, num_attention_heads: 4 }, { precision: 'int8' }],
  ['tiny-1layer-int16.bin', { hidden_size: 4, num_attention_heads: 1, max_position_embeddings: 4 }, { precision: 'int16' }],
  ['tiny-2layers-mixed.bin', { num_hidden_layers: 2 },
    { precision: 'int8', precisionFor: [{ substring: 'embeddings', precision: 'int16' }, { substring: 'layer.1', precision: 'int16' }] }],
];

fs.mkdirSync(outDir, { recursive: true });
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'weights-seeds-'));
try {
  for (const [name, configEdits, options] of SEEDS) {
    const dir = path.join(work, path.basename(name, '.bin'));  // the model card holds this name
    fs.mkdirSync(dir);
    writeCheckpoint(dir, { ...base, ...configEdits });
    const { bytes } = convert({ checkpointDir: dir, ...options });
    fs.writeFileSync(path.join(outDir, name), bytes);
    console.log(`${path.relative(repoRoot, path.join(outDir, name))}: ${bytes.length} bytes`);
  }
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
