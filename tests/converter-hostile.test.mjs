// Hostile checkpoints for the converter's readers (pytorch_model.bin, tokenizer.json): inputs
// built to crash, stall or exhaust them, each generated here (never committed). Every one ends
// in a named refusal (ConvertError) within a time bound given as a ratio to a peer measured in
// the same run (a parse, a CRC of the same bytes), so that a loaded machine does not fail it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ConvertError, convertCheckpoint, FILE_MAX_BYTES } from '../weights/convert-core.mjs';
import { parseTorchCheckpoint, readStoredZip, TORCH_LIMITS } from '../weights/torch-checkpoint.mjs';
import { vocabFromTokenizerJson, TOKENIZER_JSON_MAX_BYTES } from '../weights/tokenizer-json.mjs';
import { crc32 } from '../weights/crc32.mjs';
import { repoRoot } from './lib/node-engine.mjs';
import { writeZip } from './lib/zip.mjs';
import {
  int, str, tuple, nestedList, storagePid, rebuildArgs, tensorCall, wrappedTensor, stateDict, valuePickle, LEGACY_MAGIC_OPS,
} from './lib/pickle.mjs';
import { codedRefusal } from './lib/refused.mjs';

const FIXTURES = path.join(repoRoot, 'tests/fixtures/torch');
const tempRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-hostile-'));
process.on('exit', () => fs.rmSync(tempRoot, { recursive: true, force: true }));

// The refusal's message; any other exception fails the test with its own stack.
function refusal(fn) {
  try { fn(); } catch (e) {
    if (e instanceof ConvertError) return codedRefusal(e);
    throw e;
  }
  return assert.fail('not refused');
}

function timed(fn) {
  const start = performance.now();
  const value = fn();
  return { value, ms: performance.now() - start };
}

const zipOf = (pickle, storageBytes = 16) => writeZip([['archive/data.pkl', pickle], ['archive/data/0', new Uint8Array(storageBytes)]]);
const DEEP = 10000;

// ---------------------------------------------------------------- 1. recursion on input depth

test('a list nested 10,000 deep where an offset, a dimension, an element count or the legacy protocol belongs: refused by name', () => {
  const deep = nestedList(DEEP);
  const cases = [
    [rebuildArgs({ offset: deep }), /tensor storage offset \[\[…\]\] is not a count/],
    [rebuildArgs({ size: { ops: tuple(int(2), deep) } }), /tensor size \[2, \[…\]\] or stride \[2, 1\] is not made of counts/],
    [rebuildArgs({ pid: storagePid({ numel: deep }) }), /storage "0" declares \[\[…\]\] elements/],
  ];
  for (const [args, pattern] of cases) {
    const message = refusal(() => parseTorchCheckpoint(zipOf(stateDict([['w', tensorCall(args)]]))));
    assert.match(message, pattern);
    assert.ok(message.length < 400, `a bounded message (${message.length} characters)`);
  }
  const legacy = new Uint8Array([...valuePickle(LEGACY_MAGIC_OPS), ...valuePickle(deep)]);
  assert.match(refusal(() => parseTorchCheckpoint(legacy)), /legacy protocol version \[\[…\]\], this reader knows 1001/);
});

test('_rebuild_from_type_v2 nested 100,000 deep is refused; the one wrapper torch.save writes reads', () => {
  const one = parseTorchCheckpoint(zipOf(stateDict([['w', wrappedTensor(rebuildArgs(), 1)]])));
  assert.deepEqual(one.get('w').shape, [2, 2]);
  const pickle = stateDict([['w', wrappedTensor(rebuildArgs(), 100000)]]);
  assert.match(refusal(() => parseTorchCheckpoint(zipOf(pickle))), new RegExp(`_rebuild_from_type_v2 nested more than ${TORCH_LIMITS.rebuildWrappers} deep`));
});

// ---------------------------------------------------------------- 2. the byteorder entry

test('a byteorder entry of 200 KB is refused by its length, before it is decoded', () => {
  const pickle = stateDict([['w', tensorCall(rebuildArgs())]]);
  const zip = writeZip([['archive/data.pkl', pickle], ['archive/byteorder', new Uint8Array(200 * 1024).fill(0x6c)], ['archive/data/0', new Uint8Array(16)]]);
  assert.match(refusal(() => parseTorchCheckpoint(zip)), /the byteorder entry holds 204800 bytes; torch\.save writes "little" or "big"/);
  const odd = writeZip([['archive/data.pkl', pickle], ['archive/byteorder', new TextEncoder().encode('middle')], ['archive/data/0', new Uint8Array(16)]]);
  assert.match(refusal(() => parseTorchCheckpoint(odd)), /byteorder is "middle"/);
});

