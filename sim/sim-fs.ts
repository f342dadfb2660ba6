import { Buffer } from "node:buffer";
import { assert } from "../core/assert";
import type { FileSystem } from "../core/wal/fs-port";
import type { Prng } from "./prng";

/** The operations of the FileSystem port, named for fault injection. */
export type FsOp =
  | "list"
  | "read"
  | "append"
  | "writeAt"
  | "write"
  | "sync"
  | "syncDir"
  | "truncate"
  | "rename"
  | "remove"
  | "size";

export type SimFsErrorCode = "EIO" | "ENOENT" | "EISDIR" | "ENOTDIR";

/**
 * Thrown like a node:fs error: `code` says which. EIO only ever comes from failNext, or from a
 * disk whose power was cut (armPowerCut).
 */
export class SimFsError extends Error {
  override readonly name = "SimFsError";
  constructor(
    readonly code: SimFsErrorCode,
    readonly op: FsOp,
    readonly path: string,
  ) {
    super(`${code}: ${op} ${path}`);
  }
}

/** The durable state of a disk as a value: path -> content, paths sorted. */
export interface SimFsImage {
  readonly files: ReadonlyMap<string, Uint8Array>;
}

export interface SimFsStats {
  appends: number;
  appendedBytes: number;
  /** Positional writes (writeAt) and their bytes. */
  writesAt: number;
  writtenAtBytes: number;
  writes: number;
  syncs: number;
  dirSyncs: number;
  crashes: number;
}

export interface SimFsOptions {
  /**
   * True (default): a subdirectory's own entry in its parent is durable only after
   * syncDir(parent), as POSIX says; a crash may lose a directory created since, with all its
   * files. False: directories are durable as soon as they exist (what ext4 mostly delivers).
   */
  readonly strictDirs: boolean;
}

export interface CrashOptions {
  /** Keep a random prefix of the last-written file's unsynced writes (a torn write). */
  readonly tornTail: boolean;
  /**
   * Keep all of them instead (with tornTail): the writes reached the disk though their sync
   * never returned, so an operation cut short can be durable. Scripts pin that case with it.
   */
  readonly keepUnsynced?: boolean;
}

/**
 * A power cut armed inside the disk's coming writes: the process dies just before its
 * `afterWrites`-th mutating call from now (append, writeAt, write, sync, syncDir, truncate,
 * rename, remove), so unsynced appends it made just before are lost or torn as a crash says.
 */
export interface PowerCutArming {
  readonly afterWrites: number;
  readonly tornTail: boolean;
  /** See CrashOptions.keepUnsynced. */
  readonly keepUnsynced?: boolean;
  /** Which mutating calls count towards `afterWrites` (default: all of them). */
  readonly counts?: (op: FsOp, path: string) => boolean;
  /** The disk's stream: the crash's coins (dirty directories, torn length) come from it. */
  readonly prng: Prng;
}

/** A transient I/O error armed on the disk's coming mutating calls (SimFs.armError). */
export interface DiskErrorArming {
  readonly afterWrites: number;
  /** Which mutating calls count towards `afterWrites` (default: all of them). */
  readonly counts?: (op: FsOp, path: string) => boolean;
}

/** The call a transient I/O error failed: it had no effect, and the disk works on. */
export interface DiskErrorReport {
  readonly op: FsOp;
  readonly path: string;
}

/** Where a power cut struck, and what of the disk its crash kept. */
export interface PowerCutReport extends CrashReport {
  /** The call that never ran (the process died just before it), and its path. */
  readonly op: FsOp;
  readonly path: string;
}

export interface CrashReport {
  /** Directories whose unsynced entry changes survived, sorted. */
  readonly keptDirs: readonly string[];
  /** Directories whose unsynced entry changes were lost, sorted. */
  readonly lostDirs: readonly string[];
  /** Path and kept byte count of the torn tail, when one was kept. */
  readonly torn: { readonly path: string; readonly keptBytes: number } | null;
}

