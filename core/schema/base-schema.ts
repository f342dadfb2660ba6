import { assert } from "../assert";
import type { Guid } from "../guid";
import type { Matching, Syntax } from "../syntax";
import type { DefinitionValue } from "./definition-input";

/**
 * SPEC "Base schema" as data: 26 attributes, 11 facets, 11 classes, in the table order of the
 * SPEC. The tables are the single source of truth; `baseDefinitionObjects` turns them into the
 * 48 definition objects a new domain writes under /Configuration/Schema, and the compiler uses
 * the name lists to keep the unprefixed definition space reserved for them.
 */
export type BaseAttribute = {
  readonly name: string;
  readonly syntax: Syntax;
  readonly singleValued: boolean;
  readonly matching: Matching;
  readonly aliases: readonly string[];
  readonly legalMeta: readonly string[];
};

export type BaseFacet = {
  readonly name: string;
  readonly attributes: readonly { readonly name: string; readonly required: boolean }[];
};

export type BaseClass = {
  readonly name: string;
  /** null only for domainRoot, which never appears in a DN. */
  readonly dnPrefix: string | null;
  readonly instantiable: boolean;
  readonly facets: readonly string[];
};

function attr(
  name: string,
  syntax: Syntax,
  values: "single" | "multi",
  matching: Matching,
  aliases: readonly string[] = [],
  legalMeta: readonly string[] = [],
): BaseAttribute {
  return { name, syntax, singleValued: values === "single", matching, aliases, legalMeta };
}

export const baseAttributes: readonly BaseAttribute[] = [
  attr("description", "string", "multi", "caseless"),
  attr("displayName", "string", "single", "caseless"),
  attr("givenName", "string", "single", "caseless"),
  attr("surname", "string", "single", "caseless", ["sn"]),
  attr("email", "string", "multi", "caseless", ["mail"]),
  attr("sid", "string", "single", "exact", ["objectSid"]),
  attr("member", "reference", "multi", "exact", [], ["expiry"]),
  attr("expiry", "timestamp", "single", "exact"),
  attr("syntax", "string", "single", "caseless"),
  attr("singleValued", "boolean", "single", "exact"),
  attr("matching", "string", "single", "caseless"),
  attr("legalMeta", "reference", "multi", "exact"),
  attr("aliases", "string", "multi", "caseless"),
  attr("lifecycle", "string", "single", "caseless"),
  attr("system", "boolean", "single", "exact"),
  attr("attributes", "reference", "multi", "exact", [], ["required"]),
  attr("required", "boolean", "single", "exact"),
  attr("facets", "reference", "multi", "exact"),
  attr("attachedFacets", "reference", "multi", "exact"),
  attr("dnPrefix", "string", "single", "caseless"),
  attr("targetClass", "reference", "single", "exact"),
  attr("instantiable", "boolean", "single", "exact"),
  attr("maxTimeApart", "integer", "single", "exact"),
  attr("timeUntilShred", "integer", "single", "exact"),
  attr("networkAddress", "endpoint", "multi", "caseless"),
  attr("machineKey", "publicKey", "multi", "exact"),
];

/** A facet member; a trailing "*" in the SPEC table marks it required. */
function facet(name: string, members: readonly string[]): BaseFacet {
  const attributes = members.map((m) =>
    m.endsWith("*") ? { name: m.slice(0, -1), required: true } : { name: m, required: false },
  );
  return { name, attributes };
}

export const baseFacets: readonly BaseFacet[] = [
  facet("described", ["description", "displayName"]),
  facet("person", ["givenName", "surname", "email"]),
  facet("securityPrincipal", ["sid*"]),
  facet("membership", ["member"]),
  facet("schemaDefinition", ["aliases", "lifecycle*", "system*"]),
  facet("attributeSchema", ["syntax*", "singleValued*", "matching*", "legalMeta"]),
  facet("facetSchema", ["attributes"]),
  facet("classSchema", ["facets", "dnPrefix", "instantiable"]),
  facet("extensionSchema", ["targetClass*", "facets*"]),
  facet("replicationConfig", ["maxTimeApart", "timeUntilShred"]),
  facet("machine", ["networkAddress", "machineKey"]),
];

function cls(
  name: string,
  dnPrefix: string | null,
  instantiable: boolean,
  facets: readonly string[],
): BaseClass {
  return { name, dnPrefix, instantiable, facets };
}

