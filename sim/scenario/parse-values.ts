import { errorStatus } from "../../core/errors";
import type { ErrorCode } from "../../core/errors";
import { ScenarioSyntaxError } from "./tokenize";

/** Value parsers shared by the scenario header, steps and expectations. */

export function parseDuration(text: string): number | null {
  // A bare zero needs no unit (`pullJitter=0`); any other number does.
  if (text === "0") return 0;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/u.exec(text);
  if (m === null) return null;
  const scale = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as "ms" | "s" | "m" | "h"];
  const ms = Number(m[1]) * scale;
  // Whole milliseconds, at most 2^50 (~35,000 years, room for durations a directory must
  // refuse, as 31,700 years of maxTimeApart): virtual times add durations up, and past 2^53 ms
  // the simulator's clock broke with an internal error (determinism audit, twenty-seventh
  // session: `safety 10000000000000s`).
  return Number.isInteger(ms) && ms <= durationMaxMs ? ms : null;
}

/** The longest duration a scenario or the CLI takes (a few added up stay exact). */
export const durationMaxMs = 2 ** 50;

export function parseDurationAt(text: string, line: number): number {
  const ms = parseDuration(text);
  if (ms === null) throw new ScenarioSyntaxError(line, `bad duration ${text} (e.g. 250ms, 3s, 2m; at most 2^50 ms)`);
  return ms;
}

export function parseCount(text: string, min: number, max: number, line: number): number {
  // Decimal digits only (`0x2` and `1e1` read as numbers too).
  const n = /^-?\d+$/u.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ScenarioSyntaxError(line, `expected an integer in ${min}..${max}, got ${text}`);
  return n;
}

export function parseNonNegative(text: string, line: number): number {
  const n = Number(text);
  if (text === "" || !Number.isFinite(n) || n < 0)
    throw new ScenarioSyntaxError(line, `expected a number >= 0, got ${text}`);
  return n;
}

export function isErrorCode(text: string): text is ErrorCode {
  return Object.prototype.hasOwnProperty.call(errorStatus, text);
}
