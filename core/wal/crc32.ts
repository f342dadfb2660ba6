/**
 * CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), slicing-by-8. Written by hand because
 * core/ may not import node:zlib: the same code must run in the deterministic simulator, where
 * every write and every boot checksums the log (the byte-at-a-time loop was 8-12 % of the
 * simulator's time; eight table lookups per 8 bytes run ~4x faster).
 */

function buildTables(): Int32Array {
  // tables[k * 256 + n]: the CRC of byte n followed by k zero bytes.
  const tables = new Int32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    tables[n] = c | 0;
  }
  for (let n = 0; n < 256; n++) {
    let c = tables[n] as number;
    for (let k = 1; k < 8; k++) {
      c = (tables[c & 0xff] as number) ^ (c >>> 8);
      tables[k * 256 + n] = c | 0;
    }
  }
  return tables;
}

const t = buildTables();

/**
 * CRC-32 of `bytes[start, end)`. Pass a previous result as `crc` to continue a running checksum
 * over several pieces (the record codec covers the length prefix and the payload).
 */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length, crc = 0): number {
  return ~update(bytes, start, end, ~crc | 0) >>> 0;
}

/**
 * The loop carries only int32 values (an Int32Array table, `| 0` reads): with unsigned
 * arithmetic V8 deoptimised the checksum over and over under CPU contention (bench/README.md).
 */
function update(bytes: Uint8Array, start: number, end: number, state: number): number {
  let c = state | 0;
  let i = start;
  const blocks = end - ((end - start) & 7);
  for (; i < blocks; i += 8) {
    const lo = c ^ ((bytes[i] as number) | ((bytes[i + 1] as number) << 8) | ((bytes[i + 2] as number) << 16) | ((bytes[i + 3] as number) << 24));
    c =
      (t[1792 + (lo & 0xff)] as number) ^
      (t[1536 + ((lo >>> 8) & 0xff)] as number) ^
      (t[1280 + ((lo >>> 16) & 0xff)] as number) ^
      (t[1024 + (lo >>> 24)] as number) ^
      (t[768 + (bytes[i + 4] as number)] as number) ^
      (t[512 + (bytes[i + 5] as number)] as number) ^
      (t[256 + (bytes[i + 6] as number)] as number) ^
      (t[bytes[i + 7] as number] as number);
  }
  return updateBytes(bytes, i, end, c);
}

/** The bytes past the last whole 8-byte block, one at a time. */
function updateBytes(bytes: Uint8Array, start: number, end: number, state: number): number {
  let c = state | 0;
  for (let i = start; i < end; i++) {
    c = (t[(c ^ (bytes[i] as number)) & 0xff] as number) ^ (c >>> 8);
  }
  return c | 0;
}

// Both loops run once at load: a loop V8 optimised before it ever ran has no type feedback,
// and the simulator saw `update` deoptimised ~300 times per run ("insufficient type feedback
// for compare operation" in the tail loop), costing more than the checksums themselves.
crc32(new Uint8Array(19));
