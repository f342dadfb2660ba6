import type { Result } from "../../core/errors";
import { ok, refuse } from "../../core/errors";
import type { Guid } from "../../core/guid";
import type { DirectoryNode } from "../../core/node/directory-node";
import type { Meta, ObjectRecord } from "../../core/store/record";
import { presentValues } from "../../core/store/record";
import type { AttributeArg, DefinitionKind, Ref, ScriptOp, ValueArg } from "./script-op";

/** Labels bound by scripted creates, shared by every node of a run (the script's memory). */
export class Labels {
  private readonly ids = new Map<string, Guid>();
  /** Every labelled object: the random workload leaves them alone. */
  readonly protectedIds = new Set<Guid>();

  bind(label: string, id: Guid): void {
    this.ids.set(label, id);
    this.protectedIds.add(id);
  }

  idOf(label: string): Guid | undefined {
    return this.ids.get(label);
  }

  entries(): Array<[string, Guid]> {
    return [...this.ids.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
}

const definitionClass: Readonly<Record<DefinitionKind, string>> = {
  namespace: "schemaNamespace",
  attribute: "attributeDefinition",
  facet: "facetDefinition",
  class: "classDefinition",
  extension: "classExtension",
};

const attributeDefaults: ReadonlyArray<readonly [string, string]> = [
  ["syntax", "string"],
  ["singleValued", "true"],
  ["matching", "caseless"],
];

/**
 * Resolves a reference on this node: labels globally, paths (`{@label}` in them resolved first,
 * see resolveName) on the node's effective view.
 */
export function resolveRef(
  node: DirectoryNode,
  labels: Labels,
  ref: Ref,
  nowMs: number,
): Result<Guid> {
  if ("label" in ref) {
    const id = labels.idOf(ref.label);
    return id === undefined ? refuse("no-such-object", `label @${ref.label} is not bound`) : ok(id);
  }
  const path = resolveName(labels, ref.path);
  if (!path.ok) return path;
  const found = node.resolvePath(path.value, nowMs);
  return found.ok ? ok(found.value.id) : found;
}

/**
 * A scripted name or path with each `{@label}` replaced by the GUID bound to the label (labels
 * are global, as in references): a script can name an object after another one's GUID, as a
 * CNF display name does, which no literal can since GUIDs are minted during the run.
 */
export function resolveName(labels: Labels, name: string): Result<string> {
  let unbound: string | null = null;
  const out = name.replace(/\{@([^{}\s]+)\}/gu, (_, label: string) => {
    const id = labels.idOf(label);
    if (id === undefined) unbound ??= label;
    return id ?? "";
  });
  return unbound === null ? ok(out) : refuse("no-such-object", `label @${unbound} is not bound`);
}

function resolveValue(
  node: DirectoryNode,
  labels: Labels,
  value: ValueArg,
  nowMs: number,
): Result<string> {
  return "ref" in value ? resolveRef(node, labels, value.ref, nowMs) : ok(value.literal);
}

function resolveAttributes(
  node: DirectoryNode,
  labels: Labels,
  args: readonly AttributeArg[],
  nowMs: number,
): Result<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const arg of args) {
    const list = out[arg.name] ?? [];
    for (const v of arg.values) {
      const resolved = resolveValue(node, labels, v, nowMs);
      if (!resolved.ok) return resolved;
      list.push(resolved.value);
    }
    out[arg.name] = list;
  }
  return ok(out);
}

/** Runs one scripted op on the node at `nowMs` (the node's wall clock); binds labels on create. */
export function runScriptOp(
  node: DirectoryNode,
  labels: Labels,
  op: ScriptOp,
  nowMs: number,
): Result<unknown> {
  const ref = (r: Ref): Result<Guid> => resolveRef(node, labels, r, nowMs);
  switch (op.verb) {
    case "create":
    case "define":
      return runCreate(node, labels, op, nowMs);
    case "rename": {
      const target = ref(op.target);
      if (!target.ok) return target;
      const name = resolveName(labels, op.name);
      return name.ok ? node.move(target.value, { name: name.value }, nowMs) : name;
    }
    case "move": {
      const target = ref(op.target);
      const parent = ref(op.parent);
      if (!target.ok) return target;
      return parent.ok ? node.move(target.value, { parent: parent.value }, nowMs) : parent;
    }
    case "put": {
      const target = ref(op.target);
      if (!target.ok) return target;
      const values: string[] = [];
      for (const v of op.values) {
        const resolved = resolveValue(node, labels, v, nowMs);
        if (!resolved.ok) return resolved;
        values.push(resolved.value);
      }
      return node.putAttribute(target.value, op.attribute, values, nowMs);
    }
    case "add":
    case "remove":
      return runAddRemove(node, labels, op, nowMs);
    case "meta":
      return runMeta(node, labels, op, nowMs);
    case "delete":
    case "restore":
    case "shred": {
      const target = ref(op.target);
      if (!target.ok) return target;
      if (op.verb === "delete") return node.delete(target.value, nowMs);
      return op.verb === "restore"
        ? node.restore(target.value, nowMs)
        : node.shred(target.value, nowMs);
    }
    case "config": {
      const config = node.dir.landmarks()?.configuration ?? null;
      if (config === null) return refuse("no-root", "no /Configuration yet");
      return node.putAttribute(config, op.attribute, [String(op.seconds)], nowMs);
    }
    case "gc":
      return node.gc(nowMs);
  }
}

