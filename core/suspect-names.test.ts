/**
 * Goal: the directory's repair suspects by name (what CNF naming under /LostAndFound asks for)
 * always equal the alive suspects whose stored name folds to the name asked, however suspects
 * come and go: creates, renames, moves, deletes, restores (a suspect that dies and comes back
 * before anything pruned it), purges that orphan children, listings of /LostAndFound (which
 * drop suspects found unrepaired), and a boot.
 * Method: fast-check sequences of real writes on one node, after each one compared with the
 * suspects filtered by hand.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DirectoryNode } from "./node/directory-node";
import { fold } from "./naming";
import { freshDomain, make, secondMs, t0Ms } from "./testing/node-fixture";
import { seededRandom } from "./testing/seeded-random";
import type { Guid } from "./guid";

const names = ["Ops", "ops", "OPS", "Sales", "Lab"];

const action = fc.record({
  kind: fc.constantFrom("create", "rename", "move", "delete", "restore", "purge"),
  a: fc.nat(),
  b: fc.nat(),
  name: fc.constantFrom(...names),
});

function expected(node: DirectoryNode, folded: string): Guid[] {
  return node.dir
    .repairSuspects()
    .filter((id) => {
      const r = node.dir.get(id);
      return r !== undefined && r.existence.stage === "alive" && fold(r.placement.name) === folded;
    })
    .sort();
}

function check(node: DirectoryNode): void {
  for (const folded of new Set(names.map(fold))) {
    const want = expected(node, folded);
    expect([...node.dir.suspectsNamed(folded)].sort()).toEqual(want);
  }
}

describe("repair suspects by name", () => {
  it("equal the alive suspects of that name after every write, and after a boot", () => {
    fc.assert(
      fc.property(fc.array(action, { minLength: 1, maxLength: 30 }), (actions) => {
        const d = freshDomain();
        const n = d.node;
        const ids: Guid[] = [];
        const entries = new Map<string, string>();
        let at = t0Ms;
        for (const x of actions) {
          at += secondMs;
          const alive = ids.filter((id) => n.dir.get(id)?.existence.stage === "alive");
          const pick = (i: number): Guid | undefined => alive[i % Math.max(1, alive.length)];
          const parent = pick(x.b) ?? d.root;
          const subject = pick(x.a);
          if (x.kind === "create" || subject === undefined) {
            const created = n.create({ parent, name: x.name, className: "organizationalUnit", attributes: {} }, at);
            if (created.ok) ids.push(created.value.id);
          } else if (x.kind === "rename") {
            n.move(subject, { name: x.name }, at);
          } else if (x.kind === "move") {
            n.move(subject, { parent }, at);
          } else if (x.kind === "delete") {
            n.delete(subject, at);
          } else if (x.kind === "restore") {
            const deleted = ids.filter((id) => n.dir.get(id)?.existence.stage === "deleted");
            const target = deleted[x.a % Math.max(1, deleted.length)];
            if (target !== undefined) n.restore(target, at);
          } else {
            // As GC would past the horizon: the record goes, its children are orphans.
            n.dir.purge(subject);
          }
          n.markChanged();
          stored(n, entries);
          // Listing /LostAndFound drops the suspects it finds unrepaired.
          if (x.b % 2 === 0) n.children(d.lostAndFound);
          // Not after every write: the check prunes dead suspects too (repairSuspects), and a
          // suspect must be able to die and come back in between.
          if (x.a % 2 === 0) check(n);
        }
        check(n);
        const booted = DirectoryNode.boot(seededRandom(3), entries);
        expect(booted).not.toBeNull();
        check(booted!);
      }),
      { numRuns: 150 },
    );
  });

  it("holds an orphan under its new name once it is renamed", () => {
    const d = freshDomain();
    const n = d.node;
    const gone = make(n, d.root, "Gone");
    const orphan = make(n, gone, "Ops");
    n.dir.purge(gone);
    n.markChanged();
    expect([...n.dir.suspectsNamed(fold("Ops"))]).toEqual([orphan]);
    n.move(orphan, { name: "Sales" }, t0Ms + secondMs);
    expect([...n.dir.suspectsNamed(fold("Ops"))]).toEqual([]);
    expect([...n.dir.suspectsNamed(fold("Sales"))]).toEqual([orphan]);
  });

  it("files a suspect again when it comes back to life before anything pruned it", () => {
    const d = freshDomain();
    const n = d.node;
    const a = make(n, d.root, "A");
    const ops = make(n, d.root, "Ops");
    n.move(ops, { parent: a }, t0Ms + secondMs); // a moved record is a suspect
    n.markChanged();
    expect([...n.dir.suspectsNamed(fold("Ops"))]).toEqual([ops]);
    expect(n.delete(ops, t0Ms + 2 * secondMs).ok).toBe(true);
    expect([...n.dir.suspectsNamed(fold("Ops"))]).toEqual([]);
    expect(n.restore(ops, t0Ms + 3 * secondMs).ok).toBe(true);
    expect([...n.dir.suspectsNamed(fold("Ops"))]).toEqual([ops]);
  });
});

/** Applies the node's next persisted batch to `into` (what its disk would hold). */
function stored(node: DirectoryNode, into: Map<string, string>): void {
  const ready = node.ready();
  if (ready === null) return;
  for (const [k, v] of ready.batch.puts) into.set(k, v);
  for (const k of ready.batch.dels) into.delete(k);
}
