// The JavaScript side of the engine: loads the wasm module and a weights file, and turns
// the C API of c/attn.h into plain objects and typed arrays. Runs in browsers and in Node.
// Everything the C side returns through positional arrays or numeric codes is named by
// c/spec.mjs (the C side's indices come from the same file, through c/spec.h): status codes,
// the shape, row statistics, head roles, the walkthrough's parts, the weights header.
import {
  BOUNDARY, FORMAT_VERSION, HEADER, HEADER_SIZE, MAGIC, UNCASED_FORMAT_VERSION, ROLE_BITS, SPECIAL, STATUS, readField,
} from '../../c/spec.mjs';

/** Status codes of c/attn.h by name (1 … 19 are the weights file's own checks): the spec's, for EngineError.code. */
export { STATUS };

const SHAPE_FIELDS = BOUNDARY.shape.fields;
const ROW_STATS_FIELDS = BOUNDARY.rowStats.fields;
/** The role names of attn_session_head_roles's bits, bit 0 first. */
const ROLE_NAMES = ROLE_BITS.map((r) => r.name);
const MASS_FIELDS = BOUNDARY.mass.fields;
const WALKTHROUGH_PARTS = BOUNDARY.walkthrough.fields;
const COUNTS = BOUNDARY.counts.fields;

/** Named fields of a flat array read from wasm memory. */
function named(fields, values) {
  return Object.fromEntries(fields.map((name, i) => [name, values[i]]));
}

export class EngineError extends Error {
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
  return { exports: instance.exports, memory, module: source };
}

/** Creates an engine from the wasm bytes (or a compiled module) and the weights bytes. */
export async function createEngine({ wasm, weights }) {
  const { exports, memory, module } = await instantiate(wasm);
  return Object.assign(new Engine(exports, memory, weights), { module });
}

/**
 * Creates an engine from the head of a weights file alone (`head`: its first head_bytes bytes,
 * `fileSize`: the whole file's length). The parts follow through engine.partArrived(index,
 * bytes); a run that needs a part not yet there throws EngineError STATUS.NOT_LOADED.
 */
export async function createPartialEngine({ wasm, head, fileSize }) {
  const { exports, memory, module } = await instantiate(wasm);
  return Object.assign(new Engine(exports, memory, head, fileSize), { module });
}

/** The header of a weights file (its first bytes): {headBytes, fileSize}, or null for another file. */
export function readWeightsHeader(bytes) {
  if (!bytes || bytes.length < HEADER_SIZE) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, HEADER_SIZE);
  const magic = String.fromCharCode(...readField(view, 0, HEADER.magic));
  const headBytes = readField(view, 0, HEADER.headBytes), fileSize = readField(view, 0, HEADER.fileSize);
  const version = readField(view, 0, HEADER.version);
  const ok = magic === MAGIC && (version === FORMAT_VERSION || version === UNCASED_FORMAT_VERSION) && headBytes >= HEADER_SIZE &&
    headBytes <= fileSize && fileSize <= 2 ** 31;
  return ok ? { headBytes, fileSize } : null;
}

