// The converter's parsers on inputs built to exhaust them: each answers in bounded time and in
// memory proportional to what it keeps (weights/README.md, "Bounds"). Sizes are generated here,
// never committed; the big cases (make test-all) run in a child process with a small heap so that a parser that
// copies or collects before checking fails the test instead of slowing the machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import {
  ConvertError, convertCheckpoint, parseConfig, buildCard, checkCard, ACTIVATION_LIMIT, SAFETENSORS_LIMITS,
} from '../weights/convert-core.mjs';
import { compactConfig, randomTensors, vocabLines } from './lib/checkpoints.mjs';
import { bertTensorShapes } from './lib/safetensors.mjs';
import { repoRoot } from './lib/node-engine.mjs';
import { ALL_ONLY } from './lib/slow.mjs';
import { codedRefusal } from './lib/refused.mjs';

const refusal = (fn) => {
  try { fn(); } catch (e) {
    if (e instanceof ConvertError) return codedRefusal(e);
    throw e;
  }
  return assert.fail('not refused');
};

// Runs `body` (a module's text, which prints one JSON line) in a child with a 192 MB heap:
// { result, ms, peakMB } where peakMB is the child's peak resident memory.
function inChild(body) {
  const script = `import * as core from ${JSON.stringify(path.join(repoRoot, 'weights/convert-core.mjs'))};
const started = performance.now();
let result;
try { result = (() => { ${body} })(); } catch (e) { result = { refused: e instanceof core.ConvertError, message: e.message }; }
console.log(JSON.stringify({ result, ms: performance.now() - started, peakMB: process.resourceUsage().maxRSS / 1024 }));`;
  const r = spawnSync(process.execPath, ['--max-old-space-size=192', '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim().split('\n').pop());
  process.stdout.write(`# ${out.result.message ?? JSON.stringify(out.result)}: ${out.ms.toFixed(0)} ms, peak ${out.peakMB.toFixed(0)} MB\n`);
  return out;
}

// The 100 MB buffer itself is about 100 MB of the peak; a copy or a collected line list is more.
const PEAK_LIMIT_MB = 400;

test('vocab.txt of 100 MB without a final newline, or of only newlines: refused in bounded time and memory', ALL_ONLY, () => {
  const noNewline = inChild(`const bytes = new Uint8Array(100e6).fill(0x61);
    core.parseVocab(bytes, { vocab: 30522 });`);
  assert.ok(noNewline.result.refused, noNewline.result.message);
  assert.match(noNewline.result.message, /vocab\.txt line 1 is 100000000 bytes long; no entry is longer than 1024/);
  const newlines = inChild(`const bytes = new Uint8Array(100e6).fill(0x0a);
    core.parseVocab(bytes, { vocab: 30522 });`);
  assert.match(newlines.result.message, /vocab\.txt has 100000000 lines but config\.json vocab_size is 30522/);
  for (const r of [noNewline, newlines]) {
    assert.ok(r.ms < 20000, `${r.ms} ms (the parse itself is a single pass; most of this is making the input)`);
    assert.ok(r.peakMB < PEAK_LIMIT_MB, `peak ${r.peakMB} MB`);
  }
});

test('the largest vocabulary kept (2^18 lines of 400 bytes, 100 MB, no final newline) is read in memory proportional to it', ALL_ONLY, () => {
  const big = inChild(`const line = 'x'.repeat(399) + '\\n';
    const lines = 262144;
    const bytes = new Uint8Array(lines * 400 - 1);
    const one = new TextEncoder().encode(line);
    for (let i = 0; i < lines; i++) bytes.set(i + 1 < lines ? one : one.subarray(0, 399), i * 400);
    ['[CLS]', '[SEP]', '[MASK]', '[PAD]', '[UNK]'].forEach((t, i) => bytes.set(new TextEncoder().encode(t.padEnd(399, ' ')), i * 400));
    const r = core.parseVocab(bytes, { vocab: lines });
    return { lines: r.lines, addedNewline: r.addedNewline, bytes: r.bytes.length };`);
  assert.deepEqual(big.result, { lines: 262144, addedNewline: true, bytes: 262144 * 400 });
  assert.ok(big.ms < 60000, `${big.ms} ms`);
  assert.ok(big.peakMB < 600, `peak ${big.peakMB} MB: the file, its copy with the newline and the entries`);
});

function safetensorsWith(extraCount) {
  return `const config = ${JSON.stringify(compactConfig({ layers: 1, hidden: 64, heads: 1, ffn: 64, vocab: 40, positions: 16 }))};
    const shapes = ${JSON.stringify(bertTensorShapes(compactConfig({ layers: 1, hidden: 64, heads: 1, ffn: 64, vocab: 40, positions: 16 })))};
    const header = {};
    let offset = 0;
    for (const [name, shape] of Object.entries(shapes)) {
      const bytes = shape.reduce((a, b) => a * b, 1) * 4;
      header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + bytes] };
      offset += bytes;
    }
    // The unknown entries are written straight into the bytes: a million-key object would not
    // fit the child's heap, and the parser must not need it to.
    const known = new TextEncoder().encode(JSON.stringify(header).slice(0, -1));
    const entry = (i) => ',"unknown.tensor.' + i + '":{"dtype":"F32","shape":[0],"data_offsets":[' + offset + ',' + offset + ']}';
    const json = new Uint8Array(known.length + ${extraCount} * entry(${extraCount}).length + 1);
    json.set(known);
    let at = known.length;
    for (let i = 0; i < ${extraCount}; i++) at += new TextEncoder().encodeInto(entry(i), json.subarray(at)).written;
    json[at++] = 0x7d;
    json.fill(0x20, at);
    const file = new Uint8Array(8 + json.length + offset);
    new DataView(file.buffer).setBigUint64(0, BigInt(json.length), true);
    file.set(json, 8);
    const lines = [];
    const vocab = new TextEncoder().encode(${JSON.stringify(`${vocabLines(40).join('\n')}\n`)});
    const r = core.convertCheckpoint({ config: JSON.stringify(config), vocab, safetensors: file }, { precision: 'int8', log: (l) => lines.push(l) });
    return { headerMB: json.length / 1e6, notes: lines.filter((l) => l.includes('ignoring')), bytes: r.bytes.length };`;
}

test('a safetensors header of 1,000,000 zero-size unknown tensors (63 MB) is refused at once; 99,000 convert with two notes', ALL_ONLY, () => {
  const million = inChild(safetensorsWith(1000000));
  assert.match(million.result.message, /a header of \d+ bytes[^]*at most 16777216/);
  assert.ok(million.ms < 20000 && million.peakMB < PEAK_LIMIT_MB, `${million.ms} ms, ${million.peakMB} MB`);
  const many = inChild(safetensorsWith(99000));
  assert.equal(many.result.notes.length, 6, many.result.notes.join('\n'));
  assert.match(many.result.notes.at(-1), /ignoring 98995 more tensors the engine does not use \(99000 in all\)/);
  assert.ok(many.ms < 30000 && many.peakMB < 600, `${many.ms} ms, ${many.peakMB} MB`);
  assert.equal(SAFETENSORS_LIMITS.tensors, 100000);
  assert.match(inChild(safetensorsWith(100001)).result.message, /100\d+ tensors; this reader takes at most 100000/);
});

// ---------------------------------------------------------------- values and shapes

const config = compactConfig({ layers: 1, hidden: 64, heads: 1, ffn: 64, vocab: 40, positions: 16 });
const { tensors } = randomTensors(config, 3);

function safetensorsBytes(map) {
  const shapes = bertTensorShapes(config);
  const header = {};
  let offset = 0;
  for (const [name, values] of map) {
    header[name] = { dtype: 'F32', shape: shapes[name], data_offsets: [offset, offset + values.byteLength] };
    offset += values.byteLength;
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  let at = 8 + json.length;
  for (const values of map.values()) { out.set(new Uint8Array(values.buffer, values.byteOffset, values.byteLength), at); at += values.byteLength; }
  return out;
}

const vocab = new TextEncoder().encode(`${vocabLines(40).join('\n')}\n`);
const convertWith = (edit = () => {}, configEdit = {}) => {
  const map = new Map([...tensors].map(([n, v]) => [n, v.slice()]));
  edit(map);
  return convertCheckpoint({ config: JSON.stringify({ ...config, ...configEdit }), vocab, safetensors: safetensorsBytes(map) }, { precision: 'int8' });
};

test('weights whose forward pass overflows float32 are refused, naming the tensor', () => {
  assert.ok(convertWith().bytes.length > 0);
  const bias = refusal(() => convertWith((m) => { m.get('bert.embeddings.LayerNorm.bias')[3] = 1e20; }));
  assert.match(bias, /^tensor bert\.embeddings\.LayerNorm\.bias makes the forward pass overflow float32 \(layer 0's attention scores can reach/);
  const query = refusal(() => convertWith((m) => { m.get('bert.encoder.layer.0.attention.self.query.weight').fill(3.4e38); }));
  assert.match(query, /^tensor bert\.encoder\.layer\.0\.attention\.self\.query\.weight makes the forward pass overflow/);
  const ffn = refusal(() => convertWith((m) => { m.get('bert.encoder.layer.0.output.dense.weight')[0] = 1e36; }));
  assert.match(ffn, /output\.dense\.weight makes the forward pass overflow/);
  assert.match(refusal(() => convertWith((m) => { m.get('cls.predictions.bias')[0] = Infinity; })), /cls\.predictions\.bias holds a non-finite value at index 0/);
  // Large but harmless: a LayerNorm bias of 1e6 keeps every bound far under the limit.
  assert.ok(convertWith((m) => { m.get('bert.embeddings.LayerNorm.bias')[3] = 1e6; }).bytes.length > 0);
  assert.equal(ACTIVATION_LIMIT, 2 ** 100);
});

test('shapes the engine cannot run are refused at conversion with the reason', () => {
  for (const positions of [1, 2]) {
    assert.match(refusal(() => parseConfig(JSON.stringify({ ...config, max_position_embeddings: positions }))),
      new RegExp(`max_position_embeddings is ${positions}; the engine needs at least 3`));
  }
  assert.ok(parseConfig(JSON.stringify({ ...config, max_position_embeddings: 3 })).shape.maxPositions === 3);
  assert.match(refusal(() => parseConfig(JSON.stringify({ ...config, vocab_size: 4 }))), /vocab_size is 4; the 5 special tokens alone need 5 rows/);
});

// ---------------------------------------------------------------- the model card and the vocabulary

test('the model card is JSON of known keys, each once, checked when written', () => {
  const shape = parseConfig(JSON.stringify(config)).shape;
  const card = buildCard({ name: 'my\u001b]0;pwned\u0007model', shape, training: { corpus_tokens: 12 }, matrices: { int8: 9, int16: 1 },
    roles: { next: [0.5, 0], previous: [0, 0.25], cls: [0.1, 0.2], sep: [0.05, 0.1] } });
  assert.equal(checkCard(card), card);
  assert.doesNotMatch(card, /\\u001b|\\u0007/, 'control characters of the folder name made spaces');
  assert.deepEqual(JSON.parse(card), { name: 'my ]0;pwned model', training_tokens: 12, training_language: 'en', matrices_int8: 9, matrices_int16: 1,
    masked_word_head: true, head_next: [0.5, 0], head_previous: [0, 0.25], head_cls: [0.1, 0.2], head_sep: [0.05, 0.1] }, 'facts, no sentence');
  assert.match(refusal(() => checkCard('{"name":"a","shape":"fake","name":"b"}')), /unknown key "shape"|repeated key/);
  assert.match(refusal(() => checkCard('{"name":"a","name":"b"}')), /not in canonical JSON form \(a repeated key\?\)/);
  assert.match(refusal(() => checkCard('{"name":"a\\u001b[2J"}')), /name must be a string without control characters/);
  assert.match(refusal(() => checkCard('{"heldout_mlm_accuracy":"high"}')), /heldout_mlm_accuracy must be a finite number/);
  assert.match(refusal(() => checkCard('{"head_next":[0.1,"a"]}')), /head_next must be a list of finite numbers/);
  assert.match(refusal(() => checkCard('{"head_next":0.1}')), /head_next must be a list of finite numbers/);
  assert.match(refusal(() => checkCard('{"masked_word_head":1}')), /masked_word_head must be true or false/);
  assert.equal(checkCard('{"name":"old","limits":"No masked-word head"}'), '{"name":"old","limits":"No masked-word head"}', 'a card written before is still valid');
  assert.match(refusal(() => checkCard('[1]')), /not a JSON object/);
});

test('vocabulary lines with ESC or BEL are kept (ids stay in place) and reported: no text produces them', () => {
  const lines = vocabLines(40);
  lines[30] = 'evil\u001b]0;title\u0007';
  const log = [];
  const { bytes } = convertCheckpoint({ config: JSON.stringify(config), vocab: new TextEncoder().encode(`${lines.join('\n')}\n`),
    safetensors: safetensorsBytes(tensors) }, { precision: 'int8', log: (l) => log.push(l) });
  assert.ok(bytes.length > 0);
  assert.match(log.join('\n'), /vocab\.txt line 31 holds control characters: kept/);
});
