import type { Stamp } from "../store/stamp";
import type { ValueAtom } from "../store/record";
import { atomMapKey, residueFloorKey } from "../store/record";
import type { NormalizedValue } from "./normalize-values";
import { sameMeta } from "./normalize-values";

/**
 * Wholesale replacement of one attribute's value set, atom by atom. An unchanged value (same
 * spelling and meta) keeps its stamp; a changed or re-added value is restamped above whatever
 * atom (value or absence residue) held its key; a removed value becomes stamped residue with
 * its value and meta erased. A single-valued attribute has one atom with key null. Every atom
 * it writes belongs to `life`, the object's current life (see lifeOf).
 */
export function replaceValues(
  previous: ReadonlyMap<string, ValueAtom> | undefined,
  next: readonly NormalizedValue[],
  stamp: (previous: Stamp | null) => Stamp,
  life: number,
): { atoms: Map<string, ValueAtom>; changed: boolean } {
  const lifeField = life === 1 ? {} : { life };
  const atoms = new Map<string, ValueAtom>(previous ?? []);
  let changed = false;
  const kept = new Set<string>();
  // A key with no atom may have had residue that GC dropped: stamp above the floor it left.
  const floor = atoms.get(residueFloorKey)?.stamp ?? null;
  for (const value of next) {
    const mapKey = atomMapKey(value.key);
    kept.add(mapKey);
    const old = atoms.get(mapKey);
    if (old?.present && old.value === value.value && sameMeta(old.meta, value.meta)) continue;
    atoms.set(mapKey, {
      key: value.key,
      present: true,
      value: value.value,
      meta: value.meta,
      stamp: stamp(old?.stamp ?? floor),
      ...lifeField,
    });
    changed = true;
  }
  for (const [mapKey, old] of atoms) {
    if (kept.has(mapKey) || !old.present) continue;
    atoms.set(mapKey, { key: old.key, present: false, value: null, meta: null, stamp: stamp(old.stamp), ...lifeField });
    changed = true;
  }
  return { atoms, changed };
}
