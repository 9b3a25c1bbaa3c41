// Loads the wasm engine and the weights once per page, however many explorers there are.
// From file:// nothing is fetched (browsers refuse it): the wasm and the weights come from
// classic scripts that hold them as base64 (dist/attn.wasm.js, dist/bert-mini.weights.js).
// Over http(s) the binary files next to the script (dist/attn.wasm, dist/bert-mini.int8.bin)
// are fetched first and the scripts are the fallback.

import { createEngine, EngineError, STATUS } from './engine.mjs';
import { megabytes } from './format.mjs';

/* global ATTN_ASSET_BYTES */
// Byte sizes of the default assets, for progress; tools/build-web.mjs compiles them in.
const ASSET_BYTES = typeof ATTN_ASSET_BYTES === 'undefined' ? {} : ATTN_ASSET_BYTES;

export const DEFAULT_ASSETS = {
  wasm: 'attn.wasm',
  wasmScript: 'attn.wasm.js',
  weights: 'bert-mini.int8.bin',
  weightsScript: 'bert-mini.weights.js',
};

/** A failure while loading, with the part that failed ('wasm', 'weights' or 'engine'). */
export class LoadError extends Error {
  constructor(part, message, code = null) {
    super(message);
    this.part = part;
    this.code = code;
  }
}

const engineLoads = new Map();
const scriptLoads = new Map();

function assetStore() {
  if (!globalThis.attentionExplorerAssets) globalThis.attentionExplorerAssets = {};
  return globalThis.attentionExplorerAssets;
}

function canFetch(url) {
  return /^https?:$/.test(new URL(url).protocol) && typeof fetch === 'function';
}

/** Inserts <script src=url> once; resolves with the base64 text the script registered. */
function loadAssetScript(url) {
  let load = scriptLoads.get(url);
  if (load) return load;
  load = new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = url;
    script.async = true;
    script.addEventListener('load', () => {
      const registered = assetStore()[url];
      delete assetStore()[url];
      const text = typeof registered === 'function' ? base64FromComment(registered) : registered;
      if (typeof text === 'string') resolve(text);
      else reject(new Error(`${url} loaded but did not register its data`));
    });
    script.addEventListener('error', () => reject(new Error(`the browser could not load ${url}`)));
    document.head.append(script);
  });
  scriptLoads.set(url, load);
  return load;
}

/** The asset scripts keep their base64 in a comment inside a function (fast to parse). */
function base64FromComment(holder) {
  const source = Function.prototype.toString.call(holder);
  const start = source.indexOf('/*'), end = source.lastIndexOf('*/');
  return start >= 0 && end > start ? source.slice(start + 2, end) : null;
}

function decodeBase64(text) {
  if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Fetches a binary file, reporting bytes as they arrive; null when it is not there. */
async function fetchBytes(url, onBytes) {
  let response;
  try {
    response = await fetch(url, { credentials: 'same-origin' });
  } catch {
    return null;
  }
  if (!response.ok || !response.body) return null;
  const expected = Number(response.headers.get('content-length')) || 0;
  const reader = response.body.getReader();
  let bytes = new Uint8Array(expected || 1 << 20);
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (received + value.length > bytes.length) {
      const larger = new Uint8Array(Math.max(bytes.length * 2, received + value.length));
      larger.set(bytes.subarray(0, received));
      bytes = larger;
    }
    bytes.set(value, received);
    received += value.length;
    onBytes(received, expected);
  }
  return received === bytes.length ? bytes : bytes.slice(0, received);
}

/** The bytes of one asset: fetched over http when possible, else from its script. */
async function loadAsset({ part, label, binaryUrl, scriptUrl, expectedBytes, report }) {
  if (binaryUrl && canFetch(binaryUrl)) {
    const bytes = await fetchBytes(binaryUrl, (received, expected) =>
      report({ part, message: `loading ${label}`, loaded: received, total: expected || expectedBytes }));
    if (bytes) return bytes;
  }
  if (!scriptUrl) throw new LoadError(part, `could not load the ${label} from ${binaryUrl}`);
  const size = expectedBytes ? ` (${megabytes(expectedBytes)})` : '';
  report({ part, message: `loading ${label}${size}`, loaded: 0, total: 0 });
  let text;
  try {
    text = await loadAssetScript(scriptUrl);
  } catch (error) {
    throw new LoadError(part, `could not load the ${label}: ${error.message}`);
  }
  report({ part, message: `decoding ${label}`, loaded: 1, total: 1 });
  try {
    return decodeBase64(text);
  } catch {
    throw new LoadError(part, `the ${label} script ${scriptUrl} does not hold valid base64 data`);
  }
}

