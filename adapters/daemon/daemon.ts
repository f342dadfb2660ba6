/**
 * The daemon's driver: the one real event loop around a pure DirectoryNode and its
 * DurableStore. Requests apply to the node synchronously (so they are serialized by the
 * JavaScript event loop itself); a successful write then waits for the turn's group commit,
 * and only after the batch is durable does the caller get its result (ack after durable).
 *
 * Decisions:
 * - A failed commit marks storage dead: the waiting writes and every later write get
 *   `storage-dead` (a transport-level refusal, outside SPEC's table); reads go on in memory.
 *   Reads and refusals over HTTP wait for the flush of the current turn (`committed()`), so
 *   they show only durable writes; a write is only acknowledged once durable. The writes whose own
 *   commit failed have an unknown outcome: they stay visible to reads until a restart, and
 *   the failed append or fsync may or may not have reached the disk (ARCHITECTURE.md).
 * - A shred (or a GC that hardened or purged) makes `ready()` report erasure: the store's debt
 *   is raised before the batch is committed (a crash between them then overstates the debt
 *   instead of forgetting plaintext), and after the commit a rotation starts the rebuild that
 *   pays it.
 * - GC runs on a schedule when `gcEveryMs` is given (the serve command gives it: every hour by
 *   default, gc-schedule.ts), at start and then every period, and on demand (POST /api/gc).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { assert } from "../../core/assert";
import type { Result } from "../../core/errors";
import type { Guid } from "../../core/guid";
import { validateObjectName } from "../../core/naming";
import { DirectoryNode } from "../../core/node/directory-node";
import { effectiveStage } from "../../core/view/aging";
import type { NodeSummary } from "../../core/node/directory-node";
import { StorageDeadError } from "../../core/wal/storage-errors";
import type { BootReport, StorageView } from "../../core/wal/storage-view";
import type { DurabilityMarks, WholeRecordsCut } from "../../core/wal/wal-log";
import { DurableStore } from "../storage/durable-store";
import { CryptoRandom } from "./crypto-random";
import { defaultInterlink, enrollMachine } from "./enroll-machine";
import { scheduleGc } from "./gc-schedule";
import type { GcSchedule } from "./gc-schedule";
import { GroupCommit } from "./group-commit";
import {
  generateMachineKey,
  machineKeyFile,
  machineKeyValue,
  readMachineKey,
  writeMachineKey,
} from "./machine-key";
import type { MachineKey } from "./machine-key";

/** existing: boot only; create: mint a new domain only; either: boot, else create. */
export type BootMode = "existing" | "create" | "either";

export interface DaemonOptions {
  readonly dataDir: string;
  readonly boot: BootMode;
  /** The new domain's name (the root's bare name); used only when a domain is created. */
  readonly domainName?: string;
  /** This machine's interlink endpoint; used only when the machine is enrolled. */
  readonly interlink?: string;
  readonly clock?: () => number;
  readonly log?: (line: string) => void;
  /** Local GC's period; absent or 0: GC runs only on demand (POST /api/gc). */
  readonly gcEveryMs?: number;
}

export const defaultDomainName = "canopy";

/** The daemon cannot start: the message says why and what to do. */
export class DaemonBootError extends Error {
  override readonly name = "DaemonBootError";
}

/** Transport-level refusals of the driver itself, outside SPEC's error table. */
export interface DriverRefusal {
  readonly ok: false;
  readonly code: "storage-dead" | "shutting-down";
  readonly message: string;
}

export type DaemonResult<T> = Result<T> | DriverRefusal;

export interface MachineView {
  readonly object: Guid;
  readonly machineKey: string;
}

export interface BootView extends BootReport {
  /** `created`: this start minted the domain; `booted`: it loaded an existing one. */
  readonly mode: "created" | "booted";
  readonly at: string;
}

export interface NodeStorageMarks extends DurabilityMarks {
  /** Highest node USN handed to the log, and the highest one known durable. */
  readonly appendedUsn: number;
  readonly durableUsn: number;
  readonly dead: boolean;
  readonly deadReason: string | null;
}

export type NodeView = Omit<NodeSummary, "utd" | "watermarks"> & {
  readonly erasureDebt: number;
  readonly storage: NodeStorageMarks;
  readonly boot: BootView;
  readonly machine: MachineView;
  readonly utd: NodeSummary["utd"];
  readonly watermarks: NodeSummary["watermarks"];
};

