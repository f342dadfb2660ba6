import type { Guid } from "../../core/guid";
import type { DirectoryNode } from "../../core/node/directory-node";
import type { ObjectRecord } from "../../core/store/record";

/** An id list with O(1) add, remove (swap with the last) and indexing. */
class IdList {
  readonly ids: Guid[] = [];
  private readonly pos = new Map<Guid, number>();

  add(id: Guid): void {
    if (this.pos.has(id)) return;
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

const workloadClasses = new Set(["organizationalUnit", "user", "group"]);

/** Which pick lists a record belongs to on this node (the root is a container). */
function classify(r: ObjectRecord, root: Guid | null): PickClass[] {
  const out: PickClass[] = [];
  const alive = r.existence.stage === "alive";
  const work = workloadClasses.has(r.existence.className);
  if (alive && work && !r.existence.system) out.push("work");
  if (
    alive &&
    (r.id === root || (r.existence.className === "organizationalUnit" && !r.existence.system))
  )
    out.push("container");
  if (alive && r.existence.className === "group") out.push("group");
  if (r.existence.stage === "deleted" && work) out.push("deleted");
  return out;
}

/**
 * What the random workload picks from on one node, kept up to date incrementally: each pick
 * first folds in the records whose usnChanged moved since the last one (USN order), so a
 * pick costs the changes since the last pick, not a scan of the store. Order is a function
 * of the node's history, hence deterministic per seed. Records GC purged (no USN) are dropped
 * when a pick lands on them. A new node object (a restart) rebuilds from scratch.
 */
export class PickIndex {
  private node: DirectoryNode | null = null;
  private seenUsn = 0;
  private readonly lists = new Map<PickClass, IdList>();
  private readonly member = new Map<Guid, readonly PickClass[]>();

  constructor(private readonly excluded: ReadonlySet<Guid>) {}

  pick(node: DirectoryNode, cls: PickClass, pick: number): ObjectRecord | undefined {
    this.refresh(node);
    const list = this.list(cls);
    for (let attempt = 0; attempt < 1000 && list.ids.length > 0; attempt++) {
      const id = list.ids[pick % list.ids.length] as Guid;
      const r = node.dir.get(id);
      if (r !== undefined && classify(r, node.dir.landmarks()?.root ?? null).includes(cls))
        return r;
      this.place(id, r === undefined ? [] : classify(r, node.dir.landmarks()?.root ?? null));
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
    }
    if (node.dir.usn === this.seenUsn) return;
    const root = node.dir.landmarks()?.root ?? null;
    for (const { id } of node.dir.store.changedAfter(this.seenUsn, Number.MAX_SAFE_INTEGER)) {
      const r = node.dir.get(id);
      this.place(id, r === undefined || this.excluded.has(id) ? [] : classify(r, root));
    }
    this.seenUsn = node.dir.usn;
  }

  private place(id: Guid, classes: readonly PickClass[]): void {
    const before = this.member.get(id) ?? [];
    for (const c of before) if (!classes.includes(c)) this.list(c).remove(id);
    for (const c of classes) if (!before.includes(c)) this.list(c).add(id);
    if (classes.length === 0) this.member.delete(id);
    else this.member.set(id, classes);
  }
}
