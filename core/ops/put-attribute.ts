import type { Directory } from "../directory";
import { definitionClasses } from "../directory";
import { ok, refuse } from "../errors";
import type { Result } from "../errors";
import type { Guid } from "../guid";
import type { ObjectRecord } from "../store/record";
import { lifeOf } from "../store/record";
import { fold } from "../naming";
import { requireWritable } from "./gates";
import type { ValueInput } from "./normalize-values";
import { prepareAttributes } from "./prepare-attributes";
import { replaceValues } from "./replace-values";

/**
 * Replaces one attribute's values wholesale (an empty list deletes the attribute). Precedence:
 * target gate, schema-definition-immutable, then the attribute refusals of prepareAttributes.
 * Rewriting unchanged values writes nothing and allocates no USN.
 */
export function putAttribute(
  dir: Directory,
  id: Guid,
  attrName: string,
  values: readonly ValueInput[],
  atMs: number,
): Result<null> {
  const target = requireWritable(dir, id);
  if (!target.ok) return target;
  const record = target.value;
  if (definitionClasses.has(record.existence.className)) {
    return refuse("schema-definition-immutable", "schema definitions are add/delete only");
  }
  const prepared = prepareAttributes(dir, record.existence.className, record, [[attrName, values]]);
  if (!prepared.ok) return prepared;
  const [write] = prepared.value;
  if (write === undefined) return ok(null);
  let usn = 0;
  const stamp = (previous: Parameters<Directory["stamp"]>[0]) => {
    if (usn === 0) usn = dir.allocateUsn();
    return dir.stamp(previous, atMs, usn);
  };
  const life = lifeOf(record.existence);
  const result = replaceValues(record.attrs.get(write.attr.name), write.values, stamp, life);
  const attrs = new Map(record.attrs);
  let changed = result.changed;
  if (result.changed) attrs.set(write.attr.name, result.atoms);
  // Values stored under another casing of the name (one wire name defined in two casings on
  // two nodes at once; the lowest id won) render as this attribute's, so they are replaced
  // with it: a PUT of [] left them for good (merge audit, twenty-seventh session).
  const folded = fold(write.attr.name);
  for (const [stored, atoms] of record.attrs) {
    if (stored === write.attr.name || fold(stored) !== folded) continue;
    const twin = replaceValues(atoms, [], stamp, life);
    if (!twin.changed) continue;
    attrs.set(stored, twin.atoms);
    changed = true;
  }
  if (!changed) return ok(null);
  const next: ObjectRecord = { ...record, attrs, usnChanged: usn };
  dir.write(next);
  return ok(null);
}
