// Property tests (fast-check) of every reader the converter runs on a dropped file: config.json,
// tokenizer.json, the safetensors header and pytorch_model.bin (zip and legacy). Each field of a
// real file is replaced by a random JSON value, a value nested thousands deep, a long string or
// a lone surrogate, or the file's bytes are mutated; the reader must refuse with its own error
// (ConvertError, the message naming the file) or read. A RangeError, a TypeError or any other
// exception fails the test: that is a bug, which the command line and the page report as such.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { parseConfig, parseSafetensors, canonicalTensors } from '../weights/convert-core.mjs';
import { parseTorchCheckpoint } from '../weights/torch-checkpoint.mjs';
import { vocabFromTokenizerJson } from '../weights/tokenizer-json.mjs';
import { repoRoot } from './lib/node-engine.mjs';
import { refusedOr } from './lib/refused.mjs';
import { nestedList, rebuildArgs, stateDict, tensorCall, wrappedTensor } from './lib/pickle.mjs';
import { writeZip } from './lib/zip.mjs';

// A few seconds in make test; make test-all (ATTN_TEST_ALL=1) runs five times as many.
const RUNS = Number(process.env.FUZZ_RUNS ?? (process.env.ATTN_TEST_ALL ? 300 : 60));
const SEED = Number(process.env.FUZZ_SEED ?? 20261203);
const settings = { numRuns: RUNS, seed: SEED };
const FIXTURES = path.join(repoRoot, 'tests/fixtures/torch');
const read = (...parts) => new Uint8Array(fs.readFileSync(path.join(FIXTURES, ...parts)));
const HOLE = '"@@hole@@"';
// Depths that a recursive formatter survives and depths that exhaust its stack.
const DEPTH = fc.constantFrom(2, 100, 12000, 150000);

// A JSON text for a hostile value, written without JSON.stringify (which recurses).
const hostileText = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  DEPTH.map((d) => `${'['.repeat(d)}${']'.repeat(d)}`),
  DEPTH.map((d) => `${'{"a":'.repeat(d)}0${'}'.repeat(d)}`),
  fc.integer({ min: 1, max: 1 << 20 }).map((n) => JSON.stringify('x'.repeat(n))),
  fc.constantFrom('"\\ud800"', '"a\\udc00b"', 'null', '-0', '1e400', '"__proto__"', '{"__proto__":1}', '[null]', '""'),
);

// Every path (list of keys) to a value of a JSON document, the document itself included.
function pathsOf(doc) {
  const out = [[]];
  const stack = [[doc, []]];
  while (stack.length) {
    const [value, at] = stack.pop();
    if (value && typeof value === 'object') {
      for (const key of Object.keys(value)) {
        out.push([...at, key]);
        stack.push([value[key], [...at, key]]);
      }
    }
  }
  return out;
}

// The document's text with the value at `at` replaced by `text`.
function replaced(doc, at, text) {
  if (!at.length) return text;
  const copy = structuredClone(doc);
  let parent = copy;
  for (const key of at.slice(0, -1)) parent = parent[key];
  parent[at.at(-1)] = '@@hole@@';
  const whole = JSON.stringify(copy);
  assert.ok(whole.includes(HOLE), 'the hole is in the text');
  return whole.replace(HOLE, () => text);
}

// Each field is drawn as often as any other, the vocabulary's entries (hundreds) counting as one.
function fieldFuzz(doc, read) {
  const all = pathsOf(doc);
  const settingPaths = all.filter((at) => !(at[0] === 'model' && at[1] === 'vocab' && at.length > 2));
  const paths = settingPaths.length < all.length ? [...settingPaths, all.find((at) => at.length > 2 && at[1] === 'vocab')] : all;
  fc.assert(fc.property(fc.nat(paths.length - 1), hostileText, (i, text) => { refusedOr(() => read(replaced(doc, paths[i], text))); }), settings);
}

