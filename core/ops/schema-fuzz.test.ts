/**
 * Goal: originating schema writes are strictly gated (SPEC: a local write that would grow the
 * quarantine is refused), so no sequence of local operations, however odd, may leave a
 * quarantined definition, an alive ghost, or alive values outside an object's surface; and
 * every refusal is a value from the error table, never a thrown exception.
 * Method: fast-check generates sequences of definition creates (namespaces, attributes,
 * facets, classes, extensions) whose references point at random existing definitions (base
 * or new, alive or not), instance creates, attribute and attachedFacets writes, deletes,
 * restores, shreds and GC runs, and checks the invariants through the node facade after
 * every step.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Result } from "../errors";
import { errorStatus } from "../errors";
import type { Guid } from "../guid";
import { freshDomain, secondMs, t0Ms, unwrap } from "../testing/node-fixture";

const born = { lifecycle: ["active"], system: ["false"] };
const defNames = ["alpha", "beta", "Gamma", "delta"];
const syntaxes = ["string", "integer", "boolean", "reference", "timestamp"];
const sampleValue: Record<string, string> = {
  string: "text",
  integer: "42",
  boolean: "true",
  timestamp: "2025-01-01T00:00:00Z",
};

type Step =
  | { op: "namespace"; name: number }
  | { op: "attribute"; ns: number; name: number; syntax: number; single: boolean; meta: number[] }
  | { op: "facet"; ns: number; name: number; members: number[] }
  | {
      op: "class";
      ns: number;
      name: number;
      facets: number[];
      prefix: boolean;
      instantiable: boolean;
    }
  | { op: "extension"; ns: number; name: number; target: number; facets: number[] }
  | { op: "instance"; cls: number; name: number; attach: number[] }
  | { op: "value"; obj: number; attr: number }
  | { op: "attach"; obj: number; facets: number[] }
  | { op: "delete" | "restore" | "shred"; obj: number }
  | { op: "gc"; days: number };

const n = fc.nat({ max: 60 });
const ns = fc.array(n, { maxLength: 3 });
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 1, arbitrary: fc.record({ op: fc.constant("namespace" as const), name: n }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("attribute" as const),
      ns: n,
      name: n,
      syntax: n,
      single: fc.boolean(),
      meta: fc.array(n, { maxLength: 1 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant("facet" as const), ns: n, name: n, members: ns }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("class" as const),
      ns: n,
      name: n,
      facets: ns,
      prefix: fc.boolean(),
      instantiable: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("extension" as const),
      ns: n,
      name: n,
      target: n,
      facets: ns,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("instance" as const),
      cls: n,
      name: n,
      attach: fc.array(n, { maxLength: 2 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("value" as const), obj: n, attr: n }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("attach" as const),
      obj: n,
      facets: fc.array(n, { maxLength: 2 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constantFrom("delete" as const, "restore" as const, "shred" as const),
      obj: n,
    }),
  },
  // Mostly short hops; now and then past the restore window (30 d) or the purge horizon (180 d).
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant("gc" as const), days: fc.constantFrom(0, 1, 31, 181) }),
  },
);

describe("local operations never leave the schema or objects inconsistent", () => {
  it("holds for random operation sequences", () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 40, size: "max" }), (steps) => {
        const d = freshDomain(21);
        const node = d.node;
        const base = (name: string): Guid =>
          unwrap(node.resolvePath(`/Configuration/Schema/${name}`, t0Ms)).id;
        const namespaces: Guid[] = [];
        const attributes: Guid[] = [base("description"), base("member"), base("givenName")];
        const facets: Guid[] = [base("described"), base("person")];
        const classes: Guid[] = [base("organizationalUnit"), base("user")];
        const objects: Guid[] = [];
        const pick = <T>(list: readonly T[], i: number): T | undefined =>
          list[i % Math.max(list.length, 1)];
        const picks = <T>(list: readonly T[], is: readonly number[]): T[] => [
          ...new Set(is.map((i) => pick(list, i)).filter((x): x is T => x !== undefined)),
        ];
        let nowMs = t0Ms;
        const created = (r: Result<{ id: Guid }>, into: Guid[]): void => {
          if (r.ok) into.push(r.value.id);
        };
        for (const step of steps) {
          nowMs += secondMs;
          let result: Result<unknown>;
          const inNs = (i: number): Guid => pick(namespaces, i) ?? d.schema;
          const name = (i: number): string =>
            `${defNames[i % defNames.length]}${Math.floor(i / defNames.length)}`;
          switch (step.op) {
            case "namespace": {
              const r = node.create(
                { parent: d.schema, name: `org.n${step.name % 4}`, className: "schemaNamespace" },
                nowMs,
              );
              created(r, namespaces);
              result = r;
              break;
            }
            case "attribute": {
              const syntax = syntaxes[step.syntax % syntaxes.length]!;
              const attrs: Record<string, string[]> = {
                ...born,
                syntax: [syntax],
                singleValued: [String(step.single)],
                matching: ["exact"],
              };
              const meta = picks(attributes, step.meta);
              if (meta.length > 0) attrs["legalMeta"] = meta;
              const r = node.create(
                {
                  parent: inNs(step.ns),
                  name: name(step.name),
                  className: "attributeDefinition",
                  attributes: attrs,
                },
                nowMs,
              );
              created(r, attributes);
              result = r;
              break;
            }
            case "facet": {
              const r = node.create(
                {
                  parent: inNs(step.ns),
                  name: name(step.name),
                  className: "facetDefinition",
                  attributes: { ...born, attributes: picks(attributes, step.members) },
                },
                nowMs,
              );
              created(r, facets);
              result = r;
              break;
            }
            case "class": {
              const attrs: Record<string, string[]> = {
                ...born,
                facets: picks(facets, step.facets),
                instantiable: [String(step.instantiable)],
              };
              if (step.prefix) attrs["dnPrefix"] = ["X-P"];
              const r = node.create(
                {
                  parent: inNs(step.ns),
                  name: name(step.name),
                  className: "classDefinition",
                  attributes: attrs,
                },
                nowMs,
              );
              created(r, classes);
              result = r;
              break;
            }
            case "extension": {
              const target = pick(classes, step.target)!;
              const r = node.create(
                {
                  parent: inNs(step.ns),
                  name: name(step.name),
                  className: "classExtension",
                  attributes: {
                    ...born,
                    targetClass: [target],
                    facets: picks(facets, step.facets),
                  },
                },
                nowMs,
              );
              result = r;
              if (r.ok) objects.push(r.value.id);
              break;
            }
            case "instance": {
              const clsId = pick(classes, step.cls)!;
              // Classes are addressed by wire name; a deleted one has none any more.
              const wire =
                unwrap(node.schema()).classes.find((c) => c.id === clsId)?.name ?? "org.gone-class";
              const attached = picks(facets, step.attach);
              const attributes = attached.length > 0 ? { attachedFacets: attached } : {};
              const r = node.create(
                { parent: d.root, name: `i${step.name}`, className: wire, attributes },
                nowMs,
              );
              created(r, objects);
              result = r;
              break;
            }
            case "value": {
              const obj = pick(objects, step.obj);
              const attrId = pick(attributes, step.attr)!;
              const attr = unwrap(node.schema()).attributes.find((a) => a.id === attrId);
              if (obj === undefined || attr === undefined) continue;
              const value =
                attr.syntax === "reference" ? d.root : (sampleValue[attr.syntax] ?? "v");
              result = node.putAttribute(obj, attr.name, [value], nowMs);
              break;
            }
            case "attach": {
              const obj = pick(objects, step.obj);
              if (obj === undefined) continue;
              result = node.putAttribute(obj, "attachedFacets", picks(facets, step.facets), nowMs);
              break;
            }
            case "delete":
            case "restore":
            case "shred": {
              const all = [
                ...namespaces,
                ...attributes.slice(3),
                ...facets.slice(2),
                ...classes.slice(2),
                ...objects,
              ];
              const target = pick(all, step.obj);
              if (target === undefined) continue;
              result =
                step.op === "delete"
                  ? node.delete(target, nowMs)
                  : step.op === "restore"
                    ? node.restore(target, nowMs)
                    : node.shred(target, nowMs);
              break;
            }
            case "gc":
              nowMs += step.days * 24 * 3600 * secondMs;
              result = node.gc(nowMs);
              break;
          }
          if (!result.ok) expect(Object.keys(errorStatus)).toContain(result.code);
          const schema = unwrap(node.schema());
          expect({ step, quarantined: schema.quarantined }).toEqual({ step, quarantined: [] });
          const permittedBy = new Map(
            schema.facets.map((f) => [f.name, f.attributes.map((m) => m.name)]),
          );
          for (const id of objects) {
            const p = node.object(id, nowMs);
            if (!p.ok || p.value.stage !== "alive") continue;
            expect({ step, id, ghost: p.value.ghost }).toEqual({ step, id, ghost: false });
            const permitted = new Set([
              "attachedFacets",
              ...p.value.facets.flatMap((f) => permittedBy.get(f) ?? []),
            ]);
            const outside = p.value.attributes
              .filter((a) => a.values.length > 0 && !permitted.has(a.name))
              .map((a) => a.name);
            expect({ step, id, outside }).toEqual({ step, id, outside: [] });
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
