/**
 * The daemon's durable key-value store: write-ahead log generations over node:fs (group
 * commit: `commit` appends every batch of a driver turn, then fdatasyncs once) plus LevelDB
 * snapshots built in the background. Storage is generic: the node persists KvBatches and gets
 * the final key-value map back at boot.
 *
 * Decisions:
 * - Boot = newest complete snapshot + replay of every later log generation; a torn tail of the
 *   newest log is cut. Leftovers of interrupted rebuilds or erasures are erased at boot.
 * - `rotate()` seals the active log, opens the next generation and starts a rebuild of a
 *   snapshot at the sealed generation. The active log rotates on its own past `rotateBytes`.
 * - `rebuild()` snapshots up to the newest sealed generation without rotating. Only when no
 *   sealed generation is newer than the current snapshot but the active log holds records does
 *   it rotate first, because a snapshot needs a sealed boundary and there would be nothing to do.
 * - A rebuild asked for while one runs is queued (one pending flag), never run concurrently.
 * - Any I/O error during a write marks the store dead; writes then throw StorageDeadError. A
 *   failed background rebuild does not kill the store: the log still holds everything. While
 *   erasure debt is owed it is tried again (after 1 s, doubling up to a minute, until one
 *   succeeds), since shredded plaintext stays in the files until a rebuild pays the debt;
 *   without debt the next rotation tries again.
 * - One process per data directory (a pid lock file, taken over when its owner is dead).
 */
import * as path from "node:path";
import { AssertionError, assert } from "../../core/assert";
import { ErasureDebt } from "../../core/wal/erasure-debt";
import { generationOfName, parseGeneration, walPath } from "../../core/wal/generation-names";
import type { KvBatch } from "../../core/wal/kv-batch";
import {
  makeSnapshotDurable,
  newestCompleteSnapshot,
  supersededSnapshotPaths,
  type SnapshotMeta,
} from "../../core/wal/snapshot-catalog";
import { FileSnapshotFormat } from "../../core/wal/snapshot-file";
import { StorageCorruptError, StorageDeadError } from "../../core/wal/storage-errors";
import type { BootReport, RebuildOutcome, StorageView } from "../../core/wal/storage-view";
import { WriteAheadLog, type DurabilityMarks, type WholeRecordsCut } from "../../core/wal/wal-log";
import { walLimits } from "../../core/wal/wal-limits";
import { noteActiveLog, notedActiveLog, requireNotedLog } from "./active-log-note";
import { lockDirectory } from "./directory-lock";
import { erasePath } from "./erase-files";
import { LevelSnapshotFormat } from "./level-snapshot";
import { NodeFileSystem } from "./node-fs";
import { buildSnapshot, eraseSuperseded } from "./snapshot-rebuild";
import { listStorageFiles } from "./storage-files";

export interface DurableStoreOptions {
  /** Active log size that triggers rotation (default 64 MiB). */
  readonly rotateBytes?: number;
  /** First wait before a failed rebuild owing erasure debt is tried again (default 1 s). */
  readonly rebuildRetryMs?: number;
  /**
   * The operator's log (the daemon's stderr): storage dying and rebuilds failing are said
   * there once each, besides GET /api/storage and /api/node. Default: silent.
   */
  readonly log?: (line: string) => void;
  /** Encoding bound past which a batch is a group of records (default 64 MiB; tests lower it). */
  readonly recordPartBytes?: number;
}

export interface DurableStoreOpened {
  readonly store: DurableStore;
  readonly boot: BootReport;
  /** The final key-value map: snapshot plus replayed logs. */
  readonly entries: Map<string, string>;
}

/**
 * Receives the final key-value state at boot, one entry at a time: every live key exactly once
 * with its final value, in no particular order.
 */
export type EntrySink = (key: string, value: string) => void;

/**
 * Queued rebuild requests are served one after another, this many in one batch of rounds (a
 * bound on one loop); a request still queued then starts the next batch, never dropped.
 */
const rebuildRoundsMax = 64;
const rebuildRetryFirstMs = 1000;
const rebuildRetryMaxMs = 60_000;

export class DurableStore {
  private deadReason: string | null = null;
  private rebuilding: Promise<void> | null = null;
  private rebuildPending = false;
  /** Set by close(): no rebuild starts any more (a debt left is paid at the next boot). */
  private closing = false;
  private lastOutcome: RebuildOutcome | null = null;
  /** A failed rebuild owing erasure debt is tried again on this timer (null: none waiting). */
  private retry: ReturnType<typeof setTimeout> | null = null;
  private retryDelayMs: number;

