/**
 * Goal: the compile memo hands out exactly what compileSchema returns, shares one frozen schema
 * per key, and keys tell apart inputs that differ in any field. Method: the base schema plus a
 * namespaced attribute, compiled through the memo and directly.
 */
import { describe, expect, test } from "vitest";
import { compileSchema } from "./compile";
import { compileSchemaMemo, definitionContentNumber, schemaMemoKey } from "./compile-memo";
import type { DefinitionInput } from "./definition-input";
import { attributeDef, baseInput, gid, namespaceDef } from "./test-fixtures";

const ns = gid(1);
const defs: DefinitionInput[] = [
  ...baseInput().defs,
  namespaceDef(ns, "com.example"),
  attributeDef(gid(10), ns, "badge"),
];
const keyOf = (inputs: readonly DefinitionInput[]): string =>
  schemaMemoKey(inputs.map((d) => [definitionContentNumber(d), d.namespaceId] as const));

describe("compile memo", () => {
  test("a hit is the schema compileSchema returns, shared and frozen", () => {
    let built = 0;
    const inputs = () => {
      built += 1;
      return defs;
    };
    const first = compileSchemaMemo(keyOf(defs), inputs);
    const second = compileSchemaMemo(keyOf(defs), inputs);
    expect(second).toBe(first);
    expect(built).toBe(1);
    expect(JSON.stringify(first)).toBe(JSON.stringify(compileSchema(defs)));
    expect(first.attribute("com.example-badge")?.syntax).toBe("string");
    expect(Object.isFrozen(first.attributes)).toBe(true);
    expect(Object.isFrozen(first.attributes[0])).toBe(true);
    expect(() => (first.attributes as unknown[]).push(1)).toThrow(TypeError);
  });

  test("keys differ when any field of any input differs", () => {
    const badge = attributeDef(gid(10), ns, "badge");
    const variants: DefinitionInput[] = [
      { ...badge, name: "badge2" },
      { ...badge, namespaceId: null },
      { ...badge, alive: false },
      { ...badge, className: "facetDefinition" },
      { ...badge, values: { ...badge.values, singleValued: [{ value: "false" }] } },
    ];
    const keys = new Set([keyOf([badge]), ...variants.map((v) => keyOf([v]))]);
    expect(keys.size).toBe(variants.length + 1);
    expect(keyOf([badge, badge])).not.toBe(keyOf([badge]));
    // Equal content in another object (another node's copy of the record): the same key.
    expect(keyOf([structuredClone(badge)])).toBe(keyOf([badge]));
  });
});
