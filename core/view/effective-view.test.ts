/**
 * Goal: the derived repairs of SPEC ("Objects under a derived repair", "CNF display names")
 * as one node renders them: CNF names for live siblings whose names fold equal (earliest
 * placement claim keeps the name; the CNF form resolves in paths; an ordinary rename
 * dissolves it), orphans shown under /LostAndFound, and cycles broken at the member with the
 * latest placement claim. Repairs are derived: stored facts are never rewritten.
 * Method: such states arise only from replication, so the tests inject records the way a
 * merge would store them (Directory.allocateUsn + write, with stamps from another origin),
 * then read payloads, child summaries and paths through the DirectoryNode facade.
 */
import { describe, expect, it } from "vitest";
import type { Guid } from "../guid";
import type { DirectoryNode } from "../node/directory-node";
import type { ObjectRecord } from "../store/record";
import type { Stamp } from "../store/stamp";
import { freshDomain, make, outcome, secondMs, t0Ms, unwrap } from "../testing/node-fixture";

const peer = "eeeeeeee-0000-4000-8000-000000000001";

/** Stores a replicated-looking alive OU record with the given placement claim. */
function inject(
  node: DirectoryNode,
  opts: { id?: Guid; parent: Guid; name: string; atMs: number; origin?: Guid },
): Guid {
  const dir = node.dir;
  const usn = dir.allocateUsn();
  const ou = unwrap(node.resolvePath("/Configuration/Schema/organizationalUnit", t0Ms)).id;
  const stamp: Stamp = {
    version: 1,
    atMs: opts.atMs,
    origin: opts.origin ?? peer,
    cert: { invocation: opts.origin ?? peer, usn: 1000 + usn },
    localUsn: usn,
  };
  const id = opts.id ?? dir.mintGuid();
  const record: ObjectRecord = {
    id,
    existence: {
      stage: "alive",
      classId: ou,
      className: "organizationalUnit",
      system: false,
      deleteRoot: null,
      stamp,
    },
    placement: { parent: opts.parent, name: opts.name, stamp },
    attrs: new Map(),
    usnChanged: usn,
    hardened: false,
  };
  dir.write(record);
  return id;
}

/** Rewrites the stored parent of `id` as a replicated placement atom would. */
function replacePlacement(node: DirectoryNode, id: Guid, parent: Guid, atMs: number): void {
  const dir = node.dir;
  const record = dir.get(id)!;
  const usn = dir.allocateUsn();
  const stamp: Stamp = {
    ...record.placement.stamp,
    version: record.placement.stamp.version + 1,
    atMs,
    origin: peer,
    localUsn: usn,
  };
  dir.write({ ...record, placement: { ...record.placement, parent, stamp }, usnChanged: usn });
}

describe("CNF display names", () => {
  function setup() {
    const d = freshDomain();
    const team = make(d.node, d.root, "Team");
    const first = make(d.node, team, "Report", "organizationalUnit", t0Ms);
    const second = inject(d.node, { parent: team, name: "REPORT", atMs: t0Ms + secondMs });
    return { ...d, team, first, second };
  }

  it("the earliest placement claim keeps the name; the later shows <name> CNF:<guid>", () => {
    const s = setup();
    const kids = unwrap(s.node.children(s.team));
    expect(kids.map((k) => [k.name, k.conflicted])).toEqual([
      ["Report", false],
      [`REPORT CNF:${s.second}`, true],
    ]);
    const p = unwrap(s.node.object(s.second, t0Ms));
    expect(p.name).toBe("REPORT");
    expect(p.conflicted).toBe(true);
    expect(p.effectiveName).toBe(`REPORT CNF:${s.second}`);
    expect(p.path).toBe(`/Team/REPORT CNF:${s.second}`);
    expect(p.dn).toBe(`OU=REPORT CNF:${s.second},OU=Team`);
    expect("conflicted" in unwrap(s.node.object(s.first, t0Ms))).toBe(false);
  });

  it("the CNF form resolves in paths, caselessly", () => {
    const s = setup();
    expect(unwrap(s.node.resolvePath(`/team/report cnf:${s.second}`, t0Ms)).id).toBe(s.second);
    expect(unwrap(s.node.resolvePath("/Team/Report", t0Ms)).id).toBe(s.first);
  });

  it("a CNF-form path names the alive object holding it, never a tombstone named so", () => {
    const s = setup();
    // A deleted unit whose stored name is its own CNF form, and an alive sibling named the same.
    const gone = make(s.node, s.team, "Old");
    unwrap(s.node.move(gone, { name: `Old CNF:${gone}` }, t0Ms + secondMs));
    unwrap(s.node.delete(gone, t0Ms + 2 * secondMs));
    const alive = make(s.node, s.team, `Old CNF:${gone}`);
    expect(unwrap(s.node.resolvePath(`/Team/Old CNF:${gone}`, t0Ms + 3 * secondMs)).id).toBe(alive);
  });

  it("an ordinary rename dissolves it; the stored name was never touched", () => {
    const s = setup();
    expect(s.node.dir.get(s.second)?.placement.name).toBe("REPORT");
    const renamed = unwrap(s.node.move(s.second, { name: "Report 2" }, t0Ms + 2 * secondMs));
    expect(renamed.conflicted).toBeUndefined();
    expect(renamed.effectiveName).toBeUndefined();
    expect(unwrap(s.node.children(s.team)).map((k) => k.name)).toEqual(["Report", "Report 2"]);
  });

  it("new creates still refuse the contested name (name-in-use)", () => {
    const s = setup();
    expect(
      outcome(s.node.create({ parent: s.team, name: "report", className: "user" }, t0Ms)),
    ).toBe("name-in-use");
  });
});

