import { Directory } from "../directory";
import { ok } from "../errors";
import type { Result } from "../errors";
import type { Guid } from "../guid";
import { splitPath } from "../naming";
import type { Random } from "../ports";
import { createDomain } from "../ops/create-domain";
import { createObject } from "../ops/create-object";
import type { CreateRequest } from "../ops/create-object";
import { deleteObject } from "../ops/delete-object";
import { requireObject, requireRoot } from "../ops/gates";
import { moveObject } from "../ops/move-object";
import type { MoveRequest } from "../ops/move-object";
import type { ValueInput } from "../ops/normalize-values";
import { putAttribute } from "../ops/put-attribute";
import { restoreObject } from "../ops/restore-object";
import { shredObject } from "../ops/shred-object";
import { collectGarbage } from "../gc/collect-garbage";
import type { ReplicationState } from "../repl/replication-state";
import { emptyReplicationState } from "../repl/replication-state";
import { Replicator } from "../repl/replicator";
import { remintInvocation } from "../repl/rollback";
import { msToTimestamp } from "../syntax";
import type { KvBatch } from "../wal/kv-batch";
import { EffectiveView } from "../view/effective-view";
import { morgue, morgueSize } from "../view/morgue";
import type { ChildSummary, MorgueRecord, ObjectPayload } from "../view/payload-types";
import { renderChildren, renderObject } from "../view/render-object";
import { renderSchema } from "../view/render-schema";
import type { SchemaPayload } from "../view/render-schema";
import { NodeLoader, PersistedReplication, takeBatch } from "./persistence";
import type { EntryParser, RecordDecoder } from "./persistence";
import type { LoadedState, NodeMeta } from "./persistence";

/** What the shell must do after a step: persist the batch, then release replies. */
export interface Ready {
  readonly batch: KvBatch;
  /** Records were security-erased: older files still hold their plaintext. */
  readonly erasure: boolean;
}

export interface NodeSummary {
  readonly nodeId: Guid;
  readonly invocationId: Guid;
  readonly usn: number;
  readonly hasRoot: boolean;
  readonly purgeHorizon: string | null;
  readonly morgueSize: number;
  readonly rollbackLatched: boolean;
  readonly utd: ReplicationState["utd"];
  readonly watermarks: ReplicationState["watermarks"];
}

/**
 * One directory node as the shells see it: API commands in, Results out, and `ready()` the
 * durable batch the shell must persist before it releases any reply that depends on it
 * (persist first, then reply). Pure and synchronous: time arrives as `nowMs` arguments.
 */
export class DirectoryNode {
  replication: ReplicationState = emptyReplicationState();
  purgeHorizonMs: number | null = null;
  private changed = false;
  /** The replication state parts already persisted (unchanged parts are not written again). */
  private readonly persisted = new PersistedReplication();
  /** Replication as pure messages: pull requests, batches, hints (volatile per-pull state). */
  readonly replicator: Replicator = new Replicator(this);

  constructor(readonly dir: Directory) {}

  static createDomain(random: Random, domainName: string, nowMs: number): DirectoryNode {
    const node = new DirectoryNode(Directory.fresh(random));
    createDomain(node.dir, domainName, nowMs);
    node.changed = true;
    return node;
  }

  /** A node that joined a domain and waits for its first sync (no root yet). */
  static joining(random: Random): DirectoryNode {
    const node = new DirectoryNode(Directory.fresh(random));
    node.changed = true;
    return node;
  }

  /**
   * Boots from persisted entries. Every boot re-mints the invocation: the node cannot tell a
   * restart from a restore of an older disk image, and a fresh invocation guarantees that
   * writes acknowledged after a restore never reuse an originating (invocation, USN) that
   * partners already hold.
   */
  static boot(
    random: Random,
    entries: Iterable<readonly [string, string]>,
    nowMs = 0,
    decode?: RecordDecoder,
    parse?: EntryParser,
  ): DirectoryNode | null {
    const dir = Directory.fresh(random);
    const loader = new NodeLoader(dir, decode, parse);
    // A Map (what the simulator's store hands over) is walked by forEach, in the same order:
    // `for (const [key, value] of ...)` allocated an entry pair per record, at every boot.
    if (entries instanceof Map) entries.forEach(putEntry, loader);
    else for (const [key, value] of entries) loader.put(key, value);
    return DirectoryNode.booted(dir, loader.finish(), nowMs);
  }

