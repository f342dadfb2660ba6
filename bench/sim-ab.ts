/**
 * Simulator speed of the working tree against a base commit, paired (not a test). On a shared
 * machine the figure of seeds per CPU minute swings ±10 % from one run to the next, more than
 * most single changes move it; runs taken back to back compare the machine's moods as much as
 * the code. Here each round runs the same standard seeds (5 nodes, chaos, 5 writes/s, 10
 * simulated minutes + liveness + oracles) in two processes at once, one per core: the base
 * commit (checked out in a temporary git worktree) and the working tree. Both see the same
 * machine at the same time, and the figure per round is the ratio of their CPU per seed.
 *
 * Usage: npx tsx bench/sim-ab.ts [--base REF=HEAD] [--rounds R=4] [--seeds N=12]
 *   Prints, per round, each side's CPU per warm seed (the first two seeds of each process are
 *   its warm-up and are not counted) and the ratio; then the median ratio. A ratio of 0.95
 *   means the working tree needs 5 % less CPU per seed than the base.
 * Both sides run under the simulator's V8 flags for many runs (sim/runtime-flags.ts).
 *
 *   --busy M: instead, one run per side and round of the hour's shape at M simulated minutes
 *   (5 nodes, chaos, 20 writes/s; round r runs seed r), under the one-run flags; the figure is
 *   CPU per run. For changes whose cost grows with the directory (boots, rebuilds), which
 *   standard seeds are too small to show.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { simulatorNodeFlags } from "../sim/runtime-flags";

const warmupSeeds = 2;

function arg(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at > 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

/** The child of --busy: one run of the hour's shape, seed `seed`; prints its CPU milliseconds. */
async function busyChild(minutes: number, seed: number): Promise<void> {
  const { presetScenario } = await import("../sim/scenario/swarm");
  const { runScenario } = await import("../sim/scenario/run-scenario");
  const s = presetScenario({ preset: "chaos", nodes: 5, rate: 20, safetyMs: minutes * 60_000 });
  const from = process.cpuUsage();
  const pass = runScenario({ ...s, maxEvents: 100_000_000 }, { seed }).pass;
  const used = process.cpuUsage(from);
  console.log(JSON.stringify({ cpuMs: (used.user + used.system) / 1000, seeds: 1, failed: pass ? 0 : 1 }));
}

/** The child: runs seeds 1..N and prints the CPU milliseconds of seeds after the warm-up. */
async function child(seeds: number): Promise<void> {
  const { presetScenario } = await import("../sim/scenario/swarm");
  const { runScenario } = await import("../sim/scenario/run-scenario");
  const s = presetScenario({ preset: "chaos", nodes: 5, rate: 5, safetyMs: 600_000 });
  let from = process.cpuUsage();
  let failed = 0;
  for (let seed = 1; seed <= seeds; seed++) {
    if (seed === warmupSeeds + 1) from = process.cpuUsage();
    if (!runScenario(s, { seed }).pass) failed++;
  }
  const used = process.cpuUsage(from);
  console.log(JSON.stringify({ cpuMs: (used.user + used.system) / 1000, seeds: seeds - warmupSeeds, failed }));
}

interface Side {
  readonly cpuMs: number;
  readonly seeds: number;
  readonly failed: number;
}

/** What one side runs per round: standard seeds 1..N, or one busy run (minutes, seed). */
type Work = { readonly seeds: number } | { readonly minutes: number; readonly seed: number };

function runSide(root: string, work: Work): Promise<Side> {
  const script = path.join(root, "bench", "sim-ab.ts");
  const tsx = path.join(process.cwd(), "node_modules", "tsx", "dist", "loader.mjs");
  const args =
    "seeds" in work
      ? [...simulatorNodeFlags("many-runs"), "--import", tsx, script, "--child", String(work.seeds)]
      : [...simulatorNodeFlags("one-run"), "--import", tsx, script, "--busy-child", String(work.minutes), String(work.seed)];
  return new Promise((resolve, reject) => {
    const p = spawn(
      process.execPath,
      args,
      { cwd: root, stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    p.stdout.on("data", (d: Buffer) => (out += d.toString()));
    p.on("error", reject);
    p.on("close", (code) => {
      if (code !== 0) return reject(new Error(`${root}: child exited with ${code}`));
      resolve(JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as Side);
    });
  });
}

async function main(): Promise<void> {
  const base = arg("--base", "HEAD");
  const rounds = Number(arg("--rounds", "4"));
  const seeds = Number(arg("--seeds", "12"));
  const busy = process.argv.includes("--busy") ? Number(arg("--busy", "")) : null;
  if (!(rounds >= 1 && seeds > warmupSeeds)) throw new Error(`--rounds >= 1, --seeds > ${warmupSeeds}`);
  if (busy !== null && !(busy > 0)) throw new Error("--busy takes simulated minutes > 0");
  const unit = busy === null ? "seed" : "run";
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-ab-"));
  const git = (...a: string[]): void => {
    const r = spawnSync("git", a, { stdio: ["ignore", "ignore", "inherit"] });
    if (r.status !== 0) throw new Error(`git ${a.join(" ")} failed`);
  };
  git("worktree", "add", "--detach", dir, base);
  try {
    // The base side runs this script's child mode: give it the working tree's copy.
    fs.copyFileSync(path.join(process.cwd(), "bench", "sim-ab.ts"), path.join(dir, "bench", "sim-ab.ts"));
    fs.symlinkSync(path.join(process.cwd(), "node_modules"), path.join(dir, "node_modules"));
    console.log(
      busy === null
        ? `base ${base} vs working tree: ${rounds} rounds of ${seeds} standard seeds each (first ${warmupSeeds} not counted)`
        : `base ${base} vs working tree: ${rounds} rounds of one run of ${busy} simulated minutes at 20 writes/s (round r: seed r)`,
    );
    const ratios: number[] = [];
    for (let r = 1; r <= rounds; r++) {
      const work: Work = busy === null ? { seeds } : { minutes: busy, seed: r };
      const [a, b] = await Promise.all([runSide(dir, work), runSide(process.cwd(), work)]);
      const perA = a.cpuMs / a.seeds;
      const perB = b.cpuMs / b.seeds;
      ratios.push(perB / perA);
      console.log(
        `round ${r}: base ${perA.toFixed(0)} ms CPU/${unit}, tree ${perB.toFixed(0)} ms CPU/${unit}, ratio ${(perB / perA).toFixed(3)}` +
          (a.failed + b.failed > 0 ? ` (failed: base ${a.failed}, tree ${b.failed})` : ""),
      );
    }
    const sorted = [...ratios].sort((x, y) => x - y);
    const mid = sorted.length / 2;
    const median = sorted.length % 2 === 1 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
    console.log(`median ratio ${median.toFixed(3)} (min ${sorted[0]!.toFixed(3)}, max ${sorted.at(-1)!.toFixed(3)}): tree/base CPU per ${unit}`);
  } finally {
    fs.rmSync(path.join(dir, "node_modules"));
    git("worktree", "remove", "--force", dir);
  }
}

const busyAt = process.argv.indexOf("--busy-child");
if (busyAt > 0) void busyChild(Number(process.argv[busyAt + 1]), Number(process.argv[busyAt + 2]));
else if (process.argv.includes("--child")) void child(Number(arg("--child", "12")));
else void main();
