/**
 * Goal: the compiler's rules, one behaviour per test: what joins, what is quarantined and why,
 * how quarantined definitions join once their dependencies arrive, how tombstones compile out,
 * wire names and lookup. Method: the base schema plus a few hand-built namespaced definitions
 * (fixed GUIDs from `gid`), compiled and inspected through the public CompiledSchema.
 */
import { describe, expect, test } from "vitest";
import { compileSchema } from "./compile";
import type { DefinitionInput } from "./definition-input";
import {
  attributeDef,
  baseInput,
  classDef,
  extensionDef,
  facetDef,
  gid,
  namespaceDef,
  tombstone,
} from "./test-fixtures";

const base = baseInput();
const ns = gid(1);
const example = namespaceDef(ns, "com.example");
const compile = (...extra: DefinitionInput[]) => compileSchema([...base.defs, example, ...extra]);
const reasonOf = (schema: ReturnType<typeof compile>, id: string) =>
  schema.quarantined.find((q) => q.id === id)?.reason;

describe("joining and waiting", () => {
  test("a facet delivered before its attribute waits, then joins when it arrives", () => {
    const facet = facetDef(gid(20), ns, "badged", [{ id: gid(10), required: true }]);
    const early = compile(facet);
    expect(early.facet("com.example-badged")).toBeUndefined();
    expect(early.quarantined).toEqual([
      { id: gid(20), name: "com.example-badged", reason: `waiting for attribute ${gid(10)}` },
    ]);
    expect(early.isDefinitionLive(gid(20))).toBe(false);
    const late = compile(facet, attributeDef(gid(10), ns, "badge"));
    expect(late.quarantined).toEqual([]);
    expect(late.facet("com.example-badged")?.attributes).toEqual([
      { name: "com.example-badge", required: true },
    ]);
    expect(late.isDefinitionLive(gid(20))).toBe(true);
  });

  test("a chain waits link by link and joins all at once", () => {
    const cls = classDef(gid(30), ns, "gadget", [gid(20)]);
    const facet = facetDef(gid(20), ns, "badged", [{ id: gid(10) }]);
    const early = compile(cls, facet);
    expect(reasonOf(early, gid(20))).toBe(`waiting for attribute ${gid(10)}`);
    expect(reasonOf(early, gid(30))).toBe(`waiting for facet ${gid(20)}, which is quarantined`);
    const late = compile(cls, facet, attributeDef(gid(10), ns, "badge"));
    expect(late.quarantined).toEqual([]);
    expect(late.class("com.example-gadget")?.facets).toEqual(["com.example-badged"]);
  });

  test("a long legalMeta chain waits as a whole and joins as a whole", () => {
    const chain = Array.from({ length: 50 }, (_, i) =>
      attributeDef(gid(100 + i), ns, `a${i}`, { legalMeta: [gid(101 + i)] }),
    );
    const early = compile(...chain);
    expect(early.quarantined).toHaveLength(50);
    expect(reasonOf(early, gid(149))).toBe(`waiting for attribute ${gid(150)}`);
    expect(reasonOf(early, gid(100))).toBe(
      `waiting for attribute ${gid(101)}, which is quarantined`,
    );
    const late = compile(...chain, attributeDef(gid(150), ns, "last"));
    expect(late.quarantined).toEqual([]);
    expect(late.attribute("com.example-a0")?.legalMeta).toEqual(["com.example-a1"]);
  });

  test("a namespaced definition waits for its namespace", () => {
    const attr = attributeDef(gid(10), gid(2), "badge");
    const early = compileSchema([...base.defs, attr]);
    expect(early.quarantined).toEqual([
      { id: gid(10), name: "badge", reason: `waiting for namespace ${gid(2)}` },
    ]);
    const late = compileSchema([...base.defs, attr, namespaceDef(gid(2), "org.acme")]);
    expect(late.quarantined).toEqual([]);
    expect(late.attribute("org.acme-badge")?.id).toBe(gid(10));
    expect(late.namespace("ORG.ACME")?.id).toBe(gid(2));
  });

  test("legalMeta waits for its attributes; a legalMeta cycle joins", () => {
    const a = attributeDef(gid(10), ns, "a", { legalMeta: [gid(11)] });
    expect(reasonOf(compile(a), gid(10))).toBe(`waiting for attribute ${gid(11)}`);
    const b = attributeDef(gid(11), ns, "b", { legalMeta: [gid(10)] });
    const both = compile(a, b);
    expect(both.quarantined).toEqual([]);
    expect(both.attribute("com.example-a")?.legalMeta).toEqual(["com.example-b"]);
    expect(both.attribute("com.example-b")?.legalMeta).toEqual(["com.example-a"]);
  });

  test("an extension waits for its target class and its facets", () => {
    const ext = extensionDef(gid(40), ns, "gadgetExtra", gid(30), [gid(20)]);
    const reason = reasonOf(compile(ext), gid(40));
    expect(reason).toBe(`waiting for class ${gid(30)}; waiting for facet ${gid(20)}`);
    const all = compile(
      ext,
      classDef(gid(30), ns, "gadget", []),
      facetDef(gid(20), ns, "badged", []),
    );
    expect(all.quarantined).toEqual([]);
    expect(all.extension("com.example-gadgetExtra")).toEqual({
      id: gid(40),
      name: "com.example-gadgetExtra",
      targetClass: "com.example-gadget",
      facets: ["com.example-badged"],
    });
  });

  test("a reference to a definition of the wrong kind does not resolve", () => {
    const facet = facetDef(gid(20), ns, "badged", [{ id: base.idOf("user") }]);
    expect(reasonOf(compile(facet), gid(20))).toBe(
      `reference ${base.idOf("user")} is of class classDefinition, expected attributeDefinition`,
    );
  });
});

