import type { Guid } from "../../core/guid";
import type { DirectoryNode } from "../../core/node/directory-node";
import { isGhost } from "../../core/ops/gates";
import type { ObjectRecord } from "../../core/store/record";
import { presentValues } from "../../core/store/record";
import { EffectiveView } from "../../core/view/effective-view";
import type { DirectoryHost } from "../directory/directory-host";
import { resolveName, type Labels } from "../directory/run-script-op";
import type { Ref, ValueArg } from "../directory/script-op";
import { refText } from "../directory/script-op";
import { expectationText } from "./print-scenario";
import type { ExpectCheck, Expectation } from "./scenario";

/**
 * Scenario expectations beyond the oracles, judged at the end of a run on the nodes that must
 * converge (or those an `on` clause names). Some need the run's history (a quarantine or a
 * ghost seen on the way): Probes watches for those after every event, at a few reads each.
 */

export class Probes {
  readonly quarantineSeen = new Set<string>();
  readonly ghostSeen = new Set<string>();
  private readonly watchQuarantine: string[] = [];
  private readonly watchGhost: Array<{ node: string; label: string }> = [];

  constructor(
    expects: readonly Expectation[],
    private readonly labels: Labels,
  ) {
    for (const e of expects) {
      if (e.check.kind === "quarantine-seen") this.watchQuarantine.push(e.check.node);
      if (e.check.kind === "ghost-seen" && "label" in e.check.ref) {
        this.watchGhost.push({ node: e.check.node, label: e.check.ref.label });
      }
    }
  }

  get idle(): boolean {
    return this.watchQuarantine.length === 0 && this.watchGhost.length === 0;
  }

  observe(hosts: ReadonlyMap<string, DirectoryHost>): void {
    for (const id of this.watchQuarantine) {
      const node = hosts.get(id)?.node;
      if (node && node.dir.schema.quarantined.length > 0) this.quarantineSeen.add(id);
    }
    for (const w of this.watchGhost) {
      const node = hosts.get(w.node)?.node;
      const guid = this.labels.idOf(w.label);
      const record = guid === undefined ? undefined : node?.dir.get(guid);
      if (node && record && isGhost(node.dir, record)) this.ghostSeen.add(`${w.node} ${w.label}`);
    }
  }
}

export interface ExpectContext {
  readonly nodes: ReadonlyMap<string, DirectoryNode>;
  readonly hosts: ReadonlyMap<string, DirectoryHost>;
  /** The nodes that must converge: the default subject of a check. */
  readonly judged: readonly string[];
  readonly labels: Labels;
  readonly probes: Probes;
}

/** Violations of one expectation (empty when it holds). */
export function checkExpectation(e: Expectation, ctx: ExpectContext): string[] {
  // The violation is listed under the oracle `expect` (final-checks.ts): the check's own text
  // follows it, without the word again.
  const what = `${expectationText(e)} (line ${e.line})`;
  const check = e.check;
  if ("node" in check) return nodeCheck(check, ctx).map((m) => `${what}: ${m}`);
  const out: string[] = [];
  for (const simId of e.on ?? ctx.judged) {
    const node = ctx.nodes.get(simId);
    if (node === undefined) {
      out.push(`${what}: ${simId} is not running`);
      continue;
    }
    for (const m of objectCheck(check, node, ctx.labels, ctx.nodes)) out.push(`${what}: on ${simId}: ${m}`);
  }
  return out;
}

