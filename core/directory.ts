import { assert } from "./assert";
import type { Guid } from "./guid";
import { mintGuid } from "./guid";
import { Journal } from "./journal";
import { limits } from "./limits";
import type { Random } from "./ports";
import type { CompiledSchema, DefinitionInput } from "./schema";
import { compileSchemaMemo, definitionContentNumber, schemaMemoKey } from "./schema/compile-memo";
import type { ObjectRecord, ValueAtom } from "./store/record";
import { firstValue, valuesErased } from "./store/record";
import type { Stamp } from "./store/stamp";
import { compareStamps, nextStamp } from "./store/stamp";
import { Store } from "./store/store";
import { SuspectNames } from "./suspect-names";
import { fold } from "./naming";

export const definitionClasses: ReadonlySet<string> = new Set([
  "attributeDefinition",
  "facetDefinition",
  "classDefinition",
  "classExtension",
  "schemaNamespace",
]);

/** The well-known places of a domain, found by shape (there are no well-known GUIDs). */
export interface Landmarks {
  readonly root: Guid;
  readonly configuration: Guid | null;
  readonly schema: Guid | null;
  readonly lostAndFound: Guid | null;
}

/**
 * The state one node holds: its records, compiled schema, identity, USN counter and journal.
 * Pure: time arrives as arguments, randomness through the injected generator.
 */
export class Directory {
  readonly store: Store;
  readonly journal = new Journal();
  schema: CompiledSchema;
  usn = 0;
  /**
   * The invocation's place among this node's invocations: each re-mint takes a higher one
   * (remintInvocation). Partners bound their vectors by it (core/repl/vector-bound.ts).
   */
  invocationEpoch = 0;
  rollbackLatched = false;
  private definitionIds = new Set<Guid>();
  private schemaStale = false;
  private landmarkCache: Landmarks | null = null;
  /** Records that may be under a derived placement repair (pruned when listed). */
  private suspects = new Set<Guid>();
  /** A write or purge erased a record's values for good since the last `takeErasure`. */
  private valuesErased = false;
  /** True while `load` notes a record: suspects are settled at `endLoad`. */
  private loading = false;
  private suspectsSorted: Guid[] | null = null;
  private suspectsSortedSize = -1;
  /** The suspects by folded stored name (see suspectsNamed). */
  private readonly suspectNames = new SuspectNames();

  constructor(
    public nodeId: Guid,
    public invocationId: Guid,
    readonly random: Random,
  ) {
    this.schema = compileSchemaMemo(schemaMemoKey([]), () => []);
    this.store = new Store((a) => this.isReferenceAttribute(a));
  }

  static fresh(random: Random): Directory {
    return new Directory(mintGuid(random), mintGuid(random), random);
  }

  mintGuid(): Guid {
    return mintGuid(this.random);
  }

  get(id: Guid): ObjectRecord | undefined {
    return this.store.get(id);
  }

  allocateUsn(): number {
    this.usn += 1;
    return this.usn;
  }

  /** A fresh originating stamp superseding `previous`, under USN `usn`. */
  stamp(previous: Stamp | null, atMs: number, usn: number): Stamp {
    return nextStamp(previous, { atMs, invocation: this.invocationId, usn });
  }

  /**
   * Stores a record (originating or replicated) and notes schema or landmark changes, and
   * whether it erased the record's values for good: it turns shredded or hardened. A
   * replicated shred does that as much as one of this node's own, and the files holding the
   * older versions then owe an erasure on this node too (DESIGN: after a shred nothing of a
   * value survives in any live file); the node reports it with the next batch
   * (`DirectoryNode.ready`). Whatever the record held in memory just before: values of an
   * ended life, dropped when a restore's new life arrived, are still in older versions on
   * disk (scenarios/regressions/shred-after-life-change-keeps-plaintext.scn).
   */
  write(record: ObjectRecord): void {
    assert(record.usnChanged <= this.usn, "usnChanged was allocated by this node");
    const previous = this.store.get(record.id);
    this.store.put(record);
    if (previous !== undefined && erasedForGood(record) && !erasedForGood(previous)) this.valuesErased = true;
    this.noteChange(record, previous);
  }

