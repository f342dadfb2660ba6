// Goal: node clocks follow skew, drift and jumps, and mono never goes back. Method: fixed
// examples plus a fast-check property over random jump and drift sequences.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NodeClock, defaultEpochMs } from "./clock";

describe("NodeClock", () => {
  it("starts at the epoch plus offset and drifts", () => {
    const config = { epochMs: defaultEpochMs, offsetMs: -500, driftPpm: 1000, monoBaseMs: 7 };
    const clock = new NodeClock(config);
    expect(clock.wallMs(0)).toBe(defaultEpochMs - 500);
    expect(clock.wallMs(10_000)).toBe(defaultEpochMs - 500 + 10_010);
    expect(clock.monoMs(10_000)).toBe(7 + 10_010);
    expect(new Date(defaultEpochMs).toISOString()).toBe("2026-01-01T00:00:00.000Z");
  });

  it("jumps move wall only; resync returns to true time", () => {
    const clock = new NodeClock();
    clock.jump(1000, -60_000);
    expect(clock.wallMs(1000)).toBe(defaultEpochMs + 1000 - 60_000);
    expect(clock.monoMs(2000)).toBe(2000);
    clock.resync(3000);
    expect(clock.wallMs(3500)).toBe(defaultEpochMs + 3500);
  });

  it("timers measured in mono time take longer in true time on a fast clock", () => {
    const fast = new NodeClock({ epochMs: 0, offsetMs: 0, driftPpm: 100_000, monoBaseMs: 0 });
    expect(fast.trueDelayMs(1100)).toBe(1000);
  });

  it("mono never goes back under any jumps and drift changes", () => {
    const change = fc.record({
      dt: fc.nat(10_000),
      jump: fc.integer({ min: -100_000, max: 100_000 }),
      drift: fc.integer({ min: -999_000, max: 999_000 }),
    });
    fc.assert(
      fc.property(fc.array(change, { maxLength: 50 }), (changes) => {
        const clock = new NodeClock();
        let t = 0;
        let lastMono = clock.monoMs(0);
        for (const c of changes) {
          t += c.dt;
          expect(clock.monoMs(t)).toBeGreaterThanOrEqual(lastMono);
          clock.jump(t, c.jump);
          clock.setDrift(t, c.drift);
          lastMono = clock.monoMs(t);
        }
      }),
    );
  });
});
