/**
 * The floor of the simulator's hour under the current design (not a test): what the per-record
 * work that no tuning removes costs, measured on real records, against the budget of issue 4's
 * target (one simulated hour of 5 nodes under chaos at 20 writes/s in 3.6 s of wall time, i.e.
 * 1,000x real time).
 *
 * 1. Runs the hour's shape for some simulated minutes (5 nodes, chaos, 20 writes/s, seed 1),
 *    counting its work as bench/sim-anatomy.ts does (wrapping KvStore.open, KvStore#rotate and
 *    Replicator#answer; the run is unchanged): workload writes, deltas sent (each merged on
 *    arrival), boots and the entries each loads, rotations and the entries each rebuild
 *    writes; and keeps the object records (`o/<id>` values) of its largest boot.
 * 2. Times, per record, over all of them (best of several passes, warm):
 *    - decode: `decodeRecord` (core/store/record-codec.ts), the boot's and the merge input's;
 *    - encode: `encodeRecord`, what every persisted write costs before the log;
 *    - log record: the WAL's framing of a one-put batch (UTF-8, length, CRC-32, as installed
 *      by the simulator's host: Node's native helpers);
 *    - merge: `mergeRecord` of the whole record as a delta onto nothing (an apply that
 *      creates the object);
 *    - index: `Store.load` of the record into a fresh store (the boot's index inserts).
 * 3. Multiplies them by the run's counts scaled to one hour into a floor of wall seconds per
 *    simulated hour for that work alone, and prints it against the budget: each write encoded
 *    and logged at its origin and merged, encoded and logged on the 4 other nodes, the
 *    deltas beyond those merged only, every boot's entries indexed, every rotation's entries
 *    framed.
 *
 * The floor leaves out everything that is not one of these five steps (enumeration, vectors,
 * messages, the effective view, the workload and the oracles, the SimFs itself), so the
 * real hour is well above it; in a run, boots and rotations also touch records the caches
 * no longer hold, so the same steps cost more there than in these loops.
 * The directory grows through the hour, so shorter runs (`--minutes M`) undercount boots and
 * rotations. Usage: npx tsx bench/sim-floors.ts [--minutes 60]
 */
import "../sim/directory/directory-host"; // installs Node's native CRC-32 and UTF-8 helpers, as runs do
import { decodeRecord, encodeRecord } from "../core/store/record-codec";
import { Store } from "../core/store/store";
import type { ObjectRecord } from "../core/store/record";
import { mergeRecord } from "../core/merge/merge-record";
import type { ObjectDelta } from "../core/merge/object-delta";
import { encodeRecordScratch } from "../core/wal/record-codec";
import { KvStore } from "../core/wal/kv-store";
import { Replicator } from "../core/repl/replicator";
import { WorkTally } from "../sim/work-meter";
import { presetScenario } from "../sim/scenario/swarm";
import { runScenario } from "../sim/scenario/run-scenario";
import { ensureSimulatorFlags } from "../sim/runtime-flags";

ensureSimulatorFlags("one-run");
const at = process.argv.indexOf("--minutes");
const minutes = at > 0 ? Number(process.argv[at + 1]) : 60;
if (!(minutes > 0)) throw new Error("usage: sim-floors.ts [--minutes M > 0]");

// 1. The run, counted, and real records: the entries of its largest boot.
let lastEntries: ReadonlyMap<string, string> = new Map();
const boots = { n: 0, entries: 0 };
const open = KvStore.open.bind(KvStore);
KvStore.open = (fs, options) => {
  const opened = open(fs, options);
  boots.n++;
  boots.entries += opened.entries.size;
  // The boot only reads the map it is handed: keeping it costs memory, not a copy.
  if (opened.entries.size >= lastEntries.size) lastEntries = opened.entries;
  return opened;
};
const rotations = { n: 0, entries: 0 };
const rotate = KvStore.prototype.rotate;
KvStore.prototype.rotate = function (this: KvStore) {
  const out = rotate.call(this);
  rotations.n++;
  rotations.entries += this.view().rebuild.lastOutcome?.entries ?? 0;
  return out;
};
let deltasSent = 0;
const answer = Replicator.prototype.answer;
Replicator.prototype.answer = function (this: Replicator, req, nowMs) {
  const batch = answer.call(this, req, nowMs);
  deltasSent += batch.deltas.length;
  return batch;
};
const tally = new WorkTally(() => 0);
const s = presetScenario({ preset: "chaos", nodes: 5, rate: 20, safetyMs: minutes * 60_000 });
const started = performance.now();
const run = runScenario({ ...s, maxEvents: 100_000_000 }, { seed: 1, meter: tally.meter });
const runWallS = (performance.now() - started) / 1000;
if (!run.pass) throw new Error(`the run failed: ${run.violations.slice(0, 3).join("; ")}`);
tally.stop();
KvStore.open = open;
KvStore.prototype.rotate = rotate;
Replicator.prototype.answer = answer;
const writes = tally.shares().find((share) => share.kind === "workload writes")?.times ?? 0;

