// Loads the wasm engine and the weights once per page, however many explorers there are.
// The weights are read in parts (weights/FORMAT.md): the head first (the vocabulary and the
// embeddings but their rows), then the parts holding the sentence's rows and the layers the
// view shows (layer 1 first: a run computes each layer as its part arrives), then, once a
// figure is drawn, the rest at idle priority: the other layers in order, the masked-word head,
// the other rows. Over http(s) the parts are range requests on the one file next to the script
// (dist/bert-mini.int8.bin); a server that ignores Range sends the whole file, which is then
// used whole. From file:// nothing is fetched (browsers refuse it): the wasm and the weights come
// from classic scripts that hold them as base64 (dist/attn.wasm.js,
// dist/bert-mini.weights.head.js and dist/bert-mini.weights.part-NNN.js, grouped by
// weights/asset-scripts.mjs scriptGroups), loaded on demand; over http they are the fallback.

import { createEngine, createPartialEngine, readWeightsHeader, EngineError, STATUS } from './engine.mjs';
import { megabytes } from './format.mjs';
import { headScriptName, partScriptName, scriptGroups } from '../../weights/asset-scripts.mjs';

/* global ATTN_ASSET_BYTES */
// Byte sizes of the default assets, for progress; tools/build-web.mjs compiles them in.
const ASSET_BYTES = typeof ATTN_ASSET_BYTES === 'undefined' ? {} : ATTN_ASSET_BYTES;

export const DEFAULT_ASSETS = {
  wasm: 'attn.wasm',
  wasmScript: 'attn.wasm.js',
  weights: 'bert-mini.int8.bin',
  weightsScript: 'bert-mini.weights.head.js',
};

/** The most bytes one range request fetches for parts read while the page is idle. */
const IDLE_RANGE_BYTES = 512 * 1024;
/** Part scripts inserted at once for what no run waits on (ensureAll, the idle stream): each
 * insertion is the page's work, and the 240 of bert-mini at once are a 100 ms task. */
const SCRIPTS_AT_ONCE = 4;