/**
 * One change to a file since its last sync, undoable: before it, the file was `oldLen` bytes
 * long and [offset, offset + old.length) held `old` (only what it overwrote of the old content
 * is kept, so an append or a write into unsynced space copies nothing). It wrote `written`
 * bytes from `offset` on. `tearable` changes (append, writeAt) are writes a crash may keep a
 * prefix of; a whole rewrite or a truncate is not (a crash keeps all or none of the metadata).
 */
interface Change {
  readonly offset: number;
  readonly old: Uint8Array;
  readonly oldLen: number;
  written: number;
  readonly tearable: boolean;
  /** The file's own buffer this change replaced (nothing else sees it): reusable after sync. */
  readonly replaced?: Uint8Array;
}

/**
 * File data: the current bytes buf[0, len), and the changes since the last sync, oldest first.
 * Undoing them newest first gives the durable content, so a sync copies nothing (the WAL writes
 * and syncs often) and the WAL's in-place writes into zero-filled space save only the zeros
 * they cover.
 */
interface Inode {
  buf: Uint8Array;
  len: number;
  changes: Change[];
  /**
   * `buf` may be seen elsewhere (a disk image, the shared zeros of an erasure): it is copied
   * before any change in place (copy on write), so images and restores need no copy of their
   * own. Every backing store the simulator allocates costs V8 young-generation work: a
   * scavenge runs per 16-32 MB of new ones.
   */
  shared: boolean;
}

/**
 * An in-memory disk for the simulator that keeps what a real disk keeps across power loss.
 *
 * Model: a file's bytes are durable after `sync(path)`; a directory's entries (names created,
 * renamed or removed in it, subdirectories included) are durable after `syncDir(dir)`, which
 * makes the directory's current entries its durable ones. Directories are implicit: they exist
 * while a file lies under them and need no mkdir, but (with strictDirs) a new directory's own
 * entry needs syncDir of its parent, like any name. `crash` reverts every file to its synced bytes,
 * keeps or loses each directory's unsynced entry changes as a whole (a journaling file system
 * commits a directory's metadata together), and may keep a random prefix (in write order) of
 * the unsynced appends and positional writes of the last-written file: a torn write that can
 * end inside a record, in place or at the end.
 * Errors follow POSIX and adapters/storage/node-fs.ts: ENOENT for a missing file in sync,
 * writeAt, truncate and rename; remove is `rm -rf` (absent is fine, a directory goes with its
 * content).
 */
export class SimFs implements FileSystem {
  readonly stats: SimFsStats = {
    appends: 0,
    appendedBytes: 0,
    writesAt: 0,
    writtenAtBytes: 0,
    writes: 0,
    syncs: 0,
    dirSyncs: 0,
    crashes: 0,
  };
  private names = new Map<string, Inode>();
  private durableNames = new Map<string, Inode>();
  /** Non-root directories whose entry in their parent is durable (strict mode). */
  private durableDirs = new Set<string>();
  private lastWritten: Inode | null = null;
  private readonly failures = new Map<FsOp, number>();
  private cut: { remaining: number; readonly arming: PowerCutArming } | null = null;
  private struck: PowerCutReport | null = null;
  private error: { remaining: number; readonly arming: DiskErrorArming } | null = null;
  private errorStruck: DiskErrorReport | null = null;

  constructor(private readonly options: SimFsOptions = { strictDirs: true }) {}

  /** Makes the next `count` calls of `op` throw EIO without any effect. */
  failNext(op: FsOp, count = 1): void {
    assert(count >= 1, "failNext count >= 1");
    this.failures.set(op, (this.failures.get(op) ?? 0) + count);
  }

  clearFailures(): void {
    this.failures.clear();
  }