describe("tombstones compile out", () => {
  test("a tombstoned attribute leaves its facet working minus the dead member", () => {
    const a = attributeDef(gid(10), ns, "a");
    const b = attributeDef(gid(11), ns, "b");
    const facet = facetDef(gid(20), ns, "pair", [{ id: gid(10) }, { id: gid(11), required: true }]);
    const schema = compile(tombstone(a), b, facet);
    expect(schema.quarantined).toEqual([]);
    expect(schema.attribute("com.example-a")).toBeUndefined();
    expect(schema.isDefinitionLive(gid(10))).toBe(false);
    expect(schema.facet("com.example-pair")?.attributes).toEqual([
      { name: "com.example-b", required: true },
    ]);
  });

  test("a class keeps working minus a dead facet; legalMeta minus a dead attribute", () => {
    const cls = classDef(gid(30), ns, "gadget", [gid(20), base.idOf("described")]);
    const attr = attributeDef(gid(11), ns, "b", { legalMeta: [gid(10)] });
    const schema = compile(cls, tombstone(facetDef(gid(20), ns, "f", [])), attr,
      tombstone(attributeDef(gid(10), ns, "a")));
    expect(schema.quarantined).toEqual([]);
    expect(schema.class("com.example-gadget")?.facets).toEqual(["described"]);
    expect(schema.attribute("com.example-b")?.legalMeta).toEqual([]);
  });

  test("an extension whose target class is deleted is quarantined, not silently dropped", () => {
    const ext = extensionDef(gid(40), ns, "extra", gid(30), [base.idOf("person")]);
    const schema = compile(ext, tombstone(classDef(gid(30), ns, "gadget", [])));
    expect(reasonOf(schema, gid(40))).toBe(`class ${gid(30)} is deleted`);
  });

  test("definitions under a deleted namespace are quarantined", () => {
    const attr = attributeDef(gid(10), gid(2), "badge");
    const schema = compileSchema([...base.defs, tombstone(namespaceDef(gid(2), "org.acme")), attr]);
    expect(reasonOf(schema, gid(10))).toBe(`namespace ${gid(2)} is deleted`);
  });

  test("tombstones are neither joined nor quarantined", () => {
    const schema = compile(tombstone(attributeDef(gid(10), ns, "a")));
    expect(schema.quarantined).toEqual([]);
    expect(schema.attributes).toHaveLength(26);
  });
});

