import * as zlib from "node:zlib";
import { assert } from "../../core/assert";
import type { Result } from "../../core/errors";
import type { Guid } from "../../core/guid";
import { DirectoryNode } from "../../core/node/directory-node";
import type { ReplicationMessage } from "../../core/repl/messages";
import type { ObjectRecord } from "../../core/store/record";
import { atomLife } from "../../core/store/record";
import { JsonMemo } from "./json-memo";
import { RecordMemo } from "./record-memo";
import { useNativeCrc32 } from "../../core/wal/crc32";
import { useNativeUtf8Range } from "../../core/wal/utf8-range";
import { useNativeUtf8Write } from "../../core/wal/utf8-write";
import { nodeUtf8Slice } from "./node-utf8-slice";
import { nodeUtf8Write } from "./node-utf8-write";
import { PullSchedule, defaultReplicationTiming } from "../../core/repl/pull-schedule";
import type { ReplicationTiming, ScheduleShell } from "../../core/repl/pull-schedule";
import { KvStore } from "../../core/wal/kv-store";
import { VerifiedRecords } from "../../core/wal/verified-records";
import type { NodeContext, SimNodeHost } from "../world";
import type { DirectoryOp } from "./directory-op";
import type { Ledger } from "./ledger";
import { PickIndex } from "./pick-index";
import { lostOnRestore, restorableValues } from "./restore-promise";
import { runOp } from "./run-op";
import { Labels, resolveRef, runScriptOp } from "./run-script-op";

/** Replication timing of the simulated nodes (virtual ms of the node's mono clock). */
export type { ReplicationTiming };

// The simulated nodes checksum every WAL append, replay and rebuild: zlib's CRC-32 is the same
// function, ~3x faster than core's portable one (checked against it when installed). Node has
// it from 20.15 and 22.2 on (package.json admits any 20): older ones keep the portable code.
useNativeCrc32(typeof zlib.crc32 === "function" ? zlib.crc32 : null);
// Every boot decodes each key and value of the log it replays: Buffer's utf8Slice reads a
// byte range in place, where core's portable decoder allocates a view per string.
useNativeUtf8Range(nodeUtf8Slice);
// Every WAL append and rebuild encodes each key and value: Buffer's utf8Write writes at an
// offset in place, where encodeInto wants a view (and returns an object) per string.
useNativeUtf8Write(nodeUtf8Write);

/**
 * The log size at which a simulated node rotates (and rebuilds its snapshot). The daemon's
 * default (64 MiB) is never reached in a simulated run, so without shreds a node's log grew
 * for the whole run and every boot replayed all of it: boots cost O(history). 4 MiB keeps a
 * boot's replay bounded and puts size-triggered rotations, with crashes around them, under test.
 */
export const simRotateBytes = 4 * 1024 * 1024;

/**
 * How long after the first erasure of a burst the host rotates the log (the rebuild that pays
 * the debt; later erasures in the window ride on it). A model parameter: the daemon starts its
 * rebuild at once and coalesces only the erasures that arrive while one runs. Since every node
 * erases a replicated shred (not only the shredding one), the standard workload's shreds reach
 * each node every few seconds: at 2 s, the earlier value, each node rebuilt its whole snapshot
 * every few seconds (standard seeds +16 % CPU, rotations 61 -> 230 a seed); at 30 s a run
 * rotates somewhat more often than before every node erased. The erasure oracle judges the
 * files of nodes whose debt is paid, so a longer window leaves fewer of them judged at the end
 * of a run (a node that never raises debt is judged all the same: its debt stays 0). Crashes
 * inside the window exercise the boot that finds debt outstanding.
 */
const rotateAfterErasureMs = 30_000;

/** The simulated nodes' replication timing unless a scenario says otherwise: the core's defaults. */
export const defaultTiming: ReplicationTiming = defaultReplicationTiming;

/** Where sim ids meet node GUIDs (the simulator's stand-in for fabric discovery). */
export class Registry {
  readonly nodeIdOf = new Map<string, string>();
  readonly simIdOf = new Map<string, string>();

  register(simId: string, nodeId: string): void {
    this.nodeIdOf.set(simId, nodeId);
    this.simIdOf.set(nodeId, simId);
  }
}

