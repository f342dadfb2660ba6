/**
 * Goal: the daemon's GC schedule runs once at start and then once per period, for any period
 * `canopy serve --gc-every` takes, including those longer than a Node timer holds (about 24.8
 * days: a longer delay fires after 1 ms, so a monthly period ran GC every millisecond); runs
 * never overlap; stop() ends it.
 * Method: vitest's fake timers, advanced over simulated days.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { scheduleGc } from "./gc-schedule";

/** The longest delay a Node timer holds. */
const maxTimerDelayMs = 2 ** 31 - 1;

const dayMs = 24 * 3600 * 1000;

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function counting(): { run: () => Promise<void>; count: () => number } {
  let runs = 0;
  return {
    run: async () => {
      runs += 1;
    },
    count: () => runs,
  };
}

describe("the GC schedule", () => {
  it("runs at start, then once an hour", async () => {
    const c = counting();
    const schedule = scheduleGc(3600_000, c.run);
    await vi.advanceTimersByTimeAsync(1);
    expect(c.count()).toBe(1);
    await vi.advanceTimersByTimeAsync(3 * 3600_000);
    expect(c.count()).toBe(4);
    schedule.stop();
    await vi.advanceTimersByTimeAsync(10 * 3600_000);
    expect(c.count()).toBe(4);
  });

  it("a period longer than a timer holds (30 days) runs once per period, not every millisecond", async () => {
    expect(30 * dayMs).toBeGreaterThan(maxTimerDelayMs);
    const c = counting();
    const schedule = scheduleGc(30 * dayMs, c.run);
    await vi.advanceTimersByTimeAsync(1);
    expect(c.count()).toBe(1);
    await vi.advanceTimersByTimeAsync(29 * dayMs);
    expect(c.count()).toBe(1);
    await vi.advanceTimersByTimeAsync(1 * dayMs);
    expect(c.count()).toBe(2);
    await vi.advanceTimersByTimeAsync(60 * dayMs);
    expect(c.count()).toBe(4);
    schedule.stop();
  });

  it("skips a run while the previous one is still waiting for its commit", async () => {
    let release: () => void = () => {};
    let runs = 0;
    const schedule = scheduleGc(1000, () => {
      runs += 1;
      return new Promise<void>((resolve) => (release = resolve));
    });
    await vi.advanceTimersByTimeAsync(5_500);
    expect(runs).toBe(1);
    release();
    await vi.advanceTimersByTimeAsync(1000);
    expect(runs).toBe(2);
    schedule.stop();
  });
});
