/**
 * Goal: a range's summary line comes from figures kept seed by seed (RangeTally), not from
 * every report held to the end (each ~50 KB with its trace tail: a long swarm ran out of heap
 * and lost its summary; determinism audit, twenty-seventh session): failed seeds in order,
 * rounds and convergence times over the seeds that converged, events over all.
 * Method: hand-made reports added one by one; the summary read back.
 */
import { describe, expect, it } from "vitest";
import { RangeTally } from "./report";
import type { RunReport } from "./run-scenario";

function report(seed: number, pass: boolean, rounds: number | null, convergedAfterMs: number | null, events: number): RunReport {
  return {
    scenario: "t",
    seed,
    pass,
    violations: [],
    rounds,
    convergedAfterMs,
    events,
    traceHash: "",
    traceCheckpoints: [],
    trace: [],
    virtualMs: 0,
    outcomes: new Map(),
    vectorEntries: seed * 2,
  };
}

describe("RangeTally", () => {
  it("sums a range seed by seed", () => {
    const tally = new RangeTally();
    tally.add(report(1, true, 2, 4000, 100));
    tally.add(report(2, false, null, null, 300));
    tally.add(report(3, true, 4, 8000, 200));
    tally.add(report(4, false, 1, 1000, 400));
    expect(tally.summary()).toEqual({
      runs: 4,
      failed: [2, 4],
      converged: 3,
      roundsMax: 4,
      roundsMean: 7 / 3,
      convergeMeanMs: 13000 / 3,
      convergeMaxMs: 8000,
      eventsMean: 250,
      vectorEntriesMax: 8,
    });
  });

  it("sums nothing to zeros", () => {
    expect(new RangeTally().summary()).toMatchObject({ runs: 0, failed: [], converged: 0, roundsMean: 0, eventsMean: 0 });
  });
});
