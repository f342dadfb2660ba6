import { parseArgs } from "node:util";
import type { ParseArgsConfig } from "node:util";
import { validateObjectName } from "../../core/naming";
import { parseEndpoint } from "../../core/syntax";

/** Bad command-line use: printed with a hint, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

export const exitUsage = 2;
export const exitFailure = 1;

type Options = NonNullable<ParseArgsConfig["options"]>;

/** node:util parseArgs, strict, with its errors turned into UsageErrors. */
export function parseFlags<O extends Options>(args: readonly string[], options: O) {
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** HOST:PORT or [IPv6]:PORT; port 0 asks the OS for a free port (tests use it). */
export function parseHostPort(flag: string, text: string): HostPort {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(0|[1-9][0-9]{0,4})$/.exec(text);
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (match === null || host === undefined || !(port >= 0 && port <= 65535)) {
    throw new UsageError(`${flag} must be HOST:PORT (port 0-65535), got ${JSON.stringify(text)}`);
  }
  return { host, port };
}

/** A whole number of seconds, 0 included (as SPEC's own durations are given). */
export function parseSeconds(flag: string, text: string): number {
  const seconds = /^(0|[1-9][0-9]{0,9})$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(seconds)) {
    throw new UsageError(`${flag} must be a whole number of seconds (0 or more), got ${JSON.stringify(text)}`);
  }
  return seconds;
}

/** A whole number of MiB, at least 1 (sizes of memory bounds). */
export function parseMebibytes(flag: string, text: string): number {
  const mebibytes = /^[1-9][0-9]{0,6}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(mebibytes)) {
    const got = JSON.stringify(text);
    throw new UsageError(`${flag} must be a whole number of MiB (1 or more), got ${got}`);
  }
  return mebibytes;
}

/** The interlink endpoint as the core's `endpoint` syntax will judge it at enrollment. */
export function checkInterlink(text: string): string {
  const parsed = parseEndpoint(text);
  if (!parsed.ok) throw new UsageError(`--interlink: ${parsed.message}`);
  return parsed.value;
}

export function checkDomainName(text: string): string {
  const name = validateObjectName(text);
  if (!name.ok) throw new UsageError(`--name: ${name.message}`);
  return name.value;
}

export function requireFlag(flag: string, value: string | undefined): string {
  if (value === undefined || value === "") throw new UsageError(`${flag} is required`);
  return value;
}
