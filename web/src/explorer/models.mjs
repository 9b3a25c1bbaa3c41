// The weights file converted in the page, with its engine and the explorers showing it. It runs
// in the page engine's wasm instance (the same module and memory), beside the default model.

import { Engine } from '../engine.mjs';
import { loadEngine } from '../loader.mjs';

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

/**
 * An explorer's model: the page's engine (loaded once for the page by loader.mjs) or a converted
 * one, and the watch on its weights' arrivals. `owner` is the explorer (a converted model counts
 * its users); `onWeights(state)` hears each part that arrives or is refused.
 */
export class ModelLoader {
  constructor(owner, onWeights) {
    this.owner = owner;
    this.onWeights = onWeights;
    this.engine = null;
    this.model = null;        // the converted model shown, or null for the page's
    this.stopWatching = null;
  }

  /** The page's engine, loaded (or found loaded) with these options; `onProgress` hears the loading. */
  async load(options, onProgress) {
    this.engine = await loadEngine(options, onProgress);
    return this.engine;
  }

  /** Shows the weights file `bytes` (explorers given the same bytes share one engine); throws the
   * engine's EngineError when it refuses the file. `leave()` ends what runs on the model shown
   * until now, before that model may be freed. */
  use(bytes, leave) {
    const model = convertedModel(this.engine, bytes);
    leave();
    if (this.model !== model) {
      this.release();
      model.users.add(this.owner);
      this.model = model;
    }
    this.engine = model.engine;
    this.watch();  // a converted model is whole: the default model's parts no longer matter here
    return this.engine;
  }

  /** Hears the arrivals and failures of the engine's weights parts, until unwatch or another model. */
  watch() {
    this.unwatch();
    this.stopWatching = this.engine.loading?.onChange(this.onWeights) ?? null;
  }

  unwatch() {
    this.stopWatching?.();
    this.stopWatching = null;
  }

  /** A converted model no explorer shows any more is freed. */
  release() {
    releaseModel(this.model, this.owner);
    this.model = null;
  }
}
