/**
 * What a restore promises: every value its objects held when they were deleted comes back
 * (SPEC: restore brings the object back; ARCHITECTURE: a restore re-originates the values of
 * the life that was deleted). No other oracle judged it: the ledger acknowledges the atoms an
 * op wrote, so a restore that re-originated nothing acknowledged nothing, durability forgave
 * the old life's values as superseded, and every node agreed on the empty result (liveness
 * audit, twenty-eighth session, with an off-by-one injected into restampValues: 23 restores of
 * gc-under-chaos and 106 of six swarm seeds lost every value, all green).
 * The host takes `restorableValues` before a restore and asks `lostOnRestore` after it.
 */
import type { Guid } from "../../core/guid";
import type { DirectoryNode } from "../../core/node/directory-node";
import { subtree } from "../../core/ops/subtree";
import type { ValueAtom } from "../../core/store/record";
import { atomLife, lifeOf, residueFloorKey } from "../../core/store/record";

type HeldValue = { readonly attr: string; readonly key: string; readonly atom: ValueAtom };

/**
 * The present values of the deleted life of every tombstone that still holds values: in the
 * stored subtree of `target` when the restore's target is known (every record a restore lifts
 * lies there, a dead cycle's other members included), else in the whole store (a scan per
 * restore tripled the cost of a write in a simulated hour).
 */
export function restorableValues(node: DirectoryNode, target: Guid | null): Map<Guid, HeldValue[]> {
  const out = new Map<Guid, HeldValue[]>();
  const records = target === null ? node.dir.store.all() : subtree(node.dir, target);
  for (const r of records) {
    if (r.existence.stage !== "deleted" || r.hardened) continue;
    const life = lifeOf(r.existence);
    const held: HeldValue[] = [];
    for (const [attr, atoms] of r.attrs) {
      for (const [key, atom] of atoms) {
        if (atom.present && key !== residueFloorKey && atomLife(atom) === life) held.push({ attr, key, atom });
      }
    }
    if (held.length > 0) out.set(r.id, held);
  }
  return out;
}

/** The values of records a restore brought back alive that did not come back with them. */
export function lostOnRestore(node: DirectoryNode, before: ReadonlyMap<Guid, readonly HeldValue[]>): string[] {
  const out: string[] = [];
  for (const [id, held] of before) {
    const record = node.dir.get(id);
    if (record === undefined || record.existence.stage !== "alive") continue;
    for (const { attr, key, atom } of held) {
      const now = record.attrs.get(attr)?.get(key);
      const same = now?.present === true && now.value === atom.value && JSON.stringify(now.meta) === JSON.stringify(atom.meta);
      if (!same) out.push(`the restore of ${id} did not bring back its ${attr} value (key ${JSON.stringify(key)})`);
    }
  }
  return out;
}
