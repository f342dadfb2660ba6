/**
 * Bounds of the storage layer, named once (the shared core/limits.ts belongs to the node; these
 * are private to the write-ahead log and its snapshots).
 */
export const walLimits = {
  /**
   * Largest record payload. It exists so that a corrupt length prefix is recognised as garbage
   * instead of being trusted; no legal batch reaches it, because one larger than
   * `recordPartBytes` is split into a group of records (a subtree delete of 20 users holding
   * 14 values of 1 MiB made one batch of ~587 MB, which killed the store at every retry).
   */
  recordPayloadBytesMax: 512 * 1024 * 1024,
  /**
   * Encoding bound (3 bytes per UTF-16 unit) past which a batch is written as a group of
   * records, each this large at most unless one put alone is larger (a put stays whole, and
   * values are far below the payload bound). Well under the bound, so a part is never refused.
   */
  recordPartBytes: 64 * 1024 * 1024,
  /** Keys are short identifiers such as "o/<guid>" or "meta/node". */
  keyBytesMax: 64 * 1024,
  /** Active log size past which the store rotates to the next generation on its own. */
  rotateBytesDefault: 64 * 1024 * 1024,
  /**
   * Zero-filled bytes a new log generation starts with, and the least a log grows by. A log
   * writes its records into space already allocated and zeroed, so the fdatasync of a commit
   * carries data only; the fdatasync after an extension also commits the new file size.
   */
  preallocateBytesMin: 64 * 1024,
  /**
   * The most a log grows by at once. Growth doubles the allocation up to this step, so a small
   * log (the simulator's, a fresh daemon's) stays small and a busy one extends about every
   * 1,000 one-kilobyte records. The zeros written add up to the log's size whatever the step;
   * the step bounds the one slow commit that syncs them: on the bench machine's disk, 0.4-1 ms
   * for 1 MiB but 13-28 ms for 4 MiB, against ~0.1 ms for a record written in place.
   */
  preallocateBytesMax: 1024 * 1024,
  /** Allocation granularity of the log (the file system's block size). */
  preallocateAlignBytes: 4096,
  /** Records decoded per step by an incremental scan, so a caller can yield between steps. */
  scanStepRecords: 4096,
  /** Bytes decoded per step at most (a step of huge records would stall an event loop). */
  scanStepBytes: 256 * 1024,
  /** Entries per record in the file snapshot format (and per batch in the LevelDB one). */
  snapshotChunkEntries: 1024,
  /** Generation numbers are bounded so file names and arithmetic stay exact. */
  generationMax: 2 ** 40,
  /** Sequence numbers are bounded so they stay exact in a double. */
  seqMax: 2 ** 52,
} as const;
