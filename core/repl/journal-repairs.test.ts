/**
 * Goal: the journal's `repair` and `merge-discarded` lines tell what merges really did
 * (SPEC: the journal covers derived repairs and merges that discarded concurrent input). A
 * repair that a merge puts on a record the node already holds is journaled there (an orphan
 * whose parent's delete arrived, a held sibling turned CNF by an earlier claim, a held cycle
 * member broken off); a repair that the rest of the same pull cycle undoes is not (a child
 * arriving before its parent); an orphan renamed again is journaled once; a plain replicated
 * restore discards nothing. All found by the journal audit, twenty-fifth session.
 * Method: two nodes driven directly, pulls run to completion or in one-object batches; each
 * node's journal is read after the pulls.
 */
import { describe, expect, it } from "vitest";
import type { Guid } from "../guid";
import { DirectoryNode } from "../node/directory-node";
import { freshDomain, make, t0Ms, unwrap } from "../testing/node-fixture";
import { seededRandom } from "../testing/seeded-random";

function pull(source: DirectoryNode, dest: DirectoryNode, now: number, objectsMax = 50): void {
  let req = dest.replicator.pullRequest(source.dir.nodeId, now, objectsMax);
  for (let round = 0; req !== null && round < 1000; round++) {
    req = dest.replicator.receive(source.replicator.answer(req, now), now);
  }
  expect(req).toBeNull();
}

function pair(seed: number) {
  const d = freshDomain(seed);
  const n2 = DirectoryNode.joining(seededRandom(seed + 100));
  pull(d.node, n2, t0Ms);
  pull(n2, d.node, t0Ms);
  return { d, n1: d.node, n2 };
}

function sync(a: DirectoryNode, b: DirectoryNode, now: number): void {
  pull(a, b, now);
  pull(b, a, now);
}

const lines = (n: DirectoryNode, kind: string) => n.journal().filter((r) => r.kind === kind).map((r) => r.detail);

/**
 * n1 creates /Projects and n2 pulls it; n2 then creates `name` under it at `childAtMs` while
 * n1 deletes it at `deleteAtMs`, neither pulling: the child is an orphan once they meet.
 */
function concurrentOrphan(s: ReturnType<typeof pair>, name: string, childAtMs: number, deleteAtMs: number) {
  const p = make(s.n1, s.d.root, "Projects", "organizationalUnit", t0Ms + 1000);
  pull(s.n1, s.n2, t0Ms + 1500);
  const child = make(s.n2, p, name, "organizationalUnit", childAtMs);
  unwrap(s.n1.delete(p, deleteAtMs));
  return child;
}

/** The lines of orphan `orphan` shown in /LostAndFound as Stray, beside `stored` turned CNF there. */
function orphanBesideStored(orphan: Guid, stored: Guid): string[] {
  return [`${orphan}: orphaned, shown as /LostAndFound/Stray`, `${stored}: CNF name, shown as /LostAndFound/Stray CNF:${stored}`];
}

