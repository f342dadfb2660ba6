import type { Directory } from "../directory";
import type { Guid } from "../guid";

/**
 * The tombstones past the purge horizon that the purge must keep because a tombstone below
 * them stays. A tombstone's `path`, `dn` and morgue `lastPath` are read through its stored
 * ancestors; with one purged the chain stopped short and the tombstone rendered as if it sat
 * under the root, possibly at the path of an unrelated alive object. A descendant outlives
 * its ancestor's purge when its existence stamp is newer: a deleted child shredded within its
 * window after its parent's delete, or a child created under the parent concurrently with the
 * delete and deleted later. Alive children keep nothing: the effective view already shows an
 * object whose stored parent is dead or missing under /LostAndFound. Kept tombstones go when
 * their last tombstone descendant does, at a later run.
 */
export function tombstoneAncestorsKept(dir: Directory, doomed: readonly Guid[]): Set<Guid> {
  const purging = new Set(doomed);
  const kept = new Set<Guid>();
  // Keeps `id` and every purging ancestor above it (each id leaves `purging` once, so even a
  // stored parent cycle ends).
  const keepUpFrom = (id: Guid): void => {
    let at: Guid | null = id;
    while (at !== null && purging.has(at)) {
      purging.delete(at);
      kept.add(at);
      at = dir.get(at)?.placement.parent ?? null;
    }
  };
  for (const id of doomed) {
    if (!purging.has(id)) continue;
    for (const child of dir.store.childIds(id)) {
      if (purging.has(child)) continue;
      const record = dir.get(child);
      if (record === undefined || record.existence.stage === "alive") continue;
      keepUpFrom(id);
      break;
    }
  }
  return kept;
}
