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

/** Seeds per scenario in CI; SIM_SEEDS overrides it for a quick local pass. */
export const batterySeeds = Number(process.env["SIM_SEEDS"] ?? 200);

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
