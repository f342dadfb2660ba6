import type { Directory } from "../directory";
import { longestWindowMs } from "../directory";
import { ok, refuse } from "../errors";
import type { Result } from "../errors";
import type { Guid } from "../guid";
import type { ObjectRecord } from "../store/record";
import { checkProtectedAndUsed, guardRemoval } from "./delete-object";
import { classDeletedHere, requireKnownClass, requireObject } from "./gates";
import { shownSubtree } from "./subtree";
import { writeStage } from "./write-stage";
import { effectiveStage } from "../view/aging";

/**
 * Security-erases an object and its whole subtree (alive or soft-deleted; as the view shows
 * it, subtree.ts `shownSubtree`): the existence atom
 * turns `shredded` (absorbing) and every value atom is dropped, absence residue included, so
 * nothing of a value survives in the record. Returns how many records were erased, so the
 * shell can raise erasure debt for the files that still hold older copies.
 */
export function shredObject(dir: Directory, id: Guid, atMs: number): Result<number> {
  if (dir.rollbackLatched) {
    return refuse("rollback-quarantine", "originating writes wait for a completed pull");
  }
  const found = requireObject(dir, id);
  if (!found.ok) return found;
  const { purgeAfterMs } = dir.replicationConfig();
  if (!shreddable(found.value, atMs, purgeAfterMs)) {
    return refuse("already-deleted", `object ${id} is already shredded (or past the purge horizon)`);
  }
  // A shred validates nothing against the class: an object whose class this node holds
  // deleted is erased (it answered ghost-object, whose sync never comes, and its values stayed
  // until aging; HTTP audit, twenty-fifth session). A class not yet seen still waits.
  if (!classDeletedHere(dir, found.value)) {
    const known = requireKnownClass(dir, found.value);
    if (!known.ok) return known;
  }
  const guarded = guardRemoval(dir, id);
  if (!guarded.ok) return guarded;
  // Records already effectively shredded (hardened, or aged past the restore window) are
  // stamped shredded too: a restore made elsewhere inside their window may be on its way, and
  // an unstamped member came back alive with its values under the shredded parent
  // (regressions/subtree-shred-covers-aged-member-scripted,
  // subtree-shred-covers-window-edge-restore-scripted). Shredded absorbs whatever the stamp,
  // so theirs is dated at the end of the longest window any node may still run: such a
  // restore arrives, if ever, within a horizon of it (a pair apart longer is refused), and the
  // skeleton must outlive that (dated by the delete, GC purged it first:
  // shred-skeleton-outlives-late-restore-scripted), while dated now it outlived by a whole
  // horizon the partners whose clocks run ahead and that had purged them
  // (shred-restamps-purged-tombstone). Not this node's own window: a partner that has not yet
  // seen a shortened `timeUntilShred` restores inside the longer one, and its restore reached
  // a partner that had purged the early-dated skeleton, which rebuilt the object alive with
  // its erased values (regressions/shortened-window-shred-scripted; tombstone audit,
  // twenty-eighth session). Records past the horizon are GC's.
  const doomed = shownSubtree(dir, id).filter((r) => shreddable(r, atMs, purgeAfterMs));
  const removable = checkProtectedAndUsed(dir, doomed);
  if (!removable.ok) return removable;
  for (const record of doomed) {
    const deleteRoot = record.existence.deleteRoot ?? id;
    const aged = effectiveStage(dir, record, atMs) === "shredded";
    const at = aged ? Math.min(atMs, record.existence.stamp.atMs + longestWindowMs(purgeAfterMs)) : atMs;
    writeStage(dir, record, { stage: "shredded", deleteRoot, atMs: at, attrs: () => new Map() });
  }
  dir.refreshSchema();
  return ok(doomed.length);
}

/**
 * Alive, or deleted no longer ago than the purge horizon, aged or not: a restore made on
 * another node inside the window may be on its way, and the shred must absorb it (the object
 * itself too: a shred of an aged object was refused `already-deleted`, and the restore then
 * brought its values back; review of the day's fixes, tombstone audit).
 */
function shreddable(record: ObjectRecord, atMs: number, purgeAfterMs: number): boolean {
  if (record.existence.stage === "alive") return true;
  return record.existence.stage === "deleted" && atMs - record.existence.stamp.atMs <= purgeAfterMs;
}
