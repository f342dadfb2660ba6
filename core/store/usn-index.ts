import { assert } from "../assert";
import type { Guid } from "../guid";

/**
 * Objects in usnChanged order, for change enumeration whose cost grows with the number of
 * changes, not with the directory's size. USNs only grow, so appending keeps the array
 * sorted; superseded entries are skipped lazily and compacted when they dominate.
 */
export class UsnIndex {
  private usns: number[] = [];
  private readonly idByUsn = new Map<number, Guid>();
  private sorted = true;

  set(id: Guid, usn: number, previousUsn: number | null): void {
    if (previousUsn === usn) {
      this.idByUsn.set(usn, id);
      return;
    }
    if (previousUsn !== null) this.idByUsn.delete(previousUsn);
    const last = this.usns[this.usns.length - 1];
    assert(!this.idByUsn.has(usn), `usn ${usn} indexed twice`);
    // Only boot-time loading inserts out of order (records come in key order): append and
    // sort once when next read, instead of an O(n) splice per record.
    if (last !== undefined && usn < last) this.sorted = false;
    this.usns.push(usn);
    this.idByUsn.set(usn, id);
    this.compactIfSparse();
  }

  delete(usn: number): void {
    this.idByUsn.delete(usn);
    this.compactIfSparse();
  }

  /** Ids whose usnChanged is greater than `afterUsn`, ascending, at most `limit`. */
  after(afterUsn: number, limit: number): Array<{ id: Guid; usn: number }> {
    this.sortIfNeeded();
    const out: Array<{ id: Guid; usn: number }> = [];
    for (let i = this.upperBound(afterUsn); i < this.usns.length && out.length < limit; i++) {
      const usn = this.usns[i]!;
      const id = this.idByUsn.get(usn);
      if (id !== undefined) out.push({ id, usn });
    }
    return out;
  }

  get size(): number {
    return this.idByUsn.size;
  }

  private upperBound(usn: number): number {
    let lo = 0;
    let hi = this.usns.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.usns[mid]! <= usn) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private sortIfNeeded(): void {
    if (this.sorted) return;
    this.usns.sort((a, b) => a - b);
    this.sorted = true;
  }

  private compactIfSparse(): void {
    if (this.usns.length < 1024 || this.usns.length < 2 * this.idByUsn.size) return;
    this.usns = this.usns.filter((u) => this.idByUsn.has(u));
  }
}
