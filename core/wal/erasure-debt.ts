/**
 * Erasure debt: how many shreds still have their plaintext somewhere under the data directory.
 * A shred overwrites the value with a later put, but the old bytes live on in log generations
 * and snapshots written before it. Those are all at or below the generation that was active
 * when the debt was raised (the caller raises it before it commits the overwriting batch), so a
 * rebuild of a snapshot at that generation or later, once it has unlinked every older file,
 * pays the whole debt. The debt is persisted (erasure-debt.json) so a restart does not forget
 * plaintext still on disk.
 *
 * Intent first: the debt is raised (durably) *before* the overwriting batch is committed, at
 * the generation that batch will be appended to. A crash between the two leaves a debt with
 * no shred behind it, which a rotation pays for nothing; the other order (raise after the
 * commit) let a crash between them leave the plaintext on disk with no debt to say so, and
 * nothing would ever erase it (scenarios/regressions/erasure-debt-raised-before-commit.scn).
 */
import { assert } from "../assert";
import type { FileSystem } from "./fs-port";

export const erasureDebtPath = "erasure-debt.json";

export interface ErasureDebtState {
  readonly count: number;
  /** A snapshot of this generation or later, with its predecessors unlinked, pays the debt. */
  readonly generation: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class ErasureDebt {
  private constructor(
    private readonly fs: FileSystem,
    private state: ErasureDebtState,
  ) {}

  /**
   * `activeGeneration` bounds a debt whose file is junk: the worst case still pays. The file
   * is written by rename after a sync, so anything but a non-negative count and generation is
   * foreign junk (unparsable, another shape, a negative count: a negative one was taken, and
   * the next shred's assertion killed storage at every boot; a count that is not a number was
   * taken for no debt; storage audit, twenty-eighth session). A generation beyond the active
   * one is brought down to it: nothing on disk is newer.
   */
  static load(fs: FileSystem, activeGeneration: number): ErasureDebt {
    const bytes = fs.read(erasureDebtPath);
    if (bytes === null) return new ErasureDebt(fs, { count: 0, generation: 0 });
    const junk: ErasureDebtState = { count: 1, generation: activeGeneration };
    let parsed: unknown;
    try {
      parsed = JSON.parse(decoder.decode(bytes));
    } catch {
      return new ErasureDebt(fs, junk);
    }
    const { count, generation } = (parsed ?? {}) as Partial<Record<keyof ErasureDebtState, unknown>>;
    const whole = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
    if (!whole(count) || !whole(generation)) return new ErasureDebt(fs, junk);
    if (count === 0) return new ErasureDebt(fs, { count: 0, generation: 0 });
    return new ErasureDebt(fs, { count, generation: Math.min(generation, activeGeneration) });
  }

  get count(): number {
    return this.state.count;
  }

  get generation(): number {
    return this.state.generation;
  }

  /** Raises the debt by one shred; `activeGeneration` is the log generation being written. */
  raise(activeGeneration: number): void {
    const generation = Math.max(this.state.generation, activeGeneration);
    this.persist({ count: this.state.count + 1, generation });
  }

  /**
   * Called after a rebuild of `snapshotGeneration` unlinked everything older. Pays the debt
   * when the snapshot reaches the debt's generation; returns whether it did.
   */
  settle(snapshotGeneration: number): boolean {
    if (this.state.count === 0 || snapshotGeneration < this.state.generation) return false;
    this.persist({ count: 0, generation: 0 });
    return true;
  }

  private persist(state: ErasureDebtState): void {
    assert(state.count >= 0, "debt is never negative");
    if (state.count === 0) {
      if (this.fs.read(erasureDebtPath) !== null) this.fs.remove(erasureDebtPath);
    } else {
      this.fs.write(`${erasureDebtPath}.tmp`, encoder.encode(JSON.stringify(state)));
      this.fs.sync(`${erasureDebtPath}.tmp`);
      this.fs.rename(`${erasureDebtPath}.tmp`, erasureDebtPath);
    }
    this.fs.syncDir("");
    this.state = state;
  }
}
