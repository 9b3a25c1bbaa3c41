// The JavaScript side of the engine: loads the wasm module and a weights file, and turns
// the C API of c/attn.h into plain objects and typed arrays. Runs in browsers and in Node.

const ROLE_NAMES = ['previous', 'next', 'cls-sink', 'sep-sink', 'punct-sink', 'broad'];
const STATS = ['sum', 'max', 'argmax', 'ratio', 'entropy', 'effective', 'normalized'];

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
  return { exports: instance.exports, memory };
}

/** Creates an engine from the wasm bytes (or a compiled module) and the weights bytes. */
export async function createEngine({ wasm, weights }) {
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

export class Engine {
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

export class Session {
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

