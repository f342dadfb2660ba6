import { assert } from "../assert";
import type { Guid } from "../guid";
import { validateObjectName } from "../naming/object-name";
import type { Existence, ObjectRecord, Placement, ValueAtom } from "../store/record";
import { atomLife, atomMapKey, lifeOf } from "../store/record";
import { compareStamps, relocal } from "../store/stamp";
import { compareExistence } from "./merge-order";
import type { ObjectDelta } from "./object-delta";

export interface MergeOutcome {
  /**
   * The merged record, or null when the delta was refused: an unknown object without its
   * creation atoms, or a record whose class contradicts the one held (`discarded` says which).
   */
  readonly record: ObjectRecord | null;
  readonly changed: boolean;
  /** Human lines for the journal: incoming atoms that lost to what this node holds, or the refusal. */
  readonly discarded: string[];
}

/**
 * Merges one replicated delta into the local record, atom by atom, last writer wins on the
 * stamp order. Winning incoming atoms are re-indexed under `localUsn`. A shredded (or locally
 * hardened) record takes no values; a record that turns shredded drops every value atom.
 * Journal lines name atoms, never values (a shredded value must not survive in the journal).
 */
export function mergeRecord(
  local: ObjectRecord | undefined,
  delta: ObjectDelta,
  localUsn: number,
): MergeOutcome {
  const discarded: string[] = [];
  if (local === undefined && (delta.existence === null || delta.placement === null)) {
    return { record: null, changed: false, discarded: [`${delta.id}: unknown object without creation atoms`] };
  }
  // A class never changes, so no node makes such atoms: it is a GUID collision, a corrupted or
  // a buggy peer. Refused and journaled; the object stays as held (a peer must not crash us).
  if (local !== undefined && delta.existence !== null && delta.existence.classId !== local.existence.classId) {
    const refusal = `${delta.id}: record of class ${delta.existence.className} refused, held as ${local.existence.className}`;
    return { record: null, changed: false, discarded: [refusal] };
  }
  // Every stored name passed SPEC's naming rules where it was written; one that does not is a
  // corrupted or buggy peer's, and would break every path through the object.
  if (delta.placement !== null && !validateObjectName(delta.placement.name).ok) {
    return { record: null, changed: false, discarded: [`${delta.id}: record with an invalid name refused`] };
  }
  const existence = mergeExistence(local, delta.existence, localUsn, discarded, delta.id);
  const placement = mergePlacement(local?.placement ?? null, delta.placement, localUsn, discarded, delta.id);
  // A hardened skeleton that a valid restore brings back alive takes values again (the restore
  // re-originated them); while it stays a tombstone of the life that was hardened it takes none.
  // A later life's delete (restored and deleted again elsewhere) is not hardened here: its own
  // window runs from its own delete, and its values are the later life's (keeping the flag made
  // this node refuse a restore in that window and drop values every other node holds).
  const hardened =
    local !== undefined &&
    local.hardened &&
    existence.value.stage !== "alive" &&
    lifeOf(existence.value) === lifeOf(local.existence);
  const erased = existence.value.stage === "shredded" || hardened;
  // Value atoms a shred or a hardened tombstone drops on arrival were written where the object
  // still held values: discarded concurrent input, journaled as such (counted, never shown).
  if (erased) {
    let dropped = 0;
    for (const [, atoms] of delta.attrs) dropped += atoms.length;
    const why = existence.value.stage === "shredded" ? "the object is shredded" : "its tombstone is hardened";
    if (dropped > 0) discarded.push(`${delta.id}: ${dropped} value atoms dropped: ${why}`);
  }
  const attrs = erased
    ? { value: new Map<string, Map<string, ValueAtom>>(), changed: (local?.attrs.size ?? 0) > 0 }
    : mergeAttrs(local?.attrs, delta.attrs, localUsn, discarded, delta.id, lifeOf(existence.value));
  const changed = existence.changed || placement.changed || attrs.changed;
  if (!changed && local !== undefined) return { record: local, changed: false, discarded };
  const record: ObjectRecord = {
    id: delta.id,
    existence: existence.value,
    placement: placement.value,
    attrs: attrs.value,
    usnChanged: localUsn,
    hardened,
  };
  return { record, changed: true, discarded };
}

function mergeExistence(
  local: ObjectRecord | undefined,
  incoming: Existence | null,
  localUsn: number,
  discarded: string[],
  id: Guid,
): { value: Existence; changed: boolean } {
  const held = local?.existence ?? null;
  if (incoming === null) {
    assert(held !== null, "an unknown object arrives with its existence atom");
    return { value: held, changed: false };
  }
  assert(held === null || held.classId === incoming.classId, `class of ${id} is immutable (mergeRecord refuses others)`);
  if (held === null || compareExistence(incoming, held) > 0) {
    return { value: { ...incoming, stamp: relocal(incoming.stamp, localUsn) }, changed: true };
  }
  if (compareExistence(incoming, held) < 0) discarded.push(`${id}: existence ${incoming.stage} lost`);
  return { value: held, changed: false };
}

