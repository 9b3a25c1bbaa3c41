// A stored (uncompressed) zip writer for tests, written from the zip specification
// (APPNOTE.TXT 4.3) independently of weights/torch-checkpoint.mjs, so that tests can re-pack a
// torch.save archive: swap its byte order, drop or damage an entry.

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Map name → Uint8Array of a stored zip, read through the central directory (classic, no zip64). */
export function readZipEntries(buf) {
  const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let end = buf.length - 22;
  while (v.getUint32(end, true) !== 0x06054b50) end--;
  const count = v.getUint16(end + 10, true);
  let p = v.getUint32(end + 16, true);
  const out = new Map();
  for (let i = 0; i < count; i++) {
    const size = v.getUint32(p + 24, true);
    const n = v.getUint16(p + 28, true);
    const name = new TextDecoder().decode(buf.subarray(p + 46, p + 46 + n));
    const local = v.getUint32(p + 42, true);
    const start = local + 30 + v.getUint16(local + 26, true) + v.getUint16(local + 28, true);
    out.set(name, buf.slice(start, start + size));
    p += 46 + n + v.getUint16(p + 30, true) + v.getUint16(p + 32, true);
  }
  return out;
}

/**
 * A zip of stored entries [[name, bytes]]; `method` and `crcOf` let a test write a bad one;
 * `zip64` gives every size and offset in zip64 fields (as writers do past 4 GB).
 */
export function writeZip(entries, { method = 0, crcOf = crc, zip64 = false } = {}) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const [name, data] of entries) {
    const nameBytes = new TextEncoder().encode(name);
    const header = new Uint8Array(30 + nameBytes.length);
    const h = new DataView(header.buffer);
    const sum = crcOf(data);
    h.setUint32(0, 0x04034b50, true); h.setUint16(4, 20, true); h.setUint16(8, method, true);
    h.setUint32(14, sum, true); h.setUint32(18, data.length, true); h.setUint32(22, data.length, true);
    h.setUint16(26, nameBytes.length, true);
    header.set(nameBytes, 30);
    const central = new Uint8Array(46 + nameBytes.length + (zip64 ? 28 : 0));
    const c = new DataView(central.buffer);
    const wide = zip64 ? 0xffffffff : null;
    c.setUint32(0, 0x02014b50, true); c.setUint16(4, 45, true); c.setUint16(6, 45, true); c.setUint16(10, method, true);
    c.setUint32(16, sum, true); c.setUint32(20, wide ?? data.length, true); c.setUint32(24, wide ?? data.length, true);
    c.setUint16(28, nameBytes.length, true); c.setUint32(42, wide ?? offset, true);
    central.set(nameBytes, 46);
    if (zip64) {  // extra field 0x0001: uncompressed size, compressed size, local header offset
      const at = 46 + nameBytes.length;
      c.setUint16(30, 28, true);
      c.setUint16(at, 1, true); c.setUint16(at + 2, 24, true);
      c.setBigUint64(at + 4, BigInt(data.length), true); c.setBigUint64(at + 12, BigInt(data.length), true);
      c.setBigUint64(at + 20, BigInt(offset), true);
    }
    locals.push(header, data);
    centrals.push(central);
    offset += header.length + data.length;
  }
  const centralSize = centrals.reduce((a, b) => a + b.length, 0);
  const end = new Uint8Array(22);
  const e = new DataView(end.buffer);
  e.setUint32(0, 0x06054b50, true); e.setUint16(8, entries.length, true); e.setUint16(10, entries.length, true);
  e.setUint32(12, centralSize, true); e.setUint32(16, offset, true);
  const tail = [];
  if (zip64) {  // zip64 end record and its locator before the classic end record, which says 0xffff…
    const record = new Uint8Array(56);
    const r = new DataView(record.buffer);
    r.setUint32(0, 0x06064b50, true); r.setBigUint64(4, 44n, true); r.setUint16(12, 45, true); r.setUint16(14, 45, true);
    r.setBigUint64(24, BigInt(entries.length), true); r.setBigUint64(32, BigInt(entries.length), true);
    r.setBigUint64(40, BigInt(centralSize), true); r.setBigUint64(48, BigInt(offset), true);
    const locator = new Uint8Array(20);
    const l = new DataView(locator.buffer);
    l.setUint32(0, 0x07064b50, true); l.setBigUint64(8, BigInt(offset + centralSize), true); l.setUint32(16, 1, true);
    tail.push(record, locator);
    e.setUint16(8, 0xffff, true); e.setUint16(10, 0xffff, true); e.setUint32(12, 0xffffffff, true); e.setUint32(16, 0xffffffff, true);
  }
  const parts = [...locals, ...centrals, ...tail, end];
  const out = new Uint8Array(parts.reduce((a, b) => a + b.length, 0));
  let at = 0;
  for (const part of parts) { out.set(part, at); at += part.length; }
  return out;
}
