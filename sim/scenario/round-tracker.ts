/**
 * Liveness rounds (oracle 7). A round is complete when every node of the set has completed at
 * least one pull from every other node of the set, each pull cycle started at or after the
 * round's start; the next round starts then. Counting starts at the heal.
 *
 * The bound: in a full mesh every node pulls every other directly, so one round carries every
 * atom that exists anywhere at the heal to every node; a rollback detected in that round needs
 * one more completed pull to lift its latch. The stated bound is 2 x diameter + 1 = 3 rounds
 * for the full mesh (diameter 1), which leaves a round of margin over that argument.
 *
 * In another topology (sim/scenario/topology.ts) only neighbours pull from each other: a
 * round is every neighbour pair's pulls, and one round carries an atom one hop, so the bound is
 * 2 x the topology's diameter + 1 (at least `roundsMax`): the diameter of rounds to bring every
 * atom and every vector entry (rollback evidence included) to every node, then as many again
 * for what a node detecting a rollback re-sends, and the pull that lifts its latch.
 *
 * A pair whose destination refuses its source (apart longer than maxTimeApart: DESIGN, for
 * good) never completes a pull again, so it is excused from every round from then on, and the
 * bound is taken over the graph of the remaining pairs: 2 x its diameter + 1 (data still
 * reaches the destination through other partners). Without this a single by-design refusal
 * kept every later round open and the run failed liveness although it had converged. A pair
 * excused that completes a pull again (the refusal lifted) holds rounds again.
 */
export class RoundTracker {
  private readonly index = new Map<string, number>();
  private readonly done: Uint8Array;
  private remaining = 0;
  /** Pairs excused for good (dest * n + source), in the order they were refused. */
  private readonly excused: number[] = [];
  private roundStartMs = 0;
  private active = false;
  /** Rounds completed since begin(). */
  completed = 0;
  /** Set at each round boundary; the runner clears it when it has looked. */
  boundaryPending = false;
  readonly boundariesMs: number[] = [];

  /** Ordered pairs that pull (dest * n + source, 1) or not (0): neighbours under the topology. */
  private readonly linked: Uint8Array;
  private readonly linkedPairs: number;
  private readonly everyPair: boolean;

  /** `linked(dest, source)`: whether `dest` pulls from `source` (default: every pair does). */
  constructor(
    private readonly nodes: readonly string[],
    linked: (dest: string, source: string) => boolean = () => true,
  ) {
    nodes.forEach((id, i) => this.index.set(id, i));
    const n = nodes.length;
    this.done = new Uint8Array(n * n);
    this.linked = new Uint8Array(n * n);
    let count = 0;
    for (let d = 0; d < n; d++) {
      for (let s = 0; s < n; s++) {
        if (d === s || !linked(nodes[d]!, nodes[s]!)) continue;
        this.linked[d * n + s] = 1;
        count++;
      }
    }
    this.linkedPairs = count;
    this.everyPair = count === n * (n - 1);
  }

  begin(nowMs: number): void {
    this.active = true;
    this.startRound(nowMs);
  }

  /** A pull cycle of `dest` from `source` that started at `startedMs` completed at `nowMs`. */
  pullDone(dest: string, source: string, startedMs: number, nowMs: number): void {
    const d = this.index.get(dest);
    const s = this.index.get(source);
    if (d === undefined || s === undefined || this.linked[d * this.nodes.length + s] !== 1) return;
    const cell = d * this.nodes.length + s;
    // The pair pulls again: the refusal lifted (a clock stepped back, a horizon raised), and
    // the pair holds rounds from the next one on. An excuse kept for good took the pair out of
    // every round and of the diameter (liveness audit, twenty-eighth session).
    const excused = this.excused.indexOf(cell);
    if (excused !== -1) this.excused.splice(excused, 1);
    if (!this.active || startedMs < this.roundStartMs) return;
    this.markDone(cell, nowMs);
  }

  /** `dest` refused `source` (for good): the pair no longer holds rounds open. */
  excuse(dest: string, source: string, nowMs: number): void {
    const d = this.index.get(dest);
    const s = this.index.get(source);
    if (d === undefined || s === undefined) return;
    const cell = d * this.nodes.length + s;
    if (this.linked[cell] !== 1 || this.excused.includes(cell)) return;
    this.excused.push(cell);
    if (this.active) this.markDone(cell, nowMs);
  }

  /** The pair `cell` is done for the round under way; the last one ends the round. */
  private markDone(cell: number, nowMs: number): void {
    if (this.done[cell] === 1) return;
    this.done[cell] = 1;
    this.remaining--;
    if (this.remaining > 0) return;
    this.completed++;
    this.boundaryPending = true;
    this.boundariesMs.push(nowMs);
    this.startRound(nowMs);
  }

  /** The excused pairs as `dest<-source`. */
  get refusals(): string[] {
    const n = this.nodes.length;
    return this.excused.map((cell) => `${this.nodes[Math.floor(cell / n)]}<-${this.nodes[cell % n]}`);
  }

  /**
   * The round bound: `roundsMax` for the full mesh; otherwise (another topology, or excused
   * pairs) 2 x the diameter of the pulling pairs' graph + 1 when that is larger (the graph
   * stays strongly connected), else `roundsMax` (no bound holds: refusals cut some node off).
   */
  bound(roundsMax: number): number {
    if (this.everyPair && this.excused.length === 0) return roundsMax;
    // Cut off by refusals, no bound holds; still no fewer rounds than the topology's own.
    const diameter = this.diameter(true) ?? this.diameter(false);
    return diameter === null ? roundsMax : Math.max(roundsMax, 2 * diameter + 1);
  }

  /**
   * Longest shortest path along pulls (source -> dest) between any two nodes, over the pairs
   * not excused (or over every pair of the topology); null: cut.
   */
  private diameter(withoutExcused: boolean): number | null {
    const n = this.nodes.length;
    let longest = 0;
    for (let from = 0; from < n; from++) {
      const hops = new Array<number>(n).fill(-1);
      hops[from] = 0;
      const queue = [from];
      for (let at = 0; at < queue.length; at++) {
        const s = queue[at]!;
        for (let d = 0; d < n; d++) {
          if (this.linked[d * n + s] !== 1 || hops[d] !== -1) continue;
          if (withoutExcused && this.excused.includes(d * n + s)) continue;
          hops[d] = hops[s]! + 1;
          queue.push(d);
        }
      }
      for (const h of hops) {
        if (h === -1) return null;
        longest = Math.max(longest, h);
      }
    }
    return longest;
  }

  private startRound(nowMs: number): void {
    this.roundStartMs = nowMs;
    this.done.fill(0);
    for (const cell of this.excused) this.done[cell] = 1;
    for (let cell = 0; cell < this.linked.length; cell++) if (this.linked[cell] !== 1) this.done[cell] = 1;
    this.remaining = this.linkedPairs - this.excused.length;
    // A single node has nobody to pull from: every round is trivially complete.
    if (this.remaining <= 0) this.remaining = 1;
  }
}