function runCreate(
  node: DirectoryNode,
  labels: Labels,
  op: Extract<ScriptOp, { verb: "create" | "define" }>,
  nowMs: number,
): Result<unknown> {
  const parent = resolveRef(node, labels, op.parent, nowMs);
  if (!parent.ok) return parent;
  const attributes = resolveAttributes(node, labels, op.attributes, nowMs);
  if (!attributes.ok) return attributes;
  let className: string;
  if (op.verb === "define") {
    className = definitionClass[op.kind];
    const values = attributes.value;
    if (op.kind !== "namespace") {
      values["lifecycle"] ??= ["active"];
      values["system"] ??= ["false"];
    }
    if (op.kind === "attribute") for (const [k, v] of attributeDefaults) values[k] ??= [v];
  } else {
    className = op.className;
  }
  const name = resolveName(labels, op.name);
  if (!name.ok) return name;
  const made = node.create(
    { parent: parent.value, name: name.value, className, attributes: attributes.value },
    nowMs,
  );
  if (made.ok && op.label !== null) labels.bind(op.label, made.value.id);
  return made;
}

function runAddRemove(
  node: DirectoryNode,
  labels: Labels,
  op: Extract<ScriptOp, { verb: "add" | "remove" }>,
  nowMs: number,
): Result<unknown> {
  const held = heldValueOf(node, labels, op, nowMs);
  if (!held.ok) return held;
  const { id, value, current } = held.value;
  // The other values keep their meta, as a client's read-modify-write does.
  const next = op.verb === "add" ? [...current, { value }] : current.filter((v) => v.value !== value);
  if (op.verb === "add" && current.some((v) => v.value === value)) return ok(null);
  return node.putAttribute(id, op.attribute, next, nowMs);
}

/**
 * What a read-modify-write of one value starts from: the target, the value (a reference
 * resolved to its GUID) and the attribute's present values, each with its meta.
 */
function heldValueOf(
  node: DirectoryNode,
  labels: Labels,
  op: { readonly target: Ref; readonly attribute: string; readonly value: ValueArg },
  nowMs: number,
): Result<{ id: Guid; value: string; current: { value: string; meta?: Meta }[] }> {
  const target = resolveRef(node, labels, op.target, nowMs);
  if (!target.ok) return target;
  const value = resolveValue(node, labels, op.value, nowMs);
  if (!value.ok) return value;
  const record = node.dir.get(target.value);
  if (record === undefined) return refuse("no-such-object", `no object ${target.value}`);
  const name = node.dir.schema.attribute(op.attribute)?.name ?? op.attribute;
  return ok({ id: target.value, value: value.value, current: heldInputs(record, name) });
}

/** The attribute's present values as a write would give them back: each with its meta. */
function heldInputs(record: ObjectRecord, name: string): { value: string; meta?: Meta }[] {
  return presentValues(record, name).flatMap((a) =>
    a.value === null ? [] : [a.meta === null ? { value: a.value } : { value: a.value, meta: a.meta }],
  );
}

function runMeta(
  node: DirectoryNode,
  labels: Labels,
  op: Extract<ScriptOp, { verb: "meta" }>,
  nowMs: number,
): Result<unknown> {
  const held = heldValueOf(node, labels, op, nowMs);
  if (!held.ok) return held;
  const { id, value } = held.value;
  const metaValues: string[] = [];
  for (const v of op.metaValues) {
    const resolved = resolveValue(node, labels, v, nowMs);
    if (!resolved.ok) return resolved;
    metaValues.push(resolved.value);
  }
  const key = node.dir.schema.attribute(op.key)?.name ?? op.key;
  // A value the attribute does not hold yet is added with the meta.
  const current = held.value.current.some((v) => v.value === value) ? held.value.current : [...held.value.current, { value }];
  const next = current.map((v) => {
    if (v.value !== value) return v;
    const meta: Record<string, readonly string[]> = { ...(v.meta ?? {}) };
    delete meta[key];
    if (metaValues.length > 0) meta[key] = metaValues;
    return Object.keys(meta).length === 0 ? { value: v.value } : { value: v.value, meta };
  });
  return node.putAttribute(id, op.attribute, next, nowMs);
}
