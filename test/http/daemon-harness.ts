/**
 * Test harness for the HTTP suites: runs the REAL daemon as a child process (the same command
 * line an operator would use), waits for its "serving" line within a bound, and talks to it
 * over loopback HTTP with fetch. Every process and temp directory it creates is tracked so a
 * suite's afterAll can kill and remove them even when a test failed half way.
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const cliPath = path.join(repoRoot, "adapters/cli/canopy.ts");

/** Bounds: start-up (tsx compiles on first run) and an orderly shutdown. */
const startTimeoutMs = 30_000;
const stopTimeoutMs = 15_000;

const servingLine = /^canopy: serving domain (.*) at (http:\/\/\S+) \(data (.*)\)$/m;

export interface RunningDaemon {
  readonly url: string;
  readonly domainName: string;
  readonly dataDir: string;
  readonly child: ChildProcess;
  output(): string;
  /** Sends the signal and resolves with the exit code (null if it died by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Resolves with the exit code once the daemon exits by itself (bounded, then SIGKILL). */
  exit(): Promise<number | null>;
}

const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();

export function makeTempDir(prefix = "canopy-http-"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

/** Kills every daemon still running and removes every temp dir (afterAll). */
export async function cleanup(): Promise<void> {
  for (const child of [...children]) {
    child.kill("SIGKILL");
    await exited(child, stopTimeoutMs);
  }
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI to completion (for commands that exit by themselves), bounded. */
export async function runCli(args: readonly string[]): Promise<CliRun> {
  const child = spawnCli(args);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await exited(child, startTimeoutMs);
  return { code, stdout, stderr };
}

/** Starts `canopy serve` and resolves once it prints its serving line. */
export async function startDaemon(options: {
  dataDir?: string;
  http?: string;
  extraArgs?: readonly string[];
} = {}): Promise<RunningDaemon> {
  const dataDir = options.dataDir ?? makeTempDir();
  const http = options.http ?? "127.0.0.1:0";
  const args = ["serve", "--data", dataDir, "--http", http, "--create-if-missing"];
  const child = spawnCli([...args, ...(options.extraArgs ?? [])]);
  let out = "";
  child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const match = await waitFor(() => servingLine.exec(out), child, startTimeoutMs, () => out);
  return {
    url: match[2] ?? "",
    domainName: match[1] ?? "",
    dataDir,
    child,
    output: () => out,
    stop: async (signal = "SIGTERM") => {
      child.kill(signal);
      return exited(child, stopTimeoutMs);
    },
    exit: () => exited(child, stopTimeoutMs),
  };
}

function spawnCli(args: readonly string[]): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", cliPath, ...args], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

async function waitFor<T>(
  probe: () => T | null,
  child: ChildProcess,
  timeoutMs: number,
  output: () => string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = probe();
    if (found !== null) return found;
    if (child.exitCode !== null || child.signalCode !== null) {
      const how = child.exitCode ?? child.signalCode;
      throw new Error(`daemon exited (${how}) before serving:\n${output()}`);
    }
    await sleep(25);
  }
  child.kill("SIGKILL");
  throw new Error(`daemon did not serve within ${timeoutMs} ms:\n${output()}`);
}

function exited(child: ChildProcess, timeoutMs: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
    }, timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Bound on `eventually`: 150 polls of 200 ms is 30 s, far beyond the few seconds awaited. */
const pollIntervalMs = 200;
const pollsMax = 150;

/** Polls `probe` until it returns a value (bounded); fails with `what` if it never does. */
export async function eventually<T>(what: string, probe: () => Promise<T | null>): Promise<T> {
  for (let poll = 0; poll < pollsMax; poll++) {
    const found = await probe();
    if (found !== null) return found;
    await sleep(pollIntervalMs);
  }
  throw new Error(`never happened within ${pollsMax} polls: ${what}`);
}

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  /** Parsed JSON body, or null for an empty body. */
  readonly body: any;
  readonly text: string;
}

/** One HTTP call; a body that is not a string is sent as JSON. */
export async function call(
  base: string,
  method: string,
  urlPath: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    // Bytes go as they are (a test of bodies that are not valid UTF-8).
    init.body = typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body);
    init.headers = { "content-type": "application/json", ...headers };
  }
  const response = await fetch(base + urlPath, init);
  const text = await response.text();
  const parsed: unknown = text === "" ? null : JSON.parse(text);
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** A small client bound to one daemon. */
export function client(base: string) {
  return {
    get: (p: string) => call(base, "GET", p),
    post: (p: string, body?: unknown) => call(base, "POST", p, body),
    patch: (p: string, body: unknown) => call(base, "PATCH", p, body),
    put: (p: string, body: unknown) => call(base, "PUT", p, body),
    del: (p: string) => call(base, "DELETE", p),
    /** Creates a child and returns its payload; anything but 201 fails the test. */
    create: async (parent: string, name: string, cls: string, attributes?: unknown) => {
      const r = await call(base, "POST", `/api/objects/${parent}/children`, {
        name,
        class: cls,
        ...(attributes === undefined ? {} : { attributes }),
      });
      if (r.status !== 201) throw new Error(`create ${name} failed: ${r.status} ${r.text}`);
      return r.body;
    },
    idAt: async (p: string): Promise<string> => {
      const r = await call(
        base,
        "GET",
        `/api/path${p.split("/").map(encodeURIComponent).join("/")}`,
      );
      if (r.status !== 200) throw new Error(`no object at ${p}: ${r.status} ${r.text}`);
      return r.body.id;
    },
  };
}

export type Client = ReturnType<typeof client>;

interface PayloadLike {
  readonly attributes: ReadonlyArray<{ name: string; values: ReadonlyArray<{ value: string }> }>;
}

/** The values of one attribute of an object payload, in rendered order; undefined if absent. */
export function valuesOf(payload: PayloadLike, name: string): string[] | undefined {
  return payload.attributes.find((a) => a.name === name)?.values.map((v) => v.value);
}

/** `{status, error}` of a response, so a refusal is checked in one comparison. */
export function outcome(r: ApiResponse): { status: number; error: unknown } {
  return { status: r.status, error: r.body?.error };
}
