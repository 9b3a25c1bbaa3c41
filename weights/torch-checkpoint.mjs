// pytorch_model.bin read without Python: the zip container torch.save writes (PyTorch ≥ 1.6)
// and the legacy format before it, through a restricted unpickler that executes nothing.
// Bytes in, a Map name → { dtype, shape, bytes } out, as parseSafetensors gives (bytes read
// only when asked, little-endian and contiguous): the converter core treats both the same.
//
// The unpickler knows the opcodes and the globals a state dict uses and no others: any other
// global (os.system, builtins.eval, …) is refused by module and name when the pickle names it,
// before any value is built from it. Every count is checked against the bytes that are there
// before anything is allocated; the bounds are in weights/README.md ("What the converter reads").
import { fail, QUOTE_MAX_CHARS, quoteValue } from './convert-error.mjs';
import { crc32Steps } from './crc32.mjs';
import { drive } from './steps.mjs';


export const TORCH_LIMITS = {
  stack: 100000,       // values on the unpickler's stack at once
  marks: 1000,         // open MARKs (nesting); a state dict needs about 5
  memo: 1000000,       // memo entries
  stringBytes: 1 << 20, // one string or bytes value
  zipEntries: 100000,
  tensors: 100000,
  dims: 8,
  elements: 2 ** 40,   // one tensor's or storage's element count
  rebuildWrappers: 4,  // _rebuild_from_type_v2 around one rebuild; torch.save writes one
  storageKeyChars: 256, // a storage's key: a number as text
  byteorderBytes: 16,  // the byteorder entry: "little" or "big"
};

// ---------------------------------------------------------------- the zip container

const U16 = (v, at) => v.getUint16(at, true);
const U32 = (v, at) => v.getUint32(at, true);
const U64 = (v, at) => {
  const n = v.getBigUint64(at, true);
  return n > BigInt(Number.MAX_SAFE_INTEGER) ? Infinity : Number(n);
};

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

function findEndOfCentralDirectory(buf, view, label) {
  const lowest = Math.max(0, buf.length - 22 - 0xffff);
  for (let at = buf.length - 22; at >= lowest; at--) {
    if (U32(view, at) === EOCD && at + 22 + U16(view, at + 20) === buf.length) return at;
  }
  return fail('convert.refusal.zip.noEnd', { label });
}

// { count, offset, size } of the central directory, from the zip64 record when the classic one
// says 0xffff / 0xffffffff.
function centralDirectory(buf, view, label) {
  const end = findEndOfCentralDirectory(buf, view, label);
  let count = U16(view, end + 10);
  let size = U32(view, end + 12);
  let offset = U32(view, end + 16);
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff) {
    const locator = end - 20;
    if (locator < 0 || U32(view, locator) !== ZIP64_LOCATOR) fail('convert.refusal.zip.noLocator', { label });
    const record = U64(view, locator + 8);
    if (!(record + 56 <= locator) || U32(view, record) !== ZIP64_EOCD) fail('convert.refusal.zip.misplacedEnd', { label });
    count = U64(view, record + 32);
    size = U64(view, record + 40);
    offset = U64(view, record + 48);
  }
  if (!(offset + size <= end)) fail('convert.refusal.zip.directoryPastEnd', { label });
  if (count > TORCH_LIMITS.zipEntries) fail('convert.refusal.zip.tooManyEntries', { label, count, most: TORCH_LIMITS.zipEntries });
  if (count * 46 > size) fail('convert.refusal.zip.entriesDontFit', { label, count, size });
  return { count, offset, size };
}

// The zip64 extra field's values for the fields the fixed part gives as 0xffffffff.
function zip64Values(view, at, length, wanted, label, name) {
  const values = [];
  for (let p = at; p + 4 <= at + length;) {
    const id = U16(view, p);
    const size = U16(view, p + 2);
    if (p + 4 + size > at + length) break;
    if (id === 0x0001) {
      for (let i = 0; i < wanted; i++) {
        if (8 * i + 8 > size) fail('convert.refusal.zip.shortZip64', { label, name });
        values.push(U64(view, p + 4 + 8 * i));
      }
      return values;
    }
    p += 4 + size;
  }
  return fail('convert.refusal.zip.noZip64Field', { label, name });
}

