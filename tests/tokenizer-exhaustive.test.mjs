// node --test tests/tokenizer-exhaustive.test.mjs
// The engine's tokenizer against the reference (npm `tokenizers`, BERT uncased: clean text, CJK
// spacing, strip accents, lowercase; BERT pre-tokenizer; WordPiece over the engine's own
// vocabulary) on every Unicode scalar value, ids and offsets exactly, and the same in every other
// BertNormalizer setting the weights file stores (cased, lowercased with accents kept, cased with
// accents stripped, no Chinese-character spacing; tests/lib/tokenizer-sweep.mjs):
//  - alone: each code point is its own text;
//  - inside a word ("a" + c + "b"), between words ("a " + c + " b") and before a combining mark
//    ("a" + c + U+0334, which reveals the combining class the tokenizer gives c): thousands of
//    contexts joined by " \n " into one text, each token attributed to the context it falls in;
//  - vocabulary files with CRLF line ends and trailing whitespace: the reference reads them as
//    the plain file (the native test requires the same of the C reader, tests/native/
//    test_tokenizer.c), and small vocabularies give the ids the native test expects;
//  - c/unicode_tables.c is what tools/gen_unicode_tables.mjs gives from /usr/share/unicode.
// About 35 s of CPU for uncased, 40 s for each other setting. Needs web/dist/attn.wasm (make wasm).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './lib/node-engine.mjs';
import { testLimit } from './lib/test-limit.mjs';
import {
  CONTEXTS, Differences, MODES, compareAlone, compareInContexts, defaultEngine, engineFor, referenceTokenizer as sweepReference, scalarValues,
} from './lib/tokenizer-sweep.mjs';

const { WordPiece } = createRequire(import.meta.url)('tokenizers');
const workDir = mkdtempSync(join(tmpdir(), 'tokenizer-exhaustive-'));
process.on('exit', () => rmSync(workDir, { recursive: true, force: true }));
const { engine, vocabulary } = await defaultEngine();
/** npm `tokenizers` as the page's uncased weights file tokenizes (tests/lib/tokenizer-sweep.mjs). */
const referenceTokenizer = (vocabText, options) => sweepReference(vocabText, MODES.uncased, options);
const reference = await referenceTokenizer(vocabulary);
const describe = (ids, offsets) => ids.map((id, i) => `${id}[${offsets[i][0]},${offsets[i][1]}]`).join(' ');

test('every code point alone: same ids and offsets as the reference', async () => {
  testLimit(600);
  const codes = scalarValues();
  const differences = new Differences();
  await compareAlone(engine, reference, codes, differences);
  console.log(`alone: ${codes.length} code points, ${differences.byCode.size} differ`);
  assert.equal(differences.byCode.size, 0, differences.report('alone'));
});

// The cased settings' fourth context (after a capital, before an accent) tests case and accents
// together; uncased, the three others.
const UNCASED_CONTEXTS = Object.fromEntries(['inside a word', 'between words', 'before a combining mark'].map((name) => [name, CONTEXTS[name]]));

test('every code point inside a word, between words and before a combining mark', async () => {
  testLimit(600);
  const codes = scalarValues();
  const differences = new Differences();
  await compareInContexts(engine, reference, codes, differences, UNCASED_CONTEXTS);
  console.log(`in context: ${codes.length} code points, ${differences.byCode.size} differ`);
  assert.equal(differences.byCode.size, 0, differences.report('in context'));
});

// ---------------------------------------------------------------- the other settings

// Every code point, alone and in four contexts, in the settings the published cased BERTs use
// (bert-base-cased and mBERT: cased, accents kept; and lowercased with accents kept), uncased
// being swept above with the page's vocabulary: the engines of tests/lib/tokenizer-sweep.mjs, the
// reference with the same BertNormalizer settings. About 40 s of CPU a mode, so the two rarer
// settings are checked on the sample of tests/tokenizer-modes.test.mjs (every code point below
// U+0600, the unusual ones, one in 97 of the rest), which `make test` runs.
const SWEPT_MODES = ['cased', 'lowercased, accents kept'];
for (const [mode, settings] of Object.entries(MODES).filter(([name]) => SWEPT_MODES.includes(name))) {
  test(`${mode}: every code point alone and in context, same ids and offsets as the reference`, async () => {
    const { engine: modeEngine, vocabulary: modeVocabulary } = await engineFor(settings);
    const modeReference = await sweepReference(modeVocabulary, settings);
    const codes = scalarValues();
    const differences = new Differences();
    await compareAlone(modeEngine, modeReference, codes, differences);
    await compareInContexts(modeEngine, modeReference, codes, differences);
    console.log(`${mode}: ${codes.length} code points, ${differences.byCode.size} differ`);
    assert.equal(differences.byCode.size, 0, differences.report(mode));
    modeEngine.destroy();
  });
}

