/**
 * Goal: nodes holding the same atoms render the same payload (DESIGN) when one wire name was
 * defined in two casings at once. Two nodes each define `org.audit-tag` / `org.audit-TAG` and
 * write a value through their own definition; after the merge the lowest id wins, the other
 * waits quarantined, and the record holds values under both stored spellings. Both render
 * under the winner's name, and their order was each node's arrival order (multi-valued audit,
 * twenty-fifth session). A PUT replaces the values under both spellings: PUT [] left those
 * under the losing one for good (merge audit, twenty-seventh session).
 * Method: two nodes, each writing through its own definition, meshed by pulls; the rendered
 * attributes of the object are compared between the nodes.
 */
import { describe, expect, it } from "vitest";
import { DirectoryNode } from "../node/directory-node";
import { freshDomain, make, secondMs, t0Ms, unwrap } from "../testing/node-fixture";
import { seededRandom } from "../testing/seeded-random";

function pull(source: DirectoryNode, dest: DirectoryNode, now: number): void {
  let req = dest.replicator.pullRequest(source.dir.nodeId, now, 50);
  for (let round = 0; req !== null && round < 100; round++) {
    req = dest.replicator.receive(source.replicator.answer(req, now), now);
  }
  expect(req).toBeNull();
}

function mesh(a: DirectoryNode, b: DirectoryNode, now: number): void {
  for (let round = 0; round < 2; round++) {
    pull(a, b, now);
    pull(b, a, now);
  }
}

describe("values under two casings of one attribute name", () => {
  it("render in the same order on every node", () => {
    const d = freshDomain();
    const a = d.node;
    const b = DirectoryNode.joining(seededRandom(11));
    let t = t0Ms + 10 * secondMs;
    mesh(a, b, t);
    const ns = make(a, d.schema, "org.audit", "schemaNamespace", t);
    const x = make(a, d.root, "Holder", "organizationalUnit", t);
    mesh(a, b, t);
    t += secondMs;
    const born = { lifecycle: ["active"], system: ["false"] };
    const attribute = (n: DirectoryNode, name: string) =>
      make(n, ns, name, "attributeDefinition", t, {
        ...born,
        syntax: ["string"],
        singleValued: ["false"],
        matching: ["caseless"],
      });
    const lower = attribute(a, "tag");
    const upper = attribute(b, "TAG");
    const facetA = make(a, ns, "taggedA", "facetDefinition", t, { ...born, attributes: [lower] });
    const facetB = make(b, ns, "taggedB", "facetDefinition", t, { ...born, attributes: [upper] });
    unwrap(a.putAttribute(x, "attachedFacets", [facetA], t));
    unwrap(b.putAttribute(x, "attachedFacets", [facetB], t + 1));
    unwrap(a.putAttribute(x, "org.audit-tag", ["one"], t));
    unwrap(b.putAttribute(x, "org.audit-TAG", ["two"], t + 1));
    t += secondMs;
    mesh(a, b, t);
    const rendered = (n: DirectoryNode) =>
      unwrap(n.object(x, t)).attributes.map((e) => [e.name, e.values.map((v) => v.value)]);
    const twins = rendered(a).filter(([name]) => String(name).toLowerCase() === "org.audit-tag");
    expect(twins).toHaveLength(2);
    expect(rendered(b)).toEqual(rendered(a));
    // A PUT through either spelling replaces both; on every node once they meet.
    const tagValues = (n: DirectoryNode) =>
      rendered(n)
        .filter(([name]) => String(name).toLowerCase() === "org.audit-tag")
        .flatMap(([, values]) => values as string[])
        .sort();
    expect(tagValues(a)).toEqual(["one", "two"]);
    unwrap(a.putAttribute(x, "org.audit-TAG", ["three"], t));
    expect(tagValues(a)).toEqual(["three"]);
    t += secondMs;
    mesh(a, b, t);
    expect(tagValues(b)).toEqual(["three"]);
    t += secondMs;
    unwrap(b.putAttribute(x, "org.audit-tag", [], t));
    mesh(a, b, t);
    expect(tagValues(a)).toEqual([]);
    expect(tagValues(b)).toEqual([]);
  });
});