/** What a host tells the scenario runner and the oracles; every hook is optional. */
export interface HostHooks {
  /** A pull cycle from `peer` completed; it started at true time `startedMs`. */
  onPullDone?(simId: string, peer: string, startedMs: number): void;
  /** This node refused to pull from `peer` (apart longer than maxTimeApart). */
  onPullRefused?(simId: string, peer: string): void;
  /** Local GC purged these records. */
  onPurged?(simId: string, ids: readonly Guid[]): void;
  /** A scripted op finished with this result. */
  onScriptResult?(index: number, simId: string, result: Result<unknown>): void;
  /** A rule the host checks inline was broken (e.g. a write accepted while latched). */
  onViolation?(text: string): void;
}

export interface HostOptions {
  readonly simId: string;
  readonly founder: boolean;
  readonly peers: readonly string[];
  readonly registry: Registry;
  readonly ledger: Ledger;
  readonly timing: ReplicationTiming;
  readonly domainName: string;
  /** The world's true (virtual) time, for the ledger. */
  trueMs(): number;
  /** Local GC on a timer of the node's mono clock; null: never. */
  readonly gcEveryMs?: number | null;
  /** Bytes a pull batch this node answers stops at (default limits.batchBytesTarget). */
  readonly batchBytes?: number | null;
  readonly labels?: Labels;
  readonly hooks?: HostHooks;
}

/**
 * One simulated directory node: the unchanged core (DirectoryNode) over the real
 * write-ahead-log code (KvStore) on the simulated disk. Persist first, then send or ack.
 */
export class DirectoryHost implements SimNodeHost<ReplicationMessage, DirectoryOp> {
  node: DirectoryNode | null = null;
  /** The node's replication schedule (core/repl/pull-schedule.ts), made anew at each boot. */
  private schedule: PullSchedule | null = null;
  private paused = false;
  /** Set whenever the node was seen rollback-latched after an event (for expectations). */
  latchSeen = false;
  /** Boots that recovered a disk (each re-mints the invocation once). */
  recoveredBoots = 0;
  /**
   * Tombstones this node's GC ever hardened (crashes and disk rollbacks may bring the
   * unhardened record back; the convergence oracle then leaves its value atoms out).
   */
  readonly hardenedIds = new Set<Guid>();
  /**
   * The tombstones of a GC whose batch a power cut struck before its sync returned: the cut
   * may have kept the whole batch (a torn write that ends after its last record), so what it
   * hardened and purged is read off the disk at the next boot (noteGcOutcome).
   */
  private gcInDoubt: readonly Guid[] | null = null;
  private rotationArmed = false;
  private wasLatched = false;
  private store: KvStore | null = null;
  /** True time at which the pull cycle under way from each peer started. */
  private cycleStartedTrue = new Map<string, number>();
  private readonly labels: Labels;
  private readonly hooks: HostHooks;
  private readonly picks: PickIndex;
  /** Decoded records by persisted text, across this node's boots (see RecordMemo). */
  private readonly records = new RecordMemo();
  /** Parsed journal and meta entries by persisted text, across boots (see JsonMemo). */
  private readonly parsed = new JsonMemo();
  /** Snapshot records by their bytes, across this node's boots (see VerifiedRecords). */
  private readonly verified = new VerifiedRecords(sameBytes);

  constructor(readonly options: HostOptions) {
    this.labels = options.labels ?? new Labels();
    this.hooks = options.hooks ?? {};
    this.picks = new PickIndex(this.labels.protectedIds);
  }

  /**
   * Erasure debt on this node's disk (see ErasureDebt) and whether the rotation that pays it
   * is armed; null while the node is down.
   */
  get erasure(): { readonly debt: number; readonly armed: boolean } | null {
    return this.store === null ? null : { debt: this.store.erasureDebt, armed: this.rotationArmed };
  }

  onStart(ctx: NodeContext<ReplicationMessage>): void {
    this.boot(ctx);
  }

  onRestart(ctx: NodeContext<ReplicationMessage>): void {
    this.boot(ctx);
  }

  /** Scripted: while true, timers fire but this node starts no pull (replication paused). */
  get pullsPaused(): boolean {
    return this.paused;
  }

