/**
 * Goal: the schema-ordering and split-brain scenarios hold on every battery seed: definitions
 * delivered before their dependencies quarantine (and an instance shows as a ghost) until the
 * dependencies arrive, then compile everywhere; a 3|2 partition with writes on both sides
 * converges after the heal with every acknowledged write kept; tombstones age, harden and
 * purge under chaos with GC running (restores racing with hardening converge); along a line
 * of five nodes a rollback is detected through neighbours and convergence comes within
 * 2 x diameter + 1 rounds; and under chaos, namespaced facets, classes and extensions are
 * defined, instantiated, attached, written and deleted concurrently (schema life) with every
 * node compiling the same schema; and namespaced attributes of every syntax are defined (one
 * name with different bodies on different nodes) and their values written with meta.
 * Method: each scenario file runs on seeds 1..200 (SIM_SEEDS overrides), every seed twice to
 * prove bit-for-bit replay (trace hashes equal; the first divergent event is named if not).
 */
import { describe, expect, it } from "vitest";
import { batterySeeds, batteryTimeoutMs, loadScenario, runBattery } from "./battery";

const files = [
  "scenarios/schema-before-dependencies.scn",
  "scenarios/partition-three-two.scn",
  "scenarios/gc-under-chaos.scn",
  "scenarios/line-five-rollback.scn",
  "scenarios/schema-life-under-chaos.scn",
  "scenarios/typed-values-under-chaos.scn",
];

describe("scenario battery C: schema order, split brain, topology", () => {
  for (const file of files) {
    it(`${file} passes and replays on ${batterySeeds} seeds`, { timeout: batteryTimeoutMs }, () => {
      const { failures } = runBattery(loadScenario(file), 1, batterySeeds);
      expect(failures).toEqual([]);
    });
  }
});
