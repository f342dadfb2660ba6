/**
 * Goal: the naming and placement scenarios hold on every battery seed: caseless name
 * conflicts render CNF names (earliest claim keeps the name), orphans show under
 * /LostAndFound, two- and three-member move cycles break at the latest placement claim, and
 * attribute last-writer-wins follows stamps under clock skew; with all seven oracles.
 * Method: each scenario file runs on seeds 1..200 (SIM_SEEDS overrides), every seed twice to
 * prove bit-for-bit replay (trace hashes equal; the first divergent event is named if not).
 */
import { describe, expect, it } from "vitest";
import { batterySeeds, batteryTimeoutMs, loadScenario, runBattery } from "./battery";

const files = [
  "scenarios/same-name-cnf.scn",
  "scenarios/orphan-lost-and-found.scn",
  "scenarios/move-cycle-two.scn",
  "scenarios/move-cycle-three.scn",
  "scenarios/lww-clock-skew.scn",
];

describe("scenario battery A: names and placement", () => {
  for (const file of files) {
    it(`${file} passes and replays on ${batterySeeds} seeds`, { timeout: batteryTimeoutMs }, () => {
      const { failures } = runBattery(loadScenario(file), 1, batterySeeds);
      expect(failures).toEqual([]);
    });
  }
});
