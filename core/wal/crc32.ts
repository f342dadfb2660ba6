/**
 * CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), slicing-by-8. Written by hand because
 * core/ may not import node:zlib: the same code must run in the deterministic simulator, where
 * every write and every boot checksums the log (the byte-at-a-time loop was 8-12 % of the
 * simulator's time; eight table lookups per 8 bytes run ~4x faster). A shell may install a
 * native implementation of the same function (useNativeCrc32); the simulator installs zlib's.
 */

import { assert } from "../assert";

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
  if (native !== null) {
    return native(start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end), crc);
  }
  return crc32Portable(bytes, start, end, crc);
}

/** The hand-written checksum, whatever a shell installed (useNativeCrc32 compares with it). */
export function crc32Portable(bytes: Uint8Array, start = 0, end = bytes.length, crc = 0): number {
  return ~update(bytes, start, end, ~crc | 0) >>> 0;
}

/** A native CRC-32 with zlib's signature: checksum of `data`, continuing from `value`. */
export type NativeCrc32 = (data: Uint8Array, value: number) => number;

let native: NativeCrc32 | null = null;

/**
 * Lets a shell hand in a native implementation of this very function (zlib.crc32 on Node:
 * ~3x faster; the simulator checksums every WAL append, replay and rebuild, ~8 % of its time
 * in this file). Core may not import it itself. The candidate must agree with the portable
 * code on check values and running checksums, or it is refused; null goes back to portable.
 */
export function useNativeCrc32(candidate: NativeCrc32 | null): void {
  if (candidate !== null) {
    const probe = new Uint8Array(300);
    for (let i = 0; i < probe.length; i++) probe[i] = (i * 151 + 7) & 0xff;
    const agrees =
      candidate(new Uint8Array(0), 0) === 0 &&
      candidate(probe, 0) === crc32Portable(probe) &&
      candidate(probe.subarray(100), crc32Portable(probe, 0, 100)) === crc32Portable(probe) &&
      candidate(probe.subarray(5, 9), 0x12345678) === crc32Portable(probe, 5, 9, 0x12345678);
    assert(agrees, "the native CRC-32 agrees with the portable one");
  }
  native = candidate;
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
crc32Portable(new Uint8Array(19));