export const baseClasses: readonly BaseClass[] = [
  cls("domainRoot", null, false, ["described"]),
  cls("organizationalUnit", "OU", true, ["described"]),
  cls("user", "CN", true, ["described", "person", "securityPrincipal"]),
  cls("group", "CN", true, ["described", "securityPrincipal", "membership"]),
  cls("attributeDefinition", "CN", true, ["described", "schemaDefinition", "attributeSchema"]),
  cls("facetDefinition", "CN", true, ["described", "schemaDefinition", "facetSchema"]),
  cls("classDefinition", "CN", true, ["described", "schemaDefinition", "classSchema"]),
  cls("schemaNamespace", "OU", true, ["described"]),
  cls("classExtension", "CN", true, ["described", "schemaDefinition", "extensionSchema"]),
  cls("configuration", "CN", false, ["described", "replicationConfig"]),
  cls("computer", "CN", true, ["described", "machine"]),
];

/** The class names of definition objects (SPEC "What the service does": the schema kinds). */
export const definitionClassNames = {
  attribute: "attributeDefinition",
  facet: "facetDefinition",
  class: "classDefinition",
  extension: "classExtension",
  namespace: "schemaNamespace",
} as const;

/**
 * The lifecycle every definition is born with. SPEC requires the attribute but names no values;
 * "active" is the only one the compiler accepts, leaving room for later values (say, a defunct
 * marker) without reinterpreting stored data.
 */
export const activeLifecycle = "active";

export type BaseDefinitionObject = {
  readonly id: Guid;
  readonly className: string;
  readonly name: string;
  readonly values: Record<string, DefinitionValue[]>;
};

/**
 * The 48 base definitions as objects ready to be written flat under /Configuration/Schema as
 * ordinary originating writes. GUIDs come from the caller's minter (SPEC: no well-known GUIDs),
 * in table order: attributes, then facets, then classes, so equal minters give equal domains.
 */
export function baseDefinitionObjects(mint: () => Guid): BaseDefinitionObject[] {
  const attributeIds = mintAll(baseAttributes, mint);
  const facetIds = mintAll(baseFacets, mint);
  const classIds = mintAll(baseClasses, mint);
  const ref = (ids: ReadonlyMap<string, Guid>, name: string): Guid => {
    const id = ids.get(name);
    assert(id !== undefined, `base table refers to unknown definition ${name}`);
    return id;
  };
  const objects: BaseDefinitionObject[] = [];
  for (const a of baseAttributes) {
    const values = definitionValues();
    values["syntax"] = [{ value: a.syntax }];
    values["singleValued"] = [{ value: String(a.singleValued) }];
    values["matching"] = [{ value: a.matching }];
    if (a.aliases.length > 0) values["aliases"] = a.aliases.map((value) => ({ value }));
    if (a.legalMeta.length > 0) {
      values["legalMeta"] = a.legalMeta.map((m) => ({ value: ref(attributeIds, m) }));
    }
    const id = ref(attributeIds, a.name);
    objects.push(definitionObject(id, "attributeDefinition", a.name, values));
  }
  for (const f of baseFacets) {
    const values = definitionValues();
    // An unrequired member carries no meta: an unset `required` means false.
    values["attributes"] = f.attributes.map((m) =>
      m.required
        ? { value: ref(attributeIds, m.name), meta: { required: ["true"] } }
        : { value: ref(attributeIds, m.name) },
    );
    objects.push(definitionObject(ref(facetIds, f.name), "facetDefinition", f.name, values));
  }
  for (const c of baseClasses) {
    const values = definitionValues();
    values["facets"] = c.facets.map((n) => ({ value: ref(facetIds, n) }));
    if (c.dnPrefix !== null) values["dnPrefix"] = [{ value: c.dnPrefix }];
    values["instantiable"] = [{ value: String(c.instantiable) }];
    // classDefinition is among these, so its own class is itself (SPEC).
    objects.push(definitionObject(ref(classIds, c.name), "classDefinition", c.name, values));
  }
  assert(objects.length === 48, "SPEC: 48 base definitions");
  assert(new Set(objects.map((o) => o.id)).size === 48, "the minter gives distinct GUIDs");
  return objects;
}

function definitionObject(
  id: Guid,
  className: string,
  name: string,
  values: Record<string, DefinitionValue[]>,
): BaseDefinitionObject {
  return { id, className, name, values };
}

function mintAll(rows: readonly { readonly name: string }[], mint: () => Guid): Map<string, Guid> {
  const ids = new Map<string, Guid>();
  for (const row of rows) {
    const id = mint();
    assert(!ids.has(row.name), `base table name ${row.name} is unique`);
    ids.set(row.name, id);
  }
  return ids;
}

/** Every base definition is active and system: SPEC makes them immutable and undeletable. */
function definitionValues(): Record<string, DefinitionValue[]> {
  return { lifecycle: [{ value: activeLifecycle }], system: [{ value: "true" }] };
}
