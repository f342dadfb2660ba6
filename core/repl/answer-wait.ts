/**
 * How long a pull request waits for its answer before the host asks again from the same
 * point (the cycle's continuation is kept): four smoothed round trips to that partner, at
 * least `answerWaitFloorMs`, at most the pull timeout (also the wait while no round trip to the
 * partner has been measured). Waiting the whole pull timeout for each lost message, a cycle
 * walking a growing change log in small batches over a lossy network fell further behind with
 * every loss and could stay open for minutes, so its partner was refused once maxTimeApart
 * passed though the two were in contact all along
 * (scenarios/regressions/pull-cycle-starves-under-loss.scn). A late answer to a request asked
 * again is dropped as stale; asking again early costs one message.
 */
export const answerWaitFloorMs = 1_000;

export function answerWaitMs(roundTripMs: number | undefined, pullTimeoutMs: number): number {
  const wait = roundTripMs === undefined ? pullTimeoutMs : 4 * roundTripMs;
  return Math.min(pullTimeoutMs, Math.max(answerWaitFloorMs, wait));
}

/** The smoothed round trip after one more sample (RFC 6298's gain of 1/8). */
export function smoothRoundTrip(previousMs: number | undefined, sampleMs: number): number {
  return previousMs === undefined ? sampleMs : previousMs + (sampleMs - previousMs) / 8;
}
