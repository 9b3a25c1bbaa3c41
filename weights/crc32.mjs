// CRC-32 (IEEE 802.3, as zlib): the checksum of the weights file's head and parts
// (weights/FORMAT.md; c/weights.c weights_crc32 is the C side). The one JavaScript copy,
// imported by the converter and the tests.
import { CHECKSUM_OFFSET } from '../c/spec.mjs';

const TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 of bytes [begin, end) of a Uint8Array (or Buffer). */
export function crc32(bytes, begin = 0, end = bytes.length) {
  let c = 0xffffffff;
  for (let i = begin; i < end; i++) c = TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The head's checksum: CRC-32 of the first headBytes with the 4-byte checksum field read as zero. */
export function headChecksum(bytes, headBytes) {
  const zeros = new Uint8Array(4);
  let c = 0xffffffff;
  const fold = (part) => { for (let i = 0; i < part.length; i++) c = TABLE[(c ^ part[i]) & 0xff] ^ (c >>> 8); };
  fold(bytes.subarray(0, CHECKSUM_OFFSET));
  fold(zeros);
  fold(bytes.subarray(CHECKSUM_OFFSET + 4, headBytes));
  return (c ^ 0xffffffff) >>> 0;
}
