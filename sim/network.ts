import { assert, assertNever } from "../core/assert";
import type { Prng } from "./prng";

/** One-way delay of a message, drawn per copy; jitter between copies is what reorders. */
export type LatencyModel =
  | { readonly kind: "fixed"; readonly ms: number }
  | { readonly kind: "uniform"; readonly minMs: number; readonly maxMs: number }
  /** median * e^(sigma * N(0,1)), clamped to [minMs, maxMs]: mostly fast, a long tail. */
  | {
      readonly kind: "lognormal";
      readonly medianMs: number;
      readonly sigma: number;
      readonly minMs: number;
      readonly maxMs: number;
    };

export interface NetworkConfig {
  readonly latency: LatencyModel;
  /** Probability that a message is lost at send. */
  readonly lossP: number;
  /** Probability that a message that was not lost arrives twice (independent delays). */
  readonly dupP: number;
}

export const quietNetwork: NetworkConfig = {
  latency: { kind: "uniform", minMs: 1, maxMs: 5 },
  lossP: 0,
  dupP: 0,
};

export interface NetworkStats {
  sent: number;
  delivered: number;
  /** Every copy that did not arrive: the sum of the three causes below. */
  dropped: number;
  droppedLoss: number;
  droppedPartition: number;
  droppedDown: number;
  duplicated: number;
}

/**
 * A simulated network between a fixed set of nodes, addressed by index (the position of the
 * id in sorted order) so the hot path does no string work.
 *
 * Reachability: a link from -> to is blocked when `partition` put the two nodes in different
 * groups, or `cut(from, to)` cut that direction. In-flight rule: a message is delivered only if
 * its link is open both when it is sent and when it arrives; one in flight when a partition or
 * cut starts is dropped on arrival, as a router drops packets once a route is gone. A message
 * sent while blocked is dropped even if the link heals before its would-be arrival.
 */
export class Network {
  readonly ids: readonly string[];
  readonly stats: NetworkStats = {
    sent: 0,
    delivered: 0,
    dropped: 0,
    droppedLoss: 0,
    droppedPartition: 0,
    droppedDown: 0,
    duplicated: 0,
  };
  private readonly indexById = new Map<string, number>();
  /** blocked[from * n + to] = 1 when the directed link is cut. */
  private readonly blocked: Uint8Array;
  private readonly groupOf: Int32Array;
  private readonly cuts: Uint8Array;
  private config: NetworkConfig;

  constructor(
    ids: readonly string[],
    private readonly prng: Prng,
    config: NetworkConfig = quietNetwork,
  ) {
    const sorted = [...ids].sort();
    for (let i = 1; i < sorted.length; i++) {
      assert(sorted[i - 1] !== sorted[i], "node ids are unique");
    }
    this.ids = sorted;
    sorted.forEach((id, i) => this.indexById.set(id, i));
    const n = sorted.length;
    this.blocked = new Uint8Array(n * n);
    this.cuts = new Uint8Array(n * n);
    this.groupOf = new Int32Array(n);
    this.config = config;
    checkConfig(config);
  }

  get nodeCount(): number {
    return this.ids.length;
  }

  indexOf(id: string): number {
    const index = this.indexById.get(id);
    assert(index !== undefined, `unknown node id ${id}`);
    return index;
  }

  setConfig(config: NetworkConfig): void {
    checkConfig(config);
    this.config = config;
  }

  getConfig(): NetworkConfig {
    return this.config;
  }

  /**
   * Decides the fate of one message sent now. Writes the delay of each copy that will travel
   * into delaysOut and returns how many there are (0, 1 or 2).
   */
  send(from: number, to: number, delaysOut: number[]): number {
    assert(from !== to, "a node does not send to itself over the network");
    this.stats.sent++;
    if (this.blocked[from * this.ids.length + to] === 1) {
      this.drop("partition");
      return 0;
    }
    if (this.prng.chance(this.config.lossP)) {
      this.drop("loss");
      return 0;
    }
    delaysOut[0] = this.drawLatencyMs();
    if (!this.prng.chance(this.config.dupP)) return 1;
    this.stats.duplicated++;
    delaysOut[1] = this.drawLatencyMs();
    return 2;
  }

