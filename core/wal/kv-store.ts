/**
 * The synchronous twin of the daemon's DurableStore, for the deterministic simulator: the same
 * write-ahead log, catalog and erasure debt over any FileSystem, with file-format snapshots.
 * The simulator has no background, so a rebuild runs to completion inside rotate()/rebuild();
 * the observable contract (what boot returns, when debt is paid, dead on I/O error) is the
 * daemon's. Durations come from an optional clock the shell hands in; core reads none.
 */
import { assert } from "../assert";
import { ErasureDebt } from "./erasure-debt";
import { readForScan, type FileSystem } from "./fs-port";
import { generationOfName, parseGeneration, snapDir, walDir, walPath } from "./generation-names";
import { applyKvBatch, type KvBatch } from "./kv-batch";
import { SnapshotLayout } from "./snapshot-layout";
import {
  newestCompleteSnapshot,
  makeSnapshotDurable,
  supersededSnapshotPaths,
  writeSnapshotMarker,
  type SnapshotMeta,
} from "./snapshot-catalog";
import { FileSnapshotFormat } from "./snapshot-file";
import { StorageCorruptError, StorageDeadError } from "./storage-errors";
import type { BootReport, RebuildOutcome, StorageFileView, StorageView } from "./storage-view";
import { scanLog } from "./record-codec";
import type { VerifiedRecords } from "./verified-records";
import { WriteAheadLog, type DurabilityMarks } from "./wal-log";
import { walLimits } from "./wal-limits";

export interface KvStoreOptions {
  readonly rotateBytes?: number;
  /** Monotonic milliseconds for boot and rebuild timings; absent means all timings are 0. */
  readonly clockMs?: () => number;
  /**
   * Snapshot records known by their bytes, kept by the shell across opens (see
   * VerifiedRecords): the simulator reopens the same disk at every restart.
   */
  readonly verified?: VerifiedRecords;
  /** Encoding bound past which a batch is a group of records (tests lower it; see WalOptions). */
  readonly recordPartBytes?: number;
}

export interface KvStoreOpened {
  readonly store: KvStore;
  readonly boot: BootReport;
  readonly entries: Map<string, string>;
}

export class KvStore {
  private deadReason: string | null = null;
  private lastOutcome: RebuildOutcome | null = null;
  private readonly snapshots: FileSnapshotFormat;
  /**
   * The entries of the newest snapshot as this process last read or wrote them, so that a
   * rebuild folds the sealed logs into memory instead of decoding the snapshot file again
   * (reading it back dominated the simulator's rebuilds). Null until known or after a failure.
   */
  private snapshotEntries: { generation: number; map: Map<string, string> } | null = null;
  /** Buckets of the newest snapshot's entries with their encoded records (SnapshotLayout). */
  private snapshotLayout: SnapshotLayout | null = null;
  /**
   * What the active generation's records did, as final values per key (null: deleted), kept
   * as they are committed (and, at open, from the replay): the rebuild that follows the
   * rotation folds this into the snapshot's entries instead of reading the sealed log back and
   * decoding every record again (a third of the simulator's rebuilds). Null when not known
   * (sealed generations were pending at open); the rebuild then reads the logs.
   */
  private tail: { generation: number; values: Map<string, string | null> } | null = null;

  private constructor(
    private readonly fs: FileSystem,
    private readonly wal: WriteAheadLog,
    private snapshot: SnapshotMeta | null,
    private readonly debt: ErasureDebt,
    private readonly options: {
      rotateBytes: number;
      clockMs: () => number;
      verified: VerifiedRecords | null;
    },
  ) {
    this.snapshots = new FileSnapshotFormat(fs, options.verified);
  }

