/**
 * Goal: a shred erases on every node, not only where it was written. A node that merges a
 * replicated shred drops the record's value atoms, and its older files still hold them: its next batch must raise erasure, as the originating node's does,
 * so that the shell raises erasure debt and rebuilds (DESIGN: after a shred nothing of a
 * value survives in any live file). Found by the simulator's erasure oracle: replicas kept
 * the plaintext in their logs (scenarios/regressions/replicated-shred-keeps-plaintext.scn).
 * Method: a source and a joined destination; the source writes a value, the destination
 * pulls it, the source shreds, and the destination pulls again; each pull's batch is
 * inspected.
 */
import { describe, expect, it } from "vitest";
import { DirectoryNode } from "../node/directory-node";
import { freshDomain, make, t0Ms, unwrap } from "../testing/node-fixture";
import { seededRandom } from "../testing/seeded-random";

/** Runs one pull cycle of `dest` from `source` to completion. */
function pull(source: DirectoryNode, dest: DirectoryNode): void {
  let req = dest.replicator.pullRequest(source.dir.nodeId, t0Ms, 50);
  for (let round = 0; req !== null && round < 100; round++) {
    req = dest.replicator.receive(source.replicator.answer(req, t0Ms), t0Ms);
  }
  expect(req).toBeNull();
}

describe("a replicated shred", () => {
  it("raises erasure on the node that merges it, and only then", () => {
    const d = freshDomain();
    const id = make(d.node, d.root, "Vault", "organizationalUnit", t0Ms, { description: ["xyzzy"] });
    d.node.ready();
    const dest = DirectoryNode.joining(seededRandom(5));
    pull(d.node, dest);
    const joined = dest.ready();
    expect(joined?.batch.puts.some(([, v]) => v.includes("xyzzy"))).toBe(true);
    expect(joined?.erasure).toBe(false);

    // Ordinary replicated writes, an attribute removal included, erase nothing.
    unwrap(d.node.putAttribute(id, "description", [], t0Ms));
    d.node.ready();
    pull(d.node, dest);
    expect(dest.ready()?.erasure).toBe(false);
    unwrap(d.node.putAttribute(id, "description", ["xyzzy again"], t0Ms));
    d.node.ready();
    pull(d.node, dest);
    expect(dest.ready()?.erasure).toBe(false);

    unwrap(d.node.shred(id, t0Ms));
    expect(d.node.ready()?.erasure).toBe(true);
    pull(d.node, dest);
    const merged = dest.ready();
    expect(dest.dir.get(id)?.existence.stage).toBe("shredded");
    expect(dest.dir.get(id)?.attrs.size).toBe(0);
    expect(merged?.erasure).toBe(true);
    expect(JSON.stringify(merged?.batch)).not.toContain("xyzzy");

    // Pulling the shredded record again (nothing changed) raises nothing more.
    pull(d.node, dest);
    expect(dest.ready()?.erasure ?? false).toBe(false);
  });
});