// Byte by byte, in chunks: no spread of an input-sized array onto the call stack.
function latin1(bytes) {
  let s = '';
  for (let at = 0; at < bytes.length; at += 4096) s += String.fromCharCode.apply(null, bytes.subarray(at, at + 4096));
  return s;
}
const utf8 = new TextDecoder('utf-8');
// A zip entry's name in a message: escaped, and cut when long.
const shown = (name) => quoteValue(name, 2 * QUOTE_MAX_CHARS).slice(1, -1);

/**
 * The entries of a zip file of stored (uncompressed) members, each checked against its local
 * header and its CRC-32: Map name → Uint8Array (a view of buf, no copy). Every header, range
 * and overlap is checked before any CRC, so each byte is CRC-checked once at most: the cost is
 * linear in the file's size.
 */
export const readStoredZip = (buf, label = 'pytorch_model.bin') => drive(readStoredZipSteps(buf, label));

// readStoredZip as a generator: it yields between steps of the entries' CRC-32 (weights/steps.mjs).
function* readStoredZipSteps(buf, label) {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (buf.length < 22) fail('convert.refusal.zip.short', { label });
  const cd = centralDirectory(buf, view, label);
  const entries = new Map();
  const ranges = [];
  let p = cd.offset;
  for (let i = 0; i < cd.count; i++) {
    if (p + 46 > cd.offset + cd.size || U32(view, p) !== CENTRAL) fail('convert.refusal.zip.damagedEntry', { label, index: i });
    const flags = U16(view, p + 8);
    const method = U16(view, p + 10);
    const crc = U32(view, p + 16);
    let compressed = U32(view, p + 20);
    let size = U32(view, p + 24);
    const nameLength = U16(view, p + 28);
    const extraLength = U16(view, p + 30);
    const commentLength = U16(view, p + 32);
    let local = U32(view, p + 42);
    const next = p + 46 + nameLength + extraLength + commentLength;
    if (next > cd.offset + cd.size) fail('convert.refusal.zip.entryPastDirectory', { label, index: i });
    const nameBytes = buf.subarray(p + 46, p + 46 + nameLength);
    const name = flags & 0x800 ? utf8.decode(nameBytes) : latin1(nameBytes);
    const wide = [size, compressed, local].filter((v) => v === 0xffffffff).length;
    if (wide) {
      const values = zip64Values(view, p + 46 + nameLength, extraLength, wide, label, shown(name));
      if (size === 0xffffffff) size = values.shift();
      if (compressed === 0xffffffff) compressed = values.shift();
      if (local === 0xffffffff) local = values.shift();
    }
    if (flags & 0x1) fail('convert.refusal.zip.encrypted', { label, name: shown(name) });
    if (method !== 0) {
      fail('convert.refusal.zip.compressed', { label, name: shown(name), method });
    }
    if (compressed !== size) fail('convert.refusal.zip.sizesDiffer', { label, name: shown(name), compressed, size });
    if (entries.has(name)) fail('convert.refusal.zip.twice', { label, name: shown(name) });
    if (!(local + 30 <= cd.offset) || U32(view, local) !== LOCAL) fail('convert.refusal.zip.noLocalHeader', { label, name: shown(name), offset: local });
    const localNameLength = U16(view, local + 26);
    const start = local + 30 + localNameLength + U16(view, local + 28);
    if (localNameLength !== nameLength || !buf.subarray(local + 30, local + 30 + nameLength).every((b, k) => b === nameBytes[k])) {
      fail('convert.refusal.zip.localName', { label, name: shown(name) });
    }
    const localMethod = U16(view, local + 8);
    if (localMethod !== method) fail('convert.refusal.zip.localMethod', { label, name: shown(name) });
    if (!(flags & 0x8)) {
      const localSize = U32(view, local + 22);
      if (localSize !== 0xffffffff && localSize !== size) fail('convert.refusal.zip.localSize', { label, name: shown(name), local: localSize, size });
    }
    if (!(start + size <= cd.offset)) fail('convert.refusal.zip.entryPastData', { label, name: shown(name) });
    entries.set(name, buf.subarray(start, start + size));
    ranges.push({ begin: local, end: start + size, name, crc });
    p = next;
  }
  checkNoOverlap(ranges, label);
  for (const { name, crc } of ranges) {
    if ((yield* crc32Steps(entries.get(name))) !== crc) fail('convert.refusal.zip.crc', { label, name: shown(name) });
  }
  return entries;
}

