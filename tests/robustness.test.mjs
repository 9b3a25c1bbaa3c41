// node --test tests/robustness.test.mjs
// Hostile inputs and corrupt weights at the engine's JavaScript and CLI surfaces, bounded
// memory, and determinism (issue "Robustness"):
//  - every way a weights file can be wrong (format version 2: head and part checksums, part
//    table, model card; a version-1 file) gives its own EngineError code and message, and the
//    native CLI prints the same message;
//  - invalid UTF-8 given to the C API as raw bytes tokenizes exactly as the same bytes decoded
//    by TextDecoder and passed as a string (ids and offsets);
//  - empty and whitespace-only input, input over 512 tokens, 1 MB pastes (ordinary and
//    adversarial) stay fast and report truncation;
//  - the wasm heap is bounded (memory maximum read from the module), and 1,000 runs, sessions,
//    tokenizations and refused weights leave the heap in use where it was; running out of
//    memory gives error 20, not a crash, and the engine recovers;
//  - two runs are bit-identical; native (SSE2 or NEON, and portable) and wasm attention and hidden
//    states are bit-identical on the fixture sentences.
// Needs web/dist/attn.wasm (make wasm); builds build/attn and build/dump_attention (make).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createEngine, Engine, EngineError } from '../web/src/engine.mjs';
import { defaultWasm, defaultWeights, repoRoot } from './lib/node-engine.mjs';
import { corruptWeightsCases, MESSAGES } from './lib/corrupt-weights.mjs';
import { testLimit } from './lib/test-limit.mjs';
import { ALL_ONLY, allOnly } from './lib/slow.mjs';

const wasmBytes = fs.readFileSync(defaultWasm);
const wasmModule = await WebAssembly.compile(wasmBytes);
// ATTN_WEIGHTS: another weights file (format version 2) to run against instead of the default.
const weightsPath = process.env.ATTN_WEIGHTS || defaultWeights;
const weights = fs.readFileSync(weightsPath);
const engine = await createEngine({ wasm: wasmModule, weights });
const { layers, heads, maxPositions } = engine.shape;
const COUNT_LIMIT = 8192;  // ATTN_COUNT_LIMIT in c/attn.h

const build = spawnSync('make', ['-s', 'build/attn', 'build/dump_attention', 'build/scalar/dump_attention'], { cwd: repoRoot, encoding: 'utf8' });
const nativeReady = build.status === 0;
const cli = path.join(repoRoot, 'build/attn');
// The native build with its SIMD path (SSE2 on x86-64) and with the portable one (-DATTN_SCALAR);
// on x86-64, the arm64 builds (NEON, and portable) too, run under qemu-aarch64
// (tools/install-deps.sh installs the cross compiler and qemu-user).
const DUMP_TOOLS = { simd: [path.join(repoRoot, 'build/dump_attention')], scalar: [path.join(repoRoot, 'build/scalar/dump_attention')] };
const arm64Build = process.arch === 'x64'
  ? spawnSync('make', ['-s', 'build/arm64/dump_attention', 'build/arm64/scalar_dump_attention'], { cwd: repoRoot, encoding: 'utf8' })
  : null;
const arm64Missing = arm64Build && (arm64Build.status !== 0 || spawnSync('qemu-aarch64', ['--version']).status !== 0)
  ? `the arm64 build or qemu-aarch64 is missing (tools/install-deps.sh): ${arm64Build.stderr}` : null;
if (arm64Build) {
  DUMP_TOOLS['arm64 NEON'] = ['qemu-aarch64', path.join(repoRoot, 'build/arm64/dump_attention')];
  DUMP_TOOLS['arm64 scalar'] = ['qemu-aarch64', path.join(repoRoot, 'build/arm64/scalar_dump_attention')];
}
const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'robustness-'));
process.on('exit', () => fs.rmSync(tempDir, { recursive: true, force: true }));