  set pullsPaused(paused: boolean) {
    this.paused = paused;
    if (this.schedule !== null) this.schedule.paused = paused;
  }

  onCrash(): void {
    this.node = null;
    this.store = null;
    this.schedule = null;
    this.cycleStartedTrue.clear();
    this.rotationArmed = false;
    this.wasLatched = false;
  }

  onTimer(ctx: NodeContext<ReplicationMessage>, name: string): void {
    const node = this.node;
    if (node === null) return;
    if (name === "gc") return this.runGc(ctx, node);
    if (name === "rotate") {
      this.rotationArmed = false;
      const store = this.store;
      assert(store !== null, "a rotation on a running node");
      const before = store.view().rebuild.lastOutcome;
      store.rotate();
      if (store.erasureDebt > 0) {
        // A rotation whose rebuild went through pays every debt raised before it; only a
        // rebuild that failed leaves debt. One that paid nothing would be re-armed for ever and
        // look "armed" to the erasure oracle at the end, the plaintext on disk all along
        // (liveness audit, twenty-eighth session).
        const outcome = store.view().rebuild.lastOutcome;
        if (outcome === before || outcome?.ok === true) {
          this.hooks.onViolation?.(`${this.options.simId}: a rotation left erasure debt ${store.erasureDebt} unpaid, and no rebuild of it failed`);
        }
        // The rebuild failed (an I/O error it caught): the debt is still owed, so try again, as
        // the daemon's store does (adapters/storage/durable-store.ts).
        this.armErasure(ctx);
      }
      return;
    }
    this.schedule?.onTimer(name);
  }

  onMessage(_ctx: NodeContext<ReplicationMessage>, from: string, msg: ReplicationMessage): void {
    this.schedule?.onMessage(from, msg);
  }

  onInput(ctx: NodeContext<ReplicationMessage>, op: DirectoryOp): void {
    const node = this.node;
    if (node === null) return;
    const usnBefore = node.dir.usn;
    const latched = node.dir.rollbackLatched;
    const kind = op.kind === "script" ? op.op.verb : op.kind;
    // A scripted GC tells the oracles what it hardened and purged, as the GC timer does.
    const tombstones = kind === "gc" ? tombstonesOf(node) : null;
    // A workload `redefine` restores a deleted definition: judged as a restore.
    const restoring = kind === "restore" || kind === "redefine";
    const restorable = restoring ? restorableValues(node, this.restoreTarget(node, op, ctx.wallMs())) : null;
    const result: Result<unknown> =
      op.kind === "script"
        ? runScriptOp(node, this.labels, op.op, ctx.wallMs())
        : runOp(node, op, ctx.wallMs(), this.picks);
    if (restorable !== null && result.ok) {
      this.noteRestores(node, usnBefore);
      for (const lost of lostOnRestore(node, restorable)) this.hooks.onViolation?.(`${this.options.simId}: ${lost}`);
    }
    this.gcInDoubt = tombstones;
    const written = this.persist(ctx, true);
    this.gcInDoubt = null;
    if (tombstones !== null) this.noteGcOutcome(node, tombstones);
    this.options.ledger.count(kind, result.ok ? "ok" : result.code);
    ctx.trace("op", `${kind} ${result.ok ? "ok" : result.code}`);
    if (op.kind === "script") this.hooks.onScriptResult?.(op.index, this.options.simId, result);
    if (!result.ok) return;
    if (latched && node.dir.usn !== usnBefore && kind !== "gc") {
      this.hooks.onViolation?.(`${this.options.simId} accepted a ${kind} while rollback-latched`);
    }
    // A GC is local housekeeping, as on its timer: no client write to acknowledge, nothing
    // stamped for partners to pull.
    if (kind === "gc") return;
    // Acknowledged only now that the batch is durable: record what the client was promised.
    for (const record of written) this.ackAtoms(ctx, record, usnBefore);
    this.schedule?.hintPartners();
  }

  /** Traces latch changes (they matter when reading a timeline) and remembers a latch. */
  private noteLatch(ctx: NodeContext<ReplicationMessage>, node: DirectoryNode): void {
    const latched = node.dir.rollbackLatched;
    if (latched !== this.wasLatched)
      ctx.trace(latched ? "rollback-latched" : "rollback-healed", "");
    this.wasLatched = latched;
    if (latched) this.latchSeen = true;
  }

