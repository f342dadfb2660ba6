/**
 * Simulator speed (not a test). Two figures against the issue's targets:
 * 1. One simulated hour of 5 nodes under the chaos preset at 20 writes/s: simulated time per
 *    wall time (target >= 1,000x, goal 3,000x) and events per wall second.
 * 2. Standard seeds (5 nodes, chaos, 5 writes/s, 10 simulated minutes of safety, then the
 *    liveness phase and every oracle) per CPU minute (target >= 100): by default the seeds a
 *    fresh process completes in its first CPU minute, as the target reads (V8's warm-up and
 *    compiler threads included, amortised over a minute as in a battery), and again over the
 *    seeds after the first ten alone (a warm process, as in a long battery, swarm or shrink).
 * Usage: npx tsx bench/sim-speed.ts [--quick] [--seeds N] [--minutes M]
 *   --quick: 10 simulated minutes for figure 1 and 5 seeds for figure 2; --minutes and
 *   --seeds set either directly (--seeds N: exactly N seeds instead of one CPU minute;
 *   --seeds 0 skips figure 2).
 * Each figure runs in a child process under the simulator's V8 flags for its shape of work
 * (sim/runtime-flags.ts): figure 1 as one run, figure 2 as many runs, as `npm run sim` would;
 * `--figure hour|seeds` runs one figure, re-executed under its flags unless they were given.
 * Profile one figure: node --cpu-prof --max-semi-space-size=64 --import tsx
 *   bench/sim-speed.ts --quick --figure hour (or --max-semi-space-size=128 --single-threaded-gc
 *   and --figure seeds),
 *   then npx tsx bench/profile-summary.ts <file>.cpuprofile
 */
import { presetScenario } from "../sim/scenario/swarm";
import { runScenario } from "../sim/scenario/run-scenario";
import { WorkTally } from "../sim/work-meter";
import { ensureSimulatorFlags, runUnderSimulatorFlags, type RunShape } from "../sim/runtime-flags";

