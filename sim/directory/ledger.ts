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
  readonly atMs: number;
}

export class Ledger {
  readonly acked: AckedAtom[] = [];
  /** Counts per op kind and outcome code, for run summaries. */
  readonly outcomes = new Map<string, number>();

  ack(atom: AckedAtom): void {
    this.acked.push(atom);
  }

  count(kind: string, outcome: string): void {
    const key = `${kind}:${outcome}`;
    this.outcomes.set(key, (this.outcomes.get(key) ?? 0) + 1);
  }
}
