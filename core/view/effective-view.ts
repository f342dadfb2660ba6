import type { Directory } from "../directory";
import { ok, refuse } from "../errors";
import type { Result } from "../errors";
import type { Guid } from "../guid";
import { parseGuid } from "../guid";
import { composeDn, fold, joinPath } from "../naming";
import type { ObjectRecord } from "../store/record";
import { placementRepair } from "./placement-repair";
import type { PlacementRepair } from "./placement-repair";
import type { ViewCache } from "./view-cache";
import { viewCacheOf } from "./view-cache";

export interface EffectiveFacts extends PlacementRepair {
  readonly effectiveName: string;
  /** fold(effectiveName): the caseless key of the name, for ordering and lookups. */
  readonly foldedName: string;
  readonly conflicted: boolean;
}

interface CnfName {
  readonly effectiveName: string;
  readonly foldedName: string;
  readonly conflicted: boolean;
}

const cnfMarker = " CNF:";
const foldedCnfMarker = fold(cnfMarker);
const depthMax = 100_000;
const noIds: ReadonlySet<Guid> = new Set();

/**
 * The derived effective view of one node: placement repairs, CNF display names, paths and
 * DNs. Every choice is a function of stored atoms (and, for stages, this node's clock), so
 * nodes holding the same atoms render the same view. The facts live in the node's ViewCache,
 * which outlives one view and is dropped whenever the directory changes (view-cache.ts).
 */
export class EffectiveView {
  private readonly viewCache: ViewCache;

  constructor(readonly dir: Directory) {
    this.viewCache = viewCacheOf(dir);
  }

  /** The node's derived-state cache, emptied first if the directory changed since its use. */
  cache(): ViewCache {
    return this.viewCache.validate(this.dir);
  }

  of(record: ObjectRecord): EffectiveFacts {
    const cache = this.cache();
    const cached = cache.factsOf(record);
    if (cached !== undefined) return cached;
    const repair = placementRepair(this.dir, record, cache.acyclic);
    const naming = this.cnfName(record, repair.effectiveParent);
    const facts: EffectiveFacts = {
      effectiveParent: repair.effectiveParent,
      orphaned: repair.orphaned,
      cycleBroken: repair.cycleBroken,
      effectiveName: naming.effectiveName,
      foldedName: naming.foldedName,
      conflicted: naming.conflicted,
    };
    cache.rememberFacts(record, facts);
    return facts;
  }

  /** Alive children in the effective tree (stored children plus repaired arrivals). */
  aliveChildren(parent: Guid): ObjectRecord[] {
    const out: ObjectRecord[] = [];
    const consider = (id: Guid): void => {
      const record = this.dir.get(id);
      if (record === undefined || record.existence.stage !== "alive") return;
      if (this.of(record).effectiveParent === parent) out.push(record);
    };
    for (const id of this.dir.store.childIds(parent)) consider(id);
    if (parent === this.dir.landmarks()?.lostAndFound) {
      for (const id of this.dir.repairSuspects()) {
        const record = this.dir.get(id);
        if (record === undefined || record.placement.parent === parent) continue;
        if (this.of(record).effectiveParent === record.placement.parent) {
          this.dir.dropRepairSuspect(id);
        } else {
          consider(id);
        }
      }
    }
    return out;
  }

  hasAliveChildren(parent: Guid): boolean {
    // Fast path: most objects have no stored children and are not /LostAndFound.
    if (!this.dir.store.hasChildren(parent) && parent !== this.dir.landmarks()?.lostAndFound) {
      return false;
    }
    const cache = this.cache();
    const cached = cache.hasAliveChildren(parent);
    if (cached !== undefined) return cached;
    const has = this.aliveChildren(parent).length > 0;
    cache.rememberHasAliveChildren(parent, has);
    return has;
  }

  /**
   * Effective ancestors root-first, ending with `record` itself (the root excluded). A
   * tombstone's chain runs through its stored ancestors; one that meets an ancestor GC purged
   * is shown under /LostAndFound, where orphans show: read as if it reached the root, it took
   * an unrelated alive object's path (tombstone audit, twenty-sixth session).
   */
  chain(record: ObjectRecord): ObjectRecord[] {
    const out: ObjectRecord[] = [];
    let cursor: ObjectRecord | undefined = record;
    for (let depth = 0; cursor !== undefined && depth < depthMax; depth++) {
      const parent = this.of(cursor).effectiveParent;
      if (parent === null) break;
      out.push(cursor);
      cursor = this.dir.get(parent);
      if (cursor === undefined) {
        const lostAndFound = this.dir.landmarks()?.lostAndFound;
        const home = lostAndFound === undefined || lostAndFound === null ? undefined : this.dir.get(lostAndFound);
        if (home !== undefined && home.id !== parent && !out.includes(home)) out.push(home);
      }
    }
    return out.reverse();
  }

