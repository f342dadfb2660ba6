/**
 * Goal: every failure the simulator ever found stays fixed (STYLE 22): each file under
 * scenarios/regressions/ runs at the seeds it pins, at its original conditions. A file marked
 * `known-bug` reproduces a bug not fixed yet: it must still fail on every pinned seed, and
 * this test fails once it passes, so the marker goes away with the fix.
 * Method: run each pinned seed twice (replay check), as the other batteries do.
 */
import { describe, expect, it } from "vitest";
import { batteryTimeoutMs, loadScenario, runBattery, scenarioFiles } from "./battery";

describe("regression scenarios", () => {
  for (const file of scenarioFiles("scenarios/regressions")) {
    const s = loadScenario(file);
    const from = s.seeds?.from ?? 1;
    const to = s.seeds?.to ?? 1;
    if (s.knownBug === null) {
      it(`${file} passes on seeds ${from}..${to}`, { timeout: batteryTimeoutMs }, () => {
        expect(runBattery(s, from, to).failures).toEqual([]);
      });
    } else {
      it(`${file} still reproduces its known bug on seeds ${from}..${to}`, { timeout: batteryTimeoutMs }, () => {
        const { reports, failures } = runBattery(s, from, to);
        const passing = reports.filter((r) => r.pass).map((r) => r.seed);
        expect(failures.filter((f) => f.includes("does not replay"))).toEqual([]);
        expect(passing, `known bug fixed? remove the known-bug line: ${s.knownBug}`).toEqual([]);
      });
    }
  }
});
