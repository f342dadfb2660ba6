/**
 * Goal: CI's battery runs every scenario file of scenarios/ (a file missing from the plan
 * would never run in CI, however it failed), and every seed of a file split across battery
 * files runs exactly once. SIM_SEEDS takes a positive whole number only (an empty or
 * non-numeric one ran every battery on no seed, all green). Method: compare the plan with
 * the directory listing; SIM_SEEDS values read as the battery reads them.
 */
import { describe, expect, it } from "vitest";
import { batteryPlan, batterySeeds, runBattery, scenarioFiles, seedsOf } from "./battery";
import { parseScenario } from "./parse-scenario";

const entries = Object.values(batteryPlan).flat();

describe("the battery plan", () => {
  it("names every scenario file of scenarios/, and only those", () => {
    const planned = [...new Set(entries.map((e) => e.file))].sort();
    expect(planned).toEqual(scenarioFiles("scenarios"));
  });

  it("runs each seed of a file at most once, from seed 1 without gaps", () => {
    for (const file of new Set(entries.map((e) => e.file))) {
      const ranges = entries.filter((e) => e.file === file).sort((x, y) => x.from - y.from);
      let next = 1;
      for (const r of ranges) {
        expect(r.from, `${file}: seeds ${r.from}..${r.to}`).toBe(next);
        expect(r.to).toBeGreaterThanOrEqual(r.from);
        next = r.to + 1;
      }
      expect(next - 1).toBeLessThanOrEqual(batterySeeds);
    }
  });
});

describe("SIM_SEEDS", () => {
  it("takes a positive whole number, 200 when unset, and refuses anything else", () => {
    expect(seedsOf(undefined)).toBe(200);
    expect(seedsOf("25")).toBe(25);
    for (const bad of ["", " ", "abc", "0", "-3", "2.5", "1e3", "0x10", "99999999999999999999"]) {
      expect(() => seedsOf(bad), JSON.stringify(bad)).toThrow(/SIM_SEEDS must be a positive whole number/);
    }
  });

  it("a battery of no seed is refused, not passed", () => {
    const s = parseScenario("scenario empty\nchecks nothing\nnodes 2\nsafety 1s\n");
    expect(() => runBattery(s, 1, 0)).toThrow(/a battery runs seeds 1..0/);
    expect(runBattery(s, 1, 1).reports).toHaveLength(1);
  });
});
