#!/usr/bin/env node
// Generates c/unicode_tables.c and c/unicode_tables.h for the BERT tokenizer from the
// Unicode Character Database files of Debian's `unicode-data` package.
//
//   node tools/gen_unicode_tables.mjs [/usr/share/unicode] [output dir, default c/]
//
// Deterministic: the output depends only on the input files.
//
// The reference tokenizer (Hugging Face `tokenizers`) reads three Unicode versions at once, and
// so do these tables; each cut below was found by running every code point through the
// reference (tests/tokenizer-exhaustive.test.mjs) and is the only one under which all match:
// - General categories (Cc/Cf/Co, Mn, P*) as in Unicode 8.0: the Rust crate
//   `unicode_categories` 0.1.1 predates 9.0, so a character assigned in 9.0 or later belongs
//   to none of its categories (a 9.0 cut leaves 155 code points different: Adlam, Newa,
//   Bhaiksuki, Marchen, Glagolitic supplement marks and punctuation, U+2E43, U+2E44...; a 7.0
//   cut, 178). Six characters assigned by 8.0 changed category later; CATEGORY_IN_8_0 restores
//   them (each one differs without it).
// - Canonical decompositions and combining classes as in Unicode 9.0
//   (`unicode-normalization-alignments` 0.1.12): a mark assigned in 10.0 or later is a
//   starter there, so it is not reordered before an older mark of lower class (the current
//   data leaves 108 code points different before U+0334, an 8.0 cut 63).
// - White_Space and lowercase mappings from the current files (Rust std, recent Unicode), and
//   the case pairs of Unicode 16.0 and 17.0 that Debian's UCD 15.0 lacks (LOWERCASE_SINCE_15):
//   the Rust std the reference is built with lowercases them (a lowercasing setting with a
//   vocabulary that holds the small letters shows it: 55 code points differ without them,
//   tests/tokenizer-exhaustive.test.mjs).

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CATEGORY_MAX_AGE = [8, 0];
const NORMALIZATION_MAX_AGE = [9, 0];
const CATEGORY_IN_8_0 = new Map([
  [0x166D, 'Po'],  // CANADIAN SYLLABICS CHI SIGN: So since 12.0
  [0x1734, 'Mn'],  // HANUNOO SIGN PAMUDPOD: Mc since 14.0
  [0xA9BD, 'Mc'],  // JAVANESE CONSONANT SIGN KERET: Mn since 12.0
  [0x111C9, 'Po'], // SHARADA SANDHI MARK: Mn since 11.0
  [0x1885, 'Lo'],  // MONGOLIAN LETTER ALI GALI BALUDA: Mn since 9.0
  [0x1886, 'Lo'],  // MONGOLIAN LETTER ALI GALI THREE BALUDA: Mn since 9.0
]);

const ucdDir = process.argv[2] || '/usr/share/unicode';
const outDir = process.argv[3] || new URL('../c/', import.meta.url).pathname;

function readLines(name) {
  return readFileSync(join(ucdDir, name), 'utf8')
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter((line) => line.length > 0);
}

function parseHex(text) {
  return parseInt(text, 16);
}

function parseCodeRange(field) {
  const [first, last] = field.trim().split('..');
  return [parseHex(first), parseHex(last ?? first)];
}

function readUnicodeData() {
  const records = [];
  let rangeFirst = null;
  for (const line of readLines('UnicodeData.txt')) {
    const fields = line.split(';');
    const code = parseHex(fields[0]);
    const record = {
      code,
      category: fields[2],
      ccc: parseInt(fields[3], 10),
      decomposition: fields[5],
      lowercase: fields[13],
    };
    if (fields[1].endsWith(', First>')) {
      rangeFirst = code;
      continue;
    }
    if (fields[1].endsWith(', Last>')) {
      for (let c = rangeFirst; c <= code; c++) records.push({ ...record, code: c, decomposition: '', lowercase: '' });
      rangeFirst = null;
      continue;
    }
    records.push(record);
  }
  return records;
}

function readAges() {
  const ages = new Map();
  for (const line of readLines('DerivedAge.txt')) {
    const [range, age] = line.split(';').map((s) => s.trim());
    const [first, last] = parseCodeRange(range);
    const version = age.split('.').map(Number);
    for (let c = first; c <= last; c++) ages.set(c, version);
  }
  return ages;
}

