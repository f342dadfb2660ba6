/**
 * Goal: local GC per SPEC's transitions and Limits: a soft-deleted record hardens past
 * timeUntilShred (values dropped, no longer restorable, effectiveStage shredded) and every
 * tombstone purges past maxTimeApart (record removed entirely, refState missing, gone from
 * the morgue and deleted from the persisted state); POST /api/gc returns the new horizon; a
 * deleted definition that a record holding values still names outlives the horizon.
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
import { residueFloorKey } from "../store/record";
import { msToTimestamp } from "../syntax";

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

  it("counts in its journal line only the residue of records that stay", () => {
    // Residue of a record purged in the same run went with it (journal audit, twenty-fifth
    // session: the line read "purged 1, residue 2" for one purged object).
    const s = setup();
    const gone = make(s.node, s.root, "Gone", "organizationalUnit", at(1), { description: ["a", "b", "c"] });
    unwrap(s.node.putAttribute(gone, "description", ["a"], at(2)));
    unwrap(s.node.delete(gone, at(3)));
    unwrap(s.node.gc(at(purgeS + 10)));
    const lines = s.node.journal().filter((r) => r.kind === "gc").map((r) => r.detail);
    expect(lines.at(-1)).toMatch(/^hardened 0, purged 3, residue 0;/u);
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

  it("raises erasure for a purge before hardening, not for purging hardened skeletons", () => {
    const s = setup();
    unwrap(s.node.gc(at(restoreS + 1)));
    expect(s.node.ready()?.erasure).toBe(true); // hardening dropped Bob's values
    expect(unwrap(s.node.gc(at(purgeS + 1))).purged).toBe(2);
    expect(s.node.ready()?.erasure).toBe(false); // nothing left to erase
    // A restore window longer than the purge horizon: the tombstone purges with its values.
    const d = freshDomain();
    unwrap(d.node.putAttribute(d.configuration, "timeUntilShred", [String(2 * purgeS)], t0Ms));
    unwrap(d.node.putAttribute(d.configuration, "maxTimeApart", [String(purgeS)], t0Ms));
    const carol = make(d.node, d.root, "carol", "user", t0Ms, { givenName: ["Carol-marker"] });
    unwrap(d.node.delete(carol, t0Ms));
    d.node.ready();
    expect(unwrap(d.node.gc(at(purgeS + 1)))).toMatchObject({ hardened: 0, purged: 1 });
    expect(d.node.ready()?.erasure).toBe(true);
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

describe("absence residue past maxTimeApart", () => {
  it("drops residue older than the purge horizon, keeps newer residue, every value and a floor", () => {
    const s = setup();
    const carol = make(s.node, s.root, "carol", "user", t0Ms, { description: ["one", "two"] });
    // "one" removed at t0 + 10 s (old by the gc below); "two" at t0 + 3000 s (young).
    unwrap(s.node.putAttribute(carol, "description", ["two", "three"], at(10)));
    unwrap(s.node.putAttribute(carol, "description", ["three"], at(3000)));
    s.node.ready();
    const absentBefore = [...s.node.dir.get(carol)!.attrs.get("description")!.values()].filter((a) => !a.present);
    expect(absentBefore).toHaveLength(2);
    const oldResidue = absentBefore.find((a) => a.stamp.atMs === at(10))!;
    const usnBefore = s.node.dir.usn;
    // Horizon at t0 + 100 s: the residue of "one" (t0 + 10 s) goes; that of "two" stays.
    expect(unwrap(s.node.gc(at(purgeS + 100)))).toMatchObject({ purged: 2 });
    const after = s.node.dir.get(carol)!.attrs.get("description")!;
    const absentAfter = [...after.values()].filter((a) => !a.present && a.key !== residueFloorKey);
    expect(absentAfter.map((a) => a.stamp.atMs)).toEqual([at(3000)]);
    // The floor keeps the highest stamp dropped; the payload never shows it.
    expect(after.get(residueFloorKey)?.stamp).toEqual(oldResidue.stamp);
    const payload = unwrap(s.node.object(carol, at(purgeS + 100)));
    expect(valuesOf(payload, "description")).toEqual(["three"]);
    expect(JSON.stringify(payload)).not.toMatch(/floor/);
    // An unstamped compaction: no USN, but the rewritten record is persisted and journaled.
    expect(s.node.dir.usn).toBe(usnBefore);
    expect(s.node.ready()?.batch.puts.map(([k]) => k)).toContain(`o/${carol}`);
    expect(s.node.journal().at(-1)?.detail).toMatch(/residue 1;/);
  });

  it("a value written again after its residue was dropped stamps above the dropped residue", () => {
    const s = setup();
    const carol = make(s.node, s.root, "carol", "user", t0Ms, { description: ["one"] });
    for (let i = 1; i <= 3; i++) {
      unwrap(s.node.putAttribute(carol, "description", [], at(i)));
      unwrap(s.node.putAttribute(carol, "description", ["one"], at(i + 0.5)));
    }
    unwrap(s.node.putAttribute(carol, "description", [], at(5)));
    const residue = s.node.dir.get(carol)!.attrs.get("description")!.get("one")!;
    expect(residue.present).toBe(false);
    unwrap(s.node.gc(at(purgeS + 100)));
    expect(s.node.dir.get(carol)!.attrs.get("description")!.has("one")).toBe(false);
    // A partner that has not dropped the residue yet still holds it at this version: the new
    // value must beat it.
    unwrap(s.node.putAttribute(carol, "description", ["one"], at(purgeS + 101)));
    const again = s.node.dir.get(carol)!.attrs.get("description")!.get("one")!;
    expect(again.present).toBe(true);
    expect(again.stamp.version).toBeGreaterThan(residue.stamp.version);
  });
});

describe("purging deleted definitions", () => {
  /**
   * A facet restored after its attribute was deleted references a tombstone, which compiles
   * out (SPEC: the facet keeps working minus the dead member). Purging that tombstone would
   * leave the facet "waiting for" an attribute that never comes.
   */
  function facetOverDeletedAttribute() {
    const s = setup();
    const ns = make(s.node, s.schema, "org.canopy", "schemaNamespace");
    const basics = { lifecycle: ["active"], system: ["false"] };
    const badge = make(s.node, ns, "badge", "attributeDefinition", t0Ms, {
      ...basics,
      syntax: ["string"],
      singleValued: ["true"],
      matching: ["caseless"],
    });
    const level = make(s.node, ns, "level", "attributeDefinition", t0Ms, {
      ...basics,
      syntax: ["string"],
      singleValued: ["true"],
      matching: ["caseless"],
    });
    const facet = make(s.node, ns, "badged", "facetDefinition", t0Ms, { ...basics, attributes: [badge, level] });
    unwrap(s.node.delete(facet, at(1)));
    unwrap(s.node.delete(badge, at(2)));
    unwrap(s.node.restore(facet, at(3)));
    return { ...s, badge, facet };
  }

  const facetNames = (s: ReturnType<typeof facetOverDeletedAttribute>) =>
    s.node.dir.schema.facets.map((f) => f.name);

  it("keeps an attribute's tombstone past the horizon while an alive facet names it, hardened", () => {
    const s = facetOverDeletedAttribute();
    expect(facetNames(s)).toContain("org.canopy-badged");
    const gc = unwrap(s.node.gc(at(purgeS + 10)));
    expect(s.node.dir.get(s.badge)?.hardened).toBe(true);
    expect(s.node.dir.schema.quarantined).toEqual([]);
    expect(facetNames(s)).toContain("org.canopy-badged");
    // The facet still works minus its dead member.
    const member = s.node.dir.schema.facet("org.canopy-badged")?.attributes.map((m) => m.name);
    expect(member).toEqual(["org.canopy-level"]);
    expect(gc.purged).toBe(2); // the team and bob, deleted at t0; not the attribute
    expect(s.node.journal().at(-1)?.detail).toMatch(/kept 1 deleted definitions still in use/);
  });

  it("purges the tombstone once nothing that holds values or may still be restored names it", () => {
    const s = facetOverDeletedAttribute();
    unwrap(s.node.gc(at(purgeS + 10)));
    unwrap(s.node.delete(s.facet, at(purgeS + 20)));
    // Within the facet's restore window a restore would bring its reference back: kept.
    unwrap(s.node.gc(at(purgeS + 21)));
    expect(s.node.dir.get(s.badge)).toBeDefined();
    // Past the window here, a restore made elsewhere inside it may still be on its way: kept
    // until the facet's own purge horizon (the facet is hardened now, so it keeps them all).
    unwrap(s.node.gc(at(purgeS + 20 + restoreS + 1)));
    expect(s.node.dir.get(s.facet)?.hardened).toBe(true);
    expect(s.node.dir.get(s.badge)).toBeDefined();
    // Past that, the facet's tombstone and the attribute's go together.
    unwrap(s.node.gc(at(purgeS + 20 + purgeS + 1)));
    expect(s.node.dir.get(s.facet)).toBeUndefined();
    expect(s.node.dir.get(s.badge)).toBeUndefined();
    expect(s.node.dir.schema.quarantined).toEqual([]);
  });
});