  /** Called when a copy arrives; true when it is delivered (link open, destination up). */
  arrive(from: number, to: number, destinationUp: boolean): boolean {
    if (this.blocked[from * this.ids.length + to] === 1) {
      this.drop("partition");
      return false;
    }
    if (!destinationUp) {
      this.drop("down");
      return false;
    }
    this.stats.delivered++;
    return true;
  }

  canReach(from: string, to: string): boolean {
    return this.blocked[this.indexOf(from) * this.ids.length + this.indexOf(to)] === 0;
  }

  /**
   * Splits the nodes into groups that cannot reach each other; replaces any previous
   * partition and keeps one-way cuts. A node named in no group is isolated on its own.
   */
  partition(groups: readonly (readonly string[])[]): void {
    this.groupOf.fill(-1);
    groups.forEach((group, g) => {
      for (const id of group) {
        const i = this.indexOf(id);
        assert(this.groupOf[i] === -1, `node ${id} is in one partition group only`);
        this.groupOf[i] = g;
      }
    });
    for (let i = 0; i < this.groupOf.length; i++) {
      if (this.groupOf[i] === -1) this.groupOf[i] = groups.length + i;
    }
    this.recompute();
  }

  /** Cuts the one direction from -> to; to -> from stays as it was. */
  cut(from: string, to: string): void {
    const f = this.indexOf(from);
    const t = this.indexOf(to);
    assert(f !== t, "cut joins two distinct nodes");
    this.cuts[f * this.ids.length + t] = 1;
    this.recompute();
  }

  /** Removes every partition and cut. */
  heal(): void {
    this.groupOf.fill(0);
    this.cuts.fill(0);
    this.recompute();
  }

  private recompute(): void {
    const n = this.ids.length;
    for (let f = 0; f < n; f++) {
      for (let t = 0; t < n; t++) {
        const split = this.groupOf[f] !== this.groupOf[t];
        this.blocked[f * n + t] = split || this.cuts[f * n + t] === 1 ? 1 : 0;
      }
    }
  }

  private drop(cause: "loss" | "partition" | "down"): void {
    this.stats.dropped++;
    if (cause === "loss") this.stats.droppedLoss++;
    else if (cause === "partition") this.stats.droppedPartition++;
    else this.stats.droppedDown++;
  }

  /** Whole milliseconds keep traces readable; equal times are ordered by send sequence. */
  private drawLatencyMs(): number {
    const model = this.config.latency;
    switch (model.kind) {
      case "fixed":
        return model.ms;
      case "uniform":
        return this.prng.int(model.minMs, model.maxMs);
      case "lognormal": {
        const ms = Math.round(model.medianMs * Math.exp(model.sigma * this.prng.normal()));
        return Math.min(model.maxMs, Math.max(model.minMs, ms));
      }
      default:
        return assertNever(model, "latency model");
    }
  }
}

function checkConfig(config: NetworkConfig): void {
  assert(config.lossP >= 0 && config.lossP < 1, "lossP in [0, 1)");
  assert(config.dupP >= 0 && config.dupP < 1, "dupP in [0, 1)");
  const m = config.latency;
  if (m.kind === "fixed") assert(Number.isInteger(m.ms) && m.ms >= 0, "fixed latency >= 0");
  if (m.kind === "uniform") assert(0 <= m.minMs && m.minMs <= m.maxMs, "uniform bounds");
  if (m.kind === "lognormal") {
    assert(m.medianMs > 0 && m.sigma >= 0 && 0 <= m.minMs && m.minMs <= m.maxMs, "lognormal");
  }
}