describe("repair lines", () => {
  it("name a held child orphaned by its parent's arriving delete", () => {
    const s = pair(1);
    const { n1, n2 } = s;
    const c = concurrentOrphan(s, "Apollo", t0Ms + 3000, t0Ms + 3000);
    pull(n1, n2, t0Ms + 4000);
    expect(lines(n2, "repair")).toEqual([`${c}: orphaned, shown as /LostAndFound/Apollo`]);
  });

  it("name a held sibling turned CNF by an arriving earlier claim", () => {
    const { d, n1, n2 } = pair(2);
    make(n2, d.root, "Alpha", "organizationalUnit", t0Ms + 1000);
    const later = make(n1, d.root, "ALPHA", "organizationalUnit", t0Ms + 2000);
    pull(n2, n1, t0Ms + 3000);
    expect(lines(n1, "repair")).toEqual([`${later}: CNF name, shown as /ALPHA CNF:${later}`]);
  });

  it("name a held cycle member broken off by an arriving earlier move", () => {
    const { d, n1, n2 } = pair(3);
    const a = make(n1, d.root, "Aa", "organizationalUnit", t0Ms + 1000);
    const b = make(n1, d.root, "Bb", "organizationalUnit", t0Ms + 1000);
    pull(n1, n2, t0Ms + 1500);
    unwrap(n1.move(a, { parent: b }, t0Ms + 2000));
    unwrap(n2.move(b, { parent: a }, t0Ms + 2500));
    pull(n1, n2, t0Ms + 3000);
    expect(lines(n2, "repair")).toEqual([`${b}: cycle broken, shown as /LostAndFound/Bb`]);
  });

  it("name an object stored in /LostAndFound turned CNF by an arriving orphan's earlier claim", () => {
    const pairOf = pair(7);
    const { d, n1, n2 } = pairOf;
    const s = concurrentOrphan(pairOf, "Stray", t0Ms + 4000, t0Ms + 4500);
    const q = make(n1, d.lostAndFound, "Stray", "organizationalUnit", t0Ms + 5000);
    pull(n2, n1, t0Ms + 6000);
    expect(lines(n1, "repair")).toEqual(orphanBesideStored(s, q));
  });

  it("are not written for children that arrive before their parent within one pull cycle", () => {
    const d = freshDomain(4);
    const p = make(d.node, d.root, "Sales", "organizationalUnit", t0Ms + 1000);
    for (let i = 0; i < 30; i++) make(d.node, p, `Team${i}`, "organizationalUnit", t0Ms + 2000);
    // The parent changes last, so a walk in USN order meets every child first.
    unwrap(d.node.putAttribute(p, "description", ["later"], t0Ms + 3000));
    unwrap(d.node.move(p, { name: "Sales2" }, t0Ms + 3000));
    const joiner = DirectoryNode.joining(seededRandom(7));
    pull(d.node, joiner, t0Ms + 4000, 1);
    expect(lines(joiner, "repair")).toEqual([]);
  });

  it("name an orphan once, however often it is renamed elsewhere", () => {
    const s = pair(5);
    const { n1, n2 } = s;
    const c = concurrentOrphan(s, "Apollo", t0Ms + 2000, t0Ms + 2000);
    pull(n2, n1, t0Ms + 3000);
    for (let i = 0; i < 3; i++) {
      unwrap(n2.move(c, { name: `Apollo${i}` }, t0Ms + 4000 + i * 1000));
      pull(n2, n1, t0Ms + 4500 + i * 1000);
    }
    expect(lines(n1, "repair")).toEqual([`${c}: orphaned, shown as /LostAndFound/Apollo`]);
  });
});

describe("repair lines (diff review, twenty-sixth session)", () => {
  it("name a held object in /LostAndFound turned CNF by a child orphaned beside it", () => {
    const pairOf = pair(21);
    const { d, n1, n2 } = pairOf;
    const c = concurrentOrphan(pairOf, "Stray", t0Ms + 5000, t0Ms + 4000);
    // Stored in /LostAndFound on n2, with a later claim than the orphan-to-be.
    const q = make(n2, d.lostAndFound, "Stray", "organizationalUnit", t0Ms + 6000);
    pull(n1, n2, t0Ms + 7000);
    expect(lines(n2, "repair")).toEqual(orphanBesideStored(c, q));
  });

  it("name a held object in /LostAndFound turned CNF by a cycle member broken off beside it", () => {
    const { d, n1, n2 } = pair(22);
    const a = make(n1, d.root, "Aa", "organizationalUnit", t0Ms + 1000);
    const b = make(n1, d.root, "Bb", "organizationalUnit", t0Ms + 1000);
    pull(n1, n2, t0Ms + 1500);
    unwrap(n1.move(a, { parent: b }, t0Ms + 2000));
    unwrap(n2.move(b, { parent: a }, t0Ms + 2500));
    const q = make(n2, d.lostAndFound, "Bb", "organizationalUnit", t0Ms + 2600);
    pull(n1, n2, t0Ms + 3000);
    expect(lines(n2, "repair")).toEqual([
      `${b}: cycle broken, shown as /LostAndFound/Bb`,
      `${q}: CNF name, shown as /LostAndFound/Bb CNF:${q}`,
    ]);
  });

  it("name a CNF pair that a replicated restore of their parent brings back under it", () => {
    const { d, n1, n2 } = pair(23);
    const n3 = DirectoryNode.joining(seededRandom(323));
    const all = [n1, n2, n3];
    const syncAll = (now: number): void => {
      for (const a of all) for (const b of all) if (a !== b) pull(a, b, now);
    };
    syncAll(t0Ms);
    const p = make(n1, d.root, "Projects", "organizationalUnit", t0Ms + 1000);
    syncAll(t0Ms + 1500);
    // n2 and n3 each add a Kid under Projects while n1 deletes it: two orphans.
    unwrap(n1.delete(p, t0Ms + 4000));
    const c1 = make(n2, p, "Kid", "organizationalUnit", t0Ms + 5000);
    const c2 = make(n3, p, "Kid", "organizationalUnit", t0Ms + 6000);
    syncAll(t0Ms + 7000);
    syncAll(t0Ms + 7000);
    // The restore brings both back under Projects, where the later claim takes a CNF name.
    unwrap(n1.restore(p, t0Ms + 8000));
    pull(n1, n2, t0Ms + 9000);
    expect(unwrap(n2.object(c2, t0Ms + 9000)).path).toBe(`/Projects/Kid CNF:${c2}`);
    expect(lines(n2, "repair")).toContain(`${c2}: CNF name, shown as /Projects/Kid CNF:${c2}`);
    expect(lines(n2, "repair").filter((l) => l.startsWith(`${c1}: CNF`))).toEqual([]);
  });

  it("name a CNF pair made again under another name after a local rename ended the first", () => {
    const { d, n1, n2 } = pair(24);
    make(n1, d.root, "Xa", "organizationalUnit", t0Ms + 1000);
    const b = make(n2, d.root, "XA", "organizationalUnit", t0Ms + 2000);
    pull(n1, n2, t0Ms + 2500);
    expect(lines(n2, "repair")).toEqual([`${b}: CNF name, shown as /XA CNF:${b}`]);
    // A local rename ends it on n2, where no merge judges b again.
    unwrap(n2.move(b, { name: "Yb" }, t0Ms + 3000));
    make(n1, d.root, "Wc", "organizationalUnit", t0Ms + 4000);
    unwrap(n2.move(b, { name: "WC" }, t0Ms + 5000));
    pull(n1, n2, t0Ms + 6000);
    expect(lines(n2, "repair")).toEqual([
      `${b}: CNF name, shown as /XA CNF:${b}`,
      `${b}: CNF name, shown as /WC CNF:${b}`,
    ]);
  });
});

