/**
 * Goal: one DirectoryNode under long random sequences of originating writes (create, rename,
 * move, delete, restore, shred, description writes) behaves like a deliberately simple model
 * of SPEC's tree: the same outcome (ok or the same refusal code) for every command, the same
 * stages, parents, names and values afterwards, children in caseless name order, and the
 * invariants: names unique caselessly among alive siblings, every alive non-root object's
 * parent alive, usnChanged strictly increasing per write (and untouched by refusals/no-ops),
 * the morgue holding exactly the tombstones, every alive object's path resolving to it.
 * Method: fast-check generates command lists over small pools of names and values that
 * collide caselessly (ß/SS, composed/decomposed é, case); commands address objects by index
 * into the model's list, so shrinking keeps them meaningful. The model is a Map of
 * id -> {parent, name, stage, deleteRoot, values} with a naive fold
 * (NFD, upper-case, lower-case), and it encodes the refusal precedence SPEC implies.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ErrorCode } from "../errors";
import type { Guid } from "../guid";
import type { DirectoryNode } from "../node/directory-node";
import { freshDomain, outcome, secondMs, t0Ms, unwrap, valuesOf } from "../testing/node-fixture";

type Stage = "alive" | "deleted" | "shredded";
interface ModelObject {
  parent: Guid | null;
  name: string;
  stage: Stage;
  deleteRoot: Guid | null;
  system: boolean;
  values: string[];
}

const names = ["a", "A", "b", "ß", "SS", "ss", "é", "e\u0301", "Zed"];
const valuePool = ["v", "V", "w", "ß", "ss", "x"];
const modelFold = (s: string): string =>
  s.normalize("NFD").toUpperCase().toLowerCase().normalize("NFD");

type Command =
  | { op: "create"; parent: number; name: number; user: boolean }
  | { op: "rename"; target: number; name: number }
  | { op: "move"; target: number; parent: number }
  | { op: "delete"; target: number }
  | { op: "restore"; target: number }
  | { op: "shred"; target: number }
  | { op: "describe"; target: number; values: number[] };

const index = fc.nat({ max: 200 });
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant("create" as const),
      parent: index,
      name: fc.nat({ max: names.length - 1 }),
      user: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("rename" as const),
      target: index,
      name: fc.nat({ max: names.length - 1 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant("move" as const), target: index, parent: index }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("delete" as const), target: index }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("restore" as const), target: index }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("shred" as const), target: index }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("describe" as const),
      target: index,
      values: fc.array(fc.nat({ max: valuePool.length - 1 }), { maxLength: 3 }),
    }),
  },
);

class Model {
  readonly objects = new Map<Guid, ModelObject>();
  readonly order: Guid[] = [];

  constructor(readonly root: Guid) {}

  add(id: Guid, o: ModelObject): void {
    this.objects.set(id, o);
    this.order.push(id);
  }

  /** Any object by index: landmarks (root, /LostAndFound) included, so protections get hit. */
  pick(i: number): Guid {
    return this.order[i % this.order.length]!;
  }

  /**
   * Mostly an object where the command is interesting (four picks in five), else any object:
   * without the bias, short lists make the landmarks dominate and restores rarely find a
   * tombstone.
   */
  pickWhere(i: number, interesting: (o: ModelObject, id: Guid) => boolean): Guid {
    const pool = this.order.filter((id) => interesting(this.get(id), id));
    if (i % 5 === 0 || pool.length === 0) return this.pick(i);
    return pool[Math.floor(i / 5) % pool.length]!;
  }

  /** The target of a command, chosen the same way for the node and the model. */
  target(cmd: Command): Guid {
    switch (cmd.op) {
      case "create":
        return this.pickWhere(cmd.parent, (o) => o.stage === "alive");
      case "restore":
        return this.pickWhere(cmd.target, (o) => o.stage === "deleted");
      default:
        return this.pickWhere(cmd.target, (o) => !o.system && o.stage === "alive");
    }
  }

  /** The new parent of a move. */
  moveParent(cmd: { parent: number }): Guid {
    return this.pickWhere(cmd.parent, (o) => o.stage === "alive");
  }

  get(id: Guid): ModelObject {
    const o = this.objects.get(id);
    if (o === undefined) throw new Error(`model has no ${id}`);
    return o;
  }

  childrenOf(id: Guid): Guid[] {
    return this.order.filter((c) => this.objects.get(c)?.parent === id);
  }

  aliveChildren(id: Guid): Guid[] {
    return this.childrenOf(id).filter((c) => this.get(c).stage === "alive");
  }

  clash(parent: Guid, name: string, except: Guid | null): boolean {
    return this.aliveChildren(parent).some(
      (c) => c !== except && modelFold(this.get(c).name) === modelFold(name),
    );
  }

  isSelfOrDescendant(candidate: Guid, ancestor: Guid): boolean {
    for (
      let cursor: Guid | null = candidate;
      cursor !== null;
      cursor = this.objects.get(cursor)?.parent ?? null
    ) {
      if (cursor === ancestor) return true;
    }
    return false;
  }

  /** Stored subtree, parents first; `descend` decides whether to walk below a non-top record. */
  subtree(id: Guid, descend: (o: ModelObject) => boolean = () => true): Guid[] {
    const out: Guid[] = [];
    const walk = (x: Guid, top: boolean): void => {
      out.push(x);
      if (!top && !descend(this.get(x))) return;
      for (const c of this.childrenOf(x)) walk(c, false);
    };
    walk(id, true);
    return out;
  }
}

