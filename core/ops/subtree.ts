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
 * The subtree the view shows under `id`, for delete and shred: the stored subtree without the
 * member of a stored cycle the view broke off (and so what lies below it only through it).
 * Walking down from any member of a stored cycle leads back round to the others; the one
 * broken off shows under /LostAndFound with the rest of the cycle beneath it, an ancestor of
 * `id` in the view, not a descendant. (An orphan has a missing or dead stored parent, so no
 * walk from an alive object reaches one, and a walk from a tombstone takes the orphans shown
 * under /LostAndFound that were created beneath it: they are its stored subtree, which a shred
 * erases.)
 */
export function shownSubtree(
  dir: Directory,
  id: Guid,
  descend: (record: ObjectRecord) => boolean = () => true,
): ObjectRecord[] {
  const acyclic = new Set<Guid>();
  return subtree(dir, id, descend, (r) => placementRepair(dir, r, acyclic).cycleBroken);
}