function checkNoOverlap(ranges, label) {
  const sorted = [...ranges].sort((a, b) => a.begin - b.begin);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].begin < sorted[i - 1].end) fail('convert.refusal.zip.overlap', { label, first: shown(sorted[i - 1].name), second: shown(sorted[i].name) });
  }
}

// ---------------------------------------------------------------- the restricted unpickler

const STORAGE_DTYPES = {
  FloatStorage: ['F32', 4], HalfStorage: ['F16', 2], BFloat16Storage: ['BF16', 2], DoubleStorage: ['F64', 8],
  LongStorage: ['I64', 8], IntStorage: ['I32', 4], ShortStorage: ['I16', 2], CharStorage: ['I8', 1],
  ByteStorage: ['U8', 1], BoolStorage: ['BOOL', 1],
};

class Global { constructor(name) { this.name = name; } }
class Tuple { constructor(items) { this.items = items; } }
class Storage { constructor(dtype, elementSize, key, numel) { Object.assign(this, { dtype, elementSize, key, numel }); } }
export class TorchTensor {
  constructor(storage, offset, shape, stride) { Object.assign(this, { storage, offset, shape, stride }); }
}

const itemsOf = (v, what) => (v instanceof Tuple ? v.items : fail(`convert.refusal.pickle.notTuple.${what}`));
const isCount = (v) => Number.isSafeInteger(v) && v >= 0;

function rebuildTensor(args, label) {
  const [storage, offset, size, stride] = args;
  if (!(storage instanceof Storage)) fail('convert.refusal.pickle.noStorage', { label });
  const shape = itemsOf(size, 'size');
  const strides = itemsOf(stride, 'stride');
  if (!isCount(offset)) fail('convert.refusal.pickle.offset', { label, offset: quoteValue(offset) });
  if (shape.length > TORCH_LIMITS.dims || shape.length !== strides.length) fail('convert.refusal.pickle.dims', { label, dims: shape.length, strides: strides.length });
  if (!shape.every(isCount) || !strides.every(isCount)) fail('convert.refusal.pickle.sizeStride', { label, size: quoteValue(shape), stride: quoteValue(strides) });
  let elements = 1;
  let last = offset;
  for (let d = 0; d < shape.length; d++) {
    elements *= shape[d];
    if (elements > TORCH_LIMITS.elements) fail('convert.refusal.pickle.tooManyElements', { label, size: quoteValue(shape), most: TORCH_LIMITS.elements });
    if (shape[d] > 0) last += (shape[d] - 1) * strides[d];
  }
  if (elements > 0 && last >= storage.numel) {
    fail('convert.refusal.pickle.pastStorage', { label, size: quoteValue(shape), stride: quoteValue(strides), offset, elements: storage.numel });
  }
  return new TorchTensor(storage, offset, shape, strides);
}

// What each allowed global does when called (REDUCE). Globals without an entry may only appear
// as arguments (the storage types, the tensor classes).
const CALLABLE = {
  'collections.OrderedDict': (args) => {
    if (args.length) fail('convert.refusal.pickle.orderedDictArgs');
    return new Map();
  },
  'torch._utils._rebuild_tensor': (args, label) => rebuildTensor(args, label),
  'torch._utils._rebuild_tensor_v2': (args, label) => rebuildTensor(args, label),
  'torch._utils._rebuild_parameter': (args) => args[0],
  'torch._utils._rebuild_parameter_with_state': (args) => args[0],
};
// torch.save wraps a tensor's rebuild in one _rebuild_from_type_v2 (func, type, args): unwrapped
// in a loop, at most TORCH_LIMITS.rebuildWrappers deep, never by recursion.
const FROM_TYPE = 'torch._tensor._rebuild_from_type_v2';
const ALLOWED = new Set([...Object.keys(CALLABLE), FROM_TYPE, 'torch.Tensor', 'torch.nn.parameter.Parameter',
  ...Object.keys(STORAGE_DTYPES).map((s) => `torch.${s}`)]);

function callGlobal(given, givenArgs, label) {
  let callable = given;
  let args = givenArgs;
  for (let wrappers = 0; callable instanceof Global && callable.name === FROM_TYPE; wrappers++) {
    if (wrappers >= TORCH_LIMITS.rebuildWrappers) fail('convert.refusal.pickle.wrappers', { label, name: FROM_TYPE, most: TORCH_LIMITS.rebuildWrappers });
    const [func, type, inner] = args;
    if (!(func instanceof Global) || !(type instanceof Global) || !['torch.Tensor', 'torch.nn.parameter.Parameter'].includes(type.name)) {
      fail('convert.refusal.pickle.rebuiltAs', { label, type: type instanceof Global ? type.name : '?', func: func instanceof Global ? func.name : '?' });
    }
    callable = func;
    args = itemsOf(inner, 'arguments');
  }
  if (!(callable instanceof Global)) fail('convert.refusal.pickle.callsNonFunction', { label });
  const handler = CALLABLE[callable.name];
  if (!handler) fail('convert.refusal.pickle.callsUnneeded', { label, name: callable.name });
  return handler(args, label);
}

