import type { Guid } from "./guid";

/**
 * The directory's repair suspects by the fold of their stored name, kept as suspects come and
 * go and as a suspect's name changes (Directory notes each): the CNF naming of an object under
 * /LostAndFound asks for its rivals by name. Rebuilt per directory state instead (every write,
 * every received batch), the index cost O(suspects) per ask, which grew with the directory: in
 * a simulated hour without crashes, a third of the run.
 *
 * The directory files alive suspects only: it removes one when it stops being alive and files
 * it again if it comes back while still a suspect.
 */
export class SuspectNames {
  private readonly byName = new Map<string, Set<Guid>>();
  private readonly nameOf = new Map<Guid, string>();

  /** Files `id` under `folded`, moving it from the name it was filed under. */
  note(id: Guid, folded: string): void {
    const old = this.nameOf.get(id);
    if (old === folded) return;
    if (old !== undefined) this.unfile(id, old);
    this.nameOf.set(id, folded);
    const ids = this.byName.get(folded);
    if (ids === undefined) this.byName.set(folded, new Set([id]));
    else ids.add(id);
  }

  /** Moves `id` to `folded` if it is filed at all (a suspect renamed). */
  rename(id: Guid, folded: string): void {
    if (this.nameOf.has(id)) this.note(id, folded);
  }

  remove(id: Guid): void {
    const old = this.nameOf.get(id);
    if (old === undefined) return;
    this.nameOf.delete(id);
    this.unfile(id, old);
  }

  clear(): void {
    this.byName.clear();
    this.nameOf.clear();
  }

  named(folded: string): ReadonlySet<Guid> {
    return this.byName.get(folded) ?? noIds;
  }

  private unfile(id: Guid, folded: string): void {
    const ids = this.byName.get(folded);
    if (ids === undefined) return;
    ids.delete(id);
    if (ids.size === 0) this.byName.delete(folded);
  }
}

const noIds: ReadonlySet<Guid> = new Set();
