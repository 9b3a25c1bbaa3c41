#!/usr/bin/env node
// Writes c/spec.h, the C side of c/spec.mjs (the weights format and the wasm boundary).
//   node tools/gen-spec.mjs           writes c/spec.h
//   node tools/gen-spec.mjs --check   exits 1 when c/spec.h is not what c/spec.mjs gives
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as spec from '../c/spec.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SPEC_H = path.join(root, 'c/spec.h');

/** fileSize → FILE_SIZE, cls-sink → CLS_SINK, maxPositions → MAX_POSITIONS. */
export const upperSnake = (name) => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/-/g, '_').toUpperCase();

const cString = (text) => JSON.stringify(text);  // the messages are ASCII apart from UTF-8 text C takes as is

function enumBlock(lines, { name = '', comment = '' } = {}) {
  const width = Math.max(...lines.map(([id]) => id.length));
  const body = lines.map(([id, value, note]) => {
    const entry = value === undefined ? `    ${id},` : `    ${id.padEnd(width)} = ${value},`;
    return note ? `${entry}  /* ${note} */` : entry;
  });
  return [...(comment ? [`/* ${comment} */`] : []), `enum${name ? ` ${name}` : ''} {`, ...body, '};', ''];
}

/** int8 → WEIGHTS_INT8_QMAX, int16Lookup → WEIGHTS_INT16_QMAX_LOOKUP. */
const qmaxName = (key) => {
  const [, precision, use] = /^(int\d+)(.*)$/.exec(key);
  return `WEIGHTS_${upperSnake(precision)}_QMAX${use ? `_${upperSnake(use)}` : ''}`;
};

function fieldOffsets(prefix, fields, what) {
  return enumBlock(fields.map((f) => [`${prefix}_${upperSnake(f.name)}`, f.offset, f.type === 'bytes' ? `u8[${f.bytes}]` : f.type]),
    { comment: `Byte offsets of the fields of ${what} (little-endian).` });
}

function planMacro(macro, tensors) {
  const rows = tensors.map((t) => {
    const [rows, cols] = t.dims.map(upperSnake);
    return `    X(${cString(t.name)}, ${t.kind === 'matrix' ? 'MATRIX' : 'VECTOR'}, ${rows}, ${cols}, ${t.field}, ${upperSnake(t.needed)})`;
  });
  return [`#define ${macro}(X) \\`, ...rows.map((r, i) => (i + 1 < rows.length ? `${r} \\` : r)), ''];
}

function boundary(name, { type, each, fields }) {
  const prefix = `ATTN_${upperSnake(name)}`;
  return enumBlock([...fields.map((f) => [`${prefix}_${upperSnake(f)}`]), [`${prefix}_COUNT`]],
    { comment: `${name}: ${type}[${fields.length}]${each ? `[${each}]` : ''}, in this order.` });
}

