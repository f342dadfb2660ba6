/**
 * Goal: DELETE /api/objects/{id} and POST /api/objects/{id}/restore as SPEC's "States and
 * transitions" table describes them: delete soft-deletes the whole subtree (it shows in the
 * morgue); restore within timeUntilShred, with the parent alive, brings back exactly the
 * subtree that delete took, top-down; refusals not-restorable, already-deleted,
 * root-is-protected, system-object-protected, name-in-use.
 * Method: a small tree on one DirectoryNode with explicit clock values; act through the
 * node facade and compare stages, children, paths and the morgue before and after.
 */
import { describe, expect, it } from "vitest";
import type { Guid } from "../guid";
import { freshDomain, make, outcome, secondMs, t0Ms, unwrap, withStoredCycle } from "../testing/node-fixture";

function setup() {
  const d = freshDomain();
  const a = make(d.node, d.root, "A");
  const b = make(d.node, a, "B");
  const c = make(d.node, b, "C", "user");
  const d2 = make(d.node, a, "D");
  const keep = make(d.node, d.root, "Keep");
  d.node.ready();
  const stage = (id: Guid, nowMs = t0Ms): string => unwrap(d.node.object(id, nowMs)).stage;
  return { ...d, a, b, c, d: d2, keep, stage };
}

describe("delete", () => {
  it("soft-deletes the whole subtree; tombstones stay readable and show in the morgue", () => {
    const s = setup();
    expect(unwrap(s.node.delete(s.a, t0Ms + secondMs))).toBeNull();
    for (const id of [s.a, s.b, s.c, s.d]) {
      const p = unwrap(s.node.object(id, t0Ms + secondMs));
      expect(p.stage).toBe("deleted");
      expect(p.effectiveStage).toBe("deleted");
      expect(p.existence.version).toBe(2);
      expect(p.existence.at).toBe("2025-01-01T00:00:01.000Z");
    }
    expect(s.stage(s.keep)).toBe("alive");
    expect(unwrap(s.node.children(s.root)).map((c) => c.name)).not.toContain("A");
    expect(outcome(s.node.resolvePath("/A/B", t0Ms))).toBe("no-such-object");
    const morgue = unwrap(s.node.morgue(t0Ms + secondMs));
    expect(morgue.map((m) => m.id).sort()).toEqual([s.a, s.b, s.c, s.d].sort());
    expect(s.node.summary(t0Ms).morgueSize).toBe(4);
  });

  it("takes the subtree the view shows: in a stored cycle, not the member shown as an ancestor", () => {
    // Stored: A under B and B under A; shown: /LostAndFound/B/A (B's claim is the later one).
    const d = withStoredCycle();
    const c = make(d.node, d.b, "C");
    const at = t0Ms + 10 * secondMs;
    expect(unwrap(d.node.object(d.a, at)).path).toBe("/LostAndFound/B/A");
    expect(unwrap(d.node.delete(d.a, at))).toBeNull();
    expect(unwrap(d.node.object(d.a, at)).stage).toBe("deleted");
    for (const id of [d.b, c]) expect(unwrap(d.node.object(id, at)).stage).toBe("alive");
    expect(unwrap(d.node.object(c, at)).path).toBe("/LostAndFound/B/C");
    // The member broken off takes the whole cycle, as the view shows it beneath it.
    const e = withStoredCycle();
    expect(unwrap(e.node.delete(e.b, at))).toBeNull();
    for (const id of [e.a, e.b]) expect(unwrap(e.node.object(id, at)).stage).toBe("deleted");
    // Shred likewise.
    const f = withStoredCycle();
    expect(unwrap(f.node.shred(f.a, at)).shredded).toBe(1);
    expect(unwrap(f.node.object(f.b, at)).stage).toBe("alive");
  });

  it("delete of a tombstone gives already-deleted", () => {
    const s = setup();
    unwrap(s.node.delete(s.b, t0Ms));
    expect(outcome(s.node.delete(s.b, t0Ms))).toBe("already-deleted");
    expect(outcome(s.node.delete(s.c, t0Ms))).toBe("already-deleted");
  });

  it("the root cannot be deleted: root-is-protected", () => {
    const s = setup();
    expect(outcome(s.node.delete(s.root, t0Ms))).toBe("root-is-protected");
    expect(s.stage(s.root)).toBe("alive");
  });

  it("system objects cannot be deleted: system-object-protected", () => {
    const s = setup();
    const person = unwrap(s.node.resolvePath("/Configuration/Schema/person", t0Ms)).id;
    for (const id of [s.configuration, s.lostAndFound, s.schema, person]) {
      expect(outcome(s.node.delete(id, t0Ms))).toBe("system-object-protected");
      expect(s.stage(id)).toBe("alive");
    }
  });

  it("an unknown id gives no-such-object", () => {
    const s = setup();
    expect(outcome(s.node.delete("00000000-0000-4000-8000-0000000000aa", t0Ms))).toBe(
      "no-such-object",
    );
  });
});

