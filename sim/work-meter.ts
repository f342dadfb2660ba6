/**
 * Where a run's wall time goes, by kind of work, without the simulator reading a clock: the
 * world and the scenario runner tell a `WorkMeter` each time they move to another kind of
 * work ("boot", "message", "timer rotate", ...); the caller's meter reads its own clock and
 * charges the time since the previous call to the previous kind. Metering never changes a
 * run (the meter sees labels only and returns nothing).
 */
export type WorkMeter = (kind: string) => void;

/** The labels the world and the runner use, so that reports can order and explain them. */
export const workKinds = {
  boot: "boots (restart after a crash or rollback)",
  message: "messages (pull requests, batches, hints)",
  write: "workload writes",
  fault: "fault injections",
  oracles: "continuous oracles",
  heal: "the heal (restarts of down nodes)",
  convergence: "convergence checks (liveness phase)",
  final: "final oracles",
  setup: "set-up",
} as const;

/** A timer's kind: its name up to the first ':' (`pull:n2` and `pull:n3` are one kind). */
export function timerKind(name: string): string {
  const colon = name.indexOf(":");
  return `timer ${colon < 0 ? name : name.slice(0, colon)}`;
}

export interface WorkShare {
  readonly kind: string;
  readonly ms: number;
  readonly share: number;
  readonly times: number;
}

/** Accumulates the time a clock reads between meter calls, and the calls, by kind. */
export class WorkTally {
  private readonly ms = new Map<string, number>();
  private readonly calls = new Map<string, number>();
  private kind: string | null = null;
  private since = 0;

  constructor(private readonly clockMs: () => number) {}

  /** The `WorkMeter` to hand to a run. */
  readonly meter: WorkMeter = (kind) => {
    const now = this.clockMs();
    if (this.kind !== null) {
      this.ms.set(this.kind, (this.ms.get(this.kind) ?? 0) + now - this.since);
    }
    this.calls.set(kind, (this.calls.get(kind) ?? 0) + 1);
    this.kind = kind;
    this.since = now;
  };

  /** Charges the time since the last call and stops counting. */
  stop(): void {
    this.meter("");
    this.kind = null;
    this.ms.delete("");
    this.calls.delete("");
  }

  /**
   * Kinds by time spent, largest first, with their share of the total and how many times the
   * run moved to them (for an event kind: its events).
   */
  shares(): WorkShare[] {
    let total = 0;
    for (const v of this.ms.values()) total += v;
    return [...this.ms]
      .map(([kind, ms]) => ({
        kind,
        ms,
        share: total > 0 ? ms / total : 0,
        times: this.calls.get(kind) ?? 0,
      }))
      .sort((a, b) => b.ms - a.ms || (a.kind < b.kind ? -1 : 1));
  }
}
