// Property tests (fast-check) of the converter's parsers, which the page runs on files a user
// drops: the safetensors header, config.json and vocab.txt, alone and through the whole
// conversion. For every input the converter either refuses with its own error (ConvertError, a
// message naming the file) or writes a weights file that the engine loads: never a crash, never
// a file the engine would refuse.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import fc from 'fast-check';
import { convertCheckpoint, parseConfig, parseSafetensors, parseVocab } from '../weights/convert-core.mjs';
import { LIMIT, SPECIAL_TOKENS } from '../c/spec.mjs';
import { createEngine } from '../web/src/engine.mjs';
import { compactConfig, randomTensors, vocabLines } from './lib/checkpoints.mjs';
import { defaultWasm } from './lib/node-engine.mjs';
import { refusedOr } from './lib/refused.mjs';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = Number(process.env.FUZZ_SEED ?? 20261201);
const settings = { numRuns: RUNS, seed: SEED };

function safetensorsBytes(header, data = new Uint8Array(0), lengthOverride) {
  const json = new TextEncoder().encode(typeof header === 'string' ? header : JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(lengthOverride ?? json.length), true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}

test('safetensors: arbitrary bytes are refused or parsed, never a crash', () => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => { refusedOr(() => parseSafetensors(bytes)); }), settings);
});

const tensorEntry = fc.record({
  dtype: fc.oneof(fc.constantFrom('F32', 'F16', 'BF16', 'I64', 'F64', ''), fc.jsonValue()),
  shape: fc.oneof(fc.array(fc.oneof(fc.nat(20), fc.integer({ min: -3, max: 3 }), fc.double(), fc.constant(2 ** 53)), { maxLength: 3 }), fc.jsonValue()),
  data_offsets: fc.oneof(fc.tuple(fc.integer({ min: -4, max: 80 }), fc.integer({ min: -4, max: 80 })), fc.jsonValue()),
}, { requiredKeys: [] });

test('safetensors: headers with odd dtypes, shapes, offsets and lengths are refused or stay inside the file', () => {
  const header = fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__metadata__', '__proto__', 'bert.embeddings.word_embeddings.weight')),
    fc.oneof(tensorEntry, fc.jsonValue()), { maxKeys: 4 });
  fc.assert(fc.property(header, fc.uint8Array({ maxLength: 64 }), fc.option(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n })), (h, data, length) => {
    const bytes = safetensorsBytes(h, data, length ?? undefined);
    const { value } = refusedOr(() => parseSafetensors(bytes));
    if (!value) return;
    for (const [name, t] of value) {
      assert.ok(t.bytes.buffer === bytes.buffer && t.bytes.byteOffset + t.bytes.length <= bytes.length, `${name} inside the file`);
    }
  }), settings);
});

const configKeys = ['vocab_size', 'hidden_size', 'num_hidden_layers', 'num_attention_heads', 'intermediate_size',
  'max_position_embeddings', 'type_vocab_size', 'layer_norm_eps', 'hidden_act', 'model_type', 'position_embedding_type'];

test('config.json: any text, any JSON value, any mix of keys is refused or gives a shape the engine runs', () => {
  const odd = fc.oneof(fc.integer({ min: -2, max: 5000 }), fc.double(), fc.string(), fc.constant(null), fc.jsonValue(),
    fc.constantFrom('gelu', 'bert', 'absolute', 1e-12, 0, 2 ** 31, 1e308));
  const text = fc.oneof(fc.string(), fc.json(), fc.dictionary(fc.constantFrom(...configKeys), odd).map((o) => JSON.stringify(o)));
  fc.assert(fc.property(text, (t) => {
    const { value } = refusedOr(() => parseConfig(t));
    if (!value) return;
    const { shape } = value;
    for (const key of ['vocab', 'hidden', 'layers', 'heads', 'ffn', 'maxPositions', 'typeVocab']) {
      assert.ok(Number.isInteger(shape[key]) && shape[key] >= 1 && shape[key] <= LIMIT[key], `${key} ${shape[key]}`);
    }
    assert.equal(shape.hidden % shape.heads, 0);
    assert.ok(Math.fround(shape.lnEps) > 0 && Number.isFinite(Math.fround(shape.lnEps)));
  }), settings);
});

