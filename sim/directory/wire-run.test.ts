/**
 * Goal: replication is the same whether messages travel as objects or in their wire form
 * (core/repl/wire.ts, what the fabric will carry): the wire drops nothing a receiver reads,
 * and no node depends on sharing objects with a peer (a receiver that kept or changed a
 * sender's objects would see them change, or duplicates would alias). Method: scenarios that
 * exercise rollbacks, schema arriving before its dependencies, partitions, ghosts, cycles,
 * tombstone ageing, disk faults and objects sent in parts run on a few seeds with and without the scenario line
 * `wire` (each delivered copy decoded afresh); every pair must pass with identical traces,
 * and a difference names the first divergent event.
 */
import { describe, expect, it } from "vitest";
import { loadScenario } from "../scenario/battery";
import { pullCycleScenarios } from "./pull-cycle-scenarios";
import { firstDivergence } from "../trace";
import { parseScenario } from "../scenario/parse-scenario";
import { printScenario } from "../scenario/print-scenario";
import { runScenario } from "../scenario/run-scenario";
import type { Scenario } from "../scenario/scenario";
import { swarmScenario } from "../scenario/swarm";

function compare(s: Scenario, seed: number): string | null {
  const plain = runScenario({ ...s, wire: false }, { seed });
  const wired = runScenario({ ...s, wire: true }, { seed });
  if (!wired.pass) return `${s.name} seed ${seed} fails on the wire: ${wired.violations.slice(0, 2).join("; ")}`;
  if (plain.traceHash === wired.traceHash) return null;
  const a = runScenario({ ...s, wire: false }, { seed, keepTrace: true });
  const b = runScenario({ ...s, wire: true }, { seed, keepTrace: true });
  const d = firstDivergence(a.trace, b.trace);
  return `${s.name} seed ${seed} runs differently on the wire: ${d === null ? "?" : `line ${d.index}: ${d.a} | ${d.b}`}`;
}

const files = [
  ...pullCycleScenarios,
  // Batches ending inside objects: the cursor crosses the wire in requests and batches.
  "scenarios/large-objects-in-parts.scn",
];

describe("replication over the wire form", () => {
  for (const file of files) {
    it(`${file} runs identically with every message on the wire`, () => {
      const s = loadScenario(file);
      const failures = [1, 2].map((seed) => compare(s, seed)).filter((f) => f !== null);
      expect(failures).toEqual([]);
    });
  }

  it("swarm seeds run identically with every message on the wire", () => {
    const failures = [1, 2, 3, 4, 5, 6, 7, 8].map((seed) => compare(swarmScenario(seed), seed)).filter((f) => f !== null);
    expect(failures).toEqual([]);
  });

  it("a scenario file turns the wire on with its line `wire`", () => {
    const s = parseScenario("scenario w\nchecks DESIGN\nnodes 2\nrate 1\nsafety 5s\nwire\n");
    expect(s.wire).toBe(true);
    expect(printScenario(s)).toContain("\nwire\n");
    expect(() => parseScenario("scenario w\nchecks DESIGN\nnodes 2\nsafety 5s\nwire on\n")).toThrow(/wire takes no arguments/);
  });
});