function globalRef(module, name, label) {
  const full = `${module}.${name}`;
  if (!ALLOWED.has(full)) {
    fail('convert.refusal.pickle.global', { label, full: quoteValue(full, 2 * QUOTE_MAX_CHARS).slice(1, -1), module: quoteValue(module), name: quoteValue(name) });
  }
  return new Global(full);
}

/**
 * Runs the pickle at buf[start…] with a stack machine that builds only plain values (numbers,
 * strings, tuples, lists, Maps) and the few torch objects above; persistentLoad(pid) resolves a
 * BINPERSID. Returns { value, end }.
 */
export function unpickle(buf, { start = 0, label = 'pickle', persistentLoad = () => fail('convert.refusal.pickle.persistentId', { label }) } = {}) {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const stack = [];
  const marks = [];
  const memo = new Map();
  let p = start;
  const need = (n) => { if (p + n > buf.length) fail('convert.refusal.pickle.endsEarly', { label, offset: p }); const at = p; p += n; return at; };
  const push = (v) => { if (stack.length >= TORCH_LIMITS.stack) fail('convert.refusal.pickle.stack', { label, most: TORCH_LIMITS.stack }); stack.push(v); };
  const pop = () => (stack.length > (marks.at(-1) ?? 0) ? stack.pop() : fail('convert.refusal.pickle.popEmpty', { label, offset: p }));
  const top = () => (stack.length > (marks.at(-1) ?? 0) ? stack[stack.length - 1] : fail('convert.refusal.pickle.readEmpty', { label, offset: p }));
  const popMark = () => {
    if (!marks.length) fail('convert.refusal.pickle.unopenedMark', { label, offset: p });
    const m = marks.pop();
    return stack.splice(m);
  };
  const text = (length) => {
    if (length > TORCH_LIMITS.stringBytes) fail('convert.refusal.pickle.longString', { label, length, most: TORCH_LIMITS.stringBytes });
    const at = need(length);
    return utf8.decode(buf.subarray(at, at + length));
  };
  const line = () => {
    const end = buf.indexOf(0x0a, p);
    if (end < 0 || end - p > 256) fail('convert.refusal.pickle.globalEnd', { label, offset: p });
    const s = latin1(buf.subarray(p, end));
    p = end + 1;
    return s;
  };
  const remember = (index) => {
    if (!memo.has(index) && memo.size >= TORCH_LIMITS.memo) fail('convert.refusal.pickle.memo', { label, most: TORCH_LIMITS.memo });
    memo.set(index, top());
  };
  const recall = (index) => (memo.has(index) ? push(memo.get(index)) : fail('convert.refusal.pickle.memoUnwritten', { label, index }));
  const setItems = (dict, items) => {
    if (!(dict instanceof Map)) fail('convert.refusal.pickle.setItemsNotDict', { label });
    if (items.length % 2) fail('convert.refusal.pickle.setItemsOdd', { label });
    for (let i = 0; i < items.length; i += 2) dict.set(items[i], items[i + 1]);
  };
  const append = (list, items) => { if (!Array.isArray(list)) fail('convert.refusal.pickle.appendNotList', { label }); for (const x of items) list.push(x); };

  for (;;) {
    const op = buf[need(1)];
    switch (op) {
      case 0x80: if (buf[need(1)] > 5) fail('convert.refusal.pickle.protocol', { label, protocol: buf[p - 1] }); break;  // PROTO
      case 0x95: need(8); break;                                                   // FRAME
      case 0x2e: return { value: pop(), end: p };                                  // STOP
      case 0x28: if (marks.length >= TORCH_LIMITS.marks) fail('convert.refusal.pickle.nesting', { label, most: TORCH_LIMITS.marks }); marks.push(stack.length); break; // MARK
      case 0x7d: push(new Map()); break;                                           // EMPTY_DICT
      case 0x5d: push([]); break;                                                  // EMPTY_LIST
      case 0x29: push(new Tuple([])); break;                                       // EMPTY_TUPLE
      case 0x74: push(new Tuple(popMark())); break;                                // TUPLE
      case 0x85: push(new Tuple([pop()])); break;                                  // TUPLE1
      case 0x86: { const b = pop(); push(new Tuple([pop(), b])); break; }          // TUPLE2
      case 0x87: { const c = pop(); const b = pop(); push(new Tuple([pop(), b, c])); break; } // TUPLE3
      case 0x58: push(text(U32(view, need(4)))); break;                            // BINUNICODE
      case 0x8c: push(text(buf[need(1)])); break;                                  // SHORT_BINUNICODE
      case 0x8d: { const n = U64(view, need(8)); push(text(n)); break; }           // BINUNICODE8
      case 0x43: { const n = buf[need(1)]; push(buf.subarray(need(n), p)); break; } // SHORT_BINBYTES
      case 0x42: { const n = U32(view, need(4)); if (n > TORCH_LIMITS.stringBytes) fail('convert.refusal.pickle.longBytes', { label, length: n }); push(buf.subarray(need(n), p)); break; } // BINBYTES
      case 0x4a: push(view.getInt32(need(4), true)); break;                        // BININT
      case 0x4b: push(buf[need(1)]); break;                                        // BININT1
      case 0x4d: push(U16(view, need(2))); break;                                  // BININT2
      case 0x8a: {                                                                 // LONG1
        const n = buf[need(1)];
        const at = need(n);
        let v = 0n;
        for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(buf[at + i]);
        if (n && buf[at + n - 1] & 0x80) v -= 1n << BigInt(8 * n);
        push(v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v);
        break;
      }
      case 0x88: push(true); break;                                                // NEWTRUE
      case 0x89: push(false); break;                                               // NEWFALSE
      case 0x4e: push(null); break;                                                // NONE
      case 0x47: push(view.getFloat64(need(8), false)); break;                     // BINFLOAT
      case 0x51: push(persistentLoad(pop())); break;                               // BINPERSID
      case 0x52: { const args = pop(); push(callGlobal(pop(), itemsOf(args, 'reduceArguments'), label)); break; } // REDUCE
      case 0x62: {                                                                 // BUILD: state of a dict (_metadata) or tensor, kept out
        pop();
        const target = top();
        if (!(target instanceof Map) && !(target instanceof TorchTensor)) fail('convert.refusal.pickle.build', { label });
        break;
      }
      case 0x73: { const v = pop(); const k = pop(); setItems(top(), [k, v]); break; } // SETITEM
      case 0x75: { const items = popMark(); setItems(top(), items); break; }       // SETITEMS
      case 0x61: { const v = pop(); append(top(), [v]); break; }                   // APPEND
      case 0x65: { const items = popMark(); append(top(), items); break; }         // APPENDS
      case 0x71: remember(buf[need(1)]); break;                                    // BINPUT
      case 0x72: remember(U32(view, need(4))); break;                              // LONG_BINPUT
      case 0x94: remember(memo.size); break;                                       // MEMOIZE
      case 0x68: recall(buf[need(1)]); break;                                      // BINGET
      case 0x6a: recall(U32(view, need(4))); break;                                // LONG_BINGET
      case 0x63: { const module = line(); push(globalRef(module, line(), label)); break; } // GLOBAL
      case 0x93: {                                                                 // STACK_GLOBAL
        const name = pop();
        const module = pop();
        if (typeof name !== 'string' || typeof module !== 'string') fail('convert.refusal.pickle.stackGlobal', { label });
        push(globalRef(module, name, label));
        break;
      }
      case 0x30: pop(); break;                                                     // POP
      case 0x31: popMark(); break;                                                 // POP_MARK
      case 0x32: push(top()); break;                                               // DUP
      default:
        fail('convert.refusal.pickle.opcode', { label, opcode: `0x${op.toString(16).padStart(2, '0')}`, offset: p - 1 });
    }
  }
}

