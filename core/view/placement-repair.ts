import type { Directory } from "../directory";
import type { Guid } from "../guid";
import type { ObjectRecord, Placement } from "../store/record";
import type { Stamp } from "../store/stamp";

export interface PlacementRepair {
  /** Where the object shows in the effective tree (null only for the root). */
  readonly effectiveParent: Guid | null;
  readonly orphaned: boolean;
  readonly cycleBroken: boolean;
}

const depthMax = 100_000;

/**
 * Derived placement, computed from stored atoms alone so that two nodes holding the same atoms
 * agree. An alive object whose stored parent is missing or not alive is an orphan and shows
 * under /LostAndFound. Concurrent moves can close a cycle of alive objects; the cycle member
 * whose placement claim is latest (stamp order, then id) is broken off to /LostAndFound.
 * Tombstones keep their stored parent: they are in the morgue, not the tree.
 * `acyclic` memoizes, for one state of the directory, the alive records whose walk up through
 * alive stored parents ends without a cycle (siblings share their parents' walk).
 */
export function placementRepair(
  dir: Directory,
  record: ObjectRecord,
  acyclic: Set<Guid> = new Set(),
): PlacementRepair {
  const stored = record.placement.parent;
  const landmarks = dir.landmarks();
  const lostAndFound = landmarks?.lostAndFound ?? landmarks?.root ?? null;
  const none = { effectiveParent: stored, orphaned: false, cycleBroken: false };
  if (stored === null || record.existence.stage !== "alive" || lostAndFound === null) return none;
  if (record.id === landmarks?.root) return { ...none, effectiveParent: null };
  const parent = dir.get(stored);
  if (parent === undefined || parent.existence.stage !== "alive") {
    return { effectiveParent: lostAndFound, orphaned: true, cycleBroken: false };
  }
  if (acyclic.has(stored)) return none;
  const breaker = cycleBreaker(dir, record, acyclic);
  if (breaker === record.id) {
    return { effectiveParent: lostAndFound, orphaned: false, cycleBroken: true };
  }
  return none;
}

/**
 * If walking up from `record` through alive stored parents returns to `record`, the member of
 * that cycle with the latest placement claim; otherwise null. A walk that ends (at the root, a
 * missing or a dead parent, or a member of `acyclic`) adds every record it visited to `acyclic`.
 */
function cycleBreaker(dir: Directory, record: ObjectRecord, acyclic: Set<Guid>): Guid | null {
  const members: ObjectRecord[] = [record];
  let cursor = record.placement.parent;
  for (let depth = 0; cursor !== null && depth < depthMax; depth++) {
    if (cursor === record.id) return latestClaim(members);
    if (acyclic.has(cursor)) return ended(members, acyclic);
    const next = dir.get(cursor);
    if (next === undefined || next.existence.stage !== "alive") return ended(members, acyclic);
    // A cycle above `record` that does not contain it: nothing to memoize.
    if (members.length > 1 && members.some((m) => m.id === cursor)) return null;
    members.push(next);
    cursor = next.placement.parent;
  }
  return cursor === null ? ended(members, acyclic) : null;
}

function ended(members: readonly ObjectRecord[], acyclic: Set<Guid>): null {
  for (const m of members) acyclic.add(m.id);
  return null;
}

/**
 * Where `record` shows once the records in `aliveToo` are alive as well (what a restore lifts):
 * placementRepair's effective parent, judged with those tombstones taken for alive. `acyclic`
 * memoizes, for one `aliveToo` and one state of the directory, the records whose walk up ends
 * without a cycle (a restore asks for every record it lifts, top-down: the first walk of a
 * chain reaches the root, the others stop at their parent).
 */
