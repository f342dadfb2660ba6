import seedrandom from "seedrandom";
import { assert } from "../core/assert";
import type { Random } from "../core/ports";

const twoPow32 = 4294967296;

/**
 * The simulator's only source of randomness: a seeded ARC4 stream from seedrandom.
 *
 * Independent sub-streams come from `fork(label)`, which derives a new seed from this stream's
 * seed text and the label without drawing from this stream. That keeps streams stable: adding a
 * node or enabling a fault class forks new labels and shifts no other stream's draws.
 */
export class Prng implements Random {
  /** The text this stream was seeded from; a fork's seed text is `${parent}/${label}`. */
  readonly seedText: string;
  private readonly rng: seedrandom.PRNG;

  constructor(seed: number | string) {
    this.seedText = String(seed);
    this.rng = seedrandom(this.seedText);
  }

  /** Uniform integer in [0, 2^32). */
  uint32(): number {
    return this.rng.int32() >>> 0;
  }

  /** Satisfies core/ports.ts `Random`, so the core can mint GUIDs from a simulated node. */
  nextUint32(): number {
    return this.uint32();
  }

  /** Uniform float in [0, 1) with 32 bits of resolution (one draw, cheap in the hot path). */
  float(): number {
    return this.uint32() / twoPow32;
  }

  /** Uniform integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number {
    assert(Number.isSafeInteger(lo) && Number.isSafeInteger(hi), "int bounds are integers");
    assert(lo <= hi, "int: lo <= hi");
    const span = hi - lo + 1;
    assert(span <= twoPow32, "int: span fits in 32 bits");
    const value = lo + Math.floor(this.float() * span);
    assert(value >= lo && value <= hi, "int: result in range");
    return value;
  }

  /** Uniform float in [lo, hi). */
  range(lo: number, hi: number): number {
    assert(lo <= hi, "range: lo <= hi");
    return lo + this.float() * (hi - lo);
  }

  /** True with probability p. p = 0 never draws, so disabled faults consume nothing. */
  chance(p: number): boolean {
    assert(p >= 0 && p <= 1, "chance: p in [0, 1]");
    if (p === 0) return false;
    if (p === 1) return true;
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    assert(items.length > 0, "pick: non-empty");
    const item = items[this.int(0, items.length - 1)];
    return item as T;
  }

  /** Fisher-Yates in place; returns the same array for chaining. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      const a = items[i] as T;
      items[i] = items[j] as T;
      items[j] = a;
    }
    return items;
  }

  /** Exponentially distributed float with the given mean (inter-arrival times of faults). */
  exponential(mean: number): number {
    assert(mean > 0, "exponential: mean > 0");
    // 1 - float() is in (0, 1], so the log is finite.
    return -Math.log(1 - this.float()) * mean;
  }

  /** Standard normal sample (Box-Muller, two draws). */
  normal(): number {
    const u = 1 - this.float();
    const v = this.float();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Derives an independent stream; does not draw from (or otherwise disturb) this stream. */
  fork(label: string): Prng {
    assert(label.length > 0, "fork: label is non-empty");
    return new Prng(`${this.seedText}/${label}`);
  }
}
