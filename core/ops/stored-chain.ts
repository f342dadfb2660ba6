import type { Directory } from "../directory";
import type { Guid } from "../guid";

/**
 * Whether `target` is `from` or on the chain of stored parents above it. Concurrent moves can
 * leave a stored cycle (the view repairs it, the atoms keep it), so the walk stops at its
 * first repeat: short chains cost no set; past 64 steps the ids seen are remembered. A walk
 * with no repeat check went round such a cycle to its depth bound, ~10,000 reads per call.
 */
export function onStoredChain(dir: Directory, from: Guid, target: Guid): boolean {
  let cursor: Guid | null = from;
  let seen: Set<Guid> | null = null;
  for (let depth = 0; cursor !== null && depth < 100_000; depth++) {
    if (cursor === target) return true;
    if (depth >= 64) {
      seen ??= new Set();
      if (seen.has(cursor)) return false;
      seen.add(cursor);
    }
    cursor = dir.get(cursor)?.placement.parent ?? null;
  }
  return false;
}
