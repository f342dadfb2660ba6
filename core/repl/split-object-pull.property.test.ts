/**
 * Goal: whatever happens at the source between the parts of an object larger than a batch
 * (its values replaced, other objects created, the object deleted, restored or hardened by GC,
 * which drops its values and keeps its USN, a request lost and the cycle resumed), a destination that pulls until a cycle completes holds every object
 * exactly as the source holds it: no atom skipped by a cursor, none left behind by a part.
 * Method: fast-check draws a sequence of steps; a founded domain with a 6 KB byte target, which
 * a joining node has pulled, creates one object of twelve 1-2 KB values; the steps interleave
 * single batches of the joining node's pulls with the source's writes; at the end the destination pulls to
 * completion and the two stores are compared record by record, atom by atom.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DirectoryNode } from "../node/directory-node";
import type { ObjectRecord } from "../store/record";
import { freshDomain, t0Ms, unwrap } from "../testing/node-fixture";
import { seededRandom } from "../testing/seeded-random";
import type { PullRequest } from "./messages";

type Step =
  | { kind: "batch" }
  | { kind: "lose" }
  | { kind: "replace"; keep: number; add: number; size: number }
  | { kind: "create"; values: number }
  | { kind: "delete" }
  | { kind: "restore" }
  | { kind: "gc" };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: "batch" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "lose" as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("replace" as const),
      keep: fc.integer({ min: 0, max: 12 }),
      add: fc.integer({ min: 0, max: 4 }),
      size: fc.integer({ min: 10, max: 2500 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("create" as const), values: fc.integer({ min: 0, max: 8 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "delete" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "restore" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "gc" as const }) },
);

function atomsOf(record: ObjectRecord) {
  const attrs: Record<string, unknown> = {};
  for (const [name, atoms] of record.attrs) {
    for (const [key, atom] of atoms) attrs[`${name}/${key}`] = [atom.present, atom.value, atom.stamp.version, atom.stamp.cert];
  }
  return { existence: record.existence.stamp.cert, stage: record.existence.stage, placement: record.placement.stamp.cert, attrs };
}

function value(tag: string, i: number, size: number): string {
  return `${tag}-${i}-`.padEnd(size, String.fromCharCode(97 + (i % 26)));
}

function run(steps: readonly Step[]): void {
  const d = freshDomain();
  const source = d.node;
  source.replicator.batchBytesTarget = 6000;
  // A one-second restore window: a deleted object hardens (loses its values, keeping its USN)
  // at the next GC after it, between two parts perhaps.
  unwrap(source.putAttribute(d.configuration, "timeUntilShred", ["1"], t0Ms));
  source.ready();
  const dest = DirectoryNode.joining(seededRandom(11));
  const sourceId = source.dir.nodeId;
  let now = t0Ms;
  // The destination holds the base domain first, so that the steps' batches reach the object.
  let req: PullRequest | null = null;
  const pullToCompletion = () => {
    for (let i = 0; i < 1000; i++) {
      now += 100;
      req ??= dest.replicator.pullRequest(sourceId, now);
      expect(req).not.toBeNull();
      req = dest.replicator.receive(source.replicator.answer(req!, now), now);
      if (req === null) return;
    }
    throw new Error("the cycle never completed");
  };
  pullToCompletion();
  const big = unwrap(
    source.create(
      {
        parent: d.root,
        name: "Big",
        className: "organizationalUnit",
        attributes: { description: Array.from({ length: 12 }, (_, i) => value("v", i, 1000 + 100 * i)) },
      },
      now,
    ),
  ).id;
  source.ready();
  let made = 0;
  const step = (s: Step) => {
    now += 100;
    switch (s.kind) {
      case "batch": {
        req ??= dest.replicator.pullRequest(sourceId, now);
        if (req === null) return;
        req = dest.replicator.receive(source.replicator.answer(req, now), now);
        return;
      }
      case "lose":
        if (req !== null) dest.replicator.abandon(sourceId);
        req = null;
        return;
      case "replace": {
        const held = source.dir.get(big)!;
        if (held.existence.stage !== "alive") return;
        const present = [...(held.attrs.get("description")?.values() ?? [])].filter((a) => a.present).map((a) => a.value!);
        const values = [...present.slice(0, s.keep), ...Array.from({ length: s.add }, (_, i) => value(`r${now}`, i, s.size))];
        unwrap(source.putAttribute(big, "description", values, now));
        break;
      }
      case "create":
        made += 1;
        unwrap(
          source.create(
            {
              parent: d.root,
              name: `Other ${made}`,
              className: "organizationalUnit",
              attributes: { description: Array.from({ length: s.values }, (_, i) => value(`o${made}`, i, 1500)) },
            },
            now,
          ),
        );
        break;
      case "delete":
        if (source.dir.get(big)!.existence.stage === "alive") unwrap(source.delete(big, now));
        break;
      case "restore":
        // Refused once the restore window has passed (not-restorable): nothing changes.
        if (source.dir.get(big)!.existence.stage === "deleted") source.restore(big, now);
        break;
      case "gc":
        unwrap(source.gc(now));
        break;
    }
    source.ready();
  };
  for (const s of steps) step(s);
  // Then pull until a cycle completes (and once more: a completed cycle may have been the one
  // under way when the last write came).
  pullToCompletion();
  pullToCompletion();
  // Hardening is local (each node on its own clock): the destination's GC at the same time
  // drops what the source's dropped.
  unwrap(source.gc(now));
  unwrap(dest.gc(now));
  for (const record of source.dir.store.all()) {
    const held = dest.dir.get(record.id);
    expect(held, `destination holds ${record.placement.name}`).toBeDefined();
    expect(atomsOf(held!)).toEqual(atomsOf(record));
  }
}

describe("an object larger than a batch, pulled while the source changes", () => {
  it("arrives as the source holds it, whatever happens between its parts", () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 40 }), (steps) => run(steps)),
      { numRuns: 60 },
    );
  });
});