  /** Boot: newest complete snapshot + replay of later logs, torn tail cut, leftovers removed. */
  static open(fs: FileSystem, options: KvStoreOptions = {}): KvStoreOpened {
    const clockMs = options.clockMs ?? (() => 0);
    const rotateBytes = options.rotateBytes ?? walLimits.rotateBytesDefault;
    assert(rotateBytes > 0, "rotateBytes is positive");
    const started = clockMs();
    const snapshot = newestCompleteSnapshot(fs);
    if (snapshot !== null) makeSnapshotDurable(fs, snapshot);
    eraseAll(fs, supersededSnapshotPaths(fs, snapshot?.generation ?? 0, true), snapDir);
    if (snapshot !== null && snapshot.kind !== "file") {
      throw new StorageCorruptError(`snapshot kind ${snapshot.kind} is not readable here`);
    }
    const verified = options.verified ?? null;
    const entries =
      snapshot === null ? new Map() : new FileSnapshotFormat(fs, verified).load(snapshot);
    const snapshotCopy =
      snapshot === null ? null : { generation: snapshot.generation, map: new Map(entries) };
    const loaded = clockMs();
    const start = { generation: snapshot?.generation ?? 0, seq: snapshot?.lastSeq ?? 0 };
    const partBytes = options.recordPartBytes;
    const opened = WriteAheadLog.open(fs, start, partBytes === undefined ? {} : { recordPartBytes: partBytes });
    for (const record of opened.records) applyKvBatch(entries, record.batch);
    const replayed = clockMs();
    eraseAll(fs, opened.stalePaths, walDir);
    const debt = ErasureDebt.load(fs, opened.wal.marks().generation);
    // Everything older than the snapshot was just erased (see DurableStore.open).
    if (snapshot !== null) debt.settle(snapshot.generation);
    const store = new KvStore(fs, opened.wal, snapshot, debt, { rotateBytes, clockMs, verified });
    if (snapshotCopy !== null) store.snapshotEntries = snapshotCopy;
    // Every replayed record is the active generation's when none sealed is pending.
    if (opened.wal.sealed().length === 0) {
      const values = new Map<string, string | null>();
      for (const record of opened.records) noteBatch(values, record.batch);
      store.tail = { generation: opened.wal.marks().generation, values };
    }
    const boot: BootReport = {
      snapshotLoadMs: loaded - started,
      replayMs: replayed - loaded,
      totalMs: clockMs() - started,
      snapshotGeneration: start.generation,
      snapshotEntries: snapshot?.entries ?? 0,
      recordsReplayed: opened.records.length,
      tornBytesCut: opened.tornBytes,
      wholeRecordsCut: opened.wholeRecordsCut,
      generation: opened.wal.marks().generation,
      entries: entries.size,
    };
    return { store, boot, entries };
  }

  get dead(): boolean {
    return this.deadReason !== null;
  }

  /** Appends every batch, then one sync. Throws StorageDeadError once an I/O error happened. */
  commit(batches: readonly KvBatch[]): void {
    this.assertAlive();
    if (batches.length === 0) return;
    this.guard(() => {
      for (const batch of batches) this.wal.append(batch);
      this.wal.sync();
    });
    const tail = this.tail;
    if (tail !== null) for (const batch of batches) noteBatch(tail.values, batch);
    if (this.wal.marks().appendedBytes >= this.options.rotateBytes) this.rotate();
  }

  /** Seals the active log, opens the next generation, then rebuilds (to completion). */
  rotate(): { sealedGeneration: number; generation: number } {
    this.assertAlive();
    const sealedGeneration = this.guard(() => this.wal.rotate());
    const sealedTail = this.tail?.generation === sealedGeneration ? this.tail : null;
    this.tail = { generation: this.wal.marks().generation, values: new Map() };
    this.rebuildNow(sealedTail);
    return { sealedGeneration, generation: this.wal.marks().generation };
  }

  /** Rebuilds to the newest sealed generation; rotates only if nothing sealed is pending. */
  rebuild(): { rotated: boolean } {
    this.assertAlive();
    const newestSealed = this.wal.sealed().at(-1)?.generation ?? 0;
    if (newestSealed <= (this.snapshot?.generation ?? 0) && this.wal.marks().appendedBytes > 0) {
      this.rotate();
      return { rotated: true };
    }
    this.rebuildNow(null);
    return { rotated: false };
  }