// ---------------------------------------------------------------- 3. the legacy key list

// A legacy-format file (torch.save before PyTorch 1.6): magic, protocol, system information,
// the state dict, the storage keys, then each storage's element count and bytes.
function legacyFile(keys) {
  const tensor = (key) => tensorCall(rebuildArgs({ pid: storagePid({ key, legacy: true }) }));
  const keyList = [0x5d, 0x28, ...keys.flatMap((k) => str(k)), 0x65];
  const storage = (numel) => {
    const out = new Uint8Array(8 + 4 * numel);
    new DataView(out.buffer).setBigUint64(0, BigInt(numel), true);
    return [...out];
  };
  return new Uint8Array([
    ...valuePickle(LEGACY_MAGIC_OPS), ...valuePickle(int(1001)), ...valuePickle([0x7d]),
    ...stateDict([['a', tensor('0')], ['b', tensor('1')]]), ...valuePickle(keyList), ...storage(4), ...storage(4),
  ]);
}

test('a legacy key list must name each storage once: one named twice (another left out) is refused', () => {
  const ok = parseTorchCheckpoint(legacyFile(['0', '1']));
  assert.equal(ok.get('b').bytes.length, 16);
  assert.match(refusal(() => parseTorchCheckpoint(legacyFile(['0', '0']))), /storage key list does not name each of the 2 storages[^]*"0" is named twice/);
  assert.match(refusal(() => parseTorchCheckpoint(legacyFile(['0', '7']))), /"7" is not one of them/);
  assert.match(refusal(() => parseTorchCheckpoint(legacyFile(['0']))), /it has 1 keys/);
});

// ---------------------------------------------------------------- 4. zip entries over one range

// `count` central-directory entries, each with its own local header, all of whose data runs
// over one shared region of `shared` bytes: every range overlaps the others.
function overlappingZip(count, shared) {
  const names = Array.from({ length: count }, (_, i) => new TextEncoder().encode(`archive/x${i}`));
  const localsLength = names.reduce((a, n) => a + 30 + n.length, 0);
  const centralLength = names.reduce((a, n) => a + 46 + n.length, 0);
  const buf = new Uint8Array(localsLength + shared + centralLength + 22);
  const v = new DataView(buf.buffer);
  let at = 0;
  const offsets = names.map((name) => {
    const local = at;
    v.setUint32(at, 0x04034b50, true); v.setUint32(at + 18, shared, true); v.setUint32(at + 22, shared, true);
    v.setUint16(at + 26, name.length, true);
    buf.set(name, at + 30);
    at += 30 + name.length;
    return local;
  });
  const dataEnd = localsLength + shared;
  at = dataEnd;
  names.forEach((name, i) => {
    const size = dataEnd - (offsets[i] + 30 + name.length);
    v.setUint32(at, 0x02014b50, true); v.setUint32(at + 16, 0x12345678, true);
    v.setUint32(at + 20, size, true); v.setUint32(at + 24, size, true); v.setUint16(at + 28, name.length, true);
    v.setUint32(at + 42, offsets[i], true);
    v.setUint32(offsets[i] + 18, size, true); v.setUint32(offsets[i] + 22, size, true);
    buf.set(name, at + 46);
    at += 46 + name.length;
  });
  v.setUint32(at, 0x06054b50, true); v.setUint16(at + 8, count, true); v.setUint16(at + 10, count, true);
  v.setUint32(at + 12, centralLength, true); v.setUint32(at + 16, dataEnd, true);
  return buf;
}

test('1,500 zip entries over one 4 MB range: "overlap" before any CRC, in the time of a few CRCs of the file', () => {
  const zip = overlappingZip(1500, 4 << 20);
  const peer = timed(() => crc32(zip));
  const { value: message, ms } = timed(() => refusal(() => readStoredZip(zip)));
  assert.match(message, /zip entries archive\/x0 and archive\/x1 overlap/);
  process.stdout.write(`refused in ${ms.toFixed(1)} ms; one CRC-32 of the ${zip.length}-byte file: ${peer.ms.toFixed(1)} ms\n`);
  assert.ok(ms < 5 * peer.ms + 50, `${ms.toFixed(0)} ms against ${peer.ms.toFixed(0)} ms for one CRC of the file (before: 1,500 CRCs)`);
});