describe("names and lookup", () => {
  test("namespaced wire names are <Namespace>-<name> and look up caselessly", () => {
    const schema = compile(attributeDef(gid(10), ns, "badge"));
    expect(schema.attribute("com.example-badge")?.name).toBe("com.example-badge");
    expect(schema.attribute("COM.Example-BADGE")?.id).toBe(gid(10));
    expect(schema.attribute("badge")).toBeUndefined();
    expect(schema.attributeById(gid(10))?.name).toBe("com.example-badge");
  });

  test("aliases are recorded but not used for lookup", () => {
    const schema = compile();
    expect(schema.attribute("sn")).toBeUndefined();
    expect(schema.attribute("mail")).toBeUndefined();
    expect(schema.attribute("surname")?.aliases).toEqual(["sn"]);
    expect(schema.attribute("SURNAME")?.name).toBe("surname");
  });

  test("caseless lookup follows the SPEC fold (ß folds to ss)", () => {
    const schema = compileSchema([...base.defs, namespaceDef(gid(2), "strasse")]);
    expect(schema.namespace("STRAßE")?.id).toBe(gid(2));
  });

  test("duplicate wire names: the lowest id wins, whatever the input order", () => {
    const low = attributeDef(gid(10), ns, "badge");
    const high = attributeDef(gid(12), ns, "BADGE");
    for (const schema of [compile(low, high), compile(high, low)]) {
      expect(schema.attribute("com.example-badge")?.id).toBe(gid(10));
      expect(schema.quarantined).toEqual([
        { id: gid(12), name: "com.example-BADGE", reason: `duplicate name: ${gid(10)} holds it` },
      ]);
    }
  });

  test("wire names are one universe across kinds (definitions are siblings)", () => {
    const schema = compile(classDef(gid(30), ns, "thing", []), facetDef(gid(20), ns, "Thing", []));
    expect(schema.facet("com.example-thing")?.id).toBe(gid(20));
    expect(reasonOf(schema, gid(30))).toBe(`duplicate name: ${gid(20)} holds it`);
  });

  test("duplicate namespaces: the lowest id wins and the loser's members wait", () => {
    const twin = namespaceDef(gid(5), "COM.EXAMPLE");
    const schema = compile(twin, attributeDef(gid(10), gid(5), "badge"));
    expect(reasonOf(schema, gid(5))).toBe(`duplicate name: ${gid(1)} holds it`);
    expect(reasonOf(schema, gid(10))).toBe(
      `waiting for namespace ${gid(5)}, which is quarantined`,
    );
  });

  test("the unprefixed space is reserved for base names of the same kind", () => {
    const schema = compileSchema([
      ...base.defs,
      attributeDef(gid(10), null, "badge"),
      facetDef(gid(11), null, "surname", []),
    ]);
    expect(reasonOf(schema, gid(10))).toBe(
      'unprefixed space is reserved: "badge" is not a base attribute name',
    );
    expect(reasonOf(schema, gid(11))).toBe(
      'unprefixed space is reserved: "surname" is not a base facet name',
    );
  });

  test("a flat copy of a base name that is not a base definition never holds the name, whatever its id", () => {
    // The lowest id would win a duplicate election: a copy below every base id must still lose.
    const lowest = "00000000-0000-4000-8000-000000000000";
    for (const id of [gid(10), lowest]) {
      const schema = compileSchema([...base.defs, attributeDef(id, null, "Surname")]);
      expect(schema.attribute("surname")?.id).toBe(base.idOf("surname"));
      expect(schema.classes.length).toBe(compileSchema(base.defs).classes.length);
      expect(reasonOf(schema, id)).toBe(
        'unprefixed space is reserved: "Surname" is a base attribute name, held by the base definition',
      );
    }
  });

  test("a second system copy of a base name loses to the lower id", () => {
    const copy = attributeDef(gid(10), null, "Surname");
    const system = { ...copy, values: { ...copy.values, system: [{ value: "true" }] } };
    const schema = compileSchema([...base.defs, system]);
    expect(schema.attribute("surname")?.id).toBe(base.idOf("surname"));
    expect(reasonOf(schema, gid(10))).toBe(`duplicate name: ${base.idOf("surname")} holds it`);
  });

  test.each([["x"], ["X"]])("the definition name %s is reserved", (name) => {
    const schema = compile(attributeDef(gid(10), ns, name));
    expect(reasonOf(schema, gid(10))).toBe(`definition name "${name}" is reserved`);
  });

  test.each([["has-hyphen"], ["1abc"], [""], ["a.b"]])("%j is not a definition name", (name) => {
    const schema = compile(attributeDef(gid(10), ns, name));
    expect(reasonOf(schema, gid(10))).toBe(`invalid definition name "${name}"`);
  });

  test.each([["gip"], ["DIR"], ["x"]])("the namespace name %s is reserved", (name) => {
    const schema = compileSchema([...base.defs, namespaceDef(gid(2), name)]);
    expect(reasonOf(schema, gid(2))).toBe(`namespace name "${name}" is reserved`);
  });

  test("a namespace cannot nest inside a namespace", () => {
    const nested = { ...namespaceDef(gid(2), "org.acme"), namespaceId: ns };
    expect(reasonOf(compile(nested), gid(2))).toBe("a namespace cannot live inside a namespace");
  });
});

