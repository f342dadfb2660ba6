/**
 * Starts `canopy serve` for a bench. The HTTP test harness (test/http/daemon-harness.ts) does
 * the same for tests, but a bench needs what it does not offer: Node flags for the daemon
 * process (--cpu-prof cannot go through NODE_OPTIONS), a start bound long enough for a
 * million-object boot, the time from spawn to the serving line, and the process id for
 * /proc/<pid>/status.
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { repoRoot } from "../test/http/daemon-harness";

const servingLine = /canopy: serving domain .* at (http:\/\/\S+) /;

export interface BenchDaemon {
  readonly url: string;
  readonly child: ChildProcess;
  /** Seconds from spawn to the serving line. */
  readonly startSeconds: number;
  /** VmHWM (peak) and VmRSS (now) of the daemon process, in MiB. */
  memory(): { peakMiB: number; nowMiB: number };
  /** SIGTERM, then waits for the exit (a --cpu-prof profile is written then). */
  stop(): Promise<void>;
}

export interface ServeOptions {
  readonly dataDir: string;
  readonly createIfMissing?: boolean;
  /** Writes a V8 CPU profile of the daemon into this directory when it exits. */
  readonly profileDir?: string;
  readonly startTimeoutMs?: number;
}

export async function serve(options: ServeOptions): Promise<BenchDaemon> {
  const nodeArgs: string[] = [];
  if (options.profileDir !== undefined) {
    fs.mkdirSync(options.profileDir, { recursive: true });
    nodeArgs.push("--cpu-prof", `--cpu-prof-dir=${options.profileDir}`);
  }
  const cli = path.join(repoRoot, "adapters/cli/canopy.ts");
  const args = ["serve", "--data", options.dataDir, "--http", "127.0.0.1:0"];
  if (options.createIfMissing === true) args.push("--create-if-missing");
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", cli, ...args], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const fail = (why: string): void => reject(new Error(`${why}:\n${output.slice(-3000)}`));
      const bound = options.startTimeoutMs ?? 60_000;
      const timer = setTimeout(() => fail(`no serving line within ${bound} ms`), bound);
      child.stdout.on("data", () => {
        const match = servingLine.exec(output);
        if (match?.[1] === undefined) return;
        clearTimeout(timer);
        resolve(match[1]);
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        fail(`serve exited (${code ?? signal}) before serving`);
      });
    });
    const startSeconds = (performance.now() - started) / 1000;
    const memory = (): { peakMiB: number; nowMiB: number } => {
      const status = fs.readFileSync(`/proc/${child.pid}/status`, "utf8");
      const mib = (field: string): number =>
        Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]) / 1024;
      return { peakMiB: mib("VmHWM"), nowMiB: mib("VmRSS") };
    };
    return { url, child, startSeconds, memory, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
