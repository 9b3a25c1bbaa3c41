// The corrupt-weights matrix shared by tests/robustness.test.mjs (the engine in Node and the
// native CLI) and tests/browser/run.mjs (the page): every way a weights file (format version 2,
// read by c/weights.c) can be wrong, built from the good file, with the engine status code each
// must give and the engine's fixed message for it.

import {
  ENTRY_FIELDS, ENTRY_SIZE, FORMAT_VERSION, HEADER_FIELDS, HEADER_SIZE, KINDS, PART_ENTRY_SIZE, PART_FIELDS, STATUSES,
} from '../../c/spec.mjs';
import { crc32 } from '../../weights/crc32.mjs';
import { scriptGroups } from '../../weights/asset-scripts.mjs';

export { crc32 };

const offsets = (fields) => Object.fromEntries(fields.map((f) => [f.name, f.offset]));

/** Byte offsets of header fields, and inside a tensor table entry and a part table entry (c/spec.mjs). */
export const AT = offsets(HEADER_FIELDS);
export const ENTRY = { size: ENTRY_SIZE, ...offsets(ENTRY_FIELDS) };
export const PART = { size: PART_ENTRY_SIZE, ...offsets(PART_FIELDS) };

/** The engine's message for each status code (c/spec.mjs, through c/spec.h into the C side). */
export const MESSAGES = Object.fromEntries(STATUSES.filter((s) => s.code !== 0).map((s) => [s.code, s.message]));

const u64 = (buf, at) => Number(buf.readBigUInt64LE(at));

/** The part table: [{ at (of the entry), offset, bytes }]. */
export function partsOf(buf) {
  const table = u64(buf, AT.partsOffset);
  return Array.from({ length: buf.readUInt32LE(AT.partCount) }, (_, i) => {
    const at = table + i * PART.size;
    return { at, offset: u64(buf, at + PART.offset), bytes: buf.readUInt32LE(at + PART.bytes) };
  });
}

/**
 * Recomputes every checksum the file holds: each part's CRC-32 (in the part table), then the
 * head's (the first head_bytes with the checksum field read as zero). Parts that do not lie
 * inside the buffer are left as they are.
 */
export function rechecksum(buf) {
  const head = u64(buf, AT.headBytes);
  if (head < HEADER_SIZE || head > buf.length) return buf;
  const table = u64(buf, AT.partsOffset);
  if (table + buf.readUInt32LE(AT.partCount) * PART.size <= head) {
    for (const { at, offset, bytes } of partsOf(buf)) {
      if (offset + bytes <= buf.length) buf.writeUInt32LE(crc32(buf, offset, offset + bytes), at + PART.crc);
    }
  }
  buf.writeUInt32LE(0, AT.headChecksum);
  buf.writeUInt32LE(crc32(buf, 0, head), AT.headChecksum);
  return buf;
}

/** The table entry offset of a tensor, by name. */
export function entryOf(buf, name) {
  const table = u64(buf, AT.tableOffset);
  for (let i = 0; i < buf.readUInt32LE(AT.tensorCount); i++) {
    const at = table + i * ENTRY.size;
    if (buf.toString('latin1', at + ENTRY.name, at + ENTRY.kind).replace(/\0+$/, '') === name) return at;
  }
  throw new Error(`no tensor ${name} in the weights file`);
}

/**
 * The matrix for a good weights file (a Buffer): [{ name, code, make }], where make() builds
 * that case's bytes (a Buffer; the truncations are views of `weights`, the edits copies).
 * Built on demand, so a caller can hold one variant at a time.
 */
