/* <attention-explorer>: the web/src modules bundled into one classic script by
 * tools/build-web.mjs, so the page also works when opened from file://.
 * Generated file: edit web/src and run `./build.sh web`. */
(function () {
'use strict';
// ---- web/src/dom.mjs ----
// Small DOM helpers. Text always goes in through textContent and attributes through
// setAttribute, so nothing a user types is ever parsed as markup.

const SVG_NS = 'http://www.w3.org/2000/svg';

function applyAttributes(element, attributes) {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'text') element.textContent = String(value);
    else if (name === 'dataset') Object.assign(element.dataset, value);
    else if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else element.setAttribute(name, value === true ? '' : String(value));
  }
}

function appendChildren(element, children) {
  for (const child of [children].flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** html('button', {class: 'x', text: 'Go', onclick: fn}, children) */
function html(name, attributes = {}, children = []) {
  const element = document.createElement(name);
  applyAttributes(element, attributes);
  appendChildren(element, children);
  return element;
}

/** svg('rect', {x: 0, y: 0, width: 4, height: 4}) */
function svg(name, attributes = {}, children = []) {
  const element = document.createElementNS(SVG_NS, name);
  applyAttributes(element, attributes);
  appendChildren(element, children);
  return element;
}

function replaceChildrenOf(element, children) {
  element.replaceChildren();
  appendChildren(element, children);
}

let measureContext = null;
const widthCache = new Map();

/** Width in px of `text` in the figure font at `size` px (cached; canvas measureText). */
function textWidth(text, size = 12, weight = 400) {
  const key = `${weight}|${size}|${text}`;
  let width = widthCache.get(key);
  if (width !== undefined) return width;
  if (!measureContext) measureContext = document.createElement('canvas').getContext('2d');
  measureContext.font = `${weight} ${size}px ${FIGURE_FONT}`;
  width = measureContext.measureText(text).width;
  if (widthCache.size > 5000) widthCache.clear();
  widthCache.set(key, width);
  return width;
}

const FIGURE_FONT =
  'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif';

// ---- web/src/engine.mjs ----
// The JavaScript side of the engine: loads the wasm module and a weights file, and turns
// the C API of c/attn.h into plain objects and typed arrays. Runs in browsers and in Node.

const ROLE_NAMES = ['previous', 'next', 'cls-sink', 'sep-sink', 'punct-sink', 'broad'];
const STATS = ['sum', 'max', 'argmax', 'ratio', 'entropy', 'effective', 'normalized'];

class EngineError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

async function instantiate(wasm) {
  let memory = null;
  const imports = { env: { emscripten_notify_memory_growth() {} } };
  const source = wasm instanceof WebAssembly.Module ? wasm : await WebAssembly.compile(wasm);
  const instance = await WebAssembly.instantiate(source, imports);
  memory = instance.exports.memory;
  instance.exports._initialize?.();
  return { exports: instance.exports, memory };
}

/** Creates an engine from the wasm bytes (or a compiled module) and the weights bytes. */
async function createEngine({ wasm, weights }) {
  const { exports, memory } = await instantiate(wasm);
  return new Engine(exports, memory, weights);
}

class Heap {
  constructor(exports, memory) {
    this.x = exports;
    this.memory = memory;
  }
  alloc(bytes) {
    const p = this.x.attn_alloc(bytes);
    if (!p) throw new EngineError(20, 'out of memory');
    return p;
  }
  free(p) { this.x.attn_free(p); }
  u8(p, n) { return new Uint8Array(this.memory.buffer, p, n); }
  i32(p, n) { return new Int32Array(this.memory.buffer, p, n); }
  f32(p, n) { return new Float32Array(this.memory.buffer, p, n); }
  f64(p, n) { return new Float64Array(this.memory.buffer, p, n); }
  cString(p) {
    if (!p) return null;
    const bytes = new Uint8Array(this.memory.buffer, p);
    return new TextDecoder().decode(bytes.subarray(0, bytes.indexOf(0)));
  }
  /** Calls fn(pointer) with a scratch buffer and returns what read(pointer) gives. */
  withBuffer(bytes, fn, read) {
    const p = this.alloc(bytes);
    try {
      fn(p);
      return read(p);
    } finally {
      this.free(p);
    }
  }
}

class Engine {
  constructor(exports, memory, weights) {
    this.heap = new Heap(exports, memory);
    const x = (this.x = exports);
    const bytes = weights instanceof Uint8Array ? weights : new Uint8Array(weights);
    this.weightsPointer = this.heap.alloc(bytes.length);
    this.heap.u8(this.weightsPointer, bytes.length).set(bytes);
    const out = this.heap.alloc(4);
    const status = x.attn_engine_create(this.weightsPointer, bytes.length, out);
    this.pointer = this.heap.i32(out, 1)[0];
    this.heap.free(out);
    if (status !== 0) {
      const message = this.statusMessage(status);
      this.heap.free(this.weightsPointer);
      throw new EngineError(status, message);
    }
    const shape = this.heap.withBuffer(32, (p) => x.attn_engine_shape(this.pointer, p),
      (p) => Array.from(this.heap.i32(p, 8)));
    const [vocab, hidden, layers, heads, ffn, maxPositions, typeVocab, headSize] = shape;
    this.shape = { vocab, hidden, layers, heads, ffn, maxPositions, typeVocab, headSize };
    this.tokenCache = new Map();
  }

  statusMessage(status) { return this.heap.cString(this.x.attn_status_message(status)); }

  token(id) {
    let text = this.tokenCache.get(id);
    if (text === undefined) {
      text = this.heap.cString(this.x.attn_engine_token(this.pointer, id));
      this.tokenCache.set(id, text);
    }
    return text;
  }

  /** Bytes of wasm linear memory in use (grows, never shrinks). */
  heapBytes() { return this.heap.memory.buffer.byteLength; }

  /** Tokenizes without running the model and without truncation. */
  tokenize(text) {
    const bytes = new TextEncoder().encode(text);
    const capacity = bytes.length + 2;
    const heap = this.heap;
    const textPointer = heap.alloc(bytes.length + 1);
    const arrays = heap.alloc(capacity * 12 + 8);
    try {
      heap.u8(textPointer, bytes.length).set(bytes);
      const ids = arrays, starts = arrays + capacity * 4, ends = arrays + capacity * 8;
      const counts = arrays + capacity * 12;
      check(this, this.x.attn_engine_tokenize(this.pointer, textPointer, bytes.length, capacity,
        ids, starts, ends, counts));
      const n = heap.i32(counts, 1)[0];
      return this.tokenList(heap.i32(ids, n), heap.i32(starts, n), heap.i32(ends, n));
    } finally {
      heap.free(textPointer);
      heap.free(arrays);
    }
  }

  /** {n, ids, tokens, offsets} from the engine's id and code-point offset arrays. */
  tokenList(ids, starts, ends) {
    const list = Array.from(ids);
    return {
      n: list.length,
      ids: list,
      tokens: list.map((id) => this.token(id)),
      offsets: list.map((_, i) => [starts[i], ends[i]]),
    };
  }

  createSession() { return new Session(this); }

  destroy() {
    this.x.attn_engine_destroy(this.pointer);
    this.heap.free(this.weightsPointer);
  }
}

function check(engine, status) {
  if (status !== 0) throw new EngineError(status, engine.statusMessage(status));
}

class Session {
  constructor(engine) {
    this.engine = engine;
    this.heap = engine.heap;
    this.x = engine.x;
    this.pointer = this.x.attn_session_create(engine.pointer);
    if (!this.pointer) throw new EngineError(20, 'out of memory');
    this.n = 0;
  }

  /** Tokenizes and runs `text`; returns the tokens of the run. */
  runText(text) {
    const bytes = new TextEncoder().encode(text);
    const status = this.heap.withBuffer(bytes.length + 1, (p) => {
      this.heap.u8(p, bytes.length).set(bytes);
      return p;
    }, (p) => this.x.attn_session_run_text(this.pointer, p, bytes.length));
    return this.finishRun(status);
  }

  /** Runs the model on given token ids. */
  runIds(ids) {
    const status = this.heap.withBuffer(ids.length * 4 + 4, (p) => {
      this.heap.i32(p, ids.length).set(ids);
    }, (p) => this.x.attn_session_run_ids(this.pointer, p, ids.length));
    return this.finishRun(status);
  }

  /** A failed run leaves the session empty (n = 0), so nothing reads the previous run. */
  finishRun(status) {
    this.n = this.x.attn_session_length(this.pointer);
    check(this.engine, status);
    return this.tokens();
  }

  tokens() {
    const x = this.x, s = this.pointer;
    const n = (this.n = x.attn_session_length(s));
    return {
      ...this.engine.tokenList(this.heap.i32(x.attn_session_ids(s), n),
        this.heap.i32(x.attn_session_starts(s), n), this.heap.i32(x.attn_session_ends(s), n)),
      truncated: x.attn_session_truncated(s) === 1,
      fullLength: x.attn_session_full_length(s),
    };
  }

  /** All heads' probabilities, [layers][heads][n][n], as a copy. */
  attention() {
    const { layers, heads } = this.engine.shape;
    const n = this.n;
    return this.heap.f32(this.x.attn_session_attention(this.pointer), layers * heads * n * n).slice();
  }

  row(layer, head, row) {
    this.checkHead(layer, head, row);
    const { heads } = this.engine.shape;
    const n = this.n;
    const start = ((layer * heads + head) * n + row) * n * 4;
    return this.heap.f32(this.x.attn_session_attention(this.pointer) + start, n).slice();
  }

  rowStats(layer, head, row) {
    const values = this.heap.withBuffer(56, (p) =>
      check(this.engine, this.x.attn_session_row_stats(this.pointer, layer, head, row, p)),
    (p) => Array.from(this.heap.f64(p, 7)));
    return Object.fromEntries(STATS.map((name, i) => [name, values[i]]));
  }

  /** Final (layer = layers) or intermediate hidden states, [n][hidden], as a copy. */
  hidden(layer = this.engine.shape.layers) {
    const p = this.x.attn_session_hidden(this.pointer, layer);
    if (!p) throw new EngineError(22, this.engine.statusMessage(22));
    return this.heap.f32(p, this.n * this.engine.shape.hidden).slice();
  }

  rollout(lastLayer = this.engine.shape.layers - 1) {
    return this.floats(this.n * this.n, (p) => this.x.attn_session_rollout(this.pointer, lastLayer, p));
  }

  headRoles(layer, head) {
    let roles = 0;
    const mass = this.heap.withBuffer(16, (p) => {
      roles = this.x.attn_session_head_roles(this.pointer, layer, head, p);
      if (roles < 0) check(this.engine, -roles);
    }, (p) => Array.from(this.heap.f32(p, 4)));
    return {
      roles: ROLE_NAMES.filter((_, bit) => roles & (1 << bit)),
      mass: { word: mass[0], cls: mass[1], sep: mass[2], punctuation: mass[3] },
    };
  }

  contributions(layer, head, row) {
    return this.floats(this.n, (p) => this.x.attn_session_contributions(this.pointer, layer, head, row, p));
  }

  /** The row recomputed from the same q·k scores, divided by √d (the model) or not (what-if). */
  rowScaled(layer, head, row, divideBySqrtD) {
    return this.floats(this.n, (p) =>
      this.x.attn_session_row_scaled(this.pointer, layer, head, row, divideBySqrtD ? 1 : 0, p));
  }

  walkthrough(layer, token) {
    const h = this.engine.shape.hidden;
    const all = this.floats(4 * h, (p) => this.x.attn_session_walkthrough(this.pointer, layer, token, p));
    return {
      concat: all.subarray(0, h), projected: all.subarray(h, 2 * h),
      residual: all.subarray(2 * h, 3 * h), normed: all.subarray(3 * h),
    };
  }

  /** Top-k masked-word predictions at a position: [{id, token, probability}]. */
  mlm(position, k = 5) {
    return this.heap.withBuffer(8 * k, (p) =>
      check(this.engine, this.x.attn_session_mlm(this.pointer, position, k, p, p + 4 * k)),
    (p) => {
      const ids = this.heap.i32(p, k), probs = this.heap.f32(p + 4 * k, k);
      return Array.from(ids, (id, i) => ({ id, token: this.engine.token(id), probability: probs[i] }));
    });
  }

  floats(count, fill) {
    return this.heap.withBuffer(count * 4 || 4, (p) => check(this.engine, fill(p)),
      (p) => this.heap.f32(p, count).slice());
  }

  checkHead(layer, head, row) {
    const { layers, heads } = this.engine.shape;
    const ok = [layer, head, row].every(Number.isInteger) && layer >= 0 && layer < layers &&
      head >= 0 && head < heads && row >= 0 && row < this.n;
    if (!ok) throw new EngineError(22, this.engine.statusMessage(22));
  }

  destroy() { this.x.attn_session_destroy(this.pointer); }
}

// ---- web/src/format.mjs ----
// How numbers and tokens are written on the page.

const SPECIAL_TOKENS = ['[CLS]', '[SEP]', '[MASK]', '[PAD]', '[UNK]'];

function isSpecialToken(token) {
  return SPECIAL_TOKENS.includes(token);
}

/** Fixed decimals, with a real minus sign. */
function fixed(value, digits = 3) {
  if (!Number.isFinite(value)) return String(value);
  const text = value.toFixed(digits);
  return text.startsWith('-') && Number(text) !== 0 ? '\u2212' + text.slice(1) : text.replace(/^-/, '');
}

/** A probability as shown on bars: 0.221, or 3e-4 style for tiny values. */
function probability(value) {
  if (value !== 0 && Math.abs(value) < 0.001) return value.toExponential(0).replace('-', '\u2212');
  return fixed(value, 3);
}

function percent(value) {
  return value >= 0.0995 ? `${(value * 100).toFixed(0)}%` : `${(value * 100).toFixed(1)}%`;
}

/** "layer 2 · head 3" from 0-based indices. */
function headName(layer, head) {
  return `layer ${layer + 1} \u00b7 head ${head + 1}`;
}

/** The token as shown in labels: WordPiece pieces keep their ## prefix. */
function tokenLabel(token) {
  return token;
}

/** "“cat” (token 2)" */
function tokenPhrase(token, index) {
  return `\u201c${token}\u201d (token ${index})`;
}

/** One line reading the ratio to uniform (max × n). */
function ratioReading(ratio, n, topToken) {
  const r = ratio.toFixed(1);
  if (n <= 1) return 'Only one token: every row is trivially 1.0.';
  if (ratio < 1.25) return `${r}: no better than uniform \u2014 the weight is spread evenly over all ${n} tokens.`;
  if (ratio < 2.5) return `${r}: a mild preference \u2014 the top token \u201c${topToken}\u201d gets ${r}\u00d7 its uniform share of 1/${n}.`;
  if (ratio < 0.6 * n) return `${r}: focused \u2014 the top token \u201c${topToken}\u201d gets ${r}\u00d7 its uniform share of 1/${n}.`;
  return `${r} of a possible ${n}: almost all the weight is on \u201c${topToken}\u201d.`;
}

const WORD_SWAPS = new Map(Object.entries({
  cat: 'dog', dog: 'cat', he: 'she', she: 'he', his: 'her', her: 'his', him: 'her',
  man: 'woman', woman: 'man', boy: 'girl', girl: 'boy', big: 'small', small: 'big',
  good: 'bad', bad: 'good', tired: 'hungry', hungry: 'tired', river: 'road', bank: 'shop',
  it: 'she', they: 'we', we: 'they', mat: 'sofa', sat: 'slept', king: 'queen', queen: 'king',
  happy: 'sad', sad: 'happy', old: 'young', young: 'old', red: 'blue', blue: 'red',
  is: 'was', was: 'is', not: 'also', on: 'under', under: 'on',
}));

/** The sentence with one word changed, for the Compare view's default second sentence. */
function changeOneWord(sentence) {
  const words = [...sentence.matchAll(/[A-Za-z]+/g)];
  const swappable = words.find((m) => WORD_SWAPS.has(m[0].toLowerCase()));
  const target = swappable ?? words.filter((m) => m[0].length > 2).pop() ?? words.pop();
  if (!target) return sentence ? `${sentence} too` : 'The dog sat on the mat.';
  let replacement = WORD_SWAPS.get(target[0].toLowerCase()) ?? 'thing';
  if (/^[A-Z]/.test(target[0])) replacement = replacement[0].toUpperCase() + replacement.slice(1);
  return sentence.slice(0, target.index) + replacement + sentence.slice(target.index + target[0].length);
}

/** Mean and (population) standard deviation of a vector, for the layer walkthrough. */
function meanAndDeviation(values) {
  let sum = 0;
  for (const v of values) sum += v;
  const mean = sum / values.length;
  let squares = 0;
  for (const v of values) squares += (v - mean) * (v - mean);
  return { mean, deviation: Math.sqrt(squares / values.length) };
}

/** Index and value of the largest entry. */
function largest(values) {
  let index = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[index]) index = i;
  return { index, value: values[index] };
}

function total(values) {
  let sum = 0;
  for (const v of values) sum += v;
  return sum;
}

/** exp(entropy) of a probability row: the "effective number of tokens" of a what-if row. */
function effectiveTokens(values) {
  let entropy = 0;
  for (const p of values) if (p > 0) entropy -= p * Math.log(p);
  return Math.exp(entropy);
}

function fileSafe(text) {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'token';
}

function megabytes(bytes) {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

// ---- web/src/loader.mjs ----
// Loads the wasm engine and the weights once per page, however many explorers there are.
// From file:// nothing is fetched (browsers refuse it): the wasm and the weights come from
// classic scripts that hold them as base64 (dist/attn.wasm.js, dist/bert-mini.weights.js).
// Over http(s) the binary files are fetched first and the scripts are the fallback.


const OUT_OF_MEMORY = 20;  // ATTN_ERR_NO_MEMORY in c/attn.h

// Byte sizes of the default assets, for progress; tools/build-web.mjs fills this line in.
const ASSET_BYTES = {"attn.wasm":139895,"bert-mini.int8.bin":23061024};

const DEFAULT_ASSETS = {
  wasm: 'attn.wasm',
  wasmScript: 'attn.wasm.js',
  weights: '../../weights/bert-mini.int8.bin',
  weightsScript: 'bert-mini.weights.js',
};

/** A failure while loading, with the part that failed ('wasm', 'weights' or 'engine'). */
class LoadError extends Error {
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
    if (error instanceof EngineError && error.code !== OUT_OF_MEMORY) {
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
function loadEngine(options, onProgress) {
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
function engineCount() {
  return engineLoads.size;
}

// ---- web/src/styles.mjs ----
// The explorer's stylesheet (adopted into its shadow root, so it works under a CSP
// without 'unsafe-inline'). Colours are custom properties; .theme-dark swaps them.

const EXPLORER_CSS = `
:host { display: block; margin: 1.5rem 0; }
:host([hidden]) { display: none; }
* { box-sizing: border-box; }
.explorer {
  --bg: #ffffff; --ink: #1b1f24; --muted: #56606b; --line: #d8dde3; --line-strong: #8f99a4;
  --plot: #f3f5f8; --chosen-band: rgba(0, 114, 178, 0.09); --accent: #0072b2; --focus: #b35806;
  --special: #7b3fa0; --cell: #f7f8fa; --chip: #f1f3f6; --chip-on: #0072b2; --chip-on-ink: #ffffff;
  --warn-bg: #fff4e0; --warn-line: #e69f00; --error-bg: #fdecea; --error-line: #c0392b;
  --badge-positional: #fbe0cc; --badge-positional-ink: #8a3300; --badge-sink: #e6e8ec; --badge-sink-ink: #3b4350;
  --badge-broad: #d7ecf8; --badge-broad-ink: #00466e;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif;
  color: var(--ink); background: var(--bg); border: 1px solid var(--line); border-radius: 14px;
  padding: 18px 20px 20px; container-type: inline-size;
}
.explorer.theme-dark {
  --bg: #15181d; --ink: #e9ecef; --muted: #a4adb8; --line: #2f353d; --line-strong: #65707c;
  --plot: #1c2027; --chosen-band: rgba(86, 180, 233, 0.13); --accent: #56b4e9; --focus: #e69f00;
  --special: #c9a4e0; --cell: #1b1f25; --chip: #232830; --chip-on: #56b4e9; --chip-on-ink: #0b1116;
  --warn-bg: #2f2613; --warn-line: #e69f00; --error-bg: #3a1d1a; --error-line: #ff8a7a;
  --badge-positional: #4a2a14; --badge-positional-ink: #ffc7a0; --badge-sink: #2c323a; --badge-sink-ink: #d2d8df;
  --badge-broad: #123247; --badge-broad-ink: #a8dcfa;
}
button, textarea, input { font: inherit; color: inherit; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }

.status { display: flex; align-items: center; gap: 12px; color: var(--muted); font-size: 14px; min-height: 28px; }
.status[hidden] { display: none; }
.progress { flex: 0 0 160px; height: 6px; border-radius: 3px; background: var(--plot); overflow: hidden; border: 1px solid var(--line); }
.progress-bar { height: 100%; width: 0; background: var(--accent); transition: width 120ms linear; }
.progress.indeterminate .progress-bar { width: 35%; animation: slide 1.1s ease-in-out infinite alternate; }
@keyframes slide { from { margin-left: 0; } to { margin-left: 65%; } }
@media (prefers-reduced-motion: reduce) { .progress.indeterminate .progress-bar { animation: none; width: 100%; opacity: .5; } }
.error { border: 1px solid var(--error-line); background: var(--error-bg); border-radius: 10px; padding: 12px 14px; }
.error[hidden] { display: none; }
.error strong { display: block; margin-bottom: 4px; }
.error code { font-size: 13px; }
.main[hidden] { display: none; }

.field-label { display: block; font-weight: 600; font-size: 14px; margin: 0 0 6px; }
.field-help { font-weight: 400; color: var(--muted); }
textarea {
  width: 100%; min-height: 2.6em; resize: vertical; padding: 8px 10px; border-radius: 8px;
  border: 1px solid var(--line-strong); background: var(--bg); line-height: 1.4; font-size: 16px;
}
.token-info { display: flex; flex-wrap: wrap; gap: 4px 16px; justify-content: space-between; color: var(--muted); font-size: 13px; margin: 10px 0 6px; }
.notice { color: var(--ink); background: var(--warn-bg); border-left: 4px solid var(--warn-line); padding: 4px 10px; border-radius: 4px; margin: 6px 0; font-size: 14px; }
.notice[hidden] { display: none; }
.busy { font-size: 13px; color: var(--muted); }
.busy[hidden] { display: none; }
.tokens { display: flex; flex-wrap: wrap; gap: 5px; padding: 2px; max-height: 12.5em; overflow-y: auto; }
.token {
  border: 1px solid var(--line); background: var(--chip); border-radius: 7px; padding: 2px 8px 3px;
  cursor: pointer; font-size: 15px; line-height: 1.35; display: inline-flex; align-items: baseline; gap: 5px;
}
.token .index { font-size: 11px; color: var(--muted); font-variant-numeric: tabular-nums; }
.token .piece-mark { color: var(--muted); }
.token.special { border-style: dashed; border-color: var(--special); color: var(--special); font-size: 13px; font-weight: 600; }
.token[aria-selected="true"] { background: var(--chip-on); border-color: var(--chip-on); color: var(--chip-on-ink); }
.token[aria-selected="true"] .index, .token[aria-selected="true"] .piece-mark { color: inherit; opacity: .8; }
.mask-predictions { margin: 8px 0 0; font-size: 14px; }
.mask-predictions[hidden] { display: none; }
.mask-predictions .mask-line { margin: 2px 0; }
.mask-predictions b { font-weight: 600; }

.pickers { display: flex; flex-wrap: wrap; gap: 10px 22px; align-items: center; margin: 14px 0 10px; }
.picker { display: flex; align-items: center; gap: 6px; }
.picker-label { font-size: 14px; font-weight: 600; }
.segmented { display: inline-flex; border: 1px solid var(--line-strong); border-radius: 8px; overflow: hidden; }
.segmented button { border: 0; background: var(--bg); padding: 4px 12px; min-width: 2.4em; cursor: pointer; font-variant-numeric: tabular-nums; }
.segmented button + button { border-left: 1px solid var(--line); }
.segmented button[aria-checked="true"] { background: var(--accent); color: var(--chip-on-ink); font-weight: 600; }
.which { font-size: 14px; color: var(--muted); }
.which strong { color: var(--ink); }

.tabs { display: flex; flex-wrap: wrap; gap: 2px 4px; border-bottom: 1px solid var(--line); margin-top: 6px; }
.tab {
  border: 1px solid transparent; border-bottom: 0; background: none; padding: 7px 9px 8px; cursor: pointer;
  border-radius: 8px 8px 0 0; color: var(--muted); font-size: 14.5px; margin-bottom: -1px; white-space: nowrap;
}
.tab:hover { color: var(--ink); background: var(--plot); }
.tab[aria-selected="true"] { color: var(--ink); border-color: var(--line); background: var(--bg); font-weight: 650; box-shadow: inset 0 3px 0 var(--accent); }
.panel { padding-top: 12px; }
.view-controls { display: flex; flex-wrap: wrap; gap: 10px 20px; align-items: center; margin-bottom: 8px; }
.view-controls[hidden], .view-control[hidden] { display: none; }
.view-control { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; width: 100%; }
.toggle { display: inline-flex; align-items: center; gap: 8px; cursor: pointer; font-size: 14.5px; }
.toggle input { width: 18px; height: 18px; accent-color: var(--accent); }
.whatif-tag { font-size: 12px; font-weight: 700; letter-spacing: .04em; padding: 1px 6px; border-radius: 4px; background: var(--warn-bg); border: 1px solid var(--warn-line); }
.compare-box { width: 100%; }
.figure-box { width: 100%; overflow-x: auto; }
.figure-box svg { display: block; max-width: none; }
.figure-box svg:focus { outline: none; }
.figure-box svg:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.hover-readout { min-height: 1.5em; font-size: 14px; font-variant-numeric: tabular-nums; margin: 4px 0 0; }
.notes p { margin: 8px 0; }
.readout { display: flex; flex-wrap: wrap; gap: 6px 22px; font-size: 14.5px; }
.stat { display: inline-flex; gap: 6px; align-items: baseline; }
.stat-label { color: var(--muted); }
.stat-value { font-weight: 650; font-variant-numeric: tabular-nums; }
.reading { font-size: 15px; }
.hint { color: var(--muted); font-size: 14px; }
.warning { background: var(--warn-bg); border-left: 4px solid var(--warn-line); padding: 8px 12px; border-radius: 4px; font-size: 14.5px; }
.role-legend { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; font-size: 13.5px; color: var(--muted); margin: 8px 0; }
.role-legend dt { font-weight: 600; color: var(--ink); }
.role-legend dd { margin: 0; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 12px; }
.actions button, .small-button {
  border: 1px solid var(--line-strong); background: var(--bg); border-radius: 8px; padding: 4px 12px; cursor: pointer; font-size: 14px;
}
.actions button:hover, .small-button:hover { background: var(--plot); }
@media (max-width: 560px) {
  .explorer { padding: 12px 10px 14px; border-radius: 10px; }
}
@container (max-width: 520px) {
  .tab { padding: 6px 8px 7px; font-size: 13.5px; }
  .role-legend { grid-template-columns: 1fr; }
}

/* figures */
.figure text { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; font-variant-numeric: tabular-nums; }
.fig-bg { fill: var(--bg); }
.fig-title { font-size: 15px; font-weight: 650; fill: var(--ink); }
.fig-sub { font-size: 13px; fill: var(--muted); }
.col-head { font-size: 13px; font-weight: 650; }
.col-head-muted { font-size: 12.5px; font-weight: 600; fill: var(--muted); }
.col-stat { font-size: 12px; fill: var(--muted); }
.col-stat-main { fill: var(--ink); font-weight: 600; font-size: 12.5px; }
.tok { font-size: 12.5px; fill: var(--ink); }
.tok-special { fill: var(--special); font-weight: 600; }
.tok-chosen { font-weight: 750; text-decoration: underline; }
.tok-index { font-size: 11px; fill: var(--muted); }
.val { font-size: 11.5px; fill: var(--muted); }
.plot-bg { fill: var(--plot); }
.chosen-band { fill: var(--chosen-band); }
.uniform-line { stroke: var(--ink); stroke-width: 1.3; stroke-dasharray: 4 3; }
.uniform-line.thin { stroke-width: 0.8; stroke-dasharray: 3 2; stroke: var(--muted); }
.uniform-label { font-size: 11px; fill: var(--ink); }
.zero-line { stroke: var(--ink); stroke-width: 1; }
.axis { font-size: 11px; fill: var(--muted); }
.axis-line { stroke: var(--line-strong); stroke-width: 1; }
.legend-frame { fill: none; stroke: var(--line-strong); stroke-width: 1; }
.segment-line { stroke: var(--ink); stroke-width: 1.5; }
.head-cell { cursor: pointer; }
.head-cell:focus { outline: none; }
.cell-bg { fill: var(--cell); stroke: var(--line); stroke-width: 1; }
.head-cell:hover .cell-bg { stroke: var(--line-strong); }
.head-cell.selected .cell-bg { stroke: var(--accent); stroke-width: 2.5; }
.head-cell:focus-visible .cell-bg { stroke: var(--focus); stroke-width: 3; }
.cell-name { font-size: 12.5px; font-weight: 650; fill: var(--ink); }
.cell-sum { font-size: 11px; fill: var(--muted); }
.cell-ratio { font-size: 21px; font-weight: 700; fill: var(--ink); }
.cell-eff { font-size: 11.5px; fill: var(--muted); }
.cell-ratio-compact { font-size: 15px; font-weight: 700; fill: var(--ink); }
.badge { stroke: none; }
.badge-previous, .badge-next { fill: var(--badge-positional); }
.badge-cls-sink, .badge-sep-sink, .badge-punct-sink { fill: var(--badge-sink); }
.badge-broad { fill: var(--badge-broad); }
.badge-text { font-size: 10.5px; font-weight: 600; }
.badge-text-previous, .badge-text-next { fill: var(--badge-positional-ink); }
.badge-text-cls-sink, .badge-text-sep-sink, .badge-text-punct-sink { fill: var(--badge-sink-ink); }
.badge-text-broad { fill: var(--badge-broad-ink); }
.matrix-col { font-size: 12px; }
.matrix-chosen { fill: none; stroke: var(--accent); stroke-width: 2; }
.matrix-cursor { fill: none; stroke: var(--focus); stroke-width: 2.5; }
.cell-value { font-size: 10.5px; }
.table-value { font-size: 13px; font-weight: 600; }
.table-chosen { fill: none; stroke: var(--ink); stroke-width: 3; }
`;

// ---- web/src/view-state.mjs ----
// The explorer's state, where it comes from (attributes, the URL hash) and how it is
// validated. Layers and heads are 1-based outside (attributes, hash, labels) and 0-based
// inside; token indices are 0-based everywhere ([CLS] = 0).

const VIEWS = [
  { id: 'row', label: 'Row' },
  { id: 'grid', label: 'All heads' },
  { id: 'rollout', label: 'Rollout' },
  { id: 'matrix', label: 'Matrix' },
  { id: 'entropy', label: 'Entropy' },
  { id: 'contributions', label: 'Contribution' },
  { id: 'mlm', label: '[MASK]' },
  { id: 'compare', label: 'Compare' },
  { id: 'layer', label: 'Inside a layer' },
  { id: 'scaling', label: 'Why \u221ad' },
];
const VIEW_IDS = VIEWS.map((v) => v.id);

const MAX_SENTENCE_CHARS = 20000;
const DEFAULT_SENTENCE = 'The cat sat on the mat because it was tired.';

/** An integer in [1, max] from text, or null. */
function oneBasedIndex(text, max) {
  if (typeof text !== 'string' || !/^\d{1,3}$/.test(text.trim())) return null;
  const value = Number(text);
  return value >= 1 && value <= max ? value : null;
}

/** A token index in [0, 511] from text, or null (the run decides the real upper bound). */
function tokenIndex(text) {
  if (typeof text !== 'string' || !/^\d{1,3}$/.test(text.trim())) return null;
  const value = Number(text);
  return value <= 511 ? value : null;
}

function viewId(text) {
  return VIEW_IDS.includes(text) ? text : null;
}

function cleanSentence(text) {
  if (typeof text !== 'string') return null;
  return [...text].slice(0, MAX_SENTENCE_CHARS).join('');
}

/**
 * Reads the settings an attribute or hash gives. Unknown or invalid values are dropped,
 * never echoed. `get(name)` returns the raw text or null.
 */
function readSettings(get, { layers = 4, heads = 4 } = {}) {
  const settings = {};
  const sentence = cleanSentence(get('sentence'));
  if (sentence !== null) settings.sentence = sentence;
  const layer = oneBasedIndex(get('layer'), layers);
  if (layer !== null) settings.layer = layer - 1;
  const head = oneBasedIndex(get('head'), heads);
  if (head !== null) settings.head = head - 1;
  const token = tokenIndex(get('token'));
  if (token !== null) settings.token = token;
  const view = viewId(get('view'));
  if (view !== null) settings.view = view;
  return settings;
}

function readHash(hash, shape) {
  const params = new URLSearchParams(String(hash || '').replace(/^#/, ''));
  return readSettings((name) => params.get(name), shape);
}

function writeHash(state) {
  const params = new URLSearchParams();
  params.set('sentence', state.sentence);
  params.set('layer', String(state.layer + 1));
  params.set('head', String(state.head + 1));
  params.set('token', String(state.token));
  params.set('view', state.view);
  return '#' + params.toString().replace(/\+/g, '%20');
}

// ---- web/src/palette.mjs ----
// Colour scales. Sequential: ColorBrewer Blues (light) and viridis (dark); diverging:
// ColorBrewer PuOr (orange for negative, purple for positive); categorical: Okabe–Ito.
// All are distinguishable with the common colour-vision deficiencies.

const SEQUENTIAL = {
  light: ['#f7fbff', '#deebf7', '#c6dbef', '#9ecae1', '#6baed6', '#4292c6', '#2171b5', '#08519c', '#08306b'],
  dark: ['#1a1d24', '#2b1f4d', '#3b2f7a', '#31688e', '#26828e', '#1f9e89', '#35b779', '#90d743', '#fde725'],
};
const DIVERGING = {
  light: ['#b35806', '#e08214', '#fdb863', '#fee0b6', '#f7f7f7', '#d8daeb', '#b2abd2', '#8073ac', '#542788'],
  dark: ['#f1a340', '#d08a2e', '#8f5b1f', '#4a3520', '#22252c', '#3b3560', '#6f64a8', '#a49ad8', '#d8d2f7'],
};

/** Okabe–Ito colours used for the columns of a figure (head, rollout, compare B, …). */
const SERIES = {
  light: { head: '#0072b2', rollout: '#d55e00', second: '#009e73', whatif: '#cc79a7', muted: '#7a7f87' },
  dark: { head: '#56b4e9', rollout: '#e69f00', second: '#2fd1a0', whatif: '#e59ac6', muted: '#9aa0a8' },
};

function parseHex(hex) {
  const v = parseInt(hex.slice(1), 16);
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}

const parsedStops = new Map();
function stopsOf(list) {
  let parsed = parsedStops.get(list);
  if (!parsed) parsedStops.set(list, (parsed = list.map(parseHex)));
  return parsed;
}

function interpolate(list, t) {
  const stops = stopsOf(list);
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const f = x - i;
  return stops[i].map((c, k) => Math.round(c + (stops[i + 1][k] - c) * f));
}

/** [r, g, b] for t in [0, 1]. */
function sequentialRgb(t, theme) {
  return interpolate(SEQUENTIAL[theme], t);
}

function sequential(t, theme) {
  const [r, g, b] = sequentialRgb(t, theme);
  return `rgb(${r},${g},${b})`;
}

/** t in [-1, 1]; 0 is the neutral middle. */
function diverging(t, theme) {
  const [r, g, b] = interpolate(DIVERGING[theme], (t + 1) / 2);
  return `rgb(${r},${g},${b})`;
}

/** Black or white text, whichever reads better on an sRGB background. */
function inkOn([r, g, b]) {
  const luminance = (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  return luminance > 0.55 ? '#111' : '#fff';
}

function legendStops(theme, kind = 'sequential') {
  return kind === 'sequential' ? SEQUENTIAL[theme] : DIVERGING[theme];
}

// ---- web/src/charts.mjs ----
// Figures drawn as SVG: token rows of bars, heat maps, strips. Each figure starts with a
// title that names the attention it shows, so an exported picture explains itself.


const FIGURE_PAD = 14;
const TITLE_SIZE = 15;
const LINE = 18;

/** A round upper bound for an axis that must show `value`. */
function niceMax(value) {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) {
    if (value <= step * power * 1.0000001) return step * power;
  }
  return 10 * power;
}

/** Wraps text into lines of at most `width` px. */
function wrapText(text, width, size = 13, weight = 400) {
  const words = String(text).split(/\s+/);
  const lines = [];
  let line = '';
  for (const word of words) {
    const next = line ? `${line} ${word}` : word;
    if (line && textWidth(next, size, weight) > width) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

/** Title and subtitle lines at the top of a figure; returns the y below them. */
function figureHeader(parent, { title, subtitle = [], width }) {
  let y = FIGURE_PAD + TITLE_SIZE;
  for (const line of wrapText(title, width - 2 * FIGURE_PAD, TITLE_SIZE, 700)) {
    parent.append(svg('text', { x: FIGURE_PAD, y, class: 'fig-title', text: line }));
    y += LINE + 2;
  }
  for (const paragraph of [subtitle].flat()) {
    for (const line of wrapText(paragraph, width - 2 * FIGURE_PAD, 13)) {
      parent.append(svg('text', { x: FIGURE_PAD, y: y - 2, class: 'fig-sub', text: line }));
      y += LINE - 1;
    }
  }
  return y + 4;
}

function figureRoot(width, height, label) {
  return svg('svg', {
    class: 'figure', width, height, viewBox: `0 0 ${width} ${height}`,
    role: 'group', 'aria-label': label, xmlns: 'http://www.w3.org/2000/svg',
  });
}

function rowHeightFor(n) {
  if (n <= 40) return 22;
  if (n <= 80) return 14;
  return Math.max(2, Math.min(12, Math.floor(1400 / n)));
}

function tokenColumnWidth(tokens, width, showLabels, indexText) {
  if (!showLabels) return 44;
  let widest = 0;
  for (const token of tokens) widest = Math.max(widest, textWidth(token, 12.5));
  const lastIndex = indexText ? indexText(tokens.length - 1) : String(tokens.length - 1);
  const indexWidth = textWidth(lastIndex, 11) + 10;
  return Math.min(Math.round(width * 0.32), Math.ceil(widest + indexWidth + 12));
}

function drawTokenLabels(parent, { tokens, labels, top, rowHeight, labelWidth, selected, showLabels, indexText }) {
  const group = svg('g', { class: 'token-labels' });
  const every = showLabels ? 1 : Math.ceil(12 / rowHeight);
  tokens.forEach((token, i) => {
    if (!showLabels && i % every !== 0 && i !== selected) return;
    const y = top + i * rowHeight + rowHeight / 2;
    const size = showLabels ? 12.5 : 10;
    if (showLabels) {
      group.append(svg('text', { x: FIGURE_PAD, y, class: 'tok-index', 'dominant-baseline': 'central', text: indexText ? indexText(i) : String(i) }));
    }
    const special = isSpecialToken(token) ? ' tok-special' : '';
    const chosen = i === selected ? ' tok-chosen' : '';
    const label = labels ? labels[i] : token;
    group.append(svg('text', {
      x: FIGURE_PAD + labelWidth - 10, y, 'text-anchor': 'end', 'dominant-baseline': 'central',
      class: `tok${special}${chosen}`, 'font-size': size, text: showLabels ? label : String(i),
    }));
  });
  parent.append(group);
}

function columnHeading(parent, column, x, y, width) {
  parent.append(svg('text', { x, y, class: 'col-head', fill: column.colour, text: column.heading }));
  (column.stats || []).forEach((line, k) => {
    const cls = k === 0 && column.emphasiseStats ? 'col-stat col-stat-main' : 'col-stat';
    parent.append(svg('text', { x, y: y + 17 + k * 16, class: cls, text: line }));
  });
  if (width < 0) parent.lastChild.remove();
}

function drawProbabilityColumn(group, column, geometry) {
  const { x, width, top, rowHeight, n, showValues, theme } = geometry;
  const valueWidth = showValues ? 50 : 6;
  const barWidth = Math.max(20, width - valueWidth);
  const scaleMax = column.scaleMax ?? niceMax(Math.max(...column.values));
  const scale = (v) => (Math.max(0, v) / scaleMax) * barWidth;
  group.append(svg('rect', {
    x, y: top, width: barWidth, height: n * rowHeight, class: 'plot-bg',
  }));
  column.values.forEach((value, i) => {
    const y = top + i * rowHeight;
    const barHeight = Math.max(1, rowHeight - (rowHeight > 8 ? 6 : 1));
    group.append(svg('rect', {
      x, y: y + (rowHeight - barHeight) / 2, width: Math.max(0.5, scale(value)), height: barHeight,
      fill: column.colour, class: 'bar', dataset: { token: String(i), value: String(value) },
    }, [svg('title', { text: `${column.tokens[i]} (token ${i}): ${column.format(value)}` })]));
    if (showValues) {
      group.append(svg('text', {
        x: x + width, y: y + rowHeight / 2, 'text-anchor': 'end', 'dominant-baseline': 'central',
        class: 'val', text: column.format(value, i),
      }));
    }
  });
  if (column.uniform) {
    const ux = x + scale(column.uniform);
    group.append(svg('line', {
      x1: ux, x2: ux, y1: top - 4, y2: top + n * rowHeight + 20, class: 'uniform-line',
    }));
    group.append(svg('text', {
      x: ux, y: top + n * rowHeight + 31, 'text-anchor': ux - x < 40 ? 'start' : 'middle', class: 'uniform-label',
      text: `dashed: 1/n = ${probability(column.uniform)}`,
    }));
  }
  drawAxis(group, { x, width: barWidth, y: top + n * rowHeight, scaleMax, theme });
}

function drawSignedColumn(group, column, geometry) {
  const { x, width, top, rowHeight, n, showValues, theme } = geometry;
  const valueWidth = showValues ? 56 : 6;
  const barWidth = Math.max(24, width - valueWidth);
  const limit = column.scaleMax ?? niceMax(Math.max(1e-6, ...column.values.map(Math.abs)));
  const middle = x + barWidth / 2;
  const scale = (v) => (v / limit) * (barWidth / 2);
  group.append(svg('rect', { x, y: top, width: barWidth, height: n * rowHeight, class: 'plot-bg' }));
  column.values.forEach((value, i) => {
    const y = top + i * rowHeight;
    const barHeight = Math.max(1, rowHeight - (rowHeight > 8 ? 6 : 1));
    const length = scale(value);
    group.append(svg('rect', {
      x: length < 0 ? middle + length : middle, y: y + (rowHeight - barHeight) / 2,
      width: Math.max(0.5, Math.abs(length)), height: barHeight,
      fill: diverging(value < 0 ? -0.85 : 0.85, theme), class: 'bar',
      dataset: { token: String(i), value: String(value) },
    }, [svg('title', { text: `${column.tokens[i]} (token ${i}): ${column.format(value)}` })]));
    if (showValues) {
      group.append(svg('text', {
        x: x + width, y: y + rowHeight / 2, 'text-anchor': 'end', 'dominant-baseline': 'central',
        class: 'val', text: column.format(value, i),
      }));
    }
  });
  group.append(svg('line', { x1: middle, x2: middle, y1: top - 4, y2: top + n * rowHeight + 4, class: 'zero-line' }));
  const axisY = top + n * rowHeight;
  for (const [tx, label] of [[x, -limit], [middle, 0], [x + barWidth, limit]]) {
    group.append(svg('line', { x1: tx, x2: tx, y1: axisY, y2: axisY + 4, class: 'axis-line' }));
    group.append(svg('text', { x: tx, y: axisY + 16, 'text-anchor': 'middle', class: 'axis', text: fixed(label, limit < 0.01 ? 4 : limit < 0.1 ? 3 : 2) }));
  }
}

function drawAxis(group, { x, width, y, scaleMax }) {
  group.append(svg('line', { x1: x, x2: x + width, y1: y, y2: y, class: 'axis-line' }));
  const ticks = width > 160 ? [0, scaleMax / 2, scaleMax] : [0, scaleMax];
  for (const tick of ticks) {
    const tx = x + (tick / scaleMax) * width;
    group.append(svg('line', { x1: tx, x2: tx, y1: y, y2: y + 4, class: 'axis-line' }));
    group.append(svg('text', {
      x: tx, y: y + 16, 'text-anchor': tick === 0 ? 'start' : tick === scaleMax ? 'end' : 'middle',
      class: 'axis', text: niceTick(tick),
    }));
  }
}

function niceTick(value) {
  if (value === 0) return '0';
  if (value >= 10) return String(Math.round(value));
  if (value >= 1) return String(Number(value.toFixed(1)));
  return String(Number(value.toPrecision(2)));
}

/**
 * One bar per token in one or more side-by-side columns.
 * columns: [{heading, stats: [lines], values, kind: 'probability'|'signed', colour,
 *            uniform, scaleMax, format(v, i), data: {…data attributes}, className}]
 */
function tokenBarFigure({ width, theme, title, subtitle, tokens, labels, selected, columns, label, indexText }) {
  const n = tokens.length;
  const rowHeight = rowHeightFor(n);
  const showLabels = rowHeight >= 11;
  const labelWidth = tokenColumnWidth(labels || tokens, width, showLabels, indexText);
  const gap = columns.length > 1 ? 30 : 0;
  const available = width - 2 * FIGURE_PAD - labelWidth - gap * (columns.length - 1);
  const columnWidth = Math.max(60, Math.floor(available / columns.length));
  const showValues = showLabels && columnWidth >= 90;

  const body = svg('g');
  let y = figureHeader(body, { title, subtitle, width });
  const statLines = Math.max(...columns.map((c) => (c.stats || []).length));
  const headingY = y + 8;
  const top = headingY + 10 + statLines * 16;
  drawTokenLabels(body, { tokens, labels, top, rowHeight, labelWidth, selected, showLabels, indexText });
  columns.forEach((column, k) => {
    const x = FIGURE_PAD + labelWidth + k * (columnWidth + gap);
    const group = svg('g', { class: `bar-column ${column.className || ''}`.trim(), dataset: column.data || {} });
    if (column.ariaLabel) group.setAttribute('aria-label', column.ariaLabel);
    columnHeading(group, column, x, headingY, columnWidth);
    const geometry = { x, width: columnWidth, top, rowHeight, n, showValues, theme };
    const full = { format: probability, tokens, ...column };
    if (column.kind === 'signed') drawSignedColumn(group, full, geometry);
    else drawProbabilityColumn(group, full, geometry);
    body.append(group);
  });
  if (selected !== null && selected !== undefined && selected < n) {
    body.append(svg('rect', {
      x: FIGURE_PAD - 4, y: top + selected * rowHeight, width: width - 2 * FIGURE_PAD + 8,
      height: rowHeight, class: 'chosen-band', rx: 3, 'pointer-events': 'none',
    }));
  }
  const hasUniform = columns.some((c) => c.uniform);
  const height = top + n * rowHeight + (hasUniform ? 44 : 30);
  const root = figureRoot(width, height, label || title);
  root.append(svg('rect', { x: 0, y: 0, width, height, class: 'fig-bg' }), body);
  return root;
}

/** Legend: a colour ramp with its end values. */
function colourLegend(parent, { x, y, width, theme, low, high, caption, kind = 'sequential' }) {
  const steps = 24;
  for (let s = 0; s < steps; s++) {
    const t = s / (steps - 1);
    const fill = kind === 'sequential' ? `rgb(${sequentialRgb(t, theme).join(',')})` : diverging(t * 2 - 1, theme);
    parent.append(svg('rect', { x: x + (s * width) / steps, y, width: width / steps + 0.5, height: 10, fill }));
  }
  parent.append(svg('rect', { x, y, width, height: 10, class: 'legend-frame' }));
  parent.append(svg('text', { x, y: y + 24, class: 'axis', text: low }));
  parent.append(svg('text', { x: x + width, y: y + 24, 'text-anchor': 'end', class: 'axis', text: high }));
  if (caption) parent.append(svg('text', { x: x + width / 2, y: y + 24, 'text-anchor': 'middle', class: 'axis', text: caption }));
}

function seriesColours(theme) {
  return SERIES[theme];
}

// ---- web/src/figures.mjs ----
// Figures that are not rows of bars: the head grid, the attention matrix, the layer strips.


const ROLE_BADGES = {
  previous: 'previous token', next: 'next token', 'cls-sink': '[CLS] sink',
  'sep-sink': '[SEP] sink', 'punct-sink': 'punct. sink', broad: 'broad',
};
const SHORT_BADGES = {
  previous: 'prev', next: 'next', 'cls-sink': 'CLS', 'sep-sink': 'SEP', 'punct-sink': 'punct', broad: 'broad',
};
const POSITIONAL_ROLES = ['previous', 'next'];

function isPositional(roles) {
  return roles.some((role) => POSITIONAL_ROLES.includes(role));
}

/** Stacks figures vertically in one SVG (nested <svg> elements). */
function stackFigures(width, parts, label) {
  let y = 0;
  const root = figureRoot(width, 1, label);
  root.append(svg('rect', { x: 0, y: 0, width, height: 1, class: 'fig-bg' }));
  for (const part of parts) {
    part.setAttribute('y', y);
    part.setAttribute('x', 0);
    root.append(part);
    y += Number(part.getAttribute('height'));
  }
  root.setAttribute('height', y);
  root.setAttribute('viewBox', `0 0 ${width} ${y}`);
  root.firstChild.setAttribute('height', y);
  return root;
}

function badgeRows(roles, maxWidth, compact = false) {
  const rows = [[]];
  let used = 0;
  for (const role of roles) {
    const text = compact ? SHORT_BADGES[role] : ROLE_BADGES[role];
    const w = textWidth(text, 10.5, 600) + 10;
    if (used && used + w > maxWidth) {
      rows.push([]);
      used = 0;
    }
    rows.at(-1).push({ role, text, w });
    used += w + 4;
  }
  return rows.filter((r) => r.length);
}

function sparkline(values, { x, y, width, height, colour }) {
  const group = svg('g', { class: 'sparkline', 'aria-hidden': 'true' });
  const n = values.length;
  const step = width / n;
  const peak = Math.max(...values) || 1;
  const uniformY = y + height - (1 / n / Math.max(peak, 0.05)) * height;
  group.append(svg('line', { x1: x, x2: x + width, y1: y + height, y2: y + height, class: 'axis-line' }));
  values.forEach((v, i) => {
    const h = (v / Math.max(peak, 0.05)) * height;
    group.append(svg('rect', {
      x: x + i * step + (step > 3 ? 0.5 : 0), y: y + height - h, width: Math.max(0.6, step - (step > 3 ? 1 : 0)),
      height: Math.max(0.5, h), fill: colour,
    }));
  });
  group.append(svg('line', { x1: x, x2: x + width, y1: uniformY, y2: uniformY, class: 'uniform-line thin' }));
  return group;
}

/**
 * The 4 × 4 head grid for one token. cells: [{layer, head, stats, roles, values}], 0-based.
 */
function headGridFigure({ width, theme, title, subtitle, cells, layers, heads, selected, colour, token, n }) {
  const root = figureRoot(width, 1, title);
  const background = svg('rect', { x: 0, y: 0, width, height: 1, class: 'fig-bg' });
  root.append(background);
  let y = figureHeader(root, { title, subtitle, width });
  const labelWidth = width < 520 ? 28 : 64;
  const gap = width < 520 ? 5 : 10;
  const cellWidth = Math.floor((width - 2 * FIGURE_PAD - labelWidth - gap * (heads - 1)) / heads);
  const compact = cellWidth < 110;
  for (let h = 0; h < heads; h++) {
    const x = FIGURE_PAD + labelWidth + h * (cellWidth + gap) + cellWidth / 2;
    root.append(svg('text', { x, y: y + 4, 'text-anchor': 'middle', class: 'col-head-muted', text: compact ? `H${h + 1}` : `head ${h + 1}` }));
  }
  y += 14;
  const grid = svg('g', { role: 'grid', 'aria-label': `Heads for token ${token}: ratio to uniform` });
  const badgeHeight = 17;
  const cellHeights = [];
  for (let l = 0; l < layers; l++) {
    let tallest = 0;
    for (let h = 0; h < heads; h++) {
      const cell = cells[l * heads + h];
      tallest = Math.max(tallest, badgeRows(cell.roles, cellWidth - 12, compact).length);
    }
    cellHeights.push((compact ? 80 : 92) + tallest * (badgeHeight + 3));
  }
  for (let l = 0; l < layers; l++) {
    const row = svg('g', { role: 'row' });
    const cellHeight = cellHeights[l];
    root.append(svg('text', {
      x: FIGURE_PAD, y: y + cellHeight / 2, 'dominant-baseline': 'central', class: 'col-head-muted',
      text: compact ? `L${l + 1}` : `layer ${l + 1}`,
    }));
    for (let h = 0; h < heads; h++) {
      const cell = cells[l * heads + h];
      const x = FIGURE_PAD + labelWidth + h * (cellWidth + gap);
      row.append(headCell({ cell, x, y, cellWidth, cellHeight, selected: l === selected.layer && h === selected.head, colour, token, n, compact }));
    }
    grid.append(row);
    y += cellHeight + gap;
  }
  root.append(grid);
  const height = y + FIGURE_PAD - gap;
  root.setAttribute('height', height);
  root.setAttribute('viewBox', `0 0 ${width} ${height}`);
  background.setAttribute('height', height);
  return root;
}

function headCell({ cell, x, y, cellWidth, cellHeight, selected, colour, token, n, compact }) {
  const { layer, head, stats, roles, values } = cell;
  const label = `${headName(layer, head)}: ratio to uniform ${stats.ratio.toFixed(2)}, sum ${stats.sum.toFixed(3)}, ` +
    `effective tokens ${stats.effective.toFixed(1)} of ${n}${roles.length ? ', roles: ' + roles.map((r) => ROLE_BADGES[r]).join(', ') : ''}`;
  const group = svg('g', {
    class: `head-cell${selected ? ' selected' : ''}`, role: 'gridcell', tabindex: selected ? 0 : -1,
    'aria-selected': selected ? 'true' : 'false', 'aria-label': label,
    dataset: {
      layer: String(layer + 1), head: String(head + 1), token: String(token),
      sum: String(stats.sum), ratio: String(stats.ratio), max: String(stats.max), effective: String(stats.effective),
      roles: roles.join(' '),
    },
  });
  group.append(svg('rect', { x, y, width: cellWidth, height: cellHeight, rx: 8, class: 'cell-bg' }));
  const pad = compact ? 6 : 10;
  group.append(svg('text', { x: x + pad, y: y + 17, class: 'cell-name', text: compact ? `L${layer + 1}\u00b7H${head + 1}` : `L${layer + 1} \u00b7 H${head + 1}` }));
  if (!compact) {
    group.append(svg('text', {
      x: x + cellWidth - pad, y: y + 17, 'text-anchor': 'end', class: 'cell-sum', text: `\u03a3 ${stats.sum.toFixed(3)}`,
    }));
    group.append(svg('text', { x: x + cellWidth - pad, y: y + 42, 'text-anchor': 'end', class: 'cell-eff', text: `eff ${stats.effective.toFixed(1)}` }));
  }
  group.append(svg('text', {
    x: x + pad, y: y + (compact ? 38 : 42), class: compact ? 'cell-ratio-compact' : 'cell-ratio', text: `${stats.ratio.toFixed(2)}\u00d7`,
  }));
  const sparkTop = compact ? 46 : 52;
  group.append(sparkline(values, { x: x + pad, y: y + sparkTop, width: cellWidth - 2 * pad, height: 24, colour }));
  let by = y + sparkTop + 32;
  for (const badgeRow of badgeRows(roles, cellWidth - 2 * pad + 4, compact)) {
    let bx = x + pad;
    for (const badge of badgeRow) {
      group.append(svg('rect', { x: bx, y: by, width: badge.w, height: 17, rx: 8.5, class: `badge badge-${badge.role}` }));
      group.append(svg('text', { x: bx + badge.w / 2, y: by + 12.5, 'text-anchor': 'middle', class: `badge-text badge-text-${badge.role}`, text: badge.text }));
      bx += badge.w + 4;
    }
    by += 20;
  }
  group.append(svg('title', { text: label }));
  return group;
}

/** The n × n matrix of one head (rows: the token attending; columns: attended to). */
function matrixFigure({ width, theme, title, subtitle, tokens, rows, selected, cursor, rowStats }) {
  const n = tokens.length;
  const root = figureRoot(width, 1, title);
  const background = svg('rect', { x: 0, y: 0, width, height: 1, class: 'fig-bg' });
  root.append(background);
  let y = figureHeader(root, { title, subtitle, width });
  const showLabels = n <= 64;
  let labelWidth = 30;
  if (showLabels) for (const t of tokens) labelWidth = Math.max(labelWidth, textWidth(t, 12.5) + 40);
  labelWidth = Math.min(labelWidth, Math.round(width * 0.3));
  const cell = Math.max(0.5, Math.min(34, (width - 2 * FIGURE_PAD - labelWidth) / n));
  const topLabels = showLabels ? Math.min(90, labelWidth * 0.75 + 10) : 16;
  const left = FIGURE_PAD + labelWidth;
  const top = y + topLabels;
  let peak = 0;
  for (const row of rows) for (const v of row) if (v > peak) peak = v;
  const scaleMax = peak > 0 ? peak : 1;
  if (showLabels) {
    tokens.forEach((token, j) => {
      const cx = left + j * cell + cell / 2;
      root.append(svg('text', {
        x: cx, y: top - 6, transform: `rotate(-55 ${cx} ${top - 6})`,
        class: `tok matrix-col${isSpecialToken(token) ? ' tok-special' : ''}`, 'font-size': Math.min(12, cell * 0.8 + 3), text: token,
      }));
      root.append(svg('text', {
        x: left - 26, y: top + j * cell + cell / 2, 'text-anchor': 'end', 'dominant-baseline': 'central',
        class: `tok${isSpecialToken(token) ? ' tok-special' : ''}${j === selected ? ' tok-chosen' : ''}`,
        'font-size': Math.min(12.5, cell * 0.8 + 3), text: token,
      }));
      root.append(svg('text', {
        x: left - 6, y: top + j * cell + cell / 2, 'text-anchor': 'end', 'dominant-baseline': 'central',
        class: 'tok-index', text: String(j),
      }));
    });
  } else {
    root.append(svg('text', { x: left, y: top - 4, class: 'axis', text: `${n} × ${n}: columns and rows are tokens 0 … ${n - 1}` }));
  }
  const cells = svg('g', { class: 'matrix-cells' });
  if (n <= 64) {
    rows.forEach((row, i) => {
      const stats = rowStats(i);
      const rowGroup = svg('g', { class: 'matrix-row', dataset: { token: String(i), sum: String(stats.sum), ratio: String(stats.ratio) } });
      row.forEach((v, j) => {
        const rgb = sequentialRgb(v / scaleMax, theme);
        rowGroup.append(svg('rect', { x: left + j * cell, y: top + i * cell, width: cell + 0.3, height: cell + 0.3, fill: `rgb(${rgb.join(',')})` }));
        if (cell >= 30) {
          rowGroup.append(svg('text', {
            x: left + j * cell + cell / 2, y: top + i * cell + cell / 2, 'text-anchor': 'middle', 'dominant-baseline': 'central',
            class: 'cell-value', fill: inkOn(rgb), text: v.toFixed(2).replace(/^0/, ''),
          }));
        }
      });
      cells.append(rowGroup);
    });
  } else {
    cells.append(svg('image', {
      x: left, y: top, width: cell * n, height: cell * n, href: matrixImage(rows, scaleMax, theme),
      preserveAspectRatio: 'none', class: 'matrix-image',
    }));
  }
  root.append(cells);
  root.append(svg('text', { x: FIGURE_PAD, y: top - 8, class: 'axis', text: 'from \u2193  to \u2192' }));
  root.append(svg('rect', {
    x: left - 1, y: top + selected * cell - 1, width: n * cell + 2, height: cell + 2, class: 'matrix-chosen',
  }));
  const cursorRect = svg('rect', { x: left, y: top, width: cell, height: cell, class: 'matrix-cursor', visibility: 'hidden' });
  root.append(cursorRect);
  const bottom = top + n * cell + 18;
  colourLegend(root, {
    x: left, y: bottom, width: Math.min(220, n * cell), theme, low: '0', high: fixed(scaleMax, 3),
    caption: 'weight',
  });
  const height = bottom + 44;
  root.setAttribute('height', height);
  root.setAttribute('viewBox', `0 0 ${width} ${height}`);
  background.setAttribute('height', height);
  return { root, geometry: { left, top, cell, n }, cursorRect, cursor };
}

function matrixImage(rows, scaleMax, theme) {
  const n = rows.length;
  const canvas = document.createElement('canvas');
  canvas.width = n;
  canvas.height = n;
  const context = canvas.getContext('2d');
  const image = context.createImageData(n, n);
  rows.forEach((row, i) => row.forEach((v, j) => {
    const [r, g, b] = sequentialRgb(v / scaleMax, theme);
    const k = (i * n + j) * 4;
    image.data[k] = r; image.data[k + 1] = g; image.data[k + 2] = b; image.data[k + 3] = 255;
  }));
  context.putImageData(image, 0, 0);
  return canvas.toDataURL('image/png');
}

/** Heat strips of vectors (the layer walkthrough): [{label, values, note}] */
function stripFigure({ width, theme, title, subtitle, strips }) {
  const root = figureRoot(width, 1, title);
  const background = svg('rect', { x: 0, y: 0, width, height: 1, class: 'fig-bg' });
  root.append(background);
  let y = figureHeader(root, { title, subtitle, width });
  const stripWidth = width - 2 * FIGURE_PAD;
  for (const strip of strips) {
    const group = svg('g', { class: 'strip', dataset: strip.data || {} });
    group.append(svg('text', { x: FIGURE_PAD, y: y + 12, class: 'col-head', text: strip.label }));
    group.append(svg('text', { x: FIGURE_PAD + stripWidth, y: y + 12, 'text-anchor': 'end', class: 'col-stat col-stat-main', text: strip.note }));
    y += 20;
    const count = strip.values.length;
    const w = stripWidth / count;
    let limit = 0;
    for (const v of strip.values) limit = Math.max(limit, Math.abs(v));
    limit = limit || 1;
    strip.values.forEach((v, i) => {
      group.append(svg('rect', { x: FIGURE_PAD + i * w, y, width: w + 0.3, height: 28, fill: diverging(v / limit, theme) }));
    });
    group.append(svg('rect', { x: FIGURE_PAD, y, width: stripWidth, height: 28, class: 'legend-frame' }));
    if (strip.segments) {
      for (let s = 0; s < strip.segments; s++) {
        const sx = FIGURE_PAD + (s * stripWidth) / strip.segments;
        if (s) group.append(svg('line', { x1: sx, x2: sx, y1: y - 3, y2: y + 31, class: 'segment-line' }));
        group.append(svg('text', { x: sx + stripWidth / strip.segments / 2, y: y + 44, 'text-anchor': 'middle', class: 'axis', text: `head ${s + 1}` }));
      }
      y += 14;
    }
    group.append(svg('text', { x: FIGURE_PAD, y: y + 42, class: 'axis', text: `colour scale \u00b1${fixed(limit, 2)}` }));
    root.append(group);
    y += 58;
  }
  colourLegend(root, { x: FIGURE_PAD, y, width: 200, theme, low: '\u2212 max |value|', high: '+ max |value|', kind: 'diverging' });
  const height = y + 40;
  root.setAttribute('height', height);
  root.setAttribute('viewBox', `0 0 ${width} ${height}`);
  background.setAttribute('height', height);
  return root;
}

/** A small table of numbers per head (entropy view): values[l][h] with a text per cell. */
function headTableFigure({ width, theme, title, subtitle, layers, heads, text, shade, selected }) {
  const root = figureRoot(width, 1, title);
  const background = svg('rect', { x: 0, y: 0, width, height: 1, class: 'fig-bg' });
  root.append(background);
  let y = figureHeader(root, { title, subtitle, width });
  const labelWidth = width < 520 ? 30 : 64;
  const cellWidth = Math.min(150, (width - 2 * FIGURE_PAD - labelWidth) / heads);
  const cellHeight = 34;
  for (let h = 0; h < heads; h++) {
    root.append(svg('text', { x: FIGURE_PAD + labelWidth + (h + 0.5) * cellWidth, y: y + 4, 'text-anchor': 'middle', class: 'col-head-muted', text: width < 520 ? `H${h + 1}` : `head ${h + 1}` }));
  }
  y += 12;
  for (let l = 0; l < layers; l++) {
    root.append(svg('text', { x: FIGURE_PAD, y: y + cellHeight / 2, 'dominant-baseline': 'central', class: 'col-head-muted', text: width < 520 ? `L${l + 1}` : `layer ${l + 1}` }));
    for (let h = 0; h < heads; h++) {
      const x = FIGURE_PAD + labelWidth + h * cellWidth;
      const rgb = sequentialRgb(shade(l, h), theme);
      root.append(svg('rect', { x: x + 1, y: y + 1, width: cellWidth - 2, height: cellHeight - 2, rx: 4, fill: `rgb(${rgb.join(',')})` }));
      if (l === selected.layer && h === selected.head) {
        root.append(svg('rect', { x: x + 1, y: y + 1, width: cellWidth - 2, height: cellHeight - 2, rx: 4, class: 'table-chosen' }));
      }
      root.append(svg('text', { x: x + cellWidth / 2, y: y + cellHeight / 2, 'text-anchor': 'middle', 'dominant-baseline': 'central', class: 'table-value', fill: inkOn(rgb), text: text(l, h) }));
    }
    y += cellHeight;
  }
  const height = y + FIGURE_PAD;
  root.setAttribute('height', height);
  root.setAttribute('viewBox', `0 0 ${width} ${height}`);
  background.setAttribute('height', height);
  return root;
}

function messageFigure({ width, title, lines }) {
  const root = figureRoot(width, 1, title);
  const background = svg('rect', { x: 0, y: 0, width, height: 1, class: 'fig-bg' });
  root.append(background);
  const y = figureHeader(root, { title, subtitle: lines, width });
  root.setAttribute('height', y + 8);
  root.setAttribute('viewBox', `0 0 ${width} ${y + 8}`);
  background.setAttribute('height', y + 8);
  return root;
}

// ---- web/src/views.mjs ----
// One function per view. Each takes the explorer's context — the engine session, the run,
// the state, the figure width and theme — and returns {figure, notes}: an SVG that names
// the attention it shows, and HTML lines that give the same numbers as text.
// Numbers come from the engine; the page only adds them up, scales and subtracts them.


function capitalise(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function rowDataset(layer, head, token, stats, n) {
  return {
    layer: String(layer + 1), head: String(head + 1), token: String(token),
    sum: String(stats.sum), ratio: String(stats.ratio), max: String(stats.max), n: String(n),
  };
}

function statLine(label, value, role) {
  return html('span', { class: 'stat' }, [
    html('span', { class: 'stat-label', text: label }),
    html('span', { class: 'stat-value', dataset: role ? { role } : undefined, text: value }),
  ]);
}

function note(text, className = 'note') {
  return html('p', { class: className, text });
}

/** Warns when the most confident head for this token (highest ratio) is positional. */
function positionalWarning(ctx) {
  const { session, engine, state } = ctx;
  const { layers, heads } = engine.shape;
  let best = null;
  for (let l = 0; l < layers; l++) {
    for (let h = 0; h < heads; h++) {
      const ratio = session.rowStats(l, h, state.token).ratio;
      if (!best || ratio > best.ratio) best = { l, h, ratio };
    }
  }
  const roles = session.headRoles(best.l, best.h).roles;
  if (!isPositional(roles)) return null;
  const which = roles.includes('previous') ? 'the previous token' : 'the next token';
  return html('p', { class: 'warning', role: 'note' }, [
    html('strong', { text: 'Careful: ' }),
    `the most confident head for this token (${headName(best.l, best.h)}, ratio ${best.ratio.toFixed(2)}) is a positional head — ` +
    `on almost every row it simply looks at ${which}. High confidence here says where a word is, not what it means.`,
  ]);
}

function rowView(ctx) {
  const { session, run, state, width, theme } = ctx;
  const { layer, head, token } = state;
  const n = run.n;
  const values = session.row(layer, head, token);
  const stats = session.rowStats(layer, head, token);
  const topToken = run.tokens[stats.argmax];
  const reading = ratioReading(stats.ratio, n, topToken);
  const figure = tokenBarFigure({
    width, theme, tokens: run.tokens, selected: token,
    title: `${capitalise(headName(layer, head))} \u2014 attention from ${tokenPhrase(run.tokens[token], token)}`,
    subtitle: [
      `Each bar is the share of ${tokenPhrase(run.tokens[token], token)}'s attention that goes to that token. ` +
      `Ratio to uniform = max \u00d7 n = ${fixed(stats.max)} \u00d7 ${n} = ${stats.ratio.toFixed(2)}.`,
      reading,
    ],
    columns: [{
      heading: 'attention weight', className: 'attention-row', colour: seriesColours(theme).head,
      stats: [`\u03a3 = ${stats.sum.toFixed(3)}`, `ratio to uniform ${stats.ratio.toFixed(2)}`],
      emphasiseStats: true, values, uniform: 1 / n, data: { ...rowDataset(layer, head, token, stats, n), kind: 'head' },
      ariaLabel: `${headName(layer, head)}, row of token ${token}: sum ${stats.sum.toFixed(3)}, ratio to uniform ${stats.ratio.toFixed(2)}`,
    }],
  });
  const notes = [
    html('p', { class: 'readout' }, [
      statLine('\u03a3 (sum of the row)', stats.sum.toFixed(3), 'row-sum'),
      statLine('ratio to uniform (max \u00d7 n)', `${stats.ratio.toFixed(2)} = ${fixed(stats.max)} \u00d7 ${n}`, 'row-ratio'),
      statLine('uniform share 1/n', probability(1 / n)),
      statLine('effective tokens', `${stats.effective.toFixed(1)} of ${n}`),
    ]),
    note(reading, 'reading'),
    positionalWarning(ctx),
  ];
  return { figure, notes };
}

function gridView(ctx) {
  const { session, engine, run, state, width, theme } = ctx;
  const { layers, heads } = engine.shape;
  const cells = [];
  for (let l = 0; l < layers; l++) {
    for (let h = 0; h < heads; h++) {
      cells.push({
        layer: l, head: h, stats: session.rowStats(l, h, state.token),
        roles: session.headRoles(l, h).roles, values: session.row(l, h, state.token),
      });
    }
  }
  const best = cells.reduce((a, b) => (b.stats.ratio > a.stats.ratio ? b : a));
  const figure = headGridFigure({
    width, theme, cells, layers, heads, selected: state, colour: seriesColours(theme).head,
    token: state.token, n: run.n,
    title: `All ${layers * heads} heads \u2014 attention from ${tokenPhrase(run.tokens[state.token], state.token)}`,
    subtitle: `Big number: ratio to uniform (max \u00d7 n; 1.00 = uniform, ${run.n} = all on one token). ` +
      `Every row sums to 1.000. Badges: the head\u2019s role over the whole sentence. Highest ratio: ${headName(best.layer, best.head)} (${best.stats.ratio.toFixed(2)}).`,
  });
  const notes = [
    note('Click a head, or use the arrow keys, to choose it for the other views.', 'hint'),
    positionalWarning(ctx),
    html('dl', { class: 'role-legend' }, [
      html('dt', { text: ROLE_BADGES.previous + ' / ' + ROLE_BADGES.next }),
      html('dd', { text: 'the row\u2019s largest weight is on token i\u22121 (or i+1) on at least 90% of rows' }),
      html('dt', { text: `${ROLE_BADGES['cls-sink']} / ${ROLE_BADGES['sep-sink']} / ${ROLE_BADGES['punct-sink']}` }),
      html('dd', { text: 'at least half of the head\u2019s attention mass goes to [CLS], [SEP] or punctuation' }),
      html('dt', { text: ROLE_BADGES.broad }),
      html('dd', { text: 'normalised row entropy at least 0.9: close to uniform' }),
    ]),
  ];
  return { figure, notes };
}

function rolloutRow(session, lastLayer, token, n) {
  const all = session.rollout(lastLayer);
  return all.slice(token * n, token * n + n);
}

function rolloutView(ctx) {
  const { session, engine, run, state, width, theme } = ctx;
  const { layer, head, token } = state;
  const n = run.n;
  const last = state.rolloutLayer;
  const headsAveraged = (last + 1) * engine.shape.heads;
  const values = session.row(layer, head, token);
  const stats = session.rowStats(layer, head, token);
  const rollout = rolloutRow(session, last, token, n);
  const rolloutMax = largest(rollout);
  const rolloutStats = { sum: total(rollout), max: rolloutMax.value, ratio: rolloutMax.value * n };
  const colours = seriesColours(theme);
  const scaleMax = niceMax(Math.max(stats.max, rolloutMax.value));
  const rolloutName = `rollout: average of ${headsAveraged} heads`;
  const figure = tokenBarFigure({
    width, theme, tokens: run.tokens, selected: token,
    title: `Rollout through layer ${last + 1} (${headsAveraged} heads) beside ${headName(layer, head)} \u2014 from ${tokenPhrase(run.tokens[token], token)}`,
    subtitle: `Rollout (Abnar & Zuidema 2020): for each layer take \u00bd\u00b7(mean of its ${engine.shape.heads} heads) + \u00bd\u00b7I, ` +
      `renormalise the rows, and multiply layers 1\u2013${last + 1} together. Same scale for both columns.`,
    columns: [
      {
        heading: headName(layer, head), colour: colours.head, values, uniform: 1 / n, scaleMax,
        stats: [`\u03a3 = ${stats.sum.toFixed(3)}`, `ratio ${stats.ratio.toFixed(2)}`], emphasiseStats: true,
        className: 'attention-row', data: { ...rowDataset(layer, head, token, stats, n), kind: 'head' },
      },
      {
        heading: rolloutName, colour: colours.rollout, values: rollout, uniform: 1 / n, scaleMax,
        stats: [`\u03a3 = ${rolloutStats.sum.toFixed(3)}`, `ratio ${rolloutStats.ratio.toFixed(2)}`], emphasiseStats: true,
        className: 'rollout-row',
        data: {
          kind: 'rollout', layer: String(last + 1), head: 'mean', token: String(token), heads: String(headsAveraged),
          sum: String(rolloutStats.sum), ratio: String(rolloutStats.ratio), max: String(rolloutStats.max), n: String(n),
        },
      },
    ],
  });
  const notes = [
    html('p', { class: 'readout' }, [
      statLine(`${headName(layer, head)}: \u03a3`, stats.sum.toFixed(3)),
      statLine('ratio', stats.ratio.toFixed(2)),
      statLine('rollout: \u03a3', rolloutStats.sum.toFixed(3), 'rollout-sum'),
      statLine('ratio', rolloutStats.ratio.toFixed(2), 'rollout-ratio'),
    ]),
    note(`Rollout mixes every head of layers 1\u2013${last + 1} and adds the residual path (\u00bd\u00b7I) at every layer, ` +
      `so it reads differently from any single head. Neither column is \u201cthe\u201d attention: each is one reading.`),
  ];
  return { figure, notes };
}

function matrixView(ctx) {
  const { session, run, state, width, theme } = ctx;
  const { layer, head, token } = state;
  const rows = [];
  for (let i = 0; i < run.n; i++) rows.push(session.row(layer, head, i));
  const matrix = matrixFigure({
    width, theme, tokens: run.tokens, rows, selected: token,
    rowStats: (i) => session.rowStats(layer, head, i),
    title: `${capitalise(headName(layer, head))} \u2014 the full ${run.n} \u00d7 ${run.n} attention matrix`,
    subtitle: 'Row i: how token i spreads its attention over the columns; every row sums to 1. ' +
      'The outlined row is the chosen token. Hover or use the arrow keys for exact values.',
  });
  return { figure: matrix.root, notes: [], matrix, rows };
}

function entropyView(ctx) {
  const { session, engine, run, state, width, theme } = ctx;
  const { layers, heads } = engine.shape;
  const { layer, head, token } = state;
  const n = run.n;
  const perRow = [];
  for (let i = 0; i < n; i++) perRow.push(session.rowStats(layer, head, i));
  const forToken = [], meanOverRows = [];
  for (let l = 0; l < layers; l++) {
    for (let h = 0; h < heads; h++) {
      forToken.push(session.rowStats(l, h, token).effective);
      let sum = 0;
      for (let i = 0; i < n; i++) sum += session.rowStats(l, h, i).effective;
      meanOverRows.push(sum / n);
    }
  }
  const shade = (list) => (l, h) => (list[l * heads + h] - 1) / Math.max(1, n - 1);
  const colours = seriesColours(theme);
  const table = (list, title) => headTableFigure({
    subtitle: `Outlined: ${headName(layer, head)}. Darker = broader (more effective tokens).`,
    width, theme, layers, heads, selected: state, title, text: (l, h) => list[l * heads + h].toFixed(1), shade: shade(list),
  });
  const bars = tokenBarFigure({
    width, theme, tokens: run.tokens, selected: token,
    title: `${capitalise(headName(layer, head))} \u2014 effective tokens of every row`,
    subtitle: `Effective tokens = exp(entropy of the row): ${n} when the row is uniform, 1 when all weight is on one token.`,
    columns: [{
      heading: 'effective tokens (entropy in nats)', colour: colours.head, className: 'entropy-row',
      values: perRow.map((s) => s.effective), scaleMax: n,
      format: (v, i) => `${v.toFixed(1)} (${perRow[i ?? 0].entropy.toFixed(2)})`,
      stats: [`uniform: ${n} tokens, entropy ln ${n} = ${Math.log(n).toFixed(2)}`],
      data: { layer: String(layer + 1), head: String(head + 1), kind: 'entropy' },
    }],
  });
  const figure = stackFigures(width, [
    table(forToken, `Effective tokens per head for ${tokenPhrase(run.tokens[token], token)} (of ${n})`),
    table(meanOverRows, `Effective tokens per head, mean over all ${n} rows`),
    bars,
  ], 'Entropy and effective tokens');
  const stats = perRow[token];
  const notes = [
    html('p', { class: 'readout' }, [
      statLine(`${headName(layer, head)}, token ${token}: entropy`, `${stats.entropy.toFixed(3)} nats`),
      statLine('effective tokens', `${stats.effective.toFixed(2)} of ${n}`, 'effective'),
      statLine('normalised entropy', stats.normalized.toFixed(3)),
    ]),
  ];
  return { figure, notes };
}

function contributionsView(ctx) {
  const { session, run, state, width, theme } = ctx;
  const { layer, head, token } = state;
  const n = run.n;
  const values = session.row(layer, head, token);
  const stats = session.rowStats(layer, head, token);
  const norms = session.contributions(layer, head, token);
  const normTotal = total(norms);
  const colours = seriesColours(theme);
  const byWeight = run.tokens[stats.argmax];
  const byNorm = run.tokens[largest(norms).index];
  const figure = tokenBarFigure({
    width, theme, tokens: run.tokens, selected: token,
    title: `${capitalise(headName(layer, head))} \u2014 attention weight vs contribution for ${tokenPhrase(run.tokens[token], token)}`,
    subtitle: 'Left: the weight \u03b1. Right: the length of what each token actually adds, \u2016\u03b1\u00b7f(x)\u2016 with f(x) the ' +
      'value vector after W_O (Kobayashi et al. 2020). A large weight on a token with a short vector adds little.',
    columns: [
      {
        heading: 'attention weight \u03b1', colour: colours.head, values, uniform: 1 / n,
        stats: [`\u03a3 = ${stats.sum.toFixed(3)}`, `ratio ${stats.ratio.toFixed(2)}`], emphasiseStats: true,
        className: 'attention-row', data: { ...rowDataset(layer, head, token, stats, n), kind: 'head' },
      },
      {
        heading: 'contribution \u2016\u03b1\u00b7f(x)\u2016', colour: colours.second, values: norms,
        format: (v) => (v >= 10 ? v.toFixed(1) : v.toFixed(3)),
        stats: [`\u03a3 = ${normTotal.toFixed(3)}`, `largest: \u201c${byNorm}\u201d`],
        className: 'contribution-row',
        data: { kind: 'contribution', layer: String(layer + 1), head: String(head + 1), token: String(token), total: String(normTotal) },
      },
    ],
  });
  const notes = [
    note(byWeight === byNorm
      ? `Here the largest weight and the largest contribution agree: \u201c${byWeight}\u201d.`
      : `The largest weight goes to \u201c${byWeight}\u201d, but the largest contribution comes from \u201c${byNorm}\u201d.`, 'reading'),
  ];
  return { figure, notes };
}

function mlmView(ctx) {
  const { session, run, width, theme } = ctx;
  const masks = [];
  run.tokens.forEach((t, i) => { if (t === '[MASK]') masks.push(i); });
  if (!masks.length) {
    return {
      figure: messageFigure({
        width, title: '[MASK] what-if: no [MASK] in the sentence yet',
        lines: ['Type [MASK] in place of a word (for example \u201cThe cat [MASK] on the mat.\u201d) and the model\u2019s top-5 guesses appear here, with their probabilities.'],
      }),
      notes: [], masks,
    };
  }
  const colours = seriesColours(theme);
  const shown = masks.slice(0, 4);
  const parts = shown.map((position) => {
    const predictions = session.mlm(position, 5);
    return tokenBarFigure({
      width, theme, tokens: predictions.map((p) => p.token), selected: null, indexText: (i) => `#${i + 1}`,
      title: `[MASK] at token ${position}: top-5 predictions`,
      subtitle: position === shown[0] ? 'Not an attention view: the masked-language-model head on the final layer (all 16 heads feed it).' : [],
      columns: [{
        heading: 'probability', colour: colours.second, values: predictions.map((p) => p.probability), scaleMax: niceMax(predictions[0]?.probability || 1),
        format: (v) => percent(v), className: 'mlm-row',
        data: { kind: 'mlm', token: String(position), top: predictions[0]?.token ?? '' },
      }],
    });
  });
  const notes = masks.length > shown.length ? [note(`Showing the first ${shown.length} of ${masks.length} [MASK] tokens.`)] : [];
  return { figure: stackFigures(width, parts, '[MASK] predictions'), notes, masks };
}

function compareView(ctx) {
  const { session, run, state, width, theme, compare } = ctx;
  const { layer, head } = state;
  const colours = seriesColours(theme);
  if (!compare?.run) {
    return { figure: messageFigure({ width, title: 'Compare: type a second sentence', lines: [] }), notes: [] };
  }
  const other = compare.run;
  const token = state.token;
  const a = session.row(layer, head, token);
  const aStats = session.rowStats(layer, head, token);
  const aligned = other.n === run.n;
  const otherToken = Math.min(token, other.n - 1);
  const b = compare.session.row(layer, head, otherToken);
  const bStats = compare.session.rowStats(layer, head, otherToken);
  const columnFor = (values, stats, name, colour, tok, n, scaleMax) => ({
    heading: name, colour, values, uniform: 1 / n, scaleMax, emphasiseStats: true,
    stats: [`\u03a3 = ${stats.sum.toFixed(3)}`, `ratio ${stats.ratio.toFixed(2)}`], className: 'attention-row compare-row',
    data: { ...rowDataset(layer, head, tok, stats, n), kind: name === 'sentence A' ? 'compare-a' : 'compare-b' },
  });
  const title = `${capitalise(headName(layer, head))} \u2014 the row of token ${token} in two sentences`;
  if (aligned) {
    const difference = b.map((v, i) => v - a[i]);
    const changed = run.tokens.map((t, i) => t !== other.tokens[i]);
    const labels = run.tokens.map((t, i) => (changed[i] ? `${t} \u2192 ${other.tokens[i]}` : t));
    const scaleMax = niceMax(Math.max(aStats.max, bStats.max));
    const biggest = largest(difference.map(Math.abs));
    const figure = tokenBarFigure({
      width, theme, tokens: run.tokens, labels, selected: token, title,
      subtitle: `A: \u201c${run.tokens[token]}\u201d in sentence A; B: \u201c${other.tokens[otherToken]}\u201d in sentence B. ` +
        'The token lists align one to one, so the difference B \u2212 A is shown per token.',
      columns: [
        columnFor(a, aStats, 'sentence A', colours.head, token, run.n, scaleMax),
        columnFor(b, bStats, 'sentence B', colours.second, otherToken, other.n, scaleMax),
        {
          heading: 'difference B \u2212 A', kind: 'signed', values: difference, className: 'difference-row',
          format: (v) => (v >= 0 ? '+' : '') + fixed(v, biggest.value < 0.01 ? 4 : 3), stats: [`largest |\u0394| ${fixed(biggest.value, 3)}`, `at \u201c${labels[biggest.index]}\u201d`],
          data: { kind: 'difference', layer: String(layer + 1), head: String(head + 1), token: String(token), maxAbs: String(biggest.value) },
        },
      ],
    });
    const changedCount = changed.filter(Boolean).length;
    return {
      figure,
      notes: [note(changedCount
        ? `${changedCount} token${changedCount > 1 ? 's differ' : ' differs'}; the largest change in this row is ${fixed(biggest.value, 3)} at \u201c${labels[biggest.index]}\u201d.`
        : 'The two sentences give the same tokens, so the rows are identical.', 'reading')],
      aligned,
    };
  }
  const scaleMax = niceMax(Math.max(aStats.max, bStats.max));
  const figure = stackFigures(width, [
    tokenBarFigure({
      width, theme, tokens: run.tokens, selected: token, title,
      subtitle: `The token lists do not align (${run.n} vs ${other.n} tokens), so no per-token difference is shown. Sentence A:`,
      columns: [columnFor(a, aStats, 'sentence A', colours.head, token, run.n, scaleMax)],
    }),
    tokenBarFigure({
      width, theme, tokens: other.tokens, selected: otherToken, title: 'Sentence B:',
      columns: [columnFor(b, bStats, 'sentence B', colours.second, otherToken, other.n, scaleMax)],
    }),
  ], title);
  return {
    figure, aligned,
    notes: [note(`The token lists don\u2019t align (${run.n} vs ${other.n} tokens): a word split into a different number of WordPiece pieces shifts every later token, so the rows are shown separately.`, 'warning')],
  };
}

function layerView(ctx) {
  const { session, engine, run, state, width, theme } = ctx;
  const { layer, token } = state;
  const steps = session.walkthrough(layer, token);
  const heads = engine.shape.heads;
  const describe = (values) => {
    const { mean, deviation } = meanAndDeviation(values);
    return { mean, deviation, note: `mean ${fixed(mean, 3)} \u00b7 sd ${fixed(deviation, 3)}` };
  };
  const entries = [
    ['1. the four heads\u2019 outputs, concatenated', steps.concat, heads],
    ['2. after the output projection W_O', steps.projected, 0],
    ['3. + residual (the layer\u2019s input)', steps.residual, 0],
    ['4. after LayerNorm (with its learned gain and bias)', steps.normed, 0],
  ];
  const strips = entries.map(([label, values, segments], k) => {
    const d = describe(values);
    return {
      label, values, segments, note: d.note,
      data: { step: String(k + 1), mean: String(d.mean), sd: String(d.deviation), layer: String(layer + 1), token: String(token) },
    };
  });
  const figure = stripFigure({
    width, theme, strips,
    title: `Inside layer ${layer + 1} (all ${heads} heads) for ${tokenPhrase(run.tokens[token], token)}`,
    subtitle: `Each strip is the ${engine.shape.hidden} numbers that stand for the token at that step; colour shows sign and size. ` +
      'LayerNorm standardises the sum (mean 0, standard deviation 1) and then applies its learned gain and bias, so step 4 stays near mean 0, sd 1.',
  });
  const last = describe(steps.normed);
  return {
    figure,
    notes: [note(`After LayerNorm: mean ${fixed(last.mean, 3)}, standard deviation ${fixed(last.deviation, 3)}.`, 'reading')],
  };
}

function scalingView(ctx) {
  const { session, run, state, width, theme, whatIf } = ctx;
  const { layer, head, token } = state;
  const n = run.n;
  const stats = session.rowStats(layer, head, token);
  const model = session.rowScaled(layer, head, token, true);
  const unscaled = session.rowScaled(layer, head, token, false);
  const unscaledMax = largest(unscaled);
  const unscaledEffective = effectiveTokens(unscaled);
  const colours = seriesColours(theme);
  const columns = [{
    heading: 'the model: softmax(q\u00b7k / 8)', colour: colours.head, values: model, uniform: 1 / n,
    scaleMax: whatIf ? niceMax(Math.max(stats.max, unscaledMax.value)) : undefined, emphasiseStats: true,
    stats: [`\u03a3 = ${stats.sum.toFixed(3)} \u00b7 ratio ${stats.ratio.toFixed(2)}`, `effective tokens ${stats.effective.toFixed(1)}`],
    className: 'attention-row', data: { ...rowDataset(layer, head, token, stats, n), kind: 'head', effective: String(stats.effective) },
  }];
  if (whatIf) {
    columns.push({
      heading: 'WHAT-IF: softmax(q\u00b7k), no \u00f7\u221ad', colour: colours.whatif, values: unscaled, uniform: 1 / n,
      scaleMax: columns[0].scaleMax, emphasiseStats: true,
      stats: [`\u03a3 = ${total(unscaled).toFixed(3)} \u00b7 ratio ${(unscaledMax.value * n).toFixed(2)}`, `effective tokens ${unscaledEffective.toFixed(1)}`],
      className: 'whatif-row',
      data: {
        kind: 'what-if', whatif: 'true', layer: String(layer + 1), head: String(head + 1), token: String(token),
        sum: String(total(unscaled)), ratio: String(unscaledMax.value * n), effective: String(unscaledEffective),
      },
    });
  }
  const figure = tokenBarFigure({
    width, theme, tokens: run.tokens, selected: token, columns,
    title: `${capitalise(headName(layer, head))} \u2014 ${tokenPhrase(run.tokens[token], token)}: ` +
      (whatIf ? 'the model beside a what-if without \u00f7\u221ad' : 'the model\u2019s row (divides q\u00b7k by \u221a64 = 8)'),
    subtitle: whatIf
      ? 'WHAT-IF, not the model: the same q\u00b7k scores without the division by 8. Scores 8\u00d7 larger make the softmax saturate: the largest score takes almost everything.'
      : 'The scores q\u00b7k are divided by \u221ad = 8 before the softmax. Turn on the what-if to see the same row without that division.',
  });
  const notes = [
    html('p', { class: 'readout' }, [
      statLine('effective tokens, model (\u00f78)', `${stats.effective.toFixed(2)} of ${n}`, 'effective-model'),
      whatIf ? statLine('effective tokens, what-if (no \u00f78)', `${unscaledEffective.toFixed(2)} of ${n}`, 'effective-whatif') : null,
    ]),
  ];
  return { figure, notes };
}

const VIEW_RENDERERS = {
  row: rowView, grid: gridView, rollout: rolloutView, matrix: matrixView, entropy: entropyView,
  contributions: contributionsView, mlm: mlmView, compare: compareView, layer: layerView, scaling: scalingView,
};

// ---- web/src/export.mjs ----
// Saves the current figure as SVG or PNG. The live figure is styled by the explorer's
// stylesheet; the exported copy carries its computed colours and fonts as attributes so
// it looks the same anywhere.


const STYLE_PROPERTIES = [
  'fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-dasharray', 'stroke-opacity', 'opacity',
  'font-size', 'font-weight', 'font-style', 'visibility',
];

function inlineStyles(live, copy) {
  const computed = getComputedStyle(live);
  for (const property of STYLE_PROPERTIES) {
    const value = computed.getPropertyValue(property);
    if (value && !copy.hasAttribute(property)) copy.setAttribute(property, value);
  }
  copy.removeAttribute('class');
  copy.removeAttribute('tabindex');
  const liveChildren = live.children, copyChildren = copy.children;
  for (let i = 0; i < liveChildren.length; i++) inlineStyles(liveChildren[i], copyChildren[i]);
}

/** A standalone SVG document for a figure. */
function figureToSvgText(figure) {
  const copy = figure.cloneNode(true);
  inlineStyles(figure, copy);
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  copy.setAttribute('font-family', FIGURE_FONT);
  for (const element of copy.querySelectorAll('[visibility="hidden"]')) element.remove();
  return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(copy);
}

function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

function saveSvg(figure, name) {
  download(new Blob([figureToSvgText(figure)], { type: 'image/svg+xml' }), `${name}.svg`);
}

/** Draws the SVG on a canvas at 2× and saves it as PNG. */
async function savePng(figure, name) {
  const text = figureToSvgText(figure);
  const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const scale = 2;
    const canvas = document.createElement('canvas');
    canvas.width = Math.ceil(Number(figure.getAttribute('width')) * scale);
    canvas.height = Math.ceil(Number(figure.getAttribute('height')) * scale);
    const context = canvas.getContext('2d');
    context.scale(scale, scale);
    context.drawImage(image, 0, 0);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
    download(blob, `${name}.png`);
  } finally {
    URL.revokeObjectURL(url);
  }
}

// ---- web/src/explorer.mjs ----
// <attention-explorer>: the custom element. It owns one engine Session, the controls and
// the current view; the engine itself (and the one copy of the weights) is shared by every
// explorer on the page through loader.mjs.


const OBSERVED = ['sentence', 'layer', 'head', 'token', 'view', 'theme', 'compare'];
const HEAVY_RUN_MS = 45;       // runs slower than this wait for a pause in typing
const HEAVY_TOKENS = 96;       // so do runs on longer texts
const TYPING_PAUSE_MS = 220;
let firstRowMarked = false;
let sharedSheet = null;

function explorerSheet() {
  if (!sharedSheet) {
    sharedSheet = new CSSStyleSheet();
    sharedSheet.replaceSync(EXPLORER_CSS);
  }
  return sharedSheet;
}

/** Calls fn once on the next animation frame (or after 50 ms if frames are not running). */
function nextFrame(fn) {
  let done = false;
  const once = () => { if (!done) { done = true; fn(); } };
  requestAnimationFrame(once);
  setTimeout(once, 50);
}

/** Keyboard movement in a one-dimensional list: the new index, or null for other keys. */
function listMove(key, index, count) {
  switch (key) {
    case 'ArrowLeft': case 'ArrowUp': return Math.max(0, index - 1);
    case 'ArrowRight': case 'ArrowDown': return Math.min(count - 1, index + 1);
    case 'Home': return 0;
    case 'End': return count - 1;
    default: return null;
  }
}

let explorerCount = 0;

class AttentionExplorer extends HTMLElement {
  static get observedAttributes() { return OBSERVED; }

  constructor() {
    super();
    this.uid = `ae${++explorerCount}`;
    this.state = {
      sentence: DEFAULT_SENTENCE, layer: 0, head: 0, token: 1, view: 'row',
      rolloutLayer: null, whatIf: false, compareSentence: null, matrixCursor: null,
    };
    this.engine = null;
    this.session = null;
    this.compareSession = null;
    this.run = null;
    this.compareRun = null;
    this.lastRunMs = 0;
    this.frameBusy = false;
    this.frameQueued = false;
    this.pauseTimer = 0;
    this.inputStart = null;
    this.figureWidth = 0;
    this.ready = new Promise((resolve, reject) => { this.resolveReady = resolve; this.rejectReady = reject; });
    this.ready.catch(() => {});
  }

  connectedCallback() {
    if (!this.shadowRoot) this.buildDom();
    this.applySettings(readSettings((name) => this.getAttribute(name)));
    if (this.hasAttribute('compare')) this.state.compareSentence = cleanSentence(this.getAttribute('compare'));
    if (this.hasAttribute('hash')) {
      this.applySettings(readHash(location.hash));
      this.onHashChange = () => { this.applySettings(readHash(location.hash)); this.refresh(); };
      window.addEventListener('hashchange', this.onHashChange);
    }
    this.themeQuery = matchMedia('(prefers-color-scheme: dark)');
    this.onThemeChange = () => this.renderView();
    this.themeQuery.addEventListener('change', this.onThemeChange);
    this.resizeObserver = new ResizeObserver(() => this.onResize());
    this.resizeObserver.observe(this.parts.panel);
    this.syncControls();
    this.start();
  }

  disconnectedCallback() {
    if (this.onHashChange) window.removeEventListener('hashchange', this.onHashChange);
    this.themeQuery?.removeEventListener('change', this.onThemeChange);
    this.resizeObserver?.disconnect();
    this.session?.destroy();
    this.compareSession?.destroy();
    this.session = this.compareSession = null;
  }

  attributeChangedCallback(name, old, value) {
    if (!this.parts || old === value) return;
    if (name === 'theme') { this.renderView(); return; }
    if (name === 'compare') {
      this.state.compareSentence = value === null ? null : cleanSentence(value);
      this.compareRun = null;
      this.refresh();
      return;
    }
    this.applySettings(readSettings((key) => (key === name ? value : null)));
    this.refresh();
  }

  // ---- loading -------------------------------------------------------------------------

  async start() {
    if (this.engine) { this.openSession(); return; }
    const assetBase = this.getAttribute('assets') || AttentionExplorer.assetBase;
    try {
      this.engine = await loadEngine({
        assetBase, wasm: this.getAttribute('wasm'), weights: this.getAttribute('weights'),
      }, (progress) => this.showProgress(progress));
    } catch (error) {
      this.showError(error);
      this.rejectReady(error);
      return;
    }
    if (!this.isConnected) return;
    this.openSession();
    this.resolveReady(this);
  }

  openSession() {
    if (!this.session) this.session = this.engine.createSession();
    this.parts.status.hidden = true;
    this.parts.main.hidden = false;
    this.runNow();
  }

  showProgress({ message, loaded, total }) {
    const { statusText, progress, progressBar } = this.parts;
    const known = total > 1;
    statusText.textContent = known
      ? `${message[0].toUpperCase()}${message.slice(1)}: ${megabytes(loaded)} of ${megabytes(total)}\u2026`
      : `${message[0].toUpperCase()}${message.slice(1)}\u2026`;
    progress.classList.toggle('indeterminate', !known && total === 0);
    progressBar.style.width = known ? `${Math.min(100, (100 * loaded) / total).toFixed(1)}%` : total === 1 ? '100%' : '';
    progress.setAttribute('aria-valuenow', known ? String(Math.round((100 * loaded) / total)) : '');
  }

  showError(error) {
    this.parts.status.hidden = true;
    this.parts.main.hidden = true;
    const headline = {
      weights: 'the model weights could not be loaded or were refused',
      wasm: 'the engine (WebAssembly) could not be loaded',
    }[error.part] ?? 'the engine failed';
    replaceChildrenOf(this.parts.error, [
      html('strong', { text: `The attention explorer could not start: ${headline}.` }),
      html('span', { class: 'error-message', text: error.message }),
      Number.isInteger(error.code) && error.part ? html('span', { text: ` (engine code ${error.code})` }) : null,
    ]);
    this.parts.error.dataset.part = error.part || 'unknown';
    if (Number.isInteger(error.code) && error.part) this.parts.error.dataset.code = String(error.code);
    this.parts.error.hidden = false;
  }

  /** A view that could not be drawn says so in place of its figure; the rest keeps working. */
  showViewError(error) {
    this.currentFigure = null;
    replaceChildrenOf(this.parts.figureBox, html('p', { class: 'error', role: 'alert' }, [
      html('strong', { text: 'This view could not be drawn.' }), html('span', { text: String(error.message || error) }),
    ]));
    this.parts.notes.replaceChildren();
    this.markDrawn();
  }

  // ---- state ---------------------------------------------------------------------------

  applySettings(settings) {
    Object.assign(this.state, settings);
    if ('token' in settings) this.wantedToken = settings.token;
    if ('sentence' in settings && this.parts.sentence.value !== this.state.sentence) {
      this.parts.sentence.value = this.state.sentence;
    }
  }

  refresh() {
    this.syncControls();
    if (this.session) this.runNow();
  }

  setSelection(changes, focusTarget = null) {
    Object.assign(this.state, changes);
    if ('token' in changes) this.wantedToken = changes.token;
    this.syncControls();
    this.renderView();
    this.updateHash();
    if (focusTarget) this.focusPart(focusTarget);
  }

  focusPart(target) {
    const root = this.shadowRoot;
    const selectors = {
      token: '.token[aria-selected="true"]', layer: '.layer-picker [aria-checked="true"]',
      head: '.head-picker [aria-checked="true"]', tab: '.tab[aria-selected="true"]',
      cell: '.head-cell.selected', rollout: '.rollout-picker [aria-checked="true"]', matrix: '.figure-box svg',
    };
    root.querySelector(selectors[target])?.focus();
  }

  /** Keeps the URL hash in step, a moment after the last change (replaceState is slow). */
  updateHash() {
    if (!this.hasAttribute('hash') || !this.run) return;
    clearTimeout(this.hashTimer);
    this.hashTimer = setTimeout(() => {
      const hash = writeHash(this.state);
      if (location.hash !== hash) history.replaceState(null, '', hash);
    }, 150);
  }

  // ---- running the model ---------------------------------------------------------------

  /** Called on every keystroke: runs now, or once per frame, or after a pause for long text. */
  requestRun() {
    if (!this.session) return;
    if (this.isHeavy()) {
      clearTimeout(this.pauseTimer);
      this.parts.busy.hidden = false;
      this.pauseTimer = setTimeout(() => this.runNow(), TYPING_PAUSE_MS);
      return;
    }
    if (this.frameBusy) {
      if (!this.frameQueued) {
        this.frameQueued = true;
        nextFrame(() => { this.frameQueued = false; this.runNow(); });
      }
      return;
    }
    this.runNow();
  }

  /** Whether runs are slow enough that typing should not wait for them. The first run of a
   * page is slow (the wasm warms up), so the faster of the last two runs decides. */
  isHeavy() {
    const recent = this.runTimes || [];
    const fastest = recent.length >= 2 ? Math.min(...recent) : 0;
    return (this.run?.n ?? 0) > HEAVY_TOKENS || fastest > HEAVY_RUN_MS;
  }

  runNow() {
    if (!this.session) return;
    this.frameBusy = true;
    nextFrame(() => { this.frameBusy = false; });
    this.parts.busy.hidden = true;
    const started = performance.now();
    try {
      this.run = this.session.runText(this.state.sentence);
    } catch (error) {
      this.showViewError(error);
      return;
    }
    this.lastRunMs = performance.now() - started;
    this.runTimes = [...(this.runTimes || []).slice(-1), this.lastRunMs];
    performance.measure('attn-run', { start: started, end: started + this.lastRunMs });
    // The token the reader picked stays picked while the sentence is briefly shorter.
    this.state.token = Math.min(this.wantedToken ?? this.state.token, this.run.n - 1);
    if (this.state.view === 'compare') this.runCompare();
    const drawing = performance.now();
    this.updateTokens();
    this.renderView();
    this.updateHash();
    performance.measure('attn-draw', { start: drawing, end: performance.now() });
  }

  compareText() {
    return this.state.compareSentence ?? changeOneWord(this.state.sentence);
  }

  runCompare() {
    if (!this.compareSession) this.compareSession = this.engine.createSession();
    const text = this.compareText();
    if (this.parts.compareInput.value !== text && this.shadowRoot.activeElement !== this.parts.compareInput) {
      this.parts.compareInput.value = text;
    }
    this.compareRun = this.compareSession.runText(text);
  }

  // ---- tokens --------------------------------------------------------------------------

  updateTokens() {
    const run = this.run;
    const key = run.ids.join(',');
    if (key !== this.tokenKey) {
      this.tokenKey = key;
      const codePoints = [...this.state.sentence];
      replaceChildrenOf(this.parts.tokens, run.tokens.map((token, i) => this.tokenChip(token, i, run.offsets[i], codePoints)));
    }
    this.markSelectedToken();
    const { truncated, fullLength, n } = run;
    const pieces = run.tokens.filter((t) => t.startsWith('##')).length;
    this.parts.tokenCount.textContent = `${n} tokens, including [CLS] and [SEP]` + (pieces ? ` \u00b7 ${pieces} WordPiece continuation${pieces > 1 ? 's' : ''} (##)` : '');
    this.parts.truncation.hidden = !truncated;
    this.parts.truncation.textContent = truncated ? `Truncated to ${n} tokens (the text gives ${fullLength}). Only the first ${n} are shown.` : '';
    this.updateMaskPredictions();
  }

  tokenChip(token, index, [start, end], codePoints) {
    const special = isSpecialToken(token);
    const piece = token.startsWith('##');
    const source = end > start ? codePoints.slice(start, end).join('') : '';
    return html('button', {
      type: 'button', class: `token${special ? ' special' : ''}`, role: 'option', tabindex: -1,
      'aria-selected': 'false', dataset: { token: String(index) },
      title: special ? `token ${index}: ${token} (added by the tokenizer)` : `token ${index}: \u201c${token}\u201d from \u201c${source}\u201d (characters ${start}\u2013${end})`,
      'aria-label': `token ${index}: ${token}`,
    }, [
      html('span', { class: 'index', text: String(index) }),
      html('span', { class: 'piece' }, piece ? [html('span', { class: 'piece-mark', text: '##' }), token.slice(2)] : token),
    ]);
  }

  markSelectedToken() {
    const chips = this.parts.tokens.children;
    const previous = this.parts.tokens.querySelector('[aria-selected="true"]');
    if (previous) { previous.setAttribute('aria-selected', 'false'); previous.tabIndex = -1; }
    const chip = chips[this.state.token];
    if (chip) {
      chip.setAttribute('aria-selected', 'true');
      chip.tabIndex = 0;
      this.parts.tokens.setAttribute('aria-activedescendant', '');
    }
  }

  updateMaskPredictions() {
    const masks = [];
    this.run.tokens.forEach((t, i) => { if (t === '[MASK]') masks.push(i); });
    const box = this.parts.maskPredictions;
    box.hidden = masks.length === 0;
    if (!masks.length) { box.replaceChildren(); return; }
    replaceChildrenOf(box, masks.slice(0, 4).map((position) => {
      const predictions = this.session.mlm(position, 5);
      return html('p', { class: 'mask-line', dataset: { position: String(position) } }, [
        html('b', { text: `[MASK] at token ${position} \u2192 ` }),
        predictions.map((p, k) => [k ? ' \u00b7 ' : '', html('span', { dataset: { probability: String(p.probability) }, text: `\u201c${p.token}\u201d ${percent(p.probability)}` })]),
      ]);
    }));
  }

  // ---- views ---------------------------------------------------------------------------

  theme() {
    const forced = this.getAttribute('theme');
    if (forced === 'dark' || forced === 'light') return forced;
    return this.themeQuery?.matches ? 'dark' : 'light';
  }

  onResize() {
    const width = Math.floor(this.parts.panel.clientWidth);
    if (!width || Math.abs(width - this.figureWidth) < 2) return;
    if (this.resizeQueued) return;
    this.resizeQueued = true;
    nextFrame(() => { this.resizeQueued = false; this.renderView(); });
  }

  renderView() {
    if (!this.run || !this.session) return;
    const theme = this.theme();
    this.parts.root.classList.toggle('theme-dark', theme === 'dark');
    this.parts.root.classList.toggle('theme-light', theme !== 'dark');
    this.figureWidth = Math.max(300, Math.floor(this.parts.panel.clientWidth || 640));
    const state = this.state;
    if (state.rolloutLayer === null) state.rolloutLayer = this.engine.shape.layers - 1;
    const context = {
      engine: this.engine, session: this.session, run: this.run, state, width: this.figureWidth, theme,
      whatIf: state.whatIf, compare: state.view === 'compare' ? { session: this.compareSession, run: this.compareRun } : null,
    };
    let result;
    try {
      if (state.view === 'compare' && !this.compareRun) {
        this.runCompare();
        context.compare = { session: this.compareSession, run: this.compareRun };
      }
      result = VIEW_RENDERERS[state.view](context);
    } catch (error) {
      this.showViewError(error);
      return;
    }
    this.currentFigure = result.figure;
    result.figure.dataset.view = state.view;
    replaceChildrenOf(this.parts.figureBox, result.figure);
    replaceChildrenOf(this.parts.notes, result.notes);
    this.parts.hoverReadout.textContent = '';
    this.parts.hoverReadout.hidden = state.view !== 'matrix';
    if (state.view === 'grid') this.wireGrid(result.figure);
    if (state.view === 'matrix') this.wireMatrix(result);
    this.parts.which.replaceChildren(
      html('strong', { text: headName(state.layer, state.head) }), ' \u00b7 row of ',
      html('strong', { text: `\u201c${this.run.tokens[state.token]}\u201d` }), ` (token ${state.token})`,
    );
    this.markDrawn();
  }

  markDrawn() {
    performance.mark('attn-redraw');
    if (!firstRowMarked) {
      firstRowMarked = true;
      performance.mark('attn-first-row');
    }
    if (this.inputStart !== null) {
      performance.measure('attn-keystroke', { start: this.inputStart, end: performance.now() });
      this.inputStart = null;
    }
    this.dataset.drawn = String((Number(this.dataset.drawn) || 0) + 1);
  }

  wireGrid(figure) {
    for (const cell of figure.querySelectorAll('.head-cell')) {
      cell.addEventListener('click', () => {
        this.setSelection({ layer: Number(cell.dataset.layer) - 1, head: Number(cell.dataset.head) - 1 }, 'cell');
      });
    }
    figure.addEventListener('keydown', (event) => {
      const { layers, heads } = this.engine.shape;
      const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
      const move = moves[event.key];
      if (!move) return;
      event.preventDefault();
      const layer = Math.min(layers - 1, Math.max(0, this.state.layer + move[0]));
      const head = Math.min(heads - 1, Math.max(0, this.state.head + move[1]));
      this.setSelection({ layer, head }, 'cell');
    });
  }

  wireMatrix({ figure, matrix, rows }) {
    const { left, top, cell, n } = matrix.geometry;
    const svgElement = figure;
    svgElement.setAttribute('tabindex', '0');
    svgElement.setAttribute('aria-label', `${headName(this.state.layer, this.state.head)} attention matrix; arrow keys move, Enter picks the row's token`);
    const tokens = this.run.tokens;
    const show = (i, j) => {
      this.state.matrixCursor = [i, j];
      matrix.cursorRect.setAttribute('x', left + j * cell);
      matrix.cursorRect.setAttribute('y', top + i * cell);
      matrix.cursorRect.setAttribute('visibility', 'visible');
      this.parts.hoverReadout.textContent =
        `row ${i} \u201c${tokens[i]}\u201d \u2192 column ${j} \u201c${tokens[j]}\u201d: ${probability(rows[i][j])}` +
        ` (${(rows[i][j] * n).toFixed(2)}\u00d7 uniform)`;
    };
    svgElement.addEventListener('pointermove', (event) => {
      const box = svgElement.getBoundingClientRect();
      const j = Math.floor((event.clientX - box.left - left) / cell);
      const i = Math.floor((event.clientY - box.top - top) / cell);
      if (i >= 0 && j >= 0 && i < n && j < n) show(i, j);
    });
    svgElement.addEventListener('click', (event) => {
      const box = svgElement.getBoundingClientRect();
      const i = Math.floor((event.clientY - box.top - top) / cell);
      if (i >= 0 && i < n) this.setSelection({ token: i, matrixCursor: this.state.matrixCursor }, 'matrix');
    });
    svgElement.addEventListener('keydown', (event) => {
      const [i, j] = this.state.matrixCursor ?? [this.state.token, 0];
      const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        this.setSelection({ token: i }, 'matrix');
        return;
      }
      const move = moves[event.key];
      if (!move) return;
      event.preventDefault();
      show(Math.min(n - 1, Math.max(0, i + move[0])), Math.min(n - 1, Math.max(0, j + move[1])));
    });
    const cursor = this.state.matrixCursor;
    if (cursor && cursor[0] < n && cursor[1] < n) show(cursor[0], cursor[1]);
  }

  // ---- controls ------------------------------------------------------------------------

  syncControls() {
    const { layer, head, view, rolloutLayer, whatIf } = this.state;
    const check = (group, value) => {
      for (const button of group.children) {
        const on = Number(button.dataset.value) === value;
        button.setAttribute('aria-checked', String(on));
        button.tabIndex = on ? 0 : -1;
      }
    };
    check(this.parts.layerPicker, layer);
    check(this.parts.headPicker, head);
    if (this.engine) check(this.parts.rolloutPicker, rolloutLayer ?? this.engine.shape.layers - 1);
    for (const tab of this.parts.tabs.children) {
      const on = tab.dataset.view === view;
      tab.setAttribute('aria-selected', String(on));
      tab.tabIndex = on ? 0 : -1;
    }
    this.parts.panel.setAttribute('aria-labelledby', `${this.uid}-tab-${view}`);
    this.parts.whatIf.checked = whatIf;
    const controls = { rollout: this.parts.rolloutControl, scaling: this.parts.scalingControl, compare: this.parts.compareControl };
    for (const [name, element] of Object.entries(controls)) element.hidden = name !== view;
    this.parts.viewControls.hidden = !(view in controls);
    if (this.run) this.markSelectedToken();
  }

  segmented(label, count, className, onPick) {
    const group = html('div', { class: `segmented ${className}`, role: 'radiogroup', 'aria-label': label });
    for (let i = 0; i < count; i++) {
      group.append(html('button', {
        type: 'button', role: 'radio', 'aria-checked': 'false', tabindex: -1, dataset: { value: String(i) },
        'aria-label': `${label} ${i + 1}`, text: String(i + 1), onclick: () => onPick(i),
      }));
    }
    group.addEventListener('keydown', (event) => {
      const current = [...group.children].findIndex((b) => b.getAttribute('aria-checked') === 'true');
      const next = listMove(event.key, current, count);
      if (next === null) return;
      event.preventDefault();
      onPick(next);
    });
    return group;
  }

  buildDom() {
    const root = this.attachShadow({ mode: 'open' });
    root.adoptedStyleSheets = [explorerSheet()];
    const id = (name) => `${this.uid}-${name}`;
    const parts = (this.parts = {});
    parts.statusText = html('span', { text: 'Loading the attention explorer\u2026' });
    parts.progressBar = html('div', { class: 'progress-bar' });
    parts.progress = html('div', { class: 'progress indeterminate', role: 'progressbar', 'aria-label': 'Loading', 'aria-valuemin': 0, 'aria-valuemax': 100 }, parts.progressBar);
    parts.status = html('div', { class: 'status', role: 'status', 'aria-live': 'polite' }, [parts.progress, parts.statusText]);
    parts.error = html('div', { class: 'error', role: 'alert', hidden: true });

    parts.sentence = html('textarea', {
      id: id('sentence'), rows: 2, spellcheck: 'false', maxlength: MAX_SENTENCE_CHARS, autocomplete: 'off',
    });
    parts.sentence.value = this.state.sentence;
    parts.sentence.addEventListener('input', (event) => {
      this.inputStart = event.timeStamp;
      this.state.sentence = cleanSentence(parts.sentence.value);
      if (this.state.compareSentence === null) this.compareRun = null;
      this.requestRun();
    });
    parts.tokenCount = html('span', {});
    parts.busy = html('span', { class: 'busy', hidden: true, text: 'updating after you pause typing\u2026' });
    parts.truncation = html('p', { class: 'notice', role: 'status', hidden: true });
    parts.tokens = html('div', {
      class: 'tokens', role: 'listbox', 'aria-orientation': 'horizontal', id: id('tokens'),
      'aria-label': 'Tokens: choose the token whose attention row is shown (arrow keys move)',
    });
    parts.tokens.addEventListener('click', (event) => {
      const chip = event.target.closest('.token');
      if (chip) this.setSelection({ token: Number(chip.dataset.token) }, 'token');
    });
    parts.tokens.addEventListener('keydown', (event) => {
      const next = listMove(event.key, this.state.token, this.run?.n ?? 0);
      if (next === null) return;
      event.preventDefault();
      this.setSelection({ token: next }, 'token');
    });
    parts.maskPredictions = html('div', { class: 'mask-predictions', 'aria-live': 'polite', hidden: true });

    parts.layerPicker = this.segmented('Layer', 4, 'layer-picker', (i) => this.setSelection({ layer: i }, 'layer'));
    parts.headPicker = this.segmented('Head', 4, 'head-picker', (i) => this.setSelection({ head: i }, 'head'));
    parts.which = html('span', { class: 'which', 'aria-live': 'polite' });

    parts.tabs = html('div', { class: 'tabs', role: 'tablist', 'aria-label': 'Views' },
      VIEWS.map((view) => html('button', {
        type: 'button', role: 'tab', class: 'tab', id: id(`tab-${view.id}`), 'aria-controls': id('panel'),
        dataset: { view: view.id }, text: view.label, tabindex: -1,
        onclick: () => this.selectView(view.id),
      })));
    parts.tabs.addEventListener('keydown', (event) => {
      const index = VIEWS.findIndex((v) => v.id === this.state.view);
      const next = listMove(event.key, index, VIEWS.length);
      if (next === null) return;
      event.preventDefault();
      this.selectView(VIEWS[next].id, true);
    });

    parts.rolloutPicker = this.segmented('Rollout through layer', 4, 'rollout-picker', (i) => this.setSelection({ rolloutLayer: i }, 'rollout'));
    parts.rolloutControl = html('div', { class: 'view-control' }, [html('span', { class: 'picker-label', text: 'Rollout through layer' }), parts.rolloutPicker]);
    parts.whatIf = html('input', { type: 'checkbox', class: 'whatif-toggle' });
    parts.whatIf.addEventListener('change', () => this.setSelection({ whatIf: parts.whatIf.checked }));
    parts.scalingControl = html('div', { class: 'view-control' }, [
      html('label', { class: 'toggle' }, [parts.whatIf, html('span', { class: 'whatif-tag', text: 'WHAT-IF' }),
        'Draw the row without dividing q\u00b7k by \u221ad = 8']),
    ]);
    parts.compareInput = html('textarea', { id: id('compare'), rows: 2, spellcheck: 'false', maxlength: MAX_SENTENCE_CHARS, class: 'compare-input' });
    parts.compareInput.addEventListener('input', (event) => {
      this.inputStart = event.timeStamp;
      this.state.compareSentence = cleanSentence(parts.compareInput.value);
      this.requestRun();
    });
    parts.compareControl = html('div', { class: 'view-control' }, [
      html('div', { class: 'compare-box' }, [
        html('label', { class: 'field-label', for: id('compare') }, ['Sentence B ', html('span', { class: 'field-help', text: '(sentence A is the one above; by default B changes one word)' })]),
        parts.compareInput,
      ]),
      html('button', {
        type: 'button', class: 'small-button', text: 'Reset B to A with one word changed',
        onclick: () => { this.state.compareSentence = null; this.runNow(); },
      }),
    ]);
    parts.viewControls = html('div', { class: 'view-controls' }, [parts.rolloutControl, parts.scalingControl, parts.compareControl]);
    parts.figureBox = html('div', { class: 'figure-box' });
    parts.hoverReadout = html('p', { class: 'hover-readout', 'aria-live': 'polite', hidden: true });
    parts.notes = html('div', { class: 'notes' });
    parts.actions = html('div', { class: 'actions' }, [
      html('button', { type: 'button', class: 'save-png', text: 'Save PNG', onclick: () => this.exportFigure('png') }),
      html('button', { type: 'button', class: 'save-svg', text: 'Save SVG', onclick: () => this.exportFigure('svg') }),
    ]);
    parts.panel = html('div', { class: 'panel', role: 'tabpanel', id: id('panel') },
      [parts.viewControls, parts.figureBox, parts.hoverReadout, parts.notes, parts.actions]);

    parts.main = html('div', { class: 'main', hidden: true }, [
      html('label', { class: 'field-label', for: id('sentence') }, ['Sentence ', html('span', { class: 'field-help', text: '(type to update; try [MASK] in place of a word)' })]),
      parts.sentence,
      html('div', { class: 'token-info' }, [parts.tokenCount, parts.busy]),
      parts.truncation,
      parts.tokens,
      parts.maskPredictions,
      html('div', { class: 'pickers' }, [
        html('div', { class: 'picker' }, [html('span', { class: 'picker-label', 'aria-hidden': 'true', text: 'Layer' }), parts.layerPicker]),
        html('div', { class: 'picker' }, [html('span', { class: 'picker-label', 'aria-hidden': 'true', text: 'Head' }), parts.headPicker]),
        parts.which,
      ]),
      parts.tabs,
      parts.panel,
    ]);
    parts.root = html('div', { class: 'explorer', part: 'explorer' }, [parts.status, parts.error, parts.main]);
    root.append(parts.root);
  }

  selectView(view, focusTab = false) {
    this.state.view = view;
    if (view === 'compare') this.compareRun = null;
    this.setSelection({}, focusTab ? 'tab' : null);
  }

  async exportFigure(format) {
    if (!this.currentFigure) return;
    const s = this.state;
    const name = `attention-${s.view}-layer${s.layer + 1}-head${s.head + 1}-token${s.token}-${fileSafe(this.run.tokens[s.token])}`;
    if (format === 'svg') saveSvg(this.currentFigure, name);
    else await savePng(this.currentFigure, name);
  }
}

AttentionExplorer.assetBase = null;

// ---- web/src/attention-explorer.mjs ----
// Entry point: defines <attention-explorer>. Built into the classic script
// web/dist/attention-explorer.js by tools/build-web.mjs (module scripts do not load from
// file://); over http this file can also be imported as a module.


/** Where the built assets (attn.wasm, *.js) live: next to the script that defined us. */
function defaultAssetBase() {
  const script = document.currentScript;
  if (script && script.src) return new URL('./', script.src).href;
  return new URL('./dist/', document.baseURI).href;
}

AttentionExplorer.assetBase = defaultAssetBase();
if (!customElements.get('attention-explorer')) customElements.define('attention-explorer', AttentionExplorer);
globalThis.AttentionExplorerPage = { engineCount };

})();