class Heap {
  constructor(exports, memory) {
    this.x = exports;
    this.memory = memory;
  }
  alloc(bytes) {
    const p = this.x.attn_alloc(bytes);
    if (!p) throw new EngineError(STATUS.NO_MEMORY, 'out of memory');
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

export class Engine {
  /** `fileSize` given: `weights` is the head alone (createPartialEngine). */
  constructor(exports, memory, weights, fileSize = null) {
    this.heap = new Heap(exports, memory);
    const x = (this.x = exports);
    const bytes = weights instanceof Uint8Array ? weights : new Uint8Array(weights);
    this.partial = fileSize !== null;
    this.fileSize = this.partial ? fileSize : bytes.length;
    this.weightsPointer = this.heap.alloc(this.fileSize);
    this.heap.u8(this.weightsPointer, bytes.length).set(bytes);
    const out = this.heap.alloc(4);
    const status = this.partial ? x.attn_engine_create_partial(this.weightsPointer, this.fileSize, out)
      : x.attn_engine_create(this.weightsPointer, bytes.length, out);
    this.pointer = this.heap.i32(out, 1)[0];
    this.heap.free(out);
    if (status !== 0) {
      const message = this.statusMessage(status);
      this.heap.free(this.weightsPointer);
      throw new EngineError(status, message);
    }
    this.shape = this.heap.withBuffer(4 * SHAPE_FIELDS.length, (p) => x.attn_engine_shape(this.pointer, p),
      (p) => named(SHAPE_FIELDS, this.heap.i32(p, SHAPE_FIELDS.length)));
    this.tokenCache = new Map();
  }

  /**
   * The model card the weights file carries (name, source, trained_on, heldout_mlm_accuracy,
   * limits, …) as an object; null when the engine or the file has none.
   */
  modelCard() {
    if (this.card !== undefined) return this.card;
    this.card = null;
    if (typeof this.x.attn_engine_card === 'function') {
      const text = this.heap.cString(this.x.attn_engine_card(this.pointer));
      if (text) {
        try {
          const card = JSON.parse(text);
          if (card && typeof card === 'object' && !Array.isArray(card)) this.card = card;
        } catch {
          this.card = null;
        }
      }
    }
    return this.card;
  }

  /** Whether the model has its masked-word head; a file converted from a BertModel checkpoint has none. */
  hasMlm() { return this.x.attn_engine_has_mlm(this.pointer) === 1; }

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
    const arrays = heap.alloc(capacity * 12 + 4 * COUNTS.length);
    try {
      heap.u8(textPointer, bytes.length).set(bytes);
      const ids = arrays, starts = arrays + capacity * 4, ends = arrays + capacity * 8;
      const counts = arrays + capacity * 12;
      check(this, this.x.attn_engine_tokenize(this.pointer, textPointer, bytes.length, capacity,
        ids, starts, ends, counts));
      const n = named(COUNTS, heap.i32(counts, COUNTS.length)).written;
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

  /** Bytes from..to − 1 of the weights file the engine runs (whole once every part has arrived),
   * copied into `target` at the same offsets: a copy made in slices. */
  copyWeightsInto(target, from, to) { target.set(this.heap.u8(this.weightsPointer + from, to - from), from); }

  // ---- reading the weights in parts (weights/FORMAT.md) ----------------------------------

  partCount() { return this.x.attn_engine_part_count(this.pointer); }
  partsMissing() { return this.x.attn_engine_parts_missing(this.pointer); }
  partReady(index) { return this.x.attn_engine_part_ready(this.pointer, index) === 1; }
  /** The part holding token `id`'s embedding row, -1 when nothing has to be fetched for it. */
  partOfToken(id) { return this.x.attn_engine_part_of_token(this.pointer, id); }

  /** Layers whose weights have all arrived, from the first (every layer for a whole file). */
  layersReady() { return this.x.attn_engine_layers_ready(this.pointer); }

  /** The parts holding layer `layer`'s weights (from 0), ascending; [] when they are in the head. */
  layerParts(layer) {
    return this.heap.withBuffer(8, (p) => check(this, this.x.attn_engine_layer_parts(this.pointer, layer, p, p + 4)), (p) => {
      const [first, count] = this.heap.i32(p, 2);
      return Array.from({ length: count }, (_, i) => first + i);
    });
  }

  /** The parts not yet arrived that layers 0 … `count` − 1 need, ascending. */
  partsForLayers(count) {
    const parts = new Set();
    for (let l = 0; l < Math.min(count, this.shape.layers); l++) {
      for (const part of this.layerParts(l)) if (!this.partReady(part)) parts.add(part);
    }
    return [...parts].sort((a, b) => a - b);
  }

  /** {offset, bytes} of part `index` in the file (partial engines only). */
  partRange(index) {
    this.partRanges ??= new Map();  // the part table does not change: the loader asks often
    let range = this.partRanges.get(index);
    if (!range) {
      range = this.heap.withBuffer(8, (p) => check(this, this.x.attn_engine_part_range(this.pointer, index, p, p + 4)),
        (p) => { const [offset, bytes] = this.heap.i32(p, 2); return Object.freeze({ offset: offset >>> 0, bytes: bytes >>> 0 }); });
      this.partRanges.set(index, range);
    }
    return range;
  }

  /** The parts not yet arrived that a run of these token ids needs, ascending. */
  partsForIds(ids) {
    const parts = new Set();
    for (const id of ids) {
      const part = this.partOfToken(id);
      if (part >= 0 && !this.partReady(part)) parts.add(part);
    }
    return [...parts].sort((a, b) => a - b);
  }

  /**
   * What part `index` holds: {index, count, layer, rows}: layer (from 0) when it holds a layer's
   * weights, else null; rows [first, last] of the word embeddings, or null (a layer, the MLM head).
   */
  partContents(index) {
    const count = this.partCount();
    for (let layer = 0; layer < this.shape.layers; layer++) {
      if (this.layerParts(layer).includes(index)) return { index, count, layer, rows: null };
    }
    const vocab = this.shape.vocab;
    const firstAtOrAfter = (part) => {
      let low = 0, high = vocab;
      while (low < high) {
        const mid = (low + high) >> 1;
        if (this.partOfToken(mid) >= part) high = mid; else low = mid + 1;
      }
      return low;
    };
    const first = firstAtOrAfter(index), end = firstAtOrAfter(index + 1);
    return first < end && this.partOfToken(first) === index
      ? { index, count, layer: null, rows: [first, end - 1] } : { index, count, layer: null, rows: null };
  }

  /** What part `index` holds, for messages: "part 7 of 482 (word embeddings rows 192–255)", "(layer 2)". */
  describePart(index) {
    const { count, layer, rows } = this.partContents(index);
    const what = layer !== null ? `layer ${layer + 1}` : rows ? `word embeddings rows ${rows[0]}\u2013${rows[1]}` : 'the masked-word prediction head';
    return `part ${index} of ${count} (${what})`;
  }

  /**
   * Copies part `index`'s bytes into the engine's weights buffer and has the engine check them
   * (CRC, values). Throws EngineError naming the part when they are refused or the wrong length.
   */
  partArrived(index, bytes) {
    const { offset, bytes: length } = this.partRange(index);
    if (bytes.length !== length) {
      throw Object.assign(new EngineError(STATUS.TENSOR, `${this.describePart(index)} has ${bytes.length} bytes where the file's part table says ${length} (incomplete download?)`), { partIndex: index });
    }
    this.heap.u8(this.weightsPointer + offset, length).set(bytes);
    const status = this.x.attn_engine_part_arrived(this.pointer, index);
    if (status !== 0) throw Object.assign(new EngineError(status, `${this.describePart(index)}: ${this.statusMessage(status)}`), { partIndex: index });
  }

  /** fn() when the engine is destroyed (what holds a copy of its weights lets it go). */
  onDestroy(fn) { (this.destroyHooks ??= []).push(fn); }

  destroy() {
    for (const hook of this.destroyHooks ?? []) hook();
    this.x.attn_engine_destroy(this.pointer);
    this.heap.free(this.weightsPointer);
  }
}

/** Tokens of the copies of a run that one step of the mean importance runs side by side. */
const BATCH_TOKENS = 256;

/** mean Δ and share of changed top-1 words over the importance targets, per head and per layer. */
export function importanceSummary(targets, layers, heads) {
  const mean = { heads: new Float32Array(layers * heads), layers: new Float32Array(layers) };
  const changed = { heads: new Float32Array(layers * heads), layers: new Float32Array(layers) };
  for (const t of targets) {
    for (let i = 0; i < layers * heads; i++) {
      mean.heads[i] += t.heads[i] / targets.length;
      changed.heads[i] += (t.headTop1[i] !== t.top1.id) / targets.length;
    }
    for (let l = 0; l < layers; l++) {
      mean.layers[l] += t.layers[l] / targets.length;
      changed.layers[l] += (t.layerTop1[l] !== t.top1.id) / targets.length;
    }
  }
  return { mean, changed };
}

function check(engine, status) {
  if (status !== 0) throw new EngineError(status, engine.statusMessage(status));
}

export class Session {
  constructor(engine) {
    this.engine = engine;
    this.heap = engine.heap;
    this.x = engine.x;
    this.pointer = this.x.attn_session_create(engine.pointer);
    if (!this.pointer) throw new EngineError(STATUS.NO_MEMORY, 'out of memory');
    this.n = 0;
    this.runMemo = new Map();
    this.removed = [];
  }

  /** compute() once per run and key, then its value again (shared: do not change it). */
  memo(key, compute) {
    let value = this.runMemo.get(key);
    if (value === undefined) {
      value = compute();
      this.runMemo.set(key, value);
    }
    return value;
  }

  /** Tokenizes and runs `text`; returns the tokens of the run. */
  runText(text) {
    return this.finishRun(this.withText(text, (p, length) => this.x.attn_session_run_text(this.pointer, p, length)));
  }

  /**
   * A run in steps (c/attn.h attn_session_begin_text): tokenizes and embeds `text`, computes no
   * layer, and returns the tokens; then step() computes the next piece of the run at a time. A
   * layer can be read once it is done (layersDone()); reading one that is not throws EngineError
   * NOT_LOADED. Throws NOT_LOADED (session empty) when the text's rows have not arrived.
   */
  beginText(text) {
    return this.finishRun(this.withText(text, (p, length) => this.x.attn_session_begin_text(this.pointer, p, length)));
  }

  /**
   * Computes the next piece of the run begun (about 2^24 multiply-adds: a block of tokens of a
   * layer, or one head). Returns {layersDone, complete, waiting}: waiting is true when the next
   * layer's weights have not arrived (nothing was computed; step again once they have). Throws
   * EngineError when the run fails (the session is then empty).
   */
  step() {
    const status = this.x.attn_session_step(this.pointer);
    const layersDone = this.layersDone();
    if (status === STATUS.NOT_LOADED) return { layersDone, complete: false, waiting: true };
    if (status !== 0) {
      this.runMemo = new Map();
      this.n = this.x.attn_session_length(this.pointer);
    }
    check(this.engine, status);
    return { layersDone, complete: layersDone === this.engine.shape.layers, waiting: false };
  }

  /** Layers of the current run computed (0 … layers). */
  layersDone() { return this.x.attn_session_layers_done(this.pointer); }

  /** Whether the run has every layer. */
  complete() { return this.n > 0 && this.layersDone() === this.engine.shape.layers; }

  /** Calls run(pointer, length) with the UTF-8 bytes of `text` in wasm memory; its status. */
  withText(text, run) {
    const bytes = new TextEncoder().encode(text);
    return this.heap.withBuffer(bytes.length + 1, (p) => {
      this.heap.u8(p, bytes.length).set(bytes);
      return p;
    }, (p) => run(p, bytes.length));
  }

  /**
   * Tokenizes and runs the sentence pair `[CLS] a [SEP] b [SEP]`. Returns the tokens of the
   * run with `typeIds`: 0 for [CLS], a and its [SEP], 1 for b and the closing [SEP]; each
   * token's offsets index the text of its own segment (typeIds[i]: 0 → a, 1 → b). A pair
   * longer than the model's positions is cut longest-first (`truncated`, `fullLength`).
   */
  runPair(a, b) {
    const encoder = new TextEncoder();
    const first = encoder.encode(a), second = encoder.encode(b);
    const status = this.heap.withBuffer(first.length + second.length + 1, (p) => {
      this.heap.u8(p, first.length).set(first);
      this.heap.u8(p + first.length, second.length).set(second);
    }, (p) => this.x.attn_session_run_pair(this.pointer, p, first.length, p + first.length, second.length));
    return { ...this.finishRun(status), typeIds: this.typeIds() };
  }

  /** Runs given token ids with their token types (typeIds[i] in 0 … typeVocab − 1). */
  runTypedIds(ids, typeIds) {
    if (typeIds.length !== ids.length) {
      throw new EngineError(STATUS.ARGUMENT, 'typeIds must have one entry per id');
    }
    const status = this.heap.withBuffer(ids.length * 8 + 4, (p) => {
      this.heap.i32(p, ids.length).set(ids);
      this.heap.i32(p + ids.length * 4, ids.length).set(typeIds);
    }, (p) => this.x.attn_session_run_typed_ids(this.pointer, p, p + ids.length * 4, ids.length));
    return { ...this.finishRun(status), typeIds: this.typeIds() };
  }

  /** Token types of the last run ([n]: 0 for a single sentence and a pair's first segment). */
  typeIds() {
    return Array.from(this.heap.i32(this.x.attn_session_type_ids(this.pointer), this.n));
  }

  /** Texts the last run read: 1 after runText, 2 after runPair, 0 after id runs or none. */
  segmentCount() { return this.x.attn_session_segment_count(this.pointer); }

  /** Runs the model on given token ids. */
  runIds(ids) {
    const status = this.heap.withBuffer(ids.length * 4 + 4, (p) => {
      this.heap.i32(p, ids.length).set(ids);
    }, (p) => this.x.attn_session_run_ids(this.pointer, p, ids.length));
    return this.finishRun(status);
  }

  /** A failed run leaves the session empty (n = 0), so nothing reads the previous run. */
  finishRun(status) {
    this.runMemo = new Map();
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

  /** All heads' probabilities, [layers][heads][n][n], as a copy (the run complete). */
  attention() {
    const { layers, heads } = this.engine.shape;
    const n = this.n;
    if (n && !this.complete()) throw new EngineError(STATUS.NOT_LOADED, this.engine.statusMessage(STATUS.NOT_LOADED));
    return this.heap.f32(this.x.attn_session_attention(this.pointer), layers * heads * n * n).slice();
  }

  row(layer, head, row) {
    this.checkHead(layer, head, row);
    if (layer >= this.layersDone()) throw new EngineError(STATUS.NOT_LOADED, this.engine.statusMessage(STATUS.NOT_LOADED));
    const { heads } = this.engine.shape;
    const n = this.n;
    const start = ((layer * heads + head) * n + row) * n * 4;
    return this.heap.f32(this.x.attn_session_attention(this.pointer) + start, n).slice();
  }

  rowStats(layer, head, row) {
    const count = ROW_STATS_FIELDS.length;
    return this.heap.withBuffer(8 * count, (p) =>
      check(this.engine, this.x.attn_session_row_stats(this.pointer, layer, head, row, p)),
    (p) => named(ROW_STATS_FIELDS, this.heap.f64(p, count)));
  }

  /** Final (layer = layers) or intermediate hidden states, [n][hidden], as a copy. */
  hidden(layer = this.engine.shape.layers) {
    const p = this.x.attn_session_hidden(this.pointer, layer);
    const code = Number.isInteger(layer) && layer >= 0 && layer <= this.engine.shape.layers && this.n ? STATUS.NOT_LOADED : STATUS.ARGUMENT;
    if (!p) throw new EngineError(code, this.engine.statusMessage(code));
    return this.heap.f32(p, this.n * this.engine.shape.hidden).slice();
  }

  /**
   * Attention rollout through `lastLayer`, [n][n], computed by the engine once per run and
   * layer and then kept (the returned array is shared: do not change it).
   */
  rollout(lastLayer = this.engine.shape.layers - 1) {
    return this.memo(`rollout ${lastLayer}`, () =>
      this.timedRollout(this.n * this.n, (p) => this.x.attn_session_rollout(this.pointer, lastLayer, p)));
  }

  /**
   * Row `row` of the rollout through `lastLayer`, [n], computed by the engine in
   * O(layers · heads · n²) once per run, layer and row, then kept (shared: do not change it).
   */
  rolloutRow(lastLayer, row) {
    return this.memo(`rollout row ${lastLayer} ${row}`, () =>
      this.timedRollout(this.n, (p) => this.x.attn_session_rollout_row(this.pointer, lastLayer, row, p)));
  }

  /** `count` floats from an engine rollout call; its time kept in lastRolloutMs. */
  timedRollout(count, call) {
    const started = performance.now();
    const values = this.floats(count, call);
    this.lastRolloutMs = performance.now() - started;
    return values;
  }

  /** A head's roles over the whole run ({roles, mass}), computed once per run and head. */
  headRoles(layer, head) {
    return this.memo(`roles ${layer} ${head}`, () => this.computeHeadRoles(layer, head));
  }

  computeHeadRoles(layer, head) {
    let roles = 0;
    const mass = this.heap.withBuffer(4 * MASS_FIELDS.length, (p) => {
      roles = this.x.attn_session_head_roles(this.pointer, layer, head, p);
      if (roles < 0) check(this.engine, -roles);
    }, (p) => named(MASS_FIELDS, this.heap.f32(p, MASS_FIELDS.length)));
    return { roles: ROLE_NAMES.filter((_, bit) => roles & (1 << bit)), mass };
  }

  contributions(layer, head, row) {
    return this.floats(this.n, (p) => this.x.attn_session_contributions(this.pointer, layer, head, row, p));
  }

  /** The row recomputed from the same q·k scores, divided by √d (the model) or not (what-if). */
  rowScaled(layer, head, row, divideBySqrtD) {
    return this.floats(this.n, (p) =>
      this.x.attn_session_row_scaled(this.pointer, layer, head, row, divideBySqrtD ? 1 : 0, p, 0));
  }

  /** That row's statistics, named as rowStats's (the engine's analyse_row). */
  rowScaledStats(layer, head, row, divideBySqrtD) {
    const count = ROW_STATS_FIELDS.length, statsAt = 8 * Math.ceil(this.n / 2);
    return this.heap.withBuffer(statsAt + 8 * count, (p) =>
      check(this.engine, this.x.attn_session_row_scaled(this.pointer, layer, head, row, divideBySqrtD ? 1 : 0, p, p + statsAt)),
    (p) => named(ROW_STATS_FIELDS, this.heap.f64(p + statsAt, count)));
  }

  walkthrough(layer, token) {
    const h = this.engine.shape.hidden;
    const all = this.floats(WALKTHROUGH_PARTS.length * h, (p) => this.x.attn_session_walkthrough(this.pointer, layer, token, p));
    return named(WALKTHROUGH_PARTS, WALKTHROUGH_PARTS.map((_, k) => all.subarray(k * h, (k + 1) * h)));
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

  // ---- removing heads (ablation) and head importance: c/attn.h ----------------------------

  /**
   * Removes heads from this session's runs: `heads` is [[layer, head], …] (from 0); [] puts
   * every head back. A removed head's context vectors are zeroed before its layer's output
   * projection W_O (its own attention is still computed); every later reading of the session
   * (attention, hidden states, [MASK] guesses, analyses) is of the model without those heads.
   * The session's run, when it has one, is run again at once from the lowest layer whose set
   * changed; the tokens of the run are returned (null without a run). Throws EngineError on a
   * head out of range, or when that run fails (the session is then empty, as after any failed run).
   */
  setRemovedHeads(heads) {
    const { layers, heads: perLayer } = this.engine.shape;
    const mask = new Uint8Array(layers * perLayer);
    for (const pair of heads) {
      const [layer, head] = pair ?? [];
      if (![layer, head].every(Number.isInteger) || layer < 0 || layer >= layers || head < 0 || head >= perLayer) {
        throw new EngineError(STATUS.ARGUMENT, `no head ${layer}.${head} in this model (layers 0–${layers - 1}, heads 0–${perLayer - 1})`);
      }
      mask[layer * perLayer + head] = 1;
    }
    const status = this.heap.withBuffer(mask.length, (p) => this.heap.u8(p, mask.length).set(mask),
      (p) => this.x.attn_session_set_ablation(this.pointer, p));
    this.removed = [...mask].flatMap((on, i) => (on ? [[Math.floor(i / perLayer), i % perLayer]] : []));
    const hadRun = this.n > 0;
    const tokens = this.finishRun(status);
    return hadRun ? tokens : null;
  }

  /** The heads this session's runs remove, [[layer, head], …] (from 0), layer-major. */
  removedHeads() { return this.removed.map((pair) => [...pair]); }

  /**
   * Head importance for the current run, computed once per run (and removal set) and kept
   * (shared: do not change it). See importanceSteps for what it measures.
   */
  importance() {
    return this.memo('importance', () => {
      const steps = this.importanceSteps();
      let step = steps.next();
      while (!step.done) step = steps.next();
      return step.value;
    });
  }

  /**
   * Head importance step by step, for progress: the targets run by batches of copies of the run
   * (c/attn.h attn_session_importance_batch); yields {done, total} after each removal of each
   * batch and returns what importance() returns:
   *   {maskedInTurn, targets: [{position, answer, top1, logProb, heads, headTop1, layers, layerTop1}],
   *    mean: {heads, layers}, changed: {heads, layers}, ms}
   * The targets are every [MASK] of the run, the answer being the token the run ranks first
   * there (maskedInTurn false); or, when the text has no [MASK], every token but [CLS] and [SEP],
   * each replaced by [MASK] in turn, the answer being the token that was there (maskedInTurn
   * true). heads[layer · H + head] is log p(answer) with that head removed − without (nats; on
   * top of the session's removed heads), layers[layer] the same with the whole layer removed;
   * headTop1/layerTop1 the most probable id then. mean: Δ averaged over the targets; changed:
   * the share of targets whose top-1 word changed. Throws EngineError (NO_MLM without the
   * masked-word head). first, count: only targets first … first + count − 1 (of every target's
   * list), their numbers bit for bit those of the whole computation (a worker's share of it,
   * importance-workers.mjs).
   */
  *importanceSteps({ first: from = 0, count: wanted = Infinity } = {}) {
    const started = performance.now();
    const { layers, heads } = this.engine.shape;
    const { positions: all, maskedInTurn } = this.importanceTargets();
    const end = Math.min(all.length, from + wanted);
    const positions = all.slice(from, end);
    const targets = positions.map((position) => ({ position, heads: new Float32Array(layers * heads),
      headTop1: new Int32Array(layers * heads), layers: new Float32Array(layers), layerTop1: new Int32Array(layers) }));
    const perBatch = this.importanceBatch(), total = this.importanceStepCount(positions.length);
    let done = 0;
    for (let first = from; first < end; first += perBatch) {
      const count = Math.min(perBatch, end - first);
      for (let layer = -1; layer < layers; layer++) {
        for (let entry = 0; entry <= (layer < 0 ? 0 : heads); entry++) {
          this.heap.withBuffer(20 * count, (p) => check(this.engine, this.x.attn_session_importance_batch(
            this.pointer, first, count, layer, entry, p, p + 8 * count, p + 12 * count, p + 16 * count)), (p) => {
            const answers = this.heap.i32(p, 2 * count), logProbs = this.heap.f32(p + 8 * count, count);
            const delta = this.heap.f32(p + 12 * count, count), top = this.heap.i32(p + 16 * count, count);
            for (let c = 0; c < count; c++) {
              const result = targets[first - from + c];
              if (layer < 0) Object.assign(result, { answer: this.tokenOf(answers[2 * c]), top1: this.tokenOf(answers[2 * c + 1]), logProb: logProbs[c] });
              else if (entry < heads) {
                result.heads[layer * heads + entry] = delta[c];
                result.headTop1[layer * heads + entry] = top[c];
              } else {
                result.layers[layer] = delta[c];
                result.layerTop1[layer] = top[c];
              }
            }
          });
          yield { done: ++done, total };
        }
      }
    }
    return { maskedInTurn, targets, ...importanceSummary(targets, layers, heads), ms: performance.now() - started };
  }

  /**
   * Targets per batch of importanceSteps: as many copies of the run as BATCH_TOKENS (and the
   * model's positions) hold. Each step is the copies' run (layer −1) or one removal for one batch
   * (c/attn.h attn_session_importance_batch), a few tens of milliseconds on bert-mini.
   */
  importanceBatch() {
    return Math.max(1, Math.floor(Math.min(BATCH_TOKENS, this.engine.shape.maxPositions) / Math.max(1, this.n)));
  }

  /** The steps importanceSteps takes for `count` targets. */
  importanceStepCount(count) {
    const { layers, heads } = this.engine.shape;
    return Math.ceil(count / this.importanceBatch()) * (1 + layers * (heads + 1));
  }

  /**
   * Head importance for the word at `position` alone (every layer in one engine call; kept for
   * the run, removal set and answer): {position, answer, top1, logProb, heads, headTop1, layers,
   * layerTop1, masked, answerGiven, ms} as a target of importanceSteps. masked: a [MASK] of the
   * text stands there (else the word is masked for the reading). answerId: the word the reader
   * says belongs there (a vocabulary id), or null: at a [MASK] the run's top-1, else the word
   * that was there. Throws EngineError (ARGUMENT for [CLS], [SEP] or a position out of range).
   */
  importanceWord(position, answerId = null) {
    return this.memo(`importance:${position}:${answerId ?? ''}`, () => {
      const started = performance.now();
      const { layers, heads } = this.engine.shape;
      const entries = layers * (heads + 1);
      return this.heap.withBuffer(12 + 8 * entries, (p) => check(this.engine, this.x.attn_session_importance_word(
        this.pointer, position, answerId ?? -1, p, p + 8, p + 12, p + 12 + 4 * entries)), (p) => {
        const [answer, top1] = this.heap.i32(p, 2);
        const delta = this.heap.f32(p + 12, entries), top = this.heap.i32(p + 12 + 4 * entries, entries);
        const result = { position, answer: this.tokenOf(answer), top1: this.tokenOf(top1), logProb: this.heap.f32(p + 8, 1)[0],
          heads: new Float32Array(layers * heads), headTop1: new Int32Array(layers * heads),
          layers: new Float32Array(layers), layerTop1: new Int32Array(layers),
          masked: this.engine.token(this.heap.i32(this.x.attn_session_ids(this.pointer), this.n)[position]) === SPECIAL.mask, answerGiven: answerId !== null };
        for (let l = 0; l < layers; l++) {
          const at = l * (heads + 1);
          result.heads.set(delta.subarray(at, at + heads), l * heads);
          result.headTop1.set(top.subarray(at, at + heads), l * heads);
          result.layers[l] = delta[at + heads];
          result.layerTop1[l] = top[at + heads];
        }
        result.ms = performance.now() - started;
        return result;
      });
    });
  }

  /** {positions, maskedInTurn} of attn_session_importance_targets. */
  importanceTargets() {
    return this.heap.withBuffer(4 * this.n + 4, (p) => p, (p) => {
      const count = this.x.attn_session_importance_targets(this.pointer, p + 4, p);
      if (count < 0) check(this.engine, -count);
      return { positions: Array.from(this.heap.i32(p + 4, count)), maskedInTurn: this.heap.i32(p, 1)[0] === 1 };
    });
  }

  tokenOf(id) { return { id, token: this.engine.token(id) }; }

  floats(count, fill) {
    return this.heap.withBuffer(count * 4 || 4, (p) => check(this.engine, fill(p)),
      (p) => this.heap.f32(p, count).slice());
  }

  checkHead(layer, head, row) {
    const { layers, heads } = this.engine.shape;
    const ok = [layer, head, row].every(Number.isInteger) && layer >= 0 && layer < layers &&
      head >= 0 && head < heads && row >= 0 && row < this.n;
    if (!ok) throw new EngineError(STATUS.ARGUMENT, this.engine.statusMessage(STATUS.ARGUMENT));
  }

  destroy() { this.x.attn_session_destroy(this.pointer); }
}