  /**
   * Arms a power cut (see PowerCutArming). When it strikes, the disk crashes at once (as
   * `crash` does, with the arming's stream and torn-tail choice), and every later call, reads
   * included, throws EIO: the process that would make it is dead. `powerCut` then reports it
   * until `clearPowerCut` (the world's kill of the node).
   */
  armPowerCut(arming: PowerCutArming): void {
    assert(Number.isSafeInteger(arming.afterWrites) && arming.afterWrites >= 1, "power cut after >= 1 write");
    assert(this.struck === null, "a disk whose power was cut is cleared before it is armed again");
    this.cut = { remaining: arming.afterWrites, arming };
  }

  /** True while a power cut is armed and has not struck. */
  get powerCutArmed(): boolean {
    return this.cut !== null;
  }

  /** The power cut that struck, until cleared; null otherwise. */
  get powerCut(): PowerCutReport | null {
    return this.struck;
  }

  /**
   * Arms one transient I/O error: the `afterWrites`-th counted mutating call from now throws
   * EIO without any effect, and every later call works (a disk that failed one write, unlike
   * a power cut). `diskError` reports it until `takeDiskError`.
   */
  armError(arming: DiskErrorArming): void {
    assert(Number.isSafeInteger(arming.afterWrites) && arming.afterWrites >= 1, "disk error after >= 1 write");
    this.error = { remaining: arming.afterWrites, arming };
  }

  get errorArmed(): boolean {
    return this.error !== null;
  }

  disarmError(): void {
    this.error = null;
  }

  /** The transient error that struck since the last call, if any; forgets it. */
  takeDiskError(): DiskErrorReport | null {
    const struck = this.errorStruck;
    this.errorStruck = null;
    return struck;
  }

  /** Disarms a pending power cut and forgets one that struck (the disk works again). */
  clearPowerCut(): void {
    this.cut = null;
    this.struck = null;
  }

  list(dir: string): string[] {
    this.beforeRead("list", dir);
    const d = normDir(dir);
    const prefix = d === "" ? "" : `${d}/`;
    const found = new Set<string>();
    for (const path of this.names.keys()) {
      if (!path.startsWith(prefix)) continue;
      const rest = path.slice(prefix.length);
      const slash = rest.indexOf("/");
      found.add(slash === -1 ? rest : rest.slice(0, slash));
    }
    return [...found].sort();
  }

  read(path: string): Uint8Array | null {
    this.beforeRead("read", path);
    const inode = this.names.get(normPath(path));
    return inode === undefined ? null : inode.buf.slice(0, inode.len);
  }

  /** `read` without the copy: the live bytes, valid until the file next changes. */
  readView(path: string): Uint8Array | null {
    this.beforeRead("read", path);
    const inode = this.names.get(normPath(path));
    return inode === undefined ? null : inode.buf.subarray(0, inode.len);
  }

  append(path: string, bytes: Uint8Array): void {
    this.beforeWrite("append", path);
    const inode = this.openOrCreate("append", normPath(path));
    writeBytes(inode, inode.len, bytes);
    this.lastWritten = inode;
    this.stats.appends++;
    this.stats.appendedBytes += bytes.length;
  }

  writeAt(path: string, offset: number, bytes: Uint8Array): void {
    this.beforeWrite("writeAt", path);
    const inode = this.mustGet("writeAt", path);
    assert(Number.isSafeInteger(offset) && offset >= 0, "writeAt offset >= 0");
    assert(offset <= inode.len, "writeAt leaves no hole");
    writeBytes(inode, offset, bytes);
    this.lastWritten = inode;
    this.stats.writesAt++;
    this.stats.writtenAtBytes += bytes.length;
  }

