/**
 * Goal: pull batches are bounded in bytes as well as in objects: objects holding megabytes of
 * values fill a batch to about limits.batchBytesTarget and the rest follow in later batches of
 * the same cycle, nothing lost; an object larger than the target goes in parts, each batch
 * within the target plus one value, and a destination ends holding all of it; small objects are
 * bounded by the destination's object count as before.
 * Method: a founded domain creates organizational units with 1 MiB descriptions (SPEC's
 * largest value); a partner's request after the base domain walks the cycle batch by batch,
 * and each batch is measured in its wire form (core/repl/wire.ts).
 */
import { describe, expect, it } from "vitest";
import { limits } from "../limits";
import { freshDomain, t0Ms, unwrap } from "../testing/node-fixture";
import { emptyTravelling } from "../testing/travelling-vector";
import type { PullBatch, PullRequest } from "./messages";
import { deltaBytes } from "./split-delta";
import { encodeMessage } from "./wire";

const mib = 1024 * 1024;
const from = "00000000-0000-4000-8000-00000000beef";

function walk(d: ReturnType<typeof freshDomain>, startUsn: number, objectsMax: number): PullBatch[] {
  const batches: PullBatch[] = [];
  let watermark: PullRequest["watermark"] = { invocation: d.node.dir.invocationId, usn: startUsn, propUsn: startUsn };
  for (let i = 0; i < 100; i++) {
    const req: PullRequest = { type: "pull", requestId: i, from, watermark, utd: emptyTravelling(from), objectsMax };
    const batch = d.node.replicator.answer(req, t0Ms);
    batches.push(batch);
    if (!batch.more) return batches;
    watermark = {
      invocation: batch.invocation,
      usn: batch.highUsn,
      propUsn: startUsn,
      ...(batch.within === undefined ? {} : { within: batch.within }),
    };
  }
  throw new Error("the cycle never ended");
}

function ou(d: ReturnType<typeof freshDomain>, name: string, descriptions: string[]): string {
  return unwrap(
    d.node.create(
      { parent: d.root, name, className: "organizationalUnit", attributes: { description: descriptions } },
      t0Ms,
    ),
  ).id;
}

describe("pull batches bounded in bytes", () => {
  it("fill to about the byte target with large objects, and the cycle carries every object", () => {
    const d = freshDomain();
    const start = d.node.dir.usn;
    const ids = Array.from({ length: 12 }, (_, i) => ou(d, `Big ${i}`, [`${i}`.padEnd(mib, "x")]));
    const batches = walk(d, start, 50);
    const sent = batches.flatMap((b) => b.deltas.map((x) => x.id));
    expect(sent).toEqual(ids);
    // A caseless value travels twice, as its set-key (the folded form, which a destination
    // without the schema could not derive) and as itself: two such objects reach the 4 MiB
    // target, so the cycle takes six batches, the last one completing it.
    expect(batches.map((b) => b.deltas.length)).toEqual([2, 2, 2, 2, 2, 2]);
    for (const b of batches) {
      const wire = encodeMessage(b).length;
      expect(wire).toBeLessThan(limits.batchBytesTarget + 2 * mib);
      const estimate = b.deltas.reduce((n, x) => n + deltaBytes(x), 0);
      expect(Math.abs(estimate - wire) / wire).toBeLessThan(0.05);
    }
  });

  it("send an object larger than the target in parts, and small objects by the object count", () => {
    const d = freshDomain();
    const start = d.node.dir.usn;
    const values = Array.from({ length: 5 }, (_, i) => `${i}`.padEnd(mib, "y"));
    const huge = ou(d, "Huge", values);
    const small = Array.from({ length: 7 }, (_, i) => ou(d, `Small ${i}`, ["tiny"]));
    const batches = walk(d, start, 3);
    // Each value travels twice (as itself and as its caseless set-key): two values reach the
    // target, so the object goes in three parts, the last one sharing its batch.
    expect(batches.map((b) => b.deltas.map((x) => x.id))).toEqual([
      [huge],
      [huge],
      [huge, ...small.slice(0, 2)],
      small.slice(2, 5),
      small.slice(5),
    ]);
    const parts = batches.flatMap((b) => b.deltas.filter((x) => x.id === huge));
    expect(parts.map((p) => p.existence !== null)).toEqual([true, false, false]);
    const sent = parts.flatMap((p) => p.attrs.flatMap(([, atoms]) => atoms.map((a) => a.value)));
    expect([...sent].sort()).toEqual(values);
    expect(batches.slice(0, 2).map((b) => b.within !== undefined && b.more)).toEqual([true, true]);
    for (const b of batches) expect(encodeMessage(b).length).toBeLessThan(limits.batchBytesTarget + 2 * mib + 4096);
  });
});