function nodeCheck(check: Extract<ExpectCheck, { node: string }>, ctx: ExpectContext): string[] {
  const node = ctx.nodes.get(check.node);
  if (node === undefined) return [`${check.node} is not running`];
  const has = (kind: string): boolean => node.journal().some((r) => r.kind === kind);
  switch (check.kind) {
    case "journal":
      return has(check.journalKind) ? [] : [`no ${check.journalKind} record in the journal`];
    case "no-journal":
      return has(check.journalKind) ? [`the journal holds ${check.journalKind}`] : [];
    case "latched-then-healed": {
      const out: string[] = [];
      if (ctx.hosts.get(check.node)?.latchSeen !== true) out.push("never seen rollback-latched");
      if (node.dir.rollbackLatched) out.push("still latched");
      if (!has("rollback-detected")) out.push("no rollback-detected in the journal");
      if (!has("rollback-healed")) out.push("no rollback-healed in the journal");
      return out;
    }
    case "quarantine-seen":
      return ctx.probes.quarantineSeen.has(check.node) ? [] : ["quarantine never seen non-empty"];
    case "refused": {
      // The refusal is journaled once per episode, naming the partner (core/repl/replicator.ts):
      // "partner S ..." where this node refused to pull, "refused by source S: ..." where S
      // refused to answer; "answer refused: partner S ..." is the other direction.
      const source = ctx.nodes.get(check.source)?.dir.nodeId;
      if (source === undefined) return [`${check.source} is not running`];
      const refused = node
        .journal()
        .some(
          (r) =>
            r.kind === "pull-refused" &&
            (r.detail.startsWith(`partner ${source} `) || r.detail.startsWith(`refused by source ${source}:`)),
        );
      return refused ? [] : [`no pull-refused record naming ${check.source} in the journal`];
    }
    case "ghost-seen": {
      const label = "label" in check.ref ? check.ref.label : "";
      return ctx.probes.ghostSeen.has(`${check.node} ${label}`)
        ? []
        : [`${refText(check.ref)} never seen as a ghost`];
    }
  }
}

function resolve(node: DirectoryNode, labels: Labels, ref: Ref): Guid | null {
  if ("label" in ref) return labels.idOf(ref.label) ?? null;
  const path = resolveName(labels, ref.path);
  if (!path.ok) return null;
  const found = new EffectiveView(node.dir).resolve(path.value.split("/").filter((s) => s !== ""));
  return found.ok ? found.value.id : null;
}

function alive(node: DirectoryNode, labels: Labels, ref: Ref): ObjectRecord | string {
  const id = resolve(node, labels, ref);
  if (id === null) return `${refText(ref)} does not resolve`;
  const r = node.dir.get(id);
  if (r === undefined || r.existence.stage !== "alive") return `${refText(ref)} is not alive`;
  return r;
}

function objectCheck(
  check: Exclude<ExpectCheck, { node: string }>,
  node: DirectoryNode,
  labels: Labels,
  nodes: ExpectContext["nodes"],
): string[] {
  const view = new EffectiveView(node.dir);
  switch (check.kind) {
    case "cnf":
      return cnfCheck(
        view,
        check.refs.map((r) => alive(node, labels, r)),
      );
    case "cycle-broken":
      return cycleCheck(
        view,
        check.refs.map((r) => alive(node, labels, r)),
      );
    case "orphaned": {
      const r = alive(node, labels, check.ref);
      if (typeof r === "string") return [r];
      const f = view.of(r);
      const lf = node.dir.landmarks()?.lostAndFound ?? null;
      if (!f.orphaned || f.effectiveParent !== lf)
        return [`${r.id} is not an orphan under /LostAndFound (path ${view.path(r)})`];
      if (!view.path(r).startsWith("/LostAndFound/")) return [`path ${view.path(r)}`];
      return listedCheck(node, view, r);
    }
    case "values":
      return valuesCheck(node, labels, check.ref, check.attribute, check.values, nodes);
    case "stage": {
      // A label its step never bound (the step failed, `-> any`) resolves to nothing, and
      // `stage @L absent` held of it vacuously (liveness audit, twenty-eighth session).
      if ("label" in check.ref && labels.idOf(check.ref.label) === undefined) {
        return [`${refText(check.ref)} was never bound: the step that names it did not create it`];
      }
      const id = resolve(node, labels, check.ref);
      const r = id === null ? undefined : node.dir.get(id);
      const stage = r === undefined ? "absent" : r.existence.stage;
      return stage === check.stage ? [] : [`${refText(check.ref)} is ${stage}`];
    }
    case "path": {
      const r = alive(node, labels, check.ref);
      if (typeof r === "string") return [r];
      // The expected path may name objects after labels' GUIDs (`{@L}`), as scripted names may.
      const expected = resolveName(labels, check.path);
      if (!expected.ok) return [expected.message];
      const path = view.path(r);
      return path === expected.value ? listedCheck(node, view, r) : [`path is ${path}`];
    }
  }
}

