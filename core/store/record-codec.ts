import { assert } from "../assert";
import type { Existence, Meta, ObjectRecord, Placement, Stage, ValueAtom } from "./record";
import { atomLife, atomMapKey } from "./record";
import type { Stamp } from "./stamp";

/** A stamp as JSON: version, atMs, origin, cert invocation, cert USN, local USN. */
export type StampTuple = [number, number, string, string, number, number];
/** The sixth element, the atom's life, is present only when it is not 1 (most atoms). */
export type AtomTuple =
  | [string | null, 0 | 1, string | null, Meta | null, StampTuple]
  | [string | null, 0 | 1, string | null, Meta | null, StampTuple, number];
/** Existence as JSON: stage, class id, class name, system flag, delete root, stamp. */
export type ExistenceTuple = [Stage, string, string, 0 | 1, string | null, StampTuple];
/** Placement as JSON: parent, stored name, stamp. */
export type PlacementTuple = [string | null, string, StampTuple];
interface RecordJson {
  i: string;
  e: ExistenceTuple;
  p: PlacementTuple;
  a: Record<string, AtomTuple[]>;
  u: number;
  h: 0 | 1;
}

/**
 * Compact JSON for a record: what the node persists per written object and what replication
 * carries. Decoding validates the shape; a malformed record is a bug or corruption and fails
 * an assertion (the WAL's checksums already cut torn tails).
 */
export function encodeRecord(record: ObjectRecord): string {
  const a: Record<string, AtomTuple[]> = {};
  for (const [name, atoms] of record.attrs) {
    const list: AtomTuple[] = [];
    for (const atom of atoms.values()) list.push(encodeAtom(atom));
    if (list.length > 0) a[name] = list;
  }
  const json: RecordJson = {
    i: record.id,
    e: encodeExistence(record.existence),
    p: encodePlacement(record.placement),
    a,
    u: record.usnChanged,
    h: record.hardened ? 1 : 0,
  };
  return JSON.stringify(json);
}

export function decodeRecord(text: string): ObjectRecord {
  const json = JSON.parse(text) as RecordJson;
  // Atoms written together share one stamp: decode each distinct stamp once (memory at boot).
  const shared: SharedStamps = { tuples: [], stamps: [] };
  assert(typeof json.i === "string" && Array.isArray(json.e) && Array.isArray(json.p), "record shape");
  const existence = decodeSharedExistence(shared, json.e);
  const placement = decodeSharedPlacement(shared, json.p);
  const attrs = new Map<string, Map<string, ValueAtom>>();
  for (const name of Object.keys(json.a)) {
    const atoms = new Map<string, ValueAtom>();
    for (const t of json.a[name] ?? []) {
      const atom = decodeAtom(shared, t);
      atoms.set(atomMapKey(atom.key), atom);
    }
    attrs.set(name, atoms);
  }
  return { id: json.i, existence, placement, attrs, usnChanged: json.u, hardened: json.h === 1 };
}

export function encodeExistence(e: Existence): ExistenceTuple {
  return [e.stage, e.classId, e.className, e.system ? 1 : 0, e.deleteRoot, encodeStamp(e.stamp)];
}

export function encodePlacement(p: Placement): PlacementTuple {
  return [p.parent, p.name, encodeStamp(p.stamp)];
}

/**
 * The parts of one object decoded outside a whole record (a replicated delta): they share
 * stamps as a record's parts do. One decoder per object, not per message.
 */
export class PartDecoder {
  private readonly shared: SharedStamps = { tuples: [], stamps: [] };

  existence(t: ExistenceTuple): Existence {
    return decodeSharedExistence(this.shared, t);
  }

  placement(t: PlacementTuple): Placement {
    return decodeSharedPlacement(this.shared, t);
  }

  atom(t: AtomTuple): ValueAtom {
    return decodeAtom(this.shared, t);
  }
}