  /** Whether a write or purge erased a record's values for good since the last call. */
  takeErasure(): boolean {
    const erased = this.valuesErased;
    this.valuesErased = false;
    return erased;
  }

  /**
   * Removes a record for good (GC past the purge horizon). A record purged before its values
   * were erased (a tombstone GC never hardened: a restore window longer than the purge
   * horizon) leaves them in older files, an erasure like a shred's.
   */
  purge(id: Guid): void {
    const previous = this.store.get(id);
    if (previous === undefined) return;
    if (!erasedForGood(previous)) this.valuesErased = true;
    this.store.remove(id);
    this.noteChange(null, previous);
  }

  /**
   * Loads a persisted record at boot: no USN allocation, indexes only. Repair suspects wait
   * for `endLoad` (records arrive in key order, so a child often comes before its parent).
   */
  load(record: ObjectRecord): void {
    this.store.load(record);
    this.loading = true;
    this.noteChange(record, undefined);
    this.loading = false;
  }

  /**
   * Boot: the repair suspects of the loaded records, from the stored tree as a whole: every
   * alive record whose stored parent is missing or not alive (an orphan), and every member of
   * a stored parent cycle (concurrent moves). One pass over the parent function, O(n); only
   * records with children are remembered along the way (a cycle's members all have one, and
   * a 1,000,000-record boot must not hold a second map of every record). Then compiles the
   * loaded schema and indexes the back-references under it, once.
   */
  endLoad(): void {
    this.suspects.clear();
    this.suspectNames.clear();
    this.suspectsSorted = null;
    // Records with children: 1 on the walk under way, 2 settled. Only they enter `state` (a
    // walk's start only when it has children; every later record of a walk is a parent), so a
    // start without children is not looked up there; each later step reads its record's state once.
    const state = new Map<Guid, 1 | 2>();
    for (const start of this.store.all()) {
      const startHasChildren = this.store.hasChildren(start.id);
      if (startHasChildren && state.has(start.id)) continue;
      const walk: ObjectRecord[] = [];
      let cursor: ObjectRecord | undefined = start;
      let reached: 1 | 2 | undefined;
      while (cursor !== undefined) {
        if (cursor !== start) {
          reached = state.get(cursor.id);
          if (reached !== undefined) break;
        }
        if (cursor !== start || startHasChildren) {
          state.set(cursor.id, 1);
          walk.push(cursor);
        }
        const parent: Guid | null = cursor.placement.parent;
        if (parent === null) break;
        const parentRecord = this.store.get(parent);
        if (cursor.existence.stage === "alive" && parentRecord?.existence.stage !== "alive") {
          this.addSuspect(cursor.id);
        }
        cursor = parentRecord;
      }
      // Arriving at a record of this very walk closes a cycle: its members are suspects (a
      // walk that ends at the root closes nothing).
      if (cursor !== undefined && reached === 1) {
        for (let i = walk.length - 1; i >= 0; i--) {
          const member = walk[i]!;
          if (member.existence.stage === "alive") this.addSuspect(member.id);
          if (member.id === cursor.id) break;
        }
      }
      for (const r of walk) state.set(r.id, 2);
    }
    // The store left back-references to now that the loaded schema is known (Store.beginLoad):
    // a schema refresh indexes them; without loaded definitions, index them under this one.
    if (!this.refreshSchema()) this.store.reindexReferences((a) => this.isReferenceAttribute(a));
  }

  private noteChange(record: ObjectRecord | null, previous: ObjectRecord | undefined): void {
    const subject = record ?? previous;
    assert(subject !== undefined, "a change has a subject");
    if (definitionClasses.has(subject.existence.className)) {
      if (record === null) this.definitionIds.delete(subject.id);
      else this.definitionIds.add(subject.id);
      this.schemaStale = true;
    }
    if (landmarkish(record) || landmarkish(previous)) this.landmarkCache = null;
    this.noteRepairSuspects(record, previous);
  }