// ---------------------------------------------------------------- corrupt weights (tests/lib/corrupt-weights.mjs)

const CORRUPT_CASES = corruptWeightsCases(weights).map(({ name, make, code }) => [name, make(), code]);

test('corrupt weights: each case gives its own EngineError code and message', async () => {
  const exports = engine.x, memory = engine.heap.memory;
  for (const [name, bytes, code] of CORRUPT_CASES) {
    let error = null;
    try {
      new Engine(exports, memory, bytes).destroy();
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof EngineError, `${name}: expected an EngineError, got ${error}`);
    assert.equal(error.code, code, `${name}: code`);
    assert.equal(error.message, MESSAGES[code], `${name}: message`);
  }
  console.log(`corrupt weights: ${CORRUPT_CASES.length} cases refused with their code and message`);
});

test('corrupt weights: the CLI prints the same message and exits 1', { skip: !nativeReady && process.env.ATTN_ALLOW_MISSING_NATIVE === '1' && build.stderr }, () => {
  assert.ok(nativeReady, `the native build is missing: ${build.stderr}`);
  const file = path.join(tempDir, 'corrupt.bin');
  for (const [name, bytes, code] of CORRUPT_CASES) {
    fs.writeFileSync(file, bytes);
    const run = spawnSync(cli, ['x', '--weights', file], { encoding: 'utf8' });
    assert.equal(run.status, 1, `${name}: exit status`);
    assert.equal(run.stderr, `attn: ${file}: ${MESSAGES[code]} (error ${code})\n`, `${name}: stderr`);
  }
  const dir = spawnSync(cli, ['x', '--weights', tempDir], { encoding: 'utf8' });
  assert.match(dir.stderr, /cannot read weights file .*: Is a directory/);
});

// ---------------------------------------------------------------- invalid UTF-8

/** attn_engine_tokenize on raw bytes (Engine.tokenize takes a string). */
function tokenizeBytes(bytes, capacity = bytes.length + 2) {
  const { x, heap } = engine;
  const text = heap.alloc(bytes.length + 1);
  const arrays = heap.alloc(capacity * 12 + 8);
  try {
    heap.u8(text, bytes.length).set(bytes);
    const [ids, starts, ends, counts] = [0, 4, 8, 12].map((k) => arrays + capacity * k);
    const status = x.attn_engine_tokenize(engine.pointer, text, bytes.length, capacity, ids, starts, ends, counts);
    assert.equal(status, 0);
    const [n, full] = heap.i32(counts, 2);
    const s = heap.i32(starts, n), e = heap.i32(ends, n);
    return { ids: Array.from(heap.i32(ids, n)), offsets: Array.from(s, (v, i) => [v, e[i]]), full };
  } finally {
    heap.free(text);
    heap.free(arrays);
  }
}

function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

// Bytes that exercise the decoder: ASCII words and spaces, continuation bytes, every lead
// byte class, and fragments of valid multi-byte characters.
function randomBytes(next, length) {
  const pieces = [[0x61], [0x20], [0x80], [0xbf], [0xc0], [0xc2], [0xdf], [0xe0], [0xe0, 0xa0], [0xed, 0x9f],
    [0xed, 0xa0], [0xef, 0xbb, 0xbf], [0xf0], [0xf0, 0x90], [0xf4, 0x8f], [0xf4, 0x90], [0xf5], [0xff],
    [0xc3, 0xa9], [0xe6, 0x9d, 0xb1], [0xf0, 0x9f, 0x98, 0x80], [0x5b, 0x4d, 0x41, 0x53, 0x4b, 0x5d], [0x00], [0x2e]];
  const out = [];
  while (out.length < length) {
    out.push(...(next() < 0.3 ? [Math.floor(next() * 256)] : pieces[Math.floor(next() * pieces.length)]));
  }
  return Uint8Array.from(out.slice(0, length));
}

