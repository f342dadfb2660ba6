import { assert } from "../assert";
import type { Directory } from "../directory";
import type { Guid } from "../guid";
import type { ObjectRecord, ValueAtom } from "../store/record";
import { atomMapKey } from "../store/record";
import type { NormalizedValue } from "./normalize-values";

export interface NewObject {
  readonly id: Guid;
  readonly parent: Guid | null;
  readonly name: string;
  readonly classId: Guid;
  readonly className: string;
  readonly system: boolean;
  readonly attributes: ReadonlyArray<readonly [string, readonly NormalizedValue[]]>;
}

/** Writes a validated new object as one originating write: every atom at version 1. */
export function writeNewObject(dir: Directory, obj: NewObject, atMs: number): ObjectRecord {
  assert(dir.get(obj.id) === undefined, `object ${obj.id} is new`);
  const usn = dir.allocateUsn();
  const stamp = dir.stamp(null, atMs, usn);
  const attrs = new Map<string, Map<string, ValueAtom>>();
  for (const [name, values] of obj.attributes) {
    if (values.length === 0) continue;
    const atoms = new Map<string, ValueAtom>();
    for (const v of values) {
      atoms.set(atomMapKey(v.key), { key: v.key, present: true, value: v.value, meta: v.meta, stamp });
    }
    attrs.set(name, atoms);
  }
  const record: ObjectRecord = {
    id: obj.id,
    existence: {
      stage: "alive",
      classId: obj.classId,
      className: obj.className,
      system: obj.system,
      deleteRoot: null,
      stamp,
    },
    placement: { parent: obj.parent, name: obj.name, stamp },
    attrs,
    usnChanged: usn,
    hardened: false,
  };
  dir.write(record);
  return record;
}
