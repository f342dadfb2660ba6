import type { Directory } from "../directory";
import { ok, refuse } from "../errors";
import type { Result } from "../errors";
import type { Guid } from "../guid";
import { checkProtectedAndUsed, guardRemoval } from "./delete-object";
import { requireKnownClass, requireObject } from "./gates";
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
  if (effectiveStage(dir, found.value, atMs) === "shredded") {
    return refuse("already-deleted", `object ${id} is already shredded (or aged past its restore window)`);
  }
  const known = requireKnownClass(dir, found.value);
  if (!known.ok) return known;
  const guarded = guardRemoval(dir, id);
  if (!guarded.ok) return guarded;
  // Records already effectively shredded (hardened, or aged past the restore window) are left
  // alone once their delete is older than half the purge horizon: re-stamping them would
  // resurrect, on partners that purged them, a record they refuse (a partner's clock may run
  // ahead: scenarios/regressions/shred-restamps-purged-tombstone.scn). Younger ones are
  // stamped shredded: a restore made elsewhere inside their window (at most half the horizon)
  // may be on its way, and an unstamped member came back alive with its values under the
  // shredded parent (regressions/subtree-shred-covers-aged-member-scripted).
  const { purgeAfterMs } = dir.replicationConfig();
  const doomed = shownSubtree(dir, id).filter(
    (r) =>
      effectiveStage(dir, r, atMs) !== "shredded" ||
      (r.existence.stage === "deleted" && atMs - r.existence.stamp.atMs <= purgeAfterMs / 2),
  );
  const removable = checkProtectedAndUsed(dir, doomed);
  if (!removable.ok) return removable;
  for (const record of doomed) {
    const deleteRoot = record.existence.deleteRoot ?? id;
    writeStage(dir, record, { stage: "shredded", deleteRoot, atMs, attrs: () => new Map() });
  }
  dir.refreshSchema();
  return ok(doomed.length);
}
