/**
 * Goal: the compiler's laws. (1) The result depends only on the set of definitions: any
 * permutation, with any repeats, compiles to the same schema. (2) Quarantine is transient for
 * consistent inputs: a consistent set compiles clean, and any subset of it (a replica that has
 * received only part) joins a subset of what the full set joins. (3) Totality: arbitrary
 * garbage, even values that break the declared types, never throws, and every live definition
 * ends up either joined or quarantined, exactly once.
 * Method: fast-check over generated definition sets layered on the base schema, with
 * namespaces, references into the set, to the base, and to GUIDs that never arrive.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { parseGuid } from "../guid";
import { compileSchema } from "./compile";
import type { CompiledSchema } from "./compiled-schema";
import type { DefinitionInput } from "./definition-input";
import { definitionDependents } from "./dependents";
import { surfaceOf } from "./surface";
import {
  attributeDef,
  baseInput,
  classDef,
  extensionDef,
  facetDef,
  gid,
  namespaceDef,
} from "./test-fixtures";

const base = baseInput();
const baseIds = base.defs.map((d) => d.id);

/** Everything observable about a compiled schema, as one comparable value. */
function snapshot(s: CompiledSchema): string {
  const { attributes, facets, classes, extensions, namespaces, quarantined } = s;
  return JSON.stringify({ attributes, facets, classes, extensions, namespaces, quarantined });
}

function joinedIds(s: CompiledSchema): Set<string> {
  return new Set(
    [s.attributes, s.facets, s.classes, s.extensions, s.namespaces].flatMap((l) =>
      l.map((d) => d.id),
    ),
  );
}

/**
 * A realistic, messy world: mostly well-formed namespaced definitions referring to the right
 * kinds, salted with dangling and wrong-kind references, duplicate and invalid names, flat
 * names, missing or dead or reserved namespaces, and tombstones.
 */
const kinds = ["attribute", "facet", "class", "extension"] as const;
type Kind = (typeof kinds)[number];
const baseIdsOf = (className: string) =>
  base.defs.filter((d) => d.className === className).map((d) => d.id);
const baseByKind: Record<Kind, string[]> = {
  attribute: baseIdsOf("attributeDefinition"),
  facet: baseIdsOf("facetDefinition"),
  class: baseIdsOf("classDefinition"),
  extension: [],
};
const goodNames = ["a", "b", "A", "c", "d", "e", "f", "g", "gadget", "Gadget", "c1"];
const arbRef = fc.record({ n: fc.nat(), stray: fc.nat({ max: 7 }) });

const arbWorld: fc.Arbitrary<DefinitionInput[]> = fc
  .record({
    namespaces: fc.array(
      fc.record({
        name: fc.constantFrom("com.example", "org.acme", "COM.EXAMPLE", "gip", "net.x"),
        dead: fc.nat({ max: 5 }),
      }),
      { minLength: 1, maxLength: 4 },
    ),
    items: fc.array(
      fc.record({
        kind: fc.constantFrom(...kinds),
        ns: fc.nat({ max: 12 }),
        name: fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom(...goodNames) },
          { weight: 1, arbitrary: fc.constantFrom("x", "bad-name", "surname", "") },
        ),
        refs: fc.array(arbRef, { maxLength: 3 }),
        dead: fc.nat({ max: 7 }),
      }),
      { maxLength: 24 },
    ),
  })
  .map(({ namespaces, items }) => {
    const nsIds = namespaces.map((_, i) => gid(50 + i));
    const itemIds = items.map((_, i) => gid(100 + i));
    const everything = [...itemIds, ...baseIds, gid(999), gid(998)];
    const ofKind = (k: Kind) => [
      ...baseByKind[k],
      ...itemIds.filter((_, i) => items[i]?.kind === k),
    ];
    // Mostly a reference to the right kind; one in eight goes anywhere (or nowhere).
    const ref = (k: Kind, r: { n: number; stray: number }) => {
      const pool = r.stray === 0 ? everything : ofKind(k);
      return pool[r.n % Math.max(pool.length, 1)] ?? gid(999);
    };
    const defs: DefinitionInput[] = [...base.defs];
    namespaces.forEach((n, i) => {
      defs.push({ ...namespaceDef(gid(50 + i), n.name), alive: n.dead !== 0 });
    });
    items.forEach((it, i) => {
      // Mostly a generated namespace; sometimes flat, sometimes a namespace that never comes.
      const home = it.ns < 10 ? (nsIds[it.ns % nsIds.length] ?? null) : null;
      const nsId = it.ns === 12 ? gid(77) : home;
      const id = gid(100 + i);
      let d: DefinitionInput;
      if (it.kind === "attribute") {
        const legalMeta = it.refs.map((r) => ref("attribute", r));
        d = attributeDef(id, nsId, it.name, { legalMeta });
      } else if (it.kind === "facet") {
        d = facetDef(id, nsId, it.name, it.refs.map((r) => ({ id: ref("attribute", r) })));
      } else if (it.kind === "class") {
        d = classDef(id, nsId, it.name, it.refs.map((r) => ref("facet", r)));
      } else {
        const target = ref("class", it.refs[0] ?? { n: i, stray: 1 });
        d = extensionDef(id, nsId, it.name, target, it.refs.map((r) => ref("facet", r)));
      }
      defs.push({ ...d, alive: it.dead !== 0 });
    });
    return defs;
  });

