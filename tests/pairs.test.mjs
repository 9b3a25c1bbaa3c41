// node --test tests/pairs.test.mjs
// Sentence pairs `[CLS] A [SEP] B [SEP]` against the golden pairs of the default checkpoint
// (tests/fixtures/bert-mini-int8/pairs.json + .f32.gz): ids, token types and per-segment
// offsets exactly, attention within 1e-3 — through the wasm engine (runPair, runTypedIds) and
// the native CLI (--pair). Pairs longer than the model's positions against the reference
// tokenizer (npm `tokenizers`, longest-first truncation). Needs web/dist/attn.wasm (make wasm);
// builds build/attn (make).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { loadEngine, repoRoot } from './lib/node-engine.mjs';
import { pairDifferences } from './lib/pairs.mjs';

const BAR = 1e-3;
const prefix = `${repoRoot}tests/fixtures/bert-mini-int8/pairs`;
const fixture = JSON.parse(readFileSync(`${prefix}.json`, 'utf8'));
const golden = (() => {
  const bytes = gunzipSync(readFileSync(`${prefix}.f32.gz`));
  return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
})();
const engine = await loadEngine();
const { layers, heads } = engine.shape;

/** Max |Δ| between the engine's [layers][heads][n][n] attention and the fixture's stored rows. */
function attentionDelta(attention, sentence) {
  const { n, rows } = sentence;
  let worst = 0;
  for (let head = 0; head < layers * heads; head++) {
    rows.forEach((row, k) => {
      const theirs = sentence.attention_offset / 4 + (head * rows.length + k) * n;
      for (let j = 0; j < n; j++) {
        const d = Math.abs(attention[(head * n + row) * n + j] - golden[theirs + j]);
        if (!(d <= worst)) worst = d;
      }
    });
  }
  return worst;
}

test('the fixture pairs: a second segment in every one, token type 1 from B on', () => {
  assert.equal(fixture.sentences.length, 24);
  for (const s of fixture.sentences) {
    assert.equal(typeof s.text_b, 'string');
    assert.ok(s.type_ids.includes(1));
  }
});

test('wasm runPair: ids, type ids and offsets exact, attention within 1e-3 on every pair', () => {
  const session = engine.createSession();
  for (const sentence of fixture.sentences) {
    const run = session.runPair(sentence.text, sentence.text_b);
    const label = `${JSON.stringify(sentence.text)} + ${JSON.stringify(sentence.text_b)}`;
    assert.deepEqual(pairDifferences(run, sentence), [], label);
    assert.deepEqual(session.typeIds(), sentence.type_ids, label);
    assert.equal(session.segmentCount(), 2, label);
    assert.equal(run.truncated, false, label);
    assert.equal(run.fullLength, sentence.n, label);
    const delta = attentionDelta(session.attention(), sentence);
    assert.ok(delta <= BAR, `${label}: attention max |Δ| ${delta}`);
  }
  session.destroy();
});

test('token types matter: the same pair run as one sentence misses the fixture', () => {
  const session = engine.createSession();
  const sentence = fixture.sentences[0];
  session.runIds(sentence.ids);   // the pair's ids, token type 0 everywhere
  assert.ok(attentionDelta(session.attention(), sentence) > BAR);
  assert.equal(session.segmentCount(), 0);
  session.runTypedIds(sentence.ids, sentence.type_ids);
  assert.ok(attentionDelta(session.attention(), sentence) <= BAR);
  assert.deepEqual(session.typeIds(), sentence.type_ids);
  session.destroy();
});

test('runTypedIds refuses a token type the model does not have, and mismatched lengths', () => {
  const session = engine.createSession();
  const { ids } = fixture.sentences[0];
  assert.throws(() => session.runTypedIds(ids, ids.map(() => engine.shape.typeVocab)), { code: 22 });
  assert.equal(session.n, 0);
  assert.throws(() => session.runTypedIds(ids, [0]), { code: 22 });
  session.destroy();
});

test('a single sentence after a pair: type 0 everywhere, one segment', () => {
  const session = engine.createSession();
  session.runPair('The cat sat.', 'It slept.');
  const run = session.runText('The cat sat.');
  assert.ok(session.typeIds().every((t) => t === 0));
  assert.equal(session.typeIds().length, run.n);
  assert.equal(session.segmentCount(), 1);
  session.destroy();
});

// ---------------------------------------------------------------- native CLI

const build = spawnSync('make', ['-s', 'build/attn'], { cwd: repoRoot, encoding: 'utf8' });
const cli = join(repoRoot, 'build/attn');
const attn = (args) => spawnSync(cli, args, { cwd: repoRoot, encoding: 'utf8' });
const CLI_PAIRS = [0, 6, 16, 18, 19];   // plain, long B, accents, empty B, empty A

