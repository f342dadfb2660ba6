import { assert } from "../../core/assert";
import type { Result } from "../../core/errors";
import { DirectoryNode } from "../../core/node/directory-node";
import type { ReplicationMessage } from "../../core/repl/messages";
import type { ObjectRecord } from "../../core/store/record";
import { decodeRecord } from "../../core/store/record-codec";
import { KvStore } from "../../core/wal/kv-store";
import type { NodeContext, SimNodeHost } from "../world";
import type { DirectoryOp } from "./directory-op";
import { runOp } from "./run-op";
import type { Ledger } from "./ledger";

/** Replication timing of the simulated nodes (virtual ms of the node's mono clock). */
export interface ReplicationTiming {
  readonly pullEveryMs: number;
  readonly pullJitterMs: number;
  readonly hintDelayMs: number;
  readonly pullTimeoutMs: number;
  readonly objectsPerBatch: number;
}

export const defaultTiming: ReplicationTiming = {
  pullEveryMs: 5_000,
  pullJitterMs: 1_000,
  hintDelayMs: 200,
  pullTimeoutMs: 10_000,
  objectsPerBatch: 50,
};

/** Where sim ids meet node GUIDs (the simulator's stand-in for fabric discovery). */
export class Registry {
  readonly nodeIdOf = new Map<string, string>();
  readonly simIdOf = new Map<string, string>();

  register(simId: string, nodeId: string): void {
    this.nodeIdOf.set(simId, nodeId);
    this.simIdOf.set(nodeId, simId);
  }
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
}

/**
 * One simulated directory node: the unchanged core (DirectoryNode) over the real
 * write-ahead-log code (KvStore) on the simulated disk. Persist first, then send or ack.
 */
export class DirectoryHost implements SimNodeHost<ReplicationMessage, DirectoryOp> {
  node: DirectoryNode | null = null;
  private store: KvStore | null = null;
  private pullStartedMono = new Map<string, number>();

  constructor(readonly options: HostOptions) {}

  onStart(ctx: NodeContext<ReplicationMessage>): void {
    this.boot(ctx);
  }

  onRestart(ctx: NodeContext<ReplicationMessage>): void {
    this.boot(ctx);
  }

  onCrash(): void {
    this.node = null;
    this.store = null;
    this.pullStartedMono.clear();
  }

  onTimer(ctx: NodeContext<ReplicationMessage>, name: string): void {
    const node = this.node;
    if (node === null || !name.startsWith("pull:")) return;
    const peer = name.slice("pull:".length);
    this.armPull(ctx, peer, this.options.timing.pullEveryMs);
    const peerGuid = this.options.registry.nodeIdOf.get(peer);
    if (peerGuid === undefined) return;
    const started = this.pullStartedMono.get(peer);
    if (node.replicator.isPulling(peerGuid)) {
      if (started !== undefined && ctx.monoMs() - started < this.options.timing.pullTimeoutMs) return;
      node.replicator.abandon(peerGuid);
      ctx.trace("pull-timeout", peer);
    }
    const req = node.replicator.pullRequest(peerGuid, ctx.wallMs(), this.options.timing.objectsPerBatch);
    this.persist(ctx);
    if (req === null) {
      ctx.trace("pull-refused", peer);
      return;
    }
    this.pullStartedMono.set(peer, ctx.monoMs());
    ctx.send(peer, req);
  }

  onMessage(ctx: NodeContext<ReplicationMessage>, from: string, msg: ReplicationMessage): void {
    const node = this.node;
    if (node === null) return;
    switch (msg.type) {
      case "pull": {
        const batch = node.replicator.answer(msg, ctx.wallMs());
        this.persist(ctx);
        ctx.send(from, batch);
        return;
      }
      case "batch": {
        const next = node.replicator.receive(msg, ctx.wallMs());
        this.persist(ctx);
        if (next !== null) {
          this.pullStartedMono.set(from, ctx.monoMs());
          ctx.send(from, next);
        } else {
          ctx.trace("pull-done", `${from} usn=${node.dir.usn}`);
        }
        return;
      }
      case "hint":
        this.armPull(ctx, from, this.options.timing.hintDelayMs);
        return;
    }
  }

  onInput(ctx: NodeContext<ReplicationMessage>, op: DirectoryOp): void {
    const node = this.node;
    if (node === null) return;
    const usnBefore = node.dir.usn;
    const result: Result<unknown> = runOp(node, op, ctx.wallMs());
    const written = this.persist(ctx);
    this.options.ledger.count(op.kind, result.ok ? "ok" : result.code);
    ctx.trace("op", `${op.kind} ${result.ok ? "ok" : result.code}`);
    if (!result.ok) return;
    // Acknowledged only now that the batch is durable: record what the client was promised.
    for (const record of written) this.ackAtoms(ctx, record, usnBefore);
    for (const peer of this.options.peers) ctx.send(peer, { type: "hint", from: node.dir.nodeId });
  }

  private boot(ctx: NodeContext<ReplicationMessage>): void {
    const opened = KvStore.open(ctx.fs);
    this.store = opened.store;
    const booted = DirectoryNode.boot(ctx.prng, opened.entries, ctx.wallMs());
    this.node =
      booted ??
      (this.options.founder
        ? DirectoryNode.createDomain(ctx.prng, this.options.domainName, ctx.wallMs())
        : DirectoryNode.joining(ctx.prng));
    this.persist(ctx);
    this.options.registry.register(this.options.simId, this.node.dir.nodeId);
    ctx.trace("boot", `${booted === null ? "fresh" : "recovered"} node=${this.node.dir.nodeId.slice(0, 8)} usn=${this.node.dir.usn}`);
    for (const peer of this.options.peers) {
      this.armPull(ctx, peer, ctx.prng.int(0, this.options.timing.pullJitterMs));
    }
  }

  private armPull(ctx: NodeContext<ReplicationMessage>, peer: string, afterMs: number): void {
    const jitter = ctx.prng.int(0, this.options.timing.pullJitterMs);
    ctx.setTimer(`pull:${peer}`, afterMs + jitter);
  }

  /** Persists whatever the node changed; returns the object records written. */
  private persist(ctx: NodeContext<ReplicationMessage>): ObjectRecord[] {
    const node = this.node;
    const store = this.store;
    assert(node !== null && store !== null, "persist on a running node");
    const ready = node.ready();
    if (ready === null) return [];
    store.commit([ready.batch]);
    if (ready.erasure) {
      store.markErasureDebt();
      store.rotate();
    }
    void ctx;
    const out: ObjectRecord[] = [];
    for (const [key, value] of ready.batch.puts) if (key.startsWith("o/")) out.push(decodeRecord(value));
    return out;
  }

  private ackAtoms(ctx: NodeContext<ReplicationMessage>, record: ObjectRecord, usnBefore: number): void {
    const ack = (atom: string, stamp: ObjectRecord["existence"]["stamp"]): void => {
      if (stamp.localUsn <= usnBefore) return;
      this.options.ledger.ack({
        node: this.options.simId,
        objectId: record.id,
        atom,
        stamp,
        atMs: ctx.wallMs(),
        trueMs: this.options.trueMs(),
      });
    };
    ack("existence", record.existence.stamp);
    ack("placement", record.placement.stamp);
    for (const [name, atoms] of record.attrs) {
      for (const a of atoms.values()) ack(`attr\u0000${name}\u0000${a.key ?? ""}`, a.stamp);
    }
  }
}