function readProperty(fileName, property) {
  const codes = [];
  for (const line of readLines(fileName)) {
    const [range, name] = line.split(';').map((s) => s.trim());
    if (name !== property) continue;
    const [first, last] = parseCodeRange(range);
    for (let c = first; c <= last; c++) codes.push(c);
  }
  return codes;
}

function ageAtMost(version, max) {
  return version !== undefined && (version[0] < max[0] || (version[0] === max[0] && version[1] <= max[1]));
}

function toRanges(codes) {
  const sorted = [...new Set(codes)].sort((a, b) => a - b);
  const ranges = [];
  for (const c of sorted) {
    const last = ranges[ranges.length - 1];
    if (last && last[1] + 1 === c) last[1] = c;
    else ranges.push([c, c]);
  }
  return ranges;
}

function canonicalDecompositions(records) {
  const single = new Map();
  for (const r of records) {
    if (r.decomposition && !r.decomposition.startsWith('<')) {
      single.set(r.code, r.decomposition.split(' ').map(parseHex));
    }
  }
  const full = (code) => (single.has(code) ? single.get(code).flatMap(full) : [code]);
  return [...single.keys()].sort((a, b) => a - b).map((code) => [code, full(code)]);
}

// Case pairs assigned after Unicode 15.0, added when the data files do not have them.
const LOWERCASE_SINCE_15 = [
  [0x1C89, 0x1C8A], [0xA7CB, 0x0264], [0xA7CC, 0xA7CD], [0xA7DA, 0xA7DB], [0xA7DC, 0x019B],  // 16.0
  ...Array.from({ length: 0x10D65 - 0x10D50 + 1 }, (_, i) => [0x10D50 + i, 0x10D70 + i]),     // 16.0 Garay
  [0xA7CE, 0xA7CF], [0xA7D2, 0xA7D3], [0xA7D4, 0xA7D5],                                        // 17.0
  ...Array.from({ length: 0x16EB8 - 0x16EA0 + 1 }, (_, i) => [0x16EA0 + i, 0x16EBB + i]),     // 17.0 Beria Erfe
];

function lowercaseMappings(records) {
  const lower = new Map();
  for (const r of records) {
    if (r.lowercase) lower.set(r.code, [parseHex(r.lowercase)]);
  }
  for (const line of readLines('SpecialCasing.txt')) {
    const fields = line.split(';').map((s) => s.trim());
    const hasCondition = fields.length > 4 && fields[4] !== '';
    if (hasCondition) continue;
    const code = parseHex(fields[0]);
    const mapped = fields[1].split(' ').map(parseHex);
    if (mapped.length === 1 && mapped[0] === code) lower.delete(code);
    else lower.set(code, mapped);
  }
  const assigned = new Set(records.map((r) => r.code));
  for (const [code, small] of LOWERCASE_SINCE_15) if (!assigned.has(code) && !lower.has(code)) lower.set(code, [small]);
  return [...lower.keys()].sort((a, b) => a - b).map((code) => [code, lower.get(code)]);
}

function combiningClassRanges(records) {
  const ranges = [];
  for (const r of records.filter((x) => x.ccc !== 0).sort((a, b) => a.code - b.code)) {
    const last = ranges[ranges.length - 1];
    if (last && last[1] + 1 === r.code && last[2] === r.ccc) last[1] = r.code;
    else ranges.push([r.code, r.code, r.ccc]);
  }
  return ranges;
}

const hex = (c) => '0x' + c.toString(16).toUpperCase().padStart(4, '0');

function emitRows(items, perLine, format) {
  const lines = [];
  for (let i = 0; i < items.length; i += perLine) {
    lines.push('    ' + items.slice(i, i + perLine).map(format).join(' '));
  }
  return lines.join('\n');
}

function emitRangeTable(name, ranges) {
  return `const unicode_range ${name}[] = {\n` +
    emitRows(ranges, 4, ([a, b]) => `{${hex(a)}, ${hex(b)}},`) +
    `\n};\nconst size_t ${name}_count = ${ranges.length};\n`;
}

function emitMappingTable(name, mappings) {
  const pool = [];
  const entries = mappings.map(([code, seq]) => {
    const entry = [code, pool.length, seq.length];
    pool.push(...seq);
    return entry;
  });
  if (pool.length > 0xffff) throw new Error(`${name}: pool too large`);
  return `const uint32_t ${name}_pool[] = {\n` +
    emitRows(pool, 8, (c) => `${hex(c)},`) +
    `\n};\nconst unicode_mapping ${name}[] = {\n` +
    emitRows(entries, 4, ([c, start, len]) => `{${hex(c)}, ${start}, ${len}},`) +
    `\n};\nconst size_t ${name}_count = ${entries.length};\n`;
}

