import type { Guid } from "../guid";
import type { Stamp } from "./stamp";

export type Stage = "alive" | "deleted" | "shredded";

/**
 * The existence atom: creation facts (immutable: class, system) and the lifecycle stage.
 * `deleteRoot` names the object whose delete tombstoned this one, so a restore brings back
 * exactly the subtree that one delete took (top-down).
 */
export interface Existence {
  readonly stage: Stage;
  readonly classId: Guid;
  readonly className: string;
  readonly system: boolean;
  readonly deleteRoot: Guid | null;
  readonly stamp: Stamp;
}

/** The placement atom: (parent, bare name). */
export interface Placement {
  readonly parent: Guid | null;
  readonly name: string;
  readonly stamp: Stamp;
}

export type Meta = Readonly<Record<string, readonly string[]>>;

/**
 * One value atom of an attribute. `key` is the set-key under the attribute's matching rule
 * (null for a single-valued attribute, whose one atom holds the whole attribute). An absent
 * atom is stamped residue of a removed value: value and meta are erased, the key remains so
 * that the removal can win future merges.
 */
export interface ValueAtom {
  readonly key: string | null;
  readonly present: boolean;
  readonly value: string | null;
  readonly meta: Meta | null;
  readonly stamp: Stamp;
}

/** Map key used for a null (single-valued) atom key; no real set-key is empty. */
export const singleKey = "";

export function atomMapKey(key: string | null): string {
  return key ?? singleKey;
}

export interface ObjectRecord {
  readonly id: Guid;
  readonly existence: Existence;
  readonly placement: Placement;
  /** attribute canonical wire name -> atom map key -> atom */
  readonly attrs: ReadonlyMap<string, ReadonlyMap<string, ValueAtom>>;
  readonly usnChanged: number;
  /** Local, unstamped compaction: values and residue dropped after the restore window. */
  readonly hardened: boolean;
}

export function presentValues(record: ObjectRecord, attr: string): ValueAtom[] {
  const atoms = record.attrs.get(attr);
  if (atoms === undefined) return [];
  const out: ValueAtom[] = [];
  for (const atom of atoms.values()) if (atom.present) out.push(atom);
  return out;
}

export function firstValue(record: ObjectRecord, attr: string): string | null {
  for (const atom of presentValues(record, attr)) if (atom.value !== null) return atom.value;
  return null;
}

export function maxLocalUsn(record: Omit<ObjectRecord, "usnChanged">): number {
  let usn = Math.max(record.existence.stamp.localUsn, record.placement.stamp.localUsn);
  for (const atoms of record.attrs.values()) {
    for (const atom of atoms.values()) usn = Math.max(usn, atom.stamp.localUsn);
  }
  return usn;
}