  /**
   * Keeps the candidates for orphan and cycle repairs: a record whose placement changed, and
   * the children of a record that stopped being alive.
   */
  private noteRepairSuspects(record: ObjectRecord | null, previous: ObjectRecord | undefined): void {
    if (this.loading) return;
    const subject = record ?? previous;
    assert(subject !== undefined, "a change has a subject");
    if (record !== null && previous !== undefined && record.placement.name !== previous.placement.name) {
      this.suspectNames.rename(record.id, fold(record.placement.name));
    }
    // Only alive suspects are filed by name (dead ones wait in `suspects` for the lazy prune):
    // under /LostAndFound the dead outnumbered the alive several times over, and every CNF
    // name asked for its rivals through all of them.
    const alive = record !== null && record.existence.stage === "alive";
    if (!alive) this.suspectNames.remove(subject.id);
    else if (previous?.existence.stage !== "alive" && this.suspects.has(record.id)) {
      this.suspectNames.note(record.id, fold(record.placement.name));
    }
    if (alive) {
      const parent = record.placement.parent;
      const parentRecord = parent === null ? undefined : this.store.get(parent);
      const moved = previous !== undefined && previous.placement.parent !== parent;
      // A rename keeps the parent but makes a new placement claim, and the latest claim is
      // the breaker of a stored cycle through the record: it may now be the one broken off
      // (found by sim/directory/view-repairs.property.test.ts).
      const reclaimed = previous !== undefined && compareStamps(previous.placement.stamp, record.placement.stamp) !== 0;
      // Back alive (a restore, never a move): while dead it may have been pruned from the
      // suspects, yet it may sit in a stored cycle it breaks
      // (scenarios/regressions/revived-cycle-breaker-missing-from-lost-and-found.scn).
      const revived = previous !== undefined && previous.existence.stage !== "alive";
      if (parent !== null && (moved || revived || parentRecord?.existence.stage !== "alive")) {
        this.addSuspect(record.id);
      }
      // A record first seen here after its children (replication is not in tree order) may
      // close a stored cycle through them, as a move does
      // (scenarios/regressions/cycle-closed-by-arriving-record.scn).
      const arrivedAboveChildren = previous === undefined && this.store.hasChildren(record.id);
      if (moved || reclaimed || revived || arrivedAboveChildren) this.addCycleMembers(record);
    }
    const died = record === null || (record.existence.stage !== "alive" && previous?.existence.stage === "alive");
    if (died) {
      for (const child of this.store.childIds(subject.id)) this.addSuspect(child);
    }
  }

  /**
   * A move (or a rename, a revival, an arrival above existing children) may close a cycle or
   * change its breaker, which is any member: all members become suspects, the record included.
   */
  private addCycleMembers(record: ObjectRecord): void {
    const members: Guid[] = [];
    // A deep chain is looked up in a set: a scan per step made the walk quadratic, and a
    // restore of a chain of D objects walks it D times (D = 4,000: 40 s; HTTP audit,
    // twenty-fifth session). A short one is scanned, cheaper than a set.
    let seen: Set<Guid> | null = null;
    let cursor = record.placement.parent;
    for (let depth = 0; cursor !== null && depth < 100_000; depth++) {
      if (cursor === record.id) {
        this.addSuspect(record.id);
        for (const id of members) this.addSuspect(id);
        return;
      }
      if (seen === null && members.length >= 32) seen = new Set(members);
      if (seen === null ? members.includes(cursor) : seen.has(cursor)) return;
      seen?.add(cursor);
      members.push(cursor);
      cursor = this.store.get(cursor)?.placement.parent ?? null;
    }
  }

  /** The view drops a suspect it found unrepaired; a later change re-adds it if needed. */
  dropRepairSuspect(id: Guid): void {
    if (this.suspects.delete(id)) this.suspectsSorted = null;
    this.suspectNames.remove(id);
  }

  private addSuspect(id: Guid): void {
    if (this.suspects.has(id)) return;
    this.suspects.add(id);
    this.suspectsSorted = null;
    const record = this.store.get(id);
    if (record?.existence.stage === "alive") this.suspectNames.note(id, fold(record.placement.name));
  }

  /**
   * The alive repair suspects whose stored name folds to `folded` (in no particular order):
   * the rivals under /LostAndFound that CNF naming looks for besides the stored children.
   */
  suspectsNamed(folded: string): ReadonlySet<Guid> {
    return this.suspectNames.named(folded);
  }