describe("repair lines (naming audit, twenty-seventh session)", () => {
  /**
   * A cycle A <-> C broken at A (the later claim) on both nodes; n1 also holds a child of C
   * named like A, made before A's move reached it, which n2 never saw. n2 then ends the break
   * (`end`): A goes back under C beside that child on n1, through a merge of C alone.
   */
  function breakEndedBesideChild(seed: number, end: (n2: DirectoryNode, c: Guid, at: number) => void) {
    const { d, n1, n2 } = pair(seed);
    const a = make(n1, d.root, "Ay", "organizationalUnit", t0Ms + 1000);
    const c = make(n1, d.root, "Cee", "organizationalUnit", t0Ms + 1000);
    pull(n1, n2, t0Ms + 1500);
    unwrap(n1.move(c, { parent: a }, t0Ms + 2000));
    unwrap(n2.move(a, { parent: c }, t0Ms + 2500));
    pull(n1, n2, t0Ms + 3000);
    const y = make(n1, c, "ay", "organizationalUnit", t0Ms + 3500);
    pull(n2, n1, t0Ms + 4000);
    expect(unwrap(n1.object(a, t0Ms + 4000)).path).toBe("/LostAndFound/Ay");
    end(n2, c, t0Ms + 5000);
    pull(n2, n1, t0Ms + 6000);
    return { n1, a, y };
  }

  it("name the CNF a move dissolving a cycle makes beside the breaker's new home", () => {
    const { n1, a, y } = breakEndedBesideChild(31, (n2, c, at) => unwrap(n2.move(c, { parent: n2.dir.landmarks()!.root! }, at)));
    expect(unwrap(n1.object(a, t0Ms + 6000)).path).toBe("/Cee/Ay");
    expect(unwrap(n1.object(y, t0Ms + 6000)).path).toBe(`/Cee/ay CNF:${y}`);
    expect(lines(n1, "repair")).toContain(`${y}: CNF name, shown as /Cee/ay CNF:${y}`);
  });

  it("name the CNF a rename taking a cycle's break makes beside the old breaker's home", () => {
    const { n1, a, y } = breakEndedBesideChild(32, (n2, c, at) => unwrap(n2.move(c, { name: "Cee2" }, at)));
    expect(unwrap(n1.object(a, t0Ms + 6000)).path).toBe("/LostAndFound/Cee2/Ay");
    expect(lines(n1, "repair")).toContain(`${y}: CNF name, shown as /LostAndFound/Cee2/ay CNF:${y}`);
  });

  it("name a CNF again when it comes back after a merge ended it", () => {
    const { d, n1, n2 } = pair(33);
    const a = make(n1, d.root, "Xa", "organizationalUnit", t0Ms + 1000);
    const b = make(n2, d.root, "XA", "organizationalUnit", t0Ms + 2000);
    sync(n1, n2, t0Ms + 3000);
    unwrap(n1.move(a, { name: "Ya" }, t0Ms + 4000));
    sync(n1, n2, t0Ms + 5000);
    expect(unwrap(n2.object(b, t0Ms + 5000)).path).toBe("/XA");
    unwrap(n1.move(b, { name: "W" }, t0Ms + 6000));
    unwrap(n1.move(a, { name: "Xa" }, t0Ms + 6500));
    unwrap(n2.move(b, { name: "xA" }, t0Ms + 7000));
    sync(n1, n2, t0Ms + 8000);
    expect(unwrap(n2.object(b, t0Ms + 8000)).path).toBe(`/xA CNF:${b}`);
    expect(lines(n2, "repair").filter((l) => l.startsWith(`${b}: CNF name`))).toEqual([
      `${b}: CNF name, shown as /XA CNF:${b}`,
      `${b}: CNF name, shown as /xA CNF:${b}`,
    ]);
  });
});

