#!/usr/bin/env node
// Writes the seed corpora of the tokenizer and run fuzz targets (see the input layouts at the
// top of tests/fuzz/fuzz_tokenizer.c and fuzz_run.c):
//   tests/fuzz/corpus/fuzz_tokenizer/   fixture sentences (the first 40 lines of
//       tests/fixtures/tokenize.jsonl), invalid UTF-8, special tokens, combining marks, long
//       words, small capacities, and inputs that bring their own vocabulary
//   tests/fuzz/corpus/fuzz_run/         id sequences of length 0, 1, 5, 512, 513, 600, an
//       out-of-range id, and text runs with analysis indices in and out of range
// Deterministic; re-run after changing a layout.   node tests/fuzz/make_text_seeds.mjs
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const corpus = (target) => {
  const dir = path.join(repoRoot, 'tests/fuzz/corpus', target);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
};
const bytes = (...parts) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));
const hex = (text) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

// ---------------------------------------------------------------- tokenizer
const WHOLE = 7;  // selector bits 0-2: capacity index; 7 = the whole text
const tokenizerSeeds = {};
const fixtures = fs.readFileSync(path.join(repoRoot, 'tests/fixtures/tokenize.jsonl'), 'utf8').split('\n').filter(Boolean);
fixtures.slice(0, 40).forEach((line, i) => { tokenizerSeeds[`fixture-${String(i).padStart(2, '0')}`] = bytes([WHOLE], JSON.parse(line).text); });
Object.assign(tokenizerSeeds, {
  'invalid-lone-bytes': bytes([WHOLE], hex('ff fe 80 bf c0 c1 f5 f8 fc'), ' ok'),
  'invalid-truncated-sequences': bytes([WHOLE], 'caf', hex('c3'), ' na', hex('e2 82'), ' x ', hex('f0 9f 98')),
  'invalid-surrogate-and-overlong': bytes([WHOLE], hex('ed a0 80'), ' ', hex('e0 80 af'), ' ', hex('c0 af'), ' ', hex('f4 90 80 80')),
  'bom-nul-controls': bytes([WHOLE], hex('ef bb bf'), 'The\u0000cat\u0007\u200b sat\u00ad.\r\n\t'),
  'specials': bytes([WHOLE], '[CLS] the [MASK] sat [SEP] [PAD] [UNK] [MAS [MASK]] [mask] [[SEP]]'),
  'combining-marks': bytes([WHOLE], 'a\u0301\u0316\u0345\u0360 e\u0308\u0323 \u1100\u1161\u11a8 \uac00\ud7a3 \u0958 \ufb2c'),
  'cjk-and-punctuation': bytes([WHOLE], '東京とトウキョウ、中文。\u{20000}!?¿«»—…'),
  'long-word': bytes([WHOLE], 'a'.repeat(99), ' ', 'b'.repeat(100), ' ', 'c'.repeat(101), ' unbelievably'),
  'whitespace-only': bytes([WHOLE], ' \t\n\r\u00a0\u2003\u3000'),
  'empty': bytes([WHOLE]),
  'capacity-2': bytes([0], 'The cat sat.'),
  'capacity-3': bytes([1], 'The cat sat.'),
  'capacity-5-unbelievably': bytes([3], 'unbelievably tokenization'),
  'capacity-512': bytes([6], 'word '.repeat(600)),
  'own-vocab': bytes([0x80 | WHOLE], 'a\n##b\nab\n##c\n##bc\nb\n', [0], 'abc ab abcb abx b'),
  'own-vocab-empty-lines': bytes([0x80 | 4], '\n\nx\n##\n####\n##x\n', [0], 'x xx ## x##x'),
  'own-vocab-duplicate': bytes([0x80 | WHOLE], 'a\na\n', [0], 'a'),
  'own-vocab-crlf-long': bytes([0x80 | WHOLE], 'caf\r\n##\u00e9\r\n', 'z'.repeat(300), '\n', [0], 'café ', 'z'.repeat(300)),
});

// ---------------------------------------------------------------- run
const u16 = (v) => [v & 0xff, v >> 8];
const long = (n) => u16(0xf000 + n);  // requested lengths past 24 (fuzz_run.c)
const indices = (layer, head, row, position, k) => [layer & 0xff, head & 0xff, ...u16(row & 0xffff), ...u16(position & 0xffff), ...u16(k + 2)];
const ids = (list) => list.flatMap(u16);
const RUN_TEXT = 1, ROLLOUT = 2, UNSCALED = 4, LONG_TEXT = 8;
const runSeeds = {
  'length-0': bytes(u16(0), [0]),
  'length-24': bytes(u16(24), [ROLLOUT], indices(3, 0, 23, 23, 2)),
  'length-64': bytes(long(64), [ROLLOUT], indices(3, 0, 63, 63, 2)),
  'length-1': bytes(u16(1), [ROLLOUT], ids([101]), indices(0, 0, 0, 0, 1)),
  'length-5-analyses': bytes(u16(5), [ROLLOUT | UNSCALED], ids([101, 1996, 4937, 103, 102]), indices(3, 3, 4, 3, 5)),
  'length-5-out-of-range-indices': bytes(u16(5), [ROLLOUT], ids([101, 1996, 4937, 103, 102]), indices(4, -1, 5, -1, 0)),
  'length-512': bytes(long(512), [0]),
  'length-513': bytes(long(513), [0]),
  'length-600': bytes(long(600), [0]),
  'out-of-range-id': bytes(u16(3), [0], ids([101, 0xffff, 102])),
  'text-mask': bytes(u16(0), [RUN_TEXT | ROLLOUT], indices(1, 2, 3, 6, 5), 'The cat sat on the [MASK].'),
  'text-invalid-utf8': bytes(u16(2), [RUN_TEXT], ids([101, 102]), indices(0, 0, 1, 1, 1), hex('ff'), 'caf', hex('c3 28'), ' ok'),
  'text-long': bytes(u16(0), [RUN_TEXT | LONG_TEXT], indices(3, 3, 511, 511, 3), 'word '.repeat(600)),
};

for (const [target, seeds] of [['fuzz_tokenizer', tokenizerSeeds], ['fuzz_run', runSeeds]]) {
  const dir = corpus(target);
  for (const [name, data] of Object.entries(seeds)) fs.writeFileSync(path.join(dir, name), data);
  console.log(`tests/fuzz/corpus/${target}: ${Object.keys(seeds).length} seeds`);
}