  write(path: string, bytes: Uint8Array): void {
    this.beforeWrite("write", path);
    const inode = this.openOrCreate("write", normPath(path));
    // The old buffer is replaced below and nothing changes it any more (an image may share
    // it), so the undo record keeps it as it is: no copy (snapshot rewrites and erasures
    // rewrite whole multi-MB files).
    const old = inode.buf.subarray(0, inode.len);
    const written = bytes.length;
    inode.changes.push(replacing(inode, { offset: 0, old, oldLen: inode.len, written, tearable: false }));
    const buf = spareBuffers.take(bytes.length) ?? new Uint8Array(bytes.length);
    buf.set(bytes);
    inode.buf = buf;
    inode.shared = false;
    inode.len = bytes.length;
    this.stats.writes++;
  }

  /**
   * `write` of as many zeros as the file holds (an erasure), failing as `write` fails; the
   * new content shares one read-only zero buffer instead of a copy of the zeros.
   */
  overwriteWithZeros(path: string): void {
    this.beforeWrite("write", path);
    const inode = this.mustGet("write", path);
    const old = inode.buf.subarray(0, inode.len);
    const written = inode.len;
    inode.changes.push(replacing(inode, { offset: 0, old, oldLen: inode.len, written, tearable: false }));
    inode.buf = zerosOfAtLeast(inode.len);
    inode.shared = true;
    this.stats.writes++;
  }

  sync(path: string): void {
    this.beforeWrite("sync", path);
    const inode = this.mustGet("sync", path);
    // The bytes the undo records kept are no longer needed: replaced buffers may be reused.
    for (const change of inode.changes) if (change.replaced !== undefined) spareBuffers.give(change.replaced);
    inode.changes = [];
    this.stats.syncs++;
  }

  syncDir(dir: string): void {
    this.beforeWrite("syncDir", dir);
    this.commitDir(normDir(dir));
    this.stats.dirSyncs++;
  }

  truncate(path: string, length: number): void {
    this.beforeWrite("truncate", path);
    assert(Number.isSafeInteger(length) && length >= 0, "truncate length >= 0");
    const inode = this.mustGet("truncate", path);
    const offset = Math.min(length, inode.len);
    // Shared zeros when the cut bytes are zeros: the WAL cuts a sealed generation's unused
    // preallocated space at every rotation.
    const old = overwritten(inode.buf, offset, inode.len);
    const written = Math.max(0, length - inode.len);
    inode.changes.push({ offset, old, oldLen: inode.len, written, tearable: false });
    if (length > inode.len) {
      ensureWritable(inode, length);
      inode.buf.fill(0, inode.len, length);
    }
    inode.len = length;
  }

  rename(from: string, to: string): void {
    this.beforeWrite("rename", from);
    const f = normPath(from);
    const t = normPath(to);
    const inode = this.mustGet("rename", f);
    if (f === t) return;
    this.checkCreatable("rename", t);
    this.names.delete(f);
    this.names.set(t, inode);
  }

  /** Removes a file, or a directory with everything under it; absent paths are a no-op. */
  remove(path: string): void {
    this.beforeWrite("remove", path);
    const p = normPath(path);
    const asDir = `${p}/`;
    for (const other of [...this.names.keys()]) {
      if (other === p || other.startsWith(asDir)) this.names.delete(other);
    }
  }

  size(path: string): number | null {
    this.beforeRead("size", path);
    const inode = this.names.get(normPath(path));
    return inode === undefined ? null : inode.len;
  }

  /**
   * Power loss: the disk keeps what a real one may keep (see the class comment). Draws from
   * prng in a fixed order: one coin per directory with unsynced changes (sorted), then the
   * torn-tail length.
   */
  crash(prng: Prng, options: CrashOptions = { tornTail: true }): CrashReport {
    const { keptDirs, lostDirs } = this.crashNames(prng);
    const tornInode = options.tornTail ? this.lastWritten : null;
    let torn: CrashReport["torn"] = null;
    for (const [path, inode] of sortedEntries(this.names)) {
      const tearable = inode === tornInode ? tearableBytes(inode) : null;
      const keep = tearable === null ? 0 : options.keepUnsynced === true ? tearable : prng.int(0, tearable);
      if (keep > 0) torn = { path, keptBytes: keep };
      revertInode(inode, keep);
    }
    this.lastWritten = null;
    this.failures.clear();
    this.stats.crashes++;
    return { keptDirs, lostDirs, torn };
  }

