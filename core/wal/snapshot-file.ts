/**
 * The simple snapshot format: one file per generation, `snap/gen-N.snap`, holding the final
 * key-value map as a run of log records (each a KvBatch of puts, reusing the record codec and
 * its checksums). The deterministic simulator uses it over its own FileSystem; the daemon uses
 * LevelDB (adapters/storage) behind the same SnapshotFormat interface and the same catalog.
 */
import { assert } from "../assert";
import { readForScan, type FileSystem } from "./fs-port";
import { generationStem, snapDir } from "./generation-names";
import { applyKvBatch } from "./kv-batch";
import { encodeRecord, scanLog } from "./record-codec";
import type { SnapshotFormat, SnapshotMeta } from "./snapshot-catalog";
import { StorageCorruptError } from "./storage-errors";
import { walLimits } from "./wal-limits";
import { scanLogVerified, type EncodedRecord, type VerifiedRecords } from "./verified-records";

type Entries = Iterable<readonly [string, string]>;

export class FileSnapshotFormat implements SnapshotFormat<Map<string, string>, number, Entries> {
  readonly kind = "file";

  /**
   * `verified`: records known by their bytes (see VerifiedRecords), so that loading the
   * snapshot this process last read or wrote does not checksum and decode it again.
   */
  constructor(
    private readonly fs: FileSystem,
    private readonly verified: VerifiedRecords | null = null,
  ) {}

  dataPath(generation: number): string {
    return `${snapDir}/${generationStem(generation)}.snap`;
  }

  /** Loads a complete snapshot; a mismatch with its marker means the disk lost synced data. */
  load(meta: SnapshotMeta): Map<string, string> {
    assert(meta.kind === this.kind, "snapshot kind matches its format");
    const path = this.dataPath(meta.generation);
    // Nothing writes a complete snapshot; what the pass keeps (VerifiedRecords) it copies.
    const bytes = readForScan(this.fs, path);
    if (bytes === null) throw new StorageCorruptError(`complete snapshot ${path} is missing`);
    let scan;
    if (this.verified === null) scan = scanLog(bytes, 1);
    else {
      this.verified.beginPass();
      scan = scanLogVerified(bytes, 1, this.verified);
      this.verified.endPass();
    }
    const map = new Map<string, string>();
    for (const record of scan.records) applyKvBatch(map, record.batch);
    if (scan.tornBytes !== 0 || map.size !== meta.entries) {
      throw new StorageCorruptError(`snapshot ${path} does not match its marker`);
    }
    return map;
  }

  /** Writes and syncs the data; returns the entry count. The caller then writes the marker. */
  write(generation: number, entries: Entries): number {
    const path = this.dataPath(generation);
    this.fs.write(path, new Uint8Array(0));
    let chunk: Array<[string, string]> = [];
    let seq = 0;
    let count = 0;
    const flush = () => {
      seq += 1;
      this.fs.append(path, encodeRecord(seq, { puts: chunk, dels: [] }));
      chunk = [];
    };
    for (const [key, value] of entries) {
      chunk.push([key, value]);
      count += 1;
      if (chunk.length >= walLimits.snapshotChunkEntries) flush();
    }
    if (chunk.length > 0) flush();
    this.fs.sync(path);
    this.fs.syncDir(snapDir);
    return count;
  }

  /**
   * Writes records already encoded (seq 1, 2, ... in order, each a batch of puts; see
   * SnapshotLayout) and syncs them. The caller then writes the marker.
   *
   * Most records are the previous snapshot's, reused, and already known by their bytes: `find`
   * (a full byte compare) keeps those for this pass; only the others are noted, which checks
   * every string of their batch for UTF-8 round trips (a scan of all their text).
   */
  writeRecords(generation: number, records: readonly EncodedRecord[]): void {
    const path = this.dataPath(generation);
    if (this.verified !== null) {
      this.verified.beginPass();
      for (const record of records) {
        if (this.verified.find(record.bytes, 0) === null) this.verified.noteEncoded(record);
      }
      this.verified.endPass();
    }
    this.fs.write(path, new Uint8Array(0));
    for (const record of records) this.fs.append(path, record.bytes);
    this.fs.sync(path);
    this.fs.syncDir(snapDir);
  }
}
