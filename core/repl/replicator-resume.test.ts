/**
 * Goal: a pull cycle whose batch was lost resumes where it stopped instead of starting over,
 * and only a completed cycle moves the stored watermark and the vector. Method: a source with
 * more objects than one batch holds; a joining destination takes the first batch, its next
 * request is lost (the cycle is abandoned, as the pull timeout does), and the next pull is
 * inspected and run to completion.
 */
import { describe, expect, it } from "vitest";
import { DirectoryNode } from "../node/directory-node";
import { freshDomain, make, t0Ms } from "../testing/node-fixture";
import { seededRandom } from "../testing/seeded-random";
import type { PullRequest } from "./messages";

const batchObjects = 10;

function setUp() {
  const d = freshDomain();
  for (let i = 0; i < 3 * batchObjects; i++) make(d.node, d.root, `OU ${i}`);
  d.node.ready();
  const dest = DirectoryNode.joining(seededRandom(5));
  return { source: d.node, dest };
}

/** Runs a cycle from `first` to completion; returns the ids the source sent. */
function finish(source: DirectoryNode, dest: DirectoryNode, first: PullRequest): string[] {
  const sent: string[] = [];
  let req: PullRequest | null = first;
  for (let round = 0; req !== null && round < 100; round++) {
    const batch = source.replicator.answer(req, t0Ms);
    sent.push(...batch.deltas.map((delta) => delta.id));
    req = dest.replicator.receive(batch, t0Ms);
  }
  expect(req).toBeNull();
  return sent;
}

describe("a pull cycle after a lost batch", () => {
  it("resumes at the last batch received, with the cycle's atom filter", () => {
    const { source, dest } = setUp();
    const sourceId = source.dir.nodeId;
    const first = dest.replicator.pullRequest(sourceId, t0Ms, batchObjects)!;
    const batch = source.replicator.answer(first, t0Ms);
    expect(batch.more).toBe(true);
    const firstIds = new Set(batch.deltas.map((delta) => delta.id));
    const lost = dest.replicator.receive(batch, t0Ms);
    expect(lost?.watermark?.usn).toBe(batch.highUsn);
    dest.replicator.abandon(sourceId); // the request `lost` never arrived: timed out

    // Nothing completed yet: no stored watermark, no vector entry of the source.
    expect(dest.replication.watermarks[sourceId]).toBeUndefined();
    const resumed = dest.replicator.pullRequest(sourceId, t0Ms, batchObjects)!;
    expect(resumed.watermark).toEqual(lost!.watermark);

    const rest = finish(source, dest, resumed);
    expect(rest.some((id) => firstIds.has(id))).toBe(false);
    expect(dest.replication.watermarks[sourceId]?.usn).toBe(source.dir.usn);
    // The destination holds every object of the source.
    for (const r of source.dir.store.all()) expect(dest.dir.get(r.id)).toBeDefined();
    // Completed: the next pull starts at the stored watermark.
    const next = dest.replicator.pullRequest(sourceId, t0Ms, batchObjects)!;
    expect(next.watermark?.usn).toBe(source.dir.usn);
  });

  it("sends again what a changed object needs, even behind the resume point", () => {
    const { source, dest } = setUp();
    const sourceId = source.dir.nodeId;
    // A first batch large enough to reach the workload's OUs (system objects come first).
    const firstMax = source.dir.store.size - batchObjects;
    const batch = source.replicator.answer(dest.replicator.pullRequest(sourceId, t0Ms, firstMax)!, t0Ms);
    expect(batch.more).toBe(true);
    expect(dest.replicator.receive(batch, t0Ms)).not.toBeNull();
    dest.replicator.abandon(sourceId);
    // An object the first batch delivered changes at the source: it moves to a higher USN.
    const changed = batch.deltas
      .map((delta) => source.dir.get(delta.id)!)
      .find((r) => r.placement.name.startsWith("OU "));
    expect(changed).toBeDefined();
    expect(source.move(changed!.id, { name: "Renamed" }, t0Ms + 1000).ok).toBe(true);
    source.ready();
    const rest = finish(source, dest, dest.replicator.pullRequest(sourceId, t0Ms, batchObjects)!);
    expect(rest).toContain(changed!.id);
    expect(dest.dir.get(changed!.id)?.placement.name).toBe("Renamed");
  });
});