test('CLI --pair --tokenize --json: ids, type ids and offsets exact', { skip: build.status !== 0 && build.stderr }, () => {
  for (const index of CLI_PAIRS) {
    const sentence = fixture.sentences[index];
    const run = attn([sentence.text, '--pair', sentence.text_b, '--tokenize', '--json']);
    assert.equal(run.status, 0, run.stderr);
    const out = JSON.parse(run.stdout);
    assert.equal(out.pair, true);
    assert.deepEqual(out.ids, sentence.ids, `pair ${index}`);
    assert.deepEqual(out.type_ids, sentence.type_ids, `pair ${index}`);
    assert.deepEqual(out.offsets, sentence.offsets, `pair ${index}`);
  }
});

test('CLI --pair rows: attention within 1e-3 of the fixture', { skip: build.status !== 0 && build.stderr }, () => {
  for (const index of CLI_PAIRS) {
    const sentence = fixture.sentences[index];
    const { n, rows } = sentence;
    for (const [layer, head, k] of [[0, 0, 0], [1, 2, rows.length - 1], [3, 3, Math.floor(rows.length / 2)]]) {
      const row = rows[k];
      const run = attn([sentence.text, '--pair', sentence.text_b, '--layer', String(layer + 1),
        '--head', String(head + 1), '--token', `#${row}`, '--json']);
      assert.equal(run.status, 0, run.stderr);
      const out = JSON.parse(run.stdout);
      const theirs = sentence.attention_offset / 4 + ((layer * heads + head) * rows.length + k) * n;
      const worst = Math.max(...out.row.map((p, j) => Math.abs(p - golden[theirs + j])));
      assert.ok(worst <= BAR, `pair ${index} layer ${layer + 1} head ${head + 1} row ${row}: |Δ| ${worst}`);
    }
  }
});

// ---------------------------------------------------------------- truncation vs the reference

const { Tokenizer, WordPiece, bertNormalizer, bertPreTokenizer, bertProcessing } =
  createRequire(import.meta.url)('tokenizers');

async function referenceTokenizer() {
  const dir = mkdtempSync(join(tmpdir(), 'pairs-test-'));
  try {
    const entries = Array.from({ length: engine.shape.vocab }, (_, id) => engine.token(id));
    writeFileSync(join(dir, 'vocab.txt'), entries.join('\n') + '\n');
    const model = await WordPiece.fromFile(join(dir, 'vocab.txt'), {
      unkToken: '[UNK]', continuingSubwordPrefix: '##', maxInputCharsPerWord: 100,
    });
    const tokenizer = new Tokenizer(model);
    tokenizer.setNormalizer(bertNormalizer({ cleanText: true, handleChineseChars: true, stripAccents: true, lowercase: true }));
    tokenizer.setPreTokenizer(bertPreTokenizer());
    tokenizer.setPostProcessor(bertProcessing(['[SEP]', tokenizer.tokenToId('[SEP]')], ['[CLS]', tokenizer.tokenToId('[CLS]')]));
    tokenizer.addSpecialTokens(['[CLS]', '[SEP]', '[MASK]', '[PAD]', '[UNK]']);
    tokenizer.setTruncation(engine.shape.maxPositions);
    return tokenizer;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A text of `pieces` word pieces, varied so that a wrong cut shows in the ids. */
function words(pieces, seed) {
  const vocabulary = ['river', 'stone', 'green', 'quiet', 'market', 'lantern', 'seven', 'north', 'é', '東'];
  return Array.from({ length: pieces }, (_, i) => vocabulary[(i * 7 + seed) % vocabulary.length]).join(' ');
}

// Piece counts of A and B around each branch of the cut: one segment empty, the shorter kept
// whole, both cut to half (odd piece to the longer, or to B on a tie), and segments longer
// than the model itself (the reference caps each at max_positions before it compares them).
const CUT_CASES = [[0, 600], [600, 0], [510, 0], [0, 510], [1, 600], [100, 600], [600, 100], [254, 300],
  [300, 254], [254, 255], [255, 254], [255, 300], [300, 255], [255, 255], [256, 256], [300, 300], [509, 509],
  [510, 509], [509, 510], [510, 511], [511, 510], [512, 511], [511, 512], [512, 512], [512, 513], [513, 512],
  [600, 601], [601, 600], [700, 510], [510, 700]];

test('pairs past the model positions: cut longest-first exactly as the reference cuts them', async () => {
  const reference = await referenceTokenizer();
  const session = engine.createSession();
  for (const [a, b] of CUT_CASES) {
    const textA = words(a, 1), textB = words(b, 4);
    const theirs = await reference.encode(textA, textB);
    const ours = session.runPair(textA, textB);
    const label = `A ${a} pieces, B ${b} pieces`;
    assert.deepEqual(ours.ids, theirs.getIds(), label);
    assert.deepEqual(ours.typeIds, theirs.getTypeIds(), label);
    assert.deepEqual(ours.offsets, theirs.getOffsets(), label);
    assert.equal(ours.fullLength, a + b + 3, label);
    assert.equal(ours.truncated, a + b + 3 > engine.shape.maxPositions, label);
  }
  session.destroy();
});