describe("orphans", () => {
  it("an alive object whose parent is a tombstone shows under /LostAndFound", () => {
    const d = freshDomain();
    const gone = make(d.node, d.root, "Gone");
    unwrap(d.node.delete(gone, t0Ms));
    const orphan = inject(d.node, { parent: gone, name: "Stray", atMs: t0Ms + secondMs });
    const p = unwrap(d.node.object(orphan, t0Ms));
    expect(p.parent).toBe(gone);
    expect(p.orphaned).toBe(true);
    expect(p.effectiveParent).toBe(d.lostAndFound);
    expect(p.path).toBe("/LostAndFound/Stray");
    expect(unwrap(d.node.children(d.lostAndFound)).map((k) => [k.name, k.orphaned])).toEqual([
      ["Stray", true],
    ]);
    expect(unwrap(d.node.resolvePath("/LostAndFound/stray", t0Ms)).id).toBe(orphan);
    expect(unwrap(d.node.object(d.lostAndFound, t0Ms)).hasChildren).toBe(true);
  });

  it("an alive object whose parent is missing is an orphan too; a move dissolves it", () => {
    const d = freshDomain();
    const orphan = inject(d.node, {
      parent: "dddddddd-0000-4000-8000-000000000009",
      name: "Lost",
      atMs: t0Ms,
    });
    expect(unwrap(d.node.object(orphan, t0Ms)).orphaned).toBe(true);
    const home = make(d.node, d.root, "Home");
    const moved = unwrap(d.node.move(orphan, { parent: home }, t0Ms + secondMs));
    expect(moved.orphaned).toBeUndefined();
    expect(moved.path).toBe("/Home/Lost");
    expect(unwrap(d.node.children(d.lostAndFound))).toEqual([]);
  });

  it("an orphan whose name collides inside /LostAndFound gets a CNF name", () => {
    const d = freshDomain();
    make(d.node, d.lostAndFound, "Stray");
    const gone = make(d.node, d.root, "Gone");
    unwrap(d.node.delete(gone, t0Ms));
    const orphan = inject(d.node, { parent: gone, name: "stray", atMs: t0Ms + secondMs });
    expect(unwrap(d.node.children(d.lostAndFound)).map((k) => k.name)).toEqual([
      "Stray",
      `stray CNF:${orphan}`,
    ]);
  });

  it("a CNF name under /LostAndFound steps aside for an orphan whose stored name it would repeat", () => {
    // Three orphans: "stray", a later "STRAY" (shown as `STRAY CNF:<guid>`), and one whose
    // stored name is that very form. Orphans are not stored children of /LostAndFound, so
    // the CNF form once missed the third and two siblings showed caselessly equal names.
    const d = freshDomain();
    const gone = make(d.node, d.root, "Gone");
    unwrap(d.node.delete(gone, t0Ms));
    inject(d.node, { parent: gone, name: "stray", atMs: t0Ms + secondMs });
    const later = inject(d.node, { parent: gone, name: "STRAY", atMs: t0Ms + 2 * secondMs });
    const namesake = inject(d.node, { parent: gone, name: `stray CNF:${later}`, atMs: t0Ms + 3 * secondMs });
    expect(unwrap(d.node.children(d.lostAndFound)).map((k) => k.name)).toEqual([
      "stray",
      `stray CNF:${later}`,
      `STRAY CNF:${later} (2)`,
    ]);
    expect(unwrap(d.node.resolvePath(`/LostAndFound/stray cnf:${later}`, t0Ms)).id).toBe(namesake);
    expect(unwrap(d.node.resolvePath(`/LostAndFound/STRAY CNF:${later} (2)`, t0Ms)).id).toBe(later);
  });
});

