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

  /** `activeGeneration` bounds a debt whose file is unreadable: the worst case still pays. */
  static load(fs: FileSystem, activeGeneration: number): ErasureDebt {
    const bytes = fs.read(erasureDebtPath);
    let state: ErasureDebtState = { count: 0, generation: 0 };
    if (bytes !== null) {
      try {
        const parsed = JSON.parse(decoder.decode(bytes)) as Partial<ErasureDebtState>;
        if (Number.isSafeInteger(parsed.count) && Number.isSafeInteger(parsed.generation)) {
          state = { count: parsed.count ?? 0, generation: parsed.generation ?? 0 };
        }
      } catch {
        // Written by rename after a sync, so unparsable means foreign junk: assume a debt that
        // covers everything on disk now.
        state = { count: 1, generation: activeGeneration };
      }
    }
    return new ErasureDebt(fs, state);
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