// ---------------------------------------------------------------- tensors out

function storageFromPid(pid, label, { legacy }) {
  const items = itemsOf(pid, 'persistentId');
  const [tag, type, key, , numel] = items;
  if (tag !== 'storage' || !(type instanceof Global) || typeof key !== 'string' || items.length < 5) {
    fail('convert.refusal.pickle.pidNotStorage', { label });
  }
  const kind = STORAGE_DTYPES[type.name.replace(/^torch\./, '')];
  if (!kind) fail('convert.refusal.pickle.storageType', { label, type: type.name });
  if (key.length > TORCH_LIMITS.storageKeyChars) fail('convert.refusal.pickle.storageKeyLong', { label, length: key.length, most: TORCH_LIMITS.storageKeyChars });
  if (!isCount(numel) || numel > TORCH_LIMITS.elements) fail('convert.refusal.pickle.storageElements', { label, key: quoteValue(key), elements: quoteValue(numel) });
  if (legacy && items[5] != null) fail('convert.refusal.legacy.storageView', { label, key });
  return new Storage(kind[0], kind[1], key, numel);
}

// The bytes of a tensor read by its strides, little-endian, computed on first use.
function tensorBytes(tensor, data, bigEndian) {
  const { storage, offset, shape, stride } = tensor;
  const size = storage.elementSize;
  const count = shape.reduce((a, b) => a * b, 1);
  let contiguous = true;
  for (let d = shape.length - 1, expect = 1; d >= 0; expect *= shape[d], d--) if (shape[d] > 1 && stride[d] !== expect) contiguous = false;
  if (contiguous && !bigEndian) return data.subarray(offset * size, (offset + count) * size);
  const out = new Uint8Array(count * size);
  const index = new Array(shape.length).fill(0);
  for (let i = 0; i < count; i++) {
    let element = offset;
    for (let d = 0; d < shape.length; d++) element += index[d] * stride[d];
    const from = element * size;
    for (let b = 0; b < size; b++) out[i * size + b] = data[from + (bigEndian ? size - 1 - b : b)];
    for (let d = shape.length - 1; d >= 0 && ++index[d] === shape[d]; d--) index[d] = 0;
  }
  return out;
}

