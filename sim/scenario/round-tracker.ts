/**
 * Liveness rounds (oracle 7). A round is complete when every node of the set has completed at
 * least one pull from every other node of the set, each pull cycle started at or after the
 * round's start; the next round starts then. Counting starts at the heal.
 *
 * The bound: in a full mesh every node pulls every other directly, so one round carries every
 * atom that exists anywhere at the heal to every node; a rollback detected in that round needs
 * one more completed pull to lift its latch. The stated bound is 2 x diameter + 1 = 3 rounds
 * for the full mesh (diameter 1), which leaves a round of margin over that argument.
 */
export class RoundTracker {
  private readonly index = new Map<string, number>();
  private readonly done: Uint8Array;
  private remaining = 0;
  private roundStartMs = 0;
  private active = false;
  /** Rounds completed since begin(). */
  completed = 0;
  /** Set at each round boundary; the runner clears it when it has looked. */
  boundaryPending = false;
  readonly boundariesMs: number[] = [];

  constructor(private readonly nodes: readonly string[]) {
    nodes.forEach((id, i) => this.index.set(id, i));
    this.done = new Uint8Array(nodes.length * nodes.length);
  }

  begin(nowMs: number): void {
    this.active = true;
    this.startRound(nowMs);
  }

  /** A pull cycle of `dest` from `source` that started at `startedMs` completed at `nowMs`. */
  pullDone(dest: string, source: string, startedMs: number, nowMs: number): void {
    if (!this.active || startedMs < this.roundStartMs) return;
    const d = this.index.get(dest);
    const s = this.index.get(source);
    if (d === undefined || s === undefined) return;
    const cell = d * this.nodes.length + s;
    if (this.done[cell] === 1) return;
    this.done[cell] = 1;
    this.remaining--;
    if (this.remaining > 0) return;
    this.completed++;
    this.boundaryPending = true;
    this.boundariesMs.push(nowMs);
    this.startRound(nowMs);
  }

  private startRound(nowMs: number): void {
    this.roundStartMs = nowMs;
    this.done.fill(0);
    this.remaining = this.nodes.length * (this.nodes.length - 1);
    // A single node has nobody to pull from: every round is trivially complete.
    if (this.remaining === 0) this.remaining = 1;
  }
}