describe("repair lines (attack on the twenty-seventh session's changes)", () => {
  function trio(seed: number) {
    const d = freshDomain(seed);
    const n2 = DirectoryNode.joining(seededRandom(seed + 100));
    const n3 = DirectoryNode.joining(seededRandom(seed + 200));
    pull(d.node, n2, t0Ms);
    pull(d.node, n3, t0Ms);
    return { d, n1: d.node, n2, n3 };
  }

  /**
   * Ay, Bee and Cee made on n1 and pulled by n2 (and `others`); then n1 puts Cee under Ay and
   * Bee under Cee while n2 puts Ay under Bee, neither pulling: a cycle of three once they meet,
   * broken at Ay (the latest claim).
   */
  function cycleOfThree(root: Guid, n1: DirectoryNode, n2: DirectoryNode, ...others: DirectoryNode[]) {
    const a = make(n1, root, "Ay", "organizationalUnit", t0Ms + 1000);
    const b = make(n1, root, "Bee", "organizationalUnit", t0Ms + 1000);
    const c = make(n1, root, "Cee", "organizationalUnit", t0Ms + 1000);
    for (const n of [n2, ...others]) pull(n1, n, t0Ms + 1500);
    unwrap(n1.move(c, { parent: a }, t0Ms + 2000));
    unwrap(n1.move(b, { parent: c }, t0Ms + 2100));
    unwrap(n2.move(a, { parent: b }, t0Ms + 2500));
    return { a, b, c };
  }

  /**
   * On n1: an orphan Kid (its parent P deleted on n1 while n2 made it) turns an object "kid"
   * stored in /LostAndFound into a CNF; `end` then ends that CNF on n2, which n1 pulls; a
   * rival orphan KID (parent Q, made on n3) brings it back when n1 pulls from n3. The CNF is
   * journaled twice on n1.
   */
  function cnfInLostAndFoundBack(seed: number, end: (n1: DirectoryNode, n2: DirectoryNode, kid: Guid, p: Guid) => void) {
    const { d, n1, n2, n3 } = trio(seed);
    const lostAndFound = n1.dir.landmarks()!.lostAndFound!;
    const p = make(n1, d.root, "P", "organizationalUnit", t0Ms + 1000);
    const q = make(n1, d.root, "Q", "organizationalUnit", t0Ms + 1000);
    pull(n1, n2, t0Ms + 1500);
    pull(n1, n3, t0Ms + 1500);
    unwrap(n1.delete(p, t0Ms + 2000));
    unwrap(n1.delete(q, t0Ms + 2000));
    const kid = make(n2, p, "Kid", "organizationalUnit", t0Ms + 2000);
    make(n3, q, "KID", "organizationalUnit", t0Ms + 2500);
    const s = make(n2, lostAndFound, "kid", "organizationalUnit", t0Ms + 3000);
    pull(n2, n1, t0Ms + 3500);
    expect(unwrap(n1.object(s, t0Ms + 3500)).path).toBe(`/LostAndFound/kid CNF:${s}`);
    end(n1, n2, kid, p);
    pull(n2, n1, t0Ms + 4500);
    expect(unwrap(n1.object(s, t0Ms + 4500)).path).toBe("/LostAndFound/kid");
    pull(n3, n1, t0Ms + 5500);
    expect(unwrap(n1.object(s, t0Ms + 5500)).path).toBe(`/LostAndFound/kid CNF:${s}`);
    expect(lines(n1, "repair").filter((l) => l.startsWith(`${s}: CNF name`))).toHaveLength(2);
  }

  it("name a CNF in /LostAndFound again when it comes back after an orphan renamed away ended it", () => {
    cnfInLostAndFoundBack(41, (_n1, n2, kid) => unwrap(n2.move(kid, { name: "Other" }, t0Ms + 4000)));
  });

  it("name the CNF at the old breaker's home when two members of its cycle move in one batch", () => {
    const { d, n1, n2 } = pair(61);
    const { a, b, c } = cycleOfThree(d.root, n1, n2);
    pull(n1, n2, t0Ms + 3000);
    const y = make(n1, b, "ay", "organizationalUnit", t0Ms + 3500);
    pull(n2, n1, t0Ms + 4000);
    expect(unwrap(n1.object(a, t0Ms + 4000)).path).toBe("/LostAndFound/Ay");
    unwrap(n2.move(c, { parent: d.root }, t0Ms + 5000));
    unwrap(n2.move(b, { parent: d.root }, t0Ms + 5100));
    pull(n2, n1, t0Ms + 6000);
    expect(unwrap(n1.object(y, t0Ms + 6000)).path).toBe(`/Bee/ay CNF:${y}`);
    expect(lines(n1, "repair")).toContain(`${y}: CNF name, shown as /Bee/ay CNF:${y}`);
  });

  it("name a CNF in /LostAndFound again when it comes back after a replicated restore ended it", () => {
    cnfInLostAndFoundBack(43, (n1, n2, _kid, p) => {
      pull(n1, n2, t0Ms + 3600);
      unwrap(n2.restore(p, t0Ms + 4000));
    });
  });

  it("name the CNF at the breaker's home when a replicated delete of another member ends the cycle", () => {
    const { d, n1, n2, n3 } = trio(61);
    const { a, b, c } = cycleOfThree(d.root, n1, n2, n3);
    const y = make(n1, b, "ay", "organizationalUnit", t0Ms + 2600);
    pull(n2, n1, t0Ms + 3000);
    expect(unwrap(n1.object(a, t0Ms + 3000)).path).toBe("/LostAndFound/Ay");
    unwrap(n3.delete(c, t0Ms + 3500));
    pull(n3, n1, t0Ms + 4000);
    expect(unwrap(n1.object(y, t0Ms + 4000)).path).toBe(`/LostAndFound/Bee/ay CNF:${y}`);
    expect(lines(n1, "repair")).toContain(`${y}: CNF name, shown as /LostAndFound/Bee/ay CNF:${y}`);
  });

  it("name a CNF again when it comes back after a merged delete ended it", () => {
    const { d, n1, n2, n3 } = trio(42);
    const a = make(n1, d.root, "Xa", "organizationalUnit", t0Ms + 1000);
    make(n3, d.root, "xA", "organizationalUnit", t0Ms + 1500);
    const b = make(n2, d.root, "XA", "organizationalUnit", t0Ms + 2000);
    pull(n1, n2, t0Ms + 3000);
    expect(unwrap(n2.object(b, t0Ms + 3000)).path).toBe(`/XA CNF:${b}`);
    unwrap(n1.delete(a, t0Ms + 4000));
    pull(n1, n2, t0Ms + 4500);
    expect(unwrap(n2.object(b, t0Ms + 4500)).path).toBe("/XA");
    pull(n3, n2, t0Ms + 5500);
    expect(unwrap(n2.object(b, t0Ms + 5500)).path).toBe(`/XA CNF:${b}`);
    expect(lines(n2, "repair").filter((l) => l.startsWith(`${b}: CNF name`))).toHaveLength(2);
  });
});