function emitClassTable(name, ranges) {
  return `const unicode_class_range ${name}[] = {\n` +
    emitRows(ranges, 4, ([a, b, k]) => `{${hex(a)}, ${hex(b)}, ${k}},`) +
    `\n};\nconst size_t ${name}_count = ${ranges.length};\n`;
}

const UCD_VERSION = readFileSync(join(ucdDir, 'DerivedAge.txt'), 'utf8').match(/DerivedAge-([\d.]+)\.txt/)[1];

const HEADER_NOTE = `/* GENERATED FILE, do not edit: node tools/gen_unicode_tables.mjs (from Debian's unicode-data,
 * /usr/share/unicode, UCD ${UCD_VERSION}). As in the reference tokenizer: category tables
 * (Cc Cf Co, Mn, P*) follow Unicode ${CATEGORY_MAX_AGE.join('.')}, decompositions and combining classes Unicode ${NORMALIZATION_MAX_AGE.join('.')},
 * White_Space and lowercase mappings the current data files, with the case pairs of 16.0 and 17.0. */`;

function headerText() {
  return `${HEADER_NOTE}
#ifndef ATTN_UNICODE_TABLES_H
#define ATTN_UNICODE_TABLES_H

#include <stddef.h>
#include <stdint.h>

typedef struct { uint32_t first, last; } unicode_range;                 /* inclusive, sorted */
typedef struct { uint32_t first, last; uint8_t value; } unicode_class_range;
typedef struct { uint32_t code; uint16_t start, length; } unicode_mapping; /* into *_pool */

extern const unicode_range unicode_other[];              /* Cc, Cf, Co */
extern const size_t unicode_other_count;
extern const unicode_range unicode_nonspacing_mark[];    /* Mn */
extern const size_t unicode_nonspacing_mark_count;
extern const unicode_range unicode_punctuation[];        /* Pc Pd Ps Pe Pi Pf Po */
extern const size_t unicode_punctuation_count;
extern const unicode_range unicode_white_space[];        /* White_Space property */
extern const size_t unicode_white_space_count;
extern const unicode_class_range unicode_combining_class[]; /* non-zero only */
extern const size_t unicode_combining_class_count;
extern const unicode_mapping unicode_decomposition[];    /* full canonical, excluding Hangul */
extern const uint32_t unicode_decomposition_pool[];
extern const size_t unicode_decomposition_count;
extern const unicode_mapping unicode_lowercase[];        /* full lowercase mapping */
extern const uint32_t unicode_lowercase_pool[];
extern const size_t unicode_lowercase_count;

#endif
`;
}

function sourceText(records, ages) {
  const categoryThen = (r) => CATEGORY_IN_8_0.get(r.code) ?? r.category;
  const inCategory = (prefixes) => records
    .filter((r) => prefixes.some((p) => categoryThen(r).startsWith(p)) && ageAtMost(ages.get(r.code), CATEGORY_MAX_AGE))
    .map((r) => r.code);
  const normalizationRecords = records.filter((r) => ageAtMost(ages.get(r.code), NORMALIZATION_MAX_AGE));
  return [
    HEADER_NOTE,
    '#include "unicode_tables.h"\n',
    emitRangeTable('unicode_other', toRanges(inCategory(['Cc', 'Cf', 'Co']))),
    emitRangeTable('unicode_nonspacing_mark', toRanges(inCategory(['Mn']))),
    emitRangeTable('unicode_punctuation', toRanges(inCategory(['P']))),
    emitRangeTable('unicode_white_space', toRanges(readProperty('PropList.txt', 'White_Space'))),
    emitClassTable('unicode_combining_class', combiningClassRanges(normalizationRecords)),
    emitMappingTable('unicode_decomposition', canonicalDecompositions(normalizationRecords)),
    emitMappingTable('unicode_lowercase', lowercaseMappings(records)),
  ].join('\n');
}

const records = readUnicodeData();
const ages = readAges();
writeFileSync(join(outDir, 'unicode_tables.h'), headerText());
writeFileSync(join(outDir, 'unicode_tables.c'), sourceText(records, ages));
