// The weights file converted in the page, with its engine and the explorers showing it. It runs
// in the page engine's wasm instance (the same module and memory), beside the default model.

import { Engine } from '../engine.mjs';

let converted = null;

/** The converted model of `bytes` (explorers given the same bytes share one engine). */
export function convertedModel(pageEngine, bytes) {
  if (converted?.bytes !== bytes) {
    const engine = new Engine(pageEngine.x, pageEngine.heap.memory, bytes);
    engine.wasmModule = pageEngine.wasmModule;  // a further conversion runs on it too (explorer/dom.mjs)
    converted = { bytes, engine, users: new Set() };
  }
  return converted;
}

/** `user` no longer shows `model`; a converted model no explorer shows any more is freed. */
export function releaseModel(model, user) {
  if (!model) return;
  model.users.delete(user);
  if (model.users.size) return;
  model.engine.destroy();
  if (converted === model) converted = null;
}

/** Shows a converted weights file in every explorer of the document. */
export function useWeightsEverywhere(bytes, label) {
  return Promise.all([...document.querySelectorAll('attention-explorer')].map((explorer) => explorer.useWeights(bytes, label)));
}
