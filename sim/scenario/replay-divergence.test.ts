/**
 * Goal: a seed that does not replay is reported with where it diverged, also when the cause
 * is the process's state rather than the seed (the first run in a process behaving unlike the
 * later ones): the checkpoints of the two runs that differed bound the lines, and the message
 * says the re-runs agree (before, "hashes differ but kept traces agree" named no event;
 * determinism audit, twenty-seventh session). Re-runs that differ give their first differing
 * line. Method: Trace objects fed chosen lines stand in for runs; divergenceOf is given them.
 */
import { describe, expect, it } from "vitest";
import { Trace, checkpointLines, divergentWindow } from "../trace";
import { divergenceOf } from "./report";
import type { RunReport } from "./run-scenario";

/** A run whose trace holds `lines` lines, line `odd` (if any) reading differently. */
function run(lines: number, odd: number | null): RunReport {
  const t = new Trace({ ringLines: 10, keepAll: true });
  for (let i = 0; i < lines; i++) t.record(i, "n1", "tick", i === odd ? "odd" : "even");
  return {
    scenario: "fake",
    seed: 1,
    pass: true,
    violations: [],
    rounds: null,
    convergedAfterMs: null,
    events: lines,
    traceHash: t.hashHex(),
    traceCheckpoints: t.checkpoints(),
    trace: t.lines(),
    virtualMs: lines,
    outcomes: new Map(),
    vectorEntries: 0,
  };
}

describe("a seed that does not replay", () => {
  it("bounds the lines by the two runs' checkpoints", () => {
    const w = divergentWindow(run(5000, 1500).traceCheckpoints, run(5000, null).traceCheckpoints);
    expect(w).toEqual({ from: checkpointLines, to: 2 * checkpointLines });
    expect(divergentWindow(run(5000, 4500).traceCheckpoints, run(5000, null).traceCheckpoints)).toEqual({
      from: 4 * checkpointLines,
      to: null,
    });
  });

  it("says the re-runs agree, with the window, when only the first run differed", () => {
    const message = divergenceOf(run(5000, 1500), run(5000, null), () => run(5000, null));
    expect(message).toMatch(/runs 1 and 2 differ within lines 1024\.\.2047/);
    expect(message).toMatch(/agree with each other and with run 2, so the difference depends on the process's state/);
    expect(message).toMatch(/line 1024 of the re-runs: t=1024 node=n1 tick even/);
  });

  it("names the first differing line when the re-runs differ too", () => {
    let runs = 0;
    const message = divergenceOf(run(3000, 2100), run(3000, null), () => run(3000, runs++ === 0 ? 2100 : null));
    expect(message).toMatch(/^line 2100: t=2100 node=n1 tick odd \| t=2100 node=n1 tick even/);
  });
});