/** Applies one command to the model; returns the expected outcome. */
function expectOutcome(m: Model, cmd: Command, newId: () => Guid): ErrorCode | "ok" {
  switch (cmd.op) {
    case "create": {
      const parent = m.target(cmd);
      const name = names[cmd.name]!;
      if (m.get(parent).stage !== "alive") return "already-deleted";
      if (m.clash(parent, name, null)) return "name-in-use";
      m.add(newId(), { parent, name, stage: "alive", deleteRoot: null, system: false, values: [] });
      return "ok";
    }
    case "rename":
    case "move": {
      const id = m.target(cmd);
      const o = m.get(id);
      if (o.stage !== "alive") return "already-deleted";
      if (id === m.root) return "root-is-protected";
      if (o.system) return "system-object-protected";
      const name = cmd.op === "rename" ? names[cmd.name]! : o.name;
      const parent = cmd.op === "move" ? m.moveParent(cmd) : o.parent!;
      if (m.get(parent).stage !== "alive") return "already-deleted";
      if (parent !== o.parent && m.isSelfOrDescendant(parent, id)) return "would-create-cycle";
      if (parent === o.parent && name === o.name) return "ok";
      if (m.clash(parent, name, id)) return "name-in-use";
      o.parent = parent;
      o.name = name;
      return "ok";
    }
    case "delete": {
      const id = m.target(cmd);
      if (m.get(id).stage !== "alive") return "already-deleted";
      if (id === m.root) return "root-is-protected";
      const doomed = m
        .subtree(id, (o) => o.stage === "alive")
        .filter((x) => m.get(x).stage === "alive");
      if (doomed.some((x) => m.get(x).system)) return "system-object-protected";
      for (const x of doomed) Object.assign(m.get(x), { stage: "deleted", deleteRoot: id });
      return "ok";
    }
    case "restore": {
      const id = m.target(cmd);
      const o = m.get(id);
      if (o.stage !== "deleted") return "not-restorable";
      if (o.parent === null || m.get(o.parent).stage !== "alive") return "not-restorable";
      if (m.clash(o.parent, o.name, id)) return "name-in-use";
      const root = o.deleteRoot ?? id;
      const lifted = m
        .subtree(id, (x) => x.deleteRoot === root)
        .filter((x) => {
          const r = m.get(x);
          return r.stage === "deleted" && r.deleteRoot === root;
        });
      for (const x of lifted) Object.assign(m.get(x), { stage: "alive", deleteRoot: null });
      return "ok";
    }
    case "shred": {
      const id = m.target(cmd);
      if (m.get(id).stage === "shredded") return "already-deleted";
      if (id === m.root) return "root-is-protected";
      const doomed = m.subtree(id).filter((x) => m.get(x).stage !== "shredded");
      if (doomed.some((x) => m.get(x).system)) return "system-object-protected";
      for (const x of doomed) {
        const r = m.get(x);
        Object.assign(r, { stage: "shredded", deleteRoot: r.deleteRoot ?? id, values: [] });
      }
      return "ok";
    }
    case "describe": {
      const id = m.target(cmd);
      const o = m.get(id);
      if (o.stage !== "alive") return "already-deleted";
      const values = cmd.values.map((i) => valuePool[i]!);
      if (new Set(values.map(modelFold)).size !== values.length) return "duplicate-value";
      o.values = values;
      return "ok";
    }
  }
}