// ---------------------------------------------------------------- vocabulary files

// The same variants as tests/native/test_tokenizer.c: line i gets TRAILING_SPACE[i % kinds].
const TRAILING_SPACE = ['', ' ', '\t', ' \t ', '\r', '\u00A0', '\u3000', '\u0085', '\u2028', '\v\f', '\u2003\r'];

function vocabularyVariant(text, { trailing, crlf }) {
  const lines = text.replace(/\n$/, '').split('\n');
  return lines.map((line, i) => line + (trailing ? TRAILING_SPACE[i % TRAILING_SPACE.length] : '') +
    (crlf ? '\r\n' : '\n')).join('');
}

function readFixtures() {
  return readFileSync(`${repoRoot}tests/fixtures/tokenize.jsonl`, 'utf8').split('\n')
    .filter((line) => line.length > 0).map((line) => JSON.parse(line));
}

test('the reference reads vocabularies with CRLF and trailing whitespace as the plain file', async () => {
  const fixtures = readFixtures();
  assert.ok(fixtures.length > 1000, 'tokenize.jsonl has its lines');
  for (const variant of [{ crlf: true }, { trailing: true }, { trailing: true, crlf: true }]) {
    const tokenizer = await referenceTokenizer(vocabularyVariant(vocabulary, variant));
    const encodings = await tokenizer.encodeBatch(fixtures.map((f) => f.text));
    const differing = fixtures.filter((f, i) =>
      describe(encodings[i].getIds(), encodings[i].getOffsets()) !== describe(f.ids, f.offsets));
    assert.equal(differing.length, 0,
      `${JSON.stringify(variant)}: ${differing.length} lines differ, first: ${differing[0]?.text}`);
  }
});

// The same cases and ids as test_small_vocabularies in tests/native/test_tokenizer.c.
const SMALL_VOCABULARIES = [
  {
    vocab: '[UNK]\n[SEP]\n[PAD]\n[CLS]\n[MASK]\nhello \nworld\t\r\n##s\u3000\nx\u200B\nab\u0085\n\nq\r',
    cases: [['hello worlds', [5, 6, 7]], ['x ab q', [0, 9, 11]]],
  },
  {
    vocab: '[UNK]\n[SEP]\n[PAD]\n[CLS]\n[MASK]\nhello\nhello \n##s\nhello\u00A0\n[UNK] \n',
    cases: [['hellos', [8, 7]], ['zzz', [9]]],
  },
];

test('small vocabularies: the ids the native test expects are the reference\'s', async () => {
  for (const { vocab, cases } of SMALL_VOCABULARIES) {
    const tokenizer = await referenceTokenizer(vocab, { withSpecials: false });
    for (const [text, ids] of cases) {
      assert.deepEqual((await tokenizer.encode(text)).getIds(), ids, `${JSON.stringify(vocab)}: ${text}`);
    }
  }
  const notUtf8 = join(workDir, 'not-utf8.txt');
  writeFileSync(notUtf8, Buffer.from('[UNK]\na\xFF\n', 'latin1'));
  await assert.rejects(WordPiece.fromFile(notUtf8, { unkToken: '[UNK]' }), 'the reference refuses non-UTF-8');
});

// ---------------------------------------------------------------- generated tables

test('c/unicode_tables.c is what tools/gen_unicode_tables.mjs gives', (t) => {
  const ucd = '/usr/share/unicode';
  const committed = readFileSync(`${repoRoot}c/unicode_tables.c`, 'utf8');
  const wanted = committed.match(/UCD ([\d.]+)\)/)?.[1];
  if (!existsSync(`${ucd}/DerivedAge.txt`)) {
    t.skip(`no ${ucd} (apt-get install unicode-data)`);
    return;
  }
  const installed = readFileSync(`${ucd}/DerivedAge.txt`, 'utf8').match(/DerivedAge-([\d.]+)\.txt/)?.[1];
  if (installed !== wanted) {
    t.skip(`tables are from UCD ${wanted}, ${ucd} has ${installed}`);
    return;
  }
  const out = mkdtempSync(join(workDir, 'tables-'));
  const run = spawnSync(process.execPath, [`${repoRoot}tools/gen_unicode_tables.mjs`, ucd, out], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  for (const name of ['unicode_tables.c', 'unicode_tables.h']) {
    assert.ok(readFileSync(join(out, name), 'utf8') === readFileSync(`${repoRoot}c/${name}`, 'utf8'),
      `c/${name} differs from the generator's output: regenerate it, never edit it`);
  }
});
