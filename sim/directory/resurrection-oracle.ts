import type { Guid } from "../../core/guid";
import { compareExistence } from "../../core/merge/merge-order";
import type { DirectoryNode } from "../../core/node/directory-node";
import type { Existence } from "../../core/store/record";
import type { Ledger } from "./ledger";

interface NodeMemory {
  /** The node's USN up to which its records were examined. */
  seenUsn: number;
  /** The highest existence (merge order) each object ever had on this node. */
  readonly best: Map<Guid, Existence>;
  /** Objects this node's GC purged. */
  readonly purged: Set<Guid>;
  /** The existence each purged object had here when it was purged (where this memory saw it). */
  readonly purgedAs: Map<Guid, Existence>;
  /** Set by a rollback until the next look: the records then seen are the image's own. */
  imageUnread: boolean;
}

/**
 * Oracle 3, no resurrection, checked after every event and cheap enough for it: per node it
 * examines only the records whose usnChanged moved since the last look. On each node:
 * - the existence atom never goes back in the merge order (shredded absorbing, then stamps);
 * - a shredded object never comes back alive or deleted;
 * - deleted -> alive happens only through a restore that ran (its stamp is in the ledger:
 *   acknowledged, or in doubt after a power cut inside its persist);
 * - an object the node's GC purged never comes back alive (no lingering objects);
 * - an alive record is no hardened skeleton (a restore clears the flag).
 * A node whose disk was rolled back starts a fresh memory of existences (its older state is
 * what the rollback oracle judges, not this one) but keeps the purges it remembers.
 */
export class ResurrectionOracle {
  private readonly memory = new Map<string, NodeMemory>();

  constructor(private readonly ledger: Ledger) {}

  private of(simId: string): NodeMemory {
    let m = this.memory.get(simId);
    if (m === undefined) {
      m = { seenUsn: 0, best: new Map(), purged: new Set(), purgedAs: new Map(), imageUnread: false };
      this.memory.set(simId, m);
    }
    return m;
  }

  /**
   * A restored disk starts a fresh memory of existences, but not of purges: what the node
   * purged before the image is still gone from it, and what it purged after comes back only
   * as the record the image held (swarm seed 1041 with a purge horizon: forgetting them,
   * the durability oracle took those absences for lost objects). An image older than the
   * object's delete holds it alive: that is the image, not a resurrection, so the next look
   * forgets those purges (regressions/image-before-delete-then-purge-scripted.scn); whether
   * the node then learns the delete again is the convergence oracle's to judge.
   */
  rolledBack(simId: string): void {
    const before = this.memory.get(simId);
    const purged = before?.purged ?? new Set<Guid>();
    const purgedAs = before?.purgedAs ?? new Map<Guid, Existence>();
    this.memory.set(simId, { seenUsn: 0, best: new Map(), purged, purgedAs, imageUnread: true });
  }

  /**
   * Whether `simId` never held the object (in its memory since its last rollback) while
   * another node's GC purged it: a node that joins or comes back after every holder purged a
   * tombstone can never receive it, as SPEC intends (the durability oracle blamed it for
   * lacking an acknowledged object; fourth scenario audit).
   */
  purgedElsewhereUnseen(simId: string, id: Guid): boolean {
    const m = this.memory.get(simId);
    if (m !== undefined && (m.best.has(id) || m.purged.has(id))) return false;
    for (const [other, memory] of this.memory) if (other !== simId && memory.purged.has(id)) return true;
    return false;
  }

  notePurged(simId: string, ids: readonly Guid[]): void {
    const m = this.of(simId);
    for (const id of ids) {
      m.purged.add(id);
      const last = m.best.get(id);
      if (last !== undefined) m.purgedAs.set(id, last);
      m.best.delete(id);
    }
  }

  /** The objects this node's GC purged (since its last rollback, those before the image too). */
  purgedBy(simId: string): ReadonlySet<Guid> {
    return this.memory.get(simId)?.purged ?? new Set();
  }

  wasPurged(simId: string, id: Guid): boolean {
    return this.memory.get(simId)?.purged.has(id) ?? false;
  }

  /** Examines what changed on `node` since the last call; appends violations to `out`. */
  check(simId: string, node: DirectoryNode, out: string[]): void {
    const m = this.of(simId);
    const usn = node.dir.usn;
    if (usn === m.seenUsn) return;
    // A node never reuses USNs; a lower counter means a restored disk: look at everything.
    const from = usn < m.seenUsn ? 0 : m.seenUsn;
    const image = m.imageUnread;
    m.imageUnread = false;
    for (const { id } of node.dir.store.changedAfter(from, Number.MAX_SAFE_INTEGER)) {
      const record = node.dir.get(id);
      if (record === undefined) continue;
      if (image && record.existence.stage === "alive") m.purged.delete(id);
      this.examine(simId, m, id, record.existence, out);
      // A hardened skeleton a restore brings back is an alive record again (merge-record.ts
      // clears the flag): kept, it kept GC off the record's residue on this node alone.
      if (record.hardened && record.existence.stage === "alive") {
        out.push(`${simId}: ${id} came back alive still flagged as a hardened skeleton`);
      }
    }
    m.seenUsn = usn;
  }

  /**
   * A purged object back alive through a restore made after the delete this node purged (a
   * later life in the ledger) is that restore arriving late, not a lingering copy: made inside
   * its window on a node this one stayed apart from longer than half of maxTimeApart, it
   * reached this node after its GC purged the tombstone (regressions/late-restore-after-purge-
   * scripted). A lingering object is a copy of the state the purge ended, never newer.
   */
  private restoredSincePurge(m: NodeMemory, id: Guid, now: Existence): boolean {
    const gone = m.purgedAs.get(id);
    return gone !== undefined && compareExistence(now, gone) > 0 && this.ledger.isRestore(id, now.stamp);
  }

  private examine(simId: string, m: NodeMemory, id: Guid, now: Existence, out: string[]): void {
    const before = m.best.get(id);
    if (m.purged.has(id) && now.stage === "alive") {
      if (this.restoredSincePurge(m, id, now)) {
        m.purged.delete(id);
        m.purgedAs.delete(id);
      } else {
        out.push(`${simId}: ${id} came back alive after this node purged it (lingering object)`);
      }
    }
    if (before !== undefined) {
      if (compareExistence(now, before) < 0) {
        out.push(
          `${simId}: existence of ${id} went back from ${before.stage} v${before.stamp.version} to ${now.stage} v${now.stamp.version}`,
        );
      }
      if (before.stage === "shredded" && now.stage !== "shredded") {
        out.push(`${simId}: shredded ${id} came back ${now.stage}`);
      }
      if (
        before.stage === "deleted" &&
        now.stage === "alive" &&
        !this.ledger.isRestore(id, now.stamp)
      ) {
        out.push(`${simId}: deleted ${id} came back alive without a restore`);
      }
    }
    if (before === undefined || compareExistence(now, before) >= 0) m.best.set(id, now);
  }
}