test('invalid UTF-8: raw bytes at the C API tokenize like TextDecoder → Engine.tokenize', () => {
  // ignoreBOM keeps a leading U+FEFF, as the C API does (the default TextDecoder would drop it
  // and shift every offset by one).
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const next = random(20240601);
  const inputs = [
    [0xff], [0xc3], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xe0, 0x80, 0xaf],
    [0xf4, 0x90, 0x80, 0x80], [0xef, 0xbb, 0xbf, 0x61], Array.from(Buffer.from('caf\xc3 na\xefve', 'latin1')),
  ].map((a) => Uint8Array.from(a));
  for (let i = 0; i < 3000; i++) inputs.push(randomBytes(next, Math.floor(next() * 48)));
  let replaced = 0;
  for (const bytes of inputs) {
    const raw = tokenizeBytes(bytes);
    const text = decoder.decode(bytes);
    replaced += text.includes('\ufffd');
    const viaString = engine.tokenize(text);
    assert.deepEqual(raw.ids, viaString.ids, `ids for ${Buffer.from(bytes).toString('hex')}`);
    assert.deepEqual(raw.offsets, viaString.offsets, `offsets for ${Buffer.from(bytes).toString('hex')}`);
  }
  assert.ok(replaced > inputs.length / 2, 'most inputs hold invalid UTF-8');
  console.log(`invalid UTF-8: ${inputs.length} byte strings (${replaced} with U+FFFD) agree with TextDecoder`);
});

// ---------------------------------------------------------------- empty, whitespace, long, huge

function rowsSumToOne(session) {
  const n = session.n;
  const attention = session.attention();
  for (let r = 0; r < layers * heads * n; r++) {
    let sum = 0;
    for (let j = 0; j < n; j++) sum += attention[r * n + j];
    assert.ok(Math.abs(sum - 1) <= 1e-6, `row ${r} sums to ${sum}`);
  }
}

test('empty and whitespace-only input give [CLS] [SEP], untruncated, and a valid run', () => {
  const session = engine.createSession();
  for (const text of ['', ' ', '\t\n\r ', '\u00a0\u2003\u3000', '\u200b\u00ad\u0007', '\ufffd\ufffd', ' \n'.repeat(5000)]) {
    const run = session.runText(text);
    assert.deepEqual(run.tokens, ['[CLS]', '[SEP]'], JSON.stringify(text.slice(0, 8)));
    assert.equal(run.truncated, false);
    assert.equal(run.fullLength, 2);
    rowsSumToOne(session);
  }
  session.destroy();
});

test('over 512 tokens: truncated to 512 with [SEP] last, and the full length reported', () => {
  const session = engine.createSession();
  const cases = [[510, 512, false], [511, 513, true], [600, 602, true], [9000, COUNT_LIMIT, true]];
  for (const [words, fullLength, truncated] of cases) {
    const run = session.runText('word '.repeat(words));
    assert.equal(run.n, maxPositions);
    assert.equal(run.truncated, truncated, `${words} words`);
    assert.equal(run.fullLength, fullLength, `${words} words`);
    assert.equal(run.tokens.at(-1), '[SEP]');
  }
  rowsSumToOne(session);
  session.destroy();
});

const MEGABYTE = 1 << 20;
const fill = (unit) => unit.repeat(Math.ceil(MEGABYTE / Buffer.byteLength(unit))).slice(0, MEGABYTE);

/** fn's cost as this process's CPU time (user + system), so that other work on the machine
 * (another test file, a build) does not count against the bound; the wall time rides along. */
function timed(fn) {
  const start = process.cpuUsage(), wallStart = performance.now();
  const value = fn();
  const { user, system } = process.cpuUsage(start);
  return { value, ms: (user + system) / 1000, wallMs: performance.now() - wallStart };
}

function bestOf(times, fn) {
  let best = null;
  for (let i = 0; i < times; i++) {
    const t = timed(fn);
    if (!best || t.ms < best.ms) best = t;
  }
  return best;
}

