/**
 * Goal: VOPR-style swarm seeds hold all seven oracles: each seed derives its own node count
 * (3-7, or 8-16 on one seed in eight), fault classes and rates (inside the presets'
 * envelope), write rate and op mix.
 * Method: swarm seeds 1..40 (SIM_SWARM_SEEDS overrides), each run twice with trace hashes
 * compared, as the scenario batteries do; `npm run sim -- --swarm --seeds A..B` explores more.
 */
import { describe, expect, it } from "vitest";
import { batteryTimeoutMs, runBattery } from "./battery";
import { swarmScenario } from "./swarm";

const swarmSeeds = Number(process.env["SIM_SWARM_SEEDS"] ?? 40);

describe("swarm battery", () => {
  it(`swarm seeds 1..${swarmSeeds} pass and replay`, { timeout: batteryTimeoutMs }, () => {
    const failures: string[] = [];
    for (let seed = 1; seed <= swarmSeeds; seed++) {
      failures.push(...runBattery(swarmScenario(seed), seed, seed).failures);
    }
    expect(failures).toEqual([]);
  });
});
