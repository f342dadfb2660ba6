/**
 * Goal: the base schema tables and the 48 definition objects match SPEC "Base schema" exactly,
 * and the objects compile to a schema with an empty quarantine. Method: compare against the
 * SPEC tables transcribed independently here, then compile the minted objects.
 */
import { describe, expect, test } from "vitest";
import { compareCaseless } from "../naming";
import { baseAttributes, baseClasses, baseDefinitionObjects, baseFacets } from "./base-schema";
import { compileSchema } from "./compile";
import { baseInput, countingMinter } from "./test-fixtures";

describe("base schema tables", () => {
  test("26 attributes, 11 facets, 11 classes in SPEC order", () => {
    expect(baseAttributes.map((a) => a.name)).toEqual([
      "description", "displayName", "givenName", "surname", "email", "sid", "member", "expiry",
      "syntax", "singleValued", "matching", "legalMeta", "aliases", "lifecycle", "system",
      "attributes", "required", "facets", "attachedFacets", "dnPrefix", "targetClass",
      "instantiable", "maxTimeApart", "timeUntilShred", "networkAddress", "machineKey",
    ]);
    expect(baseFacets.map((f) => f.name)).toEqual([
      "described", "person", "securityPrincipal", "membership", "schemaDefinition",
      "attributeSchema", "facetSchema", "classSchema", "extensionSchema", "replicationConfig",
      "machine",
    ]);
    expect(baseClasses.map((c) => c.name)).toEqual([
      "domainRoot", "organizationalUnit", "user", "group", "attributeDefinition",
      "facetDefinition", "classDefinition", "schemaNamespace", "classExtension", "configuration",
      "computer",
    ]);
  });

  test("attribute rows carry SPEC's syntax, arity, matching, aliases and legalMeta", () => {
    const row = (n: string) => baseAttributes.find((a) => a.name === n);
    expect(row("surname")).toEqual({
      name: "surname", syntax: "string", singleValued: true, matching: "caseless",
      aliases: ["sn"], legalMeta: [],
    });
    expect(row("member")).toMatchObject({
      syntax: "reference", singleValued: false, legalMeta: ["expiry"],
    });
    expect(row("attributes")).toMatchObject({ legalMeta: ["required"] });
    expect(row("sid")).toMatchObject({ matching: "exact", aliases: ["objectSid"] });
    expect(row("email")).toMatchObject({ singleValued: false, aliases: ["mail"] });
    expect(row("networkAddress")).toMatchObject({ syntax: "endpoint", matching: "caseless" });
    expect(row("machineKey")).toMatchObject({ syntax: "publicKey", singleValued: false });
    const multi = baseAttributes.filter((a) => !a.singleValued).map((a) => a.name);
    expect(multi).toEqual([
      "description", "email", "member", "legalMeta", "aliases", "attributes", "facets",
      "attachedFacets", "networkAddress", "machineKey",
    ]);
  });

  test("required facet members are exactly SPEC's starred ones", () => {
    const required = baseFacets.flatMap((f) =>
      f.attributes.filter((m) => m.required).map((m) => `${f.name}.${m.name}`),
    );
    expect(required).toEqual([
      "securityPrincipal.sid", "schemaDefinition.lifecycle", "schemaDefinition.system",
      "attributeSchema.syntax", "attributeSchema.singleValued", "attributeSchema.matching",
      "extensionSchema.targetClass", "extensionSchema.facets",
    ]);
  });

  test("dnPrefix is null only for domainRoot; domainRoot, configuration not instantiable", () => {
    const noPrefix = baseClasses.filter((c) => c.dnPrefix === null).map((c) => c.name);
    expect(noPrefix).toEqual(["domainRoot"]);
    expect(baseClasses.filter((c) => !c.instantiable).map((c) => c.name)).toEqual([
      "domainRoot", "configuration",
    ]);
    expect(baseClasses.filter((c) => c.dnPrefix === "OU").map((c) => c.name)).toEqual([
      "organizationalUnit", "schemaNamespace",
    ]);
  });
});

describe("baseDefinitionObjects", () => {
  test("48 definitions minted in table order with the caller's GUIDs", () => {
    const objects = baseDefinitionObjects(countingMinter());
    expect(objects).toHaveLength(48);
    expect(objects.filter((o) => o.className === "attributeDefinition")).toHaveLength(26);
    expect(objects.filter((o) => o.className === "facetDefinition")).toHaveLength(11);
    expect(objects.filter((o) => o.className === "classDefinition")).toHaveLength(11);
    expect(objects.map((o) => o.id)).toEqual(objects.map((_, i) => countingMinterNth(i + 1)));
    expect(objects[0]?.name).toBe("description");
    expect(objects[47]?.name).toBe("computer");
  });

  test("every definition is active and system", () => {
    for (const o of baseDefinitionObjects(countingMinter())) {
      expect(o.values["lifecycle"]).toEqual([{ value: "active" }]);
      expect(o.values["system"]).toEqual([{ value: "true" }]);
    }
  });

  test("references resolve to minted GUIDs, with required as meta", () => {
    const objects = baseDefinitionObjects(countingMinter("abcdef01"));
    const id = (n: string) => objects.find((o) => o.name === n)?.id;
    const get = (n: string) => objects.find((o) => o.name === n);
    expect(get("member")?.values["legalMeta"]).toEqual([{ value: id("expiry") }]);
    expect(get("securityPrincipal")?.values["attributes"]).toEqual([
      { value: id("sid"), meta: { required: ["true"] } },
    ]);
    expect(get("described")?.values["attributes"]).toEqual([
      { value: id("description") }, { value: id("displayName") },
    ]);
    expect(get("user")?.values["facets"]).toEqual(
      ["described", "person", "securityPrincipal"].map((n) => ({ value: id(n) })),
    );
    expect(get("domainRoot")?.values["dnPrefix"]).toBeUndefined();
    expect(get("domainRoot")?.values["instantiable"]).toEqual([{ value: "false" }]);
    expect(get("surname")?.values["aliases"]).toEqual([{ value: "sn" }]);
  });

  test("classDefinition is an instance of itself", () => {
    const objects = baseDefinitionObjects(countingMinter());
    const cd = objects.find((o) => o.name === "classDefinition");
    expect(cd?.className).toBe("classDefinition");
    const schema = compileSchema(baseInput().defs);
    expect(schema.class(cd?.className ?? "")?.name).toBe("classDefinition");
  });

  test("compiles with an empty quarantine into 26/11/11 and no extensions", () => {
    const schema = compileSchema(baseInput().defs);
    expect(schema.quarantined).toEqual([]);
    expect(schema.attributes).toHaveLength(26);
    expect(schema.facets).toHaveLength(11);
    expect(schema.classes).toHaveLength(11);
    expect(schema.extensions).toEqual([]);
    for (const a of baseAttributes) {
      expect(schema.attribute(a.name)).toMatchObject({
        name: a.name, syntax: a.syntax, singleValued: a.singleValued, matching: a.matching,
      });
    }
    for (const c of baseClasses) {
      expect(schema.class(c.name)).toMatchObject({
        dnPrefix: c.dnPrefix, instantiable: c.instantiable,
        facets: [...c.facets].sort(compareCaseless),
      });
    }
    expect(schema.facet("attributeSchema")?.attributes).toEqual([
      { name: "legalMeta", required: false }, { name: "matching", required: true },
      { name: "singleValued", required: true }, { name: "syntax", required: true },
    ]);
  });
});

function countingMinterNth(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
}
