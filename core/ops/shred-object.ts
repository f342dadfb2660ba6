import type { Directory } from "../directory";
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
  if (!shreddable(dir, found.value, atMs, purgeAfterMs)) {
    return refuse("already-deleted", `object ${id} is already shredded (or aged past its restore window)`);
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
  // Records already effectively shredded (hardened, or aged past the restore window) are left
  // alone (see shreddable) once their delete is older than half the purge horizon: re-stamping them would
  // resurrect, on partners that purged them, a record they refuse (a partner's clock may run
  // ahead: scenarios/regressions/shred-restamps-purged-tombstone.scn). Younger ones are
  // stamped shredded: a restore made elsewhere inside their window (at most half the horizon)
  // may be on its way, and an unstamped member came back alive with its values under the
  // shredded parent (regressions/subtree-shred-covers-aged-member-scripted).
  const doomed = shownSubtree(dir, id).filter((r) => shreddable(dir, r, atMs, purgeAfterMs));
  const removable = checkProtectedAndUsed(dir, doomed);
  if (!removable.ok) return removable;
  for (const record of doomed) {
    const deleteRoot = record.existence.deleteRoot ?? id;
    writeStage(dir, record, { stage: "shredded", deleteRoot, atMs, attrs: () => new Map() });
  }
  dir.refreshSchema();
  return ok(doomed.length);
}

/**
 * Alive, deleted within the window, or deleted and aged past it less than half the purge
 * horizon ago: a restore made on another node inside the window may be on its way, and the
 * shred's stamp must beat it (the object itself too: a shred of a just-aged object was refused
 * `already-deleted`, and the restore then brought its values back; review of the day's fixes).
 */
function shreddable(dir: Directory, record: ObjectRecord, atMs: number, purgeAfterMs: number): boolean {
  if (effectiveStage(dir, record, atMs) !== "shredded") return true;
  return record.existence.stage === "deleted" && atMs - record.existence.stamp.atMs <= purgeAfterMs / 2;
}
