/**
 * Trace hashes of fixed runs, to prove that a speed change leaves every simulated run
 * byte-identical (not a test: compare the output of two commits). Prints one line per run:
 * standard seeds 1..N (5 nodes, chaos preset, 5 writes/s, 10 simulated minutes) and seed 1 of
 * 2 simulated minutes at 20 writes/s.
 * Usage: npx tsx bench/trace-hashes.ts [N=8] > after.txt; then diff against the same output of
 * the commit before the change (e.g. from a `git worktree`).
 */
import { runScenario } from "../sim/scenario/run-scenario";
import { presetScenario } from "../sim/scenario/swarm";

const seeds = Number(process.argv[2] ?? 8);
if (!Number.isSafeInteger(seeds) || seeds < 1) throw new Error("usage: trace-hashes.ts [N >= 1]");
const standard = presetScenario({ preset: "chaos", nodes: 5, rate: 5, safetyMs: 600_000 });
for (let seed = 1; seed <= seeds; seed++) {
  const r = runScenario(standard, { seed });
  console.log(`standard seed ${seed} ${r.pass ? "PASS" : "FAIL"} events=${r.events} hash=${r.traceHash}`);
}
const busy = presetScenario({ preset: "chaos", nodes: 5, rate: 20, safetyMs: 120_000 });
const r = runScenario({ ...busy, maxEvents: 100_000_000 }, { seed: 1 });
console.log(`chaos 20w/s 2min seed 1 ${r.pass ? "PASS" : "FAIL"} events=${r.events} hash=${r.traceHash}`);
