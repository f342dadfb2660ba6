import { assert } from "../assert";
import type { Directory } from "../directory";
import type { Guid } from "../guid";
import type { ObjectRecord } from "../store/record";

/**
 * The stored subtree under `id` (inclusive), parents before children, siblings by id.
 * `descend` decides whether to walk below a record (delete skips subtrees already deleted).
 */
export function subtree(
  dir: Directory,
  id: Guid,
  descend: (record: ObjectRecord) => boolean = () => true,
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
    out.push(record);
    if (next !== id && !descend(record)) continue;
    for (const child of dir.store.childIds(next).sort()) queue.push(child);
  }
  return out;
}