const texts: string[] = [];
for (const [key, value] of lastEntries) if (key.startsWith("o/")) texts.push(value);
if (texts.length === 0) throw new Error("the run booted no node with records");
const records = texts.map(decodeRecord);
const deltas: ObjectDelta[] = records.map((r) => ({
  id: r.id,
  existence: r.existence,
  placement: r.placement,
  attrs: [...r.attrs].map(([name, atoms]) => [name, [...atoms.values()]] as const),
}));
const bytes = texts.reduce((sum, t) => sum + t.length, 0);
console.log(`${texts.length} records of the largest boot of a ${minutes}-minute run, ${Math.round(bytes / texts.length)} characters each on average`);

// 2. Per-record costs, best of several passes over all records.
let sink = 0;
function perRecordUs(name: string, pass: () => void): number {
  let best = Infinity;
  for (let round = 0; round < 15; round++) {
    const started = performance.now();
    pass();
    best = Math.min(best, performance.now() - started);
  }
  const us = (best * 1000) / texts.length;
  console.log(`  ${name.padEnd(12)} ${us.toFixed(2).padStart(6)} µs a record`);
  return us;
}

const decode = perRecordUs("decode", () => {
  for (const t of texts) sink += decodeRecord(t).usnChanged;
});
const encode = perRecordUs("encode", () => {
  for (const r of records) sink += encodeRecord(r).length;
});
const logRecord = perRecordUs("log record", () => {
  for (let i = 0; i < texts.length; i++) {
    sink += encodeRecordScratch(i + 1, { puts: [[`o/${records[i]!.id}`, texts[i]!]], dels: [] }).length;
  }
});
const merge = perRecordUs("merge", () => {
  for (const d of deltas) sink += mergeRecord(undefined, d, 1).record === null ? 0 : 1;
});
const index = perRecordUs("index", () => {
  const store = new Store(() => false);
  store.beginLoad();
  for (const r of records) store.load(r as ObjectRecord);
  store.endLoad();
  sink += store.size;
});

// 3. The run's counts scaled to one hour.
const perHour = 60 / minutes;
const budgetS = 3.6;
const mean = (total: number, n: number): number => (n === 0 ? 0 : Math.round(total / n));
console.log(
  `per simulated hour: ${Math.round(writes * perHour)} writes, ${Math.round(deltasSent * perHour)} deltas merged, ` +
    `${Math.round(boots.n * perHour)} boots of ${mean(boots.entries, boots.n)} entries, ` +
    `${Math.round(rotations.n * perHour)} rotations of ${mean(rotations.entries, rotations.n)} entries`,
);
// Each write must be merged, encoded and logged once on each other node; the deltas beyond
// that (a change reaching a node by two partners, or again after a fault) cost a merge only.
const replicas = 4;
const needed = Math.min(deltasSent, writes * replicas);
const rows: Array<[string, number]> = [
  ["writes: encode + log record at the origin", writes * (encode + logRecord)],
  [`replicas: merge + encode + log record of each write on ${replicas} other nodes`, needed * (merge + encode + logRecord)],
  ["deltas beyond those: merge", (deltasSent - needed) * merge],
  ["boots: index every entry", boots.entries * index],
  ["rotations: frame every entry", rotations.entries * logRecord],
].map(([name, us]) => [name as string, ((us as number) * perHour) / 1e6]);
console.log(`the floor of one simulated hour (budget for 1,000x: ${budgetS} s of wall time):`);
let total = 0;
for (const [name, seconds] of rows) {
  total += seconds;
  console.log(`  ${seconds.toFixed(2).padStart(6)} s  ${name}`);
}
console.log(
  `  ${total.toFixed(2).padStart(6)} s  together: ${((100 * total) / budgetS).toFixed(0)} % of the budget; were all ` +
    `other work free (enumeration, vectors, messages, views, workload, oracles, the boots' decoding of ` +
    `changed records at ${decode.toFixed(2)} µs each), the hour would run at ${(3600 / total).toFixed(0)}x real time`,
);
const runHourS = runWallS * perHour;
console.log(
  `this run: ${runWallS.toFixed(1)} s of wall time for ${minutes} simulated minutes ` +
    `(${((minutes * 60) / runWallS).toFixed(0)}x real time, counting wrappers included), ` +
    `~${Math.max(0, runHourS - total).toFixed(1)} s per simulated hour above the floor (other work, and these steps' own ` +
    `extra cost in a run, where caches are cold)`,
);
if (sink === -1) console.log("");
