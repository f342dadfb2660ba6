import type { Directory } from "../directory";
import { definitionClasses } from "../directory";
import { ok, refuse } from "../errors";
import type { Result } from "../errors";
import type { Guid } from "../guid";
import { validateObjectName } from "../naming";
import type { ClassDef } from "../schema";
import { requireWritable } from "./gates";
import type { ValueInput } from "./normalize-values";
import { prepareAttributes } from "./prepare-attributes";
import { checkSchemaPlacement } from "./schema-placement";
import { trialCompile } from "./trial-compile";
import { writeNewObject } from "./write-new-object";
import { EffectiveView } from "../view/effective-view";

export interface CreateRequest {
  readonly parent: Guid;
  readonly name: unknown;
  readonly className: unknown;
  readonly attributes?: Readonly<Record<string, readonly ValueInput[]>> | undefined;
}

/**
 * Creates one object with its attributes applied atomically. Refusal precedence: the parent
 * gate (rollback-quarantine, no-such-object, already-deleted, ghost-object), invalid-name,
 * unknown-class, class-not-instantiable, invalid-schema-placement (and definition-name
 * grammar as invalid-name), name-in-use, attribute refusals, schema-violation.
 */
export function createObject(dir: Directory, req: CreateRequest, atMs: number): Result<Guid> {
  const parent = requireWritable(dir, req.parent);
  if (!parent.ok) return parent;
  const name = validateObjectName(req.name);
  if (!name.ok) return name;
  const cls = resolveInstantiableClass(dir, req.className);
  if (!cls.ok) return cls;
  const placed = checkSchemaPlacement(dir, req.parent, cls.value.name, name.value);
  if (!placed.ok) return placed;
  if (new EffectiveView(dir).nameTaken(req.parent, name.value, null)) {
    return refuse("name-in-use", `a sibling named ${name.value} already exists`);
  }
  const writes = Object.entries(req.attributes ?? {});
  const prepared = prepareAttributes(dir, cls.value.name, null, writes);
  if (!prepared.ok) return prepared;
  const id = dir.mintGuid();
  const attributes = prepared.value.map((p) => [p.attr.name, p.values] as const);
  if (definitionClasses.has(cls.value.name)) {
    const trial = trialCompile(dir, {
      id,
      className: cls.value.name,
      name: name.value,
      parent: req.parent,
      attributes,
    });
    if (!trial.ok) return trial;
  }
  writeNewObject(
    dir,
    {
      id,
      parent: req.parent,
      name: name.value,
      classId: cls.value.id,
      className: cls.value.name,
      system: false,
      attributes,
    },
    atMs,
  );
  dir.refreshSchema();
  return ok(id);
}

function resolveInstantiableClass(dir: Directory, className: unknown): Result<ClassDef> {
  if (typeof className !== "string") return refuse("unknown-class", "class must be a string");
  const cls = dir.schema.class(className);
  if (cls === undefined) return refuse("unknown-class", `no class named ${className}`);
  if (!cls.instantiable) {
    return refuse("class-not-instantiable", `class ${cls.name} is not instantiable`);
  }
  return ok(cls);
}