  /**
   * Raises erasure debt for a batch that overwrites shredded values: call it *before*
   * committing that batch (intent first, see ErasureDebt), then rotate() after the commit.
   * The batch will be appended to the active generation, so that is the debt's generation.
   */
  markErasureDebt(): void {
    this.assertAlive();
    const generation = this.wal.marks().generation;
    this.guard(() => this.debt.raise(generation));
  }

  marks(): DurabilityMarks {
    return this.wal.marks();
  }

  /** Shreds whose plaintext may still be in a file here (see ErasureDebt). */
  get erasureDebt(): number {
    return this.debt.count;
  }

  view(): StorageView {
    return {
      files: this.files(),
      marks: this.wal.marks(),
      snapshotGeneration: this.snapshot?.generation ?? 0,
      rotateBytes: this.options.rotateBytes,
      erasureDebt: this.debt.count,
      rebuild: { running: false, pending: false, lastOutcome: this.lastOutcome },
      dead: this.dead,
      deadReason: this.deadReason,
    };
  }

  private files(): StorageFileView[] {
    const marks = this.wal.marks();
    const active = marks.generation;
    const out: StorageFileView[] = [];
    for (const dir of [walDir, snapDir]) {
      for (const name of this.fs.list(dir)) {
        const generation = generationOfName(name);
        if (generation === null) continue;
        const kind = dir === walDir ? "wal" : "snapshot";
        const isActive = kind === "wal" && generation === active;
        // The active log's file is preallocated with zeros: its size is its records' bytes,
        // as adapters/storage/storage-files.ts reports it (allocatedBytes is in the marks).
        const bytes = isActive ? marks.appendedBytes : (this.fs.size(`${dir}/${name}`) ?? 0);
        out.push({ path: `${dir}/${name}`, kind, generation, bytes, active: isActive });
      }
    }
    return out;
  }

  private assertAlive(): void {
    if (this.deadReason !== null) throw new StorageDeadError(this.deadReason);
  }

  private guard<T>(write: () => T): T {
    try {
      return write();
    } catch (error) {
      this.deadReason = error instanceof Error ? error.message : String(error);
      throw new StorageDeadError(this.deadReason);
    }
  }

  /**
   * One rebuild to the newest sealed generation; records its outcome, never throws. `folded`:
   * the final values of the sealed generation just rotated, when known (see `tail`).
   */
  private rebuildNow(folded: KvStore["tail"]): void {
    const started = this.options.clockMs();
    const previous = this.snapshot;
    const sealed = this.wal.sealed().filter((g) => g.generation > (previous?.generation ?? 0));
    const target = sealed.at(-1)?.generation ?? previous?.generation ?? 0;
    const done = (ok: boolean, error?: string): RebuildOutcome => {
      const base = { ok, durationMs: this.options.clockMs() - started, generation: target };
      const entries = ok ? (this.snapshot?.entries ?? 0) : 0;
      return error === undefined ? { ...base, entries } : { ...base, entries, error };
    };
    try {
      if (sealed.length > 0) {
        this.snapshot = this.buildSnapshot(previous, target, sealed.at(-1)?.lastSeq ?? 0, folded);
        this.wal.forget(target);
      }
      this.eraseSuperseded(target);
      this.debt.settle(target);
      this.lastOutcome = done(true);
    } catch (error) {
      this.lastOutcome = done(false, error instanceof Error ? error.message : String(error));
    }
  }