/** A failure while loading, with the part that failed ('wasm', 'weights' or 'engine'). */
export class LoadError extends Error {
  constructor(part, message, code = null, reason = null) {
    super(message);
    this.part = part;
    this.code = code;
    this.reason = reason;  // [catalogue key, placeholders] for the page (i18n/en.mjs); null: by `code`
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

/**
 * A page that carries its assets (a one-file page, a notebook's output: web/notebook/) holds each
 * as <script type="application/x-attention-asset" data-src="embedded:/…/NAME">base64</script>;
 * explorers name them with assets="embedded:/…/" (and weights="embedded:/…/NAME.weights.js").
 */
export const EMBEDDED_ASSET_TYPE = 'application/x-attention-asset';
const isEmbedded = (url) => url.startsWith('embedded:');

/** The base64 text of the asset the page holds for `url`, or null; while the page is still
 * being read, an asset written after the explorer is waited for. */
async function embeddedAsset(url) {
  const find = () => [...document.querySelectorAll(`script[type="${EMBEDDED_ASSET_TYPE}"]`)].find((h) => h.dataset.src === url);
  if (!find() && document.readyState === 'loading') {
    await new Promise((resolve) => document.addEventListener('DOMContentLoaded', resolve, { once: true }));
  }
  return find()?.textContent ?? null;
}

/** Inserts <script src=url> once (an embedded asset is read from the page instead); resolves
 * with the base64 text the script registered. */
function loadAssetScript(url) {
  let load = scriptLoads.get(url);
  if (load) return load;
  if (isEmbedded(url)) {
    load = embeddedAsset(url).then((text) => text ?? Promise.reject(new Error(`the page does not hold ${url}`)));
    scriptLoads.set(url, load);
    return load;
  }
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
  return readBody(response, onBytes);
}

/** The body of a response, reporting bytes as they arrive; null for a failed response. */
async function readBody(response, onBytes = () => {}) {
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
  if (!scriptUrl) throw new LoadError(part, `could not load the ${label} from ${binaryUrl}`, null, ['load.notFound', { url: binaryUrl }]);
  const size = expectedBytes ? ` (${megabytes(expectedBytes)})` : '';
  report({ part, message: `loading ${label}${size}`, loaded: 0, total: 0 });
  let text;
  try {
    text = await loadAssetScript(scriptUrl);
  } catch (error) {
    throw new LoadError(part, `could not load the ${label}: ${error.message}`, null, ['load.failed', { detail: error.message }]);
  }
  report({ part, message: `decoding ${label}`, loaded: 1, total: 1 });
  try {
    return decodeBase64(text);
  } catch {
    throw new LoadError(part, `the ${label} script ${scriptUrl} does not hold valid base64 data`, null, ['load.badBase64', { url: scriptUrl }]);
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
    throw new LoadError('wasm', `the browser refused the engine's WebAssembly: ${error.message}`, null, ['load.wasmRefused', { detail: error.message }]);
  }
}

/** An engine refusal as a LoadError: every one but "out of memory" is about the weights. */
function loadErrorOf(error) {
  if (error instanceof LoadError) return error;
  if (error instanceof EngineError && error.code !== STATUS.NO_MEMORY) {
    return new LoadError('weights', `the engine refused the weights: ${error.message}`, error.code, ['load.refused', { part: error.partIndex ?? null }]);
  }
  if (error instanceof EngineError) {
    return new LoadError('engine', `the engine could not start: ${error.message}`, error.code);
  }
  return new LoadError('engine', `the engine could not start: ${error.message}`, null, ['load.engineFailed', { detail: error.message }]);
}

/** The file size a range answer's Content-Range gives (NaN without one). */
const rangeTotal = (response) => Number(/\/(\d+)\s*$/.exec(response.headers.get('content-range') || '')?.[1] ?? NaN);

/** Bytes [start, end) of a file over http: {response, bytes, total, whole}; bytes null unless the
 * server answered 206 with exactly those bytes; total is the file size Content-Range gives;
 * whole is true when the server ignored the Range header and is sending the whole file (its
 * body is left unread for the caller, every other unused body is cancelled). */
async function fetchRange(url, start, end, priority = 'high') {
  const response = await fetch(url, { credentials: 'same-origin', priority, headers: { Range: `bytes=${start}-${end - 1}` } });
  const total = rangeTotal(response);
  if (response.status === 200) return { response, bytes: null, total, whole: true };
  if (response.status !== 206) {
    response.body?.cancel().catch(() => {});
    return { response, bytes: null, total, whole: false };
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { response, bytes: bytes.length === end - start ? bytes : null, total, whole: false };
}

/** Waits `ms` milliseconds. */
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A fetch failure worth trying again: the network, a 5xx, 408 or 429 (not a 404 or a refusal). */
export class TransientError extends Error {}

/** Calls attempt() until it succeeds, at most RETRY_DELAYS_MS.length + 1 times, waiting
 * between tries; only TransientErrors are tried again. */
export const RETRY_DELAYS_MS = [250, 1000, 3000];
export async function withRetries(attempt, delays = RETRY_DELAYS_MS) {
  for (let i = 0; ; i++) {
    try {
      return await attempt(i);
    } catch (error) {
      if (!(error instanceof TransientError) || i >= delays.length) throw error;
      await pause(delays[i]);
    }
  }
}

const transientStatus = (status) => status >= 500 || status === 408 || status === 429;

/** The whole file, for the engine to check in one piece; null when it is not there. */
async function wholeFile(url, response, report) {
  const onBytes = (received, expected) =>
    report({ part: 'weights', message: 'loading model weights', loaded: received, total: expected });
  const bytes = response?.status === 200 ? await readBody(response, onBytes) : await fetchBytes(url, onBytes);
  return bytes ? { whole: bytes } : null;
}

/**
 * The head of the weights over http: {head, fileSize, fetchParts, early}; or {whole} when the
 * file cannot be read in parts (a server that ignores Range, or a file that is not a well-formed
 * weights file: the engine then names what is wrong); or null when it is not there (then the
 * scripts are tried). `first` (the default weights: the end of layer 1's part, compiled in by
 * tools/build-web.mjs): the head and layer 1's part come in one request (streamHead). Otherwise,
 * or when the file is not the one expected, the header comes first, then the rest of the head.
 */
async function fetchHead(url, report, first = null) {
  if (first) {
    const streamed = await streamHead(url, first, report);
    if (streamed !== undefined) return streamed;
  }
  let header128;
  try {
    header128 = await fetchRange(url, 0, 128);
  } catch {
    return null;
  }
  if (header128.response.status === 404) return null;
  const header = readWeightsHeader(header128.bytes);
  if (!header || header128.total !== header.fileSize) return wholeFile(url, header128.response, report);
  checkPageLimit(header.fileSize);  // before the head is fetched
  report({ part: 'weights', message: 'loading model weights', loaded: 128, total: header.headBytes });
  const rest = await fetchRange(url, 128, header.headBytes).catch(() => ({ bytes: null }));
  if (!rest.bytes) return wholeFile(url, null, report);
  const head = new Uint8Array(header.headBytes);
  head.set(header128.bytes);
  head.set(rest.bytes, 128);
  return { head, fileSize: header.fileSize, fetchParts: partFetcher(url, header.fileSize, false) };
}

/**
 * Bytes [0, end) in one range request, read as they stream in: as soon as the head is in, the
 * engine can start and the sentence's rows be asked for, while the rest (layer 1's part) is still
 * arriving; `early` = {offset, end, bytes: a promise of those bytes, null if they do not all
 * come}. undefined when the answer is not the file expected (the caller reads it the usual way).
 */
async function streamHead(url, end, report) {
  let response;
  try {
    response = await fetch(url, { credentials: 'same-origin', priority: 'high', headers: { Range: `bytes=0-${end - 1}` } });
  } catch {
    return null;
  }
  if (response.status === 404) return null;
  if (response.status === 200) return wholeFile(url, response, report);
  const total = rangeTotal(response);
  if (response.status !== 206 || !response.body) { response.body?.cancel().catch(() => {}); return undefined; }
  const reader = response.body.getReader();
  const bytes = new Uint8Array(end);
  let received = 0, header = null;
  const readSome = async () => {
    const { done, value } = await reader.read();
    if (done || received + value.length > end) return false;
    bytes.set(value, received);
    received += value.length;
    return true;
  };
  try {
    while (!header || received < header.headBytes) {
      if (!(await readSome())) throw new Error('cut short');
      if (!header && received >= 128) {
        header = readWeightsHeader(bytes.subarray(0, 128));
        if (!header || header.fileSize !== total || header.headBytes > end) throw new Error('another file');
      }
      report({ part: 'weights', message: 'loading model weights', loaded: received, total: header?.headBytes ?? end });
    }
  } catch {
    reader.cancel().catch(() => {});
    return undefined;
  }
  const rest = (async () => {
    try {
      while (received < end) if (!(await readSome())) return null;
      return bytes.subarray(header.headBytes, end);
    } catch {
      return null;
    }
  })();
  // the server answered a range reaching past the head: the parts' requests can go out at once
  return { head: bytes.slice(0, header.headBytes), fileSize: header.fileSize, fetchParts: partFetcher(url, header.fileSize, true),
    early: { offset: header.headBytes, end, bytes: rest } };
}

/**
 * fetchParts(offset, bytes, priority) for a file read by range requests. A failed request is
 * tried again (network errors, 5xx); a server that answers a range request with the whole file
 * (200) is taken at its word once: that one body is read, every later part is cut from it, and
 * no further request is made. Until a range beyond the head has come back as asked
 * (`rangesConfirmed`: the head and layer 1 in one request), the first part request goes alone
 * and the others wait for its answer, so that such a server sends the whole file once.
 */
function partFetcher(url, fileSize, rangesConfirmed) {
  let wholeFile = null;  // promise of the whole file's bytes, once a server ignored a range
  const fromWhole = async (offset, bytes) => {
    const all = await wholeFile;
    if (!all || all.length !== fileSize) throw new Error(`the server sent ${all ? all.length : 0} bytes where the file has ${fileSize}`);
    return all.subarray(offset, offset + bytes);
  };
  const attempt = async (offset, bytes, priority) => {
    if (wholeFile) return fromWhole(offset, bytes);
    let got;
    try {
      got = await fetchRange(url, offset, offset + bytes, priority);
    } catch (error) {
      throw new TransientError(error.message);
    }
    if (got.whole) {
      if (wholeFile) got.response.body?.cancel().catch(() => {});
      else wholeFile = readBody(got.response);
      return fromWhole(offset, bytes);
    }
    if (got.bytes) return got.bytes;
    const why = `the server answered ${got.response.status} to a range request`;
    if (transientStatus(got.response.status)) throw new TransientError(why);
    throw new Error(why);
  };
  const fetchPart = async (offset, bytes, priority) => {
    try {
      return await withRetries(() => attempt(offset, bytes, priority));
    } catch (error) {
      throw new Error(`could not be fetched (${error.message})`);
    }
  };
  if (rangesConfirmed) return fetchPart;
  let probe = null;  // the first part request: the others wait to learn whether ranges work there
  return async (offset, bytes, priority) => {
    if (!probe) {
      probe = fetchPart(offset, bytes, priority);
      return probe;
    }
    await probe.catch(() => {});
    return fetchPart(offset, bytes, priority);
  };
}

/** The head from its classic script, and the parts from theirs (weights/asset-scripts.mjs scriptGroups). */
async function scriptHead(scriptUrl, report) {
  report({ part: 'weights', message: 'loading model weights', loaded: 0, total: 0 });
  let head;
  try {
    head = decodeBase64(await loadAssetScript(scriptUrl));
  } catch (error) {
    throw new LoadError('weights', `could not load the model weights: ${error.message}`, null, ['load.failed', { detail: error.message }]);
  }
  const header = readWeightsHeader(head);
  const isHead = /\.head\.js(?=[?#]|$)/.test(scriptUrl) && header?.headBytes === head.length;
  if (!isHead) return { whole: head };  // a whole file in one script: the engine checks it whole
  return { head, fileSize: header.fileSize, partScripts: scriptUrl, headScriptBytes: Math.ceil(head.length / 3) * 4 };
}

/**
 * Fetches the parts of a partial engine: those a text and the layers it is shown at need first,
 * then, once startBackground() is called (after the first figure), the rest at idle priority.
 * `engine.loading` is this object; a run that waits for its rows waits for `ensureText(text)`, a
 * run that waits for a layer for `ensureLayers(count)`, [MASK] predictions for `ensureAll()`.
 */
export class PartLoader {
  constructor(engine, source) {
    this.engine = engine;
    this.source = source;
    this.inFlight = new Map();  // part index → promise
    this.failures = new Map();  // part index → LoadError
    this.listeners = new Set();
    this.bytesLoaded = source.head.length;      // bytes of the file in the engine
    this.scriptBytesLoaded = source.headScriptBytes ?? 0;  // base64 text read from file://
    this.scriptGroups = null;
    this.scriptsLoading = 0;    // part scripts 'low' or 'idle' inserted and not yet loaded
    this.scriptQueue = [];      // their followers waiting for one to load
  }

  /** The bytes read to have the weights that have arrived: the file's, or the scripts' base64 from file://. */
  bytesRead() { return this.source.partScripts ? this.scriptBytesLoaded : this.bytesLoaded; }

  /**
   * Calls listener({missing, total, layersReady, error, background}) on every arrival or failure;
   * returns the function that removes it. `background` is true for a failure of a part fetched
   * while the page was idle, which no run has asked for yet: nothing the reader sees needs it.
   */
  onChange(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed(error = null, background = false) {
    const state = { missing: this.engine.partsMissing(), total: this.engine.partCount(), layersReady: this.engine.layersReady(), error, background };
    for (const listener of [...this.listeners]) listener(state);
  }

  /**
   * Bytes of the file that come with the head ({offset, end, bytes: a promise}): the parts wholly
   * inside [offset, end) are in flight until they come, then arrive; a part they do not bring is
   * fetched as any other when a run needs it.
   */
  arrivedEarly({ offset, end, bytes }) {
    const inside = [];
    for (let i = 0; i < this.engine.partCount(); i++) {
      const part = this.engine.partRange(i);
      if (part.offset >= offset && part.offset + part.bytes <= end) inside.push(i);
    }
    const arrival = bytes.then((got) => {
      for (const i of inside) {
        this.inFlight.delete(i);
        const refused = got && this.takePart(i, got, offset);
        if (refused) this.failures.set(i, refused);
      }
      this.changed();
    });
    for (const i of inside) this.inFlight.set(i, arrival);
  }

  /** Parts that failed to arrive (after their retries). */
  failedParts() { return [...this.failures.keys()].sort((a, b) => a - b); }

  /** Resolves once every part the text's tokens need has arrived; rejects with a LoadError. */
  ensureText(text) {
    return this.ensure(this.engine.partsForIds(this.engine.tokenize(text).ids), 'high');
  }

  /** Resolves once the weights of layers 0 … count − 1 have arrived: a layer at a time, in order,
   * so that a run computes each layer while the next one is on its way. */
  async ensureLayers(count) {
    for (let layer = 0; layer < Math.min(count, this.engine.shape.layers); layer++) {
      await this.ensure(this.engine.layerParts(layer).filter((i) => !this.engine.partReady(i)), 'high');
    }
  }

  /** Resolves once every part has arrived (the masked-word predictions need them all). */
  ensureAll() {
    return this.ensure(this.missingParts(), 'low');
  }

  missingParts() {
    const missing = [];
    for (let i = 0; i < this.engine.partCount(); i++) if (!this.engine.partReady(i)) missing.push(i);
    return missing;
  }

  /**
   * The remaining parts, one request or script at a time when the page is idle: the layers not
   * yet in, in order, then the rest in file order. Called once a figure is drawn, so that nothing
   * competes with what the first figure needs.
   */
  startBackground() {
    if (this.streaming) return;
    this.streaming = true;
    const idle = globalThis.requestIdleCallback ?? ((fn) => setTimeout(fn, 50));
    const next = () => {
      const wanted = (i) => !this.engine.partReady(i) && !this.failures.has(i);
      const layers = this.engine.partsForLayers(this.engine.shape.layers).filter(wanted);
      const rest = this.missingParts().filter(wanted);
      const batch = this.groups(layers.length ? layers : rest, 'idle')[0];
      if (!batch) return;
      this.ensure(batch, 'idle').then(() => idle(next), () => idle(next));
    };
    idle(next);
  }

  /** `parts` fetched (again, for those that failed before): priority 'high', 'low', or 'idle'
   * for what the page fetches on its own while the reader reads. */
  async ensure(parts, priority) {
    const waits = [];
    for (const i of parts) if (!this.inFlight.has(i)) this.failures.delete(i);
    if (priority === 'high' && this.source.partScripts) for (const i of parts) if (this.inFlight.has(i)) this.scriptNow(i);
    for (const run of this.groups(parts.filter((i) => !this.engine.partReady(i)), priority)) {
      const pending = run.filter((i) => !this.inFlight.has(i));
      if (pending.length) {
        const load = this.load(pending, priority);
        for (const i of pending) this.inFlight.set(i, load);
      }
      for (const i of run) waits.push(this.inFlight.get(i));
    }
    await Promise.all(waits);
  }

  /** The part script (index into scriptGroups) holding part `index`. */
  scriptGroupOf(index) {
    if (!this.scriptGroups) {
      const bytes = Array.from({ length: this.engine.partCount() }, (_, i) => this.engine.partRange(i).bytes);
      this.scriptGroups = scriptGroups(bytes);
    }
    let low = 0, high = this.scriptGroups.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.scriptGroups[mid][0] <= index) low = mid; else high = mid - 1;
    }
    return low;
  }

  /** Runs of parts fetched together: from scripts, the parts of one script; over http, adjacent
   * parts (while idle, up to IDLE_RANGE_BYTES a request, so that progress shows as they arrive). */
  groups(parts, priority) {
    const runs = [];
    let bytes = 0;
    for (const i of parts) {
      const last = runs.at(-1);
      const size = this.engine.partRange(i).bytes;
      const together = last && (this.source.partScripts
        ? this.scriptGroupOf(last.at(-1)) === this.scriptGroupOf(i)
        : last.at(-1) === i - 1 && (priority !== 'idle' || bytes + size <= IDLE_RANGE_BYTES));
      if (together) { last.push(i); bytes += size; } else { runs.push([i]); bytes = size; }
    }
    return runs;
  }

  /** Fetches a run of parts and hands every part that came with it to the engine. */
  async load(run, priority) {
    const engine = this.engine;
    const failed = (error) => {
      for (const i of run) { this.failures.set(i, error); this.inFlight.delete(i); }
      this.changed(error, priority === 'idle');
      throw error;
    };
    let got;
    try {
      got = await this.fetchRun(run, priority);
    } catch (error) {
      const named = run.map((i) => engine.describePart(i)).join(', ');
      failed(new LoadError('weights', `the model weights ${named} could not be loaded: ${error.message}`, null, ['load.partsFailed', { parts: run, detail: error.message }]));
    }
    let refusal = null;
    for (const i of got.parts) {  // from a script: its other parts too, they are here already
      if (engine.partReady(i)) continue;
      const refused = this.takePart(i, got.bytes, got.base);
      if (!refused) continue;
      if (run.includes(i)) refusal ??= refused;
      else { this.failures.set(i, refused); this.changed(refused, priority === 'idle'); }
    }
    if (refusal) failed(refusal);
    this.changed();
  }

  /** Hands part `i`, inside `bytes` (which start at file offset `base`), to the engine to check;
   * its refusal as a LoadError, or null. */
  takePart(i, bytes, base) {
    const { offset, bytes: length } = this.engine.partRange(i);
    try {
      this.engine.partArrived(i, bytes.subarray(offset - base, offset - base + length));
      this.bytesLoaded += length;
      return null;
    } catch (error) {
      return loadErrorOf(error);
    }
  }

  /** Resolves when fewer than SCRIPTS_AT_ONCE queued part scripts are loading (or a run needs `group`'s script: scriptNow). */
  scriptTurn(group) {
    if (this.scriptsLoading < SCRIPTS_AT_ONCE) {
      this.scriptsLoading++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.scriptQueue.push({ group, resolve }));
  }

  /** A queued part script has loaded (or failed): the next one waiting takes its turn. */
  scriptDone() {
    const next = this.scriptQueue.shift();
    if (next) next.resolve(); else this.scriptsLoading--;
  }

  /** A run waits on part `i`: its script, if queued, is inserted now. */
  scriptNow(i) {
    const group = this.scriptGroupOf(i);
    const at = this.scriptQueue.findIndex((waiting) => waiting.group === group);
    if (at < 0) return;
    this.scriptsLoading++;
    this.scriptQueue.splice(at, 1)[0].resolve();
  }

  /** {bytes, base, parts}: the bytes of the run's parts (a script's: all of its parts), base
   * their file offset. */
  async fetchRun(run, priority) {
    const first = this.engine.partRange(run[0]), last = this.engine.partRange(run.at(-1));
    if (!this.source.partScripts) {
      const end = last.offset + last.bytes;
      const fetchPriority = priority === 'idle' ? 'low' : priority;
      return { bytes: await this.source.fetchParts(first.offset, end - first.offset, fetchPriority), base: first.offset, parts: run };
    }
    const group = this.scriptGroupOf(run[0]);
    const url = partScriptName(this.source.partScripts, group);
    const queued = priority !== 'high';  // what a run waits on is inserted at once
    if (queued) await this.scriptTurn(group);
    let text;
    try {
      text = await loadAssetScript(url);
    } catch (error) {
      scriptLoads.delete(url);  // a later need tries again
      throw new Error(error.message);
    } finally {
      if (queued) this.scriptDone();
    }
    this.scriptBytesLoaded += text.length;
    const [from, to] = this.scriptGroups[group];
    const parts = Array.from({ length: to - from + 1 }, (_, i) => from + i);
    return { bytes: decodeBase64(text), base: this.engine.partRange(from).offset, parts };
  }
}

/**
 * The largest weights file the page loads: the engine's wasm memory may grow to 1 GB
 * (build.sh), and a 12 × 768 model's run at 512 tokens takes 376 MB of it beside the file.
 */
export const PAGE_WEIGHTS_MAX_BYTES = 512 * 2 ** 20;

/** Refuses, with the limit named, a weights file the page cannot hold. */
export function checkPageLimit(fileSize) {
  if (fileSize <= PAGE_WEIGHTS_MAX_BYTES) return;
  const size = Math.ceil(fileSize / 2 ** 20), limit = PAGE_WEIGHTS_MAX_BYTES / 2 ** 20;
  throw new LoadError('weights', `the weights file is ${size} MB; the page holds at most ${limit} MB of weights `
    + '(the engine\u2019s memory in the browser is 1 GB, and a 512-token run of a 12-layer model needs the rest): '
    + 'use the command line (build/attn) for this model', null, ['load.tooLarge', { size, limit }]);
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
  const weightsLoad = loadWeights(sources, report);
  wasmLoad.catch(() => {});
  weightsLoad.catch(() => {});
  const module = await wasmLoad;
  const weights = await weightsLoad;
  performance.mark('attn-weights-loaded');
  report({ part: 'engine', message: 'starting the engine', loaded: 1, total: 1 });
  checkPageLimit(weights.whole ? weights.whole.length : weights.fileSize);
  try {
    if (weights.whole) {
      const engine = await createEngine({ wasm: module, weights: weights.whole });
      engine.wasmModule = module;  // the converter runs it on the files it writes (the card's head roles)
      engine.weightBytesLoaded = () => weights.whole.length;
      performance.mark('attn-engine-ready');
      return engine;
    }
    const engine = await createPartialEngine({ wasm: module, head: weights.head, fileSize: weights.fileSize });
    engine.wasmModule = module;
    engine.loading = new PartLoader(engine, weights);
    engine.weightBytesLoaded = () => engine.loading.bytesRead();
    if (weights.early) engine.loading.arrivedEarly(weights.early);
    performance.mark('attn-engine-ready');
    return engine;
  } catch (error) {
    throw loadErrorOf(error);
  }
}

/** {head, fileSize, …} to read in parts, or {whole} for a file given in one piece. */
async function loadWeights(sources, report) {
  const { binaryUrl, scriptUrl } = sources.weights;
  if (binaryUrl && canFetch(binaryUrl)) {
    const fetched = await fetchHead(binaryUrl, report, sources.defaultWeights ? ASSET_BYTES.weightsFirst : null);
    if (fetched) return fetched;
  }
  if (!scriptUrl) {
    // From file:// a .bin cannot be fetched: the page says how to write the scripts that carry it.
    if (new URL(binaryUrl).protocol === 'file:') {
      const name = decodeURIComponent(new URL(binaryUrl).pathname.split('/').pop() || 'model.bin');
      throw new LoadError('weights', `a page opened from file:// cannot read ${name}: convert with --scripts and give weights="${headScriptName(name)}"`,
        null, ['load.binFromDisk', { name, head: headScriptName(name) }]);
    }
    throw new LoadError('weights', `could not load the model weights from ${binaryUrl}`, null, ['load.notFound', { url: binaryUrl }]);
  }
  return scriptHead(scriptUrl, report);
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
    load.promise.finally(() => { load.settled = true; load.listeners.clear(); }).catch(() => {});
    engineLoads.set(key, load);
  }
  if (onProgress && !load.settled) {  // once settled, nothing would call or remove it
    load.listeners.add(onProgress);
    onProgress(load.last);
  }
  return load.promise;
}

/** How many engines this page has started (the tests check that explorers share one). */
export function engineCount() {
  return engineLoads.size;
}
