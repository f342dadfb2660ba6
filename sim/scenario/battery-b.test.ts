/**
 * Goal: the value, rollback and purge-horizon scenarios hold on every battery seed:
 * concurrent member adds and removes merge per value, a rolled-back node detects it, refuses
 * writes with rollback-quarantine and heals after a completed pull without losing a write
 * acknowledged after the restore, and a partition longer than maxTimeApart is refused on both
 * sides while the majority converges without resurrecting purged tombstones.
 * Method: each scenario file runs on seeds 1..200 (SIM_SEEDS overrides), every seed twice to
 * prove bit-for-bit replay (trace hashes equal; the first divergent event is named if not).
 */
import { describe, expect, it } from "vitest";
import { batterySeeds, batteryTimeoutMs, gcResidueFile, gcResidueSeeds, loadScenario, runBattery } from "./battery";

const files = [
  "scenarios/member-add-remove.scn",
  "scenarios/rollback-heal.scn",
  "scenarios/max-time-apart.scn",
];

describe("scenario battery B: values, rollback, purge horizon", () => {
  for (const file of files) {
    it(`${file} passes and replays on ${batterySeeds} seeds`, { timeout: batteryTimeoutMs }, () => {
      const { failures } = runBattery(loadScenario(file), 1, batterySeeds);
      expect(failures).toEqual([]);
    });
  }
  // The first half of its seeds; battery-b2 runs the second, in the other worker when free.
  const [from, to] = gcResidueSeeds("first");
  it(`${gcResidueFile} passes and replays on seeds ${from}..${to}`, { timeout: batteryTimeoutMs }, () => {
    const { failures } = runBattery(loadScenario(gcResidueFile), from, to);
    expect(failures).toEqual([]);
  });
});
