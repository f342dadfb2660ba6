/**
 * Goal: under chaos, where every node boots again and again and every boot re-mints its
 * invocation, no node's up-to-dateness vector (what `GET /api/node` shows as `utd`, and what
 * every pull request carries) grows with the boots: it stays a few entries per node
 * (core/repl/vector-bound.ts). Method: ten simulated minutes of the chaos preset on five
 * nodes, in a full mesh and in a ring (where each node pulls from two others and keeps the
 * rest only as relayed entries); the run must pass every oracle, the nodes must have re-minted
 * far more invocations than the bound, and the largest vector must stay within it.
 */
import { describe, expect, it } from "vitest";
import { newestEntriesKept } from "../../core/repl/vector-bound";
import { presetScenario } from "../scenario/swarm";
import { runScenario } from "../scenario/run-scenario";
import type { DirectoryWorld } from "./directory-world";

const nodes = 5;

describe("vectors under chaos", () => {
  for (const topology of ["mesh", "ring"] as const) {
    it(`stay a few entries per node however often nodes boot (${topology})`, () => {
      const s = presetScenario({ preset: "chaos", nodes, rate: 5, safetyMs: 600_000 });
      let world: DirectoryWorld | null = null;
      const r = runScenario(
        { ...s, topology: topology === "mesh" ? s.topology : { kind: "ring" } },
        { seed: 3, afterEvent: (dw) => void (world = dw) },
      );
      expect(r.violations).toEqual([]);
      let invocations = 0;
      for (const node of world!.nodes().values()) invocations += node.replication.retired.length + 1;
      // Every one of those used to stay in every vector.
      expect(invocations).toBeGreaterThan(4 * nodes * (newestEntriesKept + 1));
      // A direct source's entries since the pull before its last completed one, at most four
      // of any other node (this node's own retired ones included): a handful per node.
      expect(r.vectorEntries).toBeGreaterThan(0);
      expect(r.vectorEntries).toBeLessThanOrEqual(nodes * (newestEntriesKept + 1));
    });
  }
});