export function corruptWeightsCases(weights) {
  const vocabStart = u64(weights, AT.vocabOffset);
  const vocabEnd = vocabStart + u64(weights, AT.vocabBytes);
  const cardStart = weights.readUInt32LE(AT.cardOffset);
  const cardEnd = cardStart + weights.readUInt32LE(AT.cardBytes);
  const tableStart = u64(weights, AT.tableOffset);
  const tableEnd = tableStart + u64(weights, AT.tableBytes);
  const partsStart = u64(weights, AT.partsOffset);
  const head = u64(weights, AT.headBytes);
  const parts = partsOf(weights);
  const [mlmPart, firstWordPart] = parts;
  const query = 'bert.encoder.layer.0.attention.self.query.weight';
  const queryData = u64(weights, entryOf(weights, query) + ENTRY.dataOffset);

  const edited = (edit, { checksum = true } = {}) => () => {
    const copy = Buffer.from(weights);
    edit(copy);
    return checksum ? rechecksum(copy) : copy;
  };
  const vocabLineOffset = (buf, token) => {
    const at = buf.indexOf(`\n${token}\n`, vocabStart - 1, 'latin1');
    if (!(at >= vocabStart - 1 && at < vocabEnd)) throw new Error(`${token} is not in the vocabulary`);
    return at + 1;
  };
  const cut = (at) => () => weights.subarray(0, at);
  const partEntry = (buf, i) => partsOf(buf)[i];

  return [
    ['empty file', () => Buffer.alloc(0), 1],
    ['cut at byte 1', cut(1), 1],
    [`cut inside the header (${HEADER_SIZE / 2})`, cut(HEADER_SIZE / 2), 1],
    [`cut at the last header byte (${HEADER_SIZE - 1})`, cut(HEADER_SIZE - 1), 1],
    [`cut right after the header (${HEADER_SIZE})`, cut(HEADER_SIZE), 4],
    ['cut inside the vocabulary', cut(Math.floor((vocabStart + vocabEnd) / 2)), 4],
    ['cut at the end of the vocabulary', cut(vocabEnd), 4],
    ['cut inside the model card', cut(Math.floor((cardStart + cardEnd) / 2)), 4],
    ['cut inside the tensor table', cut(Math.floor((tableStart + tableEnd) / 2)), 4],
    ['cut inside the part table', cut(partsStart + 8), 4],
    ['cut inside the tensor data', cut(queryData + 1000), 4],
    ['cut at the end of the head', cut(head), 4],
    ['cut inside the MLM part', cut(mlmPart.offset + 100), 4],
    ['cut inside the word embeddings', cut(Math.floor((firstWordPart.offset + weights.length) / 2)), 4],
    ['cut before the last byte', cut(weights.length - 1), 4],
    ['bad magic', edited((b) => b.write('GPT2INT8', 0, 'latin1'), { checksum: false }), 2],
    ['format version 1 (two int8 planes per matrix)', edited((b) => b.writeUInt32LE(1, AT.version), { checksum: false }), 11],
    [`another format version (${FORMAT_VERSION + 1})`, edited((b) => b.writeUInt32LE(FORMAT_VERSION + 1, AT.version), { checksum: false }), 3],
    ['another format version, re-checksummed', edited((b) => b.writeUInt32LE(7, AT.version)), 3],
    ['head_bytes past the end of the file', edited((b) => b.writeBigUInt64LE(BigInt(b.length + 16), AT.headBytes)), 3],
    ['checksum mismatch: checksum field changed', edited((b) => { b[AT.headChecksum] ^= 1; }, { checksum: false }), 5],
    ['checksum mismatch: a byte of the head flipped', edited((b) => { b[queryData + 77] ^= 0x04; }, { checksum: false }), 5],
    ['checksum mismatch: a byte of the MLM part flipped', edited((b) => { b[mlmPart.offset + 300] ^= 0x20; }, { checksum: false }), 5],
    ['checksum mismatch: one data byte flipped', edited((b) => { b[b.length - 1000] ^= 0x55; }, { checksum: false }), 5],
    ['checksum mismatch: a part CRC changed', edited((b) => { b[partEntry(b, 1).at + PART.crc] ^= 1; }, { checksum: false }), 5],
    ['wrong shape: 3 heads for hidden 256', edited((b) => b.writeUInt32LE(3, AT.heads)), 6],
    ['wrong shape: 13 heads', edited((b) => b.writeUInt32LE(13, AT.heads)), 6],
    ['wrong shape: hidden disagrees with the tensors', edited((b) => b.writeUInt32LE(260, AT.hidden)), 7],
    ['tensor table: misaligned offset', edited((b) => b.writeBigUInt64LE(BigInt(queryData + 1), entryOf(b, query) + ENTRY.dataOffset)), 7],
    ['tensor table: a matrix of kind 3 (two planes)', edited((b) => b.writeUInt32LE(3, entryOf(b, query) + ENTRY.kind)), 7],
    ['tensor table: int8 qmax not 127', edited((b) => b.writeUInt32LE(126, entryOf(b, query) + ENTRY.qmax)), 7],
    ['tensor table: two matrices on the same bytes', edited((b) => b.writeBigUInt64LE(BigInt(queryData),
      entryOf(b, 'bert.encoder.layer.0.attention.self.key.weight') + ENTRY.dataOffset)), 7],
    ['part table: a gap between two parts', edited((b) => {
      const p = partEntry(b, 2);
      b.writeBigUInt64LE(BigInt(p.offset + 16), p.at + PART.offset);
      b.writeUInt32LE(p.bytes - 16, p.at + PART.bytes);
    }), 7],
    ['part table: one part too few', edited((b) => b.writeUInt32LE(parts.length - 1, AT.partCount)), 7],
    ['part table: the last part runs past the end', edited((b) => {
      const p = partEntry(b, parts.length - 1);
      b.writeUInt32LE(p.bytes + 16, p.at + PART.bytes);
    }), 7],
    ['model card without its closing NUL', edited((b) => { b[cardEnd - 1] = 0x20; }), 7],
    ['model card with a NUL inside', edited((b) => { b[cardStart + 1] = 0; }), 7],
    ['vocab line count below the header', edited((b) => b.writeUInt32LE(b.readUInt32LE(AT.vocabSize) + 1, AT.vocabSize)), 8],
    ['vocab line count above the header', edited((b) => { b[vocabLineOffset(b, 'the') + 1] = 0x0a; }), 8],
    ['one byte appended', () => rechecksum(Buffer.concat([weights, Buffer.alloc(1)])), 10],
    ['[MASK] missing from the vocabulary', edited((b) => { b[vocabLineOffset(b, '[MASK]') + 4] = 0x58; }), 21],
  ].map(([name, make, code]) => ({ name, make, code }));
}