  /** The durable state as a value; later writes never change an image. */
  image(): SimFsImage {
    const files = new Map<string, Uint8Array>();
    for (const [path, inode] of sortedEntries(this.durableNames)) {
      if (!this.reachable(path)) continue;
      // Shared, not copied: the next change in place copies the file's buffer first.
      const bytes = durableBytes(inode);
      if (bytes.buffer === inode.buf.buffer) inode.shared = true;
      files.set(path, bytes);
    }
    return { files };
  }

  /**
   * Replaces the whole disk (durable and volatile) with an image: a disk rollback. The files
   * share the image's bytes until they change (copy on write); the image stays as it was.
   */
  restore(image: SimFsImage): void {
    const replaced = [...this.names.values(), ...this.durableNames.values()];
    this.names = new Map();
    for (const [path, bytes] of image.files) {
      this.names.set(path, { buf: bytes, len: bytes.length, changes: [], shared: true });
    }
    this.durableNames = new Map(this.names);
    this.durableDirs = this.liveDirs();
    this.lastWritten = null;
    this.failures.clear();
    this.recycle(replaced);
  }

  /** Paths of all files, sorted; for tests and checkers. */
  paths(): string[] {
    return [...this.names.keys()].sort();
  }

  private crashNames(prng: Prng): { keptDirs: string[]; lostDirs: string[] } {
    const keptDirs: string[] = [];
    const lostDirs: string[] = [];
    for (const dir of this.dirtyDirs()) {
      if (prng.chance(0.5)) {
        this.commitDir(dir);
        keptDirs.push(dir);
      } else {
        lostDirs.push(dir);
      }
    }
    // A file survives when its own entry and every ancestor directory's entry are durable.
    for (const path of [...this.durableNames.keys()]) {
      if (!this.reachable(path)) this.durableNames.delete(path);
    }
    for (const dir of [...this.durableDirs]) {
      if (!this.reachable(dir)) this.durableDirs.delete(dir);
    }
    const volatile = [...this.names.values()];
    this.names = new Map(this.durableNames);
    // Files created since their directory's last sync are gone with it.
    this.recycle(volatile);
    return { keptDirs, lostDirs };
  }

  /** Directories whose entries (files or subdirectories) differ from their durable ones. */
  private dirtyDirs(): string[] {
    const dirty = new Set<string>();
    for (const [path, inode] of this.names) {
      if (this.durableNames.get(path) !== inode) dirty.add(parentOf(path));
    }
    for (const path of this.durableNames.keys()) {
      if (!this.names.has(path)) dirty.add(parentOf(path));
    }
    if (this.options.strictDirs) {
      const dirs = this.liveDirs();
      for (const dir of dirs) if (!this.durableDirs.has(dir)) dirty.add(parentOf(dir));
      for (const dir of this.durableDirs) if (!dirs.has(dir)) dirty.add(parentOf(dir));
    }
    return [...dirty].sort();
  }

  /** Makes the durable entries of `dir` (files and, when strict, subdirectories) current. */
  private commitDir(dir: string): void {
    let dropped: Inode[] | null = null;
    for (const [path, inode] of [...this.durableNames]) {
      if (parentOf(path) === dir && !this.names.has(path)) {
        this.durableNames.delete(path);
        (dropped ??= []).push(inode);
      }
    }
    for (const [path, inode] of this.names) {
      if (parentOf(path) === dir) this.durableNames.set(path, inode);
    }
    if (dropped !== null) this.recycle(dropped);
    if (!this.options.strictDirs) return;
    const dirs = this.liveDirs();
    for (const sub of [...this.durableDirs]) {
      if (parentOf(sub) === dir && !dirs.has(sub)) this.durableDirs.delete(sub);
    }
    for (const sub of dirs) if (parentOf(sub) === dir) this.durableDirs.add(sub);
  }

