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
  /**
   * The life of the object this atom was written in (absent: 1, the life its create began).
   * A restore begins a new life; atoms of an ended life are superseded (see lifeOf).
   */
  readonly life?: number;
}

export function atomLife(atom: ValueAtom): number {
  return atom.life ?? 1;
}

/**
 * The life an object is in. Its create begins life 1 and each restore begins a new life.
 * Every lifecycle write bumps the existence version by one on top of the record it saw and
 * the stages alternate (create 1 alive, delete 2, restore 3 alive, delete 4, ...), so a life
 * is the largest odd number not above the version: an alive record's version is its life and
 * a deleted one's is its life + 1. Defined on the version alone, the life never goes down
 * along the existence merge order, which keeps the merge commutative for any input.
 * (Shredded records hold no values, so their life does not matter.)
 */
export function lifeOf(existence: Existence): number {
  return lifeOfVersion(existence.stamp.version);
}

export function lifeOfVersion(version: number): number {
  return version % 2 === 1 ? version : version - 1;
}

/** Map key used for a null (single-valued) atom key; no real set-key is empty. */
export const singleKey = "";

/**
 * Key of an attribute's residue floor: an absent atom GC leaves when it drops residue older
 * than the purge horizon, holding the highest stamp it dropped, so that a value written to a
 * dropped key later still stamps above the residue partners may not have dropped yet. No value
 * can have this set-key (values are well-formed UTF-16; this key holds a lone surrogate). The
 * floor is local bookkeeping: never rendered, never acknowledged.
 */
export const residueFloorKey = "\uD800floor";

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

/**
 * Whether a record's values are gone for good: shredded, or a hardened skeleton that no
 * restore brought back (a restore clears `hardened`, and the merge counts it only while the
 * record is not alive). Either holds no value atoms.
 */
export function valuesErased(record: ObjectRecord): boolean {
  return record.existence.stage === "shredded" || (record.hardened && record.existence.stage !== "alive");
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