interface Started {
  readonly node: DirectoryNode;
  readonly key: MachineKey;
  readonly mode: BootView["mode"];
}

export class Daemon {
  private readonly commits = new GroupCommit(() => this.flush());
  private appendedUsn: number;
  private durableUsn: number;
  private closing = false;
  private gcSchedule: GcSchedule | null = null;

  private constructor(
    private readonly node: DirectoryNode,
    private readonly store: DurableStore,
    readonly boot: BootView,
    readonly machine: MachineView,
    private readonly clock: () => number,
    private readonly log: (line: string) => void,
  ) {
    this.durableUsn = node.meta().usn;
    this.appendedUsn = this.durableUsn;
  }

  static async open(options: DaemonOptions): Promise<Daemon> {
    const dataDir = path.resolve(options.dataDir);
    const clock = options.clock ?? Date.now;
    const log = options.log ?? ((line: string) => console.error(line));
    if (fs.existsSync(dataDir) && !fs.statSync(dataDir).isDirectory()) {
      throw new DaemonBootError(`${dataDir} is not a directory (--data names the data directory)`);
    }
    if (options.boot === "existing" && !fs.existsSync(dataDir)) {
      throw new DaemonBootError(`no data directory at ${dataDir} (run create-domain first)`);
    }
    // Refused before storage opens: opening creates wal/ and a preallocated log, which a
    // refused start used to leave in a directory that was never Canopy's.
    if (options.boot === "existing" && !holdsStorage(dataDir)) {
      throw new DaemonBootError(`${dataDir} holds no domain (run create-domain, or serve --create-if-missing)`);
    }
    // Entries stream from storage straight into the node (a large snapshot is never one map).
    const loader = DirectoryNode.loader(new CryptoRandom());
    const opened = await DurableStore.openInto(dataDir, loader.put, { log });
    try {
      const started = start(opened.store, loader.boot(clock()), { ...options, dataDir }, clock(), opened.boot.wholeRecordsCut);
      started.node.warmIndexes();
      if (started.key.object === null) {
        throw new DaemonBootError(`${machineKeyFile} names no object`);
      }
      const at = new Date(clock()).toISOString();
      const boot: BootView = { ...opened.boot, mode: started.mode, at };
      const machine = { object: started.key.object, machineKey: machineKeyValue(started.key) };
      const daemon = new Daemon(started.node, opened.store, boot, machine, clock, log);
      log(bootLine(daemon.domainName, dataDir, boot));
      for (const line of bootWarnings(boot)) log(line);
      const exposed = exposure(dataDir);
      if (exposed !== null) log(exposed);
      const machineLine = machineObjectWarning(started.node, started.key.object, clock());
      if (machineLine !== null) log(machineLine);
      daemon.resumeErasure();
      const gcEveryMs = options.gcEveryMs ?? 0;
      if (gcEveryMs > 0) daemon.gcSchedule = scheduleGc(gcEveryMs, () => daemon.scheduledGc());
      return daemon;
    } catch (error) {
      await opened.store.close();
      throw error;
    }
  }

  /** The root's bare name; empty while the node has no root. */
  get domainName(): string {
    const root = this.node.root(this.clock());
    return root.ok ? root.value.name : "";
  }

  /** Runs a read against the node's current in-memory state. */
  read<T>(run: (node: DirectoryNode, nowMs: number) => T): T {
    return run(this.node, this.clock());
  }

  /**
   * Resolves once the writes applied so far are flushed (the flush of the current turn, if
   * one is scheduled). The API's reads and refusals wait for it, so that nothing a client is
   * shown can still be taken back by a crash: a read used to see a write of the same turn
   * before it was durable, and after a kill -9 the node's usn went back and a value read
   * before was gone (concurrency audit, twenty-third session). Bounded: under a steady stream
   * of writes a later turn may have applied more by the time the flush is done; after three
   * flushes the read goes ahead with those (at most one turn's writes, not yet durable).
   * Resolving within the microtasks after a flush, a read runs before any later I/O callback
   * can apply another write.
   */
  async committed(): Promise<void> {
    for (let flushes = 0; flushes < 3 && this.commits.hasPending; flushes++) await this.commits.drain();
  }

