/**
 * Goal: the oracles can fail. The no-resurrection oracle flags deleted -> alive without an
 * acknowledged restore, shredded -> anything else and a purged object coming back alive, and
 * accepts a real restore; the round tracker counts a round only when every pair completed a
 * pull started in it; the durability oracle flags an acknowledged atom a node lacks.
 * Method: one core DirectoryNode driven through its facade, with records forged through
 * `dir.write` where a replica would merge something it should not; small hand-made inputs.
 */
import { describe, expect, it } from "vitest";
import type { DirectoryNode } from "../../core/node/directory-node";
import type { ObjectRecord, ValueAtom } from "../../core/store/record";
import { residueFloorKey } from "../../core/store/record";
import { freshDomain, t0Ms, unwrap, withStoredCycle } from "../../core/testing/node-fixture";
import { EffectiveView } from "../../core/view/effective-view";
import { RoundTracker } from "../scenario/round-tracker";
import { Ledger } from "./ledger";
import { convergenceViolations, durabilityViolations, schemaViolations, treeViolations, waitsForDelivery } from "./oracles";
import { ResurrectionOracle } from "./resurrection-oracle";

/** Writes `record` with a forged existence, as a buggy merge would. */
function forge(
  node: DirectoryNode,
  record: ObjectRecord,
  stage: "alive" | "deleted",
  version: number,
): void {
  const usn = node.dir.allocateUsn();
  const stamp = { ...record.existence.stamp, version, atMs: t0Ms + version, localUsn: usn };
  node.dir.write({ ...record, existence: { ...record.existence, stage, stamp }, usnChanged: usn });
}

function setup(): { node: DirectoryNode; id: string; oracle: ResurrectionOracle; ledger: Ledger } {
  const d = freshDomain();
  const id = unwrap(
    d.node.create({ parent: d.root, name: "X", className: "organizationalUnit" }, t0Ms),
  ).id;
  const ledger = new Ledger();
  const oracle = new ResurrectionOracle(ledger);
  expect(check(oracle, d.node)).toEqual([]);
  return { node: d.node, id, oracle, ledger };
}

function check(oracle: ResurrectionOracle, node: DirectoryNode): string[] {
  const out: string[] = [];
  oracle.check("n1", node, out);
  return out;
}

describe("the no-resurrection oracle", () => {
  it("accepts delete then an acknowledged restore", () => {
    const { node, id, oracle, ledger } = setup();
    unwrap(node.delete(id, t0Ms + 10));
    expect(check(oracle, node)).toEqual([]);
    unwrap(node.restore(id, t0Ms + 20));
    const record = node.dir.get(id)!;
    ledger.noteRestore(id, record.existence.stamp);
    expect(check(oracle, node)).toEqual([]);
  });

  it("flags deleted -> alive without a restore", () => {
    const { node, id, oracle } = setup();
    unwrap(node.delete(id, t0Ms + 10));
    expect(check(oracle, node)).toEqual([]);
    forge(node, node.dir.get(id)!, "alive", 9);
    expect(check(oracle, node).join()).toMatch(/came back alive without a restore/);
  });

  it("flags a shredded object coming back and an existence going back", () => {
    const { node, id, oracle } = setup();
    unwrap(node.shred(id, t0Ms + 10));
    expect(check(oracle, node)).toEqual([]);
    forge(node, node.dir.get(id)!, "deleted", 1);
    const found = check(oracle, node).join();
    expect(found).toMatch(/shredded .* came back deleted/);
    expect(found).toMatch(/went back/);
  });

  it("flags an object the node purged coming back alive", () => {
    const { node, id, oracle } = setup();
    const record = node.dir.get(id)!;
    oracle.notePurged("n1", [id]);
    forge(node, record, "alive", 5);
    expect(check(oracle, node).join()).toMatch(/after this node purged it/);
  });
});

describe("the round tracker", () => {
  it("counts a round when every ordered pair completed a pull started in it", () => {
    const t = new RoundTracker(["n1", "n2", "n3"]);
    t.begin(1000);
    const pairs = [
      ["n1", "n2"],
      ["n1", "n3"],
      ["n2", "n1"],
      ["n2", "n3"],
      ["n3", "n1"],
    ] as const;
    for (const [d, s] of pairs) t.pullDone(d, s, 1000, 2000);
    t.pullDone("n3", "n2", 999, 2000); // started before the round: does not count
    expect(t.completed).toBe(0);
    t.pullDone("n3", "n2", 1500, 2500);
    expect([t.completed, t.boundaryPending, t.boundariesMs]).toEqual([1, true, [2500]]);
  });
});

