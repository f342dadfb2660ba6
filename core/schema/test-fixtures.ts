import { assert } from "../assert";
import type { Guid } from "../guid";
import { baseDefinitionObjects } from "./base-schema";
import type { DefinitionInput, DefinitionValue } from "./definition-input";

/**
 * Shared fixtures for the schema tests (imported by *.test.ts only): a counting GUID minter,
 * the base schema as compiler input, and builders for namespaced definitions.
 */
export function countingMinter(prefix = "00000000"): () => Guid {
  let n = 0;
  return () => {
    n += 1;
    assert(/^[0-9a-f]{8}$/.test(prefix), "prefix is 8 hex digits");
    return `${prefix}-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
  };
}

/** A fixed GUID from a small number, in a range the counting minter does not use. */
export function gid(n: number): Guid {
  return `ffffffff-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
}

export type BaseInput = { defs: DefinitionInput[]; idOf: (name: string) => Guid };

export function baseInput(): BaseInput {
  const objects = baseDefinitionObjects(countingMinter());
  const defs = objects.map((o) => ({ ...o, namespaceId: null, alive: true }));
  const ids = new Map(objects.map((o) => [o.name, o.id]));
  return {
    defs,
    idOf: (name) => {
      const id = ids.get(name);
      assert(id !== undefined, `base definition ${name}`);
      return id;
    },
  };
}

type Values = Record<string, DefinitionValue[]>;

const born: Values = { lifecycle: [{ value: "active" }], system: [{ value: "false" }] };

function def(
  id: Guid,
  className: string,
  name: string,
  namespaceId: Guid | null,
  values: Values,
): DefinitionInput {
  return { id, className, name, namespaceId, alive: true, values };
}

export function namespaceDef(id: Guid, name: string): DefinitionInput {
  return def(id, "schemaNamespace", name, null, {});
}

export function attributeDef(
  id: Guid,
  ns: Guid | null,
  name: string,
  opts: { syntax?: string; single?: boolean; legalMeta?: Guid[]; aliases?: string[] } = {},
): DefinitionInput {
  const values: Values = {
    ...born,
    syntax: [{ value: opts.syntax ?? "string" }],
    singleValued: [{ value: String(opts.single ?? true) }],
    matching: [{ value: "caseless" }],
  };
  if (opts.legalMeta) values["legalMeta"] = opts.legalMeta.map((value) => ({ value }));
  if (opts.aliases) values["aliases"] = opts.aliases.map((value) => ({ value }));
  return def(id, "attributeDefinition", name, ns, values);
}

export function facetDef(
  id: Guid,
  ns: Guid | null,
  name: string,
  members: { id: Guid; required?: boolean }[],
): DefinitionInput {
  const attributes = members.map((m) =>
    m.required ? { value: m.id, meta: { required: ["true"] } } : { value: m.id },
  );
  return def(id, "facetDefinition", name, ns, { ...born, attributes });
}

export function classDef(
  id: Guid,
  ns: Guid | null,
  name: string,
  facets: Guid[],
  opts: { dnPrefix?: string | null; instantiable?: boolean } = {},
): DefinitionInput {
  const values: Values = { ...born, facets: facets.map((value) => ({ value })) };
  const dnPrefix = opts.dnPrefix === undefined ? "CN" : opts.dnPrefix;
  if (dnPrefix !== null) values["dnPrefix"] = [{ value: dnPrefix }];
  if (opts.instantiable !== undefined) {
    values["instantiable"] = [{ value: String(opts.instantiable) }];
  }
  return def(id, "classDefinition", name, ns, values);
}

export function extensionDef(
  id: Guid,
  ns: Guid | null,
  name: string,
  targetClass: Guid,
  facets: Guid[],
): DefinitionInput {
  const values: Values = {
    ...born,
    targetClass: [{ value: targetClass }],
    facets: facets.map((value) => ({ value })),
  };
  return def(id, "classExtension", name, ns, values);
}

export function tombstone(d: DefinitionInput): DefinitionInput {
  return { ...d, alive: false };
}