  /**
   * Gives the buffers of files the disk no longer holds (a durable removal, a file lost in a
   * crash, every file of a disk restored from an image) to the spare buffers, when no name
   * (volatile or durable) holds the file any more and no image shares its bytes: each was
   * otherwise a backing store for V8 to collect while the next file grew a fresh one. A scan's
   * view of a dropped file is past its end (readForScan: a scan finishes before the file next
   * changes).
   */
  private recycle(dropped: readonly Inode[]): void {
    const held = new Set<Inode>(this.names.values());
    for (const inode of this.durableNames.values()) held.add(inode);
    for (const inode of dropped) {
      if (held.has(inode)) continue;
      held.add(inode);
      for (const change of inode.changes) if (change.replaced !== undefined) spareBuffers.give(change.replaced);
      if (!inode.shared) spareBuffers.give(inode.buf);
      if (this.lastWritten === inode) this.lastWritten = null;
      inode.buf = noBytes;
      inode.len = 0;
      inode.changes = [];
      inode.shared = true;
    }
  }

  /** Non-root directories that exist now: every proper ancestor of a file. */
  private liveDirs(): Set<string> {
    const dirs = new Set<string>();
    for (const path of this.names.keys()) {
      for (let i = path.indexOf("/"); i !== -1; i = path.indexOf("/", i + 1)) {
        dirs.add(path.slice(0, i));
      }
    }
    return dirs;
  }

  private reachable(path: string): boolean {
    if (!this.options.strictDirs) return true;
    for (let i = path.indexOf("/"); i !== -1; i = path.indexOf("/", i + 1)) {
      if (!this.durableDirs.has(path.slice(0, i))) return false;
    }
    return true;
  }

  private openOrCreate(op: FsOp, path: string): Inode {
    const existing = this.names.get(path);
    if (existing !== undefined) return existing;
    this.checkCreatable(op, path);
    const inode: Inode = { buf: new Uint8Array(64), len: 0, changes: [], shared: false };
    this.names.set(path, inode);
    return inode;
  }

  /** A new name must not be a directory, nor lie under a file. */
  private checkCreatable(op: FsOp, path: string): void {
    const asDir = `${path}/`;
    for (const other of this.names.keys()) {
      if (other.startsWith(asDir)) throw new SimFsError("EISDIR", op, path);
    }
    for (let i = path.indexOf("/"); i !== -1; i = path.indexOf("/", i + 1)) {
      if (this.names.has(path.slice(0, i))) throw new SimFsError("ENOTDIR", op, path);
    }
  }

  private mustGet(op: FsOp, path: string): Inode {
    const inode = this.names.get(normPath(path));
    if (inode === undefined) throw new SimFsError("ENOENT", op, path);
    return inode;
  }

  private beforeRead(op: FsOp, path: string): void {
    if (this.struck !== null) throw new SimFsError("EIO", op, path);
    this.maybeFail(op, path);
  }

  /** Counts a mutating call towards an armed power cut; strikes before the armed one. */
  private beforeWrite(op: FsOp, path: string): void {
    if (this.struck !== null) throw new SimFsError("EIO", op, path);
    const cut = this.cut;
    if (cut !== null && (cut.arming.counts?.(op, path) ?? true) && --cut.remaining === 0) {
      this.cut = null;
      const { tornTail, keepUnsynced } = cut.arming;
      const report = this.crash(cut.arming.prng, { tornTail, ...(keepUnsynced ? { keepUnsynced } : {}) });
      this.struck = { ...report, op, path };
      throw new SimFsError("EIO", op, path);
    }
    const error = this.error;
    if (error !== null && (error.arming.counts?.(op, path) ?? true) && --error.remaining === 0) {
      this.error = null;
      this.errorStruck = { op, path };
      throw new SimFsError("EIO", op, path);
    }
    this.maybeFail(op, path);
  }