// ---------------------------------------------------------------- 5. tokenizer.json bounds

const tokenizerBase = () => JSON.parse(fs.readFileSync(path.join(FIXTURES, 'tokenizer-json/tokenizer.json'), 'utf8'));
const configText = fs.readFileSync(path.join(FIXTURES, 'tokenizer-json/config.json'), 'utf8');

test('tokenizer.json larger than its bound: refused on the file size, before it is read or decoded (CLI, sparse 600 MB file)', () => {
  const dir = path.join(tempRoot, 'spaces');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'config.json'), configText);
  fs.writeFileSync(path.join(dir, 'model.safetensors'), '');
  const fd = fs.openSync(path.join(dir, 'tokenizer.json'), 'w');
  fs.ftruncateSync(fd, 600e6);  // a sparse file: 600 MB that cost no disk and no memory until read
  fs.closeSync(fd);
  const peer = timed(() => spawnSync(process.execPath, ['-e', 'process.exit(1)']));
  const { value: r, ms } = timed(() => spawnSync(process.execPath, [path.join(repoRoot, 'weights/convert.mjs'), dir, path.join(tempRoot, 'o.bin')], { encoding: 'utf8' }));
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /^convert: tokenizer\.json: 600000000 bytes, more than the 67108864 read\n$/);
  assert.ok(ms < 10 * peer.ms + 3000, `${ms.toFixed(0)} ms (node starting alone: ${peer.ms.toFixed(0)} ms)`);
  assert.equal(FILE_MAX_BYTES['tokenizer.json'], TOKENIZER_JSON_MAX_BYTES);
  assert.match(refusal(() => vocabFromTokenizerJson(new Uint8Array(TOKENIZER_JSON_MAX_BYTES + 1))), /67108865 bytes, more than the 67108864 read/);
});

test('400,000 vocabulary entries with vocab_size 100: refused before the JSON is parsed', () => {
  const json = tokenizerBase();
  json.model.vocab = {};
  const entries = Array.from({ length: 400000 }, (_, i) => `"t${i}":${i}`).join(',');
  const text = JSON.stringify(json).replace('"vocab":{}', `"vocab":{${entries}}`);
  const bytes = new TextEncoder().encode(text);
  const peer = timed(() => JSON.parse(text));
  const { value: message, ms } = timed(() => refusal(() => convertCheckpoint({ name: 'x', config: configText, tokenizer: bytes, pytorch: new Uint8Array(8) })));
  assert.match(message, /tokenizer\.json: an object or list of more than 100 entries \(at byte \d+\), but config\.json vocab_size is 100/);
  process.stdout.write(`refused in ${ms.toFixed(1)} ms; JSON.parse of the same ${bytes.length} bytes: ${peer.ms.toFixed(1)} ms\n`);
  assert.ok(ms < peer.ms / 4, `${ms.toFixed(0)} ms against ${peer.ms.toFixed(0)} ms for parsing it`);
});

test('tokenizer.json nested deeper than any tokenizer: refused by the pre-parse scan', () => {
  const text = `{"model":${'['.repeat(100000)}${']'.repeat(100000)}}`;
  assert.match(refusal(() => vocabFromTokenizerJson(text)), /nests more than 64 deep at byte/);
});

// ---------------------------------------------------------------- 6. accepted silently before

