/**
 * Goal: a definition quarantined for good as a duplicate (the same namespace and attribute
 * defined on two nodes apart: the lowest id wins, the other waits) can be deleted even when
 * objects hold values under the shared name: those values are the compiled winner's, so the
 * unused-delete rule must not count them against the loser (diff review, twenty-seventh
 * session: `definition-in-use: still used by object Zed` kept the duplicate for good). A
 * quarantined attribute whose name no compiled one holds still counts its values' holders.
 * Method: two nodes driven directly, each defining com.example and its attribute badge; after
 * they pull from each other, an object holds a value under the winner, and the loser's
 * namespace is deleted.
 */
import { describe, expect, it } from "vitest";
import { DirectoryNode } from "../node/directory-node";
import { freshDomain, make, outcome, t0Ms, unwrap } from "../testing/node-fixture";
import { pullCycle } from "../testing/pull-cycle";
import { seededRandom } from "../testing/seeded-random";

const s = 1000;
const born = { lifecycle: ["active"], system: ["false"] };
const attr = { ...born, syntax: ["string"], singleValued: ["true"], matching: ["caseless"] };

describe("a duplicate definition quarantined for good", () => {
  it("is deletable though objects hold values under the name the winner holds", () => {
    const d = freshDomain(3);
    const n1 = d.node;
    const n2 = DirectoryNode.joining(seededRandom(103));
    pullCycle(n1, n2, t0Ms);
    pullCycle(n2, n1, t0Ms);
    const ns1 = make(n1, d.schema, "com.example", "schemaNamespace", t0Ms + s);
    const a1 = make(n1, ns1, "badge", "attributeDefinition", t0Ms + s, attr);
    const ns2 = make(n2, d.schema, "com.example", "schemaNamespace", t0Ms + s);
    const a2 = make(n2, ns2, "badge", "attributeDefinition", t0Ms + s, attr);
    pullCycle(n1, n2, t0Ms + 2 * s);
    pullCycle(n2, n1, t0Ms + 2 * s);
    const quarantined = unwrap(n1.schema()).quarantined.map((q) => q.id);
    const [lost, won, wonAttr] = quarantined.includes(ns1) ? [ns1, ns2, a2] : [ns2, ns1, a1];
    expect(quarantined).toContain(lost);
    expect(quarantined).not.toContain(won);
    const facet = make(n1, won, "badged", "facetDefinition", t0Ms + 3 * s, { ...born, attributes: [wonAttr] });
    make(n1, d.root, "Zed", "organizationalUnit", t0Ms + 4 * s, {
      attachedFacets: [facet],
      "com.example-badge": ["B-1"],
    });
    expect(outcome(n1.delete(lost, t0Ms + 5 * s))).toBe("ok");
    // The winner is still in use.
    expect(outcome(n1.delete(won, t0Ms + 6 * s))).toBe("definition-in-use");
  });
});