describe("incomplete and bad definitions", () => {
  const without = (d: DefinitionInput, ...keys: string[]): DefinitionInput => ({
    ...d,
    values: Object.fromEntries(Object.entries(d.values).filter(([k]) => !keys.includes(k))),
  });
  const withValues = (d: DefinitionInput, key: string, values: string[]): DefinitionInput => ({
    ...d,
    values: { ...d.values, [key]: values.map((value) => ({ value })) },
  });

  test("schemaDefinition requires lifecycle and system", () => {
    const schema = compile(without(attributeDef(gid(10), ns, "a"), "lifecycle", "system"));
    expect(reasonOf(schema, gid(10))).toBe(
      "incomplete: missing lifecycle; incomplete: missing system",
    );
  });

  test("attributeSchema requires syntax, singleValued and matching", () => {
    const d = without(attributeDef(gid(10), ns, "a"), "syntax", "singleValued", "matching");
    expect(reasonOf(compile(d), gid(10))).toBe(
      "incomplete: missing syntax; incomplete: missing singleValued; incomplete: missing matching",
    );
  });

  test("extensionSchema requires targetClass and facets", () => {
    const d = without(extensionDef(gid(40), ns, "e", base.idOf("user"), []), "targetClass");
    expect(reasonOf(compile(d), gid(40))).toBe(
      "incomplete: missing targetClass; incomplete: missing facets",
    );
  });

  test("unknown syntax, matching, boolean and lifecycle values are quarantined", () => {
    let d = withValues(attributeDef(gid(10), ns, "a"), "syntax", ["blob"]);
    d = withValues(d, "matching", ["fuzzy"]);
    d = withValues(d, "singleValued", ["yes"]);
    d = withValues(d, "lifecycle", ["retired"]);
    expect(reasonOf(compile(d), gid(10))).toBe(
      'unknown lifecycle "retired"; singleValued is not a boolean: "yes"; ' +
        'unknown syntax "blob"; unknown matching "fuzzy"',
    );
  });

  test("an endpoint attribute must match caselessly (SPEC: endpoints compare caselessly)", () => {
    let d = withValues(attributeDef(gid(10), ns, "a"), "syntax", ["endpoint"]);
    d = withValues(d, "matching", ["exact"]);
    expect(reasonOf(compile(d), gid(10))).toBe("endpoint values compare caselessly: matching must be caseless");
    d = withValues(d, "matching", ["caseless"]);
    expect(compile(d).attribute("com.example-a")).toMatchObject({ syntax: "endpoint", matching: "caseless" });
  });

  test("syntax and matching are caseless values and compile to SPEC spelling", () => {
    let d = withValues(attributeDef(gid(10), ns, "a"), "syntax", ["PublicKey"]);
    d = withValues(d, "matching", ["EXACT"]);
    expect(compile(d).attribute("com.example-a")).toMatchObject({
      syntax: "publicKey",
      matching: "exact",
    });
  });

  test("several values for a single-valued attribute are quarantined", () => {
    const d = withValues(attributeDef(gid(10), ns, "a"), "syntax", ["string", "integer"]);
    expect(reasonOf(compile(d), gid(10))).toBe("several values for single-valued syntax");
  });

  test("a non-GUID reference is quarantined", () => {
    const d = withValues(facetDef(gid(20), ns, "f", []), "attributes", ["not-a-guid"]);
    expect(reasonOf(compile(d), gid(20))).toBe('attributes holds a non-GUID: "not-a-guid"');
  });

  test("an instantiable class needs a valid dnPrefix; unset instantiable means true", () => {
    const schema = compile(
      classDef(gid(30), ns, "a", [], { dnPrefix: null, instantiable: true }),
      classDef(gid(31), ns, "b", [], { dnPrefix: null }),
      classDef(gid(32), ns, "c", [], { dnPrefix: null, instantiable: false }),
      classDef(gid(33), ns, "d", [], { dnPrefix: "C N" }),
      classDef(gid(34), ns, "e", [], { dnPrefix: "x-500" }),
    );
    expect(reasonOf(schema, gid(30))).toBe("instantiable class without dnPrefix");
    expect(reasonOf(schema, gid(31))).toBe("instantiable class without dnPrefix");
    expect(schema.class("com.example-c")).toMatchObject({ dnPrefix: null, instantiable: false });
    expect(reasonOf(schema, gid(33))).toBe('invalid dnPrefix "C N"');
    expect(schema.class("com.example-e")).toMatchObject({ dnPrefix: "x-500", instantiable: true });
  });

  test("an object of a non-definition class is quarantined", () => {
    const d: DefinitionInput = { ...attributeDef(gid(10), ns, "a"), className: "user" };
    expect(reasonOf(compile(d), gid(10))).toBe("not a definition class: user");
  });

  test("a bad required meta flag is quarantined", () => {
    const d = facetDef(gid(20), ns, "f", []);
    const member = { value: gid(10), meta: { required: ["maybe"] } };
    const bad = { ...d, values: { ...d.values, attributes: [member] } };
    expect(reasonOf(compile(bad, attributeDef(gid(10), ns, "a")), gid(20))).toBe(
      `bad required meta on attributes ${gid(10)}`,
    );
  });
});

describe("the compiled schema's shape", () => {
  test("arrays are sorted caselessly by name, and isDefinitionLive covers every kind", () => {
    const schema = compile(attributeDef(gid(10), ns, "Zeta"), attributeDef(gid(11), ns, "alpha"));
    const names = schema.attributes.map((a) => a.name);
    expect(names.indexOf("com.example-alpha")).toBeLessThan(names.indexOf("com.example-Zeta"));
    expect(names.slice(0, 3)).toEqual(["aliases", "attachedFacets", "attributes"]);
    expect(schema.classes[0]?.name).toBe("attributeDefinition");
    for (const id of [gid(1), gid(10), base.idOf("user"), base.idOf("person")]) {
      expect(schema.isDefinitionLive(id)).toBe(true);
    }
    expect(schema.isDefinitionLive(gid(99))).toBe(false);
  });

  test("extensionsOf lists the extensions targeting a class, caselessly", () => {
    const ext = extensionDef(gid(40), ns, "extra", base.idOf("user"), [base.idOf("machine")]);
    const schema = compile(ext);
    expect(schema.extensionsOf("USER").map((e) => e.name)).toEqual(["com.example-extra"]);
    expect(schema.extensionsOf("group")).toEqual([]);
  });
});