test('added_tokens entries must be objects with an integer id in range and a string content; lone surrogates are refused by name', () => {
  const refusedWith = (edit, pattern) => {
    const json = tokenizerBase();
    edit(json);
    assert.match(refusal(() => vocabFromTokenizerJson(JSON.stringify(json), { vocabSize: 100 })), pattern);
  };
  refusedWith((j) => { j.added_tokens = [null]; }, /added_tokens\[0\] is null, not an object with an id and a content/);
  refusedWith((j) => { j.added_tokens.push({ content: '[PAD]' }); }, /added_tokens\[\d+\]: added token "\[PAD\]" has no id/);
  refusedWith((j) => { j.added_tokens.push({ id: 0 }); }, /added_tokens\[\d+\] has content \(absent\), not a string/);
  refusedWith((j) => { j.added_tokens.push({ id: 1.5, content: '[UNK]' }); }, /has id 1\.5/);
  refusedWith((j) => { j.added_tokens.push({ id: 5, content: '__proto__' }); }, /added token "__proto__" \(id 5\) is not the vocabulary's entry/);
  refusedWith((j) => { j.added_tokens = { 0: '[PAD]' }; }, /added_tokens is \{"0": "\[PAD\]"\}, not a list/);
  refusedWith((j) => {
    const [token, id] = Object.entries(j.model.vocab).find(([t]) => !t.startsWith('['));
    delete j.model.vocab[token];
    j.model.vocab['cat\ud800'] = id;
  }, /token "cat\\ud800" \(id \d+\) holds a lone surrogate \(U\+D800\)/);
});

test('the command line: a refusal exits 1 with its reason; nothing else is ever a refusal', () => {
  const dir = path.join(tempRoot, 'nested');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'config.json'), configText);
  fs.writeFileSync(path.join(dir, 'vocab.txt'), fs.readFileSync(path.join(FIXTURES, 'zip/vocab.txt')));
  fs.writeFileSync(path.join(dir, 'pytorch_model.bin'), zipOf(stateDict([['w', tensorCall(rebuildArgs({ offset: nestedList(DEEP) }))]])));
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'weights/convert.mjs'), dir, path.join(tempRoot, 'n.bin')], { encoding: 'utf8' });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /^convert: pytorch_model\.bin \(archive\/data\.pkl\): tensor storage offset \[\[…\]\] is not a count\n$/);
  assert.doesNotMatch(r.stderr, /RangeError|TypeError|at /);
});

test('the command line: a failure that is not a refusal is a bug, printed with its stack and exit status 2', () => {
  // A fault injected where no input reaches (the checkpoint's hash): what any bug would look like.
  const fault = 'data:text/javascript,import crypto from "node:crypto"; crypto.createHash = () => { throw new TypeError("injected fault"); };';
  const r = spawnSync(process.execPath, ['--import', fault, path.join(repoRoot, 'weights/convert.mjs'), path.join(FIXTURES, 'zip'), path.join(tempRoot, 'b.bin')], { encoding: 'utf8' });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /^convert: internal error: please report it with this text[^\n]*\nTypeError: injected fault\n\s+at /);
});

// ---------------------------------------------------------------- 7. peak memory

// Each big case again, through the command line in a child of its own, its peak resident memory
// (VmHWM of /proc/self/status, written by the child as it exits: getrusage's maxrss would carry
// over, across exec, the resident size of this process at the fork) against a baseline child that loads
// the same modules and converts nothing. A reader that reads a file it should refuse on its
// size, or copies, decodes or collects before checking, passes the bound; the file's bytes read
// once (one buffer) stay under it. The bounds are in weights/README.md ("Bounds").
const PEAK_HOOK = 'data:text/javascript,import fs from "node:fs"; process.on("exit", () => fs.writeFileSync(process.env.ATTN_PEAK_FILE, '
  + 'String(1024 * Number(/VmHWM:\\s*(\\d+) kB/.exec(fs.readFileSync("/proc/self/status", "utf8"))[1]))));';
const PEAK_SLACK_BYTES = 24 << 20;

function peakOfConversion(dir) {
  const peakFile = path.join(tempRoot, 'peak');
  fs.rmSync(peakFile, { force: true });
  const r = spawnSync(process.execPath, ['--import', PEAK_HOOK, path.join(repoRoot, 'weights/convert.mjs'), dir, path.join(tempRoot, 'peak.bin')],
    { encoding: 'utf8', env: { ...process.env, ATTN_PEAK_FILE: peakFile } });
  return { status: r.status, stderr: r.stderr, peak: Number(fs.readFileSync(peakFile, 'utf8')) };
}

function checkpointDir(name, files) {
  const dir = path.join(tempRoot, name);
  fs.mkdirSync(dir);
  for (const [file, bytes] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), bytes);
  return dir;
}

const MB = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const vocabText = () => fs.readFileSync(path.join(FIXTURES, 'zip/vocab.txt'));
let baselinePeak = null;

// The children one after another, so that the peaks do not share the machine's memory.
function peakOf(name, files, refusedWith, { readBytes }) {
  if (baselinePeak === null) {
    const baseline = peakOfConversion(checkpointDir('baseline', { 'config.json': configText }));
    assert.equal(baseline.status, 1, baseline.stderr);
    assert.match(baseline.stderr, /missing: model\.safetensors/);
    baselinePeak = baseline.peak;
  }
  const dir = typeof files === 'string' ? files : checkpointDir(name, files);
  const { status, stderr, peak } = peakOfConversion(dir);
  assert.equal(status, 1, stderr);
  assert.match(stderr, refusedWith);
  const bound = baselinePeak + 2 * readBytes + PEAK_SLACK_BYTES;
  process.stdout.write(`# ${name}: peak ${MB(peak)}, bound ${MB(bound)} (baseline ${MB(baselinePeak)} + 2 × ${MB(readBytes)} read + ${MB(PEAK_SLACK_BYTES)})\n`);
  assert.ok(peak < bound, `${name}: peak ${MB(peak)} over ${MB(bound)}`);
  return peak;
}

