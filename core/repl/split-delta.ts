import type { ObjectDelta } from "../merge/object-delta";
import type { ObjectRecord, ValueAtom } from "../store/record";
import type { AtomCursor, TravellingVector } from "./messages";
import { wanted } from "./dampening";

/**
 * One object too large for a batch of its own, sent in parts. Its atoms are taken in the
 * object's atom order: existence, placement, then the attributes by name and each one's atoms
 * by set-key (map key; code-unit order, so independent of how the record was built or
 * decoded), and a batch that ends inside the object says where the next part begins
 * (`AtomCursor`). The next batch goes on there if the object still holds the same version (the
 * same source-local USN), and sends it whole from its new place in the change log otherwise.
 *
 * The cursor names a place in that order, never a count: a local compaction keeps the record's
 * USN while it drops atoms (hardening, residue past the purge horizon), which would shift a
 * count onto an atom never sent, and the destination's vector, advanced when the cycle
 * completes, would then claim it. It names the place by the shortest key prefix that falls
 * between the last key passed and the next one, not by a whole key: a caseless value's set-key
 * is the value itself, folded, up to a megabyte, and the request after every part carries the
 * cursor back. Merge is per atom, so a destination holding part of an object holds a valid
 * record (existence and placement always travel in the first part).
 */
export interface DeltaPart {
  /** The atoms of this part, or null when the filter dropped every one of them. */
  readonly delta: ObjectDelta | null;
  /** Estimated bytes of the part (see deltaBytes). */
  readonly bytes: number;
  /** Where the next part begins, or null when the object is done. */
  readonly next: AtomCursor["next"] | null;
}

/**
 * The part of `record` from `from` ("start": from its existence atom; else the cursor's place
 * among its attributes) that the destination may lack, taking atoms while `bytes` (the batch so
 * far, plus this part) is below `bytesTarget`: a part always takes its first wanted atom, so
 * every batch moves the object on.
 */
export function deltaPart(
  record: ObjectRecord,
  fromUsn: number,
  utd: TravellingVector,
  from: "start" | AtomCursor["next"],
  bytes: number,
  bytesTarget: number,
): DeltaPart {
  const at = from === "start" ? null : from;
  let n = bytes + objectOverheadBytes;
  let took = false;
  let existence = null;
  let placement = null;
  if (at === null) {
    if (wanted(record.existence.stamp, fromUsn, utd)) existence = record.existence;
    if (wanted(record.placement.stamp, fromUsn, utd)) {
      placement = record.placement;
      n += placement.name.length;
    }
    took = existence !== null || placement !== null;
  }
  const attrs: Array<readonly [string, ValueAtom[]]> = [];
  for (const name of [...record.attrs.keys()].sort(compareCodeUnits)) {
    if (at !== null && name < at[0]) continue;
    const atoms = record.attrs.get(name)!;
    const list: ValueAtom[] = [];
    let passed: string | null = null;
    for (const key of [...atoms.keys()].sort(compareCodeUnits)) {
      if (at !== null && name === at[0] && key < at[1]) continue;
      const atom = atoms.get(key)!;
      if (wanted(atom.stamp, fromUsn, utd)) {
        if (took && n >= bytesTarget) {
          if (list.length > 0) attrs.push([name, list]);
          const next = [name, passed === null ? "" : separator(passed, key)] as const;
          return finish(record, existence, placement, attrs, n - bytes, next);
        }
        if (list.length === 0) n += name.length;
        list.push(atom);
        n += atomBytes(atom);
        took = true;
      }
      passed = key;
    }
    if (list.length > 0) attrs.push([name, list]);
  }
  return finish(record, existence, placement, attrs, n - bytes, null);
}

/**
 * The shortest prefix of `next` above `last` (`last` < `next`): every key up to `last` sorts
 * below it, `next` and every key after it at or above it.
 */
export function separator(last: string, next: string): string {
  let i = 0;
  while (i < last.length && last.charCodeAt(i) === next.charCodeAt(i)) i++;
  return next.slice(0, i + 1);
}

function finish(
  record: ObjectRecord,
  existence: ObjectDelta["existence"],
  placement: ObjectDelta["placement"],
  attrs: ObjectDelta["attrs"],
  bytes: number,
  next: AtomCursor["next"] | null,
): DeltaPart {
  const empty = existence === null && placement === null && attrs.length === 0;
  return { delta: empty ? null : { id: record.id, existence, placement, attrs }, bytes, next };
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A delta's size on the wire, estimated (limits.batchBytesTarget): its values, meta and names
 * in UTF-16 code units (ASCII text encodes to as many bytes; the estimate only has to tell a
 * batch of large values from one of small ones) and a fixed share per atom and object for
 * stamps, GUIDs and punctuation.
 */
export function deltaBytes(delta: ObjectDelta): number {
  let n = objectOverheadBytes + (delta.placement?.name.length ?? 0);
  for (const [name, atoms] of delta.attrs) {
    n += name.length;
    for (const atom of atoms) n += atomBytes(atom);
  }
  return n;
}

/** One atom's estimated bytes: a caseless value counts twice (as itself and as its key). */
function atomBytes(atom: ValueAtom): number {
  let n = atomOverheadBytes + (atom.value?.length ?? 0) + (atom.key?.length ?? 0);
  if (atom.meta !== null) {
    for (const key of Object.keys(atom.meta)) {
      n += key.length;
      for (const v of atom.meta[key] ?? []) n += v.length + 3;
    }
  }
  return n;
}

/** Estimated bytes of one atom beyond its text (stamp tuple: two GUIDs and four numbers). */
const atomOverheadBytes = 120;
/** Estimated bytes of one object beyond its atoms (id, existence, placement tuples). */
const objectOverheadBytes = 400;