describe("the round tracker with a pair refused for good", () => {
  const all = [
    ["n1", "n2"],
    ["n1", "n3"],
    ["n2", "n1"],
    ["n2", "n3"],
    ["n3", "n1"],
    ["n3", "n2"],
  ] as const;

  it("excuses the pair from every round and bounds rounds by the remaining graph", () => {
    const t = new RoundTracker(["n1", "n2", "n3"]);
    t.excuse("n3", "n1", 500); // refused during the safety phase
    t.begin(1000);
    for (const [d, s] of all) if (d !== "n3" || s !== "n1") t.pullDone(d, s, 1000, 2000);
    expect(t.completed).toBe(1);
    expect(t.refusals).toEqual(["n3<-n1"]);
    // n1's atoms reach n3 through n2: diameter 2, so 2 x 2 + 1 rounds.
    expect(t.bound(3)).toBe(5);
  });

  it("completes the round under way when the last missing pair is refused", () => {
    const t = new RoundTracker(["n1", "n2", "n3"]);
    t.begin(1000);
    for (const [d, s] of all) if (d !== "n3" || s !== "n2") t.pullDone(d, s, 1000, 2000);
    expect(t.completed).toBe(0);
    t.excuse("n3", "n2", 2500);
    expect([t.completed, t.boundariesMs]).toEqual([1, [2500]]);
  });

  it("keeps the scenario's bound when refusals cut a node off", () => {
    const t = new RoundTracker(["n1", "n2", "n3"]);
    t.excuse("n3", "n1", 0);
    t.excuse("n3", "n2", 0);
    expect(t.bound(3)).toBe(3);
    expect(new RoundTracker(["n1", "n2"]).bound(3)).toBe(3);
  });
});

describe("the round tracker under a topology other than the mesh", () => {
  const line = (dest: string, source: string): boolean => Math.abs(Number(dest.slice(1)) - Number(source.slice(1))) === 1;

  it("counts only neighbours' pulls and bounds rounds by 2 x the diameter + 1", () => {
    const t = new RoundTracker(["n1", "n2", "n3", "n4"], line);
    expect(t.bound(3)).toBe(7);
    t.begin(1000);
    // Pulls between non-neighbours do not happen; were one reported, it would not count.
    t.pullDone("n1", "n4", 1000, 1500);
    const pairs = [
      ["n1", "n2"],
      ["n2", "n1"],
      ["n2", "n3"],
      ["n3", "n2"],
      ["n3", "n4"],
    ] as const;
    for (const [d, s] of pairs) t.pullDone(d, s, 1000, 2000);
    expect(t.completed).toBe(0);
    t.pullDone("n4", "n3", 1200, 2100);
    expect([t.completed, t.boundariesMs]).toEqual([1, [2100]]);
  });

  it("takes the bound over the neighbours still pulling when one refuses", () => {
    const t = new RoundTracker(["n1", "n2", "n3", "n4"], line);
    t.excuse("n1", "n4", 0); // not neighbours: nothing to excuse
    expect(t.refusals).toEqual([]);
    t.excuse("n2", "n1", 0);
    // n1's atoms can no longer reach anyone: no bound holds; still no fewer rounds than the
    // line's own (2 x 3 + 1), which a cut graph fell below before (liveness audit).
    expect(t.bound(3)).toBe(7);
  });

  it("takes a refused pair back into the rounds once it completes a pull again", () => {
    const t = new RoundTracker(["n1", "n2", "n3"]);
    t.excuse("n2", "n1", 0);
    expect(t.refusals).toEqual(["n2<-n1"]);
    t.pullDone("n2", "n1", 0, 10);
    expect(t.refusals).toEqual([]);
    expect(t.bound(3)).toBe(3);
  });
});