/** What a user sees: the object is in its effective parent's child listing. */
function listedCheck(node: DirectoryNode, view: EffectiveView, r: ObjectRecord): string[] {
  const parent = view.of(r).effectiveParent;
  if (parent === null) return [];
  const listed = node.children(parent);
  if (!listed.ok) return [`the effective parent of ${r.id} lists nothing: ${listed.code}`];
  return listed.value.some((c) => c.id === r.id)
    ? []
    : [`${r.id} is not listed under its effective parent ${view.path(node.dir.get(parent) ?? r)}`];
}

/** Earliest placement claim first, as the view decides contested names. */
function earlier(a: ObjectRecord, b: ObjectRecord): boolean {
  const x = a.placement.stamp;
  const y = b.placement.stamp;
  if (x.atMs !== y.atMs) return x.atMs < y.atMs;
  if (x.origin !== y.origin) return x.origin < y.origin;
  return a.id < b.id;
}

function cnfCheck(view: EffectiveView, found: Array<ObjectRecord | string>): string[] {
  const errors = found.filter((f): f is string => typeof f === "string");
  if (errors.length > 0) return errors;
  const records = found as ObjectRecord[];
  const keeper = records.reduce((a, b) => (earlier(b, a) ? b : a));
  const out: string[] = [];
  for (const r of records) {
    const f = view.of(r);
    if (r === keeper) {
      if (f.conflicted || f.effectiveName !== r.placement.name)
        out.push(`the earliest claim ${r.id} lost its name (${f.effectiveName})`);
    } else if (!f.conflicted || !f.effectiveName.startsWith(`${r.placement.name} CNF:${r.id}`)) {
      out.push(
        `${r.id} should show "${r.placement.name} CNF:${r.id}", shows ${JSON.stringify(f.effectiveName)}`,
      );
    }
  }
  return out;
}

function cycleCheck(view: EffectiveView, found: Array<ObjectRecord | string>): string[] {
  const errors = found.filter((f): f is string => typeof f === "string");
  if (errors.length > 0) return errors;
  const records = found as ObjectRecord[];
  const latest = records.reduce((a, b) => (earlier(a, b) ? b : a));
  const lf = view.dir.landmarks()?.lostAndFound ?? null;
  const out: string[] = [];
  for (const r of records) {
    const f = view.of(r);
    if (r === latest && !(f.cycleBroken && f.effectiveParent === lf))
      out.push(`the latest claim ${r.id} is not broken off to /LostAndFound`);
    if (r !== latest && (f.cycleBroken || f.orphaned))
      out.push(`${r.id} is repaired too (${view.path(r)})`);
  }
  return out;
}

function valuesCheck(
  node: DirectoryNode,
  labels: Labels,
  ref: Ref,
  attribute: string,
  expected: readonly ValueArg[],
  nodes: ExpectContext["nodes"],
): string[] {
  const id = resolve(node, labels, ref);
  const r = id === null ? undefined : node.dir.get(id);
  if (r === undefined) return [`${refText(ref)} does not resolve`];
  const defined = node.dir.schema.attribute(attribute);
  // A misspelt attribute holds no values: `values @R descripton` held vacuously (same audit).
  // Judged against every running node's schema: a definition deleted here, or not arrived,
  // may be the point of the check.
  const known = (n: DirectoryNode): boolean => n.dir.schema.attribute(attribute) !== undefined;
  if (defined === undefined && !r.attrs.has(attribute) && ![...nodes.values()].some(known)) {
    return [`no attribute ${attribute} in any node's schema, nor held by ${refText(ref)}`];
  }
  const name = defined?.name ?? attribute;
  const held = presentValues(r, name)
    .flatMap((a) => (a.value === null ? [] : [a.value]))
    .sort();
  const want = expected
    .map((v) => ("ref" in v ? (resolve(node, labels, v.ref) ?? `<${refText(v.ref)}>`) : v.literal))
    .sort();
  return JSON.stringify(held) === JSON.stringify(want)
    ? []
    : [`${name} holds ${JSON.stringify(held)}, expected ${JSON.stringify(want)}`];
}