function stateDictTensors(value, dataOf, label, bigEndian) {
  if (!(value instanceof Map)) fail('convert.refusal.pickle.notStateDict', { label, type: value?.constructor?.name ?? typeof value });
  if (value.size > TORCH_LIMITS.tensors) fail('convert.refusal.pickle.tooManyEntries', { label, count: value.size, most: TORCH_LIMITS.tensors });
  const tensors = new Map();
  for (const [name, t] of value) {
    if (typeof name !== 'string') fail('convert.refusal.pickle.keyNotString', { label, key: quoteValue(name) });
    if (!(t instanceof TorchTensor)) {
      const keys = [...value.keys()].slice(0, 5).map((k) => quoteValue(k, 40)).join(', ');
      if (t instanceof Map) fail('convert.refusal.pickle.notTensorDict', { label, name: quoteValue(name), keys });
      fail('convert.refusal.pickle.notTensor', { label, name: quoteValue(name) });
    }
    const data = dataOf(t.storage);
    let bytes = null;
    tensors.set(name, {
      dtype: t.storage.dtype,
      shape: t.shape,
      get bytes() { bytes ??= tensorBytes(t, data, bigEndian); return bytes; },
    });
  }
  return tensors;
}

function* readZipCheckpointSteps(buf, label) {
  const entries = yield* readStoredZipSteps(buf, label);
  const pickles = [...entries.keys()].filter((n) => /^[^/]+\/data\.pkl$/.test(n));
  if (pickles.length !== 1) {
    if ([...entries.keys()].some((n) => /^[^/]+\/(constants\.pkl|code\/)/.test(n))) fail('convert.refusal.torch.torchScript', { label });
    fail('convert.refusal.torch.pickleCount', { label, count: pickles.length });
  }
  const prefix = pickles[0].slice(0, -'data.pkl'.length);
  const order = entries.get(`${prefix}byteorder`);
  if (order && order.length > TORCH_LIMITS.byteorderBytes) fail('convert.refusal.torch.byteorderLong', { label, length: order.length });
  const byteorder = order ? latin1(order) : 'little';
  if (byteorder !== 'little' && byteorder !== 'big') fail('convert.refusal.torch.byteorder', { label, value: quoteValue(byteorder) });
  const storages = new Map();
  const { value } = unpickle(entries.get(pickles[0]), {
    label: `${label} (${pickles[0]})`,
    persistentLoad: (pid) => {
      const s = storageFromPid(pid, label, { legacy: false });
      const known = storages.get(s.key);
      if (known) {
        if (known.dtype !== s.dtype || known.numel !== s.numel) fail('convert.refusal.torch.storageTwoTypes', { label, key: s.key });
        return known;
      }
      const data = entries.get(`${prefix}data/${s.key}`);
      if (!data) fail('convert.refusal.torch.noStorageEntry', { label, key: s.key, entry: `${prefix}data/${s.key}` });
      if (data.length !== s.numel * s.elementSize) {
        fail('convert.refusal.torch.storageSize', { label, key: s.key, elements: s.numel, bytes: s.numel * s.elementSize, entry: `${prefix}data/${s.key}`, holds: data.length });
      }
      s.data = data;
      storages.set(s.key, s);
      return s;
    },
  });
  return stateDictTensors(value, (s) => s.data, label, byteorder === 'big');
}