  private maybeFail(op: FsOp, path: string): void {
    const pending = this.failures.get(op);
    if (pending === undefined) return;
    if (pending <= 1) this.failures.delete(op);
    else this.failures.set(op, pending - 1);
    throw new SimFsError("EIO", op, path);
  }
}

/**
 * Writes bytes at `offset` (at most the length), recording the change. Consecutive writes that
 * each extend the file where the previous one ended (appends) share one change record.
 */
function writeBytes(inode: Inode, offset: number, bytes: Uint8Array): void {
  if (bytes.length === 0) return;
  const end = offset + bytes.length;
  const last = inode.changes.at(-1);
  if (
    last !== undefined && last.tearable && last.old.length === 0 &&
    offset === inode.len && last.offset + last.written === offset
  ) {
    last.written += bytes.length;
  } else {
    const old = overwritten(inode.buf, offset, Math.min(end, inode.len));
    inode.changes.push({ offset, old, oldLen: inode.len, written: bytes.length, tearable: true });
  }
  ensureWritable(inode, end);
  inode.buf.set(bytes, offset);
  inode.len = Math.max(inode.len, end);
}

const noBytes = new Uint8Array(0);

/** The bytes [from, to) of `buf` as an undo record keeps them: a copy, or shared zeros. */
function overwritten(buf: Uint8Array, from: number, to: number): Uint8Array {
  const length = to - from;
  if (length <= 0) return noBytes;
  // Shared zeros: the WAL writes every record into zero-filled, preallocated space, and a
  // copy of the zeros it covers was an allocation per commit.
  const zeros = zerosOfAtLeast(length).subarray(0, length);
  // A native compare: a byte loop here was ~2 % of a standard seed (every WAL append).
  return Buffer.compare(buf.subarray(from, to), zeros) === 0 ? zeros : buf.slice(from, to);
}

/** Bytes a torn write may keep a prefix of, or null when a change since the sync is not a write. */
function tearableBytes(inode: Inode): number | null {
  let total = 0;
  for (const change of inode.changes) {
    if (!change.tearable) return null;
    total += change.written;
  }
  return total;
}

function durableBytes(inode: Inode): Uint8Array {
  const first = inode.changes[0];
  if (first === undefined) return inode.buf.subarray(0, inode.len);
  // Only extensions since the sync: the durable content is a prefix, no copy needed.
  if (inode.changes.every((c) => c.old.length === 0 && c.offset >= c.oldLen)) {
    return inode.buf.subarray(0, first.oldLen);
  }
  const { len, changes } = inode;
  const copy: Inode = { buf: inode.buf.slice(0, len), len, changes, shared: false };
  undoChanges(copy, 0);
  return copy.buf.subarray(0, copy.len);
}

/** Power loss for one file: back to its durable bytes plus the first `keep` bytes written since. */
function revertInode(inode: Inode, keep: number): void {
  undoChanges(inode, keep);
  inode.changes = [];
}

/**
 * Undoes the changes newest first, except the first `keep` bytes they wrote (in write order):
 * a change wholly inside that prefix stays, the one it ends in is undone after its kept part.
 */
function undoChanges(inode: Inode, keep: number): void {
  assert(keep === 0 || tearableBytes(inode) !== null, "only writes tear");
  let before = 0;
  const keptOf = inode.changes.map((change) => {
    const kept = Math.max(0, Math.min(change.written, keep - before));
    before += change.written;
    return kept;
  });
  assert(keep <= before, "a torn prefix lies inside what was written");
  for (let i = inode.changes.length - 1; i >= 0; i--) {
    const change = inode.changes[i];
    const kept = keptOf[i];
    assert(change !== undefined && kept !== undefined, "index in range");
    // Kept whole (a truncate writes nothing, so it is never kept: keep is 0 when one happened).
    if (kept === change.written && kept > 0) continue;
    ensureWritable(inode, change.oldLen);
    if (kept < change.old.length) inode.buf.set(change.old.subarray(kept), change.offset + kept);
    inode.len = Math.max(change.oldLen, change.offset + kept);
  }
}

