// Property tests (fast-check) of the pytorch_model.bin readers, as tests/converter-fuzz.test.mjs
// does the safetensors parser: for random bytes, damaged torch.save files (zip and legacy) and
// random opcode streams, the reader either refuses with its own error (ConvertError) or gives
// tensors whose bytes can all be read; the whole conversion gives a refusal or a file the
// engine loads. Never a crash, a hang or an unbounded allocation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { convertCheckpoint } from '../weights/convert-core.mjs';
import { parseTorchCheckpoint, readStoredZip, unpickle } from '../weights/torch-checkpoint.mjs';
import { createEngine } from '../web/src/engine.mjs';
import { defaultWasm, repoRoot } from './lib/node-engine.mjs';
import { refusedOr } from './lib/refused.mjs';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = Number(process.env.FUZZ_SEED ?? 20261201);
const settings = { numRuns: RUNS, seed: SEED };
const FIXTURES = path.join(repoRoot, 'tests/fixtures/torch');
const read = (...parts) => new Uint8Array(fs.readFileSync(path.join(FIXTURES, ...parts)));

// Every tensor's bytes, read: their length is what dtype and shape say.
function readAll(tensors) {
  const sizes = { F32: 4, F16: 2, BF16: 2, F64: 8, I64: 8, I32: 4, I16: 2, I8: 1, U8: 1, BOOL: 1 };
  for (const [name, t] of tensors) {
    const count = t.shape.reduce((a, b) => a * b, 1);
    assert.equal(t.bytes.length, count * sizes[t.dtype], name);
  }
}

const damaged = (clean) => fc.record({
  flips: fc.array(fc.tuple(fc.nat(clean.length - 1), fc.nat(255)), { maxLength: 4 }),
  cut: fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, { arbitrary: fc.nat(clean.length), weight: 1 }),
}).map(({ flips, cut }) => {
  const bytes = clean.slice(0, cut ?? clean.length);
  for (const [at, value] of flips) if (at < bytes.length) bytes[at] = value;
  return bytes;
});

test('random bytes: the torch reader, the zip reader and the unpickler refuse or read', () => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
    refusedOr(() => parseTorchCheckpoint(bytes));
    refusedOr(() => readStoredZip(bytes));
    refusedOr(() => unpickle(bytes));
  }), settings);
});

for (const dir of ['zip', 'legacy']) {
  const clean = read(dir, 'pytorch_model.bin');
  test(`damaged ${dir} torch.save files: a refusal, or tensors whose bytes all read`, () => {
    let refused = 0;
    fc.assert(fc.property(damaged(clean), (bytes) => {
      const r = refusedOr(() => parseTorchCheckpoint(bytes));
      if (r.refused) refused++;
      else refusedOr(() => readAll(r.value));
    }), settings);
    assert.ok(refused > 0, 'some damage is noticed');
  });
}

// Opcodes of a state-dict pickle with small arguments, in any order.
const OPCODE = fc.oneof(
  fc.constantFrom([0x80, 2], [0x7d], [0x5d], [0x29], [0x28], [0x74], [0x85], [0x86], [0x87], [0x88], [0x89], [0x4e],
    [0x51], [0x52], [0x62], [0x73], [0x75], [0x61], [0x65], [0x94], [0x30], [0x31], [0x32], [0x2e], [0x93]),
  fc.nat(255).map((n) => [0x4b, n]),
  fc.nat(8).map((n) => [0x71, n]),
  fc.nat(8).map((n) => [0x68, n]),
  fc.constantFrom('collections\nOrderedDict\n', 'torch._utils\n_rebuild_tensor_v2\n', 'torch\nFloatStorage\n', 'os\nsystem\n')
    .map((s) => [0x63, ...new TextEncoder().encode(s)]),
  fc.constantFrom('storage', '0', 'cpu', 'w', 'collections', 'OrderedDict').map((s) => [0x8c, s.length, ...new TextEncoder().encode(s)]),
  fc.nat(255).map((n) => [0x8a, 1, n]),
);

test('random opcode streams: a value or a refusal, never a crash', () => {
  fc.assert(fc.property(fc.array(OPCODE, { maxLength: 60 }), (ops) => {
    const bytes = new Uint8Array(ops.flat());
    refusedOr(() => unpickle(bytes, { persistentLoad: () => ({}) }));
  }), settings);
});

test('the whole conversion of damaged .bin files: a refusal, or a file the engine loads', async () => {
  const wasm = new WebAssembly.Module(fs.readFileSync(defaultWasm));
  const clean = read('zip', 'pytorch_model.bin');
  const files = { name: 'm', config: fs.readFileSync(path.join(FIXTURES, 'zip/config.json'), 'utf8'), vocab: read('zip', 'vocab.txt') };
  const outcomes = { refused: 0, loaded: 0 };
  await fc.assert(fc.asyncProperty(damaged(clean), async (bytes) => {
    const { value, refused } = refusedOr(() => convertCheckpoint({ ...files, pytorch: bytes }, { precision: 'int8' }));
    if (refused) { outcomes.refused++; return; }
    await createEngine({ wasm, weights: value.bytes });
    outcomes.loaded++;
  }), { ...settings, numRuns: Math.min(RUNS, 100) });
  assert.ok(outcomes.refused > 0 && outcomes.loaded > 0, JSON.stringify(outcomes));
});