function decodeSharedExistence(shared: SharedStamps, t: ExistenceTuple): Existence {
  assert(Array.isArray(t) && t.length === 6, "existence shape");
  return {
    stage: t[0],
    classId: intern(t[1]),
    className: t[2],
    system: t[3] === 1,
    deleteRoot: t[4],
    stamp: decodeSharedStamp(shared, t[5]),
  };
}

function decodeSharedPlacement(shared: SharedStamps, t: PlacementTuple): Placement {
  assert(Array.isArray(t) && t.length === 3, "placement shape");
  const parent = t[0] === null ? null : intern(t[0]);
  return { parent, name: t[1], stamp: decodeSharedStamp(shared, t[2]) };
}

/**
 * The stamps one record's decoding has made so far, by tuple. Module functions with this
 * context rather than closures made per record: under the simulator's transpiler every closure
 * creation also names the function (esbuild's keepNames), ~15 % of decoding a record.
 */
interface SharedStamps {
  readonly tuples: StampTuple[];
  readonly stamps: Stamp[];
}

function decodeSharedStamp(shared: SharedStamps, t: StampTuple): Stamp {
  const { tuples, stamps } = shared;
  for (let i = 0; i < tuples.length; i++) {
    if (sameStampTuple(tuples[i]!, t)) return stamps[i]!;
  }
  const stamp = decodeStampTuple(t);
  // A record with many distinct stamps (a large multi-valued attribute) keeps the scan short.
  if (tuples.length < stampsSharedMax) {
    tuples.push(t);
    stamps.push(stamp);
  }
  return stamp;
}

function decodeAtom(shared: SharedStamps, t: AtomTuple): ValueAtom {
  assert(Array.isArray(t) && (t.length === 5 || t.length === 6), "atom shape");
  // A set-key often equals its value (case-exact rules): hold one string, not two copies.
  const key = t[0] !== null && t[0] === t[2] ? t[2] : t[0];
  const atom: ValueAtom = {
    key,
    present: t[1] === 1,
    value: t[2],
    meta: t[3],
    stamp: decodeSharedStamp(shared, t[4]),
  };
  if (t.length === 6) {
    assert(Number.isSafeInteger(t[5]) && t[5] > 1, "atom life");
    return { ...atom, life: t[5] };
  }
  return atom;
}

/** Distinct stamps a record's decoding compares against (most records have one to three). */
const stampsSharedMax = 8;

function sameStampTuple(a: StampTuple, b: StampTuple): boolean {
  return (
    a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3] && a[4] === b[4] && a[5] === b[5]
  );
}

/**
 * Shared copies of the GUID strings that recur across records: stamp origins and invocations
 * (one invocation writes many objects), class ids and parents. Every decoded record would
 * otherwise hold its own copies (about 56 bytes each; a million-object boot holds them all).
 * Bounded: once full, further strings are simply not shared; the strings kept are small.
 */
const internedMax = 65_536;
const interned = new Map<string, string>();

function intern(s: string): string {
  const held = interned.get(s);
  if (held !== undefined) return held;
  if (interned.size < internedMax) interned.set(s, s);
  return s;
}

export function encodeStamp(s: Stamp): StampTuple {
  return [s.version, s.atMs, s.origin, s.cert.invocation, s.cert.usn, s.localUsn];
}

export function decodeStamp(t: StampTuple): Stamp {
  return decodeStampTuple(t);
}

function decodeStampTuple(t: StampTuple): Stamp {
  assert(Array.isArray(t) && t.length === 6, "stamp shape");
  const origin = intern(t[2]);
  const invocation = t[3] === t[2] ? origin : intern(t[3]);
  return { version: t[0], atMs: t[1], origin, cert: { invocation, usn: t[4] }, localUsn: t[5] };
}

export function encodeAtom(atom: ValueAtom): AtomTuple {
  const life = atomLife(atom);
  const base: AtomTuple = [atom.key, atom.present ? 1 : 0, atom.value, atom.meta, encodeStamp(atom.stamp)];
  return life === 1 ? base : [...base, life] as AtomTuple;
}


