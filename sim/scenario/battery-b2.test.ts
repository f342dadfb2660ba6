/**
 * Goal: the second half of battery B's seeds of scenarios/gc-residue-under-crashes.scn (absence
 * residue dropped past the purge horizon under crashes, GC every 2 s): it passes and replays.
 * Method: as battery-b.test.ts, which runs the first half; the halves are two files so the
 * suite's two workers can share the battery's longest scenario.
 */
import { describe, expect, it } from "vitest";
import { batteryTimeoutMs, gcResidueFile, gcResidueSeeds, loadScenario, runBattery } from "./battery";

describe("scenario battery B, second half of the purge-horizon residue seeds", () => {
  const [from, to] = gcResidueSeeds("second");
  it(`${gcResidueFile} passes and replays on seeds ${from}..${to}`, { timeout: batteryTimeoutMs }, () => {
    const { failures } = runBattery(loadScenario(gcResidueFile), from, to);
    expect(failures).toEqual([]);
  });
});