const quick = process.argv.includes("--quick");
const seedsArg = process.argv.indexOf("--seeds");
/** A fixed number of seeds, or null: as many as the first CPU minute completes. */
const standardSeeds: number | null = seedsArg > 0 ? Number(process.argv[seedsArg + 1]) : quick ? 5 : null;
const cpuMinuteMs = 60_000;
/** Seeds counted as the process's warm-up when the warm figure is printed. */
const warmupSeeds = 10;
const minutesArg = process.argv.indexOf("--minutes");
const chaosMinutes = minutesArg > 0 ? Number(process.argv[minutesArg + 1]) : quick ? 10 : 60;
// Virtual times are whole milliseconds: a run of a fraction of a millisecond is no run.
if (!Number.isInteger(chaosMinutes * 60_000) || chaosMinutes <= 0) {
  throw new Error(`--minutes takes a positive number of simulated minutes, not ${process.argv[minutesArg + 1]}`);
}
if (standardSeeds !== null && (!Number.isInteger(standardSeeds) || standardSeeds < 0)) {
  throw new Error(`--seeds takes a whole number of seeds (0 skips that figure), not ${process.argv[seedsArg + 1]}`);
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function hourUnderChaos(): void {
  const safetyMs = chaosMinutes * 60_000;
  const s = presetScenario({ preset: "chaos", nodes: 5, rate: 20, safetyMs });
  const tally = new WorkTally(() => performance.now());
  const started = performance.now();
  const r = runScenario({ ...s, maxEvents: 100_000_000 }, { seed: 1, meter: tally.meter });
  const wallMs = performance.now() - started;
  tally.stop();
  const ratio = r.virtualMs / wallMs;
  const verdict = ratio >= 3000 ? "goal met" : ratio >= 1000 ? "target met" : "target missed";
  console.log(
    `chaos, 5 nodes, 20 writes/s, ${safetyMs / 60_000} simulated min: ${r.pass ? "PASS" : "FAIL"} ` +
      `virtual ${(r.virtualMs / 1000).toFixed(0)}s in ${(wallMs / 1000).toFixed(1)}s wall = ${ratio.toFixed(0)}x real time ` +
      `(${verdict}; target 1,000x, goal 3,000x); ${r.events} events, ${Math.round(r.events / (wallMs / 1000))} events/wall-s`,
  );
  if (!r.pass) console.log(r.violations.slice(0, 5).join("\n"));
  console.log("  where the wall time went:");
  for (const { kind, ms, share, times } of tally.shares()) {
    if (share < 0.001) continue;
    const each = ms / times >= 1 ? `${(ms / times).toFixed(1)} ms` : `${((ms / times) * 1000).toFixed(0)} µs`;
    console.log(
      `  ${(share * 100).toFixed(1).padStart(5)} %  ${(ms / 1000).toFixed(2).padStart(6)} s  ${kind}: ${times} x ${each}`,
    );
  }
}

function standardSeedsPerCpuMinute(): void {
  const s = presetScenario({ preset: "chaos", nodes: 5, rate: 5, safetyMs: 600_000 });
  const cpuStart = cpuMs();
  const wallStart = performance.now();
  let failed = 0;
  let seeds = 0;
  // The CPU of the seeds after the warm-up alone: the process is warm then (V8 has optimised
  // the hot code and the process-wide memos hold the seeds' schemas), as in a long battery.
  let warmStart: number | null = null;
  const more = (): boolean =>
    standardSeeds === null ? cpuMs() - cpuStart < cpuMinuteMs : seeds < standardSeeds;
  for (let seed = 1; more(); seed++) {
    if (seed === warmupSeeds + 1) warmStart = cpuMs();
    if (!runScenario(s, { seed }).pass) failed++;
    seeds = seed;
  }
  const end = cpuMs();
  const cpu = end - cpuStart;
  const perMinute = (seeds / cpu) * 60_000;
  const warmSeeds = seeds - warmupSeeds;
  const warm =
    warmStart !== null && warmSeeds >= 2
      ? ` (warm process, seeds ${warmupSeeds + 1}-${seeds}: ${((warmSeeds / (end - warmStart)) * 60_000).toFixed(0)})`
      : "";
  const span = standardSeeds === null ? "the first CPU minute of a fresh process" : `${seeds} seeds`;
  console.log(
    `standard seeds (5 nodes, chaos, 5 writes/s, 10 simulated min + liveness + oracles), ${span}: ${seeds} seeds, ` +
      `${failed} failed, ${(cpu / 1000).toFixed(1)}s CPU (${((performance.now() - wallStart) / 1000).toFixed(1)}s wall) = ` +
      `${perMinute.toFixed(0)} seeds per CPU minute${warm} (target 100)`,
  );
}

const figures: ReadonlyArray<readonly [name: string, shape: RunShape, run: () => void]> = [
  ["hour", "one-run", hourUnderChaos],
  ["seeds", "many-runs", standardSeedsPerCpuMinute],
];
const figureArg = process.argv.indexOf("--figure");
const only = figureArg > 0 ? process.argv[figureArg + 1] : undefined;
const chosen = figures.find(([name]) => name === only);
if (only !== undefined && chosen === undefined) throw new Error("--figure takes hour or seeds");
if (chosen !== undefined) {
  // Under the figure's flags: re-run once unless they were given (a profile passes them itself).
  ensureSimulatorFlags(chosen[1]);
  const v8Flags = process.execArgv.filter((a) => /^--(max-semi|single-threaded)/u.test(a));
  console.log(`[node ${process.version}, V8 flags: ${v8Flags.join(" ") || "none"}]`);
  chosen[2]();
} else {
  let status = 0;
  for (const [name, shape] of figures) {
    if (name === "seeds" && standardSeeds !== null && standardSeeds <= 0) continue;
    status = Math.max(status, runUnderSimulatorFlags(shape, ["--figure", name]));
  }
  process.exitCode = status;
}