  private constructor(
    private readonly fs: NodeFileSystem,
    private readonly wal: WriteAheadLog,
    private snapshot: SnapshotMeta | null,
    private readonly debt: ErasureDebt,
    private readonly options: {
      readonly rotateBytes: number;
      readonly rebuildRetryMs: number;
      readonly unlock: () => void;
      readonly log: (line: string) => void;
      readonly recordPartBytes: number;
    },
  ) {
    this.retryDelayMs = options.rebuildRetryMs;
  }

  get rotateBytes(): number {
    return this.options.rotateBytes;
  }

  /** Opens (creating if missing) and boots a data directory; one process per directory. */
  static async open(
    dataDir: string,
    options: DurableStoreOptions = {},
  ): Promise<DurableStoreOpened> {
    const entries = new Map<string, string>();
    const opened = await DurableStore.openInto(dataDir, (k, v) => entries.set(k, v), options);
    return { ...opened, entries };
  }

  /**
   * `open`, streaming the final entries into `sink` instead of returning them as one map: a
   * large snapshot is never held in memory as a whole (the caller decodes as entries come).
   */
  static async openInto(
    dataDir: string,
    sink: EntrySink,
    options: DurableStoreOptions = {},
  ): Promise<Omit<DurableStoreOpened, "entries">> {
    const rotateBytes = options.rotateBytes ?? walLimits.rotateBytesDefault;
    assert(Number.isSafeInteger(rotateBytes) && rotateBytes > 0, "rotateBytes is positive");
    const rebuildRetryMs = options.rebuildRetryMs ?? rebuildRetryFirstMs;
    assert(Number.isSafeInteger(rebuildRetryMs) && rebuildRetryMs > 0, "rebuildRetryMs is positive");
    const log = options.log ?? ((): void => undefined);
    const recordPartBytes = options.recordPartBytes ?? walLimits.recordPartBytes;
    const started = performance.now();
    const fs = new NodeFileSystem(path.resolve(dataDir));
    const unlock = lockDirectory(fs.root, (pid) => {
      const run = pid === null ? "a previous run (its LOCK unreadable)" : `the previous run (process ${pid})`;
      log(`canopy: ${run} did not shut down cleanly; its lock was taken over`);
    });
    try {
      return await DurableStore.boot(
        fs,
        { rotateBytes, rebuildRetryMs, unlock, log, recordPartBytes },
        started,
        sink,
      );
    } catch (error) {
      unlock();
      throw error;
    }
  }

