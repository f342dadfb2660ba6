/**
 * Seeds for the daemon and fuzz suites: a run takes its seed from an environment variable when
 * one is given (replay) and otherwise picks a fresh one, which the suite prints so that a
 * failing run can be replayed. The generator is mulberry32: small, fast, and good enough to
 * pick operations and delays.
 */
import { randomInt } from "node:crypto";

/** The seed in `variable` (decimal), or a fresh random 31-bit one. */
export function seedFromEnv(variable: string): number {
  const given = process.env[variable];
  if (given === undefined || given === "") return randomInt(1, 2 ** 31 - 1);
  const seed = Number(given);
  if (!Number.isSafeInteger(seed)) throw new Error(`${variable}=${given} is not an integer seed`);
  return seed;
}

/** A deterministic generator of floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** Derives an independent stream seed from a run seed and a few coordinates. */
export function deriveSeed(...parts: readonly number[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    h = Math.imul(h ^ (part >>> 0), 0x01000193) >>> 0;
    h = Math.imul(h ^ (h >>> 13), 0x5bd1e995) >>> 0;
  }
  return h;
}

/** An integer in [min, max], inclusive. */
export function intIn(rng: () => number, min: number, max: number): number {
  return min + Math.floor(rng() * (max - min + 1));
}

/** One element of a non-empty list. */
export function pick<T>(rng: () => number, items: readonly T[]): T {
  const item = items[Math.floor(rng() * items.length)];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
}
