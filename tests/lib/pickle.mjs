// Pickle bytes written opcode by opcode (Python's pickletools names), for tests that build
// hostile pytorch_model.bin files: deep nesting, long chains, legacy-format files.

const enc = (s) => [...new TextEncoder().encode(s)];
export const u32 = (n) => [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, n >>> 24];
export const str = (s) => [0x58, ...u32(enc(s).length), ...enc(s)];
export const int = (n) => [0x4a, ...u32(n)];
export const global = (m, n) => [0x63, ...enc(`${m}\n${n}\n`)];
export const tuple = (...items) => [0x28, ...items.flat(), 0x74];
export const NONE = [0x4e];
export const FALSE = [0x89];
export const STOP = 0x2e;
const EMPTY_LIST = 0x5d;
const BINPUT = 0x71;
const BINGET = 0x68;
const APPEND = 0x61;
const POP = 0x30;
const TUPLE3 = 0x87;
const REDUCE = 0x52;
const BINPERSID = 0x51;

// Appends without spreading onto the call stack (the arrays here reach millions of opcodes).
const pushAll = (out, items) => { for (const x of items) out.push(x); return out; };

/** A list nested `depth` deep ([[[…]]]), built with a stack of two values and two memo slots. */
export function nestedList(depth) {
  const out = [EMPTY_LIST, BINPUT, 250];
  for (let i = 0; i < depth; i++) out.push(EMPTY_LIST, BINPUT, 251, APPEND, POP, BINGET, 251);
  out.push(POP, BINGET, 250);
  return out;
}

export function storagePid({ key = '0', numel = 4, legacy = false } = {}) {
  const numelOps = Array.isArray(numel) ? numel : int(numel);
  return [...tuple(str('storage'), global('torch', 'FloatStorage'), str(key), str('cpu'), numelOps, legacy ? NONE : []), BINPERSID];
}

/** _rebuild_tensor_v2's arguments: offset a number or opcodes; size and stride lists of numbers or { ops }. */
export function rebuildArgs({ pid = storagePid(), offset = 0, size = [2, 2], stride = [2, 1] } = {}) {
  const ops = (v) => (typeof v === 'number' ? int(v) : v);
  const dims = (d) => d.ops ?? tuple(...d.map(int));
  return tuple(pid, ops(offset), dims(size), dims(stride), FALSE, NONE);
}

const REBUILD = global('torch._utils', '_rebuild_tensor_v2');
const FROM_TYPE = global('torch._tensor', '_rebuild_from_type_v2');

/** A call of _rebuild_tensor_v2 wrapped in `wrappers` calls of _rebuild_from_type_v2. */
export function wrappedTensor(args, wrappers) {
  const out = [...FROM_TYPE, BINPUT, 252, POP, ...global('torch', 'Tensor'), BINPUT, 253, POP, ...REBUILD, BINPUT, 254, POP];
  pushAll(out, args);
  for (let i = 0; i < wrappers; i++) {  // (inner) → (FROM_TYPE or REBUILD, torch.Tensor, inner)
    out.push(BINPUT, 251, POP, BINGET, i === 0 ? 254 : 252, BINGET, 253, BINGET, 251, TUPLE3);
  }
  out.push(BINPUT, 251, POP, BINGET, wrappers ? 252 : 254, BINGET, 251, REDUCE);
  return out;
}

/** A state dict pickle {name: tensor call} (protocol 2). */
export function stateDict(entries) {
  const out = [0x80, 0x02, 0x7d];
  for (const [name, tensorOps] of entries) pushAll(pushAll(out, str(name)), tensorOps).push(0x73);
  out.push(STOP);
  return new Uint8Array(out);
}

export const tensorCall = (args) => [...REBUILD, ...args, REDUCE];

/** One value's pickle: PROTO 2, the opcodes, STOP. */
export const valuePickle = (ops) => new Uint8Array([0x80, 0x02, ...ops, STOP]);

/** The legacy magic number (LONG1). */
export const LEGACY_MAGIC_OPS = [0x8a, 10, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19];