// The legacy format's list of storage keys, in the order their bytes follow: each storage the
// state dict uses, named exactly once.
function legacyStorageKeys(keys, storages, label) {
  const params = { label, count: storages.size };
  if (!Array.isArray(keys)) fail('convert.refusal.legacy.keysNotList', { ...params, value: quoteValue(keys) });
  if (keys.length !== storages.size) fail('convert.refusal.legacy.keysCount', { ...params, keys: keys.length });
  const seen = new Set();
  for (const key of keys) {
    if (!storages.has(key)) fail('convert.refusal.legacy.keysUnknown', { ...params, key: quoteValue(key) });
    if (seen.has(key)) fail('convert.refusal.legacy.keysTwice', { ...params, key: quoteValue(key) });
    seen.add(key);
  }
  return keys;
}

const LEGACY_MAGIC = 0x1950a86a20f9469cfc6cn;
const LEGACY_PROTOCOL = 1001;

function readLegacyCheckpoint(buf, label) {
  let at = 0;
  const next = (what, options = {}) => {
    const r = unpickle(buf, { start: at, label: `${label} (${what})`, ...options });
    at = r.end;
    return r.value;
  };
  if (next('magic_number') !== LEGACY_MAGIC) fail('convert.refusal.legacy.magic', { label });
  const protocol = next('protocol_version');
  if (protocol !== LEGACY_PROTOCOL) fail('convert.refusal.legacy.protocol', { label, value: quoteValue(protocol), known: LEGACY_PROTOCOL });
  next('sys_info');
  const storages = new Map();
  const value = next('state_dict', {
    persistentLoad: (pid) => {
      const s = storageFromPid(pid, label, { legacy: true });
      if (!storages.has(s.key)) storages.set(s.key, s);
      const known = storages.get(s.key);
      if (known.dtype !== s.dtype || known.numel !== s.numel) fail('convert.refusal.torch.storageTwoTypes', { label, key: s.key });
      return known;
    },
  });
  const keys = legacyStorageKeys(next('deserialized_storage_keys'), storages, label);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  for (const key of keys) {
    const s = storages.get(key);
    if (at + 8 > buf.length) fail('convert.refusal.legacy.storageMissing', { label, key });
    const count = U64(view, at);
    if (count !== s.numel) fail('convert.refusal.legacy.storageCount', { label, key, count, expected: s.numel });
    const bytes = s.numel * s.elementSize;
    if (at + 8 + bytes > buf.length) fail('convert.refusal.legacy.storageTruncated', { label, key, bytes, left: buf.length - at - 8 });
    s.data = buf.subarray(at + 8, at + 8 + bytes);
    at += 8 + bytes;
  }
  return stateDictTensors(value, (s) => s.data, label, false);
}

/** Map name → { dtype, shape, bytes } of a torch.save'd state dict (zip or legacy format). */
export const parseTorchCheckpoint = (buf, label = 'pytorch_model.bin') => drive(parseTorchCheckpointSteps(buf, label));

/** parseTorchCheckpoint as a generator that yields between steps of its CRC-32 checks (weights/steps.mjs). */
export function* parseTorchCheckpointSteps(buf, label = 'pytorch_model.bin') {
  if (buf.length >= 4 && buf[0] === 0x50 && buf[1] === 0x4b && buf[2] === 0x03 && buf[3] === 0x04) return yield* readZipCheckpointSteps(buf, label);
  if (buf.length >= 2 && buf[0] === 0x80 && buf[1] <= 5) return readLegacyCheckpoint(buf, label);
  if (buf.length > 262 && latin1(buf.subarray(257, 262)) === 'ustar') fail('convert.refusal.torch.torchTar', { label });
  return fail('convert.refusal.torch.notTorch', { label });
}
