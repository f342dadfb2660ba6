/**
 * The V8 flags simulator runs go under, by the shape of the work. A seed allocates a great deal
 * of short-lived garbage (messages, batches, decoded records): a larger young generation
 * (semi-spaces of 64 or 128 MiB instead of V8's 16) lets more of it die before it is copied.
 *
 * - "many-runs" (seed ranges, batteries, swarms, shrinking, the vitest workers): one GC thread
 *   and 128 MiB semi-spaces. Such work scales by running processes side by side, one per core,
 *   and V8's parallel GC helpers would only contend with the other process: less CPU per seed
 *   in total (65-69 -> 70-73 standard seeds per CPU minute, back to back). 128 MiB rather than
 *   64: 2 % less CPU per standard seed, paired, in 12 of 15 rounds (seventh session).
 * - "one-run" (reproducing one seed, the real-time figure): parallel GC, which lets one run use
 *   the second core (30 simulated minutes at 20 w/s: 125x -> 151x real time), and 64 MiB
 *   semi-spaces (128 measured the same there).
 * Flags change neither a run's events nor its trace hash: they only tune memory management.
 *
 * Heap sizes are fixed when the process starts, so an entry point that wants them re-executes
 * itself once with the flags (an environment marker stops a second re-execution).
 */
import { spawn, spawnSync } from "node:child_process";
import { constants } from "node:os";

export type RunShape = "one-run" | "many-runs";

export function simulatorNodeFlags(shape: RunShape): string[] {
  return shape === "many-runs"
    ? ["--max-semi-space-size=128", "--single-threaded-gc"]
    : ["--max-semi-space-size=64"];
}

/**
 * The shape of a `npm run sim` command line (sim/cli.ts): one run (a single seed given with
 * --seed N or --seeds N, and no --all, --swarm or --shrink) or many (a range, a scenario
 * file's own seed range, every file, a swarm, a shrink).
 */
export function runShapeOfArgs(argv: readonly string[]): RunShape {
  if (argv.includes("--all") || argv.includes("--swarm") || argv.includes("--shrink")) {
    return "many-runs";
  }
  const at = Math.max(argv.indexOf("--seed"), argv.indexOf("--seeds"));
  const seeds = at >= 0 ? argv[at + 1] : undefined;
  const m = seeds === undefined ? null : /^(\d+)(?:\.\.(\d+))?$/u.exec(seeds);
  if (m === null) return "many-runs";
  return m[2] === undefined || m[2] === m[1] ? "one-run" : "many-runs";
}

const marker = "CANOPY_SIM_FLAGS";

/** Whether this process already runs under the flags of `shape` (or was started for it). */
export function hasSimulatorFlags(shape: RunShape): boolean {
  if (process.env[marker] === shape) return true;
  return simulatorNodeFlags(shape).every((f) => process.execArgv.includes(f));
}

/**
 * Runs the current script again under the flags of `shape`, with `extraArgs` after its own
 * arguments, and returns the child's exit status.
 */
export function runUnderSimulatorFlags(shape: RunShape, extraArgs: readonly string[] = []): number {
  const child = spawnSync(process.execPath, reRunArgs(shape, extraArgs), {
    stdio: "inherit",
    env: { ...process.env, [marker]: shape },
  });
  if (child.error !== undefined) throw child.error;
  return child.status ?? 1;
}

function reRunArgs(shape: RunShape, extraArgs: readonly string[]): string[] {
  const script = process.argv[1];
  if (script === undefined) throw new Error("no script to re-run");
  return [...simulatorNodeFlags(shape), ...process.execArgv, script, ...process.argv.slice(2), ...extraArgs];
}

/** The signals a re-run child is sent when this process is: it must not outlive a kill. */
const forwardedSignals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * Re-runs the current script under the flags of `shape` in a child process and exits as it
 * exits; the caller must do nothing else (the child does the work). SIGINT, SIGTERM and SIGHUP
 * sent to this process are passed on to the child (spawnSync left it running, this process
 * gone), and should this process's own parent go (a wrapper such as tsx killed), the child is
 * sent SIGHUP, as a closed terminal would. A child killed by a signal is said so on stderr,
 * `${name}: simulator killed by SIGxxx`, and this process exits 128 + the signal's number (as a
 * shell reports it), not 1 (a failed seed). Under tsx the child handles SIGTERM in JavaScript
 * and exits 128 + 15 itself: after a forwarded SIGTERM or SIGHUP that code is said the same way.
 * A second SIGINT kills the child (SIGKILL: it acts on the first only between seeds), says so,
 * and exits 130.
 */
export function exitUnderSimulatorFlags(shape: RunShape, name: string): void {
  const child = spawn(process.execPath, reRunArgs(shape, []), {
    stdio: "inherit",
    env: { ...process.env, [marker]: shape },
  });
  let forwarded: NodeJS.Signals | null = null;
  let interrupts = 0;
  const forward = (signal: NodeJS.Signals): void => {
    forwarded = signal;
    // The child acts on SIGINT between seeds (or shrink variants) only: its seeds run
    // synchronously, so a long seed holds it. A second SIGINT stops it at once.
    if (signal === "SIGINT" && ++interrupts >= 2) {
      process.stderr.write(`${name}: interrupted again: simulator stopped at once, the running seed unfinished\n`);
      child.kill("SIGKILL");
      return;
    }
    child.kill(signal);
  };
  for (const signal of forwardedSignals) process.on(signal, forward);
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid !== parent) forward("SIGHUP");
  }, 500);
  watch.unref();
  child.on("error", (error) => {
    process.stderr.write(`${name}: cannot start the simulator: ${error.message}\n`);
    process.exit(3);
  });
  child.on("exit", (code, signal) => {
    if (interrupts >= 2 && signal === "SIGKILL") process.exit(130);
    const byForwarded =
      forwarded !== null && forwarded !== "SIGINT" && code === 128 + constants.signals[forwarded] ? forwarded : null;
    const killedBy = signal ?? byForwarded;
    if (killedBy !== null) {
      process.stderr.write(`${name}: simulator killed by ${killedBy}\n`);
      process.exit(128 + (constants.signals[killedBy] ?? 0));
    }
    process.exit(code ?? 1);
  });
}

/**
 * Re-runs the current script under the flags of `shape` and exits with its status, unless the
 * process already has them. Call first thing in an entry point (before any work).
 */
export function ensureSimulatorFlags(shape: RunShape): void {
  if (hasSimulatorFlags(shape)) return;
  process.exit(runUnderSimulatorFlags(shape));
}
