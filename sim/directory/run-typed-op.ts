import type { Result } from "../../core/errors";
import { ok } from "../../core/errors";
import type { Guid } from "../../core/guid";
import type { AttributeDef } from "../../core/schema";
import { surfaceOf } from "../../core/schema/surface";
import type { Meta } from "../../core/store/record";
import { presentValues } from "../../core/store/record";
import { matchKey, type Syntax } from "../../core/syntax";
import type { DirectoryOp } from "./directory-op";
import type { Picker } from "./run-op";
import { at, attached, byId, define, namespaced } from "./run-schema-op";
import { typedValue } from "./typed-values";

/**
 * The workload's typed values (workload.ts `typedValueKinds`). `typedAttribute` defines a
 * namespaced attribute of any syntax, single- or multi-valued, caseless or exact, whose
 * legalMeta names attributes the node's compiled schema holds (base `expiry` or namespaced
 * ones). Two nodes may define one name with different bodies concurrently: the lowest id wins
 * everywhere and values written under the other body stay. `typedWrite` writes one value to a
 * namespaced attribute on an object's surface: a single-valued attribute is set (or cleared),
 * a multi-valued one gains the value or loses it (`remove`), the other values keep their meta;
 * the value carries meta for one of the attribute's legal meta keys when `metaPick` is drawn.
 * Picks index the node's own sorted lists, so an op is a function of the node's state.
 */
type TypedOp = Extract<DirectoryOp, { kind: "typedAttribute" | "typedWrite" }>;

export function runTyped(p: Picker, op: TypedOp, nowMs: number): Result<unknown> {
  const node = p.node;
  const schema = node.dir.schema;
  switch (op.kind) {
    case "typedAttribute": {
      const candidates = byId([
        ...schema.attributes.filter((a) => a.name === "expiry"),
        ...namespaced(schema.attributes),
      ]);
      const legalMeta = [...new Set(op.metaPicks.flatMap((pick) => at(candidates, pick)?.id ?? []))];
      const body: Record<string, string[]> = {
        syntax: [op.syntax],
        singleValued: [String(op.singleValued)],
        matching: [op.matching],
      };
      if (legalMeta.length > 0) body["legalMeta"] = legalMeta;
      return define(node, { namespace: op.namespace, name: op.name }, "attributeDefinition", body, nowMs);
    }
    case "typedWrite": {
      const target = p.aliveWork(op.pick);
      if (target === undefined) return ok(null);
      const surface = surfaceOf(schema, target.existence.className, attached(target) as Guid[]);
      const permitted = [...surface.attributes].filter((name) => name.includes("-")).sort();
      const attr = at(permitted, op.attributePick);
      const def = attr === undefined ? undefined : schema.attribute(attr);
      if (def === undefined) return ok(null);
      const value = valueOf(p, def.syntax, op.valuePick);
      if (value === null) return ok(null);
      const meta = metaOf(p, def, op);
      const held = presentValues(target, def.name).flatMap((a) =>
        a.value === null ? [] : [a.meta === null ? { value: a.value } : { value: a.value, meta: a.meta }],
      );
      const written = meta === null ? { value } : { value, meta };
      let values: { value: string; meta?: Meta }[];
      if (def.singleValued) {
        values = op.remove ? [] : [written];
      } else {
        const key = matchKey(def.matching, value);
        const others = held.filter((v) => matchKey(def.matching, v.value) !== key);
        values = op.remove ? others : [...others, written];
      }
      return node.putAttributeQuiet(target.id, def.name, values, nowMs);
    }
  }
}

/** A value of `syntax`: from the pool, or (reference) the GUID of an alive object the node picks. */
function valueOf(p: Picker, syntax: Syntax, pick: number): string | null {
  return syntax === "reference" ? (p.aliveWork(pick)?.id ?? null) : typedValue(syntax, pick);
}

function metaOf(p: Picker, def: AttributeDef, op: Extract<TypedOp, { kind: "typedWrite" }>): Meta | null {
  if (op.metaPick === null) return null;
  const key = at([...def.legalMeta].sort(), op.metaPick);
  const metaDef = key === undefined ? undefined : p.node.dir.schema.attribute(key);
  if (metaDef === undefined) return null;
  const value = valueOf(p, metaDef.syntax, op.metaValuePick);
  return value === null ? null : { [metaDef.name]: [value] };
}