test('a 1 MB paste stops reading at the count limit: under 200 ms beyond a 512-token run', () => {
  const session = engine.createSession();
  const paragraph = 'The quick brown fox jumps over the lazy dog, and the students watch attention move. ';
  const paste = fill(paragraph);
  const reference = bestOf(3, () => session.runText('word '.repeat(510)));
  const huge = bestOf(3, () => session.runText(paste));
  assert.equal(huge.value.n, maxPositions);
  assert.equal(huge.value.truncated, true);
  assert.equal(huge.value.fullLength, COUNT_LIMIT, 'counted up to the limit, then stopped');
  console.log(`1 MB paste: ${huge.ms.toFixed(1)} ms; a 512-token text: ${reference.ms.toFixed(1)} ms`);
  assert.ok(huge.ms - reference.ms < 200, `1 MB paste took ${huge.ms.toFixed(1)} ms vs ${reference.ms.toFixed(1)} ms`);
  session.destroy();
});

test('adversarial 1 MB pastes (no token boundaries, marks, invalid bytes) stay under 200 ms', () => {
  const session = engine.createSession();
  const pastes = {
    'one 1 MB word': fill('a'),
    'combining marks': fill('\u0301'),
    'non-Mn combining marks': fill('\u0903'),
    'replacement characters': fill('\ufffd'),
    'punctuation': fill('.'),
    'CJK': fill('東'),
    'special tokens': fill('[MASK]'),
    'spaces': fill(' '),
  };
  for (const [name, paste] of Object.entries(pastes)) {
    const { value, ms } = bestOf(2, () => session.runText(paste));
    assert.ok(value.n >= 2 && value.n <= maxPositions, name);
    console.log(`1 MB of ${name}: ${ms.toFixed(1)} ms of CPU, n = ${value.n}, full length ${value.fullLength}`);
    assert.ok(ms < 200 + (value.n === maxPositions ? 400 : 0), `${name}: ${ms.toFixed(1)} ms`);
  }
  const raw = bestOf(2, () => tokenizeBytes(Uint8Array.from({ length: MEGABYTE }, (_, i) => (i % 3 ? 0xff : 0x80)), 512));
  console.log(`1 MB of invalid bytes, tokenize only: ${raw.ms.toFixed(1)} ms of CPU`);
  assert.ok(raw.ms < 200);
  session.destroy();
});

// ---------------------------------------------------------------- memory

