/**
 * The zero-filled space of a preallocated log generation (see wal-log.ts).
 *
 * A log file is its records (the logical log), then zeros up to the file's size (allocated,
 * unused space). A record never starts with four zero bytes (its length is at least the
 * sequence number's 8 bytes), so a scan stops at the first zero byte after the records: zeros
 * are a clean end. What a crash leaves between the last valid record and the zeros is torn.
 */
import { assert } from "../assert";
import type { FileSystem } from "./fs-port";
import { walLimits } from "./wal-limits";

/** Zeros written at most per call, so a large fill never allocates a large buffer. */
const zeroChunk = new Uint8Array(256 * 1024);

/**
 * `length` zeros to write, never written to: the shared chunk when it is long enough (a new
 * generation's first allocation is a quarter of it), so creating a generation allocates nothing.
 */
export function zerosToWrite(length: number): Uint8Array {
  return length <= zeroChunk.length ? zeroChunk.subarray(0, length) : new Uint8Array(length);
}

/**
 * The file size after growing `allocated` so that `needed` bytes fit: at least one growth step
 * (the allocation doubles, within the min and max step), block-aligned.
 */
export function nextAllocation(allocated: number, needed: number): number {
  const { preallocateBytesMin: min, preallocateBytesMax: max } = walLimits;
  const grown = allocated + Math.min(max, Math.max(min, allocated));
  const align = walLimits.preallocateAlignBytes;
  const target = Math.ceil(Math.max(grown, needed) / align) * align;
  assert(target >= needed && target > allocated, "an extension makes room");
  return target;
}

/** Overwrites [from, to) of `path` with zeros (extending the file when `to` passes its end). */
export function zeroFill(fs: FileSystem, path: string, from: number, to: number): void {
  assert(Number.isSafeInteger(from) && from >= 0 && from <= to, `bad zero fill ${from}..${to}`);
  // Bounded: every pass writes a positive amount towards `to`.
  for (let at = from; at < to; ) {
    const length = Math.min(zeroChunk.length, to - at);
    fs.writeAt(path, at, zeroChunk.subarray(0, length));
    at += length;
  }
}

/**
 * End of the torn region after the valid prefix: one past the last non-zero byte at or after
 * `validBytes`, or `validBytes` itself when only zeros follow (a clean end).
 */
export function tornEnd(log: Uint8Array, validBytes: number): number {
  assert(validBytes <= log.length, "the valid prefix lies inside the log");
  let end = log.length;
  // Every boot scans the zero-filled rest of the active log (64 KiB at least): four bytes at a
  // time over the 4-aligned middle, one at a time over the unaligned ends. Every byte is still
  // looked at (a word is zero exactly when its four bytes are).
  const alignedEnd = end - ((log.byteOffset + end) & 3);
  while (end > alignedEnd && end > validBytes && log[end - 1] === 0) end--;
  if (end === alignedEnd) {
    const firstWord = Math.ceil((log.byteOffset + validBytes) / 4);
    const lastWord = (log.byteOffset + end) / 4;
    if (lastWord > firstWord) {
      const words = new Int32Array(log.buffer, firstWord * 4, lastWord - firstWord);
      let w = words.length;
      while (w > 0 && words[w - 1] === 0) w--;
      end = firstWord * 4 + w * 4 - log.byteOffset;
    }
  }
  while (end > validBytes && log[end - 1] === 0) end--;
  return end;
}
