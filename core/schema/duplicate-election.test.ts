/**
 * Goal: a caseless wire name defined more than once goes to the lowest id among the
 * definitions of that name whose references join, never to none of them. The compiler
 * elected names before it checked references: two nodes apart each defined org.dup-badge and
 * a facet org.dup-F over their own badge; with one node's badge and the other node's facet
 * holding the lower ids, the facet that won "F" waited for good for the badge that lost
 * "badge", the other facet waited as its duplicate, no org.dup-F joined on any node, and every
 * class over either facet stayed quarantined with its instances ghosts (schema audit).
 * Method: hand-built definitions with fixed GUIDs (`gid`), compiled in several input orders;
 * the later tests pin what happens when holders fail on each other's names.
 */
import { describe, expect, test } from "vitest";
import { compileSchema } from "./compile";
import type { CompiledSchema } from "./compiled-schema";
import type { DefinitionInput } from "./definition-input";
import { attributeDef, baseInput, classDef, facetDef, gid, namespaceDef } from "./test-fixtures";

const base = baseInput();
const ns = gid(1);
const dup = namespaceDef(ns, "org.dup");

/** Everything observable about a compiled schema, as one comparable value. */
function snapshot(s: CompiledSchema): string {
  const { attributes, facets, classes, extensions, namespaces, quarantined } = s;
  return JSON.stringify({ attributes, facets, classes, extensions, namespaces, quarantined });
}

/** Compiles in the given order, reversed and rotated: the schema must not depend on it. */
function compileEveryWay(...extra: DefinitionInput[]): CompiledSchema {
  const compile = (defs: DefinitionInput[]) => compileSchema([...base.defs, dup, ...defs]);
  const schema = compile(extra);
  for (const order of [[...extra].reverse(), [...extra.slice(1), ...extra.slice(0, 1)]]) {
    expect(snapshot(compile(order))).toBe(snapshot(schema));
  }
  return schema;
}

const reasonOf = (schema: CompiledSchema, id: string) =>
  schema.quarantined.find((q) => q.id === id)?.reason;

describe("a duplicate name's holder is elected among the definitions that join", () => {
  test("two nodes' families: the facet over the badge that holds its name holds org.dup-F", () => {
    const badgeOfA = attributeDef(gid(20), ns, "badge");
    const badgeOfB = attributeDef(gid(10), ns, "badge");
    const facetOfA = facetDef(gid(30), ns, "F", [{ id: gid(20) }]);
    const facetOfB = facetDef(gid(40), ns, "F", [{ id: gid(10) }]);
    const classOfA = classDef(gid(50), ns, "onA", [gid(30)]);
    const classOfB = classDef(gid(60), ns, "onB", [gid(40)]);
    const schema = compileEveryWay(badgeOfA, badgeOfB, facetOfA, facetOfB, classOfA, classOfB);
    expect(schema.attribute("org.dup-badge")?.id).toBe(gid(10));
    expect(schema.facet("org.dup-F")?.id).toBe(gid(40));
    expect(schema.class("org.dup-onB")?.facets).toEqual(["org.dup-F"]);
    expect(schema.quarantined.map((q) => [q.id, q.reason])).toEqual([
      [gid(20), `duplicate name: ${gid(10)} holds it`],
      [gid(30), `waiting for attribute ${gid(20)}, which is quarantined`],
      [gid(50), `waiting for facet ${gid(30)}, which is quarantined`],
    ]);
  });

  test("a holder failing only for a runner-up whose name's holder fails too stays in the running", () => {
    // badge: 10 < 11; 10 waits for meta 21, which lost "meta" to 20. F (only 30) needs 11.
    // Taking 30 out with 10 in the first round would leave F to nobody although 11 joins.
    const schema = compileEveryWay(
      attributeDef(gid(10), ns, "badge", { legalMeta: [gid(21)] }),
      attributeDef(gid(11), ns, "badge"),
      attributeDef(gid(20), ns, "meta"),
      attributeDef(gid(21), ns, "Meta"),
      facetDef(gid(30), ns, "F", [{ id: gid(11) }]),
    );
    expect(schema.attribute("org.dup-badge")?.id).toBe(gid(11));
    expect(schema.facet("org.dup-F")?.id).toBe(gid(30));
    expect(reasonOf(schema, gid(10))).toBe(`waiting for attribute ${gid(21)}, which is quarantined`);
    expect(reasonOf(schema, gid(21))).toBe(`duplicate name: ${gid(20)} holds it`);
  });

  test("holders waiting on each other's runners-up: the higher id gives way", () => {
    // x: 10 < 11, y: 20 < 21; 10 needs 21 and 20 needs 11. Either pair would join; 10 is lower.
    const schema = compileEveryWay(
      attributeDef(gid(10), ns, "x1", { legalMeta: [gid(21)] }),
      attributeDef(gid(11), ns, "X1"),
      attributeDef(gid(20), ns, "y1", { legalMeta: [gid(11)] }),
      attributeDef(gid(21), ns, "Y1"),
    );
    expect(schema.attribute("org.dup-x1")?.id).toBe(gid(10));
    expect(schema.attribute("org.dup-y1")?.id).toBe(gid(21));
    expect(reasonOf(schema, gid(11))).toBe(`duplicate name: ${gid(10)} holds it`);
    expect(reasonOf(schema, gid(20))).toBe(`waiting for attribute ${gid(11)}, which is quarantined`);
  });

  test("one that gave way and whose references joined after all says so", () => {
    // x: 10 < 11; z: 20 only. 10 needs 20, 20 needs 11: no choice is stable under "lowest id
    // whose references join". 10 gives way (the holder of the name 20 waits on), 11 and 20 join.
    const schema = compileEveryWay(
      attributeDef(gid(10), ns, "x1", { legalMeta: [gid(20)] }),
      attributeDef(gid(11), ns, "X1"),
      attributeDef(gid(20), ns, "z1", { legalMeta: [gid(11)] }),
    );
    expect(schema.attribute("org.dup-x1")?.id).toBe(gid(11));
    expect(schema.attribute("org.dup-z1")?.id).toBe(gid(20));
    const gaveWay = "gave way in its name's election while its references waited on a duplicate";
    expect(reasonOf(schema, gid(10))).toBe(`duplicate name: ${gid(11)} holds it; ${gaveWay}`);
  });

  test("one that gave way runs again when its name went to nobody, and joins", () => {
    // Found by the property test: q: 100 (class over facet 102) < 103 (attribute); p: 101
    // (attribute, legalMeta 103 and itself) < 102 (facet over 101). 100 waits on 102, a
    // runner-up of p; 101 waits on 103, a runner-up of q: 101 gives way. Then 102 (over 101,
    // gone) and 100 (over 102) can never join, and 103 holds q; p was left to nobody, though
    // 101 joins beside 103. Those that left a name nobody holds now run again.
    const schema = compileEveryWay(
      classDef(gid(100), ns, "Q", [gid(102)]),
      attributeDef(gid(101), ns, "p", { legalMeta: [gid(103), gid(101)] }),
      facetDef(gid(102), ns, "p", [{ id: gid(101) }]),
      attributeDef(gid(103), ns, "Q"),
    );
    expect(schema.attribute("org.dup-p")?.id).toBe(gid(101));
    expect(schema.attribute("org.dup-Q")?.id).toBe(gid(103));
    expect(reasonOf(schema, gid(102))).toBe(`duplicate name: ${gid(101)} holds it`);
    expect(reasonOf(schema, gid(100))).toBe(`waiting for facet ${gid(102)}, which is quarantined`);
  });
});
