/**
 * Goal: the work meter tells where a run's wall time goes without changing the run: a metered
 * run has the unmetered run's trace hash, every delivery is metered as a message, timers are
 * metered by kind, and the tally charges each interval to the kind it was told before it.
 * Method: a fake clock for the tally; a short chaos run with and without a counting meter.
 */
import { describe, expect, it } from "vitest";
import { presetScenario } from "./scenario/swarm";
import { runScenario } from "./scenario/run-scenario";
import { WorkTally, timerKind, workKinds } from "./work-meter";

describe("WorkTally", () => {
  it("charges each interval to the kind named at its start, largest share first", () => {
    let now = 0;
    const tally = new WorkTally(() => now);
    tally.meter("a");
    now = 10;
    tally.meter("b");
    now = 40;
    tally.meter("a");
    now = 50;
    tally.stop();
    now = 1000; // after stop nothing more is charged
    expect(tally.shares()).toEqual([
      { kind: "b", ms: 30, share: 0.6, times: 1 },
      { kind: "a", ms: 20, share: 0.4, times: 2 },
    ]);
  });

  it("names a timer's kind without its peer", () => {
    expect(timerKind("pull:n2")).toBe("timer pull");
    expect(timerKind("rotate")).toBe("timer rotate");
  });
});

describe("a metered run", () => {
  const s = presetScenario({ preset: "chaos", nodes: 3, rate: 10, safetyMs: 60_000 });

  it("is the same run, and every delivery is metered as a message", () => {
    const counts = new Map<string, number>();
    const meter = (kind: string): void => {
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
    };
    const plain = runScenario(s, { seed: 7, keepTrace: true });
    const metered = runScenario(s, { seed: 7, meter });
    expect(metered.traceHash).toBe(plain.traceHash);
    expect(metered.pass).toBe(true);
    const deliveries = plain.trace.filter((line) => / (recv|drop) /.test(line)).length;
    expect(deliveries).toBeGreaterThan(0);
    expect(counts.get(workKinds.message)).toBe(deliveries);
    expect(counts.get(workKinds.write) ?? 0).toBeGreaterThan(0);
    expect(counts.get(workKinds.final)).toBe(1);
    const timers = [...counts.keys()].filter((k) => k.startsWith("timer "));
    expect(timers).toContain("timer pull");
    expect(timers.every((k) => !k.includes(":"))).toBe(true);
  });
});
