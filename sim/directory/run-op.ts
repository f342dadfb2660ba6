import type { Result } from "../../core/errors";
import { ok, refuse } from "../../core/errors";
import type { DirectoryNode } from "../../core/node/directory-node";
import type { ObjectRecord, ValueAtom } from "../../core/store/record";
import { msToTimestamp } from "../../core/syntax";
import type { DirectoryOp } from "./directory-op";
import type { PickClass, PickIndex } from "./pick-index";
import { runSchema, runSchemaLife } from "./run-schema-op";
import { runTyped } from "./run-typed-op";

export type WorkloadOp = Exclude<DirectoryOp, { kind: "script" }>;

/** Picks for one op: through the node's PickIndex (see pick-index.ts). */
export class Picker {
  constructor(
    readonly node: DirectoryNode,
    private readonly index: PickIndex,
  ) {}

  pick(cls: PickClass, pick: number): ObjectRecord | undefined {
    return this.index.pick(this.node, cls, pick);
  }

  aliveWork(pick: number): ObjectRecord | undefined {
    return this.pick("work", pick);
  }

  container(pick: number): ObjectRecord | undefined {
    return this.pick("container", pick);
  }
}

/**
 * Runs one workload op against the node at `nowMs` (the node's wall clock). Targets come
 * from `index`, which leaves out the objects a scenario script labelled.
 */
export function runOp(
  node: DirectoryNode,
  op: WorkloadOp,
  nowMs: number,
  index: PickIndex,
): Result<unknown> {
  if (node.dir.landmarks() === null) return refuse("no-root", "no root yet");
  const p = new Picker(node, index);
  const none = (): Result<unknown> => ok(null);
  switch (op.kind) {
    case "create": {
      const parent = p.container(op.pick);
      if (parent === undefined) return none();
      const attributes = op.className === "user" ? { sid: [`S-${op.name}`] } : undefined;
      return node.createQuiet(
        { parent: parent.id, name: op.name, className: op.className, attributes },
        nowMs,
      );
    }
    case "rename": {
      const target = p.aliveWork(op.pick);
      return target === undefined ? none() : node.moveQuiet(target.id, { name: op.name }, nowMs);
    }
    case "move": {
      const target = p.aliveWork(op.pick);
      const parent = p.container(op.parentPick);
      if (target === undefined || parent === undefined) return none();
      return node.moveQuiet(target.id, { parent: parent.id }, nowMs);
    }
    case "describe": {
      const target = p.aliveWork(op.pick);
      return target === undefined
        ? none()
        : node.putAttributeQuiet(target.id, "description", op.values, nowMs);
    }
    case "displayName": {
      const target = p.aliveWork(op.pick);
      const values = op.value === null ? [] : [op.value];
      return target === undefined
        ? none()
        : node.putAttributeQuiet(target.id, "displayName", values, nowMs);
    }
    case "member":
      return runMember(p, op, nowMs);
    case "expiry":
      return runExpiry(p, op, nowMs);
    case "window": {
      const config = node.dir.landmarks()?.configuration ?? null;
      if (config === null) return none();
      return node.putAttributeQuiet(config, "timeUntilShred", [String(op.seconds)], nowMs);
    }
    case "delete": {
      const target = p.aliveWork(op.pick);
      return target === undefined ? none() : node.delete(target.id, nowMs);
    }
    case "restore": {
      const target = p.pick("deleted", op.pick);
      return target === undefined ? none() : node.restoreQuiet(target.id, nowMs);
    }
    case "shred": {
      const target = p.aliveWork(op.pick);
      return target === undefined ? none() : node.shred(target.id, nowMs);
    }
    case "schema":
      return runSchema(p, op, nowMs);
    case "facet":
    case "class":
    case "extension":
    case "instance":
    case "attach":
    case "custom":
    case "undefine":
    case "redefine":
      return runSchemaLife(p, op, nowMs);
    case "typedAttribute":
    case "typedWrite":
      return runTyped(p, op, nowMs);
  }
}

/** A group's present member values, in the record's order. */
function memberAtoms(group: ObjectRecord): ValueAtom[] {
  return [...(group.attrs.get("member")?.values() ?? [])].filter((a) => a.present && a.value !== null);
}

function runMember(
  p: Picker,
  op: Extract<DirectoryOp, { kind: "member" }>,
  nowMs: number,
): Result<unknown> {
  const group = p.pick("group", op.pick);
  const member = p.aliveWork(op.memberPick);
  if (group === undefined || member === undefined) return ok(null);
  // Other members keep their meta (a client's read-modify-write); without meta a value is
  // written bare, so runs without the expiry kind write what they always wrote.
  const current = memberAtoms(group).map((a) =>
    a.meta === null ? (a.value as string) : { value: a.value as string, meta: a.meta },
  );
  const held = current.some((v) => (typeof v === "string" ? v : v.value) === member.id);
  const next = op.add
    ? held
      ? current
      : [...current, member.id]
    : current.filter((v) => (typeof v === "string" ? v : v.value) !== member.id);
  return p.node.putAttributeQuiet(group.id, "member", next, nowMs);
}

/** Changes the `expiry` meta of one member value, keeping every other value as it is. */
function runExpiry(
  p: Picker,
  op: Extract<DirectoryOp, { kind: "expiry" }>,
  nowMs: number,
): Result<unknown> {
  const group = p.pick("group", op.pick);
  if (group === undefined) return ok(null);
  const members = memberAtoms(group);
  if (members.length === 0) return ok(null);
  const chosen = members[op.memberPick % members.length]!;
  const expiry = op.days === null ? null : msToTimestamp(Date.UTC(2030, 0, 1 + op.days));
  if ((chosen.meta?.["expiry"]?.[0] ?? null) === expiry) return ok(null);
  const values = members.map((a) => {
    const meta = a === chosen ? (expiry === null ? null : { expiry: [expiry] }) : a.meta;
    return meta === null || meta === undefined ? { value: a.value } : { value: a.value, meta };
  });
  return p.node.putAttributeQuiet(group.id, "member", values, nowMs);
}