/** Makes `inode.buf` the file's own, with room for `needed` bytes (copy on write, growth). */
function ensureWritable(inode: Inode, needed: number): void {
  if (!inode.shared && needed <= inode.buf.length) return;
  const capacity = inode.shared
    ? Math.max(needed, inode.len)
    : Math.max(needed, inode.buf.length * 2);
  const grown = spareBuffers.take(capacity) ?? new Uint8Array(capacity);
  grown.set(inode.buf.subarray(0, inode.len));
  if (!inode.shared) spareBuffers.give(inode.buf);
  inode.buf = grown;
  inode.shared = false;
}

/** A whole-file change that replaces the buffer: notes the buffer when it is the file's own. */
function replacing(inode: Inode, change: Change): Change {
  return inode.shared ? change : { ...change, replaced: inode.buf };
}

/**
 * File buffers no file, image or undo record holds any more, for growth and whole-file writes
 * to reuse: every new backing store is young-generation work for V8 (a scavenge per 16-32 MB
 * of them), and a file's growth by doubling, the log generations above all, was most of the
 * simulator's. A reused buffer may hold old bytes past the file's length; nothing reads there
 * (no write leaves a hole; truncate zero-fills what it extends). Bounded; best fit within 4x,
 * so that a small file does not take a large buffer.
 */
class SpareBuffers {
  private readonly free: Uint8Array[] = [];
  private bytes = 0;

  constructor(
    private readonly minBytes: number,
    private readonly maxBytes: number,
    private readonly maxCount: number,
  ) {}

  give(buf: Uint8Array): void {
    if (buf.length < this.minBytes || buf.byteOffset !== 0 || buf.length !== buf.buffer.byteLength) return;
    if (this.free.length >= this.maxCount || this.bytes + buf.length > this.maxBytes) return;
    assert(!this.free.includes(buf), "a spare buffer is given once");
    this.free.push(buf);
    this.bytes += buf.length;
  }

  take(min: number): Uint8Array | null {
    if (min < this.minBytes) return null;
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      const length = this.free[i]!.length;
      if (length >= min && length <= 4 * min && (best < 0 || length < this.free[best]!.length)) best = i;
    }
    if (best < 0) return null;
    const buf = this.free[best]!;
    this.free[best] = this.free[this.free.length - 1]!;
    this.free.pop();
    this.bytes -= buf.length;
    return buf;
  }
}

const spareBuffers = new SpareBuffers(4096, 32 * 1024 * 1024, 32);

/**
 * Zeros never written to, shared by every erased file and by the undo records of writes over
 * zeros (grown to the largest one).
 */
let erasedZeros = new Uint8Array(0);

function zerosOfAtLeast(length: number): Uint8Array {
  if (length > erasedZeros.length) erasedZeros = new Uint8Array(Math.max(length, 2 * erasedZeros.length));
  return erasedZeros;
}

function sortedEntries(map: Map<string, Inode>): [string, Inode][] {
  return [...map.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash === -1 ? "" : path.slice(0, slash);
}

const unusualPath = /(^|\/)\.{1,2}(\/|$)|^\/|\/$|\/\//;

/** Canonical relative path: no leading or trailing '/', no empty, '.' or '..' parts. */
function normPath(path: string): string {
  const p = unusualPath.test(path) ? normSlow(path) : path;
  assert(p.length > 0, "a file path is not the root");
  return p;
}

function normDir(dir: string): string {
  return dir === "" || dir === "." ? "" : normSlow(dir);
}

function normSlow(path: string): string {
  const parts = path.split("/").filter((part) => part !== "" && part !== ".");
  assert(!parts.includes(".."), "paths never climb out of the root");
  return parts.join("/");
}