  /**
   * Applies a write now and resolves once it is durable. A refusal changed nothing, but it is
   * answered only once the writes before it are durable (see `committed()`).
   */
  async write<T>(run: (node: DirectoryNode, nowMs: number) => Result<T>): Promise<DaemonResult<T>> {
    const refused = this.refuseWrites();
    if (refused !== null) return refused;
    const result = run(this.node, this.clock());
    if (!result.ok) {
      // A refusal may rest on a write of this turn (name-in-use after a create not yet
      // durable): it is answered once that write is, or as storage-dead if its flush failed.
      await this.committed();
      return this.deadStorage() ?? result;
    }
    try {
      await this.commits.whenDurable();
    } catch (error) {
      if (error instanceof StorageDeadError) return storageDead(error.reason, "own-commit");
      throw error;
    }
    return result;
  }

  /** POST /api/storage/rotate: seals the active log and starts a rebuild. */
  rotate(): DaemonResult<StorageView> {
    return this.storageCommand(() => this.store.rotate());
  }

  /** POST /api/storage/rebuild: starts a background snapshot rebuild. */
  rebuild(): DaemonResult<StorageView> {
    return this.storageCommand(() => this.store.rebuild());
  }

  storageView(): StorageView {
    return this.store.view();
  }

  nodeView(): NodeView {
    const summary = this.node.summary(this.clock());
    const view = this.store.status();
    return {
      ...summary,
      erasureDebt: view.erasureDebt,
      storage: {
        ...view.marks,
        appendedUsn: this.appendedUsn,
        durableUsn: this.durableUsn,
        dead: view.dead,
        deadReason: view.deadReason,
      },
      boot: this.boot,
      machine: this.machine,
      utd: summary.utd,
      watermarks: summary.watermarks,
    };
  }

  /** Refuses new writes, lets the pending flush finish, then closes the store. */
  async close(): Promise<void> {
    this.closing = true;
    this.gcSchedule?.stop();
    await this.commits.drain();
    await this.store.close();
  }

  /** Waits for background rebuilds (tests, and callers that want settled storage). */
  async whenStorageIdle(): Promise<void> {
    await this.store.whenRebuildIdle();
  }

  private refuseWrites(): DriverRefusal | null {
    if (this.closing) {
      return { ok: false, code: "shutting-down", message: "the daemon is shutting down" };
    }
    return this.deadStorage();
  }

  /** The storage-dead refusal once the store died (null while it lives). */
  private deadStorage(): DriverRefusal | null {
    // Not through view(): listing the files may fail the same way the store did.
    return this.store.dead ? storageDead(this.store.deathReason ?? "unknown I/O error") : null;
  }

  private storageCommand(run: () => unknown): DaemonResult<StorageView> {
    const refused = this.refuseWrites();
    if (refused !== null) return refused;
    try {
      run();
    } catch (error) {
      if (error instanceof StorageDeadError) return storageDead(error.reason);
      throw error;
    }
    return { ok: true, value: this.store.view() };
  }

  /** One group commit: everything the node changed since the last flush, one fdatasync. */
  private flush(): void {
    const ready = this.node.ready();
    if (ready === null) return;
    const usn = this.node.meta().usn;
    this.appendedUsn = usn;
    // Intent first: the debt is durable before the batch that overwrites the plaintext.
    if (ready.erasure) this.store.markErasureDebt();
    this.store.commit([ready.batch]);
    this.durableUsn = usn;
    if (ready.erasure) this.startErasure();
    this.node.warmIndexes();
  }

  /**
   * Erasure debt this data directory still owes from before the restart (the process died
   * between a shred and the rebuild that pays it, or inside that rebuild): the plaintext is
   * still in some file, and nothing else would start the rebuild before the next shred or
   * size rotation. A rotation seals whatever generation the debt reaches, and its rebuild pays.
   */
  /** One scheduled GC run, as POST /api/gc runs it; the daemon's log tells what it erased. */
  private async scheduledGc(): Promise<void> {
    const done = await this.write((node, nowMs) => node.gc(nowMs));
    if (!done.ok) {
      if (done.code !== "shutting-down") this.log(`canopy: scheduled GC refused: ${done.message}`);
      return;
    }
    const { hardened, purged } = done.value;
    if (hardened + purged > 0) this.log(`canopy: scheduled GC hardened ${hardened}, purged ${purged}`);
  }

