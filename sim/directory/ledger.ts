import { assert } from "../../core/assert";
import type { Stamp } from "../../core/store/stamp";

/**
 * What clients were told: every acknowledged originating write with the atoms it stamped.
 * The durability oracle checks each atom against every node at the end of a run: it must be
 * there with this stamp or a higher one (superseded), or its object legitimately purged.
 */
export interface AckedAtom {
  readonly node: string;
  readonly objectId: string;
  /** "existence", "placement" or "attr:<name>:<key>". */
  readonly atom: string;
  readonly stamp: Stamp;
  /** For value atoms: the life of the object the atom was written in (see lifeOf). */
  readonly life?: number;
  readonly atMs: number;
  /** Virtual (true) time of the ack. */
  readonly trueMs: number;
}

export class Ledger {
  readonly acked: AckedAtom[] = [];
  /** Counts per op kind and outcome code, for run summaries. */
  readonly outcomes = new Map<string, number>();
  /**
   * Existence stamps written by restores that ran (acknowledged, or cut short by a power cut
   * inside their persist, which may still have made them durable), per object
   * (`version/atMs/origin`). Never forgiven: a restore that a rollback later erased on its node
   * still happened, and its stamp may live on elsewhere. The no-resurrection oracle accepts
   * deleted -> alive only through one of these.
   */
  private readonly restoreStamps = new Set<string>();

  /** Acks arrive in virtual-time order (`acked` stays sorted by trueMs: forgiving relies on it). */
  ack(atom: AckedAtom): void {
    const last = this.acked[this.acked.length - 1];
    assert(last === undefined || atom.trueMs >= last.trueMs, "acks arrive in virtual-time order");
    this.acked.push(atom);
  }

  /**
   * Acks kept at a rollback only because another node held them then (see forgiveRolledBack):
   * their own node lost them, so each later rollback asks again whether a copy survives.
   */
  private readonly carriedAway = new Map<AckedAtom, string>();

  /**
   * A disk restored to an image taken at `imageTimeMs` forgets what its node acknowledged
   * after that instant: such an ack can no longer be promised, unless replication carried it
   * away first. `holderOf` names a node still running that holds an ack (oracle 2's
   * judgement, strict on missing objects and excuses), trying the holder named last time
   * first, or gives null; an ack held stays, and from then on every rollback asks again,
   * since the copy it counted on may be the next to go (re-asking every node each time was
   * 2.6 % of a rollback-heavy simulated hour; attack on the twenty-seventh session's changes). Acks after the
   * restore (the oracle's real subject) stay. Down nodes count as holding nothing (their
   * disks may hold more: that only forgives more). Only the tail acked since the image is
   * visited, compacted in one pass (a scan of every ack with a splice per forgiven one was
   * 1.2 % of the simulated hour, which acknowledges ~300,000 atoms).
   */
  forgiveRolledBack(
    node: string,
    imageTimeMs: number,
    rollbackTimeMs: number,
    holderOf: (ack: AckedAtom, lastHolder: string | null) => string | null = () => null,
  ): void {
    const acked = this.acked;
    // Copies counted on earlier: forgiven now when no running node holds one any more.
    const gone = new Set<AckedAtom>();
    for (const [a, last] of this.carriedAway) {
      const holder = holderOf(a, last);
      if (holder !== null) {
        if (holder !== last) this.carriedAway.set(a, holder);
        continue;
      }
      gone.add(a);
      this.carriedAway.delete(a);
    }
    if (gone.size > 0) {
      let kept = 0;
      for (const a of acked) if (!gone.has(a)) acked[kept++] = a;
      acked.length = kept;
    }
    let from = acked.length;
    while (from > 0 && acked[from - 1]!.trueMs >= imageTimeMs) from--;
    let kept = from;
    for (let i = from; i < acked.length; i++) {
      const a = acked[i]!;
      if (a.node === node && a.trueMs <= rollbackTimeMs) {
        const holder = holderOf(a, null);
        if (holder === null) continue;
        this.carriedAway.set(a, holder);
      }
      acked[kept++] = a;
    }
    acked.length = kept;
  }

  noteRestore(objectId: string, stamp: Stamp): void {
    this.restoreStamps.add(restoreKey(objectId, stamp));
  }

  isRestore(objectId: string, stamp: Stamp): boolean {
    return this.restoreStamps.has(restoreKey(objectId, stamp));
  }

  count(kind: string, outcome: string): void {
    const key = `${kind}:${outcome}`;
    this.outcomes.set(key, (this.outcomes.get(key) ?? 0) + 1);
  }
}

function restoreKey(objectId: string, stamp: Stamp): string {
  return `${objectId} ${stamp.version}/${stamp.atMs}/${stamp.origin}`;
}