/**
 * The part holding token `id`'s word-embedding row (weights/FORMAT.md: the rows lie in parts
 * 1…, whole rows, in vocabulary order).
 */
export function partOfToken(buf, id) {
  const entry = entryOf(buf, 'bert.embeddings.word_embeddings.weight');
  const rowBytes = buf.readUInt32LE(entry + ENTRY.cols) * (buf.readUInt32LE(entry + ENTRY.kind) === KINDS.int16 ? 2 : 1);
  const offset = u64(buf, entry + ENTRY.dataOffset) + id * rowBytes;
  return partsOf(buf).findIndex((p) => offset >= p.offset && offset < p.offset + p.bytes);
}

/**
 * The file as the page reads it from file://: the head, then the parts grouped into scripts as
 * the page groups them (weights/asset-scripts.mjs scriptGroups): { head, scripts: [{ group,
 * first, last, bytes }] }, first and last the part indices a script holds.
 */
export function splitForScripts(buf) {
  const parts = partsOf(buf);
  const scripts = scriptGroups(parts.map((p) => p.bytes)).map(([first, last], group) => ({
    group, first, last, bytes: buf.subarray(parts[first].offset, parts[last].offset + parts[last].bytes),
  }));
  return { head: buf.subarray(0, u64(buf, AT.headBytes)), scripts };
}