const pytorchCase = (pytorch) => ({ 'config.json': configText, 'vocab.txt': vocabText(), 'pytorch_model.bin': pytorch });

test('peak memory: tokenizer.json of 600 MB (sparse) is never read: the baseline and nothing more', () => {
  const dir = checkpointDir('peak-sparse', { 'config.json': configText, 'model.safetensors': '' });
  const fd = fs.openSync(path.join(dir, 'tokenizer.json'), 'w');
  fs.ftruncateSync(fd, 600e6);
  fs.closeSync(fd);
  peakOf('600 MB tokenizer.json', dir, /600000000 bytes, more than the 67108864 read/, { readBytes: 0 });
});

test('peak memory: 4,000,000 vocabulary entries (54 MB) with vocab_size 100: the file read once, never parsed', () => {
  const json = tokenizerBase();
  json.model.vocab = {};
  const [head, tail] = JSON.stringify(json).split('"vocab":{}');
  const tokenizer = Buffer.concat([Buffer.from(`${head}"vocab":{`), Buffer.from(Array.from({ length: 4e6 }, (_, i) => `"t${i}":0`).join(',')), Buffer.from(`}${tail}`)]);
  assert.ok(tokenizer.length > 50e6 && tokenizer.length < TOKENIZER_JSON_MAX_BYTES);
  peakOf('4,000,000 vocabulary entries', { 'config.json': configText, 'model.safetensors': '', 'tokenizer.json': tokenizer },
    /more than 100 entries \(at byte \d+\), but config\.json vocab_size is 100/, { readBytes: tokenizer.length });
});

test('peak memory: tokenizer.json nested 100,000 deep', () => {
  const tokenizer = `{"model":${'['.repeat(100000)}${']'.repeat(100000)}}`;
  peakOf('tokenizer.json 100,000 deep', { 'config.json': configText, 'model.safetensors': '', 'tokenizer.json': tokenizer },
    /nests more than 64 deep at byte/, { readBytes: tokenizer.length });
});

test('peak memory: 1,500 zip entries over one 4 MB range', () => {
  const zip = overlappingZip(1500, 4 << 20);
  peakOf('1,500 overlapping zip entries', pytorchCase(zip), /zip entries archive\/x0 and archive\/x1 overlap/, { readBytes: zip.length });
});

test('peak memory: 10^6 junk values in a state dict, a pickle nested 10^6 deep, a list 10,000 deep as an offset', () => {
  const junk = new Uint8Array(2e6 + 4);  // {} then (int 0) × 10^6 pushed before any SETITEMS: the stack's bound
  junk.set([0x80, 0x02, 0x7d, 0x28]);
  for (let i = 4; i + 2 <= junk.length - 1; i += 2) junk.set([0x4b, 0x00], i);
  junk[junk.length - 1] = 0x2e;
  const junkZip = zipOf(junk);
  peakOf('10^6 junk values', pytorchCase(junkZip), /more than 100000 values on the pickle.s stack/, { readBytes: junkZip.length });
  const deep = new Uint8Array(1e6 + 3).fill(0x28);
  deep.set([0x80, 0x02]);
  const deepZip = zipOf(deep);
  peakOf('pickle 10^6 deep', pytorchCase(deepZip), /nests more than 1000 deep/, { readBytes: deepZip.length });
  const offset = zipOf(stateDict([['w', tensorCall(rebuildArgs({ offset: nestedList(DEEP) }))]]));
  peakOf('offset 10,000 deep', pytorchCase(offset), /tensor storage offset \[\[…\]\] is not a count/, { readBytes: offset.length });
});

test('peak memory: a byteorder entry of 200 KB', () => {
  const zip = writeZip([['archive/data.pkl', stateDict([['w', tensorCall(rebuildArgs())]])], ['archive/byteorder', new Uint8Array(200 * 1024).fill(0x6c)], ['archive/data/0', new Uint8Array(16)]]);
  peakOf('200 KB byteorder', pytorchCase(zip), /the byteorder entry holds 204800 bytes/, { readBytes: zip.length });
});
