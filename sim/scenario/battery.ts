import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseScenario } from "./parse-scenario";
import { runTwice, timeline } from "./report";
import type { RunReport } from "./run-scenario";
import type { Scenario } from "./scenario";

/**
 * The CI battery's plumbing (imported by the battery test files only): load scenario files,
 * run each seed twice (replay check) and describe every failure with its seed, violations and
 * the tail of its timeline.
 */

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * The bound on one battery test: a guard against a hang, not a speed check (the suite's
 * 2-minute default failed gc-under-chaos, 65 s alone, at 136 s on a machine shared with
 * other runs). Speed is bench/sim-speed.ts's to measure.
 */
export const batteryTimeoutMs = 900_000;

/** Seeds per scenario in CI; SIM_SEEDS overrides it for a quick local pass. */
export const batterySeeds = Number(process.env["SIM_SEEDS"] ?? 200);

/**
 * The battery's longest scenario (200 simulated seconds a seed: 400 runs take minutes of one
 * core), its seeds split in two halves run by two test files, so that the suite's workers
 * share it instead of one worker running it alone at the end.
 */
export const gcResidueFile = "scenarios/gc-residue-under-crashes.scn";

export function gcResidueSeeds(half: "first" | "second"): readonly [from: number, to: number] {
  const middle = Math.floor(batterySeeds / 2);
  return half === "first" ? [1, middle] : [middle + 1, batterySeeds];
}

export function loadScenario(relative: string): Scenario {
  return parseScenario(readFileSync(path.join(repoRoot, relative), "utf8"));
}

export function scenarioFiles(dir: string): string[] {
  return readdirSync(path.join(repoRoot, dir))
    .filter((f) => f.endsWith(".scn"))
    .sort()
    .map((f) => `${dir}/${f}`);
}

export interface BatteryOutcome {
  readonly failures: readonly string[];
  readonly reports: readonly RunReport[];
}

/** Every seed of the range, each run twice; failures as readable text. */
export function runBattery(s: Scenario, from: number, to: number): BatteryOutcome {
  const failures: string[] = [];
  const reports: RunReport[] = [];
  for (let seed = from; seed <= to; seed++) {
    const { report, divergence } = runTwice(s, seed);
    reports.push(report);
    if (divergence !== null) failures.push(`${s.name}: ${divergence}`);
    if (report.pass) continue;
    const tail = timeline(report.trace.slice(-30)).join("\n    ");
    failures.push(
      `${s.name} seed ${seed}:\n  ${report.violations.slice(0, 8).join("\n  ")}\n  last events:\n    ${tail}`,
    );
  }
  return { failures, reports };
}