export function generate() {
  const statusName = (s) => (s.weights ? `WEIGHTS_ERR_${s.c ?? s.name}` : `ATTN_ERR_${s.c ?? s.name}`);
  const weightsStatuses = spec.STATUSES.filter((s) => s.code === 0 || s.weights);
  const attnStatuses = spec.STATUSES.filter((s) => s.code === 0 || !s.weights);
  return [
    '/* Generated from c/spec.mjs by tools/gen-spec.mjs: do not edit. Change c/spec.mjs and run',
    ' * `node tools/gen-spec.mjs` (`make test` checks that this file is what it gives).',
    ' * The weights file format (weights/FORMAT.md) and the arrays of the wasm boundary (attn.h). */',
    '#ifndef ATTN_SPEC_H',
    '#define ATTN_SPEC_H',
    '',
    '/* ------------------------------------------------------------------ the file */',
    '',
    `#define WEIGHTS_MAGIC ${cString(spec.MAGIC)}`,
    `#define WEIGHTS_LAYER_PREFIX ${cString(spec.LAYER_PREFIX)}`,
    '',
    ...enumBlock([
      ['WEIGHTS_FORMAT_VERSION', spec.FORMAT_VERSION],
      ['WEIGHTS_UNCASED_FORMAT_VERSION', spec.UNCASED_FORMAT_VERSION, 'the 128-byte header, BERT uncased implied'],
      ['WEIGHTS_OLD_FORMAT_VERSION', spec.OLD_FORMAT_VERSION, 'two int8 planes per matrix: refused with its own status'],
      ['WEIGHTS_HEADER_SIZE', spec.HEADER_SIZE],
      ['WEIGHTS_TOKENIZER_HEADER_SIZE', spec.TOKENIZER_HEADER_SIZE, 'version 3: the header with the tokenizer settings'],
      ['WEIGHTS_SUBWORD_PREFIX_SIZE', spec.SUBWORD_PREFIX_SIZE, 'the continuing-subword prefix, NUL-padded'],
      ['WEIGHTS_ENTRY_SIZE', spec.ENTRY_SIZE, 'a tensor table entry'],
      ['WEIGHTS_PART_ENTRY_SIZE', spec.PART_ENTRY_SIZE, 'a part table entry'],
      ['WEIGHTS_NAME_SIZE', spec.NAME_SIZE, 'a tensor name, NUL-padded'],
      ['WEIGHTS_ALIGN', spec.ALIGN, 'every tensor array, and the buffer in memory'],
      ['WEIGHTS_CHECKSUM_OFFSET', spec.CHECKSUM_OFFSET, 'read as zero when the head checksum is computed'],
    ]),
    ...fieldOffsets('HEADER', spec.HEADER_FIELDS, 'the header'),
    ...fieldOffsets('HEADER', spec.TOKENIZER_FIELDS, 'version 3\'s tokenizer settings, after the header'),
    ...enumBlock(Object.entries(spec.TOKENIZER_FLAGS).map(([k, v]) => [`TOKENIZER_FLAG_${upperSnake(k)}`, v]),
      { comment: 'Bits of the tokenizer_flags header field (version 3).' }),
    ...fieldOffsets('ENTRY', spec.ENTRY_FIELDS, 'a tensor table entry'),
    ...fieldOffsets('PART', spec.PART_FIELDS, 'a part table entry'),
    ...enumBlock(Object.entries(spec.KINDS).map(([k, v]) => [`WEIGHTS_KIND_${upperSnake(k)}`, v]),
      { comment: 'Tensor kinds (an entry\'s kind).' }),
    ...enumBlock(Object.entries(spec.QMAX).map(([k, v]) => [qmaxName(k), v]),
      { comment: 'Bounds on |q| the converter writes (an int16 matrix\'s own qmax is in its entry).' }),
    ...enumBlock(spec.LIMITS.map((l) => [l.c, l.value, l.name]), { comment: 'The model shapes the engine runs: the largest, and the fewest positions.' }),
    ...enumBlock([...Object.keys(spec.SPECIAL).map((key) => [`SPECIAL_${upperSnake(key)}`]), ['SPECIAL_COUNT']],
      { name: 'special_token', comment: 'The special tokens by name (c/spec.mjs SPECIAL), in the order of SPECIAL_TOKEN_NAMES.' }),
    `#define SPECIAL_TOKEN_NAMES {${spec.SPECIAL_TOKENS.map(cString).join(', ')}}`,
    '',
    '/* ------------------------------------------------------------------ the tensor plan',
    ' * In table order: the embeddings, each layer\'s tensors (named WEIGHTS_LAYER_PREFIX, the layer',
    ' * index, ".", the name), the MLM head. X(name, kind, rows, cols, model.h field, role): kind',
    ' * MATRIX or VECTOR, rows and cols a weights_dim (a vector is ONE × its length), role a',
    ' * weights_role (what the array is needed for). */',
    '',
    ...enumBlock(spec.DIMS.map((d) => [`WEIGHTS_DIM_${upperSnake(d)}`]), { name: 'weights_dim' }),
    ...enumBlock([
      ['WEIGHTS_EMBEDDING_TENSOR_COUNT', spec.EMBEDDING_TENSORS.length],
      ['WEIGHTS_LAYER_TENSOR_COUNT', spec.LAYER_TENSORS.length],
      ['WEIGHTS_MLM_HEAD_TENSOR_COUNT', spec.MLM_HEAD_TENSORS.length],
    ]),
    ...planMacro('WEIGHTS_EMBEDDING_TENSORS', spec.EMBEDDING_TENSORS),
    ...planMacro('WEIGHTS_LAYER_TENSORS', spec.LAYER_TENSORS),
    ...planMacro('WEIGHTS_MLM_HEAD_TENSORS', spec.MLM_HEAD_TENSORS),
    '/* The model card\'s keys, in c/spec.mjs\'s order. */',
    `#define CARD_KEY_NAMES {${spec.CARD_KEYS.map((k) => cString(k.name)).join(', ')}}`,
    `#define CARD_POSITIONAL_SHARE ${spec.POSITIONAL_SHARE}`,
    `#define CARD_SINK_MASS ${spec.SINK_MASS}`,
    `#define CARD_LOW_MLM_ACCURACY ${spec.LOW_MLM_ACCURACY}`,
    '',
    '/* ------------------------------------------------------------------ status codes */',
    '',
    'typedef enum {',
    ...weightsStatuses.map((s) => `    ${s.code === 0 ? 'WEIGHTS_OK' : statusName(s)} = ${s.code},`),
    '} weights_status;',
    '',
    ...enumBlock(attnStatuses.map((s) => [s.code === 0 ? 'ATTN_OK' : statusName(s), s.code]),
      { comment: 'The engine\'s own codes (1 … 19 are the weights_status codes).' }),
    ...enumBlock([['WEIGHTS_STATUS_END', spec.ENGINE_STATUS_FIRST, 'weights_status codes lie below it']]),
    '/* The English message of a status code (every code above), NULL for any other number. */',
    'static inline const char *status_message_of(int status)',
    '{',
    '    switch (status) {',
    ...spec.STATUSES.map((s) => `    case ${s.code}: return ${cString(s.message)};`),
    '    }',
    '    return 0;',
    '}',
    '',
    `#define UNKNOWN_STATUS_MESSAGE ${cString(spec.UNKNOWN_STATUS_MESSAGE)}`,
    '',
    '/* ------------------------------------------------------------------ arrays read across the boundary */',
    '',
    ...Object.entries(spec.BOUNDARY).flatMap(([name, b]) => boundary(name, b)),
    ...enumBlock(spec.ROLE_BITS.map((r, i) => [`ROLE_${upperSnake(r.name)}`, `1 << ${i}`, r.doc]),
      { name: 'head_role', comment: 'Bits of attn_session_head_roles\'s result (analysis.h head_roles).' }),
    '#endif',
    '',
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = generate();
  if (process.argv.includes('--check')) {
    let current = '';
    try { current = readFileSync(SPEC_H, 'utf8'); } catch { /* missing: stale */ }
    if (current !== text) {
      console.error('gen-spec: c/spec.h is not what c/spec.mjs gives: run `node tools/gen-spec.mjs` and commit c/spec.h');
      process.exit(1);
    }
    console.log('gen-spec: c/spec.h is up to date');
  } else {
    writeFileSync(SPEC_H, text);
    console.log('gen-spec: wrote c/spec.h');
  }
}
