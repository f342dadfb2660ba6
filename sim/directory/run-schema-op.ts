import type { Result } from "../../core/errors";
import { ok } from "../../core/errors";
import type { Guid } from "../../core/guid";
import { fold } from "../../core/naming";
import type { DirectoryNode } from "../../core/node/directory-node";
import { attachedFacetsAttribute, surfaceOf } from "../../core/schema/surface";
import type { ObjectRecord } from "../../core/store/record";
import { presentValues } from "../../core/store/record";
import type { DirectoryOp } from "./directory-op";
import type { Picker } from "./run-op";

/**
 * The workload's schema ops: attribute definitions (`schema`), and schema life (workload.ts
 * `schemaLifeKinds`): facets, classes and extensions defined over what the node's compiled
 * schema holds, instances of namespaced classes (ghosts on nodes the class has not reached),
 * namespaced facets attached to and detached from objects, namespaced attributes written where
 * the object's surface permits them, namespaced definitions deleted or shredded (refused while in use
 * here; concurrent use elsewhere is the point) and deleted ones restored (refused when they
 * would not compile; a restored class lifts its instances' ghost flag). Picks index the node's own lists, sorted by
 * id, so an op is a function of the node's state, as every workload op is.
 */
type SchemaLifeOp = Extract<
  DirectoryOp,
  { kind: "facet" | "class" | "extension" | "instance" | "attach" | "custom" | "undefine" | "redefine" }
>;


/** Base classes an extension may target besides namespaced ones (the workload's own). */
const extensibleBaseClasses = ["organizationalUnit", "user", "group"];

