// Random-weight BERT checkpoints off the int8 grid, for the precision search: the random weights
// of checkpoints.mjs (sharp, or at a trained BERT's scales), each matrix value moved by up to half
// an int8 step of its row, so that no matrix is on the grid and `--precision auto` has to choose. With the real BERT
// vocabulary (bert-mini-mlm's vocab.txt, 30,522 entries) English text tokenizes into words, as
// it does for a published checkpoint.
import fs from 'node:fs';
import path from 'node:path';
import { compactConfig, randomTensors, writeCheckpoint } from './checkpoints.mjs';

export const BERT_VOCAB = path.resolve(new URL('../../../shared/checkpoints/bert-mini-mlm/vocab.txt', import.meta.url).pathname);

function generator(seed) {
  let state = (seed * 2654435761) >>> 0 || 1;
  return () => {  // xorshift32, in [0, 1)
    state ^= state << 13; state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5; state >>>= 0;
    return state / 2 ** 32;
  };
}

function moveOffGrid(values, rows, cols, next) {
  for (let r = 0; r < rows; r++) {
    let amax = 0;
    for (let c = 0; c < cols; c++) amax = Math.max(amax, Math.abs(values[r * cols + c]));
    const step = amax / 127;
    for (let c = 0; c < cols; c++) {
      const i = r * cols + c;
      if (Math.abs(values[i]) === amax) continue;  // keeps the row's scale
      values[i] = Math.fround(values[i] + (next() - 0.5) * step);
    }
  }
}

/**
 * config and Map name → Float32Array of a random BERT whose matrices are off the int8 grid;
 * `scales` 'sharp' (the default) or 'trained' (checkpoints.mjs SCALES).
 */
export function floatTensors({ layers, hidden, vocab = 30522, positions = 512, seed = 1, scales = 'sharp' }) {
  const config = compactConfig({ layers, hidden, vocab, positions });
  const { tensors, shapes } = randomTensors(config, seed, { scales });
  const next = generator(seed);
  for (const [name, values] of tensors) {
    const shape = shapes[name];
    if (shape.length === 2) moveOffGrid(values, shape[0], shape[1], next);
  }
  return { config, tensors, shapes };
}

/** Writes such a checkpoint (F32) into `dir`, with the real vocabulary when vocab is 30,522. */
export function writeFloatCheckpoint(dir, options) {
  const { config, tensors, shapes } = floatTensors(options);
  const vocabText = config.vocab_size === 30522 && fs.existsSync(BERT_VOCAB) ? fs.readFileSync(BERT_VOCAB, 'utf8') : undefined;
  return writeCheckpoint(dir, { config, tensors, shapes, vocabText });
}