describe("broken cycles", () => {
  it("the cycle member with the latest placement claim is broken off to /LostAndFound", () => {
    const d = freshDomain();
    const a = make(d.node, d.root, "A");
    const b = make(d.node, a, "B");
    // A concurrent move elsewhere put A under B; that claim is the latest.
    replacePlacement(d.node, a, b, t0Ms + 5 * secondMs);
    const pa = unwrap(d.node.object(a, t0Ms));
    const pb = unwrap(d.node.object(b, t0Ms));
    expect(pa.cycleBroken).toBe(true);
    expect(pa.effectiveParent).toBe(d.lostAndFound);
    expect(pa.path).toBe("/LostAndFound/A");
    expect(pb.cycleBroken).toBeUndefined();
    expect(pb.path).toBe("/LostAndFound/A/B");
    expect(unwrap(d.node.children(d.lostAndFound)).map((k) => [k.name, k.cycleBroken])).toEqual([
      ["A", true],
    ]);
    expect(unwrap(d.node.children(d.root)).map((k) => k.name)).not.toContain("A");
  });

  it("a rename that makes another member the latest claim lists that one under /LostAndFound", () => {
    const d = freshDomain();
    const a = make(d.node, d.root, "A");
    const b = make(d.node, a, "B");
    replacePlacement(d.node, a, b, t0Ms + 5 * secondMs);
    // Listed once: B (not repaired then) leaves the node's repair suspects.
    expect(unwrap(d.node.children(d.lostAndFound)).map((k) => k.name)).toEqual(["A"]);
    unwrap(d.node.move(b, { name: "B2" }, t0Ms + 6 * secondMs));
    expect(unwrap(d.node.object(b, t0Ms + 6 * secondMs)).path).toBe("/LostAndFound/B2");
    expect(unwrap(d.node.children(d.lostAndFound)).map((k) => [k.name, k.cycleBroken])).toEqual([
      ["B2", true],
    ]);
  });

  it("a local move of the broken member back under the root dissolves the repair", () => {
    const d = freshDomain();
    const a = make(d.node, d.root, "A");
    const b = make(d.node, a, "B");
    replacePlacement(d.node, a, b, t0Ms + 5 * secondMs);
    const moved = unwrap(d.node.move(a, { parent: d.root }, t0Ms + 6 * secondMs));
    expect(moved.cycleBroken).toBeUndefined();
    expect(unwrap(d.node.object(b, t0Ms)).path).toBe("/A/B");
    expect(unwrap(d.node.children(d.lostAndFound))).toEqual([]);
  });
});

describe("tombstone paths", () => {
  it("show a tombstone whose stored ancestor GC purged under /LostAndFound, not at the root", () => {
    const d = freshDomain();
    const p = make(d.node, d.root, "Papa", "organizationalUnit", t0Ms + secondMs);
    const c = make(d.node, p, "Child", "organizationalUnit", t0Ms + secondMs);
    make(d.node, d.root, "Child", "organizationalUnit", t0Ms + secondMs);
    unwrap(d.node.delete(p, t0Ms + 2 * secondMs));
    expect(unwrap(d.node.object(c, t0Ms + 3 * secondMs)).path).toBe("/Papa/Child");
    // The parent's tombstone purged before the child's (a child deleted or shredded after it).
    d.node.dir.purge(p);
    const payload = unwrap(d.node.object(c, t0Ms + 3 * secondMs));
    // Read as if it reached the root, it took the alive /Child's path.
    expect(payload.path).toBe("/LostAndFound/Child");
    expect(unwrap(d.node.morgue(t0Ms + 3 * secondMs)).find((m) => m.id === c)?.lastPath).toBe("/LostAndFound/Child");
  });
});