  /**
   * `boot` one entry at a time: the shell streams persisted entries (each key once, final
   * values, any order) into `put`, then `boot` builds the node as `DirectoryNode.boot` does.
   */
  static loader(
    random: Random,
    decode?: RecordDecoder,
  ): {
    put(key: string, value: string): void;
    boot(nowMs?: number): DirectoryNode | null;
  } {
    const probe = Directory.fresh(random);
    const loader = new NodeLoader(probe, decode);
    return {
      put: (key, value) => loader.put(key, value),
      boot: (nowMs = 0) => DirectoryNode.booted(probe, loader.finish(), nowMs),
    };
  }

  private static booted(dir: Directory, loaded: LoadedState, nowMs: number): DirectoryNode | null {
    if (loaded.meta === null) return null;
    dir.nodeId = loaded.meta.nodeId;
    dir.invocationId = loaded.meta.invocationId;
    // Before epochs existed every invocation counted as epoch 0; the re-mint below goes above.
    dir.invocationEpoch = loaded.meta.invocationEpoch ?? 0;
    dir.usn = Math.max(loaded.meta.usn, maxUsn(dir));
    dir.rollbackLatched = loaded.meta.rollbackLatched;
    dir.journal.load(loaded.journal);
    dir.refreshSchema();
    dir.store.takeDirty();
    const node = new DirectoryNode(dir);
    if (loaded.replicationAsStored) node.persisted.assumeWritten(loaded.meta.replication);
    node.replication = remintInvocation(dir, loaded.meta.replication, nowMs);
    node.purgeHorizonMs = loaded.meta.purgeHorizonMs;
    node.changed = true;
    return node;
  }

  meta(): NodeMeta {
    return {
      nodeId: this.dir.nodeId,
      invocationId: this.dir.invocationId,
      invocationEpoch: this.dir.invocationEpoch,
      usn: this.dir.usn,
      rollbackLatched: this.dir.rollbackLatched,
      purgeHorizonMs: this.purgeHorizonMs,
      replication: this.replication,
    };
  }

  /** The batch to persist for everything changed since the last call, or null. */
  ready(): Ready | null {
    if (!this.changed) return null;
    this.changed = false;
    const batch = takeBatch(this.dir, this.meta(), this.persisted);
    // A shred or GC of this node's own or a merged shred: the directory saw each write that
    // erased values for good, and each purge (Directory.write, Directory.purge).
    const erasure = this.dir.takeErasure();
    return batch === null ? null : { batch, erasure };
  }

  markChanged(): void {
    this.changed = true;
  }

  /**
   * Builds now the indexes otherwise built when first read (back-references, see Store): a
   * daemon calls it after booting and after each write it persists, so that the work falls at
   * boot and on the write that changed the schema rather than on a later read. The simulator
   * does not: its nodes never read them.
   */
  warmIndexes(): void {
    this.dir.store.warmBackReferences();
  }

  // ---- reads ----

  summary(nowMs: number): NodeSummary {
    return {
      nodeId: this.dir.nodeId,
      invocationId: this.dir.invocationId,
      usn: this.dir.usn,
      hasRoot: this.dir.landmarks() !== null,
      purgeHorizon: this.purgeHorizonMs === null ? null : msToTimestamp(this.purgeHorizonMs),
      morgueSize: morgueSize(this.dir),
      rollbackLatched: this.dir.rollbackLatched,
      utd: byKey(this.replication.utd),
      watermarks: byKey(this.replication.watermarks),
    };
  }

  root(nowMs: number): Result<ObjectPayload> {
    const root = requireRoot(this.dir);
    if (!root.ok) return root;
    return this.object(root.value, nowMs);
  }

  object(id: Guid, nowMs: number): Result<ObjectPayload> {
    const root = requireRoot(this.dir);
    if (!root.ok) return root;
    const found = requireObject(this.dir, id);
    if (!found.ok) return found;
    return ok(renderObject(new EffectiveView(this.dir), found.value, nowMs));
  }

  children(id: Guid): Result<ChildSummary[]> {
    const root = requireRoot(this.dir);
    if (!root.ok) return root;
    const found = requireObject(this.dir, id);
    if (!found.ok) return found;
    return ok(renderChildren(new EffectiveView(this.dir), found.value));
  }

  resolvePath(path: string, nowMs: number): Result<ObjectPayload> {
    const root = requireRoot(this.dir);
    if (!root.ok) return root;
    const segments = splitPath(path);
    if (!segments.ok) return segments;
    const view = new EffectiveView(this.dir);
    const found = view.resolve(segments.value);
    if (!found.ok) return found;
    return ok(renderObject(view, found.value, nowMs));
  }

  schema(): Result<SchemaPayload> {
    return ok(renderSchema(this.dir.schema));
  }

  morgue(nowMs: number): Result<MorgueRecord[]> {
    return ok(morgue(this.dir, nowMs));
  }

  journal(): ReturnType<Directory["journal"]["list"]> {
    return this.dir.journal.list();
  }

