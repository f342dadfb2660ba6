/**
 * The V8 flags simulator runs go under. A seed allocates a great deal of short-lived garbage
 * (messages, batches, decoded records): a larger young generation (64 MiB semi-spaces instead
 * of V8's 16) lets most of it die before it is copied, and one GC thread instead of V8's
 * parallel helpers spends less CPU in total (the helpers contend with the other worker on a
 * 2-core machine; runs are CPU-bound and scale by running seeds in separate processes). Measured
 * on standard seeds: 45 -> 53 seeds per CPU minute at load 0.8, 34 -> 43 at load 4 (see
 * bench/README.md). Flags change neither a run's events nor its trace hash: they only tune the
 * runtime's memory management.
 *
 * Heap sizes are fixed when the process starts, so an entry point that wants them re-executes
 * itself once with the flags (an environment marker stops a second re-execution).
 */
import { spawnSync } from "node:child_process";

export const simulatorNodeFlags: readonly string[] = [
  "--max-semi-space-size=64",
  "--single-threaded-gc",
];

const marker = "CANOPY_SIM_FLAGS";

/** Whether this process already runs under `simulatorNodeFlags`. */
export function hasSimulatorFlags(): boolean {
  return simulatorNodeFlags.every((f) => process.execArgv.includes(f)) || process.env[marker] === "1";
}

/**
 * Re-runs the current script under the simulator's flags and exits with its status, unless
 * the process already has them. Call first thing in an entry point (before any work).
 */
export function ensureSimulatorFlags(): void {
  if (hasSimulatorFlags()) return;
  const script = process.argv[1];
  if (script === undefined) return;
  const child = spawnSync(
    process.execPath,
    [...simulatorNodeFlags, ...process.execArgv, script, ...process.argv.slice(2)],
    { stdio: "inherit", env: { ...process.env, [marker]: "1" } },
  );
  if (child.error !== undefined) throw child.error;
  process.exit(child.status ?? 1);
}