  private runGc(ctx: NodeContext<ReplicationMessage>, node: DirectoryNode): void {
    const every = this.options.gcEveryMs ?? null;
    assert(every !== null, "a gc timer fires only when GC is configured");
    ctx.setTimer("gc", every);
    const tombstones = tombstonesOf(node);
    node.gc(ctx.wallMs());
    this.gcInDoubt = tombstones;
    this.persist(ctx);
    this.gcInDoubt = null;
    this.noteGcOutcome(node, tombstones);
  }

  /** Tells the oracles what a GC hardened and purged of `tombstones`, as `node` holds them. */
  private noteGcOutcome(node: DirectoryNode, tombstones: readonly Guid[]): void {
    for (const id of tombstones) if (node.dir.get(id)?.hardened === true) this.hardenedIds.add(id);
    const purged = tombstones.filter((id) => node.dir.get(id) === undefined);
    if (purged.length > 0) this.hooks.onPurged?.(this.options.simId, purged.sort());
  }

  private boot(ctx: NodeContext<ReplicationMessage>): void {
    const opened = KvStore.open(ctx.fs, { verified: this.verified, rotateBytes: simRotateBytes });
    this.store = opened.store;
    const booted = DirectoryNode.boot(
      ctx.prng,
      opened.entries,
      ctx.wallMs(),
      this.records.decode,
      this.parsed.parse,
    );
    if (booted !== null) this.recoveredBoots++;
    this.node =
      booted ??
      (this.options.founder
        ? DirectoryNode.createDomain(ctx.prng, this.options.domainName, ctx.wallMs())
        : DirectoryNode.joining(ctx.prng));
    // A GC cut short by a power cut: whatever of it the disk kept is durable now.
    if (this.gcInDoubt !== null && booted !== null) this.noteGcOutcome(this.node, this.gcInDoubt);
    this.gcInDoubt = null;
    this.persist(ctx);
    // Debt a crash left unpaid (it came between an erasure and its rotation, or inside the
    // rebuild): the plaintext is still on disk, and nothing else would pay it.
    if (this.store.erasureDebt > 0) this.armErasure(ctx);
    const batchBytes = this.options.batchBytes ?? null;
    if (batchBytes !== null) this.node.replicator.batchBytesTarget = batchBytes;
    this.options.registry.register(this.options.simId, this.node.dir.nodeId);
    ctx.trace(
      "boot",
      `${booted === null ? "fresh" : "recovered"} node=${this.node.dir.nodeId.slice(0, 8)} usn=${this.node.dir.usn}`,
    );
    this.schedule = new PullSchedule(this.node, this.options.peers, this.options.timing, this.shellOf(ctx), {
      cycleStarted: (peer) => this.cycleStartedTrue.set(peer, this.options.trueMs()),
      cycleCompleted: (peer) => this.hooks.onPullDone?.(this.options.simId, peer, this.cycleStartedTrue.get(peer) ?? 0),
      pullRefused: (peer) => this.hooks.onPullRefused?.(this.options.simId, peer),
    });
    this.schedule.paused = this.paused;
    this.schedule.start();
    const gcEvery = this.options.gcEveryMs ?? null;
    if (gcEvery !== null) ctx.setTimer("gc", gcEvery);
  }

  /** The schedule's way to this node's context (one per boot: a crash ends both). */
  private shellOf(ctx: NodeContext<ReplicationMessage>): ScheduleShell {
    const registry = this.options.registry;
    return {
      monoMs: () => ctx.monoMs(),
      wallMs: () => ctx.wallMs(),
      jitterMs: (maxMs) => ctx.prng.int(0, maxMs),
      setTimer: (name, afterMs) => ctx.setTimer(name, afterMs),
      cancelTimer: (name) => ctx.cancelTimer(name),
      send: (peer, msg) => ctx.send(peer, msg),
      persist: () => void this.persist(ctx),
      afterReceive: () => {
        if (this.node !== null) this.noteLatch(ctx, this.node);
      },
      trace: (event, detail) => ctx.trace(event, detail),
      nodeIdOf: (peer) => registry.nodeIdOf.get(peer),
    };
  }

