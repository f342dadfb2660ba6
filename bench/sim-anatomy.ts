/**
 * What the simulator's long runs are made of (not a test): the counts behind the hour's time,
 * for whoever redesigns boots, rebuilds or pulls. Runs the hour's shape (5 nodes, chaos preset,
 * 20 writes/s; `--minutes M`, `--rate W`, `--preset NAME`, `--seed N` change it) and prints:
 * - boots: how many, the snapshot entries each loads and the entries after its log, the log
 *   records it replays, and how many load the very snapshot the node's previous boot loaded;
 * - rotations: how many, the entries each rebuild writes, and their wall time;
 * - pull answers: how many, how many say `more`, how many carry no delta, deltas per answer.
 * It counts by wrapping three public entry points (KvStore.open, KvStore#rotate,
 * Replicator#answer) for the run; a run is otherwise unchanged (same trace).
 * Usage: npx tsx bench/sim-anatomy.ts [--minutes 60] [--rate 20] [--preset chaos] [--seed 1]
 */
import { KvStore } from "../core/wal/kv-store";
import { Replicator } from "../core/repl/replicator";
import type { FileSystem } from "../core/wal/fs-port";
import { runShapeArgs } from "./run-shape-args";
import { presetScenario } from "../sim/scenario/swarm";
import { runScenario } from "../sim/scenario/run-scenario";
import { ensureSimulatorFlags } from "../sim/runtime-flags";

ensureSimulatorFlags("one-run");
const { minutes, rate, seed, preset } = runShapeArgs("sim-anatomy.ts", { minutes: 60, rate: 20, seed: 1, preset: "chaos" });

const boots = { n: 0, snapshotEntries: 0, entries: 0, replayed: 0, sameSnapshot: 0 };
const lastSnapshot = new Map<FileSystem, string>();
const open = KvStore.open.bind(KvStore);
KvStore.open = (fs, options) => {
  const opened = open(fs, options);
  const b = opened.boot;
  boots.n++;
  boots.snapshotEntries += b.snapshotEntries;
  boots.entries += b.entries;
  boots.replayed += b.recordsReplayed;
  const snapshot = `${b.snapshotGeneration}/${b.snapshotEntries}`;
  if (b.snapshotGeneration > 0 && lastSnapshot.get(fs) === snapshot) boots.sameSnapshot++;
  lastSnapshot.set(fs, snapshot);
  return opened;
};

const rotations = { n: 0, entries: 0, ms: 0 };
const rotate = KvStore.prototype.rotate;
KvStore.prototype.rotate = function (this: KvStore) {
  const started = performance.now();
  const out = rotate.call(this);
  rotations.ms += performance.now() - started;
  rotations.n++;
  rotations.entries += this.view().rebuild.lastOutcome?.entries ?? 0;
  return out;
};

const answers = { n: 0, more: 0, empty: 0, deltas: 0 };
const answer = Replicator.prototype.answer;
Replicator.prototype.answer = function (this: Replicator, req, nowMs) {
  const batch = answer.call(this, req, nowMs);
  answers.n++;
  if (batch.more) answers.more++;
  if (batch.deltas.length === 0) answers.empty++;
  answers.deltas += batch.deltas.length;
  return batch;
};

const s = presetScenario({ preset, nodes: 5, rate, safetyMs: minutes * 60_000 });
const started = performance.now();
const r = runScenario({ ...s, maxEvents: 100_000_000 }, { seed });
const wallS = (performance.now() - started) / 1000;
const pct = (a: number, b: number): string => `${b === 0 ? 0 : Math.round((100 * a) / b)} %`;
const mean = (a: number, b: number): string => (b === 0 ? "0" : (a / b).toFixed(0));
console.log(
  `${preset}, 5 nodes, ${rate} writes/s, ${minutes} simulated min, seed ${seed}: ${r.pass ? "PASS" : "FAIL"}, ` +
    `${r.events} events in ${wallS.toFixed(1)} s wall`,
);
console.log(
  `boots: ${boots.n}; per boot ${mean(boots.snapshotEntries, boots.n)} snapshot entries, ` +
    `${mean(boots.entries, boots.n)} after the log, ${mean(boots.replayed, boots.n)} log records replayed; ` +
    `${boots.sameSnapshot} (${pct(boots.sameSnapshot, boots.n)}) load the snapshot the node's previous boot loaded`,
);
console.log(
  `rotations: ${rotations.n}; ${mean(rotations.entries, rotations.n)} entries per rebuild, ` +
    `${(rotations.ms / 1000).toFixed(2)} s wall (${rotations.n === 0 ? 0 : (rotations.ms / rotations.n).toFixed(1)} ms each)`,
);
console.log(
  `pull answers: ${answers.n}; ${answers.more} (${pct(answers.more, answers.n)}) with more, ` +
    `${answers.empty} (${pct(answers.empty, answers.n)}) without a delta, ` +
    `${(answers.n === 0 ? 0 : answers.deltas / answers.n).toFixed(1)} deltas per answer`,
);
