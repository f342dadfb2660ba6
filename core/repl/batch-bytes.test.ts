/**
 * Goal: pull batches are bounded in bytes as well as in objects: objects holding megabytes of
 * values fill a batch to about limits.batchBytesTarget and the rest follow in later batches of
 * the same cycle, nothing lost; an object larger than the target still goes, alone; small
 * objects are bounded by the destination's object count as before.
 * Method: a founded domain creates organizational units with 1 MiB descriptions (SPEC's
 * largest value); a partner's request after the base domain walks the cycle batch by batch,
 * and each batch is measured in its wire form (core/repl/wire.ts).
 */
import { describe, expect, it } from "vitest";
import { limits } from "../limits";
import { freshDomain, t0Ms, unwrap } from "../testing/node-fixture";
import { emptyTravelling } from "../testing/travelling-vector";
import type { PullBatch, PullRequest } from "./messages";
import { deltaBytes } from "./enumerate-changes";
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
    watermark = { invocation: batch.invocation, usn: batch.highUsn, propUsn: startUsn };
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

  it("send an object larger than the target alone, and small objects by the object count", () => {
    const d = freshDomain();
    const start = d.node.dir.usn;
    const huge = ou(d, "Huge", Array.from({ length: 5 }, (_, i) => `${i}`.padEnd(mib, "y")));
    const small = Array.from({ length: 7 }, (_, i) => ou(d, `Small ${i}`, ["tiny"]));
    const batches = walk(d, start, 3);
    expect(batches.map((b) => b.deltas.map((x) => x.id))).toEqual([
      [huge],
      small.slice(0, 3),
      small.slice(3, 6),
      small.slice(6),
    ]);
  });
});