  /**
   * Persists whatever the node changed; returns the object records written when `records`
   * (only acks need them). They are the node's own records that the batch just encoded
   * (`takeBatch` reads each written id's current record, and nothing ran since), so they are
   * taken from the directory, not decoded from the batch: decoding ~600-byte records again per
   * write was 1.4 % of a standard seed and its garbage. Erasure raises the debt at once; the
   * rotation that pays it runs later, once per burst of erasures (`rotateAfterErasureMs`; a
   * synchronous rebuild per shred dominated profiles).
   */
  private persist(ctx: NodeContext<ReplicationMessage>, records = false): ObjectRecord[] {
    const node = this.node;
    const store = this.store;
    assert(node !== null && store !== null, "persist on a running node");
    const ready = node.ready();
    if (ready === null) return [];
    // Intent first: the debt is durable before the batch that overwrites the plaintext.
    if (ready.erasure) store.markErasureDebt();
    store.commit([ready.batch]);
    if (ready.erasure) this.armErasure(ctx);
    const out: ObjectRecord[] = [];
    if (!records) return out;
    for (const [key] of ready.batch.puts) {
      if (!key.startsWith("o/")) continue;
      const record = node.dir.get(key.slice(2));
      assert(record !== undefined, "a record the batch wrote is in the directory");
      out.push(record);
    }
    return out;
  }

  /** Arms the rotation that pays erasure debt, once per burst of erasures. */
  private armErasure(ctx: NodeContext<ReplicationMessage>): void {
    if (!this.rotationArmed) ctx.setTimer("rotate", rotateAfterErasureMs);
    this.rotationArmed = true;
  }

  /**
   * Tells the ledger the existence stamps a restore just wrote, before its persist: a power cut
   * inside that persist leaves the restore unacknowledged, yet a torn write that kept the whole
   * batch makes it durable, and the no-resurrection oracle accepts deleted -> alive only
   * through a restore it knows (a restore that never reached the disk leaves a stamp no record
   * will ever carry).
   */
  /** The object a restore op aims at, when known before it runs (not for `redefine`). */
  private restoreTarget(node: DirectoryNode, op: DirectoryOp, nowMs: number): Guid | null {
    if (op.kind === "restore") return this.picks.pick(node, "deleted", op.pick)?.id ?? null;
    if (op.kind !== "script" || op.op.verb !== "restore") return null;
    const target = resolveRef(node, this.labels, op.op.target, nowMs);
    return target.ok ? target.value : null;
  }

  private noteRestores(node: DirectoryNode, usnBefore: number): void {
    for (const { id } of node.dir.store.changedAfter(usnBefore, Number.MAX_SAFE_INTEGER)) {
      const record = node.dir.get(id);
      if (record === undefined || record.existence.stage !== "alive") continue;
      if (record.existence.stamp.localUsn > usnBefore) this.options.ledger.noteRestore(id, record.existence.stamp);
    }
  }

  private ackAtoms(ctx: NodeContext<ReplicationMessage>, record: ObjectRecord, usnBefore: number): void {
    const ack = (atom: string, stamp: ObjectRecord["existence"]["stamp"], life?: number): void => {
      if (stamp.localUsn <= usnBefore) return;
      this.options.ledger.ack({
        node: this.options.simId,
        objectId: record.id,
        atom,
        stamp,
        ...(life === undefined ? {} : { life }),
        atMs: ctx.wallMs(),
        trueMs: this.options.trueMs(),
      });
    };
    ack("existence", record.existence.stamp);
    ack("placement", record.placement.stamp);
    for (const [name, atoms] of record.attrs) {
      for (const a of atoms.values()) ack(`attr\u0000${name}\u0000${a.key ?? ""}`, a.stamp, atomLife(a));
    }
  }
}

/** Native byte comparison (memcmp): several times faster than checksumming the bytes again. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

/** The ids of the records a GC may harden or purge now (every one not alive). */
function tombstonesOf(node: DirectoryNode): Guid[] {
  const out: Guid[] = [];
  for (const r of node.dir.store.all()) if (r.existence.stage !== "alive") out.push(r.id);
  return out;
}
