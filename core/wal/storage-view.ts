/**
 * What storage reports about itself: GET /api/storage, the `storage` and `boot` parts of
 * GET /api/node. Shared by the daemon's DurableStore and the simulator's store so both render
 * the same shape. Times are supplied by the shell (core reads no clock).
 */
import type { DurabilityMarks, WholeRecordsCut } from "./wal-log";

export interface StorageFileView {
  /** Relative to the data directory, '/'-separated. */
  readonly path: string;
  readonly kind: "wal" | "snapshot";
  readonly generation: number;
  readonly bytes: number;
  /** True for the log generation being appended to. */
  readonly active: boolean;
}

export interface RebuildOutcome {
  /** ISO 8601 UTC time the rebuild finished. */
  readonly at?: string;
  readonly ok: boolean;
  readonly durationMs: number;
  /** Entries in the snapshot written (0 on failure). */
  readonly entries: number;
  /** Generation the rebuild targeted. */
  readonly generation: number;
  readonly error?: string;
}

export interface RebuildStatus {
  readonly running: boolean;
  /** Another rebuild was asked for while one ran; it starts when the current one ends. */
  readonly pending: boolean;
  readonly lastOutcome: RebuildOutcome | null;
}

export interface StorageView {
  readonly files: StorageFileView[];
  readonly marks: DurabilityMarks;
  /** Generation of the newest complete snapshot (0: none). */
  readonly snapshotGeneration: number;
  readonly rotateBytes: number;
  readonly erasureDebt: number;
  readonly rebuild: RebuildStatus;
  readonly dead: boolean;
  readonly deadReason: string | null;
  /**
   * Why a storage folder could not be listed, when it could not (its files then go unlisted):
   * a folder a failing disk or a wrong chmod made unreadable must not hide the dead flag.
   */
  readonly filesUnreadable?: string;
}

export interface BootReport {
  readonly snapshotLoadMs: number;
  readonly replayMs: number;
  readonly totalMs: number;
  /** Generation of the snapshot booted from (0: none). */
  readonly snapshotGeneration: number;
  readonly snapshotEntries: number;
  readonly recordsReplayed: number;
  readonly tornBytesCut: number;
  /**
   * Whole, checksummed records the cut dropped behind a damaged one (null: none): a crash
   * leaves that only when the disk wrote the last commit out of order; otherwise it is damage
   * to records that were acknowledged (core/wal/wal-log.ts WholeRecordsCut).
   */
  readonly wholeRecordsCut: WholeRecordsCut | null;
  /** Active log generation after boot. */
  readonly generation: number;
  /** Keys in the final map. */
  readonly entries: number;
}