describe("restore", () => {
  it("brings back exactly the subtree its delete took, top-down", () => {
    const s = setup();
    unwrap(s.node.delete(s.c, t0Ms + secondMs)); // an earlier, separate delete
    unwrap(s.node.delete(s.a, t0Ms + 2 * secondMs));
    const usnBefore = s.node.dir.usn;
    const restored = unwrap(s.node.restore(s.a, t0Ms + 3 * secondMs));
    expect(restored.stage).toBe("alive");
    expect(restored.existence.version).toBe(3);
    expect([s.a, s.b, s.d].map((id) => s.stage(id))).toEqual(["alive", "alive", "alive"]);
    expect(s.stage(s.c)).toBe("deleted");
    // Top-down: every restored parent got its new USN before its children.
    const usns = [s.a, s.b, s.d].map((id) => unwrap(s.node.object(id, t0Ms)).usnChanged);
    expect(Math.min(...usns)).toBe(usnBefore + 1);
    expect(usns[0]).toBeLessThan(usns[1]!);
    expect(unwrap(s.node.resolvePath("/a/b", t0Ms)).id).toBe(s.b);
    expect(unwrap(s.node.morgue(t0Ms)).map((m) => m.id)).toEqual([s.c]);
    // The separately deleted child is restorable on its own now that its parent lives.
    expect(unwrap(s.node.restore(s.c, t0Ms + 4 * secondMs)).path).toBe("/A/B/C");
  });

  it("an alive object is not restorable", () => {
    const s = setup();
    expect(outcome(s.node.restore(s.a, t0Ms))).toBe("not-restorable");
  });

  it("a tombstone whose parent is not alive is not restorable", () => {
    const s = setup();
    unwrap(s.node.delete(s.a, t0Ms));
    expect(outcome(s.node.restore(s.b, t0Ms))).toBe("not-restorable");
    expect(outcome(s.node.restore(s.c, t0Ms))).toBe("not-restorable");
    expect(s.stage(s.b)).toBe("deleted");
  });

  it("past the restore window (timeUntilShred on /Configuration) it is not restorable", () => {
    const s = setup();
    unwrap(s.node.putAttribute(s.configuration, "timeUntilShred", ["60"], t0Ms));
    unwrap(s.node.delete(s.b, t0Ms));
    expect(unwrap(s.node.object(s.b, t0Ms + 61 * secondMs)).effectiveStage).toBe("shredded");
    expect(outcome(s.node.restore(s.b, t0Ms + 61 * secondMs))).toBe("not-restorable");
    // Still inside the window: restorable.
    expect(outcome(s.node.restore(s.b, t0Ms + 59 * secondMs))).toBe("ok");
  });

  it("the window in effect is at most half of maxTimeApart, so no restore outlives a partner's purge", () => {
    const s = setup();
    unwrap(s.node.putAttribute(s.configuration, "maxTimeApart", ["60"], t0Ms));
    unwrap(s.node.putAttribute(s.configuration, "timeUntilShred", ["120"], t0Ms));
    unwrap(s.node.delete(s.b, t0Ms));
    // The stored setting is what was written; the tombstone ages at 30 s, not 120 s.
    const config = unwrap(s.node.object(s.configuration, t0Ms));
    expect(config.attributes.find((a) => a.name === "timeUntilShred")?.values.map((v) => v.value)).toEqual(["120"]);
    expect(unwrap(s.node.object(s.b, t0Ms + 29 * secondMs)).effectiveStage).toBe("deleted");
    expect(unwrap(s.node.object(s.b, t0Ms + 31 * secondMs)).effectiveStage).toBe("shredded");
    expect(outcome(s.node.restore(s.b, t0Ms + 31 * secondMs))).toBe("not-restorable");
    expect(outcome(s.node.restore(s.b, t0Ms + 29 * secondMs))).toBe("ok");
  });

  it("the default restore window is 30 days", () => {
    const s = setup();
    const day = 24 * 3600 * secondMs;
    unwrap(s.node.delete(s.b, t0Ms));
    expect(unwrap(s.node.object(s.b, t0Ms + 29 * day)).effectiveStage).toBe("deleted");
    expect(unwrap(s.node.object(s.b, t0Ms + 31 * day)).effectiveStage).toBe("shredded");
    expect(outcome(s.node.restore(s.b, t0Ms + 31 * day))).toBe("not-restorable");
    expect(outcome(s.node.restore(s.b, t0Ms + 29 * day))).toBe("ok");
  });

  it("a shredded object is not restorable", () => {
    const s = setup();
    unwrap(s.node.delete(s.b, t0Ms));
    unwrap(s.node.shred(s.b, t0Ms));
    expect(outcome(s.node.restore(s.b, t0Ms))).toBe("not-restorable");
  });

  it("a sibling that took the name meanwhile blocks the restore (name-in-use)", () => {
    const s = setup();
    unwrap(s.node.delete(s.b, t0Ms));
    const usurper = make(s.node, s.a, "b");
    expect(outcome(s.node.restore(s.b, t0Ms))).toBe("name-in-use");
    expect(s.stage(s.b)).toBe("deleted");
    unwrap(s.node.move(usurper, { name: "b2" }, t0Ms));
    expect(outcome(s.node.restore(s.b, t0Ms))).toBe("ok");
  });

  it("a same-name sibling that held the name before the delete (a replicated conflict) does not block it", () => {
    const s = setup();
    // A replica created a second "B" under A concurrently: a CNF pair, the later claim shown
    // as `B CNF:<guid>`. Deleting either and restoring it gives the pair back as it was.
    const dir = s.node.dir;
    const b = dir.get(s.b)!;
    const usn = dir.allocateUsn();
    const stamp = {
      ...b.placement.stamp,
      atMs: t0Ms + secondMs,
      origin: "eeeeeeee-0000-4000-8000-000000000001",
      localUsn: usn,
    };
    const twin = "aaaaaaaa-0000-4000-8000-00000000b0b0";
    dir.write({
      ...b,
      id: twin,
      placement: { ...b.placement, stamp },
      existence: { ...b.existence, stamp },
      attrs: new Map(),
      usnChanged: usn,
    });
    expect(unwrap(s.node.object(twin, t0Ms + secondMs)).effectiveName).toBe(`B CNF:${twin}`);
    unwrap(s.node.delete(twin, t0Ms + 2 * secondMs));
    unwrap(s.node.restore(twin, t0Ms + 3 * secondMs));
    expect(unwrap(s.node.object(twin, t0Ms + 3 * secondMs)).effectiveName).toBe(`B CNF:${twin}`);
    unwrap(s.node.delete(s.b, t0Ms + 4 * secondMs));
    unwrap(s.node.restore(s.b, t0Ms + 5 * secondMs));
    expect(s.stage(s.b, t0Ms + 5 * secondMs)).toBe("alive");
    expect(unwrap(s.node.object(twin, t0Ms + 5 * secondMs)).effectiveName).toBe(`B CNF:${twin}`);
  });

  it("an unknown id gives no-such-object", () => {
    const s = setup();
    expect(outcome(s.node.restore("00000000-0000-4000-8000-0000000000ab", t0Ms))).toBe(
      "no-such-object",
    );
  });
});

