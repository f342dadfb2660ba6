/**
 * Goal: definitionDependents names every live definition that references a definition, by
 * each reference kind, so "definition-in-use" can name the blockers. Method: a small namespace
 * with one definition of each kind over the base schema; ask for each target's dependents.
 */
import { describe, expect, test } from "vitest";
import { definitionDependents } from "./dependents";
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
const defs = [
  ...base.defs,
  namespaceDef(ns, "com.example"),
  attributeDef(gid(10), ns, "badge", { legalMeta: [base.idOf("expiry"), gid(10)] }),
  facetDef(gid(20), ns, "badged", [{ id: gid(10), required: true }]),
  classDef(gid(30), ns, "gadget", [gid(20)]),
  extensionDef(gid(40), ns, "gadgetExtra", gid(30), [gid(20)]),
];

describe("definitionDependents", () => {
  test("a facet is blocked by the classes and extensions using it", () => {
    expect(definitionDependents(defs, gid(20))).toEqual([
      { id: gid(30), name: "com.example-gadget" },
      { id: gid(40), name: "com.example-gadgetExtra" },
    ]);
  });

  test("an attribute is blocked by facets and by legalMeta, but not by itself", () => {
    expect(definitionDependents(defs, gid(10))).toEqual([
      { id: gid(20), name: "com.example-badged" },
    ]);
    expect(definitionDependents(defs, base.idOf("expiry"))).toEqual([
      { id: gid(10), name: "com.example-badge" },
      { id: base.idOf("member"), name: "member" },
    ]);
  });

  test("a class is blocked by extensions targeting it", () => {
    expect(definitionDependents(defs, gid(30))).toEqual([
      { id: gid(40), name: "com.example-gadgetExtra" },
    ]);
  });

  test("a namespace is blocked by the definitions inside it", () => {
    expect(definitionDependents(defs, ns).map((d) => d.id)).toEqual([
      gid(10), gid(20), gid(30), gid(40),
    ]);
  });

  test("tombstoned dependents do not block; quarantined live ones do", () => {
    const withDead = defs.map((d) => (d.id === gid(30) ? tombstone(d) : d));
    expect(definitionDependents(withDead, gid(20))).toEqual([
      { id: gid(40), name: "com.example-gadgetExtra" },
    ]);
    const waiting = facetDef(gid(21), ns, "waiting", [{ id: gid(10) }, { id: gid(99) }]);
    expect(definitionDependents([...defs, waiting], gid(10)).map((d) => d.id)).toEqual([
      gid(20), gid(21),
    ]);
  });

  test("base classes depend on base facets; ids are accepted in any case", () => {
    const blockers = definitionDependents(defs, base.idOf("described").toUpperCase());
    expect(blockers.map((d) => d.name)).toEqual([
      "attributeDefinition", "classDefinition", "classExtension", "computer", "configuration",
      "domainRoot",
      "facetDefinition", "group", "organizationalUnit", "schemaNamespace", "user",
    ]);
  });

  test("an unused definition has no dependents", () => {
    expect(definitionDependents(defs, gid(40))).toEqual([]);
    expect(definitionDependents(defs, gid(99))).toEqual([]);
  });
});