/** Default assets sit next to the bundle; `wasm`/`weights` attributes are page-relative. */
function resolveSources({ assetBase, wasm, weights }) {
  const resolve = (path) => new URL(path, assetBase).href;
  const fromPage = (path) => new URL(path, document.baseURI).href;
  const isScript = (path) => /\.js(\?|#|$)/.test(path);
  const pick = (given, binary, script) => {
    if (!given) return { binaryUrl: resolve(binary), scriptUrl: resolve(script) };
    return isScript(given) ? { binaryUrl: null, scriptUrl: fromPage(given) }
      : { binaryUrl: fromPage(given), scriptUrl: null };
  };
  return {
    wasm: pick(wasm, DEFAULT_ASSETS.wasm, DEFAULT_ASSETS.wasmScript),
    weights: pick(weights, DEFAULT_ASSETS.weights, DEFAULT_ASSETS.weightsScript),
    defaultWeights: !weights,
    defaultWasm: !wasm,
  };
}

async function compileWasm(bytes) {
  try {
    return await WebAssembly.compile(bytes);
  } catch (error) {
    throw new LoadError('wasm', `the browser refused the engine's WebAssembly: ${error.message}`);
  }
}

/** Loads the wasm and the weights at the same time, then starts the engine. */
async function startEngine(sources, report) {
  const wasmLoad = loadAsset({
    part: 'wasm', label: 'engine (WebAssembly)', ...sources.wasm,
    expectedBytes: sources.defaultWasm ? ASSET_BYTES['attn.wasm'] : 0, report: () => {},
  }).then((bytes) => {
    performance.mark('attn-wasm-loaded');
    return compileWasm(bytes);
  });
  const weightsLoad = loadAsset({
    part: 'weights', label: 'model weights', ...sources.weights,
    expectedBytes: sources.defaultWeights ? ASSET_BYTES['bert-mini.int8.bin'] : 0, report,
  });
  wasmLoad.catch(() => {});
  weightsLoad.catch(() => {});
  const module = await wasmLoad;
  const weights = await weightsLoad;
  performance.mark('attn-weights-loaded');
  report({ part: 'engine', message: 'starting the engine', loaded: 1, total: 1 });
  try {
    const engine = await createEngine({ wasm: module, weights });
    performance.mark('attn-engine-ready');
    return engine;
  } catch (error) {
    // Every engine refusal but "out of memory" is about the weights file.
    if (error instanceof EngineError && error.code !== STATUS.NO_MEMORY) {
      throw new LoadError('weights', `the engine refused the weights: ${error.message}`, error.code);
    }
    if (error instanceof EngineError) {
      throw new LoadError('engine', `the engine could not start: ${error.message}`, error.code);
    }
    throw new LoadError('engine', `the engine could not start: ${error.message}`);
  }
}

/**
 * The shared engine for these sources (one per page and source pair). `onProgress` gets
 * {part, message, loaded, total} updates; the promise rejects with a LoadError.
 */
export function loadEngine(options, onProgress) {
  const sources = resolveSources(options);
  const key = `${sources.wasm.binaryUrl}|${sources.wasm.scriptUrl}|${sources.weights.binaryUrl}|${sources.weights.scriptUrl}`;
  let load = engineLoads.get(key);
  if (!load) {
    load = { listeners: new Set(), last: { part: 'wasm', message: 'loading', loaded: 0, total: 0 } };
    const report = (progress) => {
      load.last = progress;
      for (const listener of load.listeners) listener(progress);
    };
    load.promise = startEngine(sources, report);
    load.promise.finally(() => load.listeners.clear()).catch(() => {});
    engineLoads.set(key, load);
  }
  if (onProgress) {
    load.listeners.add(onProgress);
    onProgress(load.last);
  }
  return load.promise;
}

/** How many engines this page has started (the tests check that explorers share one). */
export function engineCount() {
  return engineLoads.size;
}