function run(
  node: DirectoryNode,
  cmd: Command,
  m: Model,
  nowMs: number,
): { code: ErrorCode | "ok"; id: Guid | null } {
  switch (cmd.op) {
    case "create": {
      const r = node.create(
        {
          parent: m.target(cmd),
          name: names[cmd.name],
          className: cmd.user ? "user" : "organizationalUnit",
        },
        nowMs,
      );
      return { code: outcome(r), id: r.ok ? r.value.id : null };
    }
    case "rename":
      return {
        code: outcome(node.move(m.target(cmd), { name: names[cmd.name] }, nowMs)),
        id: null,
      };
    case "move":
      return {
        code: outcome(node.move(m.target(cmd), { parent: m.moveParent(cmd) }, nowMs)),
        id: null,
      };
    case "delete":
      return { code: outcome(node.delete(m.target(cmd), nowMs)), id: null };
    case "restore":
      return { code: outcome(node.restore(m.target(cmd), nowMs)), id: null };
    case "shred":
      return { code: outcome(node.shred(m.target(cmd), nowMs)), id: null };
    case "describe":
      return {
        code: outcome(
          node.putAttribute(
            m.target(cmd),
            "description",
            cmd.values.map((i) => valuePool[i]!),
            nowMs,
          ),
        ),
        id: null,
      };
  }
}

function compare(node: DirectoryNode, m: Model, hidden: ReadonlySet<Guid>, nowMs: number): void {
  const compareNames = (a: string, b: string): number => {
    const x = modelFold(a);
    const y = modelFold(b);
    return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
  };
  for (const id of m.order) {
    const o = m.get(id);
    const p = unwrap(node.object(id, nowMs));
    expect({ id, stage: p.stage, parent: p.parent, name: p.name }).toEqual({
      id,
      stage: o.stage,
      parent: o.parent,
      name: o.name,
    });
    expect(valuesOf(p, "description").sort()).toEqual([...o.values].sort());
    if (o.stage !== "alive") continue;
    if (o.parent !== null) expect(m.get(o.parent).stage).toBe("alive");
    expect(unwrap(node.resolvePath(p.path, nowMs)).id).toBe(id);
    const kids = unwrap(node.children(id)).filter((k) => !hidden.has(k.id));
    const expected = m.aliveChildren(id).sort((a, b) => compareNames(m.get(a).name, m.get(b).name));
    expect(kids.map((k) => k.id)).toEqual(expected);
    const folded = kids.map((k) => modelFold(k.name));
    expect(new Set(folded).size).toBe(folded.length);
    expect(kids.every((k) => !k.conflicted && !k.orphaned && !k.cycleBroken)).toBe(true);
  }
  const tombstones = m.order.filter((id) => m.get(id).stage !== "alive").sort();
  expect(
    unwrap(node.morgue(nowMs))
      .map((r) => r.id)
      .sort(),
  ).toEqual(tombstones);
}

function usnSnapshot(node: DirectoryNode, ids: readonly Guid[]): Map<Guid, number> {
  return new Map(ids.map((id) => [id, unwrap(node.object(id, t0Ms)).usnChanged]));
}

describe("one node against a simple model", () => {
  it("agrees on every outcome and every observable after every command", () => {
    fc.assert(
      fc.property(
        fc.array(commandArb, { minLength: 1, maxLength: 60, size: "max" }),
        (commands) => {
          const d = freshDomain(5);
          const m = new Model(d.root);
          const base = { deleteRoot: null, values: [] as string[] };
          m.add(d.root, {
            ...base,
            parent: null,
            name: unwrap(d.node.root(t0Ms)).name,
            stage: "alive",
            system: true,
          });
          m.add(d.lostAndFound, {
            ...base,
            parent: d.root,
            name: "LostAndFound",
            stage: "alive",
            system: true,
          });
          m.add(d.domainControllers, {
            ...base,
            parent: d.root,
            name: "Domain Controllers",
            stage: "alive",
            system: false,
          });
          const hidden = new Set([d.configuration]);
          let nowMs = t0Ms;
          for (const cmd of commands) {
            nowMs += secondMs;
            const before = usnSnapshot(d.node, m.order);
            const maxBefore = Math.max(...[...d.node.dir.store.all()].map((r) => r.usnChanged));
            const usnBefore = d.node.dir.usn;
            let created: Guid | null = null;
            const actual = run(d.node, cmd, m, nowMs);
            const expected = expectOutcome(m, cmd, () => {
              created = actual.id;
              if (created === null) throw new Error("model created an object the node did not");
              return created;
            });
            expect({ cmd, code: actual.code }).toEqual({ cmd, code: expected });
            compare(d.node, m, hidden, nowMs);
            const after = usnSnapshot(d.node, m.order);
            for (const [id, usn] of after) {
              const old = before.get(id);
              if (old === undefined) expect(usn).toBeGreaterThan(maxBefore);
              else if (usn !== old) expect(usn).toBeGreaterThan(maxBefore);
            }
            if (actual.code !== "ok") {
              expect(d.node.dir.usn).toBe(usnBefore);
              expect(after).toEqual(before);
            }
            const written = [...after]
              .filter(([id, usn]) => before.get(id) !== usn)
              .map(([, usn]) => usn);
            expect(new Set(written).size).toBe(written.length);
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