function mergePlacement(
  held: Placement | null,
  incoming: Placement | null,
  localUsn: number,
  discarded: string[],
  id: Guid,
): { value: Placement; changed: boolean } {
  if (incoming === null) {
    assert(held !== null, "an unknown object arrives with its placement atom");
    return { value: held, changed: false };
  }
  if (held === null || compareStamps(incoming.stamp, held.stamp) > 0) {
    return { value: { ...incoming, stamp: relocal(incoming.stamp, localUsn) }, changed: true };
  }
  if (compareStamps(incoming.stamp, held.stamp) < 0) discarded.push(`${id}: placement lost`);
  return { value: held, changed: false };
}

/**
 * Whether the incoming atoms carry `atom`'s content (presence, value, meta) under its key into
 * `life`. `index` holds the incoming atoms of that life by attribute and key, built on first use.
 */
function reoriginated(
  incoming: ReadonlyArray<readonly [string, readonly ValueAtom[]]>,
  index: { byKey: Map<string, Map<string, ValueAtom>> | null },
  name: string,
  atom: ValueAtom,
  life: number,
): boolean {
  if (index.byKey === null) {
    index.byKey = new Map();
    for (const [incomingName, atoms] of incoming) {
      const keyed = new Map<string, ValueAtom>();
      for (const a of atoms) if (atomLife(a) >= life) keyed.set(atomMapKey(a.key), a);
      index.byKey.set(incomingName, keyed);
    }
  }
  const carried = index.byKey.get(name)?.get(atomMapKey(atom.key));
  if (carried === undefined || carried.present !== atom.present || carried.value !== atom.value) return false;
  return JSON.stringify(carried.meta) === JSON.stringify(atom.meta);
}

/**
 * The merge order of two atoms under one key: the later life first (a restore re-originated
 * the key into its life, and a stale node of the ended life may have written the key more
 * often, reaching a higher version), then the stamp order.
 */
function compareAtoms(a: ValueAtom, b: ValueAtom): number {
  const lives = atomLife(a) - atomLife(b);
  return lives !== 0 ? lives : compareStamps(a.stamp, b.stamp);
}

/**
 * Per-atom last writer wins among the atoms of the object's current life. A restore begins a
 * new life and re-originates what the restorer held; atoms of an ended life (held, or arriving
 * late from a node that wrote while it still saw the object alive) are superseded by it. The
 * rule depends on the atoms alone, so every node keeps the same set, whether or not it hardened
 * the tombstone before the restore arrived.
 */
function mergeAttrs(
  held: ReadonlyMap<string, ReadonlyMap<string, ValueAtom>> | undefined,
  incoming: ReadonlyArray<readonly [string, readonly ValueAtom[]]>,
  localUsn: number,
  discarded: string[],
  id: Guid,
  life: number,
): { value: Map<string, Map<string, ValueAtom>>; changed: boolean } {
  const out = new Map<string, Map<string, ValueAtom>>();
  let changed = false;
  let ended = 0;
  let lost = 0;
  const index = { byKey: null as Map<string, Map<string, ValueAtom>> | null };
  for (const [name, atoms] of held ?? []) {
    const kept = new Map<string, ValueAtom>();
    for (const [mapKey, atom] of atoms) {
      if (atomLife(atom) >= life) kept.set(mapKey, atom);
      else {
        ended++;
        if (!reoriginated(incoming, index, name, atom, life)) lost++;
      }
    }
    if (kept.size > 0) out.set(name, kept);
  }
  if (ended > 0) changed = true;
  // Only what the restore did not carry into its life was discarded: the atoms it
  // re-originated come back with the same content (every node merging a plain restore
  // journaled them as discarded; journal audit, twenty-fifth session).
  if (lost > 0) discarded.push(`${id}: ${lost} held value atoms of an ended life superseded by a restore`);
  for (const [name, atoms] of incoming) {
    let map = out.get(name);
    for (const atom of atoms) {
      if (atomLife(atom) < life) {
        discarded.push(`${id}: ${name} value atom of an ended life superseded by a restore`);
        continue;
      }
      const mapKey = atomMapKey(atom.key);
      const current = map?.get(mapKey);
      const order = current === undefined ? 1 : compareAtoms(atom, current);
      if (order > 0) {
        if (map === undefined) out.set(name, (map = new Map()));
        map.set(mapKey, { ...atom, stamp: relocal(atom.stamp, localUsn) });
        changed = true;
      } else if (order < 0) {
        discarded.push(`${id}: ${name} value atom lost`);
      }
    }
  }
  return { value: out, changed };
}