describe("the durability oracle", () => {
  it("flags an acknowledged object a node lacks, unless that node purged it", () => {
    const { node, id } = setup();
    const ledger = new Ledger();
    const stamp = node.dir.get(id)!.existence.stamp;
    ledger.ack({
      node: "n2",
      objectId: "00000000-0000-4000-8000-000000000000",
      atom: "existence",
      stamp,
      atMs: 0,
      trueMs: 0,
    });
    const nodes = new Map([["n1", node]]);
    expect(durabilityViolations(ledger, nodes, { purged: () => false }).join()).toMatch(/n1 lacks/);
    expect(durabilityViolations(ledger, nodes, { purged: () => true })).toEqual([]);
    // A second atom of the same missing object is the same line: said once.
    ledger.ack({
      node: "n2",
      objectId: "00000000-0000-4000-8000-000000000000",
      atom: "placement",
      stamp,
      atMs: 0,
      trueMs: 0,
    });
    expect(durabilityViolations(ledger, nodes, { purged: () => false })).toEqual([
      "n1 lacks 00000000-0000-4000-8000-000000000000 acked by n2",
    ]);
  });

  it("flags a lost value atom, unless residue under its attribute's floor superseded it", () => {
    const { node, id } = setup();
    const record = node.dir.get(id)!;
    const ledger = new Ledger();
    // An acked value written late (60 s) at version 1: not on the node.
    const late = { ...record.existence.stamp, version: 1, atMs: t0Ms + 60_000 };
    ledger.ack({ node: "n2", objectId: id, atom: "attr\u0000description\u0000a", stamp: late, life: 1, atMs: 0, trueMs: 0 });
    const nodes = new Map([["n1", node]]);
    // The key's NUL separators read as `/` (raw NULs made the report a binary file).
    expect(durabilityViolations(ledger, nodes).join()).toContain("n1 lost attr/description/a of");
    expect(durabilityViolations(ledger, nodes).join()).not.toContain("\u0000");
    // GC dropped residue of version 2 stamped earlier (10 s): the floor stands above the ack.
    const floorStamp = { ...late, version: 2, atMs: t0Ms + 10_000 };
    const floor: ValueAtom = { key: residueFloorKey, present: false, value: null, meta: null, stamp: floorStamp };
    const attrs = new Map(record.attrs);
    attrs.set("description", new Map([[residueFloorKey, floor]]));
    node.dir.write({ ...record, attrs, usnChanged: node.dir.allocateUsn() });
    expect(durabilityViolations(ledger, nodes)).toEqual([]);
  });
});

describe("a rolled-back node in the no-resurrection oracle", () => {
  it("keeps what its GC purged, so that absence stays excused", () => {
    const { id, oracle } = setup();
    oracle.notePurged("n1", [id]);
    oracle.rolledBack("n1");
    expect(oracle.wasPurged("n1", id)).toBe(true);
    expect(oracle.wasPurged("n2", id)).toBe(false);
  });
});

describe("the tree oracle", () => {
  it("accepts a broken stored cycle: the breaker listed under /LostAndFound only", () => {
    const { node } = withStoredCycle();
    expect(treeViolations("n1", node)).toEqual([]);
  });

  it("flags an effective parent that is neither the stored one nor /LostAndFound", () => {
    const d = freshDomain();
    const ou = unwrap(d.node.create({ parent: d.root, name: "OU", className: "organizationalUnit" }, t0Ms)).id;
    const user = unwrap(d.node.create({ parent: ou, name: "U", className: "user" }, t0Ms)).id;
    expect(treeViolations("n1", d.node)).toEqual([]);
    // A view that placed U under the root (no listing would show it there).
    class Misplacing extends EffectiveView {
      override of(record: ObjectRecord) {
        const facts = super.of(record);
        return record.id === user ? { ...facts, effectiveParent: d.root } : facts;
      }
    }
    const found = treeViolations("n1", d.node, new Misplacing(d.node.dir));
    expect(found.some((v) => v.includes(`${user} has effective parent ${d.root}, neither`))).toBe(true);
  });

  it("flags a repair that /LostAndFound's listing misses", () => {
    const { node, b } = withStoredCycle();
    // The breaker keeps its repaired path, but the directory forgets it as a suspect, as a
    // revived or late-arriving cycle member once was never filed.
    node.dir.dropRepairSuspect(b);
    const found = treeViolations("n1", node);
    expect(found.some((v) => v.includes(`${b} is under /LostAndFound but not in its listing`))).toBe(true);
  });
});

