/**
 * How the simulator's KvStore lays out a file snapshot so that a rebuild re-encodes only what
 * changed: entries are partitioned into buckets by a hash of their key, each bucket is one
 * snapshot record (seq = bucket index + 1), and a bucket's encoded record is kept until one of
 * its keys is put or deleted. Successive snapshots of a large directory differ in a few
 * buckets; encoding and checksumming every entry again was most of each rebuild.
 * The file format is unchanged (a run of records of puts), so `FileSnapshotFormat.load`
 * reads it as any other snapshot. A key that was erased (shredded) is a changed key, so its
 * bucket is encoded afresh from the current value: no reused record holds an erased value.
 */
import { ByteArena } from "./byte-arena";
import type { KvBatch } from "./kv-batch";
import { encodeRecordScratch } from "./record-codec";
import type { EncodedRecord } from "./verified-records";

const entriesPerBucket = 64;

/**
 * The bytes of encoded bucket records (see ByteArena: a record of its own buffer cost more to
 * allocate than to encode). Shared by every layout: a record is copied in once and only read.
 */
const arena = new ByteArena();

export class SnapshotLayout {
  private readonly keys: Array<Set<string>> = [];
  /** Each bucket's record with the batch it encodes (kept whole: see VerifiedRecords). */
  private readonly encoded: Array<EncodedRecord | null> = [];

  private constructor(readonly bucketCount: number) {
    for (let i = 0; i < bucketCount; i++) {
      this.keys.push(new Set());
      this.encoded.push(null);
    }
  }

  /** A layout for `entries`, with the bucket count their number calls for. */
  static of(entries: ReadonlyMap<string, string>): SnapshotLayout {
    const layout = new SnapshotLayout(SnapshotLayout.bucketsFor(entries.size));
    for (const key of entries.keys()) layout.keys[layout.bucketOf(key)]!.add(key);
    return layout;
  }

  /**
   * Buckets of at most `entriesPerBucket` entries, a power of two (stable as the size drifts).
   * Small buckets, because the writes between two rebuilds touch keys all over the map: with
   * 1,024 entries per bucket nearly every bucket of a 20,000-entry map was dirty each time.
   */
  static bucketsFor(size: number): number {
    let n = 1;
    while (n * entriesPerBucket < size) n *= 2;
    return n;
  }

  /** Whether this layout still suits a map of `size` entries (else build a new one). */
  fits(size: number): boolean {
    return SnapshotLayout.bucketsFor(size) === this.bucketCount;
  }

  /** Notes a batch applied to the map: its keys' buckets must be encoded again. */
  note(batch: KvBatch): void {
    for (const [key] of batch.puts) this.touch(key, true);
    for (const key of batch.dels) this.touch(key, false);
  }

  /** Every bucket's record, encoding those that changed from `entries`' current values. */
  records(entries: ReadonlyMap<string, string>): EncodedRecord[] {
    const out: EncodedRecord[] = [];
    for (let i = 0; i < this.bucketCount; i++) {
      let record = this.encoded[i] ?? null;
      if (record === null) {
        const puts: Array<[string, string]> = [];
        for (const key of this.keys[i]!) puts.push([key, entries.get(key)!]);
        const batch = { puts, dels: [] };
        record = { seq: i + 1, batch, bytes: arena.copy(encodeRecordScratch(i + 1, batch)) };
        this.encoded[i] = record;
      }
      out.push(record);
    }
    return out;
  }

  private touch(key: string, present: boolean): void {
    const bucket = this.bucketOf(key);
    if (present) this.keys[bucket]!.add(key);
    else this.keys[bucket]!.delete(key);
    this.encoded[bucket] = null;
  }

  /** FNV-1a over the key's UTF-16 code units. */
  private bucketOf(key: string): number {
    let h = 0x811c9dc5;
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
    return (h >>> 0) & (this.bucketCount - 1);
  }
}