describe("merge-discarded lines", () => {
  it("are written for a concurrent meta change a replicated restore superseded", () => {
    const { d, n1, n2 } = pair(11);
    const u = make(n1, d.root, "Uma", "user", t0Ms + 1000, { sid: ["S-1"] });
    const g = make(n1, d.root, "Crew", "group", t0Ms + 1000, { sid: ["S-2"], member: [u] });
    pull(n1, n2, t0Ms + 2000);
    unwrap(n2.putAttribute(g, "member", [{ value: u, meta: { expiry: ["2027-01-01T00:00:00Z"] } }], t0Ms + 3000));
    unwrap(n1.delete(g, t0Ms + 3500));
    unwrap(n1.restore(g, t0Ms + 4000));
    pull(n1, n2, t0Ms + 5000);
    expect(lines(n2, "merge-discarded")).toEqual([
      `${g}: 1 held value atoms of an ended life superseded by a restore (from ${n1.dir.nodeId})`,
    ]);
  });

  it("count the values a shredded object drops on arrival, written where it still held them", () => {
    const { d, n1, n2 } = pair(12);
    const v: Guid = make(n1, d.root, "Vault", "organizationalUnit", t0Ms + 1000, { description: ["a"] });
    pull(n1, n2, t0Ms + 2000);
    unwrap(n2.putAttribute(v, "description", [{ value: "b" }, { value: "c" }], t0Ms + 3000));
    unwrap(n1.delete(v, t0Ms + 3500));
    unwrap(n1.shred(v, t0Ms + 3600));
    pull(n2, n1, t0Ms + 5000);
    expect(unwrap(n1.morgue(t0Ms + 5000)).find((m) => m.id === v)?.stage).toBe("shredded");
    const dropped = lines(n1, "merge-discarded").filter((l) => l.includes("value atoms dropped"));
    // b and c, and the residue of a: three atoms, named by count, never by value.
    expect(dropped).toEqual([`${v}: 3 value atoms dropped: the object is shredded (from ${n2.dir.nodeId})`]);
  });

  it("are not written for a plain replicated restore, whose values come back whole", () => {
    const { d, n1, n2 } = pair(6);
    const v: Guid = make(n1, d.root, "Vault", "organizationalUnit", t0Ms + 1000, { description: ["a", "b"] });
    pull(n1, n2, t0Ms + 2000);
    unwrap(n1.delete(v, t0Ms + 3000));
    pull(n1, n2, t0Ms + 4000);
    unwrap(n1.restore(v, t0Ms + 5000));
    pull(n1, n2, t0Ms + 6000);
    expect(unwrap(n2.object(v, t0Ms + 6000)).stage).toBe("alive");
    expect(lines(n2, "merge-discarded")).toEqual([]);
  });
});