describe("durations stored before their bounds", () => {
  it("a maxTimeApart beyond 100 years, written before the bound, is read as 100 years: GC runs", () => {
    const s = setup();
    // As an older node could have stored and replicated it: the value goes in unchecked.
    const config = s.node.dir.get(s.configuration)!;
    const attrs = new Map(config.attrs);
    const [key, atom] = [...attrs.get("maxTimeApart")!.entries()][0]!;
    attrs.set("maxTimeApart", new Map([[key, { ...atom, value: "1000000000000000" }]]));
    s.node.dir.write({ ...config, attrs });
    const gc = unwrap(s.node.gc(at(10)));
    expect(gc.purged).toBe(0);
    const hundredYearsMs = 100 * 365 * 24 * 3600 * 1000;
    expect(gc.purgeHorizon).toBe(msToTimestamp(at(10) - hundredYearsMs));
  });
});

describe("tombstones above a newer tombstone", () => {
  it("outlive the horizon until the newer one purges, so its path stays whole", () => {
    const s = setup();
    // bob's shred inside the window restamps his existence: newer than Team's delete.
    unwrap(s.node.shred(s.bob, at(10)));
    const purged = unwrap(s.node.gc(at(purgeS + 1)));
    expect(purged).toMatchObject({ purged: 0 });
    const bob = unwrap(s.node.object(s.bob, at(purgeS + 1)));
    expect([bob.stage, bob.path, bob.dn]).toEqual(["shredded", "/Team/bob", "CN=bob,OU=Team"]);
    const team = unwrap(s.node.object(s.team, at(purgeS + 1)));
    expect([team.effectiveStage, team.attributes]).toEqual(["shredded", []]);
    expect(s.node.dir.get(s.team)?.hardened).toBe(true);
    // Once bob is past the horizon too, both go.
    expect(unwrap(s.node.gc(at(purgeS + 11)))).toMatchObject({ purged: 2 });
    expect(outcome(s.node.object(s.bob, at(purgeS + 11)))).toBe("no-such-object");
    expect(outcome(s.node.object(s.team, at(purgeS + 11)))).toBe("no-such-object");
  });
});
