// CRC-32 (IEEE 802.3, as zlib): the checksum of the weights file's head and parts
// (weights/FORMAT.md; c/weights.c weights_crc32 is the C side). The one JavaScript copy,
// imported by the converter and the tests.
import { CHECKSUM_OFFSET } from '../c/spec.mjs';

// Slicing by 8, as c/weights.c: SLICES[k][b] is the CRC step of byte b followed by k zero bytes.
const SLICES = (() => {
  const slices = Array.from({ length: 8 }, () => new Uint32Array(256));
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    slices[0][n] = c >>> 0;
  }
  for (let n = 0; n < 256; n++) {
    for (let k = 1; k < 8; k++) slices[k][n] = (slices[k - 1][n] >>> 8) ^ slices[0][slices[k - 1][n] & 0xff];
  }
  return slices;
})();

function update(c, bytes, begin, end) {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = SLICES;
  let i = begin;
  for (; i + 8 <= end; i += 8) {
    const lo = (c ^ (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24))) >>> 0;
    c = t7[lo & 0xff] ^ t6[(lo >>> 8) & 0xff] ^ t5[(lo >>> 16) & 0xff] ^ t4[lo >>> 24]
      ^ t3[bytes[i + 4]] ^ t2[bytes[i + 5]] ^ t1[bytes[i + 6]] ^ t0[bytes[i + 7]];
  }
  for (; i < end; i++) c = t0[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return c;
}

/** CRC-32 of bytes [begin, end) of a Uint8Array (or Buffer). */
export function crc32(bytes, begin = 0, end = bytes.length) {
  return (update(0xffffffff, bytes, begin, end) ^ 0xffffffff) >>> 0;
}

/** crc32 of a whole array in steps of CRC_STEP_BYTES: a generator (weights/steps.mjs), the same value. */
export const CRC_STEP_BYTES = 1 << 19;

export function* crc32Steps(bytes) {
  let c = 0xffffffff;
  for (let begin = 0; begin < bytes.length; begin += CRC_STEP_BYTES) {
    c = update(c, bytes, begin, Math.min(bytes.length, begin + CRC_STEP_BYTES));
    yield;
  }
  return (c ^ 0xffffffff) >>> 0;
}

/** The head's checksum: CRC-32 of the first headBytes with the 4-byte checksum field read as zero. */
export function headChecksum(bytes, headBytes) {
  let c = update(0xffffffff, bytes, 0, CHECKSUM_OFFSET);
  c = update(c, new Uint8Array(4), 0, 4);
  c = update(c, bytes, CHECKSUM_OFFSET + 4, headBytes);
  return (c ^ 0xffffffff) >>> 0;
}
