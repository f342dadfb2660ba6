import type { Result } from "../../core/errors";
import { ok, refuse } from "../../core/errors";
import type { DirectoryNode } from "../../core/node/directory-node";
import type { ObjectRecord } from "../../core/store/record";
import type { DirectoryOp } from "./directory-op";

const workloadClasses = new Set(["organizationalUnit", "user", "group"]);

/** Alive workload objects (plus the root for parents), sorted by id: what picks index into. */
function candidates(node: DirectoryNode, test: (r: ObjectRecord) => boolean): ObjectRecord[] {
  const out: ObjectRecord[] = [];
  for (const r of node.dir.store.all()) if (test(r)) out.push(r);
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function pickOf<T>(list: readonly T[], pick: number): T | undefined {
  return list.length === 0 ? undefined : list[pick % list.length];
}

function aliveWork(node: DirectoryNode): ObjectRecord[] {
  return candidates(node, (r) => r.existence.stage === "alive" && !r.existence.system && workloadClasses.has(r.existence.className));
}

function containers(node: DirectoryNode): ObjectRecord[] {
  const root = node.dir.landmarks()?.root;
  return candidates(
    node,
    (r) => r.existence.stage === "alive" && (r.id === root || r.existence.className === "organizationalUnit") && !r.existence.system,
  ).concat(root === undefined ? [] : candidates(node, (r) => r.id === root));
}

/** Runs one workload op against the node at `nowMs` (the node's wall clock). */
export function runOp(node: DirectoryNode, op: DirectoryOp, nowMs: number): Result<unknown> {
  if (node.dir.landmarks() === null) return refuse("no-root", "no root yet");
  const none = (): Result<unknown> => ok(null);
  switch (op.kind) {
    case "create": {
      const parent = pickOf(containers(node), op.pick);
      if (parent === undefined) return none();
      const attributes = op.className === "user" ? { sid: [`S-${op.name}`] } : undefined;
      return node.create({ parent: parent.id, name: op.name, className: op.className, attributes }, nowMs);
    }
    case "rename": {
      const target = pickOf(aliveWork(node), op.pick);
      return target === undefined ? none() : node.move(target.id, { name: op.name }, nowMs);
    }
    case "move": {
      const target = pickOf(aliveWork(node), op.pick);
      const parent = pickOf(containers(node), op.parentPick);
      if (target === undefined || parent === undefined) return none();
      return node.move(target.id, { parent: parent.id }, nowMs);
    }
    case "describe": {
      const target = pickOf(aliveWork(node), op.pick);
      return target === undefined ? none() : node.putAttribute(target.id, "description", op.values, nowMs);
    }
    case "displayName": {
      const target = pickOf(aliveWork(node), op.pick);
      const values = op.value === null ? [] : [op.value];
      return target === undefined ? none() : node.putAttribute(target.id, "displayName", values, nowMs);
    }
    case "member":
      return runMember(node, op, nowMs);
    case "delete": {
      const target = pickOf(aliveWork(node), op.pick);
      return target === undefined ? none() : node.delete(target.id, nowMs);
    }
    case "restore": {
      const dead = candidates(node, (r) => r.existence.stage === "deleted" && workloadClasses.has(r.existence.className));
      const target = pickOf(dead, op.pick);
      return target === undefined ? none() : node.restore(target.id, nowMs);
    }
    case "shred": {
      const target = pickOf(aliveWork(node), op.pick);
      return target === undefined ? none() : node.shred(target.id, nowMs);
    }
    case "schema":
      return runSchema(node, op, nowMs);
  }
}

function runMember(node: DirectoryNode, op: Extract<DirectoryOp, { kind: "member" }>, nowMs: number): Result<unknown> {
  const groups = candidates(node, (r) => r.existence.stage === "alive" && r.existence.className === "group");
  const group = pickOf(groups, op.pick);
  const member = pickOf(aliveWork(node), op.memberPick);
  if (group === undefined || member === undefined) return ok(null);
  const current = [...(group.attrs.get("member")?.values() ?? [])]
    .filter((a) => a.present && a.value !== null)
    .map((a) => a.value as string);
  const next = op.add ? [...new Set([...current, member.id])] : current.filter((v) => v !== member.id);
  return node.putAttribute(group.id, "member", next, nowMs);
}

/** Defines a namespaced attribute (creating the namespace when missing). */
function runSchema(node: DirectoryNode, op: Extract<DirectoryOp, { kind: "schema" }>, nowMs: number): Result<unknown> {
  const schemaId = node.dir.landmarks()?.schema;
  if (schemaId === null || schemaId === undefined) return ok(null);
  let ns = candidates(node, (r) => r.existence.stage === "alive" && r.existence.className === "schemaNamespace" && r.placement.name === op.namespace)[0];
  if (ns === undefined) {
    const made = node.create({ parent: schemaId, name: op.namespace, className: "schemaNamespace" }, nowMs);
    if (!made.ok) return made;
    ns = node.dir.get(made.value.id);
    if (ns === undefined) return ok(null);
  }
  return node.create(
    {
      parent: ns.id,
      name: op.attribute,
      className: "attributeDefinition",
      attributes: { syntax: ["string"], singleValued: ["true"], matching: ["caseless"], lifecycle: ["active"], system: ["false"] },
    },
    nowMs,
  );
}
