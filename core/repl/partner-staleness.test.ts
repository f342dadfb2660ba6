/**
 * Goal: a partner that has not completed a pull for half of maxTimeApart is reported once in
 * the journal (`partner-stale`, before the refusal for good), again only after another
 * completed pull goes stale, and past maxTimeApart the pull is refused (`pull-refused`).
 * Method: a destination completes a pull from a source at t0, then asks for pulls at times
 * around the two thresholds and reads its journal.
 */
import { describe, expect, it } from "vitest";
import { DirectoryNode } from "../node/directory-node";
import { freshDomain, t0Ms } from "../testing/node-fixture";
import { seededRandom } from "../testing/seeded-random";
import type { PullRequest } from "./messages";

function completePull(source: DirectoryNode, dest: DirectoryNode, atMs: number): void {
  let req: PullRequest | null = dest.replicator.pullRequest(source.dir.nodeId, atMs);
  expect(req).not.toBeNull();
  for (let round = 0; req !== null && round < 100; round++) {
    req = dest.replicator.receive(source.replicator.answer(req, atMs), atMs);
  }
  expect(req).toBeNull();
  dest.ready();
}

function kinds(node: DirectoryNode, kind: string): string[] {
  return node.dir.journal
    .list()
    .filter((r) => r.kind === kind)
    .map((r) => r.detail);
}

describe("a partner apart for long", () => {
  it("is reported stale half way to maxTimeApart, once per completed pull, then refused", () => {
    const d = freshDomain();
    d.node.ready();
    const source = d.node;
    const dest = DirectoryNode.joining(seededRandom(7));
    completePull(source, dest, t0Ms);
    const { purgeAfterMs } = dest.dir.replicationConfig();
    const id = source.dir.nodeId;

    // Just under half way: nothing to report; the request is an ordinary one.
    expect(dest.replicator.pullRequest(id, t0Ms + purgeAfterMs / 2)).not.toBeNull();
    dest.replicator.abandon(id);
    expect(kinds(dest, "partner-stale")).toEqual([]);

    // Past half way: reported once, however often the node asks.
    for (const late of [purgeAfterMs / 2 + 1000, purgeAfterMs / 2 + 5000]) {
      expect(dest.replicator.pullRequest(id, t0Ms + late)).not.toBeNull();
      dest.replicator.abandon(id);
    }
    const stale = kinds(dest, "partner-stale");
    expect(stale).toHaveLength(1);
    expect(stale[0]).toContain(`partner ${id} last synced ${purgeAfterMs / 2000 + 1} s ago`);
    expect(stale[0]).toContain(`refused for good in ${purgeAfterMs / 2000 - 1} s`);

    // A pull completes: the pair is fresh again; it goes stale again only half a horizon later.
    const t1 = t0Ms + purgeAfterMs / 2 + 10_000;
    completePull(source, dest, t1);
    expect(dest.replicator.pullRequest(id, t1 + 1000)).not.toBeNull();
    dest.replicator.abandon(id);
    expect(kinds(dest, "partner-stale")).toHaveLength(1);
    expect(dest.replicator.pullRequest(id, t1 + purgeAfterMs / 2 + 1000)).not.toBeNull();
    dest.replicator.abandon(id);
    expect(kinds(dest, "partner-stale")).toHaveLength(2);

    // Past maxTimeApart since the last completed pull: refused for good, journaled once.
    expect(dest.replicator.pullRequest(id, t1 + purgeAfterMs + 1000)).toBeNull();
    expect(dest.replicator.pullRequest(id, t1 + purgeAfterMs + 2000)).toBeNull();
    expect(kinds(dest, "pull-refused")).toHaveLength(1);
    expect(kinds(dest, "partner-stale")).toHaveLength(2);
  });
});
