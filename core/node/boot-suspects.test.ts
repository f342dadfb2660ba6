/**
 * Goal: a booted node shows the same derived repairs under /LostAndFound as the node that
 * wrote the state, whatever order the persisted records arrive in: orphans (parent gone) and
 * the broken member of a stored move cycle. Method: build both with real writes (a stored
 * cycle needs a replicated move, so the second move is written as another node's atom), persist,
 * boot from the entries in key order and in reverse, and compare the /LostAndFound listing.
 */
import { describe, expect, it } from "vitest";
import { seededRandom } from "../testing/seeded-random";
import { make, secondMs, t0Ms, unwrap, withStoredCycle } from "../testing/node-fixture";
import { DirectoryNode } from "./directory-node";

function stored(node: DirectoryNode, into: Map<string, string>): void {
  const ready = node.ready();
  if (ready === null) return;
  for (const [k, v] of ready.batch.puts) into.set(k, v);
  for (const k of ready.batch.dels) into.delete(k);
}

describe("boot settles repair suspects from the whole stored tree", () => {
  it("lists the same orphans and cycle breakers under /LostAndFound after a boot", () => {
    const d = withStoredCycle();
    const { node: n, a, b } = d;
    const gone = make(n, d.root, "Gone");
    const orphan = make(n, gone, "Orphan");
    // An orphan: its parent's record is purged (as GC would, past the horizon).
    n.dir.purge(gone);
    n.markChanged();
    const entries = new Map<string, string>();
    stored(n, entries);
    const before = unwrap(n.children(d.lostAndFound)).map((c) => c.id).sort();
    expect(before).toContain(orphan);
    expect(before.some((id) => id === a || id === b)).toBe(true);
    for (const order of [[...entries], [...entries].reverse()]) {
      const booted = DirectoryNode.boot(seededRandom(9), order)!;
      expect(unwrap(booted.children(d.lostAndFound)).map((c) => c.id).sort()).toEqual(before);
    }
  });
});

describe("the morgue beside a stored move cycle", () => {
  it("shows a tombstone inside a stored cycle with a finite last path", () => {
    const { node: n, a } = withStoredCycle();
    const c = make(n, a, "C");
    unwrap(n.delete(c, t0Ms + 3 * secondMs));
    const entry = unwrap(n.morgue(t0Ms + 3 * secondMs)).find((m) => m.id === c);
    // The walk from C goes up A, B, then A again: it stops at the repeat.
    expect(entry?.lastPath).toBe("/B/A/C");
  });
});
