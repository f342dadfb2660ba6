/**
 * Goal: the shrinker turns a failing scenario into a smaller one that fails the same way,
 * dropping every knob the failure does not need (nodes, the sparser topology, contention,
 * large values, the wire form, the replication timing, the write rate, the safety length).
 * Method: a scenario whose expectation fails on every seed whatever the knobs (a created
 * object is expected deleted), shrunk from a heavy start; the result must fail with the same
 * oracle and carry none of the knobs.
 */
import { describe, expect, it } from "vitest";
import { parseScenario } from "./parse-scenario";
import { printScenario } from "./print-scenario";
import { failureKind, shrink } from "./shrink";

const heavy = parseScenario(`scenario always-fails
checks the shrinker
nodes 5
faults none
rate 4
contention share=0.5 objects=5
large-values share=0.2 bytes=100..2000
batch-bytes 4096
wire
safety 40s
topology ring
timing pullEvery=2s hintDelay=1s

at 1s n1 create / Orion organizationalUnit as @A
expect stage @A deleted
`);

describe("the shrinker", () => {
  it("never drops an image a kept rollback restores: what it prints parses", () => {
    const imaged = parseScenario(`scenario imaged
checks the shrinker
nodes 2
faults none
safety 20s

at 1s n1 create / Orion organizationalUnit as @A
at 2s image n1 k
at 4s rollback n1 k
expect stage @A deleted
`);
    const result = shrink(imaged, 1, 60, 1);
    expect(result).not.toBeNull();
    const kinds = result!.scenario.steps.map((st) => st.action.kind);
    if (kinds.includes("rollback")) expect(kinds).toContain("image");
    expect(() => parseScenario(printScenario(result!.scenario))).not.toThrow();
  });

  it("drops what the failure does not need and keeps the failure", () => {
    const result = shrink(heavy, 1, 120, 2);
    expect(result).not.toBeNull();
    const small = result!.scenario;
    expect(result!.report.pass).toBe(false);
    expect(failureKind(result!.report)).toBe("expect");
    expect(small.nodes).toBe(2);
    expect(small.topology).toEqual({ kind: "mesh" });
    expect(small.contention).toBeNull();
    expect(small.largeValues).toBeNull();
    expect(small.batchBytes).toBeNull();
    expect(small.wire).toBe(false);
    expect(small.timing).toEqual({});
    expect(small.rate).toBe(0);
    expect(small.safetyMs).toBeLessThan(heavy.safetyMs);
    expect(result!.steps).toEqual(expect.arrayContaining(["topology mesh (seed 1)", "contention off (seed 1)", "default timing (seed 1)"]));
  });

  it("halves a large domain before it drops single nodes, keeping nodes the script names", () => {
    const large = { ...heavy, nodes: 16, rate: 0, contention: null, largeValues: null, wire: false, timing: {} };
    const result = shrink(large, 1, 40, 1);
    expect(result).not.toBeNull();
    // 16 -> 8 -> 4, then one at a time: halving came first.
    expect(result!.steps.slice(0, 2)).toEqual(["nodes 8 (seed 1)", "nodes 4 (seed 1)"]);
    expect(result!.scenario.nodes).toBe(2);
    // A step on n7 keeps n1..n7: no halving below it.
    const named = parseScenario(`scenario named
checks the shrinker
nodes 12
faults none
safety 20s

at 1s n7 create / Orion organizationalUnit as @A
expect stage @A deleted
`);
    const kept = shrink(named, 1, 40, 1);
    expect(kept!.scenario.nodes).toBe(7);
    expect(kept!.steps.some((step) => step.startsWith("nodes 6"))).toBe(false);
  });
});
