/**
 * CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), table driven. Written by hand because
 * core/ may not import node:zlib: the same code must run in the deterministic simulator.
 */

function buildTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

const table = buildTable();

/**
 * CRC-32 of `bytes[start, end)`. Pass a previous result as `crc` to continue a running checksum
 * over several pieces (the record codec covers the length prefix and the payload).
 */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length, crc = 0): number {
  let c = (crc ^ 0xffffffff) >>> 0;
  for (let i = start; i < end; i++) {
    // Both indexes are in range by construction; `?? 0` only satisfies noUncheckedIndexedAccess.
    c = (table[(c ^ (bytes[i] ?? 0)) & 0xff] ?? 0) ^ (c >>> 8);
  }
  return (c ^ 0xffffffff) >>> 0;
}
