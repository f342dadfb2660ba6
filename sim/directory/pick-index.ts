import type { Guid } from "../../core/guid";
import type { DirectoryNode } from "../../core/node/directory-node";
import type { ObjectRecord } from "../../core/store/record";

/** An id list with O(1) add, remove (swap with the last) and indexing. */
class IdList {
  readonly ids: Guid[] = [];
  private readonly pos = new Map<Guid, number>();

  add(id: Guid): void {
    if (this.pos.has(id)) return;
    this.appendNew(id);
  }

  /** `add` of an id known not to be listed (a rebuild meets each id once). */
  appendNew(id: Guid): void {
    this.pos.set(id, this.ids.length);
    this.ids.push(id);
  }

  remove(id: Guid): void {
    const i = this.pos.get(id);
    if (i === undefined) return;
    const last = this.ids.pop() as Guid;
    this.pos.delete(id);
    if (last !== id) {
      this.ids[i] = last;
      this.pos.set(last, i);
    }
  }
}

export type PickClass = "work" | "container" | "group" | "deleted";

/** Each class's bit; a record's classes are a bitmask (no array per record and refresh). */
const classBits: Readonly<Record<PickClass, number>> = { work: 1, container: 2, group: 4, deleted: 8 };
/** The classes in bit order, the order in which `place` visits them. */
const classesInOrder: readonly PickClass[] = ["work", "container", "group", "deleted"];

const workloadClasses = new Set(["organizationalUnit", "user", "group"]);

/** Which pick lists a record belongs to on this node (the root is a container), as bits. */
function classify(r: ObjectRecord, root: Guid | null): number {
  let out = 0;
  const alive = r.existence.stage === "alive";
  // Instances of namespaced classes (schema life: `<Namespace>-<name>`) are work as well.
  const work = workloadClasses.has(r.existence.className) || r.existence.className.includes("-");
  if (alive && work && !r.existence.system) out |= classBits.work;
  if (
    alive &&
    (r.id === root || (r.existence.className === "organizationalUnit" && !r.existence.system))
  )
    out |= classBits.container;
  if (alive && r.existence.className === "group") out |= classBits.group;
  if (r.existence.stage === "deleted" && work) out |= classBits.deleted;
  return out;
}

/**
 * What the random workload picks from on one node, kept up to date incrementally: each pick
 * first folds in the records whose usnChanged moved since the last one (USN order), so a
 * pick costs the changes since the last pick, not a scan of the store. Order is a function
 * of the node's history, hence deterministic per seed. Records GC purged (no USN) are dropped
 * when a pick lands on them. A new node object (a restart) rebuilds from scratch, walking the
 * store's change log by position (no entry objects) with classes as bits (no array per
 * record): the rebuild after each boot was ~4 % of a 30-minute run.
 */
export class PickIndex {
  private node: DirectoryNode | null = null;
  private seenUsn = 0;
  private readonly lists = new Map<PickClass, IdList>();
  private readonly member = new Map<Guid, number>();

  constructor(private readonly excluded: ReadonlySet<Guid>) {}

  pick(node: DirectoryNode, cls: PickClass, pick: number): ObjectRecord | undefined {
    this.refresh(node);
    const list = this.list(cls);
    const bit = classBits[cls];
    for (let attempt = 0; attempt < 1000 && list.ids.length > 0; attempt++) {
      const id = list.ids[pick % list.ids.length] as Guid;
      const r = node.dir.get(id);
      const root = node.dir.landmarks()?.root ?? null;
      if (r !== undefined && (classify(r, root) & bit) !== 0) return r;
      this.place(id, r === undefined ? 0 : classify(r, root));
    }
    return undefined;
  }

  private list(cls: PickClass): IdList {
    let l = this.lists.get(cls);
    if (l === undefined) {
      l = new IdList();
      this.lists.set(cls, l);
    }
    return l;
  }

  private refresh(node: DirectoryNode): void {
    if (node !== this.node || node.dir.usn < this.seenUsn) {
      this.node = node;
      this.seenUsn = 0;
      this.lists.clear();
      this.member.clear();
      this.rebuild(node);
      return;
    }
    if (node.dir.usn === this.seenUsn) return;
    const root = node.dir.landmarks()?.root ?? null;
    const log = node.dir.store.changeLog();
    for (let at = log.positionAfter(this.seenUsn); at < log.length; at++) {
      const id = log.idAt(at);
      if (id === null) continue;
      const r = node.dir.get(id);
      this.place(id, r === undefined || this.excluded.has(id) ? 0 : classify(r, root));
    }
    this.seenUsn = node.dir.usn;
  }

  /**
   * `refresh` from empty lists: what placing every id of the change log in order gives (the
   * log lists each record once, so each id comes once, in USN order, into the lists of its
   * classes, in class order), without the lookups of ids already listed that `place` makes
   * for a change.
   */
  private rebuild(node: DirectoryNode): void {
    const root = node.dir.landmarks()?.root ?? null;
    const log = node.dir.store.changeLog();
    const lists = classesInOrder.map((c) => this.list(c));
    const listBits = classesInOrder.map((c) => classBits[c]);
    for (let at = log.positionAfter(0); at < log.length; at++) {
      const id = log.idAt(at);
      if (id === null) continue;
      const r = node.dir.get(id);
      const classes = r === undefined || this.excluded.has(id) ? 0 : classify(r, root);
      if (classes === 0) continue;
      for (let c = 0; c < lists.length; c++) if ((classes & listBits[c]!) !== 0) lists[c]!.appendNew(id);
      this.member.set(id, classes);
    }
    this.seenUsn = node.dir.usn;
  }

  private place(id: Guid, classes: number): void {
    const before = this.member.get(id) ?? 0;
    if (before === classes) return;
    for (const c of classesInOrder) {
      const bit = classBits[c];
      if ((before & bit) !== 0 && (classes & bit) === 0) this.list(c).remove(id);
    }
    for (const c of classesInOrder) {
      const bit = classBits[c];
      if ((classes & bit) !== 0 && (before & bit) === 0) this.list(c).add(id);
    }
    if (classes === 0) this.member.delete(id);
    else this.member.set(id, classes);
  }
}