  /**
   * Boot streams: the logs after the snapshot are read first and folded into their final
   * values (a later log put or delete overrides the snapshot), which go to the sink first; then
   * the snapshot streams into the sink, skipping the keys the logs touched.
   */
  private static async boot(
    fs: NodeFileSystem,
    options: DurableStore["options"],
    started: number,
    sink: EntrySink,
  ): Promise<Omit<DurableStoreOpened, "entries">> {
    const snapshot = newestCompleteSnapshot(fs);
    if (snapshot !== null) makeSnapshotDurable(fs, snapshot);
    // Snapshot data without a readable marker is a rebuild a crash interrupted, whose logs are
    // all still there, or a snapshot whose marker was damaged or lost, whose older logs were
    // erased when it was built. Only the logs tell them apart: nothing is erased before they
    // proved continuous from the snapshot this boot relies on (a damaged marker used to make
    // the boot erase the only copy of the directory, then refuse for the missing logs).
    const leftovers = supersededSnapshotPaths(fs, snapshot?.generation ?? 0, true);
    if (snapshot !== null) requireSuccessorLog(fs, snapshot.generation);
    requireNotedLog(fs, newestLog(fs));
    let tail: ReturnType<typeof openTail>;
    try {
      tail = openTail(fs, snapshot, sink, options.recordPartBytes);
    } catch (error) {
      throw withOrphanHint(error, leftovers, snapshot?.generation ?? 0);
    }
    const { wal, stalePaths, tornBytes, recordsReplayed, overridden } = tail;
    if (notedActiveLog(fs) !== wal.marks().generation) noteActiveLog(fs, wal.marks().generation);
    const replayed = performance.now();
    let count = overridden.entries;
    // A snapshot that does not load is named, with the entry that did not decode; the error's
    // own text may quote stored values, which the log must not carry.
    const where = snapshot === null ? "" : `snapshot snap/gen-${String(snapshot.generation).padStart(6, "0")}`;
    try {
      await loadSnapshot(fs, snapshot, (key, value) => {
        if (overridden.keys.has(key)) return;
        count += 1;
        try {
          sink(key, value);
        } catch (error) {
          if (error instanceof AssertionError) throw error; // a bug, not damage
          const why = error instanceof SyntaxError ? "not valid JSON" : "not a valid entry";
          throw new StorageCorruptError(`${where}: entry ${JSON.stringify(key.slice(0, 80))} is ${why} (damaged?)`);
        }
      });
    } catch (error) {
      if (error instanceof StorageCorruptError || error instanceof AssertionError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      throw new StorageCorruptError(`${where} (.level and its .done marker) does not load: ${message}`);
    }
    const loaded = performance.now();
    for (const leftover of leftovers) await erasePath(fs.resolve(leftover));
    for (const stale of stalePaths) await erasePath(fs.resolve(stale));
    const debt = ErasureDebt.load(fs, wal.marks().generation);
    // Everything older than the snapshot was just erased: a rebuild a crash cut short after its
    // marker may have left the debt paid in all but name.
    if (snapshot !== null) debt.settle(snapshot.generation);
    const store = new DurableStore(fs, wal, snapshot, debt, options);
    const boot: BootReport = {
      // The sink's work (the caller decoding entries) is inside both figures.
      snapshotLoadMs: round(loaded - replayed),
      replayMs: round(replayed - started),
      totalMs: round(performance.now() - started),
      snapshotGeneration: snapshot?.generation ?? 0,
      snapshotEntries: snapshot?.entries ?? 0,
      recordsReplayed,
      tornBytesCut: tornBytes,
      wholeRecordsCut: tail.wholeRecordsCut,
      generation: wal.marks().generation,
      entries: count,
    };
    return { store, boot };
  }

  get dead(): boolean {
    return this.deadReason !== null;
  }

  /**
   * Appends every batch, then makes them durable with one fdatasync; returns once they are.
   * Throws StorageDeadError if the store is (or just became) dead: nothing may be acked then.
   */
  commit(batches: readonly KvBatch[]): void {
    this.assertAlive();
    if (batches.length === 0) return;
    this.guard(() => {
      for (const batch of batches) this.wal.append(batch);
      this.wal.sync();
    });
    if (this.wal.marks().appendedBytes >= this.rotateBytes) this.rotate();
  }

  /** Seals the active log, opens the next generation and starts a background rebuild. */
  rotate(): { sealedGeneration: number; generation: number } {
    this.assertAlive();
    // The next log is noted active before anything is appended to it (active-log-note.ts).
    const sealedGeneration = this.guard(() => {
      const sealed = this.wal.rotate();
      noteActiveLog(this.fs, this.wal.marks().generation);
      return sealed;
    });
    // A sealed log is never written again: its descriptor would otherwise stay open (one per
    // rotation) until close, and keep the inode alive after the rebuild erases and unlinks it.
    this.fs.release(walPath(sealedGeneration));
    this.requestRebuild();
    return { sealedGeneration, generation: this.wal.marks().generation };
  }

  /** Starts a background rebuild without rotation (see the decisions above for the exception). */
  rebuild(): { rotated: boolean } {
    this.assertAlive();
    const newestSealed = this.wal.sealed().at(-1)?.generation ?? 0;
    const nothingSealed = newestSealed <= (this.snapshot?.generation ?? 0);
    if (nothingSealed && this.wal.marks().appendedBytes > 0) {
      this.rotate();
      return { rotated: true };
    }
    this.requestRebuild();
    return { rotated: false };
  }

  /**
   * Raises the erasure debt by one for a batch that overwrites shredded values: call it
   * *before* committing that batch (intent first: a crash between the two must not leave the
   * plaintext with no debt, see ErasureDebt), then rotate() after the commit so that a rebuild
   * pays the debt. The batch will be appended to the active generation: the debt's generation.
   */
  markErasureDebt(): void {
    this.assertAlive();
    const generation = this.wal.marks().generation;
    this.guard(() => this.debt.raise(generation));
  }

  marks(): DurabilityMarks {
    return this.wal.marks();
  }

  /** Why the store died (null while it lives). */
  get deathReason(): string | null {
    return this.deadReason;
  }

  /**
   * The marks, erasure debt and dead flag without the file listing: GET /api/node wants only
   * these, and listing (and stat-ing) every file of a dying disk can fail (attack on the
   * twenty-seventh session's fixes).
   */
  status(): Pick<StorageView, "marks" | "erasureDebt" | "dead" | "deadReason"> {
    return { marks: this.wal.marks(), erasureDebt: this.debt.count, dead: this.dead, deadReason: this.deadReason };
  }

  view(): StorageView {
    const listing = listStorageFiles(this.fs, this.wal.marks());
    return {
      files: listing.files,
      ...(listing.unreadable === null ? {} : { filesUnreadable: listing.unreadable }),
      marks: this.wal.marks(),
      snapshotGeneration: this.snapshot?.generation ?? 0,
      rotateBytes: this.rotateBytes,
      erasureDebt: this.debt.count,
      rebuild: {
        running: this.rebuilding !== null,
        pending: this.rebuildPending || this.retry !== null,
        lastOutcome: this.lastOutcome,
      },
      dead: this.dead,
      deadReason: this.deadReason,
    };
  }

  /** Resolves when no rebuild runs or is queued (tests and shutdown). */
  async whenRebuildIdle(): Promise<void> {
    for (let rounds = 0; this.rebuilding !== null && rounds <= rebuildRoundsMax; rounds++) {
      await this.rebuilding;
    }
  }

  /** Waits for a running rebuild, then releases file descriptors and the directory lock. */
  async close(): Promise<void> {
    this.closing = true;
    this.cancelRetry();
    await this.whenRebuildIdle();
    this.cancelRetry();
    this.fs.closeAll();
    this.options.unlock();
  }

  private assertAlive(): void {
    if (this.deadReason !== null) throw new StorageDeadError(this.deadReason);
  }

  /** Runs a write; any exception from the file system marks the store dead. */
  private guard<T>(write: () => T): T {
    try {
      return write();
    } catch (error) {
      const first = this.deadReason === null;
      this.deadReason = error instanceof Error ? error.message : String(error);
      if (first) {
        this.options.log(
          `canopy: STORAGE DEAD: ${this.deadReason}; writes are refused (503 storage-dead) and reads go on ` +
            `from memory; fix the cause, then restart the daemon`,
        );
      }
      throw new StorageDeadError(this.deadReason);
    }
  }

  private requestRebuild(): void {
    if (this.closing) return;
    this.cancelRetry();
    if (this.rebuilding !== null) {
      this.rebuildPending = true;
      return;
    }
    this.rebuilding = this.runRebuilds().finally(() => {
      this.rebuilding = null;
      // A request that arrived during the batch's last round starts the next batch: dropping
      // it left a shred's erasure debt unpaid, its plaintext in the files, until some later
      // rotation, which on a quiet node may never come (concurrency audit, twenty-third session).
      if (this.rebuildPending && !this.dead) {
        this.rebuildPending = false;
        this.requestRebuild();
      }
    });
  }

  private async runRebuilds(): Promise<void> {
    for (let round = 0; round < rebuildRoundsMax; round++) {
      this.rebuildPending = false;
      await this.rebuildOnce();
      if (!this.rebuildPending) break;
    }
    if (this.lastOutcome?.ok === false && this.debt.count > 0 && !this.dead) this.retryLater();
    else if (this.lastOutcome?.ok === true) this.retryDelayMs = this.options.rebuildRetryMs;
  }

  /** Tries a failed rebuild again later, waiting twice as long each time (up to a minute). */
  private retryLater(): void {
    this.cancelRetry();
    const delay = this.retryDelayMs;
    this.retryDelayMs = Math.min(delay * 2, rebuildRetryMaxMs);
    this.retry = setTimeout(() => {
      this.retry = null;
      this.requestRebuild();
    }, delay);
    // A waiting retry does not keep the process alive; close() cancels it.
    this.retry.unref();
  }

  private cancelRetry(): void {
    if (this.retry === null) return;
    clearTimeout(this.retry);
    this.retry = null;
  }

  /** One rebuild to the newest sealed generation; records its outcome, never throws. */
  private async rebuildOnce(): Promise<void> {
    const started = performance.now();
    const previous = this.snapshot;
    const sealed = this.wal.sealed().filter((g) => g.generation > (previous?.generation ?? 0));
    const target = sealed.at(-1)?.generation ?? previous?.generation ?? 0;
    try {
      if (sealed.length > 0) {
        this.snapshot = await buildSnapshot({ fs: this.fs, level: this.level, previous, sealed });
        this.wal.forget(target);
      }
      await eraseSuperseded(this.fs, target);
      this.debt.settle(target);
      const entries = this.snapshot?.entries ?? 0;
      this.lastOutcome = outcome({ ok: true, started, entries, generation: target });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.lastOutcome = outcome({ ok: false, started, entries: 0, generation: target, message });
      const owed = this.debt.count;
      this.options.log(
        `canopy: snapshot rebuild to generation ${target} failed: ${message}` +
          (owed > 0 ? `; erasure debt ${owed} outstanding (shredded values stay in the files until a rebuild succeeds; it is retried)` : ""),
      );
    }
  }

  private get level(): LevelSnapshotFormat {
    return new LevelSnapshotFormat(this.fs);
  }
}

/**
 * Opens the log after `snapshot` and hands the final values of the keys its records touched
 * to `sink` at once (a later put or delete overrides the snapshot): only those keys are kept,
 * to skip their stale snapshot entries, not the records' values through the snapshot scan.
 */
function openTail(
  fs: NodeFileSystem,
  snapshot: SnapshotMeta | null,
  sink: EntrySink,
  recordPartBytes: number,
): {
  wal: WriteAheadLog;
  wholeRecordsCut: WholeRecordsCut | null;
  stalePaths: readonly string[];
  tornBytes: number;
  recordsReplayed: number;
  overridden: { keys: Set<string>; entries: number };
} {
  const opened = WriteAheadLog.open(
    fs,
    { generation: snapshot?.generation ?? 0, seq: snapshot?.lastSeq ?? 0 },
    { recordPartBytes },
  );
  const finals = new Map<string, string | null>();
  for (const record of opened.records) {
    for (const [key, value] of record.batch.puts) finals.set(key, value);
    for (const key of record.batch.dels) finals.set(key, null);
  }
  let entries = 0;
  for (const [key, value] of finals) {
    if (value === null) continue;
    entries += 1;
    sink(key, value);
  }
  return {
    wal: opened.wal,
    wholeRecordsCut: opened.wholeRecordsCut,
    stalePaths: opened.stalePaths,
    tornBytes: opened.tornBytes,
    recordsReplayed: opened.records.length,
    overridden: { keys: new Set(finals.keys()), entries },
  };
}

/**
 * A snapshot of generation N is built only after the rotation that sealed N made log N + 1
 * durable, and a later snapshot would be the newest: so log N + 1 (or a later one) must be
 * there. Missing, it took every write acknowledged since the snapshot with it, and the boot
 * used to start a fresh log over the gap without a word.
 */
/** The newest log generation on disk, or null when there is none. */
function newestLog(fs: NodeFileSystem): number | null {
  let newest: number | null = null;
  for (const name of fs.list("wal")) {
    const generation = parseGeneration(name, ".log");
    if (generation !== null && (newest === null || generation > newest)) newest = generation;
  }
  return newest;
}

function requireSuccessorLog(fs: NodeFileSystem, generation: number): void {
  const later = fs.list("wal").some((name) => (parseGeneration(name, ".log") ?? 0) > generation);
  if (later) return;
  const next = walPath(generation + 1);
  throw new StorageCorruptError(
    `snapshot ${generation} is the newest, but its successor log ${next} is missing: the writes acknowledged ` +
      `after the snapshot are gone from this directory. Restore ${next} from a backup, or, to start from the ` +
      `snapshot alone, create it empty (touch ${next}) and start again`,
  );
}

/**
 * A boot refused for its logs, told what it kept: snapshot data newer than the snapshot it
 * could rely on, which has no readable marker. If a marker was damaged, that data may be the
 * only copy of what the missing logs held.
 */
function withOrphanHint(error: unknown, leftovers: readonly string[], kept: number): unknown {
  if (!(error instanceof StorageCorruptError)) return error;
  const orphans = leftovers.filter((p) => {
    const generation = generationOfName(path.basename(p));
    return generation !== null && generation > kept && !p.endsWith(".done");
  });
  if (orphans.length === 0) return error;
  const hint =
    `; snapshot data without a readable marker was kept, not erased: ${orphans.join(", ")} ` +
    `(if its marker snap/gen-N.done was damaged or lost, that data may be the only copy of what the missing logs held)`;
  return new StorageCorruptError(error.message + hint);
}

async function loadSnapshot(
  fs: NodeFileSystem,
  snapshot: SnapshotMeta | null,
  sink: EntrySink,
): Promise<void> {
  if (snapshot === null) return;
  if (snapshot.kind === "file") {
    for (const [key, value] of new FileSnapshotFormat(fs).load(snapshot)) sink(key, value);
    return;
  }
  await new LevelSnapshotFormat(fs).stream(snapshot, sink);
}

function outcome(o: {
  ok: boolean;
  started: number;
  entries: number;
  generation: number;
  message?: string;
}): RebuildOutcome {
  const base = {
    at: new Date().toISOString(),
    ok: o.ok,
    durationMs: round(performance.now() - o.started),
    entries: o.entries,
    generation: o.generation,
  };
  return o.message === undefined ? base : { ...base, error: o.message };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