  private buildSnapshot(
    previous: SnapshotMeta | null,
    target: number,
    lastSeq: number,
    folded: KvStore["tail"],
  ): SnapshotMeta {
    const cached = this.snapshotEntries;
    const cachedLayout = this.snapshotLayout;
    this.snapshotEntries = null;
    this.snapshotLayout = null;
    const map =
      previous === null
        ? new Map<string, string>()
        : cached !== null && cached.generation === previous.generation
          ? cached.map
          : this.snapshots.load(previous);
    let layout = map === cached?.map ? cachedLayout : null;
    let expectSeq = (previous?.lastSeq ?? 0) + 1;
    let from = (previous?.generation ?? 0) + 1;
    if (folded !== null && folded.generation === target && from === target) {
      // The one generation to fold, as committed: its final values, not its records again.
      const batch = batchOf(folded.values);
      applyKvBatch(map, batch);
      layout?.note(batch);
      from = target + 1;
      expectSeq = lastSeq + 1;
    }
    for (let generation = from; generation <= target; generation++) {
      // A sealed log: nothing writes it any more.
      const bytes = readForScan(this.fs, walPath(generation)) ?? new Uint8Array(0);
      const scan = scanLog(bytes, expectSeq);
      if (scan.tornBytes !== 0) throw new StorageCorruptError(`sealed log ${generation} is torn`);
      for (const record of scan.records) {
        applyKvBatch(map, record.batch);
        layout?.note(record.batch);
      }
      expectSeq = (scan.records.at(-1)?.seq ?? expectSeq - 1) + 1;
    }
    assert(expectSeq === lastSeq + 1, "a rebuild folds exactly the sealed records");
    if (layout === null || !layout.fits(map.size)) layout = SnapshotLayout.of(map);
    this.snapshots.writeRecords(target, layout.records(map));
    const meta: SnapshotMeta = { generation: target, lastSeq, entries: map.size, kind: "file" };
    writeSnapshotMarker(this.fs, meta);
    this.snapshotEntries = { generation: target, map };
    this.snapshotLayout = layout;
    return meta;
  }

  private eraseSuperseded(kept: number): void {
    const walPaths = this.fs
      .list(walDir)
      .filter((name) => (parseGeneration(name, ".log") ?? Infinity) <= kept)
      .map((name) => `${walDir}/${name}`);
    eraseAll(this.fs, supersededSnapshotPaths(this.fs, kept, false), snapDir);
    eraseAll(this.fs, walPaths, walDir);
  }
}

/**
 * Overwrites each file with zeros, syncs it, removes it, then syncs the directory. Markers come
 * first in `paths` (see supersededSnapshotPaths), so a crash midway leaves orphans, not a
 * complete-looking snapshot without its data.
 */
function eraseAll(fs: FileSystem, paths: readonly string[], dir: string): void {
  if (paths.length === 0) return;
  for (const path of paths) {
    const size = fs.size(path);
    if (size === null) continue;
    if (size > 0) {
      if (fs.overwriteWithZeros !== undefined) fs.overwriteWithZeros(path);
      else fs.write(path, zerosOf(size));
      fs.sync(path);
    }
    fs.remove(path);
  }
  fs.syncDir(dir);
}

/** Zeros kept for erasures up to this size (a FileSystem write copies what it is given). */
const zerosKeptBytes = 16 * 1024 * 1024;
let zeros = new Uint8Array(0);

/**
 * `size` zeros for one write; never written to. Shared between erasures: a fresh buffer per
 * erased file (a snapshot is the whole directory) was a large zeroed allocation per rebuild.
 */
function zerosOf(size: number): Uint8Array {
  if (size > zerosKeptBytes) return new Uint8Array(size);
  if (size > zeros.length) zeros = new Uint8Array(Math.min(zerosKeptBytes, Math.max(size, 2 * zeros.length)));
  return zeros.subarray(0, size);
}

/** Notes a committed or replayed batch's effect: puts in order, then deletes (as replay does). */
function noteBatch(values: Map<string, string | null>, batch: KvBatch): void {
  const { puts, dels } = batch;
  for (let i = 0; i < puts.length; i++) {
    const put = puts[i]!;
    values.set(put[0], put[1]);
  }
  for (let i = 0; i < dels.length; i++) values.set(dels[i]!, null);
}

/** The final values of a generation as one batch (a key is put or deleted, never both). */
function batchOf(values: ReadonlyMap<string, string | null>): KvBatch {
  const puts: Array<readonly [string, string]> = [];
  const dels: string[] = [];
  values.forEach((value, key) => {
    if (value === null) dels.push(key);
    else puts.push([key, value]);
  });
  return { puts, dels };
}