  /**
   * Candidate ids for derived placement repairs, sorted; stale ones are pruned. The sorted
   * list is kept until the set changes (views ask for it once per child under /LostAndFound).
   */
  repairSuspects(): Guid[] {
    if (this.suspectsSorted !== null && this.suspectsSortedSize === this.suspects.size) {
      return this.suspectsSorted;
    }
    for (const id of [...this.suspects]) {
      const r = this.store.get(id);
      if (r === undefined || r.existence.stage !== "alive") {
        this.suspects.delete(id);
        this.suspectNames.remove(id);
      }
    }
    this.suspectsSorted = [...this.suspects].sort();
    this.suspectsSortedSize = this.suspects.size;
    return this.suspectsSorted;
  }

  /** Recompiles the schema when a definition changed; call once at the end of a write. */
  refreshSchema(): boolean {
    if (!this.schemaStale) return false;
    this.schemaStale = false;
    this.schema = compileSchemaMemo(this.schemaKey(), () => this.definitionInputs());
    this.store.reindexReferences((a) => this.isReferenceAttribute(a));
    return true;
  }

  /**
   * The compile memo's key of `definitionInputs()`: each record's content number is kept per record
   * (records are immutable, and boots hand in the same record objects again, see RecordMemo),
   * so a key costs a lookup per definition instead of rendering every definition's values.
   */
  private schemaKey(): string {
    const parts: Array<readonly [number, Guid | null]> = [];
    for (const id of [...this.definitionIds].sort()) {
      const record = this.store.get(id);
      if (record === undefined) continue;
      let number = contentNumbers.get(record);
      if (number === undefined) {
        number = definitionContentNumber(this.definitionInput(record));
        contentNumbers.set(record, number);
      }
      parts.push([number, this.namespaceOf(record)]);
    }
    return schemaMemoKey(parts);
  }

  definitionInputs(extra: readonly DefinitionInput[] = []): DefinitionInput[] {
    const out: DefinitionInput[] = [];
    for (const id of [...this.definitionIds].sort()) {
      const record = this.store.get(id);
      if (record !== undefined) out.push(this.definitionInput(record));
    }
    return out.concat(extra);
  }

  definitionInput(record: ObjectRecord): DefinitionInput {
    return {
      id: record.id,
      className: record.existence.className,
      name: record.placement.name,
      namespaceId: this.namespaceOf(record),
      alive: record.existence.stage === "alive",
      values: valuesOf(record),
    };
  }

  /**
   * A definition's namespace: its parent when that is a schemaNamespace, or when that is not
   * held yet. Only the base definitions (system objects, minted with the domain) live outside
   * a namespace, so a missing parent of any other definition is a namespace still on its way
   * (a namespace restored elsewhere is re-stamped after the definitions created in it
   * meanwhile): the definition waits for it. Taken for unprefixed, it entered the election of
   * a base name and could displace a base definition (schema audit, twenty-eighth session).
   */
  private namespaceOf(record: ObjectRecord): Guid | null {
    const parent = record.placement.parent;
    const existence = record.existence;
    if (parent === null || existence.system || existence.className === "schemaNamespace") return null;
    const parentRecord = this.store.get(parent);
    if (parentRecord === undefined) return parent;
    return parentRecord.existence.className === "schemaNamespace" ? parentRecord.id : null;
  }

  isReferenceAttribute(attribute: string): boolean {
    return this.schema.attribute(attribute)?.syntax === "reference";
  }

  landmarks(): Landmarks | null {
    if (this.landmarkCache !== null) return this.landmarkCache;
    const root = this.findRoot();
    if (root === null) return null;
    const configuration = this.childWhere(root, (r) => r.existence.className === "configuration");
    const schema =
      configuration === null
        ? null
        : this.childWhere(configuration, (r) => r.placement.name === "Schema" && r.existence.system);
    const lostAndFound = this.childWhere(
      root,
      (r) => r.placement.name === "LostAndFound" && r.existence.system,
    );
    this.landmarkCache = { root, configuration, schema, lostAndFound };
    return this.landmarkCache;
  }

