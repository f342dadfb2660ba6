import type { Random } from "../ports";

/**
 * A tiny deterministic generator (mulberry32) for the core's own tests. The simulator and the
 * daemon hand in their own generators; this one only keeps core tests free of outside state.
 */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return {
    nextUint32(): number {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return (t ^ (t >>> 14)) >>> 0;
    },
  };
}
