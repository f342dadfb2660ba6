// Goal: prove the simulator end to end with a toy replicated node: runs are reproducible bit
// for bit from the seed, seeds explore different schedules, every fault preset heals to
// convergence with no acked write lost, partitions and one-way cuts block what they should,
// and a crash loses only unsynced data. Method: whole scenarios of the grow-only-set toy on
// fixed seeds, compared by trace hash (and line by line with firstDivergence), plus small
// hand-driven worlds for the blocking and crash cases.
import { describe, expect, it } from "vitest";
import { presetFaults, presetNames, swarmFaults } from "../faults";
import { Prng } from "../prng";
import { firstDivergence } from "../trace";
import type { GSetWorld } from "./gset-world";
import { gsetConverged, gsetWorld } from "./gset-world";

const scenario = { safetyMs: 30_000, livenessMs: 30_000, checkEveryMs: 100 };

function run(g: GSetWorld): ReturnType<GSetWorld["world"]["runScenario"]> {
  return g.world.runScenario({ ...scenario, converged: () => gsetConverged(g) });
}

describe("toy: determinism", () => {
  it.each(presetNames)("same seed, same trace hash (%s)", (preset) => {
    const a = gsetWorld({ seed: 77, nodeCount: 4, faults: presetFaults(preset), writeGapMs: 40 });
    const b = gsetWorld({ seed: 77, nodeCount: 4, faults: presetFaults(preset), writeGapMs: 40 });
    const ra = run(a);
    const rb = run(b);
    expect(ra.traceHash).toBe(rb.traceHash);
    expect(ra.events).toBe(rb.events);
    expect(a.world.trace.length).toBe(b.world.trace.length);
  });

  it("different seeds differ; firstDivergence points at the first differing line", () => {
    const a = gsetWorld({ seed: 1, nodeCount: 3, writeGapMs: 40, keepTrace: true });
    const b = gsetWorld({ seed: 2, nodeCount: 3, writeGapMs: 40, keepTrace: true });
    const same = gsetWorld({ seed: 1, nodeCount: 3, writeGapMs: 40, keepTrace: true });
    expect(run(a).traceHash).not.toBe(run(b).traceHash);
    run(same);
    expect(firstDivergence(a.world.trace.lines(), same.world.trace.lines())).toBeNull();
    const d = firstDivergence(a.world.trace.lines(), b.world.trace.lines());
    expect(d).not.toBeNull();
    expect(d?.a).not.toBe(d?.b);
    const prefix = (g: GSetWorld): readonly string[] => g.world.trace.lines().slice(0, d?.index);
    expect(prefix(a)).toEqual(prefix(b));
  });
});

describe("toy: convergence after heal under every preset", () => {
  it.each(presetNames)("%s: 6 seeds converge, nothing acked is lost", (preset) => {
    for (let seed = 1; seed <= 6; seed++) {
      const faults = swarmFaults(presetFaults(preset), new Prng(seed).fork("swarm"));
      const g = gsetWorld({ seed, nodeCount: 2 + (seed % 4), faults, writeGapMs: 30 });
      const result = run(g);
      expect(result.converged, `${preset} seed ${seed}`).toBe(true);
      expect(result.stop).toBe("predicate");
      expect(g.required.size).toBeGreaterThan(100);
    }
  });

  it("the faults of each preset really happen", () => {
    type Fault = "loss" | "dup" | "partition" | "crash" | "torn" | "jump" | "rollback";
    type Counts = Record<Fault, number>;
    const counts = (preset: (typeof presetNames)[number], seed = 5): Counts => {
      const faults = presetFaults(preset);
      const g = gsetWorld({ seed, nodeCount: 4, faults, writeGapMs: 30, keepTrace: true });
      run(g);
      const world = g.world;
      const lines = world.trace.lines();
      const count = (pattern: RegExp): number => lines.filter((l) => pattern.test(l)).length;
      return {
        loss: world.networkStats.droppedLoss,
        dup: world.networkStats.duplicated,
        partition: count(/ (partition|cut) /),
        crash: count(/ crash /),
        torn: count(/ crash torn=[^-]/),
        jump: count(/ clock-jump /),
        rollback: count(/ rollback /),
      };
    };
    const none: Counts = { loss: 0, dup: 0, partition: 0, crash: 0, torn: 0, jump: 0, rollback: 0 };
    const sum = (preset: (typeof presetNames)[number], key: keyof Counts): number =>
      [5, 6, 7, 8].map((seed) => counts(preset, seed)[key]).reduce((a, b) => a + b, 0);
    expect(counts("none")).toEqual(none);
    expect(counts("lossy")).toMatchObject({ loss: expect.any(Number), partition: 0, crash: 0 });
    expect(counts("lossy").loss * counts("lossy").dup).toBeGreaterThan(0);
    expect(counts("partitions")).toMatchObject({ loss: 0, crash: 0, rollback: 0 });
    expect(counts("partitions").partition).toBeGreaterThan(0);
    expect(counts("crashes").crash).toBeGreaterThan(0);
    expect(sum("crashes", "torn")).toBeGreaterThan(0);
    expect(counts("skew").jump).toBeGreaterThan(0);
    expect(counts("rollback").rollback).toBeGreaterThan(0);
    // Chaos mixes every class; over a few seeds each shows up.
    for (const key of Object.keys(none) as (keyof Counts)[]) {
      expect(sum("chaos", key), key).toBeGreaterThan(0);
    }
  });
});