describe("the convergence oracle", () => {
  it("names the first differing atom with its raw key's control characters escaped", () => {
    const a = freshDomain();
    const b = freshDomain();
    const nodes = new Map([
      ["n1", a.node],
      ["n2", b.node],
    ]);
    expect(convergenceViolations(nodes)).toEqual([]);
    // n2 holds residue under a key with a NUL and a lone surrogate (keys are stored raw).
    const root = b.node.dir.get(b.root)!;
    const usn = b.node.dir.allocateUsn();
    const stamp = { ...root.existence.stamp, localUsn: usn };
    const atom: ValueAtom = { key: "x\u0000y\ud800", present: false, value: null, meta: null, stamp };
    const attrs = new Map(root.attrs);
    attrs.set("description", new Map([[atom.key!, atom]]));
    b.node.dir.write({ ...root, attrs, usnChanged: usn });
    const lines = convergenceViolations(nodes);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^atoms of n2 differ from n1: /u);
    expect(lines[0]).toContain("description{x\\u0000y\\ud800=absent@");
    // The line is text: no raw control character or lone surrogate reaches a report.
    expect(lines[0]).not.toMatch(/[\u0000-\u001f\ud800-\udfff]/u);
  });
});

describe("the convergence oracle, every field of an atom", () => {
  /**
   * A merge that dropped an existence's deleteRoot (what a restore brings back), or a value
   * atom's life (which decides merge order), left replicas that differ only there judged
   * converged (liveness audit, twenty-eighth session).
   */
  const twins = () => {
    const a = freshDomain();
    const b = freshDomain();
    for (const d of [a, b]) unwrap(d.node.putAttribute(d.root, "description", [{ value: "twin" }], t0Ms + 1));
    const nodes = new Map([
      ["n1", a.node],
      ["n2", b.node],
    ]);
    expect(convergenceViolations(nodes)).toEqual([]);
    return { b, nodes };
  };

  it("tells replicas apart by deleteRoot", () => {
    const { b, nodes } = twins();
    const root = b.node.dir.get(b.root)!;
    b.node.dir.write({ ...root, existence: { ...root.existence, deleteRoot: b.root } });
    expect(convergenceViolations(nodes)).toHaveLength(1);
  });

  it("tells replicas apart by a value atom's life", () => {
    const { b, nodes } = twins();
    const root = b.node.dir.get(b.root)!;
    const atoms = root.attrs.get("description")!;
    const [key, atom] = [...atoms.entries()][0]!;
    const attrs = new Map(root.attrs);
    attrs.set("description", new Map([...atoms, [key, { ...atom, life: 3 }]]));
    b.node.dir.write({ ...root, attrs });
    expect(convergenceViolations(nodes)).toHaveLength(1);
  });
});

describe("the schema oracle", () => {
  /**
   * A facet over two attributes a node never got (forged: both records purged from its store,
   * as if never delivered) waits for both; the compiler joins the two problems with "; ".
   * The oracle took only a reason of one problem for "waiting", and passed this node (schema
   * audit, twenty-eighth session).
   */
  it("flags a definition waiting for two dependencies that never arrived", () => {
    const d = freshDomain(7);
    const n = d.node;
    const born = { lifecycle: ["active"], system: ["false"] };
    const ns = unwrap(n.create({ parent: d.schema, name: "org.oracle", className: "schemaNamespace" }, t0Ms)).id;
    const attr = (name: string) =>
      unwrap(
        n.create(
          {
            parent: ns,
            name,
            className: "attributeDefinition",
            attributes: { ...born, syntax: ["string"], singleValued: ["true"], matching: ["caseless"] },
          },
          t0Ms,
        ),
      ).id;
    const [a, b] = [attr("first"), attr("second")];
    const facet = unwrap(
      n.create({ parent: ns, name: "pair", className: "facetDefinition", attributes: { ...born, attributes: [a, b] } }, t0Ms),
    ).id;
    expect(schemaViolations("n1", n)).toEqual([]);
    n.dir.purge(a);
    n.dir.purge(b);
    n.dir.refreshSchema();
    const reason = n.dir.schema.quarantined.find((q) => q.id === facet)?.reason;
    expect(reason).toBe(`waiting for attribute ${a}; waiting for attribute ${b}`);
    expect(schemaViolations("n1", n)).toEqual([`n1: org.oracle-pair (${facet}) still quarantined: ${reason}`]);
  });

  it("takes a chain behind a quarantined definition, or a duplicate name, for legitimate", () => {
    expect(waitsForDelivery("waiting for facet abc, which is quarantined")).toBe(false);
    expect(waitsForDelivery("duplicate name: abc holds it")).toBe(false);
    expect(waitsForDelivery("namespace abc is deleted; waiting for attribute def")).toBe(true);
  });
});
