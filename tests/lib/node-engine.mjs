// Loads the wasm engine and the default weights in Node, for tests and benchmarks.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../../web/src/engine.mjs';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const defaultWasm = `${repoRoot}web/dist/attn.wasm`;
export const defaultWeights = `${repoRoot}web/dist/bert-mini.int8.bin`;

export async function loadEngine({ wasm = defaultWasm, weights = defaultWeights } = {}) {
  return createEngine({ wasm: readFileSync(wasm), weights: readFileSync(weights) });
}