/** A CNF pair made by n1 and n2 apart (ALPHA the later claim), its repair journaled on n1. */
function cnfPair() {
  const d = freshDomain(31);
  const n1 = d.node;
  const n2 = DirectoryNode.joining(seededRandom(131));
  pull(n1, n2, t0Ms);
  const first = make(n1, d.root, "Alpha", "organizationalUnit", t0Ms + 1000);
  const later = make(n2, d.root, "ALPHA", "organizationalUnit", t0Ms + 2000);
  sync(n2, n1, t0Ms + 3000);
  const cnf = `${later}: CNF name, shown as /ALPHA CNF:${later}`;
  expect(lines(n1, "repair")).toEqual([cnf]);
  return { n1, n2, first, later, cnf };
}

/** Diff review, twenty-eighth session: repairs that ended and came back, or came without a move. */
describe("repair lines after the twenty-eighth session's review", () => {
  const repairs = (n: DirectoryNode) => lines(n, "repair");

  it("name the CNF a returning breaker makes beside a child of its home", () => {
    const d = freshDomain(21);
    const n1 = d.node;
    const n2 = DirectoryNode.joining(seededRandom(121));
    const n3 = DirectoryNode.joining(seededRandom(122));
    const a = make(n1, d.root, "A", "organizationalUnit", t0Ms + 500);
    const b = make(n1, d.root, "B", "organizationalUnit", t0Ms + 500);
    pull(n1, n2, t0Ms + 600);
    pull(n1, n3, t0Ms + 600);
    unwrap(n1.move(a, { parent: b }, t0Ms + 1000));
    unwrap(n2.move(b, { parent: a }, t0Ms + 2000));
    pull(n1, n3, t0Ms + 2100);
    // n1, which does not know B's move, names a child of A "B" (a later claim than B's move).
    const s = make(n1, a, "B", "organizationalUnit", t0Ms + 3000);
    pull(n1, n2, t0Ms + 3200);
    expect(unwrap(n2.object(s, t0Ms + 3300)).path).toBe("/LostAndFound/B/A/B");
    // n3 moves A away and back: the same parent and name, a later claim; A becomes the breaker.
    unwrap(n3.move(a, { parent: d.root }, t0Ms + 4000));
    unwrap(n3.move(a, { parent: b }, t0Ms + 5000));
    const before = repairs(n2).length;
    pull(n3, n2, t0Ms + 6000);
    const shown = unwrap(n2.object(s, t0Ms + 6100)).path;
    expect(shown).toContain(`CNF:${s}`);
    expect(repairs(n2).slice(before)).toContain(`${s}: CNF name, shown as ${shown}`);
  });

  it("name a CNF again that ended with its copy's delete and came back with its restore", () => {
    const { n1, n2, later, cnf } = cnfPair();
    unwrap(n2.delete(later, t0Ms + 4000));
    pull(n2, n1, t0Ms + 5000);
    unwrap(n2.restore(later, t0Ms + 6000));
    pull(n2, n1, t0Ms + 7000);
    expect(unwrap(n1.object(later, t0Ms + 7100)).path).toBe(`/ALPHA CNF:${later}`);
    expect(lines(n1, "repair")).toEqual([cnf, cnf]);
  });

  it("name a CNF again that ended when its parent's delete orphaned both copies and came back with its restore", () => {
    const d = freshDomain(11);
    const a = d.node;
    const b = DirectoryNode.joining(seededRandom(111));
    const c = DirectoryNode.joining(seededRandom(112));
    pull(a, b, t0Ms);
    pull(a, c, t0Ms);
    const p = make(a, d.root, "Projects", "organizationalUnit", t0Ms + 1000);
    pull(a, b, t0Ms + 1100);
    pull(a, c, t0Ms + 1100);
    make(b, p, "Alpha", "organizationalUnit", t0Ms + 2000);
    const later = make(c, p, "ALPHA", "organizationalUnit", t0Ms + 3000);
    pull(c, b, t0Ms + 4000);
    const cnf = `${later}: CNF name, shown as /Projects/ALPHA CNF:${later}`;
    expect(repairs(b)).toEqual([cnf]);
    unwrap(a.delete(p, t0Ms + 5000)); // a knows no child of p
    pull(a, b, t0Ms + 6000);
    unwrap(a.restore(p, t0Ms + 7000));
    pull(a, b, t0Ms + 8000);
    expect(repairs(b).filter((l) => l === cnf)).toHaveLength(2);
  });
});

