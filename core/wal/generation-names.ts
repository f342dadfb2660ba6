/**
 * File naming for generations. Everything lives under the store's root:
 *   wal/gen-000007.log          write-ahead log of generation 7
 *   snap/gen-000007.snap        file-format snapshot covering generations <= 7 (simulator)
 *   snap/gen-000007.level/      LevelDB snapshot covering generations <= 7 (daemon)
 *   snap/gen-000007.done        completion marker of snapshot 7 (its presence = complete)
 *   erasure-debt.json           outstanding erasure debt, if any
 * Generation numbers are parsed numerically, so names past six digits still order correctly.
 */
import { assert } from "../assert";
import { walLimits } from "./wal-limits";

export const walDir = "wal";
export const snapDir = "snap";

export function generationStem(generation: number): string {
  assert(Number.isSafeInteger(generation) && generation >= 0, `bad generation ${generation}`);
  assert(generation <= walLimits.generationMax, "generation within bound");
  return `gen-${String(generation).padStart(6, "0")}`;
}

export function walPath(generation: number): string {
  return `${walDir}/${generationStem(generation)}.log`;
}

export function snapshotMarkerPath(generation: number): string {
  return `${snapDir}/${generationStem(generation)}.done`;
}

/** Parses `gen-<digits><suffix>` to its generation, or null for any other name. */
export function parseGeneration(name: string, suffix: string): number | null {
  if (!name.startsWith("gen-") || !name.endsWith(suffix)) return null;
  const digits = name.slice(4, name.length - suffix.length);
  if (!/^[0-9]{1,15}$/.test(digits)) return null;
  const generation = Number(digits);
  return generation <= walLimits.generationMax ? generation : null;
}

/** Generation of any `gen-N.*` name (temp files included), or null. */
export function generationOfName(name: string): number | null {
  const match = /^gen-([0-9]{1,15})\./.exec(name);
  return match?.[1] === undefined ? null : Number(match[1]);
}
