/**
 * What replication messages weigh on the wire (not a test): for the fabric, which will carry
 * them between machines. Runs a simulated workload (default: 5 nodes, chaos preset, 20
 * writes/s, 10 simulated minutes, seed 1), takes every pull request and batch the nodes'
 * replicators make (wrapping Replicator#pullRequest, #answer and #receive; the run is
 * otherwise unchanged), and prints per message type: count, bytes (mean, p50, p99, max, total),
 * and the cost of the core's encoder, the core's decoder and the fabric boundary's decoder
 * (UTF-8 + JSON + io-ts checks + core decode) in microseconds per message.
 * With `--large-values SHARE:MAX` a share of the describe ops writes values of 100 to MAX bytes
 * (scenario line `large-values`), and `--batch-bytes N` stops batches at N bytes instead of
 * limits.batchBytesTarget (line `batch-bytes`): batches that end inside an object (its parts,
 * core/repl/split-delta.ts) are then tallied apart.
 * Usage: npx tsx bench/wire.ts [--minutes 10] [--rate 20] [--preset chaos] [--seed 1]
 *          [--large-values 0.2:1048576] [--batch-bytes N]
 */
import { Replicator } from "../core/repl/replicator";
import type { ReplicationMessage } from "../core/repl/messages";
import { decodeMessage, encodeMessage } from "../core/repl/wire";
import { decodePeerMessage, encodePeerMessage } from "../adapters/fabric/peer-message";
import { runShapeArgs } from "./run-shape-args";
import { presetScenario } from "../sim/scenario/swarm";
import { runScenario } from "../sim/scenario/run-scenario";
import { ensureSimulatorFlags } from "../sim/runtime-flags";

ensureSimulatorFlags("one-run");
const { minutes, rate, seed, preset } = runShapeArgs("wire.ts", { minutes: 10, rate: 20, seed: 1, preset: "chaos" });
const optionOf = (name: string): string | null => {
  const at = process.argv.indexOf(name);
  return at > 0 ? (process.argv[at + 1] ?? null) : null;
};
const largeArg = optionOf("--large-values");
const large = largeArg === null ? null : largeArg.split(":").map(Number);
if (large !== null && (large.length !== 2 || !(large[0]! > 0 && large[0]! <= 1) || !(large[1]! >= 100))) {
  throw new Error("usage: --large-values SHARE:MAX (0 < SHARE <= 1, MAX >= 100 bytes)");
}
const batchBytesArg = optionOf("--batch-bytes");
const batchBytes = batchBytesArg === null ? null : Number(batchBytesArg);
if (batchBytes !== null && !(Number.isSafeInteger(batchBytes) && batchBytes >= 256)) {
  throw new Error("usage: --batch-bytes N (N >= 256)");
}

interface Tally {
  sizes: number[];
  encodeMs: number;
  decodeMs: number;
  boundaryMs: number;
}
const tallies = new Map<string, Tally>();

function weigh(msg: ReplicationMessage): void {
  const kind =
    msg.type !== "batch"
      ? msg.type
      : msg.within !== undefined
        ? "batch ending inside an object"
        : msg.deltas.length > 0
          ? "batch with deltas"
          : "empty batch";
  let t = tallies.get(kind);
  if (t === undefined) {
    t = { sizes: [], encodeMs: 0, decodeMs: 0, boundaryMs: 0 };
    tallies.set(kind, t);
  }
  let started = performance.now();
  const text = encodeMessage(msg);
  t.encodeMs += performance.now() - started;
  const bytes = encodePeerMessage(text);
  started = performance.now();
  decodeMessage(text);
  t.decodeMs += performance.now() - started;
  started = performance.now();
  const got = decodePeerMessage(bytes);
  t.boundaryMs += performance.now() - started;
  if (!got.ok) throw new Error(`the boundary refused a node's own message: ${got.reason}`);
  t.sizes.push(bytes.byteLength);
}

const pullRequest = Replicator.prototype.pullRequest;
Replicator.prototype.pullRequest = function (this: Replicator, ...args: Parameters<Replicator["pullRequest"]>) {
  const out = pullRequest.apply(this, args);
  if (out !== null) weigh(out);
  return out;
};
const answer = Replicator.prototype.answer;
Replicator.prototype.answer = function (this: Replicator, ...args: Parameters<Replicator["answer"]>) {
  const out = answer.apply(this, args);
  weigh(out);
  return out;
};
const receive = Replicator.prototype.receive;
Replicator.prototype.receive = function (this: Replicator, ...args: Parameters<Replicator["receive"]>) {
  const out = receive.apply(this, args);
  if (out !== null) weigh(out);
  return out;
};

const s = {
  ...presetScenario({ preset, nodes: 5, rate, safetyMs: minutes * 60_000 }),
  largeValues: large === null ? null : { share: large[0]!, minBytes: 100, maxBytes: large[1]! },
  batchBytes,
};
const r = runScenario(s, { seed });
const knobs = `${large === null ? "" : `, large values ${largeArg}`}${batchBytes === null ? "" : `, batches of ${batchBytes} bytes`}`;
console.log(
  `${preset}, 5 nodes, ${rate} writes/s${knobs}, ${minutes} simulated min, seed ${seed}: ${r.pass ? "PASS" : "FAIL"}; ` +
    `pull requests and batches made by the replicators (hints are {"v":1,"t":"hint","f":GUID}, 61 bytes):`,
);
const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
for (const [kind, t] of [...tallies].sort(([a], [b]) => (a < b ? -1 : 1))) {
  const sorted = [...t.sizes].sort((a, b) => a - b);
  const total = sorted.reduce((a, b) => a + b, 0);
  const n = sorted.length;
  const us = (ms: number) => ((ms / n) * 1000).toFixed(1);
  console.log(
    `  ${kind}: ${n} messages, bytes mean ${Math.round(total / n)} p50 ${pct(sorted, 0.5)} p99 ${pct(sorted, 0.99)} ` +
      `max ${sorted[n - 1] ?? 0}, ${(total / 1e6).toFixed(1)} MB in all; µs per message: encode ${us(t.encodeMs)}, ` +
      `core decode ${us(t.decodeMs)}, boundary decode ${us(t.boundaryMs)}`,
  );
}
