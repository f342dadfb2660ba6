import type { Directory } from "../directory";
import { compareCaseless, joinPath } from "../naming";
import type { ObjectRecord } from "../store/record";
import { msToTimestamp } from "../syntax";
import { effectiveStage } from "./aging";
import type { MorgueRecord } from "./payload-types";

/** Every tombstone as a morgue record, most recently deleted first, then by id. */
export function morgue(dir: Directory, nowMs: number): MorgueRecord[] {
  const out: Array<MorgueRecord & { atMs: number }> = [];
  for (const record of dir.store.all()) {
    if (record.existence.stage === "alive") continue;
    out.push({
      id: record.id,
      name: record.placement.name,
      class: dir.schema.classById(record.existence.classId)?.name ?? record.existence.className,
      stage: record.existence.stage,
      effectiveStage: effectiveStage(dir, record, nowMs),
      at: msToTimestamp(record.existence.stamp.atMs),
      lastPath: lastPath(dir, record),
      atMs: record.existence.stamp.atMs,
    });
  }
  out.sort((a, b) => b.atMs - a.atMs || compareCaseless(a.name, b.name) || (a.id < b.id ? -1 : 1));
  return out.map(({ atMs: _, ...rest }) => rest);
}

export function morgueSize(dir: Directory): number {
  let n = 0;
  for (const record of dir.store.all()) if (record.existence.stage !== "alive") n += 1;
  return n;
}

/**
 * The stored path at deletion: stored names up the stored parents. A stored cycle (left by
 * concurrent moves) ends the walk at its first repeat instead of spelling the loop out. An
 * ancestor GC purged ends it under /LostAndFound, as the view shows it (read as the root, it
 * named an unrelated alive object's path; tombstone audit, twenty-sixth session).
 */
function lastPath(dir: Directory, record: ObjectRecord): string {
  const names: string[] = [];
  const landmarks = dir.landmarks();
  const rootId = landmarks?.root ?? null;
  const seen = new Set<string>();
  let cursor: ObjectRecord | undefined = record;
  for (let depth = 0; cursor !== undefined && depth < 100_000; depth++) {
    if (cursor.id === rootId || cursor.placement.parent === null || seen.has(cursor.id)) break;
    seen.add(cursor.id);
    names.push(cursor.placement.name);
    const parent: string = cursor.placement.parent;
    cursor = dir.get(parent);
    const home = cursor === undefined && landmarks?.lostAndFound ? dir.get(landmarks.lostAndFound) : undefined;
    if (home !== undefined && home.id !== parent) names.push(home.placement.name);
  }
  return joinPath(names.reverse());
}