describe("toy: blocking and crashes", () => {
  it("a partition keeps a group's writes inside it until the heal", () => {
    const g = gsetWorld({ seed: 3, nodeCount: 3, writeGapMs: 0 });
    const w = g.world;
    w.start();
    w.partition([["n1"], ["n2", "n3"]]);
    addVia(g, "n1", "only-n1");
    addVia(g, "n2", "only-n23");
    w.runUntil(5000);
    expect(has(g, "n1")).toEqual(["only-n1"]);
    expect(has(g, "n2")).toEqual(["only-n23"]);
    expect(has(g, "n3")).toEqual(["only-n23"]);
    w.healNetwork();
    w.runUntil(10_000);
    for (const id of ["n1", "n2", "n3"]) expect(has(g, id)).toEqual(["only-n1", "only-n23"]);
  });

  it("a one-way cut blocks one direction only; pull gossip then learns nothing", () => {
    const g = gsetWorld({ seed: 4, nodeCount: 2, writeGapMs: 0, keepTrace: true });
    const w = g.world;
    w.start();
    w.cut("n1", "n2");
    addVia(g, "n1", "from-n1");
    addVia(g, "n2", "from-n2");
    w.runUntil(5000);
    const lines = w.trace.lines();
    expect(lines.filter((l) => l.includes("node=n2 recv from=n1"))).toEqual([]);
    expect(lines.filter((l) => l.includes("node=n1 recv from=n2 push")).length).toBeGreaterThan(10);
    // A pull needs the request one way and the reply the other: neither side learns.
    expect(has(g, "n1")).toEqual(["from-n1"]);
    expect(has(g, "n2")).toEqual(["from-n2"]);
    w.healNetwork();
    w.runUntil(10_000);
    expect(has(g, "n1")).toEqual(["from-n1", "from-n2"]);
    expect(has(g, "n2")).toEqual(["from-n1", "from-n2"]);
  });

  it("a crash loses exactly the unsynced writes", () => {
    const g = gsetWorld({ seed: 6, nodeCount: 2, writeGapMs: 0 });
    const w = g.world;
    w.start();
    w.partition([["n1"], ["n2"]]);
    addVia(g, "n1", "synced");
    w.runUntil(100); // flush timer (20 ms) syncs it
    expect(g.oracle.acked.get("n1")?.has("synced")).toBe(true);
    addVia(g, "n1", "volatile");
    expect(has(g, "n1")).toEqual(["synced", "volatile"]);
    w.crash("n1", { downMs: 10, tornTail: false });
    w.runUntil(200);
    expect(w.isUp("n1")).toBe(true);
    expect(has(g, "n1")).toEqual(["synced"]);
    expect(g.oracle.acked.get("n1")?.has("volatile")).toBe(false);
  });

  it("a torn tail never yields a half-written element", () => {
    for (let seed = 0; seed < 30; seed++) {
      const g = gsetWorld({ seed, nodeCount: 2, writeGapMs: 0 });
      const w = g.world;
      w.start();
      w.partition([["n1"], ["n2"]]);
      addVia(g, "n1", "aaaaaaaaaa");
      addVia(g, "n1", "bbbbbbbbbb");
      w.crash("n1", { downMs: 10, tornTail: true });
      w.runUntil(100);
      const values = has(g, "n1");
      expect([[], ["aaaaaaaaaa"], ["aaaaaaaaaa", "bbbbbbbbbb"]]).toContainEqual(values);
    }
  });
});

/** Adds a value at a node as a client would, through the node's own input handler. */
function addVia(g: GSetWorld, node: string, value: string): void {
  g.world.inject(node, { add: value });
}

function has(g: GSetWorld, node: string): string[] {
  return [...(g.nodes.get(node)?.elements ?? [])].sort();
}