describe("restore of a subtree whose descendant this node already hardened", () => {
  it("brings the descendant back as an alive record, no longer a hardened skeleton", () => {
    const s = setup();
    unwrap(s.node.putAttribute(s.configuration, "timeUntilShred", ["15"], t0Ms));
    unwrap(s.node.delete(s.b, t0Ms + secondMs)); // B and C, delete root B
    // B's existence atom re-stamped later, as a merged concurrent delete of B from another
    // node would leave it: C's delete stamp is now the older one and ages out first.
    const rb = s.node.dir.get(s.b)!;
    const usn = s.node.dir.allocateUsn();
    const stamp = s.node.dir.stamp(rb.existence.stamp, t0Ms + 10 * secondMs, usn);
    s.node.dir.write({ ...rb, existence: { ...rb.existence, stamp }, usnChanged: usn });
    unwrap(s.node.gc(t0Ms + 20 * secondMs));
    expect(s.node.dir.get(s.c)?.hardened).toBe(true);
    expect(s.node.dir.get(s.b)?.hardened).toBe(false);
    unwrap(s.node.restore(s.b, t0Ms + 21 * secondMs));
    const c = s.node.dir.get(s.c)!;
    expect(c.existence.stage).toBe("alive");
    expect(c.hardened).toBe(false);
    unwrap(s.node.putAttribute(s.c, "description", ["after"], t0Ms + 22 * secondMs));
    expect(s.node.dir.get(s.c)?.hardened).toBe(false);
  });
});