/** The maximum of the module's memory, in bytes, from its memory section (id 5). */
function wasmMemoryMaximum(bytes) {
  let at = 8;
  const leb = () => {
    let value = 0, shift = 0, byte;
    do {
      byte = bytes[at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  while (at < bytes.length) {
    const id = bytes[at++], size = leb(), end = at + size;
    if (id === 5) {
      leb();  // count
      const flags = bytes[at++];
      leb();  // minimum
      return flags & 1 ? leb() * 65536 : Infinity;
    }
    at = end;
  }
  return Infinity;
}

const inUse = () => engine.x.attn_memory_in_use();
const WORDS = ('the cat sat on a mat while students read about attention heads layers tokens '
  + 'models learn words sentences paris london river music history science water light').split(' ');

function sentence(i) {
  const next = random(i + 1);
  const length = 1 + Math.floor(next() * 40);
  return `${i}: ${Array.from({ length }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ')}.`;
}

test('the wasm heap is bounded and reported', () => {
  const maximum = wasmMemoryMaximum(wasmBytes);
  assert.ok(Number.isFinite(maximum), 'the module declares a memory maximum');
  assert.ok(maximum <= 1024 * MEGABYTE, `maximum ${maximum}`);
  assert.ok(inUse() > weights.length, 'the weights copy counts as in use');
  assert.equal(engine.x.attn_memory_size(), engine.heapBytes());
  console.log(`wasm heap: maximum ${maximum / MEGABYTE} MB, size ${engine.heapBytes() / MEGABYTE} MB, `
    + `in use ${(inUse() / MEGABYTE).toFixed(1)} MB`);
});

test('leak test: 1,000 sentences through one session leave the heap in use where it was', ALL_ONLY, () => {
  testLimit(600);
  const session = engine.createSession();
  const longest = 'word '.repeat(50);  // buffers sized for the longest run below
  session.runText(longest);
  const before = inUse();
  for (let i = 0; i < 1000; i++) {
    const { n } = session.runText(sentence(i));
    if (i % 100 === 0) {
      session.rollout();
      session.mlm(Math.min(2, n - 1), 5);
      session.contributions(0, 0, 1);
      session.walkthrough(1, 1);
    }
  }
  session.runText(longest);  // a session gives back buffers for short texts: the same size again
  const after = inUse();
  console.log(`leak test, one session: heap in use ${before} → ${after} bytes after 1,000 runs`);
  assert.equal(after, before);
  session.destroy();
});

test('leak test: 1,000 sessions created, run and destroyed; tokenize and refusals too', ALL_ONLY, () => {
  testLimit(600);
  const before = inUse();
  for (let i = 0; i < 1000; i++) {
    const session = engine.createSession();
    session.runText(sentence(1000 + i));
    if (i % 10 === 0) assert.throws(() => session.runIds([1, engine.shape.vocab]), EngineError);
    session.destroy();
    engine.tokenize(sentence(2000 + i));
  }
  const afterSessions = inUse();
  for (const [, bytes] of CORRUPT_CASES.slice(0, 6)) {
    assert.throws(() => new Engine(engine.x, engine.heap.memory, bytes), EngineError);
  }
  const afterRefusals = inUse();
  console.log(`leak test, sessions: heap in use ${before} → ${afterSessions} (1,000 sessions) → ${afterRefusals} (refused weights)`);
  assert.equal(afterSessions, before);
  assert.equal(afterRefusals, before);
});

test('running out of wasm memory gives error 20, not a crash, and the engine recovers', ALL_ONLY, async () => {
  testLimit(600);
  const own = await createEngine({ wasm: wasmModule, weights });  // its own instance and heap
  const before = own.x.attn_memory_in_use();
  const sessions = [];
  let error = null;
  const longText = 'word '.repeat(600);
  while (!error && sessions.length < 64) {
    const session = own.createSession();
    sessions.push(session);
    try {
      session.runText(longText);
    } catch (e) {
      error = e;
    }
  }
  assert.ok(error instanceof EngineError && error.code === 20, `expected out of memory, got ${error}`);
  assert.equal(error.message, 'out of memory');
  const failed = sessions.at(-1);
  assert.equal(failed.tokens().n, 0, 'a failed run leaves no stale tokens');
  console.log(`out of memory after ${sessions.length - 1} sessions of 512 tokens; heap ${own.heapBytes() / MEGABYTE} MB`);
  for (const s of sessions) s.destroy();
  assert.equal(own.x.attn_memory_in_use(), before, 'all freed');
  const again = own.createSession();
  assert.equal(again.runText(longText).n, maxPositions, 'runs again once memory is back');
  again.destroy();
  own.destroy();
});

// ---------------------------------------------------------------- determinism

const DETERMINISM_TEXTS = [
  'The animal didn\'t cross the street because it was too tired.',
  'The cat sat on the [MASK]. Café naïve 東京 \u{1F600}!',
  Array.from({ length: 120 }, (_, i) => WORDS[(i * 7) % WORDS.length]).join(' '),
];

test('determinism: the same input gives bit-identical attention on two runs and two sessions', () => {
  for (const text of DETERMINISM_TEXTS) {
    const a = engine.createSession(), b = engine.createSession();
    a.runText(text);
    const first = Buffer.from(a.attention().buffer);
    a.runText('something else in between');
    a.runText(text);
    b.runText(text);
    assert.equal(Buffer.compare(first, Buffer.from(a.attention().buffer)), 0, 'same session, two runs');
    assert.equal(Buffer.compare(first, Buffer.from(b.attention().buffer)), 0, 'another session');
    a.destroy();
    b.destroy();
  }
});

// The golden fixtures' sentences (tests/fixtures/attention.json) and the texts above.
const FIXTURE_TEXTS = JSON.parse(fs.readFileSync(path.join(repoRoot, 'tests/fixtures/attention.json'), 'utf8'))
  .sentences.map((s) => s.text);

for (const [flavour, [tool, ...toolArgs]] of Object.entries(DUMP_TOOLS)) {
  const arm64 = flavour.startsWith('arm64');
  const skip = arm64 ? (arm64Missing && !process.env.CI ? arm64Missing : false)
    : (!nativeReady && process.env.ATTN_ALLOW_MISSING_NATIVE === '1' ? build.stderr : false);
  // The fast loop checks the build the CLI runs (SIMD); the scalar and arm64 paths run in make test-all.
  const options = flavour === 'simd' ? { skip } : allOnly({ skip });
  test(`determinism: native (${flavour}) and wasm give bit-identical attention and hidden states on ${arm64 ? 'every eighth' : 'every'} fixture`, options, () => {
    assert.ok(nativeReady, `the native build is missing: ${build.stderr}`);
    if (arm64) assert.ok(!arm64Missing, arm64Missing);
    // Under emulation (about 20× slower) every eighth fixture sentence; natively all of them.
    const texts = [...DETERMINISM_TEXTS, ...FIXTURE_TEXTS.filter((_, i) => !arm64 || i % 8 === 0)];
    assert.ok(FIXTURE_TEXTS.length >= 100, `${FIXTURE_TEXTS.length} fixture sentences`);
    const run = spawnSync(tool, [...toolArgs, weightsPath, ...texts], { maxBuffer: 1 << 30 });
    assert.equal(run.status, 0, String(run.stderr));
    const native = run.stdout;
    let at = 0, worstAttention = 0, worstHidden = 0, differing = 0;
    const session = engine.createSession();
    for (const text of texts) {
      const [n, nLayers, nHeads, hidden] = [0, 4, 8, 12].map((k) => native.readInt32LE(at + k));
      const count = nLayers * nHeads * n * n;
      const nativeAttention = new Float32Array(native.buffer.slice(native.byteOffset + at + 16, native.byteOffset + at + 16 + count * 4));
      at += 16 + count * 4;
      const nativeHidden = new Float32Array(native.buffer.slice(native.byteOffset + at, native.byteOffset + at + n * hidden * 4));
      at += n * hidden * 4;
      assert.equal(session.runText(text).n, n);
      const attention = session.attention(), final = session.hidden();
      assert.equal(attention.length, count);
      assert.equal(final.length, n * hidden);
      attention.forEach((p, i) => { worstAttention = Math.max(worstAttention, Math.abs(p - nativeAttention[i])); });
      final.forEach((v, i) => { worstHidden = Math.max(worstHidden, Math.abs(v - nativeHidden[i])); });
      if (!Buffer.from(attention.buffer, attention.byteOffset, attention.byteLength).equals(Buffer.from(nativeAttention.buffer))) differing++;
    }
    session.destroy();
    assert.equal(at, native.length, 'one record per text');
    console.log(`native (${flavour}) vs wasm over ${texts.length} texts: max |Δ attention| ${worstAttention.toExponential(2)}, max |Δ hidden| ${worstHidden.toExponential(2)}`);
    assert.equal(differing, 0, `${differing} texts whose attention differs in some bit`);
    assert.equal(worstAttention, 0, `max |Δ attention| ${worstAttention}`);
    assert.equal(worstHidden, 0, `max |Δ hidden| ${worstHidden}`);
  });
}
