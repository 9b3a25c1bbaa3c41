// The corrupt-weights matrix shared by tests/robustness.test.mjs (the engine in Node and the
// native CLI) and tests/browser/run.mjs (the page): every way a weights file can be wrong,
// built from the good file, with the engine status code each must give and the fixed
// messages of weights/FORMAT.md.

/** Byte offsets of header fields (weights/FORMAT.md, "Header"). */
export const AT = { version: 8, checksum: 12, fileSize: 16, tensorCount: 28, vocabOffset: 32, vocabBytes: 40,
  tableOffset: 48, tableBytes: 56, vocabSize: 64, hidden: 68, heads: 76 };

/** The engine's message for each status code (weights/FORMAT.md, c/attn.h). */
export const MESSAGES = {
  1: 'weights file is too small to hold a header (empty or cut short)',
  2: 'not a weights file (bad magic bytes; expected a file made by weights/convert.mjs)',
  3: "weights file has an unsupported format version or layout; reconvert it with this engine's weights/convert.mjs",
  4: 'weights file is truncated: it is shorter than its header says (incomplete download?)',
  5: 'weights file is corrupted: checksum mismatch',
  6: 'weights file describes a model shape this engine cannot run (not bert-mini-like)',
  7: 'weights file has an inconsistent tensor table (name, shape, size, offset or alignment)',
  8: 'weights file vocabulary does not match its header (line count or size)',
  10: 'weights file is longer than its header says (extra bytes after the end)',
  21: 'the vocabulary in the weights file is unusable (a special token is missing or an entry repeats)',
};

const CRC_TABLE = Int32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});

/** Writes the CRC-32 of the whole file (checksum field read as zero) into the header. */
export function rechecksum(buf) {
  buf.writeUInt32LE(0, AT.checksum);
  let c = -1;
  for (let i = 0; i < buf.length; i++) c = CRC_TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  buf.writeUInt32LE((c ^ -1) >>> 0, AT.checksum);
  return buf;
}

/**
 * The matrix for a good weights file (a Buffer): [{ name, code, make }], where make() builds
 * that case's bytes (a Buffer; the truncations are views of `weights`, the edits copies).
 * Built on demand, so a caller can hold one 23 MB variant at a time.
 */
export function corruptWeightsCases(weights) {
  const u64 = (buf, at) => Number(buf.readBigUInt64LE(at));
  const vocabStart = u64(weights, AT.vocabOffset);
  const vocabEnd = vocabStart + u64(weights, AT.vocabBytes);
  const tableStart = u64(weights, AT.tableOffset);
  const tableEnd = tableStart + u64(weights, AT.tableBytes);
  const dataStart = u64(weights, tableStart + 80);  // the first tensor's values

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

  return [
    ['empty file', () => Buffer.alloc(0), 1],
    ['cut at byte 1', cut(1), 1],
    ['cut inside the header (64)', cut(64), 1],
    ['cut at the last header byte (127)', cut(127), 1],
    ['cut right after the header (128)', cut(128), 4],
    ['cut inside the vocabulary', cut(Math.floor((vocabStart + vocabEnd) / 2)), 4],
    ['cut at the end of the vocabulary', cut(vocabEnd), 4],
    ['cut inside the tensor table', cut(Math.floor((tableStart + tableEnd) / 2)), 4],
    ['cut at the start of the tensor data', cut(dataStart), 4],
    ['cut inside the tensor data', cut(Math.floor(weights.length / 2)), 4],
    ['cut before the last byte', cut(weights.length - 1), 4],
    ['bad magic', edited((b) => b.write('GPT2INT8', 0, 'latin1'), { checksum: false }), 2],
    ['another format version (2)', edited((b) => b.writeUInt32LE(2, AT.version), { checksum: false }), 3],
    ['another format version, re-checksummed', edited((b) => b.writeUInt32LE(7, AT.version)), 3],
    ['checksum mismatch: one data byte flipped', edited((b) => { b[b.length - 1000] ^= 0x55; }, { checksum: false }), 5],
    ['checksum mismatch: checksum field changed', edited((b) => { b[AT.checksum] ^= 1; }, { checksum: false }), 5],
    ['wrong shape: 3 heads for hidden 256', edited((b) => b.writeUInt32LE(3, AT.heads)), 6],
    ['wrong shape: 8 heads', edited((b) => b.writeUInt32LE(8, AT.heads)), 6],
    ['wrong shape: hidden disagrees with the tensors', edited((b) => b.writeUInt32LE(260, AT.hidden)), 7],
    ['tensor table: misaligned offset', edited((b) => b.writeBigUInt64LE(BigInt(dataStart + 1), tableStart + 80)), 7],
    ['vocab line count below the header', edited((b) => b.writeUInt32LE(b.readUInt32LE(AT.vocabSize) + 1, AT.vocabSize)), 8],
    ['vocab line count above the header', edited((b) => { b[vocabLineOffset(b, 'the') + 1] = 0x0a; }), 8],
    ['one byte appended', () => rechecksum(Buffer.concat([weights, Buffer.alloc(1)])), 10],
    ['[MASK] missing from the vocabulary', edited((b) => { b[vocabLineOffset(b, '[MASK]') + 4] = 0x58; }), 21],
  ].map(([name, make, code]) => ({ name, make, code }));
}