/** A world and a permutation of it with repeats (as a replica might receive it). */
const arbWorldAndArrival = arbWorld.chain((defs) =>
  fc.tuple(
    fc.constant(defs),
    fc.shuffledSubarray(defs, { minLength: defs.length, maxLength: defs.length }),
    fc.subarray(defs),
  ),
);

describe("order and repetition independence", () => {
  test("any permutation with repeats compiles to the same schema", () => {
    fc.assert(
      fc.property(arbWorldAndArrival, ([defs, shuffled, repeats]) => {
        const arrival = structuredClone([...shuffled, ...repeats]);
        expect(snapshot(compileSchema(arrival))).toBe(snapshot(compileSchema(defs)));
      }),
      { numRuns: 300 },
    );
  });

  test("every live definition is joined or quarantined, exactly once", () => {
    fc.assert(
      fc.property(arbWorld, (defs) => {
        const s = compileSchema(defs);
        const joined = joinedIds(s);
        const quarantined = s.quarantined.map((q) => q.id);
        expect(new Set(quarantined).size).toBe(quarantined.length);
        for (const id of quarantined) expect(joined.has(id)).toBe(false);
        const live = defs.filter((d) => d.alive).map((d) => d.id);
        expect(new Set([...joined, ...quarantined])).toEqual(new Set(live));
        for (const q of s.quarantined) expect(q.reason.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });
});

/**
 * Few names, many definitions, in one namespace: duplicates across kinds (one caseless
 * universe) whose references point at one another, so holders fail on other names' holders
 * and runners-up, and the election of wire names runs in rounds.
 */
const dupKinds = ["attribute", "facet", "class"] as const;
const arbDuplicates: fc.Arbitrary<DefinitionInput[]> = fc
  .array(
    fc.record({
      kind: fc.constantFrom(...dupKinds),
      name: fc.constantFrom("p", "P", "q", "Q", "r"),
      refs: fc.array(fc.record({ n: fc.nat(), stray: fc.nat({ max: 9 }) }), { maxLength: 3 }),
      dead: fc.nat({ max: 9 }),
    }),
    { maxLength: 16 },
  )
  .map((items) => {
    const ns = gid(1);
    const ids = items.map((_, i) => gid(100 + i));
    const ofKind = (k: string) => ids.filter((_, i) => items[i]?.kind === k);
    // Mostly a definition of the set of the kind wanted; now and then any, or one never sent.
    const ref = (k: string, r: { n: number; stray: number }) => {
      const pool = r.stray === 0 ? [...ids, gid(999)] : ofKind(k);
      return pool[r.n % Math.max(pool.length, 1)] ?? gid(999);
    };
    const defs: DefinitionInput[] = [...base.defs, namespaceDef(ns, "org.dup")];
    items.forEach((it, i) => {
      const id = gid(100 + i);
      let d: DefinitionInput;
      if (it.kind === "attribute") {
        d = attributeDef(id, ns, it.name, { legalMeta: it.refs.map((r) => ref("attribute", r)) });
      } else if (it.kind === "facet") {
        d = facetDef(id, ns, it.name, it.refs.map((r) => ({ id: ref("attribute", r) })));
      } else {
        d = classDef(id, ns, it.name, it.refs.map((r) => ref("facet", r)));
      }
      defs.push({ ...d, alive: it.dead !== 0 });
    });
    return defs;
  });

describe("duplicate names", () => {
  test("never throw, and compile to the same schema in any order", () => {
    fc.assert(
      fc.property(
        arbDuplicates.chain((defs) =>
          fc.tuple(fc.constant(defs), fc.shuffledSubarray(defs, { minLength: defs.length })),
        ),
        ([defs, shuffled]) => {
          const s = compileSchema(defs);
          expect(snapshot(compileSchema([...shuffled, ...defs.slice(0, 3)]))).toBe(snapshot(s));
          const joined = joinedIds(s);
          const quarantined = s.quarantined.map((q) => q.id);
          expect(new Set(quarantined).size).toBe(quarantined.length);
          const live = defs.filter((d) => d.alive).map((d) => d.id);
          expect(new Set([...joined, ...quarantined])).toEqual(new Set(live));
        },
      ),
      { numRuns: 1000 },
    );
  });

  test("a name goes to nobody only when none of its definitions joins beside the schema", () => {
    fc.assert(
      fc.property(arbDuplicates, (defs) => {
        const s = compileSchema(defs);
        const joined = joinedIds(s);
        const ours = defs.filter((d) => joined.has(d.id) && d.namespaceId !== null);
        const held = new Set(ours.map((d) => d.name.toLowerCase()));
        const kept = defs.filter((d) => !d.alive || joined.has(d.id) || d.namespaceId === null);
        for (const q of s.quarantined) {
          const d = defs.find((x) => x.id === q.id);
          if (d === undefined || held.has(d.name.toLowerCase())) continue;
          // Alone beside what joined (and the tombstones), it still waits, or it gave way in a
          // deadlock of names, where no choice is lowest-id-whose-references-join.
          const alone = joinedIds(compileSchema([...kept, d])).has(d.id);
          if (alone) expect(q.reason).toContain("gave way");
        }
      }),
      { numRuns: 1000 },
    );
  });
});

/** A consistent world: unique names, references only to earlier definitions or the base. */
const arbConsistent: fc.Arbitrary<DefinitionInput[]> = fc
  .array(
    fc.record({
      kind: fc.constantFrom("attribute", "facet", "class", "extension"),
      refs: fc.array(fc.nat(), { maxLength: 3 }),
    }),
    { maxLength: 25 },
  )
  .map((items) => {
    const ns = gid(1);
    const defs: DefinitionInput[] = [namespaceDef(ns, "com.example")];
    const ofKind: Record<string, string[]> = {
      attribute: base.defs.filter((d) => d.className === "attributeDefinition").map((d) => d.id),
      facet: base.defs.filter((d) => d.className === "facetDefinition").map((d) => d.id),
      class: base.defs.filter((d) => d.className === "classDefinition").map((d) => d.id),
    };
    const pick = (kind: string, r: number) => {
      const list = ofKind[kind] ?? [];
      return list[r % list.length] ?? gid(999);
    };
    items.forEach((it, i) => {
      const id = gid(100 + i);
      const name = `n${i}`;
      if (it.kind === "attribute") {
        const legalMeta = it.refs.map((r) => pick("attribute", r));
        defs.push(attributeDef(id, ns, name, { legalMeta }));
      } else if (it.kind === "facet") {
        defs.push(facetDef(id, ns, name, it.refs.map((r) => ({ id: pick("attribute", r) }))));
      } else if (it.kind === "class") {
        defs.push(classDef(id, ns, name, it.refs.map((r) => pick("facet", r))));
      } else {
        const facets = it.refs.map((r) => pick("facet", r));
        defs.push(extensionDef(id, ns, name, pick("class", i), [...facets, pick("facet", i)]));
        return;
      }
      ofKind[it.kind]?.push(id);
    });
    return [...base.defs, ...defs];
  });

describe("quarantine is transient", () => {
  test("a consistent set compiles clean; any received part joins a subset of it", () => {
    fc.assert(
      fc.property(
        arbConsistent.chain((defs) => fc.tuple(fc.constant(defs), fc.subarray(defs))),
        ([defs, part]) => {
          const full = compileSchema(defs);
          expect(full.quarantined).toEqual([]);
          const partial = compileSchema(part);
          const fullJoined = joinedIds(full);
          for (const id of joinedIds(partial)) expect(fullJoined.has(id)).toBe(true);
          // The rest arriving later heals the replica, whatever it held before.
          expect(snapshot(compileSchema([...part, ...defs]))).toBe(snapshot(full));
        },
      ),
      { numRuns: 200 },
    );
  });
});

const junkString = fc.oneof(
  fc.string(),
  fc.constantFrom(
    "attributeDefinition", "facetDefinition", "classDefinition", "classExtension",
    "schemaNamespace", "true", "false", "string", "caseless", "exact", "CN", "active", "x",
    "com.example", "a", gid(1), gid(2), gid(3), gid(4), ...baseIds.slice(0, 6),
  ),
);
const junkKey = fc.oneof(
  fc.string(),
  fc.constantFrom(
    "syntax", "singleValued", "matching", "legalMeta", "aliases", "lifecycle", "system",
    "attributes", "facets", "dnPrefix", "targetClass", "instantiable", "required", "__proto__",
  ),
);
const junkValue = fc.record(
  { value: junkString, meta: fc.dictionary(junkKey, fc.array(junkString, { maxLength: 2 })) },
  { requiredKeys: ["value"] },
);
const junkDefinition: fc.Arbitrary<DefinitionInput> = fc.record({
  id: fc.oneof(fc.constantFrom(gid(1), gid(2), gid(3), gid(4), baseIds[0] ?? ""), fc.string()),
  className: junkString,
  name: junkString,
  namespaceId: fc.option(junkString, { nil: null }),
  alive: fc.boolean(),
  values: fc.dictionary(junkKey, fc.array(junkValue, { maxLength: 3 })),
});

describe("totality", () => {
  test("garbage of the declared type never throws and keeps the partition", () => {
    fc.assert(
      fc.property(fc.array(junkDefinition, { maxLength: 12 }), fc.boolean(), (junk, withBase) => {
        const defs = withBase ? [...base.defs, ...junk] : junk;
        const s = compileSchema(defs);
        expect(snapshot(compileSchema([...defs].reverse()))).toBe(snapshot(s));
        const joined = joinedIds(s);
        for (const q of s.quarantined) expect(joined.has(q.id)).toBe(false);
        // A tombstone absorbs: an id is live when every copy of it is alive.
        const canonical = (id: string) => parseGuid(id) ?? id;
        const dead = new Set(defs.filter((d) => !d.alive).map((d) => canonical(d.id)));
        const live = new Set(defs.map((d) => canonical(d.id)).filter((id) => !dead.has(id)));
        expect(new Set([...joined, ...s.quarantined.map((q) => q.id)])).toEqual(live);
        for (const d of junk) {
          surfaceOf(s, d.className, [d.id, d.name]);
          definitionDependents(defs, d.id);
        }
      }),
      { numRuns: 500 },
    );
  });

  test("values that break the declared types never throw either", () => {
    fc.assert(
      fc.property(fc.array(fc.anything(), { maxLength: 6 }), (junk) => {
        const defs = [...base.defs, ...junk] as DefinitionInput[];
        const s = compileSchema(defs);
        expect(s.attributes.length).toBeGreaterThan(0);
        definitionDependents(defs, gid(1));
      }),
      { numRuns: 500 },
    );
  });

  test("non-array and deformed fields are quarantined, not thrown on", () => {
    const good = attributeDef(gid(10), gid(1), "a");
    const deformed = [
      { ...good, values: { ...good.values, syntax: "string" } },
      { ...good, id: gid(11), values: { ...good.values, aliases: [{ value: 7 }] } },
      { ...good, id: gid(12), values: { ...good.values, legalMeta: [{ value: gid(1), meta: 3 }] } },
    ] as unknown as DefinitionInput[];
    const s = compileSchema([...base.defs, namespaceDef(gid(1), "com.example"), ...deformed]);
    expect(s.quarantined.map((q) => q.reason)).toEqual([
      "malformed values in syntax; incomplete: missing syntax",
      "malformed values in aliases",
      "malformed values in legalMeta",
    ]);
  });
});