describe("delete and restore inside a stored move cycle", () => {
  /**
   * A and B under each other (concurrent moves on two nodes; here A's claim, the latest, is
   * broken off to /LostAndFound and B shows under it, D beside it, C under B). A delete takes
   * the subtree the view shows: of A, the whole cycle and what hangs below it; of B, B and C
   * only, not A, which shows as B's parent. Each one's stored parent may lie in its own stored
   * subtree; the restore once refused because that parent was not alive, though the very same
   * restore lifts it: the delete could not be undone at all.
   */
  function cycle() {
    const s = setup();
    const dir = s.node.dir;
    const a = dir.get(s.a)!;
    const usn = dir.allocateUsn();
    const stamp = dir.stamp(a.placement.stamp, t0Ms + 5 * secondMs, usn);
    dir.write({ ...a, placement: { ...a.placement, parent: s.b, stamp }, usnChanged: usn });
    expect(unwrap(s.node.object(s.b, t0Ms)).path).toBe("/LostAndFound/A/B");
    return s;
  }

  it("a delete of A, shown at the top, takes the cycle, and its restore brings the cycle back", () => {
    const s = cycle();
    unwrap(s.node.delete(s.a, t0Ms + 6 * secondMs));
    for (const id of [s.a, s.b, s.c, s.d]) expect(s.stage(id, t0Ms + 6 * secondMs)).toBe("deleted");
    unwrap(s.node.restore(s.a, t0Ms + 7 * secondMs));
    for (const id of [s.a, s.b, s.c, s.d]) expect(s.stage(id, t0Ms + 7 * secondMs)).toBe("alive");
    expect(unwrap(s.node.object(s.b, t0Ms + 7 * secondMs)).path).toBe("/LostAndFound/A/B");
    expect(unwrap(s.node.object(s.c, t0Ms + 7 * secondMs)).path).toBe("/LostAndFound/A/B/C");
  });

  it("a delete of B, shown beneath A, takes B's shown subtree only, and its restore brings it back", () => {
    const s = cycle();
    unwrap(s.node.delete(s.b, t0Ms + 6 * secondMs));
    for (const id of [s.b, s.c]) expect(s.stage(id, t0Ms + 6 * secondMs)).toBe("deleted");
    for (const id of [s.a, s.d]) expect(s.stage(id, t0Ms + 6 * secondMs)).toBe("alive");
    // A's stored parent is a tombstone now: an orphan, still shown where it was.
    const a = unwrap(s.node.object(s.a, t0Ms + 6 * secondMs));
    expect(a.path).toBe("/LostAndFound/A");
    expect(a.orphaned).toBe(true);
    unwrap(s.node.restore(s.b, t0Ms + 7 * secondMs));
    for (const id of [s.a, s.b, s.c, s.d]) expect(s.stage(id, t0Ms + 7 * secondMs)).toBe("alive");
    expect(unwrap(s.node.object(s.c, t0Ms + 7 * secondMs)).path).toBe("/LostAndFound/A/B/C");
  });

  it("any cycle member brings the same delete back; a descendant below the cycle does not", () => {
    const s = cycle();
    unwrap(s.node.delete(s.a, t0Ms + 6 * secondMs));
    // C hangs below the cycle: its parent B stays deleted unless B's own restore lifts it.
    expect(outcome(s.node.restore(s.c, t0Ms + 7 * secondMs))).toBe("not-restorable");
    expect(s.stage(s.c, t0Ms + 7 * secondMs)).toBe("deleted");
    // B's stored parent A is deleted, but A lies in B's stored subtree: restoring B lifts
    // exactly what A's delete took, A included.
    unwrap(s.node.restore(s.b, t0Ms + 7 * secondMs));
    for (const id of [s.a, s.b, s.c, s.d]) expect(s.stage(id, t0Ms + 7 * secondMs)).toBe("alive");
  });
});

describe("mutations aimed at a tombstone fail with already-deleted (rule 1)", () => {
  it("attribute writes, renames, moves, creates beneath, deletes", () => {
    const s = setup();
    unwrap(s.node.delete(s.b, t0Ms));
    expect(outcome(s.node.putAttribute(s.c, "givenName", ["C"], t0Ms))).toBe("already-deleted");
    expect(outcome(s.node.move(s.b, { name: "x" }, t0Ms))).toBe("already-deleted");
    expect(outcome(s.node.move(s.keep, { parent: s.b }, t0Ms))).toBe("already-deleted");
    expect(outcome(s.node.create({ parent: s.b, name: "n", className: "user" }, t0Ms))).toBe(
      "already-deleted",
    );
    expect(outcome(s.node.delete(s.c, t0Ms))).toBe("already-deleted");
  });
});
