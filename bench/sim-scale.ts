/**
 * How the simulator's speed scales with the size of the domain (not a test; no target). For
 * each node count, one run of the chaos preset at a fixed write rate per node over the mesh and
 * over a sparse graph (`topology sparse 1`, a spanning tree plus each other pair with
 * probability 1/5), printing simulated time per wall time, events, events per wall second and
 * the wall time per simulated second of one node: what an engineer can expect of a larger
 * swarm seed or scenario before starting a battery of them.
 * Usage: npx tsx bench/sim-scale.ts [--minutes M] [--nodes 3,5,8,12,16,24,32] [--per-node W]
 *   defaults: 2 simulated minutes of safety, 1 write/s per node.
 * Runs under the simulator's one-run V8 flags (sim/runtime-flags.ts), as `npm run sim` does.
 */
import { presetScenario } from "../sim/scenario/swarm";
import { runScenario } from "../sim/scenario/run-scenario";
import { ensureSimulatorFlags } from "../sim/runtime-flags";
import type { Topology } from "../sim/scenario/topology";

ensureSimulatorFlags("one-run");

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

const minutes = Number(arg("--minutes") ?? 2);
const perNode = Number(arg("--per-node") ?? 1);
const counts = (arg("--nodes") ?? "3,5,8,12,16,24,32").split(",").map(Number);
if (!(minutes > 0) || !Number.isInteger(minutes * 60_000)) throw new Error(`--minutes takes a positive number, not ${arg("--minutes")}`);
if (!(perNode > 0)) throw new Error(`--per-node takes a positive rate, not ${arg("--per-node")}`);
for (const n of counts) {
  if (!Number.isInteger(n) || n < 2 || n > 64) throw new Error(`--nodes takes counts in 2..64, not ${n}`);
}

const topologies: ReadonlyArray<readonly [string, Topology]> = [
  ["mesh", { kind: "mesh" }],
  ["sparse", { kind: "sparse", seed: 1 }],
];

console.log(
  `[node ${process.version}] chaos preset, ${minutes} simulated min of safety + liveness, ${perNode} write/s per node, seed 1`,
);
console.log("nodes  topology  verdict  virtual s  wall s   x real time  events     events/wall-s  wall ms per node-second");
for (const nodes of counts) {
  for (const [name, topology] of topologies) {
    if (name === "sparse" && nodes < 4) continue;
    const s = { ...presetScenario({ preset: "chaos", nodes, rate: perNode * nodes, safetyMs: minutes * 60_000 }), topology };
    const started = performance.now();
    const r = runScenario({ ...s, maxEvents: 100_000_000 }, { seed: 1 });
    const wallMs = performance.now() - started;
    const virtualS = r.virtualMs / 1000;
    console.log(
      [
        String(nodes).padStart(5),
        name.padEnd(8),
        (r.pass ? "PASS" : "FAIL").padEnd(7),
        virtualS.toFixed(0).padStart(9),
        (wallMs / 1000).toFixed(1).padStart(7),
        `${(r.virtualMs / wallMs).toFixed(0)}x`.padStart(12),
        String(r.events).padStart(9),
        String(Math.round(r.events / (wallMs / 1000))).padStart(14),
        (wallMs / (virtualS * nodes)).toFixed(2).padStart(24),
      ].join("  "),
    );
    if (!r.pass) console.log(r.violations.slice(0, 3).join("\n"));
  }
}
