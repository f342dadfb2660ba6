import { assert } from "../assert";
import type { Guid } from "../guid";
import { fold } from "../naming";
import type { ObjectRecord } from "./record";
import { UsnIndex, type ChangeLog } from "./usn-index";

export interface BackRef {
  readonly source: Guid;
  readonly attribute: string;
}

/**
 * The records a node holds in memory, with their indexes: children by parent, alive children
 * by folded name, back-references, and usnChanged order. Records are immutable values; every
 * write replaces a record through `put`, which keeps the indexes true.
 */
export class Store {
  private readonly records = new Map<Guid, ObjectRecord>();
  private readonly children = new Map<Guid, Set<Guid>>();
  /** Alive children by folded name: one id when uncontested (the common case), else a Set. */
  private readonly aliveByName = new Map<Guid, Map<string, Guid | Set<Guid>>>();
  /**
   * Back-references by target, built on first use and kept up to date from then on; dropped
   * (null) when the set of reference attributes changes, and at every load. Only object reads
   * (`referencedBy` in a payload) and facet-definition deletes ask for them: the simulator's
   * nodes never do, and maintaining them on every put and load, and walking every record
   * again per load and schema change, was ~3 % of a standard seed. A daemon builds them at
   * boot and after the write that changed the schema (`warmBackReferences`), not at a read.
   */
  private backRefs: Map<Guid, Map<Guid, Set<string>>> | null = null;
  private usnIndex = new UsnIndex();
  /** Ids written since the last `takeDirty`, for persistence. */
  private dirty = new Set<Guid>();
  private purged = new Set<Guid>();
  private loading = false;
  /**
   * From beginLoad until the next reindexReferences: which attributes are references is not
   * known yet (it depends on the schema, which comes from the very records being loaded), so
   * back-references are neither read nor written.
   */
  private referencesDeferred = false;

  /**
   * `isReference` per attribute name, memoised: records repeat the same few attribute names
   * and the answer changes only with the function (a schema change swaps it, see
   * reindexReferences).
   */
  private referenceMemo = new Map<string, boolean>();

  constructor(private isReference: (attribute: string) => boolean) {}

  get size(): number {
    return this.records.size;
  }

  get(id: Guid): ObjectRecord | undefined {
    return this.records.get(id);
  }

  ids(): IterableIterator<Guid> {
    return this.records.keys();
  }

  all(): IterableIterator<ObjectRecord> {
    return this.records.values();
  }

  put(record: ObjectRecord): void {
    assert(this.loading || !this.referencesDeferred, "back-references are indexed before the first write");
    const previous = this.records.get(record.id);
    if (previous !== undefined) {
      assert(record.usnChanged >= previous.usnChanged, "usnChanged never goes back");
      this.unindex(previous);
    }
    this.records.set(record.id, record);
    this.index(record, previous?.usnChanged ?? null);
    if (this.loading) return;
    this.dirty.add(record.id);
    this.purged.delete(record.id);
  }

  /**
   * Boot: adds a record loaded from disk, between `beginLoad` and `endLoad`. Each id comes at
   * most once (a storage layer hands over each key once, with its final value), so there is
   * no previous record to unindex, nothing is noted as written, and the usnChanged index waits
   * for `endLoad`: `put`'s lookups and checks for those were a tenth of a boot.
   */
  load(record: ObjectRecord): void {
    assert(this.loading, "load between beginLoad and endLoad");
    const before = this.records.size;
    this.records.set(record.id, record);
    assert(this.records.size === before + 1, `record ${record.id} loaded twice`);
    this.index(record, null);
  }

  /**
   * Boot: the records put until `endLoad` come from disk, so none is noted as written (a
   * million-object boot would otherwise build a million-entry dirty set only to drop it), and
   * the usnChanged index is built at `endLoad`. Back-references wait for the caller's
   * `reindexReferences` once the loaded schema is known (writes and reads of back-references
   * before it fail an assertion).
   */
  beginLoad(): void {
    assert(this.dirty.size === 0 && this.purged.size === 0, "a load starts clean");
    this.loading = true;
    this.referencesDeferred = true;
    this.backRefs = null;
  }

  endLoad(): void {
    this.loading = false;
    // Built once, at its final size, rather than grown record by record.
    this.usnIndex = UsnIndex.of(this.records.size, this.records.values());
  }

  /** Purge: the record is removed entirely. */
  remove(id: Guid): void {
    const previous = this.records.get(id);
    if (previous === undefined) return;
    this.unindex(previous);
    this.usnIndex.delete(previous.usnChanged);
    this.records.delete(id);
    this.dirty.delete(id);
    this.purged.add(id);
  }

  childIds(parent: Guid): Guid[] {
    return [...(this.children.get(parent) ?? [])];
  }

  hasChildren(parent: Guid): boolean {
    return (this.children.get(parent)?.size ?? 0) > 0;
  }

  /** Alive children of `parent` whose stored name folds to `folded`. */
  aliveNamed(parent: Guid, folded: string): Guid[] {
    const held = this.aliveByName.get(parent)?.get(folded);
    return held === undefined ? [] : typeof held === "string" ? [held] : [...held];
  }

  aliveNamedCount(parent: Guid, folded: string): number {
    const held = this.aliveByName.get(parent)?.get(folded);
    return held === undefined ? 0 : typeof held === "string" ? 1 : held.size;
  }