const mutated = (clean) => fc.record({
  flips: fc.array(fc.tuple(fc.nat(clean.length - 1), fc.nat(255)), { minLength: 1, maxLength: 6 }),
  cut: fc.option(fc.nat(clean.length)),
}).map(({ flips, cut }) => {
  const bytes = clean.slice(0, cut ?? clean.length);
  for (const [at, value] of flips) if (at < bytes.length) bytes[at] = value;
  return bytes;
});

const tokenizerDoc = JSON.parse(new TextDecoder().decode(read('tokenizer-json', 'tokenizer.json')));
const configDoc = JSON.parse(new TextDecoder().decode(read('tokenizer-json', 'config.json')));

test('tokenizer.json: any field replaced by a hostile value is refused by ConvertError or read', () => {
  fieldFuzz(tokenizerDoc, (text) => vocabFromTokenizerJson(new TextEncoder().encode(text), { vocabSize: 100 }));
});

test('tokenizer.json: mutated bytes are refused by ConvertError or read', () => {
  const clean = read('tokenizer-json', 'tokenizer.json');
  fc.assert(fc.property(mutated(clean), (bytes) => { refusedOr(() => vocabFromTokenizerJson(bytes, { vocabSize: 100 })); }), settings);
});

test('config.json: any field replaced by a hostile value is refused by ConvertError or read', () => {
  fieldFuzz(configDoc, (text) => parseConfig(text));
});

test('safetensors header: any field replaced by a hostile value is refused by ConvertError or read', () => {
  const twin = read('twin.safetensors');
  const length = Number(new DataView(twin.buffer).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(twin.subarray(8, 8 + length)));
  const data = twin.subarray(8 + length);
  fieldFuzz(header, (text) => {
    const json = new TextEncoder().encode(text);
    const bytes = new Uint8Array(8 + json.length + data.length);
    new DataView(bytes.buffer).setBigUint64(0, BigInt(json.length), true);
    bytes.set(json, 8);
    bytes.set(data, 8 + json.length);
    const tensors = parseSafetensors(bytes);
    return canonicalTensors(tensors);
  });
});

const PICKLE_DEPTH = fc.constantFrom(2, 100, 12000);
// A pickle argument: a number, a list nested thousands deep, or a chain of rebuild wrappers.
const pickleArgument = fc.oneof(
  fc.integer({ min: -5, max: 40 }).map((n) => ({ offset: n })),
  PICKLE_DEPTH.map((d) => ({ offset: nestedList(d) })),
  PICKLE_DEPTH.map((d) => ({ size: { ops: [0x28, ...nestedList(d), 0x74] }, stride: { ops: [0x28, 0x4b, 1, 0x74] } })),
);

test('pytorch_model.bin: hostile arguments, rebuild chains and mutated zip and legacy files are refused by ConvertError or read', () => {
  fc.assert(fc.property(pickleArgument, fc.constantFrom(0, 1, 2, 5, 20000), (argument, wrappers) => {
    const pickle = stateDict([['w', wrappers ? wrappedTensor(rebuildArgs(argument), wrappers) : tensorCall(rebuildArgs(argument))]]);
    const zip = writeZip([['archive/data.pkl', pickle], ['archive/data/0', new Uint8Array(16)]]);
    const r = refusedOr(() => parseTorchCheckpoint(zip));
    if (r.value) for (const t of r.value.values()) assert.ok(t.bytes.length >= 0);
  }), { ...settings, numRuns: Math.ceil(RUNS / 3) });
  for (const dir of ['zip', 'legacy']) {
    fc.assert(fc.property(mutated(read(dir, 'pytorch_model.bin')), (bytes) => {
      const r = refusedOr(() => parseTorchCheckpoint(bytes));
      if (r.value) refusedOr(() => { for (const t of r.value.values()) assert.ok(t.bytes.length >= 0); });
    }), settings);
  }
});