  /**
   * Restore window and purge horizon in ms, from /Configuration (defaults per SPEC). The window
   * in effect is `timeUntilShred`, at most half of `maxTimeApart`: a restore made late in a
   * window as long as the horizon would reach a partner that had purged the tombstone
   * meanwhile, which refuses it for good (purged tombstones never come back), and the two
   * would never agree again. Half the horizon leaves a restore the time in which a partner
   * that pulls at all is not yet reported stale (`partner-stale`, replicator.ts) to arrive before any
   * purge. SPEC's defaults (30 of 180 days) are unaffected.
   * (scenarios/regressions/restore-window-beyond-horizon-scripted.scn)
   */
  replicationConfig(): { restoreWindowMs: number; purgeAfterMs: number } {
    const configId = this.landmarks()?.configuration ?? null;
    const config = configId === null ? undefined : this.store.get(configId);
    const seconds = (attr: string, fallback: number): number => {
      const text = config === undefined ? null : firstValue(config, attr);
      const n = text === null ? NaN : Number(text);
      // Clamped: a value stored before the write-time bound must not crash GC (limits.durationMaxS).
      return Number.isFinite(n) && n >= 0 ? Math.min(n, limits.durationMaxS) : fallback;
    };
    const purgeAfterMs = seconds("maxTimeApart", limits.purgeHorizonDefaultS) * 1000;
    const windowMs = seconds("timeUntilShred", limits.restoreWindowDefaultS) * 1000;
    return { restoreWindowMs: Math.min(windowMs, longestWindowMs(purgeAfterMs)), purgeAfterMs };
  }

  private findRoot(): Guid | null {
    // The root is the one alive domainRoot with no parent; scanning happens only on a cache miss.
    let found: Guid | null = null;
    for (const record of this.store.all()) {
      if (record.placement.parent === null && record.existence.className === "domainRoot") {
        if (found === null || record.id < found) found = record.id;
      }
    }
    return found;
  }

  private childWhere(parent: Guid, test: (r: ObjectRecord) => boolean): Guid | null {
    let found: Guid | null = null;
    for (const id of this.store.childIds(parent)) {
      const r = this.store.get(id);
      if (r !== undefined && r.existence.stage === "alive" && test(r)) {
        if (found === null || id < found) found = id;
      }
    }
    return found;
  }
}

/**
 * Landmarks are system objects (or the parentless root): only their changes can move them.
 * A module function, not a closure in noteChange: under the simulator's transpiler every
 * closure creation also names the function (esbuild's keepNames), which was ~2 % of a run.
 */
/** `valuesErased`, asserting what it implies: no value atoms left. */
function erasedForGood(r: ObjectRecord): boolean {
  const erased = valuesErased(r);
  assert(!erased || r.attrs.size === 0, "a shredded or hardened record holds no value atoms");
  return erased;
}

function landmarkish(r: ObjectRecord | null | undefined): boolean {
  return r !== null && r !== undefined && (r.existence.system || r.placement.parent === null);
}

/**
 * definitionContentNumber of each definition record, by record: a record is an immutable
 * value, so its number never changes (the namespace, which depends on the parent, is not in it).
 */
const contentNumbers = new WeakMap<ObjectRecord, number>();

export function valuesOf(
  record: ObjectRecord,
): Record<string, { value: string; meta?: Record<string, string[]> }[]> {
  const out: Record<string, { value: string; meta?: Record<string, string[]> }[]> = {};
  for (const [attr, atoms] of record.attrs) {
    const list: { value: string; meta?: Record<string, string[]> }[] = [];
    for (const atom of atoms.values()) {
      if (!atom.present || atom.value === null) continue;
      list.push(atom.meta === null ? { value: atom.value } : { value: atom.value, meta: copyMeta(atom) });
    }
    if (list.length > 0) out[attr] = list;
  }
  return out;
}

function copyMeta(atom: ValueAtom): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(atom.meta ?? {})) out[k] = [...v];
  return out;
}

/**
 * The longest restore window any node can run under a purge horizon (replicationConfig caps
 * `timeUntilShred` at half of it): a node that has not yet seen a shorter `timeUntilShred`
 * still restores inside it.
 */
export function longestWindowMs(purgeAfterMs: number): number {
  return Math.floor(purgeAfterMs / 2);
}