  path(record: ObjectRecord): string {
    return joinPath(this.chain(record).map((r) => this.of(r).effectiveName));
  }

  dn(record: ObjectRecord): string {
    const components = this.chain(record)
      .reverse()
      .map((r) => ({
        prefix: this.dir.schema.classById(r.existence.classId)?.dnPrefix ?? "CN",
        name: this.of(r).effectiveName,
      }));
    return composeDn(components);
  }

  /** Resolves a native path's segments caselessly, CNF display names included. */
  resolve(segments: readonly string[]): Result<ObjectRecord> {
    const landmarks = this.dir.landmarks();
    if (landmarks === null) return refuse("no-root", "this node has not received its first sync");
    let current = this.dir.get(landmarks.root);
    for (const segment of segments) {
      if (current === undefined) break;
      current = this.child(current.id, segment);
      if (current === undefined) {
        return refuse("no-such-object", `no object at path segment ${JSON.stringify(segment)}`);
      }
    }
    if (current === undefined) return refuse("no-such-object", "no such path");
    return ok(current);
  }

  /**
   * Whether an alive object other than `except` shows under `parent` by `name` (caseless): a
   * stored child of that name, under /LostAndFound also an orphan or a broken cycle's member
   * stored elsewhere, and an object whose CNF display name it is. SPEC's name-in-use is about
   * the siblings a client sees: checking stored children alone let a create or move into
   * /LostAndFound, or a rename of an orphan shown there, take the name of an orphan beside it,
   * and a rename to `NAME CNF:<guid>` take another object's path (adversarial-scenario audit,
   * twenty-fourth session; regressions/shown-sibling-name-in-use-scripted). Holders in
   * `leaving` are about to show elsewhere (the members of a cycle a rename makes its breaker).
   */
  nameTaken(parent: Guid, name: string, except: Guid | null, leaving: ReadonlySet<Guid> = noIds): boolean {
    const folded = fold(name);
    if (this.holdersOf(parent, folded, except).some((r) => !leaving.has(r.id))) return true;
    // Only a name holding the marker, in any case (names are caseless), can be another
    // object's CNF display name.
    if (!folded.includes(foldedCnfMarker)) return false;
    const shown = this.child(parent, name);
    return shown !== undefined && shown.id !== except && !leaving.has(shown.id);
  }

  /**
   * The alive objects other than `except` that hold the folded stored name `folded` under
   * `parent`: its stored children of that name, and under /LostAndFound the orphans and broken
   * cycles' members shown there by it. A stored child a repair shows elsewhere still counts:
   * its name comes back under `parent` once the repair dissolves (a conservative refusal).
   */
  holdersOf(parent: Guid, folded: string, except: Guid | null): ObjectRecord[] {
    const holders: ObjectRecord[] = [];
    for (const id of this.dir.store.aliveNamed(parent, folded)) {
      const r = id === except ? undefined : this.dir.get(id);
      if (r !== undefined) holders.push(r);
    }
    if (parent !== this.dir.landmarks()?.lostAndFound) return holders;
    for (const id of this.dir.suspectsNamed(folded)) {
      const r = id === except ? undefined : this.dir.get(id);
      if (r === undefined || r.existence.stage !== "alive" || holders.includes(r)) continue;
      if (this.repairOf(r).effectiveParent === parent) holders.push(r);
    }
    return holders;
  }

  private child(parent: Guid, segment: string): ObjectRecord | undefined {
    const wanted = fold(segment);
    const marker = segment.lastIndexOf(cnfMarker);
    if (marker >= 0) {
      const id = parseGuid(segment.slice(marker + cnfMarker.length).replace(/ \(\d+\)$/, ""));
      const record = id === null ? undefined : this.dir.get(id);
      // Only an alive object is a path's child: a tombstone keeps its stored name and parent.
      if (record !== undefined && record.existence.stage === "alive" && this.of(record).foldedName === wanted) {
        if (this.of(record).effectiveParent === parent) return record;
      }
    }
    for (const id of this.dir.store.aliveNamed(parent, wanted)) {
      const record = this.dir.get(id);
      if (record !== undefined && this.of(record).effectiveParent === parent) {
        if (this.of(record).foldedName === wanted) return record;
      }
    }
    return this.aliveChildren(parent).find((r) => this.of(r).foldedName === wanted);
  }