  private resumeErasure(): void {
    if (this.store.status().erasureDebt === 0) return;
    try {
      this.store.rotate();
    } catch (error) {
      this.log(`canopy: erasure debt could not be paid at boot: ${String(error)}`);
    }
  }

  /**
   * The overwriting batch is durable and its debt recorded, so the writes are acknowledged
   * whatever happens here; a failure leaves plaintext in older files, with the debt on disk
   * for the next boot to pay, and has already marked storage dead.
   */
  private startErasure(): void {
    try {
      this.store.rotate();
    } catch (error) {
      this.log(`canopy: erasure rotation could not start: ${String(error)}`);
    }
  }
}

/**
 * The storage-dead refusal. A write whose own group commit failed was applied in memory and
 * may or may not be on disk: its outcome is unknown, not refused (ARCHITECTURE; the message
 * said "refused" while reads showed the write: HTTP audit, twenty-seventh session).
 */
function storageDead(reason: string, write: "refused" | "own-commit" = "refused"): DriverRefusal {
  const message =
    write === "own-commit"
      ? `storage died committing this write, whose outcome is unknown (reads show it until a restart; a later boot may or may not find it): ${reason}`
      : `storage is dead, writes are refused: ${reason}`;
  return { ok: false, code: "storage-dead", message };
}

interface StartOptions extends DaemonOptions {
  readonly dataDir: string;
}

/**
 * What an operator must hear of at boot, in the daemon's log (GET /api/node's `boot` has the
 * figures): a torn tail cut, and above all whole records cut behind a damaged one.
 */
export function bootWarnings(boot: BootView): string[] {
  const out: string[] = [];
  const whole = boot.wholeRecordsCut;
  if (whole !== null) {
    out.push(
      `canopy: WARNING: ${whole.path} was damaged at byte ${whole.atByte}; the boot cut it there, and with it ` +
        `${whole.count} whole, checksummed records behind the damage (seq ${whole.firstSeq}-${whole.lastSeq}). ` +
        `A crash leaves that only if the disk wrote the last commit out of order; otherwise it is disk damage ` +
        `and those acknowledged writes are lost here (partners that pulled them still hold them).`,
    );
  } else if (boot.tornBytesCut > 0) {
    out.push(
      `canopy: boot cut a torn write of ${boot.tornBytesCut} bytes at the end of the log (a crash or a failed ` +
        `write, such as a full disk, in the middle of an append: never acknowledged)`,
    );
  }
  return out;
}

/**
 * What the start did, for the log: an operator who mistyped `--data` under
 * `--create-if-missing` sees that a new domain was minted, not only that one is served.
 */
export function bootLine(domainName: string, dataDir: string, boot: BootView): string {
  if (boot.mode === "created") return `canopy: created domain ${domainName} in ${dataDir}`;
  const snapshot = boot.snapshotGeneration === 0 ? "no snapshot" : `snapshot ${boot.snapshotGeneration}`;
  return (
    `canopy: booted domain ${domainName} from ${dataDir} (${snapshot}, ${boot.recordsReplayed} log records ` +
    `replayed, ${boot.entries} entries, ${boot.totalMs} ms)`
  );
}

/**
 * A warning when other users can reach the data directory's contents: it holds every value in
 * plain text until shredded ones are erased. A directory the daemon creates is 0700, and so
 * are the `wal/` and `snap/` it creates; an operator's existing directory keeps its mode.
 */
function exposure(dataDir: string): string | null {
  const open = [dataDir, path.join(dataDir, "wal"), path.join(dataDir, "snap")].filter((dir) => {
    const stat = fs.statSync(dir, { throwIfNoEntry: false });
    return stat !== undefined && (stat.mode & 0o077) !== 0;
  });
  if (open.length === 0 || (fs.statSync(dataDir).mode & 0o011) === 0) return null;
  return (
    `canopy: WARNING: other users may read ${open.join(", ")}; the data directory holds every value in ` +
    `plain text: chmod -R go-rwx ${dataDir}`
  );
}

