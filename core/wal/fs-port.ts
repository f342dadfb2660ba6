/**
 * The small synchronous file-system port the write-ahead log runs over. The real adapter
 * (adapters/storage) implements it with node:fs; the simulator (sim/disk) implements it in
 * memory with an fsync barrier, crash loss of unsynced bytes, torn writes and image rollback.
 * Paths are '/'-separated and relative to the port's root.
 *
 * Durability contract: bytes appended or written to a file are durable only after `sync(path)`
 * returns; a created/removed/renamed name is durable only after `syncDir(dir)` returns. Until
 * then a crash may keep any prefix of the writes since the last sync (a torn write).
 */
export interface FileSystem {
  /** Names (not paths) directly inside `dir`, sorted ascending; [] when `dir` is absent. */
  list(dir: string): string[];
  /** Whole content of a file, or null when absent: a copy the caller owns. */
  read(path: string): Uint8Array | null;
  /**
   * Optional: the whole content without a copy, or null when absent. The caller must not
   * modify it, and it is valid only until the next change to the file. A port without it is
   * read through `read` (see readForScan).
   */
  readView?(path: string): Uint8Array | null;
  /** Appends bytes, creating the file (and missing parent dirs) if needed. */
  append(path: string, bytes: Uint8Array): void;
  /**
   * Writes bytes at `offset` of an existing file, over what is there, extending the file when the
   * write passes its end. `offset` is at most the file's size (no holes). Not durable until sync.
   * The write-ahead log writes its records into zero-filled, preallocated space this way, so that
   * an fdatasync carries data only, not a new file size (see core/wal/wal-log.ts).
   */
  writeAt(path: string, offset: number, bytes: Uint8Array): void;
  /** Replaces the whole content (creates if needed). Not durable until sync. */
  write(path: string, bytes: Uint8Array): void;
  /**
   * Optional: overwrites an existing file with as many zeros as it holds, exactly as `write`
   * of those zeros would (an erasure). Not durable until sync. A port without it is given
   * the zeros through `write`.
   */
  overwriteWithZeros?(path: string): void;
  /** fdatasync of one file. */
  sync(path: string): void;
  /** fsync of a directory, making names created or removed inside it durable. */
  syncDir(dir: string): void;
  truncate(path: string, length: number): void;
  rename(from: string, to: string): void;
  remove(path: string): void;
  size(path: string): number | null;
}

/**
 * A file's bytes for a read-only scan that keeps nothing of them (it copies or decodes what
 * it keeps) and finishes before the file next changes: a view where the port has one (the
 * simulator's disk: a boot's copy of every log and snapshot was most of its byte churn, and
 * each 16-32 MB of it cost the V8 heap a scavenge), otherwise a copy.
 */
export function readForScan(fs: FileSystem, path: string): Uint8Array | null {
  return fs.readView !== undefined ? fs.readView(path) : fs.read(path);
}
