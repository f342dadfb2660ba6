/**
 * Goal: a namespaced definition that reaches a node before its namespace waits for it, and
 * never stands for a base definition of the same name (SPEC: the unprefixed definition
 * namespace is reserved forever). The namespace comes after its definitions when another node
 * deleted and restored it (the restore re-stamps it after them). Taken for unprefixed, a
 * namespaced `description` with a lower id than the base one displaced it, and every base
 * class over `described` with it (schema audit, twenty-eighth session).
 * Method: three nodes driven directly; n3 pulls from n1 one object per batch and stops as
 * soon as it holds the definition and not yet its namespace.
 */
import { expect, it } from "vitest";
import type { Guid } from "../guid";
import { DirectoryNode } from "../node/directory-node";
import { freshDomain, make, outcome, t0Ms, unwrap } from "../testing/node-fixture";
import { seededRandom } from "../testing/seeded-random";

function pull(source: DirectoryNode, dest: DirectoryNode, now: number): void {
  let req = dest.replicator.pullRequest(source.dir.nodeId, now, 50);
  for (let round = 0; req !== null && round < 1000; round++) {
    req = dest.replicator.receive(source.replicator.answer(req, now), now);
  }
  expect(req).toBeNull();
}

/** Pulls one object per batch until `done` holds; fails if the pull ends first. */
function pullUntil(source: DirectoryNode, dest: DirectoryNode, now: number, done: () => boolean): void {
  let req = dest.replicator.pullRequest(source.dir.nodeId, now, 1);
  for (let round = 0; !done() && req !== null && round < 1000; round++) {
    req = dest.replicator.receive(source.replicator.answer(req, now), now);
  }
  expect(done()).toBe(true);
}

const born = { lifecycle: ["active"], system: ["false"] };

it.each([1, 2, 3, 4, 5, 6])(
  "a namespaced `description` arriving before its namespace waits for it, and base writes go on (seed %i)",
  (seed) => {
    const d = freshDomain(seed);
    const n1 = d.node;
    const n2 = DirectoryNode.joining(seededRandom(seed + 100));
    const n3 = DirectoryNode.joining(seededRandom(seed + 200));
    pull(n1, n2, t0Ms);
    pull(n1, n3, t0Ms);
    const ou = make(n1, d.root, "Probe", "organizationalUnit", t0Ms + 500);
    pull(n1, n3, t0Ms + 600);
    const ns = make(n1, d.schema, "org.audit", "schemaNamespace", t0Ms + 1000);
    pull(n1, n2, t0Ms + 1500);
    unwrap(n2.delete(ns, t0Ms + 2000));
    unwrap(n2.restore(ns, t0Ms + 2500));
    const attrs = { ...born, syntax: ["string"], singleValued: ["true"], matching: ["caseless"] };
    const early: Guid = make(n1, ns, "description", "attributeDefinition", t0Ms + 3000, attrs);
    pull(n2, n1, t0Ms + 3500);
    pullUntil(n1, n3, t0Ms + 4000, () => n3.dir.get(early) !== undefined);
    expect(n3.dir.get(ns)).toBeUndefined();

    const baseDescription = n1.dir.schema.attribute("description")?.id;
    expect(baseDescription).toBeDefined();
    expect(n3.dir.schema.attribute("description")?.id).toBe(baseDescription);
    expect(n3.dir.schema.quarantined.find((q) => q.id === early)?.reason).toBe(`waiting for namespace ${ns}`);
    expect(n3.dir.schema.classes.length).toBe(n1.dir.schema.classes.length);
    expect(outcome(n3.putAttribute(ou, "description", [{ value: "still base" }], t0Ms + 4500))).toBe("ok");

    pull(n1, n3, t0Ms + 5000);
    expect(n3.dir.schema.attribute("org.audit-description")?.id).toBe(early);
    expect(n3.dir.schema.attribute("description")?.id).toBe(baseDescription);
    expect(n3.dir.schema.quarantined).toEqual([]);
  },
);
