/**
 * Goal: a pull request waits for its answer a few round trips of its partner, not the whole
 * pull timeout, yet never less than the floor (a slow answer is not a lost one) nor more than
 * the pull timeout; the round trip follows its samples smoothly.
 * Method: the policy's two pure functions on chosen round trips; the end-to-end behaviour is
 * scenarios/regressions/pull-cycle-starves-under-loss.scn.
 */
import { describe, expect, it } from "vitest";
import { answerWaitFloorMs, answerWaitMs, smoothRoundTrip } from "./answer-wait";

describe("how long a pull request waits for its answer", () => {
  it("waits the pull timeout until a round trip to the partner is known", () => {
    expect(answerWaitMs(undefined, 10_000)).toBe(10_000);
  });

  it("waits four round trips, between the floor and the pull timeout", () => {
    expect(answerWaitMs(20, 10_000)).toBe(answerWaitFloorMs);
    expect(answerWaitMs(600, 10_000)).toBe(2_400);
    expect(answerWaitMs(5_000, 10_000)).toBe(10_000);
    expect(answerWaitMs(600, 2_000)).toBe(2_000);
  });

  it("smooths round trips with a gain of one eighth", () => {
    expect(smoothRoundTrip(undefined, 40)).toBe(40);
    expect(smoothRoundTrip(40, 120)).toBe(50);
    let rtt: number | undefined;
    for (let i = 0; i < 100; i++) rtt = smoothRoundTrip(rtt, 30);
    expect(rtt).toBe(30);
  });
});