  /**
   * The shell's boot cut whole log records behind a damaged one: journaled (`records-cut`),
   * persisted with the next batch (the boot's own). `detail` names files and sequence numbers,
   * never values.
   */
  journalRecordsCut(nowMs: number, detail: string): void {
    this.dir.journal.add(nowMs, "records-cut", detail);
    this.markChanged();
  }

  // ---- originating writes ----

  create(req: CreateRequest, nowMs: number): Result<ObjectPayload> {
    return this.rendered(this.createQuiet(req, nowMs), nowMs);
  }

  move(id: Guid, req: MoveRequest, nowMs: number): Result<ObjectPayload> {
    return this.rendered(this.moveQuiet(id, req, nowMs), nowMs);
  }

  putAttribute(id: Guid, name: string, values: readonly ValueInput[], nowMs: number): Result<ObjectPayload> {
    return this.rendered(this.putAttributeQuiet(id, name, values, nowMs), nowMs);
  }

  /*
   * The quiet forms of the writes that answer with a payload: same refusals, same writes, but
   * the answer is the object's id. A shell that answers no client (the simulator's workload)
   * skips rendering the payload, which was 7 % of the simulator's time.
   */

  createQuiet(req: CreateRequest, nowMs: number): Result<Guid> {
    return this.mutate(() => createObject(this.dir, req, nowMs), (id) => ok(id));
  }

  moveQuiet(id: Guid, req: MoveRequest, nowMs: number): Result<Guid> {
    return this.mutate(() => moveObject(this.dir, id, req, nowMs), () => ok(id));
  }

  putAttributeQuiet(id: Guid, name: string, values: readonly ValueInput[], nowMs: number): Result<Guid> {
    return this.mutate(() => putAttribute(this.dir, id, name, values, nowMs), () => ok(id));
  }

  restoreQuiet(id: Guid, nowMs: number): Result<Guid> {
    return this.mutate(() => restoreObject(this.dir, id, nowMs), () => ok(id));
  }

  private rendered(written: Result<Guid>, nowMs: number): Result<ObjectPayload> {
    return written.ok ? this.object(written.value, nowMs) : written;
  }

  delete(id: Guid, nowMs: number): Result<null> {
    return this.mutate(() => deleteObject(this.dir, id, nowMs), () => ok(null));
  }

  restore(id: Guid, nowMs: number): Result<ObjectPayload> {
    return this.rendered(this.restoreQuiet(id, nowMs), nowMs);
  }

  shred(id: Guid, nowMs: number): Result<{ id: Guid; shredded: number }> {
    return this.mutate(
      () => shredObject(this.dir, id, nowMs),
      (n) => {
        this.dir.journal.add(nowMs, "shred", `shredded ${n} record(s) under ${id}`);
        return ok({ id, shredded: n });
      },
    );
  }

  gc(nowMs: number): Result<{ purgeHorizon: string; hardened: number; purged: number }> {
    const outcome = collectGarbage(this.dir, nowMs);
    this.purgeHorizonMs = outcome.purgeHorizonMs;
    this.changed = true;
    return ok({
      purgeHorizon: msToTimestamp(outcome.purgeHorizonMs),
      hardened: outcome.hardened,
      purged: outcome.purged,
    });
  }

  private mutate<T, R>(run: () => Result<T>, then: (value: T) => Result<R>): Result<R> {
    const root = requireRoot(this.dir);
    if (!root.ok) return root;
    const usnBefore = this.dir.usn;
    const result = run();
    if (!result.ok) return result;
    // A write that changed nothing (an unchanged PUT, a rename to the same name) costs no fsync.
    if (this.dir.usn !== usnBefore) {
      this.changed = true;
      this.replicator.forgetRepairsOfLocalWrite(usnBefore);
    }
    return then(result.value);
  }
}

/** `Map.forEach` callback of `boot` (a module function: no closure per boot). */
function putEntry(this: NodeLoader, value: string, key: string): void {
  this.put(key, value);
}

function maxUsn(dir: Directory): number {
  let usn = 0;
  for (const r of dir.store.all()) usn = Math.max(usn, r.usnChanged);
  return usn;
}

/**
 * A dictionary with its keys in sorted order. The node view shows the vector and the
 * watermarks in one order whatever the history: in memory their keys follow the order the
 * entries were loaded at boot (the daemon's key order, the simulator's snapshot order) and
 * then merged, so two nodes (or two boots of one disk) holding the same vector printed it
 * differently (sim/directory/boot-order.property.test.ts).
 */
function byKey<T>(dictionary: Readonly<Record<string, T>>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key of Object.keys(dictionary).sort()) out[key] = dictionary[key]!;
  return out;
}
