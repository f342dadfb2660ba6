/**
 * CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), table driven. Written by hand because
 * core/ may not import node:zlib: the same code must run in the deterministic simulator.
 */

function buildTable(): Int32Array {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c | 0;
  }
  return table;
}

const table = buildTable();

/**
 * CRC-32 of `bytes[start, end)`. Pass a previous result as `crc` to continue a running checksum
 * over several pieces (the record codec covers the length prefix and the payload).
 */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length, crc = 0): number {
  return ~update(bytes, start, end, ~crc | 0) >>> 0;
}

/**
 * The loop carries only int32 values (an Int32Array table, `| 0` reads): with unsigned
 * arithmetic V8 deoptimised it over and over under CPU contention (bench/README.md).
 */
function update(bytes: Uint8Array, start: number, end: number, state: number): number {
  let c = state | 0;
  for (let i = start; i < end; i++) {
    c = (table[(c ^ (bytes[i] as number)) & 0xff] as number) ^ (c >>> 8);
  }
  return c | 0;
}
