import { assert } from "../core/assert";

/**
 * Virtual-time priority queue: a binary min-heap ordered by (timeMs, insertion sequence), so
 * events due at the same instant pop in the order they were pushed and every run with the
 * same seed pops the same sequence.
 *
 * Three parallel arrays instead of one entry object per event keep the hot path free of
 * allocations beyond the caller's own item.
 */
export class EventQueue<T> {
  private readonly times: number[] = [];
  private readonly seqs: number[] = [];
  private readonly items: T[] = [];
  private nextSeq = 0;

  get size(): number {
    return this.items.length;
  }

  push(timeMs: number, item: T): void {
    assert(Number.isFinite(timeMs), "event time is finite");
    let i = this.items.length;
    this.times.push(timeMs);
    this.seqs.push(this.nextSeq++);
    this.items.push(item);
    // Sift up.
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  /** Time of the earliest event, or null when empty. */
  peekTimeMs(): number | null {
    return this.items.length === 0 ? null : (this.times[0] as number);
  }

  /** Removes and returns the earliest event; read its time with peekTimeMs() first. */
  pop(): T | undefined {
    const n = this.items.length;
    if (n === 0) return undefined;
    const top = this.items[0] as T;
    const lastTime = this.times.pop() as number;
    const lastSeq = this.seqs.pop() as number;
    const lastItem = this.items.pop() as T;
    if (n > 1) {
      this.times[0] = lastTime;
      this.seqs[0] = lastSeq;
      this.items[0] = lastItem;
      this.siftDown(0);
    }
    return top;
  }

  clear(): void {
    this.times.length = 0;
    this.seqs.length = 0;
    this.items.length = 0;
  }

  /** Visits queued items in unspecified (heap) order; for counting, never for scheduling. */
  forEachUnordered(visit: (item: T, timeMs: number) => void): void {
    for (let i = 0; i < this.items.length; i++) {
      visit(this.items[i] as T, this.times[i] as number);
    }
  }

  private siftDown(start: number): void {
    const n = this.items.length;
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) return;
      const right = left + 1;
      const child = right < n && this.less(right, left) ? right : left;
      if (!this.less(child, i)) return;
      this.swap(i, child);
      i = child;
    }
  }

  private less(a: number, b: number): boolean {
    const ta = this.times[a] as number;
    const tb = this.times[b] as number;
    if (ta !== tb) return ta < tb;
    return (this.seqs[a] as number) < (this.seqs[b] as number);
  }

  private swap(a: number, b: number): void {
    const t = this.times[a] as number;
    this.times[a] = this.times[b] as number;
    this.times[b] = t;
    const s = this.seqs[a] as number;
    this.seqs[a] = this.seqs[b] as number;
    this.seqs[b] = s;
    const x = this.items[a] as T;
    this.items[a] = this.items[b] as T;
    this.items[b] = x;
  }
}