export function effectiveParentWith(
  dir: Directory,
  record: ObjectRecord,
  aliveToo: ReadonlySet<Guid>,
  acyclic: Set<Guid> = new Set(),
): Guid | null {
  const isAlive = (r: ObjectRecord): boolean => r.existence.stage === "alive" || aliveToo.has(r.id);
  const stored = record.placement.parent;
  const landmarks = dir.landmarks();
  const lostAndFound = landmarks?.lostAndFound ?? landmarks?.root ?? null;
  if (stored === null || lostAndFound === null) return stored;
  if (record.id === landmarks?.root) return null;
  const first = dir.get(stored);
  if (first === undefined || !isAlive(first)) return lostAndFound;
  // Only a walk from a record taken for alive tells about the records it passes (a tombstone
  // it started from is dead where another walk passes it).
  if (!isAlive(record)) acyclic = new Set();
  const members: ObjectRecord[] = [record];
  const seen = new Set<Guid>([record.id]);
  let cursor: Guid | null = stored;
  for (let depth = 0; cursor !== null && depth < depthMax; depth++) {
    if (cursor === record.id) return latestClaim(members) === record.id ? lostAndFound : stored;
    // A cycle above `record` that does not contain it: nothing to memoize.
    if (seen.has(cursor)) return stored;
    const next: ObjectRecord | undefined = acyclic.has(cursor) ? undefined : dir.get(cursor);
    if (next === undefined || !isAlive(next)) {
      ended(members, acyclic);
      return stored;
    }
    seen.add(cursor);
    members.push(next);
    cursor = next.placement.parent;
  }
  if (cursor === null) ended(members, acyclic);
  return stored;
}

/**
 * The other members of the cycle of alive stored parents through alive `record`, or null when
 * walking up from it ends (or enters a cycle above it).
 */
export function aliveStoredCycle(dir: Directory, record: ObjectRecord): Guid[] | null {
  if (record.existence.stage !== "alive") return null;
  // Asked per merged placement: a short walk scans its members, a long one keeps a set.
  return storedChainBackTo(dir, record.placement.parent, record.id);
}

/**
 * The records from `from` up the stored parents until `target` (excluded), when that chain
 * leads back to `target` (`target` was, or is, in a stored cycle with them), else null. Asked
 * after a merge moved `target` away from `from`, with `before` the placements of the records
 * the merge changed as they stood before it: the chain then tells the cycle it left, though
 * other members moved or died in the same batch (attack on the session's fixes).
 */
export function storedChainBackTo(
  dir: Directory,
  from: Guid | null,
  target: Guid,
  before?: ReadonlyMap<Guid, Placement>,
): Guid[] | null {
  const members: Guid[] = [];
  let seen: Set<Guid> | null = null;
  let cursor = from;
  for (let depth = 0; cursor !== null && depth < depthMax; depth++) {
    if (cursor === target) return members;
    // A record a merge changed is walked as it stood before it (alive, where it was placed).
    const was = before?.get(cursor);
    let parent: Guid | null;
    if (was !== undefined) parent = was.parent;
    else {
      const next = dir.get(cursor);
      if (next === undefined || next.existence.stage !== "alive") return null;
      parent = next.placement.parent;
    }
    if (seen === null && members.length >= 32) seen = new Set(members);
    if (seen === null ? members.includes(cursor) : seen.has(cursor)) return null;
    seen?.add(cursor);
    members.push(cursor);
    cursor = parent;
  }
  return null;
}

/**
 * The breaker of the stored cycle through `record` (whose other members are `others`) once
 * `record` claims its placement anew with `stamp` (a rename in place): the latest claim,
 * shown in /LostAndFound with the others under it. The rename may make `record` the breaker,
 * or, its new claim dated before another member's (a clock behind), hand the role on.
 */
export function cycleBreakerWith(dir: Directory, record: ObjectRecord, stamp: Stamp, others: readonly Guid[]): ObjectRecord {
  const members: ObjectRecord[] = [{ ...record, placement: { ...record.placement, stamp } }];
  for (const id of others) {
    const member = dir.get(id);
    if (member !== undefined) members.push(member);
  }
  const breaker = latestClaim(members);
  return members.find((m) => m.id === breaker)!;
}

function latestClaim(members: readonly ObjectRecord[]): Guid {
  let best = members[0]!;
  for (const m of members) {
    const a = m.placement.stamp;
    const b = best.placement.stamp;
    const later =
      a.atMs !== b.atMs ? a.atMs > b.atMs : a.origin !== b.origin ? a.origin > b.origin : m.id > best.id;
    if (later) best = m;
  }
  return best.id;
}