export function byId<T extends { readonly id: Guid }>(list: readonly T[]): T[] {
  return [...list].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Namespaced definitions (wire names `<Namespace>-<name>`; base names have no hyphen). */
export function namespaced<T extends { readonly id: Guid; readonly name: string }>(list: readonly T[]): T[] {
  return byId(list.filter((d) => d.name.includes("-")));
}

export function at<T>(list: readonly T[], pick: number): T | undefined {
  return list.length === 0 ? undefined : list[pick % list.length];
}

/** The namespace called `name` directly under /Configuration/Schema, created when missing. */
function namespaceFor(node: DirectoryNode, name: string, nowMs: number): Result<ObjectRecord | undefined> {
  const schemaId = node.dir.landmarks()?.schema;
  if (schemaId === null || schemaId === undefined) return ok(undefined);
  // Namespaces live directly under /Configuration/Schema (definitions never move): the
  // name index finds one without scanning the store (a scan per schema op was O(directory)).
  let ns: ObjectRecord | undefined;
  for (const id of node.dir.store.aliveNamed(schemaId, fold(name))) {
    const r = node.dir.get(id);
    if (r?.existence.className === "schemaNamespace" && r.placement.name === name) {
      if (ns === undefined || r.id < ns.id) ns = r;
    }
  }
  if (ns !== undefined) return ok(ns);
  const made = node.createQuiet({ parent: schemaId, name, className: "schemaNamespace" }, nowMs);
  return made.ok ? ok(node.dir.get(made.value)) : made;
}

/** A definition named `op.name` in `op.namespace` of `className`, with `attributes`. */
export function define(
  node: DirectoryNode,
  op: { readonly namespace: string; readonly name: string },
  className: string,
  attributes: Record<string, string[]>,
  nowMs: number,
): Result<unknown> {
  const ns = namespaceFor(node, op.namespace, nowMs);
  if (!ns.ok) return ns;
  if (ns.value === undefined) return ok(null);
  return node.createQuiet(
    { parent: ns.value.id, name: op.name, className, attributes: { ...attributes, lifecycle: ["active"], system: ["false"] } },
    nowMs,
  );
}

/** Defines a namespaced attribute (creating the namespace when missing). */
export function runSchema(
  p: Picker,
  op: Extract<DirectoryOp, { kind: "schema" }>,
  nowMs: number,
): Result<unknown> {
  const attribute = { syntax: ["string"], singleValued: ["true"], matching: ["caseless"] };
  return define(p.node, { namespace: op.namespace, name: op.attribute }, "attributeDefinition", attribute, nowMs);
}

export function runSchemaLife(p: Picker, op: SchemaLifeOp, nowMs: number): Result<unknown> {
  const node = p.node;
  const schema = node.dir.schema;
  const none = (): Result<unknown> => ok(null);
  switch (op.kind) {
    case "facet": {
      const attributes = namespaced(schema.attributes);
      if (attributes.length === 0) return none();
      const ids = new Set(op.attributePicks.map((pick) => attributes[pick % attributes.length]!.id));
      return define(node, op, "facetDefinition", { attributes: [...ids] }, nowMs);
    }
    case "class": {
      const described = schema.facet("described");
      if (described === undefined) return none();
      const own = op.facetPick === null ? undefined : at(namespaced(schema.facets), op.facetPick);
      const facets = own === undefined ? [described.id] : [described.id, own.id];
      return define(node, op, "classDefinition", { dnPrefix: ["CN"], facets }, nowMs);
    }
    case "extension": {
      const facet = at(namespaced(schema.facets), op.facetPick);
      const targets = byId([
        ...extensibleBaseClasses.flatMap((name) => schema.class(name) ?? []),
        ...namespaced(schema.classes).filter((c) => c.instantiable),
      ]);
      const target = at(targets, op.targetPick);
      if (facet === undefined || target === undefined) return none();
      return define(node, op, "classExtension", { targetClass: [target.id], facets: [facet.id] }, nowMs);
    }
    case "instance": {
      const parent = p.container(op.pick);
      const cls = at(namespaced(schema.classes).filter((c) => c.instantiable), op.classPick);
      if (parent === undefined || cls === undefined) return none();
      return node.createQuiet({ parent: parent.id, name: op.name, className: cls.name }, nowMs);
    }
    case "attach": {
      const target = p.aliveWork(op.pick);
      const facet = at(namespaced(schema.facets), op.facetPick);
      if (target === undefined || facet === undefined) return none();
      const current = attached(target);
      if (current.includes(facet.id) === op.add) return none();
      const next = op.add ? [...current, facet.id] : current.filter((id) => id !== facet.id);
      return node.putAttributeQuiet(target.id, attachedFacetsAttribute, next, nowMs);
    }
    case "custom": {
      const target = p.aliveWork(op.pick);
      if (target === undefined) return none();
      const surface = surfaceOf(schema, target.existence.className, attached(target) as Guid[]);
      const permitted = [...surface.attributes].filter((name) => name.includes("-")).sort();
      const attribute = at(permitted, op.attributePick);
      if (attribute === undefined) return none();
      return node.putAttributeQuiet(target.id, attribute, [op.value], nowMs);
    }
    case "undefine": {
      const definitions = byId([
        ...namespaced(schema.attributes),
        ...namespaced(schema.facets),
        ...namespaced(schema.classes),
        ...namespaced(schema.extensions),
      ]);
      const target = at(definitions, op.pick);
      if (target === undefined) return none();
      return op.shred ? node.shred(target.id, nowMs) : node.delete(target.id, nowMs);
    }
    case "redefine": {
      // Deleted definitions keep their place in their namespace (definitions never move).
      const deleted = byId(
        schema.namespaces.flatMap((ns) =>
          node.dir.store.childIds(ns.id).flatMap((id) => {
            const r = node.dir.get(id);
            return r !== undefined && r.existence.stage === "deleted" ? [r] : [];
          }),
        ),
      );
      const target = at(deleted, op.pick);
      return target === undefined ? none() : node.restoreQuiet(target.id, nowMs);
    }
  }
}

export function attached(record: ObjectRecord): string[] {
  return presentValues(record, attachedFacetsAttribute).flatMap((a) => (a.value === null ? [] : [a.value]));
}
