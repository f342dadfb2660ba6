/**
 * Goal: POST /api/objects/{id}/shred per SPEC's transitions (alive -> shredded, deleted ->
 * shredded, subtree-wide) and DESIGN's rule that after a shred nothing of a value survives
 * anywhere the node can show or persist: not in payloads, absence keys, the morgue, the
 * journal, or the batch the node hands the shell to persist.
 * Method: plant a distinctive marker in values, meta and absence residue of an object and its
 * descendant, flush earlier batches, shred, then JSON-serialize every observable surface and
 * the encoded ready() batch and search them (caselessly: residue keys are folded) for the
 * marker. Refusals and the absorbing shredded stage are checked through the node facade.
 */
import { describe, expect, it } from "vitest";
import { freshDomain, make, outcome, t0Ms, unwrap, valuesOf } from "../testing/node-fixture";

const marker = "Zq7Secret";

function setup() {
  const d = freshDomain();
  const team = make(d.node, d.root, "Team");
  const alice = make(d.node, team, "alice", "user", t0Ms, {
    givenName: [`${marker}-given`],
    email: [`${marker}-kept@x.test`, `${marker}-removed@x.test`],
    description: [`${marker} description`],
  });
  // Residue: a removed value leaves its (folded) key behind until the shred.
  unwrap(d.node.putAttribute(alice, "email", [`${marker}-kept@x.test`], t0Ms));
  unwrap(d.node.putAttribute(alice, "displayName", [`${marker} display`], t0Ms));
  unwrap(d.node.putAttribute(alice, "displayName", [], t0Ms));
  unwrap(d.node.putAttribute(team, "description", [`${marker} team`], t0Ms));
  const group = make(d.node, d.root, "staff", "group", t0Ms, { member: [alice] });
  d.node.ready();
  return { ...d, team, alice, group };
}

function everything(node: ReturnType<typeof setup>["node"], ids: readonly string[]): string {
  const parts: unknown[] = [
    ids.map((id) => node.object(id, t0Ms)),
    node.morgue(t0Ms),
    node.journal(),
    node.summary(t0Ms),
  ];
  return JSON.stringify(parts);
}

describe("shred erases values subtree-wide", () => {
  it("the marker is present before (the search can fail)", () => {
    const s = setup();
    expect(everything(s.node, [s.team, s.alice]).toLowerCase()).toContain(marker.toLowerCase());
    const alice = unwrap(s.node.object(s.alice, t0Ms));
    expect(JSON.stringify(alice.attributes.flatMap((a) => a.absent ?? []))).toContain(
      marker.toLowerCase(),
    );
  });

  it("leaves no value, meta or absence key anywhere after shredding an alive subtree", () => {
    const s = setup();
    const result = unwrap(s.node.shred(s.team, t0Ms + 1000));
    expect(result).toEqual({ id: s.team, shredded: 2 });
    const ready = s.node.ready();
    expect(ready?.erasure).toBe(true);
    const persisted = JSON.stringify(ready?.batch);
    expect(persisted).toContain(s.alice);
    const seen = `${everything(s.node, [s.team, s.alice, s.group])}\n${persisted}`.toLowerCase();
    expect(seen).not.toContain(marker.toLowerCase());
    for (const id of [s.team, s.alice]) {
      const p = unwrap(s.node.object(id, t0Ms));
      expect(p.stage).toBe("shredded");
      expect(p.effectiveStage).toBe("shredded");
      expect(p.attributes).toEqual([]);
    }
  });

  it("escalates a soft delete: deleted -> shredded, values gone", () => {
    const s = setup();
    unwrap(s.node.delete(s.team, t0Ms));
    expect(valuesOf(unwrap(s.node.object(s.alice, t0Ms)), "givenName")).toEqual([
      `${marker}-given`,
    ]);
    s.node.ready();
    unwrap(s.node.shred(s.alice, t0Ms + 1000));
    const persisted = JSON.stringify(s.node.ready()?.batch);
    expect(unwrap(s.node.object(s.alice, t0Ms)).stage).toBe("shredded");
    expect(unwrap(s.node.object(s.team, t0Ms)).stage).toBe("deleted");
    const alicePayload = JSON.stringify(unwrap(s.node.object(s.alice, t0Ms)));
    expect(
      `${alicePayload}${persisted}${JSON.stringify(s.node.journal())}`.toLowerCase(),
    ).not.toContain(marker.toLowerCase());
  });

  it("shredded is absorbing: no restore, no second shred, no writes", () => {
    const s = setup();
    unwrap(s.node.shred(s.alice, t0Ms));
    expect(outcome(s.node.restore(s.alice, t0Ms))).toBe("not-restorable");
    expect(outcome(s.node.shred(s.alice, t0Ms))).toBe("already-deleted");
    expect(outcome(s.node.delete(s.alice, t0Ms))).toBe("already-deleted");
    expect(outcome(s.node.putAttribute(s.alice, "givenName", ["x"], t0Ms))).toBe("already-deleted");
    expect(outcome(s.node.move(s.alice, { name: "y" }, t0Ms))).toBe("already-deleted");
  });

  it("references to a shredded object report refState shredded and no path", () => {
    const s = setup();
    unwrap(s.node.shred(s.alice, t0Ms));
    const member = unwrap(s.node.object(s.group, t0Ms)).attributes.find((a) => a.name === "member");
    expect(member?.values[0]).toMatchObject({
      value: s.alice,
      refPath: null,
      refState: "shredded",
    });
  });

  it("shredded records are listed in the morgue with both stages shredded", () => {
    const s = setup();
    unwrap(s.node.shred(s.team, t0Ms + 5000));
    const morgue = unwrap(s.node.morgue(t0Ms + 5000));
    expect(morgue.map((m) => [m.name, m.stage, m.effectiveStage, m.at])).toEqual([
      ["alice", "shredded", "shredded", "2025-01-01T00:00:05.000Z"],
      ["Team", "shredded", "shredded", "2025-01-01T00:00:05.000Z"],
    ]);
  });
});

describe("shred refusals", () => {
  it("the root: root-is-protected; system objects: system-object-protected", () => {
    const s = setup();
    expect(outcome(s.node.shred(s.root, t0Ms))).toBe("root-is-protected");
    for (const id of [s.configuration, s.lostAndFound, s.schema]) {
      expect(outcome(s.node.shred(id, t0Ms))).toBe("system-object-protected");
    }
    expect(unwrap(s.node.object(s.configuration, t0Ms)).stage).toBe("alive");
  });

  it("an unknown id gives no-such-object", () => {
    const s = setup();
    expect(outcome(s.node.shred("00000000-0000-4000-8000-0000000000ac", t0Ms))).toBe(
      "no-such-object",
    );
  });
});
