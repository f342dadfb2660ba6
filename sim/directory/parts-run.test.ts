/**
 * Goal: objects sent in parts (core/repl/split-delta.ts) keep every oracle and expectation
 * under the faults that touch pull cycles most: rollbacks (the cursor is then from a retired
 * invocation), crashes, partitions, schema arriving before its dependencies, move cycles and
 * tombstone ageing. Method: scenario files run with batches stopping at 512 bytes, so that most
 * objects of a few attributes go in parts, on two seeds each; every run must pass, and the
 * trace must show batches ending inside objects, so the test cannot stop exercising them
 * unnoticed. (At the end of the eighteenth session every scenario file passed seeds 1..3 this
 * way, with and without the wire form.)
 */
import { describe, expect, it } from "vitest";
import { loadScenario } from "../scenario/battery";
import { runScenario } from "../scenario/run-scenario";
import { pullCycleScenarios } from "./pull-cycle-scenarios";

describe("objects in parts under the scenarios' faults", () => {
  for (const file of pullCycleScenarios) {
    it(`${file} passes with batches of 512 bytes`, () => {
      const s = { ...loadScenario(file), batchBytes: 512 };
      let inside = 0;
      for (const seed of [1, 2]) {
        const r = runScenario(s, { seed, keepTrace: true });
        expect(r.violations, `${file} seed ${seed}`).toEqual([]);
        expect(r.pass).toBe(true);
        inside += r.trace.filter((line) => line.includes("batch#") && line.includes(" inside=")).length;
      }
      expect(inside).toBeGreaterThan(0);
    });
  }
});