/**
 * A warning when this machine's own object is not alive: SPEC protects no machine object, so a
 * client may delete or shred it, and the node then serves with its identity and endpoints
 * (machineKey, networkAddress) gone from the directory, which GET /api/node still names.
 */
function machineObjectWarning(node: DirectoryNode, object: Guid, nowMs: number): string | null {
  const record = node.dir.get(object);
  if (record === undefined) {
    return `canopy: WARNING: this machine's object ${object} is not in the directory; its identity and endpoints are not published`;
  }
  const stage = effectiveStage(node.dir, record, nowMs);
  if (stage === "alive") return null;
  const how =
    stage === "deleted"
      ? `deleted; restore it (POST /api/objects/${object}/restore) within timeUntilShred of the delete`
      : `${stage}; its machineKey and networkAddress values are erased`;
  return `canopy: WARNING: this machine's object ${object} is ${how}`;
}

/** Whether `dataDir` has a Canopy store in it (its log or snapshot directory). */
function holdsStorage(dataDir: string): boolean {
  return ["wal", "snap"].some((name) => fs.existsSync(path.join(dataDir, name)));
}

/** Takes the node booted from the store's entries, or mints the domain, as the mode allows. */
function start(
  store: DurableStore,
  booted: DirectoryNode | null,
  options: StartOptions,
  nowMs: number,
  cut: WholeRecordsCut | null = null,
): Started {
  if (booted !== null) {
    if (options.boot === "create") {
      throw new DaemonBootError(`${options.dataDir} already holds a domain`);
    }
    const key = readMachineKey(options.dataDir);
    if (key === null || key.object === null) {
      throw new DaemonBootError(
        `${options.dataDir} holds a domain but no enrolled ${machineKeyFile}; the machine's ` +
          `identity is lost (restore the file from a backup)`,
      );
    }
    // The boot re-minted the invocation (and retired the previous one): durable before the
    // daemon serves anyone, as the simulator's hosts persist right after a boot. Otherwise a
    // restart before the first write boots the older invocation again, and a partner that saw
    // the unpersisted one would hold an invocation of this node the node never knew: evidence
    // of a rollback that never happened.
    // Acknowledged writes may be lost here: said where an operator looks later too (the
    // journal survives restarts; this boot's report and log line do not). Journaled after the
    // checks that can refuse this start: the next boot finds nothing left to cut.
    if (cut !== null) {
      const detail = `${cut.path} damaged at byte ${cut.atByte}: ${cut.count} whole record(s) behind it cut (seq ${cut.firstSeq}-${cut.lastSeq})`;
      booted.journalRecordsCut(nowMs, detail);
    }
    const ready = booted.ready();
    if (ready !== null) store.commit([ready.batch]);
    return { node: booted, key, mode: "booted" };
  }
  if (options.boot === "existing") {
    throw new DaemonBootError(
      `${options.dataDir} holds no domain (run create-domain, or serve --create-if-missing)`,
    );
  }
  return createDomain(store, options, nowMs);
}

/**
 * Mints the domain and enrolls this machine in one batch. The key file is durable before the
 * batch holding the computer object is committed, so a crash in between leaves a key file and
 * no domain: the next creation reuses that key pair.
 */
function createDomain(store: DurableStore, options: StartOptions, nowMs: number): Started {
  const domainName = options.domainName ?? defaultDomainName;
  const name = validateObjectName(domainName);
  if (!name.ok) throw new DaemonBootError(`invalid domain name: ${name.message}`);
  const node = DirectoryNode.createDomain(new CryptoRandom(), name.value, nowMs);
  const key = readMachineKey(options.dataDir) ?? generateMachineKey();
  const interlink = options.interlink ?? defaultInterlink;
  const enrolled = enrollMachine(node, { key, interlink }, nowMs);
  if (!enrolled.ok) {
    throw new DaemonBootError(`machine enrollment refused (${enrolled.code}): ${enrolled.message}`);
  }
  const keyed: MachineKey = { ...key, object: enrolled.value };
  writeMachineKey(options.dataDir, keyed);
  const ready = node.ready();
  assert(ready !== null, "a new domain has a batch to persist");
  store.commit([ready.batch]);
  return { node, key: keyed, mode: "created" };
}