// What c/weights.c and c/tokenizer.c require of the stored vocabulary.
function assertEngineVocab(bytes, size) {
  assert.equal(bytes[bytes.length - 1], 0x0a);
  assert.ok(!bytes.includes(0));
  const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  const lines = text.slice(0, -1).split('\n');
  assert.equal(lines.length, size);
  const trimmed = new Set(lines.map((l) => l.replace(/[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/u, '')));
  for (const t of SPECIAL_TOKENS) assert.ok(trimmed.has(t), t);
}

test('vocab.txt: arbitrary bytes and mutated vocabularies are refused, naming why, or stored as the engine reads them', () => {
  const base = new TextEncoder().encode(`${vocabLines(40).join('\n')}\n`);
  const mutated = fc.tuple(fc.nat(base.length - 1), fc.uint8Array({ maxLength: 6 }), fc.nat(4)).map(([at, insert, cut]) =>
    new Uint8Array([...base.subarray(0, at), ...insert, ...base.subarray(Math.min(base.length, at + cut))]));
  fc.assert(fc.property(fc.oneof(fc.uint8Array({ maxLength: 100 }), mutated), fc.integer({ min: 1, max: 60 }), (bytes, size) => {
    const { value } = refusedOr(() => parseVocab(bytes, { vocab: size }));
    if (value) assertEngineVocab(value.bytes, size);
  }), settings);
});

test('the whole conversion of mutated checkpoints: a refusal, or a file the engine loads', async () => {
  const wasm = new WebAssembly.Module(fs.readFileSync(defaultWasm));
  const config = compactConfig({ layers: 1, hidden: 64, heads: 1, ffn: 64, vocab: 40, positions: 16 });
  const { tensors, shapes } = randomTensors(config, 9);
  const parts = [...tensors].map(([name, values]) => ({ name, values, shape: shapes[name] }));
  const vocab = new TextEncoder().encode(`${vocabLines(40).join('\n')}\n`);
  const checkpointBytes = (list) => {
    const header = {};
    let offset = 0;
    for (const t of list) {
      header[t.name] = { dtype: 'F32', shape: t.shape, data_offsets: [offset, offset + t.values.byteLength] };
      offset += t.values.byteLength;
    }
    const data = new Uint8Array(offset);
    offset = 0;
    for (const t of list) {
      data.set(new Uint8Array(t.values.buffer, t.values.byteOffset, t.values.byteLength), offset);
      offset += t.values.byteLength;
    }
    return safetensorsBytes(header, data);
  };
  const clean = checkpointBytes(parts);
  const headerLength = Number(new DataView(clean.buffer).getBigUint64(0, true));
  // Each edit is absent three times out of four, so that some runs keep a valid checkpoint.
  const sometimes = (arbitrary, empty = null) => fc.oneof({ arbitrary: fc.constant(empty), weight: 3 }, { arbitrary, weight: 1 });
  const edit = fc.record({
    flips: sometimes(fc.array(fc.tuple(fc.nat(headerLength + 7), fc.nat(255)), { minLength: 1, maxLength: 3 }), []),  // length and header bytes
    drop: sometimes(fc.nat(parts.length - 1)),
    rename: sometimes(fc.tuple(fc.nat(parts.length - 1), fc.constantFrom('gamma', 'beta', 'decoder.bias', 'bert.', ''))),
    configEdit: sometimes(fc.tuple(fc.constantFrom(...configKeys), fc.oneof(fc.integer({ min: -1, max: 70 }), fc.constant(null), fc.string()))),
    vocabCut: sometimes(fc.nat(vocab.length)),
  });
  const outcomes = { refused: 0, loaded: 0 };
  await fc.assert(fc.asyncProperty(edit, async ({ flips, drop, rename, configEdit, vocabCut }) => {
    let list = parts;
    if (drop !== null) list = list.filter((_, i) => i !== drop);
    if (rename !== null) {
      const [i, how] = rename;
      list = list.map((t, j) => (j !== i ? t : { ...t, name: how === 'bert.' ? t.name.replace(/^bert\./, '') : how === '' ? `x.${t.name}`
        : t.name.replace(/(weight|bias)$/, how) }));
    }
    const safetensors = checkpointBytes(list);
    for (const [at, value] of flips) if (at < safetensors.length) safetensors[at] = value;
    const configObject = { ...config };
    if (configEdit !== null) {
      if (configEdit[1] === null) delete configObject[configEdit[0]];
      else configObject[configEdit[0]] = configEdit[1];
    }
    const files = { name: 'fuzz', config: JSON.stringify(configObject), vocab: vocabCut === null ? vocab : vocab.subarray(0, vocabCut), safetensors, training: null };
    const { value } = refusedOr(() => convertCheckpoint(files, { precision: 'int8' }));
    if (!value) { outcomes.refused++; return; }
    const engine = await createEngine({ wasm, weights: value.bytes });  // throws if the engine refuses the file
    engine.destroy();
    outcomes.loaded++;
  }), { numRuns: Math.min(RUNS, 150), seed: SEED });
  console.log(`whole conversion: ${outcomes.refused} refused, ${outcomes.loaded} converted and loaded`);
  assert.ok(outcomes.refused > 0 && outcomes.loaded > 0, 'both outcomes reached');
});
