import { assert } from "../core/assert";

/** 2026-01-01T00:00:00Z, the default wall-clock epoch of a simulated world. */
export const defaultEpochMs = 1767225600000;

export interface ClockConfig {
  /** The true wall time at true time 0; a node reads epochMs + offsetMs there. */
  readonly epochMs: number;
  /** Constant skew of the node's wall clock against true time. */
  readonly offsetMs: number;
  /** Rate error in parts per million, for both wall and mono; |drift| < 1e6. */
  readonly driftPpm: number;
  /** Mono reading at true time 0; arbitrary, so nodes cannot compare mono readings. */
  readonly monoBaseMs: number;
}

export const exactClock: ClockConfig = {
  epochMs: defaultEpochMs,
  offsetMs: 0,
  driftPpm: 0,
  monoBaseMs: 0,
};

/**
 * One node's clocks as piecewise-linear functions of the world's true (virtual) time.
 *
 * Wall time carries skew, drift and jumps forward or back (an operator or NTP step). Mono
 * time carries the same drift but never jumps, so it never goes back; it also runs on across
 * a simulated process crash, like CLOCK_MONOTONIC on a machine that did not reboot.
 * Readings are whole milliseconds, as Date.now() and a floored performance.now() give.
 * Changes (jumps, a new drift) apply from "now" on, and readings are taken at or after the
 * last change, because the world's true time only moves forward.
 */
export class NodeClock {
  private anchorTrueMs = 0;
  private anchorWallMs: number;
  private anchorMonoMs: number;
  private driftPpm: number;
  private jumpCount = 0;

  constructor(readonly config: ClockConfig = exactClock) {
    this.anchorWallMs = config.epochMs + config.offsetMs;
    this.anchorMonoMs = config.monoBaseMs;
    this.driftPpm = checkDrift(config.driftPpm);
  }

  get jumps(): number {
    return this.jumpCount;
  }

  wallMs(trueMs: number): number {
    assert(trueMs >= this.anchorTrueMs, "clocks are read forward in time");
    return Math.floor(this.anchorWallMs + this.elapsedMs(trueMs));
  }

  monoMs(trueMs: number): number {
    assert(trueMs >= this.anchorTrueMs, "clocks are read forward in time");
    return Math.floor(this.anchorMonoMs + this.elapsedMs(trueMs));
  }

  /** Steps the wall clock by deltaMs (either sign) at true time nowMs; mono is unaffected. */
  jump(nowMs: number, deltaMs: number): void {
    this.reanchor(nowMs);
    this.anchorWallMs += deltaMs;
    this.jumpCount++;
  }

  /** Changes the drift from nowMs on. */
  setDrift(nowMs: number, driftPpm: number): void {
    this.reanchor(nowMs);
    this.driftPpm = checkDrift(driftPpm);
  }

  /** NTP fixes the clock: wall reads true wall time and drift stops; mono keeps going. */
  resync(nowMs: number): void {
    this.reanchor(nowMs);
    this.anchorWallMs = this.config.epochMs + nowMs;
    this.driftPpm = 0;
  }

  /** True-time delay after which this node's mono clock has advanced by monoDelayMs. */
  trueDelayMs(monoDelayMs: number): number {
    assert(monoDelayMs >= 0 && Number.isFinite(monoDelayMs), "delays are finite and >= 0");
    return Math.ceil((monoDelayMs * 1e6) / (1e6 + this.driftPpm));
  }

  /**
   * Node time elapsed since the anchor. Computed as true elapsed plus the drift share, not
   * elapsed * (1 + ppm / 1e6), so that whole-ms inputs give exact results where they can.
   */
  private elapsedMs(trueMs: number): number {
    const elapsed = trueMs - this.anchorTrueMs;
    return elapsed + (elapsed * this.driftPpm) / 1e6;
  }

  private reanchor(nowMs: number): void {
    assert(nowMs >= this.anchorTrueMs, "clock changes move forward in time");
    const monoBefore = this.monoMs(nowMs);
    const elapsed = this.elapsedMs(nowMs);
    this.anchorWallMs += elapsed;
    this.anchorMonoMs += elapsed;
    this.anchorTrueMs = nowMs;
    assert(this.monoMs(nowMs) >= monoBefore, "mono never goes back");
  }
}

function checkDrift(driftPpm: number): number {
  assert(Math.abs(driftPpm) < 1e6, "drift leaves the clock moving forward");
  return driftPpm;
}
