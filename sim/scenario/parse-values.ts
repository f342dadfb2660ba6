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
  return Number.isInteger(ms) ? ms : null;
}

export function parseDurationAt(text: string, line: number): number {
  const ms = parseDuration(text);
  if (ms === null) throw new ScenarioSyntaxError(line, `bad duration ${text} (e.g. 250ms, 3s, 2m)`);
  return ms;
}

export function parseCount(text: string, min: number, max: number, line: number): number {
  const n = Number(text);
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
