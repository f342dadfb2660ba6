/**
 * Copies of small byte strings carved out of shared chunks, for records that are kept a while
 * and never written to again (a snapshot's bucket records, see SnapshotLayout).
 *
 * Why: every typed array of its own is an off-heap allocation that is zeroed, registered and
 * later finalised: a 45 KB `slice()` measured ~20-26 us here, where encoding and checksumming
 * the same record took ~18 us. Carving a copy out of a chunk is a bounds check and a memcpy.
 *
 * Cost: a chunk lives as long as any copy carved from it. Chunks are small (`chunkBytes`), and
 * a copy larger than a quarter chunk gets its own buffer, so a surviving copy pins at most
 * `chunkBytes` of memory: the held bytes are bounded by (live copies) x `chunkBytes`.
 * Copies never overlap and are never handed out twice, so a holder may treat its copy as its
 * own; none is ever written through the arena again.
 */
import { assert } from "../assert";

export class ByteArena {
  private chunk: ArrayBuffer;
  private used = 0;

  constructor(private readonly chunkBytes: number = 256 * 1024) {
    assert(Number.isSafeInteger(chunkBytes) && chunkBytes >= 64, "arena chunks hold something");
    this.chunk = new ArrayBuffer(chunkBytes);
  }

  /** A copy of `bytes` that nothing else writes to. */
  copy(bytes: Uint8Array): Uint8Array {
    const length = bytes.length;
    if (length > this.chunkBytes >>> 2) return bytes.slice();
    if (this.used + length > this.chunkBytes) {
      this.chunk = new ArrayBuffer(this.chunkBytes);
      this.used = 0;
    }
    const out = new Uint8Array(this.chunk, this.used, length);
    out.set(bytes);
    this.used += length;
    return out;
  }
}
