import { assert } from "../assert";
import type { Directory } from "../directory";
import type { Guid } from "../guid";
import type { ObjectRecord } from "../store/record";
import { placementRepair } from "../view/placement-repair";

/**
 * The stored subtree under `id` (inclusive), parents before children, siblings by id.
 * `descend` decides whether to walk below a record (delete skips subtrees already deleted).
 * `skip` leaves a record out, and everything only reachable through it.
 */
export function subtree(
  dir: Directory,
  id: Guid,
  descend: (record: ObjectRecord) => boolean = () => true,
  skip: (record: ObjectRecord) => boolean = () => false,
): ObjectRecord[] {
  const out: ObjectRecord[] = [];
  const queue: Guid[] = [id];
  const seen = new Set<Guid>();
  while (queue.length > 0) {
    const next = queue.shift();
    assert(next !== undefined, "queue non-empty");
    if (seen.has(next)) continue;
    seen.add(next);
    const record = dir.get(next);
    if (record === undefined) continue;
    if (next !== id && skip(record)) continue;
    out.push(record);
    if (next !== id && !descend(record)) continue;
    for (const child of dir.store.childIds(next).sort()) queue.push(child);
  }
  return out;
}

/**
 * The subtree the view shows under `id`, for delete and shred: the stored subtree without what
 * the view shows above `id` (and so what lies below it only through that). Walking down from
 * any member of a stored cycle leads back round to the others:
 * - of a cycle of alive records, the member the view broke off shows under /LostAndFound with
 *   the rest of the cycle beneath it, an ancestor of `id` in the view, not a descendant;
 * - once a member is a tombstone, the alive member whose stored parent it is shows as an
 *   orphan under /LostAndFound, and the tombstone beneath that orphan (a tombstone's path runs
 *   through its stored parent): a shred escalating the member's delete erased the alive orphan
 *   above it and everything under that, which no delete or shred had named (adversarial-scenario
 *   audit, twenty-fourth session; regressions/cycle-shred-spares-shown-parent-scripted).
 * A member above `id` that the same delete took (one delete of a cycle takes it whole) stays in:
 * a shred escalates that delete, all of it.
 * An orphan has a missing or dead stored parent, so no walk from an alive object reaches one,
 * and a walk from a tombstone takes the orphans shown under /LostAndFound that were created
 * beneath it: they are its stored subtree, which a shred erases.
 */
export function shownSubtree(
  dir: Directory,
  id: Guid,
  descend: (record: ObjectRecord) => boolean = () => true,
): ObjectRecord[] {
  const acyclic = new Set<Guid>();
  const top = dir.get(id);
  const takenWith = top === undefined || top.existence.stage === "alive" ? null : (top.existence.deleteRoot ?? id);
  const above = shownAbove(dir, id, acyclic);
  const sameDelete = (r: ObjectRecord): boolean =>
    takenWith !== null && r.existence.stage !== "alive" && r.existence.deleteRoot === takenWith;
  return subtree(
    dir,
    id,
    descend,
    (r) => (above.has(r.id) && !sameDelete(r)) || placementRepair(dir, r, acyclic).cycleBroken,
  );
}

/**
 * What the view shows above `id`: its effective parent, that one's, and so on (a tombstone's
 * is its stored parent), up to the root, a missing record or the first repeat.
 */
function shownAbove(dir: Directory, id: Guid, acyclic: Set<Guid>): Set<Guid> {
  const out = new Set<Guid>();
  let record = dir.get(id);
  while (record !== undefined) {
    const parent = placementRepair(dir, record, acyclic).effectiveParent;
    if (parent === null || parent === id || out.has(parent)) break;
    out.add(parent);
    record = dir.get(parent);
  }
  return out;
}
