/**
 * Goal: the ViewCache (derived facts, listings and payloads kept across requests) never shows
 * a stale view: every change of the directory a client could see empties it (originating
 * writes, replicated writes, purges, schema refreshes, GC hardening without a USN), and the
 * clock's part of a payload (apply-time aging of tombstones and of reference targets) is
 * recomputed when time passes, also when the clock goes back.
 * Method: read through the DirectoryNode facade, change the directory one way, read again.
 * Each test fails if its invalidation is missing (the second read would be the cached first).
 */
import { describe, expect, it } from "vitest";
import { compileSchema } from "../schema";
import {
  attribute,
  dayMs,
  freshDomain,
  make,
  secondMs,
  t0Ms,
  unwrap,
  valuesOf,
} from "../testing/node-fixture";

describe("the view cache is emptied by every change of the directory", () => {
  it("a listing sees a create, a rename and a delete", () => {
    const d = freshDomain();
    const ou = make(d.node, d.root, "People");
    make(d.node, ou, "bob", "user");
    const names = () => unwrap(d.node.children(ou)).map((c) => c.name);
    expect(names()).toEqual(["bob"]);
    const alice = make(d.node, ou, "alice", "user");
    expect(names()).toEqual(["alice", "bob"]);
    unwrap(d.node.move(alice, { name: "carol" }, t0Ms));
    expect(names()).toEqual(["bob", "carol"]);
    unwrap(d.node.delete(alice, t0Ms));
    expect(names()).toEqual(["bob"]);
  });

  it("hasChildren of a payload and a summary sees the first child", () => {
    const d = freshDomain();
    const ou = make(d.node, d.root, "People");
    const summary = () => unwrap(d.node.children(d.root)).find((c) => c.id === ou);
    expect(unwrap(d.node.object(ou, t0Ms)).hasChildren).toBe(false);
    expect(summary()?.hasChildren).toBe(false);
    make(d.node, ou, "alice", "user");
    expect(unwrap(d.node.object(ou, t0Ms)).hasChildren).toBe(true);
    expect(summary()?.hasChildren).toBe(true);
  });

  it("a payload sees an attribute write; descendants' paths see a move of an ancestor", () => {
    const d = freshDomain();
    const ou = make(d.node, d.root, "People");
    const alice = make(d.node, ou, "alice", "user");
    expect(valuesOf(unwrap(d.node.object(alice, t0Ms)), "description")).toEqual([]);
    unwrap(d.node.putAttribute(alice, "description", ["hello"], t0Ms));
    expect(valuesOf(unwrap(d.node.object(alice, t0Ms)), "description")).toEqual(["hello"]);
    expect(unwrap(d.node.object(alice, t0Ms)).path).toBe("/People/alice");
    unwrap(d.node.move(ou, { name: "Crew" }, t0Ms));
    expect(unwrap(d.node.object(alice, t0Ms)).path).toBe("/Crew/alice");
    expect(unwrap(d.node.object(alice, t0Ms)).dn).toBe("CN=alice,OU=Crew");
  });

  it("a payload sees a schema refresh that comes without a USN", () => {
    const d = freshDomain();
    const ou = make(d.node, d.root, "People");
    expect(unwrap(d.node.object(ou, t0Ms)).ghost).toBe(false);
    expect(unwrap(d.node.children(d.root)).find((c) => c.id === ou)?.ghost).toBe(false);
    const usn = d.node.dir.usn;
    d.node.dir.schema = compileSchema([]); // no class known any more: every object is a ghost
    expect(d.node.dir.usn).toBe(usn);
    expect(unwrap(d.node.object(ou, t0Ms)).ghost).toBe(true);
    expect(unwrap(d.node.children(d.root)).find((c) => c.id === ou)?.ghost).toBe(true);
  });

  it("a payload sees GC hardening, which rewrites the tombstone without a USN", () => {
    const d = freshDomain();
    unwrap(d.node.putAttribute(d.configuration, "timeUntilShred", ["60"], t0Ms));
    const alice = make(d.node, d.root, "alice", "user", t0Ms, { description: ["kept"] });
    unwrap(d.node.delete(alice, t0Ms));
    // Read while the window is open, and again at the same clock reading after GC hardened the
    // tombstone (a past-window tombstone already shows as the skeleton; a hardened one does
    // whatever the clock says, as after a clock step back).
    const within = t0Ms + 30 * secondMs;
    const before = unwrap(d.node.object(alice, within));
    expect(before.effectiveStage).toBe("deleted");
    expect(valuesOf(before, "description")).toEqual(["kept"]);
    const usn = d.node.dir.usn;
    expect(unwrap(d.node.gc(t0Ms + 61 * secondMs)).hardened).toBe(1);
    expect(d.node.dir.usn).toBe(usn);
    const after = unwrap(d.node.object(alice, within));
    expect(after.effectiveStage).toBe("shredded");
    expect(attribute(after, "description")).toBeUndefined();
  });

  it("a reference sees its target purged (the store shrinks, no USN moves)", () => {
    const d = freshDomain();
    unwrap(d.node.putAttribute(d.configuration, "maxTimeApart", ["3600"], t0Ms));
    const alice = make(d.node, d.root, "alice", "user");
    const staff = make(d.node, d.root, "staff", "group", t0Ms, { member: [alice] });
    unwrap(d.node.shred(alice, t0Ms));
    const later = t0Ms + 3601 * secondMs;
    const member = () => attribute(unwrap(d.node.object(staff, later)), "member")?.values[0];
    expect(member()?.refState).toBe("shredded");
    const usn = d.node.dir.usn;
    expect(unwrap(d.node.gc(later)).purged).toBe(1);
    expect(d.node.dir.usn).toBe(usn);
    expect(member()?.refState).toBe("missing");
  });
});

