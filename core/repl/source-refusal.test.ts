/**
 * Goal: a pair apart longer than maxTimeApart is refused on both sides. A source refuses to
 * answer a partner it would refuse to pull from (`respond` gives a `refused` message, not a
 * batch); each side journals `pull-refused` once per episode, the destination with the
 * source's reason in words that read right there; a node that only answers warns
 * `partner-stale` half way; raising maxTimeApart lifts the refusal, and a later one is
 * journaled again (tombstone audit and attack on the twenty-sixth session's changes).
 * Method: two nodes driven directly; n1 stops pulling from n2 while n2 keeps pulling from n1,
 * with n1's maxTimeApart set to 20 s; journals read after each phase.
 * Also: a destination whose cycle broke off (an answer lost) and that then refuses the
 * source for good judges what that cycle merged at the refusal, as at a source's refusal
 * (diff review, twenty-seventh session: an orphan it merged was never journaled).
 */
import { describe, expect, it } from "vitest";
import { DirectoryNode } from "../node/directory-node";
import { freshDomain, make, t0Ms, unwrap } from "../testing/node-fixture";
import { pullCycle, type PullCycleEnd } from "../testing/pull-cycle";
import { seededRandom } from "../testing/seeded-random";

const s = 1000;

/** One pull cycle of `dest` from `source`: how it ended (a refused cycle is over). */
function pull(source: DirectoryNode, dest: DirectoryNode, now: number): PullCycleEnd {
  const end = pullCycle(source, dest, now);
  if (end === "source-refused") expect(dest.replicator.isPulling(source.dir.nodeId)).toBe(false);
  return end;
}

function setApart(n: DirectoryNode, seconds: number, now: number): void {
  unwrap(n.putAttribute(n.dir.landmarks()!.configuration!, "maxTimeApart", [String(seconds)], now));
}

const lines = (n: DirectoryNode, kind: string): string[] => n.journal().filter((r) => r.kind === kind).map((r) => r.detail);

describe("a source apart from its partner longer than maxTimeApart", () => {
  it("refuses to answer, says so on both sides once per episode, and is lifted by a raised horizon", () => {
    const d = freshDomain(7);
    const n1 = d.node;
    const n2 = DirectoryNode.joining(seededRandom(107));
    expect([pull(n1, n2, t0Ms), pull(n2, n1, t0Ms)]).toEqual(["done", "done"]);
    setApart(n1, 20, t0Ms + s);
    expect([pull(n1, n2, t0Ms + 2 * s), pull(n2, n1, t0Ms + 2 * s)]).toEqual(["done", "done"]);

    // n1 stops pulling from n2; n2 keeps pulling from n1, served until n1's last pull from
    // n2 is older than 20 s, warned half way on n1, the node that only answers.
    const ends = [5, 10, 15, 20, 25, 30].map((t) => pull(n1, n2, t0Ms + t * s));
    expect(ends).toEqual(["done", "done", "done", "done", "source-refused", "source-refused"]);
    expect(lines(n1, "partner-stale")).toEqual([
      `partner ${n2.dir.nodeId} last synced 13 s ago; refused for good in 7 s (maxTimeApart) unless a pull completes first`,
    ]);
    expect(lines(n1, "pull-refused")).toEqual([
      `answer refused: partner ${n2.dir.nodeId} last synced longer than maxTimeApart ago`,
    ]);
    expect(lines(n2, "pull-refused")).toEqual([
      `refused by source ${n1.dir.nodeId}: it last completed a pull from this node longer than maxTimeApart ago`,
    ]);

    // Raised, the pair syncs both ways again; lowered and apart again, a second episode.
    setApart(n1, 100, t0Ms + 31 * s);
    expect([pull(n2, n1, t0Ms + 32 * s), pull(n1, n2, t0Ms + 33 * s)]).toEqual(["done", "done"]);
    setApart(n1, 20, t0Ms + 40 * s);
    expect([pull(n1, n2, t0Ms + 41 * s), pull(n2, n1, t0Ms + 41 * s)]).toEqual(["done", "done"]);
    const again = [45, 50, 55, 60, 65].map((t) => pull(n1, n2, t0Ms + t * s));
    expect(again).toEqual(["done", "done", "done", "done", "source-refused"]);
    expect(lines(n1, "pull-refused")).toHaveLength(2);
    expect(lines(n2, "pull-refused")).toHaveLength(2);
  });
});

describe("a destination refusing a source after a cycle broke off", () => {
  it("journals the repairs of what that cycle merged", () => {
    const d = freshDomain(11);
    const n1 = d.node;
    const n2 = DirectoryNode.joining(seededRandom(111));
    pull(n1, n2, t0Ms);
    pull(n2, n1, t0Ms);
    setApart(n1, 20, t0Ms + s);
    const parent = make(n1, d.root, "P", "organizationalUnit", t0Ms + 2 * s);
    pull(n1, n2, t0Ms + 3 * s);
    pull(n2, n1, t0Ms + 3 * s);
    unwrap(n1.delete(parent, t0Ms + 4 * s));
    make(n2, parent, "C", "organizationalUnit", t0Ms + 4 * s);
    make(n2, d.root, "Other", "organizationalUnit", t0Ms + 4 * s);
    // One batch of one object merged (the orphan first: it sorts before "Other" by USN), then
    // the cycle is given up, its next answer lost.
    const req = n1.replicator.pullRequest(n2.dir.nodeId, t0Ms + 5 * s, 1);
    if (req === null) throw new Error("n1 refused too early");
    const answer = n2.replicator.respond(req, t0Ms + 5 * s);
    if (answer.type === "refused") throw new Error("n2 refused too early");
    expect(n1.replicator.receive(answer, t0Ms + 5 * s)).not.toBeNull();
    n1.replicator.abandon(n2.dir.nodeId);
    expect(pull(n2, n1, t0Ms + 30 * s)).toBe("dest-refused");
    const orphan = unwrap(n1.resolvePath("/LostAndFound/C", t0Ms + 31 * s)).id;
    expect(lines(n1, "repair").filter((l) => l.startsWith(orphan))).toHaveLength(1);
  });
});