/** Attack on the day's fixes: a CNF ended by a local write, brought back by a merge. */
describe("repair lines after a local write ended the repair", () => {
  const repairs = (n: DirectoryNode) => lines(n, "repair");

  it("name a CNF again whose copy this node deleted and another node restored", () => {
    const { n1, n2, later, cnf } = cnfPair();
    unwrap(n1.delete(later, t0Ms + 4000));
    pull(n1, n2, t0Ms + 5000);
    unwrap(n2.restore(later, t0Ms + 6000));
    pull(n2, n1, t0Ms + 7000);
    expect(unwrap(n1.object(later, t0Ms + 7100)).path).toBe(`/ALPHA CNF:${later}`);
    expect(repairs(n1)).toEqual([cnf, cnf]);
  });

  it("name a CNF again whose name holder this node deleted and another node restored", () => {
    const { n1, n2, first, later, cnf } = cnfPair();
    unwrap(n1.delete(first, t0Ms + 4000));
    expect(unwrap(n1.object(later, t0Ms + 4100)).path).toBe("/ALPHA");
    pull(n1, n2, t0Ms + 5000);
    unwrap(n2.restore(first, t0Ms + 6000));
    pull(n2, n1, t0Ms + 7000);
    expect(unwrap(n1.object(later, t0Ms + 7100)).path).toBe(`/ALPHA CNF:${later}`);
    expect(repairs(n1)).toEqual([cnf, cnf]);
  });

  it("do not name a CNF twice for an attribute write on it", () => {
    const { n1, n2, later, cnf } = cnfPair();
    unwrap(n1.putAttribute(later, "description", [{ value: "touched" }], t0Ms + 4000));
    unwrap(n2.putAttribute(later, "displayName", [{ value: "again" }], t0Ms + 4500));
    sync(n2, n1, t0Ms + 5000);
    expect(repairs(n1)).toEqual([cnf]);
  });
});