  referencedBy(target: Guid): BackRef[] {
    assert(!this.referencesDeferred, "back-references are indexed after a load");
    const out: BackRef[] = [];
    const sources = this.indexedBackRefs().get(target);
    if (sources === undefined) return out;
    for (const [source, attrs] of sources) {
      for (const attribute of attrs) out.push({ source, attribute });
    }
    return out;
  }

  changedAfter(usn: number, limit: number): Array<{ id: Guid; usn: number }> {
    return this.usnIndex.after(usn, limit);
  }

  /** The usnChanged order by position, for walks that note what they learn (see ChangeLog). */
  changeLog(): ChangeLog {
    return this.usnIndex;
  }

  takeDirty(): { written: Guid[]; purged: Guid[] } {
    const out = { written: [...this.dirty], purged: [...this.purged] };
    this.dirty = new Set();
    this.purged = new Set();
    return out;
  }

  /**
   * Takes the set of reference attributes (a schema change, or the schema a load brought);
   * the back-reference index is built again when next asked for.
   */
  reindexReferences(isReference: (attribute: string) => boolean): void {
    this.isReference = isReference;
    this.referenceMemo = new Map();
    this.backRefs = null;
    this.referencesDeferred = false;
  }

  /** Builds the back-reference index now if it is not built (see backRefs). */
  warmBackReferences(): void {
    assert(!this.referencesDeferred, "back-references are indexed after a load");
    this.indexedBackRefs();
  }

  private indexedBackRefs(): Map<Guid, Map<Guid, Set<string>>> {
    if (this.backRefs !== null) return this.backRefs;
    const built = new Map<Guid, Map<Guid, Set<string>>>();
    this.backRefs = built;
    for (const record of this.records.values()) this.indexRefs(record, built);
    return built;
  }

  private index(record: ObjectRecord, previousUsn: number | null): void {
    const parent = record.placement.parent;
    if (parent !== null) {
      let kids = this.children.get(parent);
      if (kids === undefined) this.children.set(parent, (kids = new Set()));
      kids.add(record.id);
      if (record.existence.stage === "alive") {
        let byName = this.aliveByName.get(parent);
        if (byName === undefined) this.aliveByName.set(parent, (byName = new Map()));
        const key = foldedName(record.placement.name);
        const held = byName.get(key);
        if (held === undefined || held === record.id) byName.set(key, record.id);
        else if (typeof held === "string") byName.set(key, new Set([held, record.id]));
        else held.add(record.id);
      }
    }
    if (this.backRefs !== null) this.indexRefs(record, this.backRefs);
    if (!this.loading) this.usnIndex.set(record.id, record.usnChanged, previousUsn);
  }

  private indexRefs(record: ObjectRecord, backRefs: Map<Guid, Map<Guid, Set<string>>>): void {
    // Keys first: most attributes are not references, and their atoms are never looked at.
    for (const attribute of record.attrs.keys()) {
      if (!this.isReferenceAttribute(attribute)) continue;
      const atoms = record.attrs.get(attribute)!;
      for (const atom of atoms.values()) {
        if (!atom.present || atom.value === null) continue;
        let sources = backRefs.get(atom.value);
        if (sources === undefined) backRefs.set(atom.value, (sources = new Map()));
        let attrs = sources.get(record.id);
        if (attrs === undefined) sources.set(record.id, (attrs = new Set()));
        attrs.add(attribute);
      }
    }
  }

  private isReferenceAttribute(attribute: string): boolean {
    let answer = this.referenceMemo.get(attribute);
    if (answer === undefined) this.referenceMemo.set(attribute, (answer = this.isReference(attribute)));
    return answer;
  }

  private unindex(record: ObjectRecord): void {
    const parent = record.placement.parent;
    if (parent !== null) {
      const kids = this.children.get(parent);
      kids?.delete(record.id);
      if (kids?.size === 0) this.children.delete(parent);
      const byName = this.aliveByName.get(parent);
      const key = foldedName(record.placement.name);
      const held = byName?.get(key);
      if (held === record.id) byName?.delete(key);
      else if (held !== undefined && typeof held !== "string") {
        held.delete(record.id);
        const [only] = held;
        if (held.size === 1 && only !== undefined) byName?.set(key, only);
        if (held.size === 0) byName?.delete(key);
      }
      if (byName?.size === 0) this.aliveByName.delete(parent);
    }
    const backRefs = this.backRefs;
    if (backRefs === null) return;
    for (const [attribute, atoms] of record.attrs) {
      if (!this.isReferenceAttribute(attribute)) continue;
      for (const atom of atoms.values()) {
        if (atom.value === null) continue;
        const sources = backRefs.get(atom.value);
        const attrs = sources?.get(record.id);
        attrs?.delete(attribute);
        if (attrs?.size === 0) sources?.delete(record.id);
        if (sources?.size === 0) backRefs.delete(atom.value);
      }
    }
  }
}

/** Text in which `fold` changes nothing: ASCII without capitals (NFD and case folding fix it). */
const foldFixed = /^[\x00-\x40\x5b-\x7f]*$/;

/**
 * The children index key: `fold(name)`, the name itself when `fold` would return it unchanged
 * (most names). Booting a large directory folds every name once; skipping `fold` there keeps
 * its bounded memo from churning through a million one-off entries.
 */
function foldedName(name: string): string {
  return foldFixed.test(name) ? name : fold(name);
}
