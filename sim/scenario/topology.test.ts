import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nodeIds } from "./scenario";
import { diameterAmong, neighbours, topologyEdges, type Topology } from "./topology";

const edgeText = (t: Topology, n: number): string[] => topologyEdges(t, n).map(([a, b]) => `n${a + 1}-n${b + 1}`);

describe("replication topologies", () => {
  it("draws each shape's edges", () => {
    expect(edgeText({ kind: "line" }, 4)).toEqual(["n1-n2", "n2-n3", "n3-n4"]);
    expect(edgeText({ kind: "ring" }, 4)).toEqual(["n1-n2", "n2-n3", "n3-n4", "n1-n4"]);
    expect(edgeText({ kind: "star" }, 4)).toEqual(["n1-n2", "n1-n3", "n1-n4"]);
    expect(edgeText({ kind: "mesh" }, 3)).toEqual(["n1-n2", "n1-n3", "n2-n3"]);
    // Two nodes: a ring is one edge, not the same edge twice.
    expect(edgeText({ kind: "ring" }, 2)).toEqual(["n1-n2"]);
    expect(edgeText({ kind: "line" }, 1)).toEqual([]);
  });

  it("gives each node its neighbours both ways", () => {
    const near = neighbours({ kind: "star" }, nodeIds(4));
    expect(Object.fromEntries(near)).toEqual({ n1: ["n2", "n3", "n4"], n2: ["n1"], n3: ["n1"], n4: ["n1"] });
  });

  it("measures diameters, and null when the nodes asked about are cut apart", () => {
    const ids = nodeIds(6);
    expect(diameterAmong({ kind: "mesh" }, ids, ids)).toBe(1);
    expect(diameterAmong({ kind: "line" }, ids, ids)).toBe(5);
    expect(diameterAmong({ kind: "ring" }, ids, ids)).toBe(3);
    expect(diameterAmong({ kind: "star" }, ids, ids)).toBe(2);
    // n1 and n3 talk only through n2 in a line: among themselves they are cut apart.
    expect(diameterAmong({ kind: "line" }, ids, ["n1", "n3"])).toBeNull();
    expect(diameterAmong({ kind: "line" }, ids, ["n2", "n3", "n4"])).toBe(2);
  });

  it("draws sparse graphs that are connected, simple and the same for the same seed", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 1, max: 9 }), (seed, n) => {
        const t: Topology = { kind: "sparse", seed };
        const edges = edgeText(t, n);
        expect(new Set(edges).size).toBe(edges.length);
        for (const [a, b] of topologyEdges(t, n)) expect(a).toBeLessThan(b);
        // A spanning tree at least, the full mesh at most.
        expect(edges.length).toBeGreaterThanOrEqual(n - 1);
        expect(edges.length).toBeLessThanOrEqual((n * (n - 1)) / 2);
        expect(diameterAmong(t, nodeIds(n), nodeIds(n))).not.toBeNull();
        expect(edgeText(t, n)).toEqual(edges);
      }),
    );
    // Not always a tree, not always the mesh: seeds differ.
    const sizes = new Set(Array.from({ length: 40 }, (_, seed) => topologyEdges({ kind: "sparse", seed }, 7).length));
    expect(sizes.size).toBeGreaterThan(2);
  });
});
