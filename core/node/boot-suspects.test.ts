/**
 * Goal: a booted node shows the same derived repairs under /LostAndFound as the node that
 * wrote the state, whatever order the persisted records arrive in: orphans (parent gone) and
 * the broken member of a stored move cycle. Method: build both with real writes (a stored
 * cycle needs a replicated move, so the second move is written as another node's atom), persist,
 * boot from the entries in key order and in reverse, and compare the /LostAndFound listing.
 */
import { describe, expect, it } from "vitest";
import { seededRandom } from "../testing/seeded-random";
import { freshDomain, make, secondMs, t0Ms, unwrap, withStoredCycle } from "../testing/node-fixture";
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

describe("boot files only records a repair may concern", () => {
  it("files a stored cycle's members and never the root", () => {
    const d = withStoredCycle();
    const { node: n, a, b } = d;
    const entries = new Map<string, string>();
    stored(n, entries);
    const booted = DirectoryNode.boot(seededRandom(9), entries)!;
    const suspects = booted.dir.repairSuspects();
    expect(suspects).toEqual(expect.arrayContaining([a, b]));
    expect(suspects).not.toContain(d.root);
  });
});

describe("a stored cycle's breaker deleted and restored by replication", () => {
  it("is listed under /LostAndFound again, as on a node booted from the same records", () => {
    const d = withStoredCycle();
    const { node: n, b } = d;
    const entries = new Map<string, string>();
    stored(n, entries);
    const listed = (node: DirectoryNode) => unwrap(node.children(d.lostAndFound)).map((c) => c.id);
    expect(listed(n)).toEqual([b]); // B's placement claim is the later one: B breaks the cycle
    // Replicated existence atoms (another node deleted, then restored B), as merges write them.
    const setStage = (stage: "alive" | "deleted", atMs: number): void => {
      const r = n.dir.get(b)!;
      const usn = n.dir.allocateUsn();
      const stamp = n.dir.stamp(r.existence.stamp, atMs, usn);
      n.dir.write({ ...r, existence: { ...r.existence, stage, stamp }, usnChanged: usn });
      n.markChanged();
      stored(n, entries);
    };
    setStage("deleted", t0Ms + 3 * secondMs);
    expect(listed(n)).not.toContain(b); // listing prunes B: dead, it needs no repair
    setStage("alive", t0Ms + 4 * secondMs);
    expect(listed(n)).toEqual([b]);
    const booted = DirectoryNode.boot(seededRandom(9), entries)!;
    expect(listed(booted)).toEqual([b]);
  });
});

describe("a record that arrives after its children and closes a stored cycle", () => {
  it("is listed under /LostAndFound when its claim is the latest, as after a boot", () => {
    const d = freshDomain();
    const n = d.node;
    const x = make(n, d.root, "X");
    const y = make(n, d.root, "Y");
    const rx = n.dir.get(x)!;
    const ry = n.dir.get(y)!;
    // Replicated as merges write them, Y first: Y under X (X not known here yet), then X
    // under Y with the later claim.
    n.dir.purge(x);
    const place = (r: typeof rx, parent: string, atMs: number): void => {
      const usn = n.dir.allocateUsn();
      const stamp = n.dir.stamp(r.placement.stamp, atMs, usn);
      n.dir.write({ ...r, placement: { ...r.placement, parent, stamp }, usnChanged: usn });
      n.markChanged();
    };
    place(ry, x, t0Ms + 2 * secondMs);
    const listed = (node: DirectoryNode) => unwrap(node.children(d.lostAndFound)).map((c) => c.id);
    expect(listed(n)).toEqual([y]); // an orphan while X is unknown
    place(rx, y, t0Ms + 3 * secondMs);
    expect(listed(n)).toEqual([x]);
    const entries = new Map<string, string>();
    stored(n, entries);
    expect(listed(DirectoryNode.boot(seededRandom(9), entries)!)).toEqual([x]);
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
