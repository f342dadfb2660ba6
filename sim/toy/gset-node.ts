import { assert } from "../../core/assert";
import type { NodeContext, SimNodeHost } from "../world";

/**
 * A toy node for the simulator's own tests: a grow-only set replicated by push-pull
 * anti-entropy, persisted as one line per entry in `set.log`. It is just rich enough to
 * exercise every part of the world: timers, messages, a disk with group commit, recovery from
 * a torn tail, and an ack that waits for fsync, so tests can check "acked means durable".
 *
 * Entries are numbered per origin: each boot mints a fresh origin id from the node's PRNG (a
 * toy invocation id), so numbers lost in a crash are never reused for other values. A node
 * holds a contiguous prefix of every origin's entries, so a version vector (origin -> count)
 * summarizes its state; gossip sends the vector and the peer replies with what is missing.
 */

export interface GSetEntry {
  readonly origin: string;
  readonly seq: number;
  readonly value: string;
}

export type GSetMsg =
  | { readonly kind: "push"; readonly vv: ReadonlyMap<string, number> }
  | { readonly kind: "reply"; readonly entries: readonly GSetEntry[] };

export interface GSetInput {
  readonly add: string;
}

export interface GSetTimings {
  readonly gossipMs: number;
  /** Group commit: one fsync per flush covers every append since the last. */
  readonly flushMs: number;
}

/** What survives the nodes' crashes: the test's record of acks and syncs. */
export interface GSetOracle {
  /** Values acked to clients, by node. */
  readonly acked: Map<string, Set<string>>;
  /** Values each node has made durable on its own disk. */
  readonly synced: Map<string, Set<string>>;
}

export function newOracle(ids: readonly string[]): GSetOracle {
  return {
    acked: new Map(ids.map((id) => [id, new Set<string>()])),
    synced: new Map(ids.map((id) => [id, new Set<string>()])),
  };
}

const logPath = "set.log";
const newline = 10;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const defaultTimings: GSetTimings = { gossipMs: 100, flushMs: 20 };

export class GSetNode implements SimNodeHost<GSetMsg, GSetInput> {
  /** Every value held; what convergence compares. */
  elements = new Set<string>();
  private byOrigin = new Map<string, string[]>();
  private origin = "";
  private unsynced: string[] = [];
  private pendingAcks: string[] = [];

  constructor(
    readonly id: string,
    private readonly peers: readonly string[],
    private readonly oracle: GSetOracle,
    private readonly timings: GSetTimings = defaultTimings,
  ) {}

  onStart(ctx: NodeContext<GSetMsg>): void {
    // Create the log durably before anything is acked: the file and its directory entry.
    ctx.fs.write(logPath, new Uint8Array(0));
    ctx.fs.sync(logPath);
    ctx.fs.syncDir("");
    this.boot(ctx);
  }

  onRestart(ctx: NodeContext<GSetMsg>): void {
    const bytes = ctx.fs.read(logPath);
    if (bytes === null) return this.onStart(ctx);
    // A torn tail ends without a newline: cut it so later appends start on a line boundary.
    const valid = bytes.lastIndexOf(newline) + 1;
    if (valid < bytes.length) {
      ctx.fs.truncate(logPath, valid);
      ctx.fs.sync(logPath);
      ctx.trace("torn-cut", String(bytes.length - valid));
    }
    for (const line of decoder.decode(bytes.subarray(0, valid)).split("\n")) {
      if (line === "") continue;
      const [origin, seq, value] = line.split(" ");
      assert(origin !== undefined && seq !== undefined && value !== undefined, "log line");
      this.apply({ origin, seq: Number(seq), value });
    }
    ctx.trace("recovered", String(this.elements.size));
    this.boot(ctx);
  }

  onCrash(): void {
    this.elements = new Set();
    this.byOrigin = new Map();
    this.unsynced = [];
    this.pendingAcks = [];
  }

  onInput(ctx: NodeContext<GSetMsg>, input: GSetInput): void {
    const seq = (this.byOrigin.get(this.origin)?.length ?? 0) + 1;
    this.persist(ctx, { origin: this.origin, seq, value: input.add });
    this.pendingAcks.push(input.add);
  }

  onMessage(ctx: NodeContext<GSetMsg>, from: string, msg: GSetMsg): void {
    if (msg.kind === "reply") {
      for (const entry of msg.entries) this.persist(ctx, entry);
      return;
    }
    const missing: GSetEntry[] = [];
    for (const origin of [...this.byOrigin.keys()].sort()) {
      const values = this.byOrigin.get(origin) ?? [];
      for (let seq = (msg.vv.get(origin) ?? 0) + 1; seq <= values.length; seq++) {
        missing.push({ origin, seq, value: values[seq - 1] as string });
      }
    }
    if (missing.length > 0) ctx.send(from, { kind: "reply", entries: missing });
  }

  onTimer(ctx: NodeContext<GSetMsg>, name: string): void {
    if (name === "flush") {
      this.flush(ctx);
      ctx.setTimer("flush", this.timings.flushMs);
      return;
    }
    assert(name === "gossip", `toy timer ${name}`);
    const vv = new Map<string, number>();
    for (const [origin, values] of this.byOrigin) vv.set(origin, values.length);
    ctx.send(ctx.prng.pick(this.peers), { kind: "push", vv });
    ctx.setTimer("gossip", this.timings.gossipMs);
  }

  private boot(ctx: NodeContext<GSetMsg>): void {
    this.origin = `${this.id}.${ctx.prng.uint32().toString(16)}`;
    assert(!this.byOrigin.has(this.origin), "a fresh origin id per boot");
    ctx.setTimer("flush", this.timings.flushMs);
    ctx.setTimer("gossip", ctx.prng.int(1, this.timings.gossipMs));
  }

  /** Applies an entry when it extends its origin's prefix; false when known or out of order. */
  private apply(entry: GSetEntry): boolean {
    const values = this.byOrigin.get(entry.origin) ?? [];
    if (entry.seq !== values.length + 1) return false;
    values.push(entry.value);
    this.byOrigin.set(entry.origin, values);
    this.elements.add(entry.value);
    return true;
  }

  private persist(ctx: NodeContext<GSetMsg>, entry: GSetEntry): void {
    assert(!/[\s]/.test(entry.value) && entry.value.length > 0, "values are one word");
    if (!this.apply(entry)) return;
    ctx.fs.append(logPath, encoder.encode(`${entry.origin} ${entry.seq} ${entry.value}\n`));
    this.unsynced.push(entry.value);
  }

  /** One fsync, then the acks it made true (persist before ack). */
  private flush(ctx: NodeContext<GSetMsg>): void {
    if (this.unsynced.length === 0 && this.pendingAcks.length === 0) return;
    ctx.fs.sync(logPath);
    const synced = this.oracle.synced.get(this.id);
    const acked = this.oracle.acked.get(this.id);
    assert(synced !== undefined && acked !== undefined, "oracle knows the node");
    for (const value of this.unsynced) synced.add(value);
    for (const value of this.pendingAcks) acked.add(value);
    ctx.trace("flush", `synced=${this.unsynced.length} acked=${this.pendingAcks.length}`);
    this.unsynced = [];
    this.pendingAcks = [];
  }
}