  /**
   * CNF display names: among alive siblings (same effective parent) whose stored names fold
   * equal, the earliest placement claim keeps the name; each later one shows as
   * `<stored name> CNF:<guid>`, with ` (2)`, ` (3)` appended while that still collides.
   */
  private cnfName(record: ObjectRecord, parent: Guid | null): CnfName {
    const name = record.placement.name;
    const folded = fold(name);
    const plain = { effectiveName: name, foldedName: folded, conflicted: false };
    if (parent === null || record.existence.stage !== "alive") return plain;
    // Fast path: alone under its stored name, in the place it is stored.
    if (parent === record.placement.parent && parent !== this.dir.landmarks()?.lostAndFound) {
      if (this.dir.store.aliveNamedCount(parent, folded) <= 1) return plain;
    }
    // The earliest placement claim among the record and its same-named siblings keeps the name.
    if (this.repairOf(record).effectiveParent === parent) {
      const earliest = this.earliestNamed(parent, folded);
      if (earliest !== null && earliest.id !== record.id && earlierClaim(earliest, record)) {
        return this.cnfMangled(record, parent);
      }
    }
    return plain;
  }

  /** `<stored name> CNF:<guid>`, then ` (2)`, ` (3)` while that still names an alive sibling. */
  private cnfMangled(record: ObjectRecord, parent: Guid): CnfName {
    const name = record.placement.name;
    const base = `${name}${cnfMarker}${record.id}`;
    let candidate = base;
    for (let n = 2; n < 1000 && this.storedNameShown(parent, fold(candidate)); n++) {
      candidate = `${base} (${n})`;
    }
    return { effectiveName: candidate, foldedName: fold(candidate), conflicted: true };
  }

  /**
   * Whether an alive object shows under `parent` with a stored name that folds to `folded`:
   * a stored child, or under /LostAndFound also a repaired arrival (an orphan or a broken
   * cycle's member, stored elsewhere), as `earliestNamed` counts them.
   */
  private storedNameShown(parent: Guid, folded: string): boolean {
    if (this.dir.store.aliveNamedCount(parent, folded) > 0) return true;
    if (parent !== this.dir.landmarks()?.lostAndFound) return false;
    return this.storedNameShownBesides(parent, folded, null);
  }

  /** A repaired arrival under `parent` (/LostAndFound) with that stored name, not `except`. */
  private storedNameShownBesides(parent: Guid, folded: string, except: Guid | null): boolean {
    for (const id of this.dir.suspectsNamed(folded)) {
      if (id === except) continue;
      const r = this.dir.get(id);
      if (r !== undefined && r.existence.stage === "alive" && this.repairOf(r).effectiveParent === parent) {
        return true;
      }
    }
    return false;
  }

  /**
   * The earliest placement claim among the alive records whose effective parent is `parent`
   * and whose stored name folds to `folded` (the stored children of that name, and under
   * /LostAndFound the repair suspects of that name that land there), or null when there are
   * none. Kept per directory state (ViewCache). Only a candidate earlier than the best member
   * so far has its placement repair checked, so a group of hundreds of same-named orphans
   * costs one pass of stamp compares and a few repair checks, not a repair check, a sort and
   * a copy per member (journaling the repairs of each replicated batch named new orphans).
   */
  private earliestNamed(parent: Guid, folded: string): ObjectRecord | null {
    const cache = this.cache();
    const key = `${parent}\u0000${folded}`;
    const held = cache.earliestNamed(key);
    if (held !== undefined) return held;
    let best: ObjectRecord | null = null;
    const consider = (id: Guid): void => {
      const r = this.dir.get(id);
      if (r === undefined || (best !== null && !earlierClaim(r, best))) return;
      if (this.repairOf(r).effectiveParent === parent) best = r;
    };
    for (const id of this.dir.store.aliveNamed(parent, folded)) consider(id);
    if (parent === this.dir.landmarks()?.lostAndFound) {
      for (const id of this.dir.suspectsNamed(folded)) consider(id);
    }
    cache.rememberEarliestNamed(key, best);
    return best;
  }

  /**
   * The placement repair alone (effective parent, orphaned, cycle broken), without the CNF
   * name: CNF naming of a rival must not recurse into `of`, and under /LostAndFound naming one
   * object compares it with every alive suspect of the same name.
   */
  placement(record: ObjectRecord): PlacementRepair {
    return this.repairOf(record);
  }

  /** See `placement`. */
  private repairOf(record: ObjectRecord): PlacementRepair {
    return this.cache().factsOf(record) ?? placementRepair(this.dir, record, this.cache().acyclic);
  }
}

function earlierClaim(a: ObjectRecord, b: ObjectRecord): boolean {
  const x = a.placement.stamp;
  const y = b.placement.stamp;
  if (x.atMs !== y.atMs) return x.atMs < y.atMs;
  if (x.origin !== y.origin) return x.origin < y.origin;
  return a.id < b.id;
}
