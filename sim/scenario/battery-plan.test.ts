/**
 * Goal: CI's battery runs every scenario file of scenarios/ (a file missing from the plan
 * would never run in CI, however it failed), and every seed of a file split across battery
 * files runs exactly once. Method: compare the plan with the directory listing.
 */
import { describe, expect, it } from "vitest";
import { batteryPlan, batterySeeds, scenarioFiles } from "./battery";

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
