/**
 * Goal: local GC per SPEC's transitions and Limits: a soft-deleted record hardens past
 * timeUntilShred (values dropped, no longer restorable, effectiveStage shredded) and every
 * tombstone purges past maxTimeApart (record removed entirely, refState missing, gone from
 * the morgue and deleted from the persisted state); POST /api/gc returns the new horizon.
 * Method: a domain whose /Configuration holds small windows (60 s restore, 3600 s purge);
 * delete at t0 and run gc at chosen instants before and after each boundary, reading back
 * payloads, the morgue, references and the ready() batch.
 */
import { describe, expect, it } from "vitest";
import {
  freshDomain,
  make,
  outcome,
  secondMs,
  t0Ms,
  unwrap,
  valuesOf,
} from "../testing/node-fixture";

const restoreS = 60;
const purgeS = 3600;

function setup() {
  const d = freshDomain();
  unwrap(d.node.putAttribute(d.configuration, "timeUntilShred", [String(restoreS)], t0Ms));
  unwrap(d.node.putAttribute(d.configuration, "maxTimeApart", [String(purgeS)], t0Ms));
  const team = make(d.node, d.root, "Team");
  const bob = make(d.node, team, "bob", "user", t0Ms, { givenName: ["Bob-marker"] });
  const group = make(d.node, d.root, "staff", "group", t0Ms, { member: [bob] });
  unwrap(d.node.delete(team, t0Ms));
  d.node.ready();
  return { ...d, team, bob, group };
}

const at = (seconds: number): number => t0Ms + seconds * secondMs;

describe("hardening past timeUntilShred", () => {
  it("inside the window gc changes nothing and the tombstone stays restorable", () => {
    const s = setup();
    expect(unwrap(s.node.gc(at(restoreS - 1)))).toMatchObject({ hardened: 0, purged: 0 });
    const bob = unwrap(s.node.object(s.bob, at(restoreS - 1)));
    expect(bob.effectiveStage).toBe("deleted");
    expect(valuesOf(bob, "givenName")).toEqual(["Bob-marker"]);
    expect(outcome(s.node.restore(s.team, at(restoreS - 1)))).toBe("ok");
  });

  it("past the window the view ages the tombstone even before gc runs", () => {
    const s = setup();
    const bob = unwrap(s.node.object(s.bob, at(restoreS + 1)));
    expect(bob.stage).toBe("deleted");
    expect(bob.effectiveStage).toBe("shredded");
    expect(
      unwrap(s.node.morgue(at(restoreS + 1))).every((m) => m.effectiveStage === "shredded"),
    ).toBe(true);
  });

  it("gc hardens to a skeleton: values dropped and persisted, not restorable", () => {
    const s = setup();
    const outcome1 = unwrap(s.node.gc(at(restoreS + 1)));
    expect(outcome1).toMatchObject({ hardened: 2, purged: 0 });
    const bob = unwrap(s.node.object(s.bob, at(restoreS + 1)));
    expect(bob.attributes).toEqual([]);
    expect(bob.effectiveStage).toBe("shredded");
    const ready = s.node.ready();
    expect(ready?.erasure).toBe(true);
    expect(JSON.stringify(ready?.batch)).not.toContain("Bob-marker");
    expect(outcome(s.node.restore(s.team, at(restoreS + 1)))).toBe("not-restorable");
    // Hardening is idempotent.
    expect(unwrap(s.node.gc(at(restoreS + 2)))).toMatchObject({ hardened: 0, purged: 0 });
  });

  it("a hardened record stays not restorable even if the window is widened later", () => {
    const s = setup();
    unwrap(s.node.gc(at(restoreS + 1)));
    unwrap(s.node.putAttribute(s.configuration, "timeUntilShred", ["100000"], at(restoreS + 2)));
    expect(unwrap(s.node.object(s.team, at(restoreS + 2))).effectiveStage).toBe("shredded");
    expect(outcome(s.node.restore(s.team, at(restoreS + 2)))).toBe("not-restorable");
  });
});

describe("purging past maxTimeApart", () => {
  it("returns the purge horizon (now - maxTimeApart) and records it on the node", () => {
    const s = setup();
    const result = unwrap(s.node.gc(at(10)));
    expect(result.purgeHorizon).toBe(new Date(at(10) - purgeS * secondMs).toISOString());
    expect(s.node.summary(at(10)).purgeHorizon).toBe(result.purgeHorizon);
  });

  it("removes tombstones entirely; references report missing; the batch deletes the keys", () => {
    const s = setup();
    expect(unwrap(s.node.gc(at(purgeS - 1))).purged).toBe(0);
    const result = unwrap(s.node.gc(at(purgeS + 1)));
    expect(result.purged).toBe(2);
    expect(outcome(s.node.object(s.bob, at(purgeS + 1)))).toBe("no-such-object");
    expect(outcome(s.node.object(s.team, at(purgeS + 1)))).toBe("no-such-object");
    expect(unwrap(s.node.morgue(at(purgeS + 1)))).toEqual([]);
    const member = unwrap(s.node.object(s.group, at(purgeS + 1))).attributes.find(
      (a) => a.name === "member",
    );
    expect(member?.values[0]).toMatchObject({ value: s.bob, refPath: null, refState: "missing" });
    const ready = s.node.ready();
    expect(ready?.batch.dels).toEqual(expect.arrayContaining([`o/${s.bob}`, `o/${s.team}`]));
    expect(s.node.summary(at(purgeS + 1)).morgueSize).toBe(0);
    expect(s.node.journal().at(-1)).toMatchObject({ kind: "gc" });
  });

  it("purges shredded tombstones too, and never touches alive objects", () => {
    const s = setup();
    const other = make(s.node, s.root, "other", "user");
    unwrap(s.node.shred(other, t0Ms));
    const alive = unwrap(s.node.root(t0Ms)).id;
    unwrap(s.node.gc(at(purgeS + 1)));
    expect(outcome(s.node.object(other, at(purgeS + 1)))).toBe("no-such-object");
    expect(unwrap(s.node.object(alive, at(purgeS + 1))).stage).toBe("alive");
    expect(unwrap(s.node.object(s.group, at(purgeS + 1))).stage).toBe("alive");
  });

  it("default windows: nothing purges before 180 days", () => {
    const d = freshDomain();
    const x = make(d.node, d.root, "x");
    unwrap(d.node.delete(x, t0Ms));
    const day = 24 * 3600 * secondMs;
    expect(unwrap(d.node.gc(t0Ms + 179 * day))).toMatchObject({ purged: 0, hardened: 1 });
    expect(unwrap(d.node.gc(t0Ms + 181 * day))).toMatchObject({ purged: 1 });
  });
});