describe("the clock's part of a cached payload is recomputed", () => {
  it("a tombstone's effectiveStage turns to shredded when the restore window passes", () => {
    const d = freshDomain();
    const alice = make(d.node, d.root, "alice", "user");
    unwrap(d.node.delete(alice, t0Ms));
    const stageAt = (nowMs: number) => unwrap(d.node.object(alice, nowMs)).effectiveStage;
    expect(stageAt(t0Ms)).toBe("deleted");
    expect(stageAt(t0Ms + 31 * dayMs)).toBe("shredded");
    // A clock that goes back (the simulator drifts clocks) sees the tombstone restorable again.
    expect(stageAt(t0Ms + dayMs)).toBe("deleted");
  });

  it("a reference's refState turns from deleted to shredded with time alone", () => {
    const d = freshDomain();
    const alice = make(d.node, d.root, "alice", "user");
    const staff = make(d.node, d.root, "staff", "group", t0Ms, { member: [alice] });
    unwrap(d.node.delete(alice, t0Ms));
    const refState = (nowMs: number) =>
      attribute(unwrap(d.node.object(staff, nowMs)), "member")?.values[0]?.refState;
    expect(refState(t0Ms)).toBe("deleted");
    expect(refState(t0Ms + 31 * dayMs)).toBe("shredded");
    expect(refState(t0Ms + dayMs)).toBe("deleted");
  });
});

describe("cached values are shared, so they are frozen", () => {
  it("a payload and a listing cannot be changed by a reader", () => {
    const d = freshDomain();
    const ou = make(d.node, d.root, "People");
    make(d.node, ou, "alice", "user", t0Ms, { description: ["x"] });
    const listing = unwrap(d.node.children(ou));
    expect(unwrap(d.node.children(ou))).toBe(listing);
    expect(Object.isFrozen(listing) && Object.isFrozen(listing[0])).toBe(true);
    expect(() => listing.push(listing[0]!)).toThrow(TypeError);
    const payload = unwrap(d.node.object(ou, t0Ms));
    expect(unwrap(d.node.object(ou, t0Ms))).toBe(payload);
    expect(Object.isFrozen(payload.attributes)).toBe(true);
    expect(Object.isFrozen(payload.existence.cert)).toBe(true);
  });
});
