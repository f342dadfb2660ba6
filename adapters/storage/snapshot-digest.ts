/**
 * An order-independent digest of a LevelDB snapshot's entries, kept in its marker and checked
 * by every full scan (boot, and the next rebuild reading it as its base). classic-level does
 * not verify LevelDB's block checksums on reads, so without it a flipped bit in a table changed
 * an acknowledged name or value silently, and the next rebuild copied the change into a
 * snapshot of its own.
 *
 * Each entry's CRC-32 covers its key then its value (UTF-8), plus a multiple of the key's
 * length so that a damaged length moving bytes between key and value still shows; the digest
 * is their sum modulo 2^32, so the writer may feed entries in any order while a scan reads
 * them in key order. A missing or extra entry also changes the count the marker holds.
 */
import * as zlib from "node:zlib";
import { crc32Portable } from "../../core/wal/crc32";

const utf8 = new TextEncoder();

/** zlib's CRC-32 over a string's UTF-8 (Node >= 20.15), or the portable one over its bytes. */
const crcOf: (text: string, crc: number) => number =
  typeof zlib.crc32 === "function"
    ? (text, crc) => zlib.crc32(text, crc)
    : (text, crc) => {
        const bytes = utf8.encode(text);
        return crc32Portable(bytes, 0, bytes.length, crc);
      };

export class SnapshotDigest {
  private sum = 0;

  add(key: string, value: string): void {
    const entry = crcOf(value, crcOf(key, 0)) + Math.imul(key.length, 0x9e3779b1);
    this.sum = (this.sum + entry) >>> 0;
  }

  get value(): number {
    return this.sum;
  }
}
