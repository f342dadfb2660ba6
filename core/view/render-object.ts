import { compareCaseless, compareCodePoints } from "../naming";
import { surfaceOf } from "../schema";
import type { ObjectRecord, ValueAtom } from "../store/record";
import { presentValues, residueFloorKey } from "../store/record";
import type { Stamp } from "../store/stamp";
import { msToTimestamp } from "../syntax";
import { isGhost } from "../ops/gates";
import { effectiveStage, observationsHold } from "./aging";
import type { EffectiveView } from "./effective-view";
import type { AttributePayload, ChildSummary, ObjectPayload, StampPayload, ValuePayload } from "./payload-types";
import type { StageObservation } from "./view-cache";
import { deepFreeze } from "./view-cache";

export function renderStamp(stamp: Stamp): StampPayload {
  return {
    version: stamp.version,
    at: msToTimestamp(stamp.atMs),
    origin: stamp.origin,
    cert: { invocation: stamp.cert.invocation, usn: stamp.cert.usn },
    localUsn: stamp.localUsn,
  };
}

/**
 * The object payload of SPEC with every field; repair fields only where they differ. The
 * payload is frozen and shared: it is kept in the node's ViewCache until the directory changes
 * or one of the clock-dependent stages it shows (its own, its references') turns.
 */
export function renderObject(view: EffectiveView, record: ObjectRecord, nowMs: number): ObjectPayload {
  const cache = view.cache();
  const hit = cache.payload(record.id);
  const fresh = hit !== undefined && hit.record === record;
  if (fresh && observationsHold(view.dir, hit.observed, nowMs)) return hit.payload;
  const observed: StageObservation[] = [];
  const payload = deepFreeze(renderFresh(view, record, nowMs, observed));
  cache.rememberPayload({ record, payload, observed });
  return payload;
}

function renderFresh(
  view: EffectiveView,
  record: ObjectRecord,
  nowMs: number,
  observed: StageObservation[],
): ObjectPayload {
  const dir = view.dir;
  const facts = view.of(record);
  const cls = dir.schema.classById(record.existence.classId);
  const stage = effectiveStage(dir, record, nowMs, observed);
  // A tombstone past its restore window shows as the skeleton GC will harden it to (no values,
  // no attached facets), whether or not this node's GC has run since: SPEC's aging past
  // timeUntilShred is "local GC or apply-time aging", and every node shows the same skeleton.
  const skeleton = stage === "shredded";
  const attached = skeleton ? [] : presentValues(record, "attachedFacets").map((a) => a.value ?? "");
  const payload: ObjectPayload = {
    id: record.id,
    parent: record.placement.parent,
    name: record.placement.name,
    class: cls?.name ?? record.existence.className,
    classId: record.existence.classId,
    system: record.existence.system,
    facets: cls === undefined ? [] : [...surfaceOf(dir.schema, cls.name, attached).facets],
    dn: view.dn(record),
    path: view.path(record),
    hasChildren: view.hasAliveChildren(record.id),
    stage: record.existence.stage,
    effectiveStage: stage,
    ghost: isGhost(dir, record),
    existence: renderStamp(record.existence.stamp),
    placement: renderStamp(record.placement.stamp),
    usnChanged: record.usnChanged,
    referencedBy: referencedBy(view, record),
    attributes: skeleton ? [] : renderAttributes(view, record, nowMs, observed),
  };
  return withRepairs(payload, record, facts);
}

function withRepairs(
  payload: ObjectPayload,
  record: ObjectRecord,
  facts: ReturnType<EffectiveView["of"]>,
): ObjectPayload {
  const extra: Record<string, unknown> = {};
  if (facts.conflicted) extra.conflicted = true;
  if (facts.orphaned) extra.orphaned = true;
  if (facts.cycleBroken) extra.cycleBroken = true;
  if (facts.effectiveName !== record.placement.name) extra.effectiveName = facts.effectiveName;
  if (facts.effectiveParent !== record.placement.parent) extra.effectiveParent = facts.effectiveParent;
  return { ...payload, ...extra };
}

function referencedBy(view: EffectiveView, record: ObjectRecord): ObjectPayload["referencedBy"] {
  const out: Array<{ id: string; path: string; attribute: string }> = [];
  for (const ref of view.dir.store.referencedBy(record.id)) {
    const source = view.dir.get(ref.source);
    if (source === undefined || source.existence.stage !== "alive") continue;
    out.push({ id: source.id, path: view.path(source), attribute: ref.attribute });
  }
  return out.sort((a, b) => (a.id !== b.id ? (a.id < b.id ? -1 : 1) : compareCaseless(a.attribute, b.attribute)));
}

function renderAttributes(
  view: EffectiveView,
  record: ObjectRecord,
  nowMs: number,
  observed: StageObservation[],
): AttributePayload[] {
  const out: Array<{ entry: AttributePayload; stored: string }> = [];
  for (const [name, atoms] of record.attrs) {
    const def = view.dir.schema.attribute(name);
    const sorted = [...atoms.values()]
      .filter((a) => a.key !== residueFloorKey)
      .sort((a, b) => compareKeys(a.key, b.key));
    if (sorted.length === 0) continue;
    const values = sorted
      .filter((a) => a.present)
      .map((a) => renderValue(view, a, def?.syntax === "reference", nowMs, observed));
    const absent = sorted
      .filter((a) => !a.present)
      .map((a) => ({ key: a.key, stamp: renderStamp(a.stamp) }));
    const entry: AttributePayload = { name: def?.name ?? name, values };
    out.push({ entry: absent.length > 0 ? { ...entry, absent } : entry, stored: name });
  }
  // Two stored spellings can render under one canonical name (one wire name defined in two
  // casings on two nodes at once: the lowest id wins, values written under the other's
  // spelling stay). Their order is the stored spellings', not the Map's arrival order, so
  // nodes holding the same atoms render the same payload (multi-valued audit, twenty-fifth
  // session).
  out.sort((a, b) => compareCaseless(a.entry.name, b.entry.name) || compareCodePoints(a.stored, b.stored));
  return out.map((o) => o.entry);
}

function renderValue(
  view: EffectiveView,
  atom: ValueAtom,
  isReference: boolean,
  nowMs: number,
  observed: StageObservation[],
): ValuePayload {
  const stamp = renderStamp(atom.stamp);
  const value = atom.value ?? "";
  const meta = atom.meta === null ? {} : { meta: copyMeta(atom.meta) };
  if (!isReference) return { value, ...meta, stamp };
  const target = view.dir.get(value);
  if (target === undefined) return { value, ...meta, refPath: null, refState: "missing", stamp };
  const state = effectiveStage(view.dir, target, nowMs, observed);
  const refPath = state === "alive" ? view.path(target) : null;
  return { value, ...meta, refPath, refState: state, stamp };
}

function copyMeta(meta: Readonly<Record<string, readonly string[]>>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const k of Object.keys(meta).sort()) out[k] = [...(meta[k] ?? [])];
  return out;
}

function compareKeys(a: string | null, b: string | null): number {
  const x = a ?? "";
  const y = b ?? "";
  return x < y ? -1 : x > y ? 1 : 0;
}

export function renderChild(view: EffectiveView, record: ObjectRecord): ChildSummary {
  const facts = view.of(record);
  const cls = view.dir.schema.classById(record.existence.classId);
  return {
    id: record.id,
    name: facts.effectiveName,
    class: cls?.name ?? record.existence.className,
    system: record.existence.system,
    hasChildren: view.hasAliveChildren(record.id),
    ghost: isGhost(view.dir, record),
    conflicted: facts.conflicted,
    orphaned: facts.orphaned,
    cycleBroken: facts.cycleBroken,
  };
}

/**
 * Child summaries in caseless name order; each name is folded once, not per comparison. The
 * listing is frozen (typed mutable for the callers' Result types) and shared: it is kept in
 * the node's ViewCache until the directory changes (it shows no clock-dependent field).
 */
export function renderChildren(view: EffectiveView, parent: ObjectRecord): ChildSummary[] {
  const cache = view.cache();
  const hit = cache.listing(parent.id);
  if (hit !== undefined) return hit;
  const listing = Object.freeze(sortedChildren(view, parent)) as ChildSummary[];
  cache.rememberListing(parent.id, listing);
  return listing;
}

/** Summaries (each frozen: they hold primitives only) by the folded effective name. */
function sortedChildren(view: EffectiveView, parent: ObjectRecord): ChildSummary[] {
  return view
    .aliveChildren(parent.id)
    .map((r) => ({ summary: Object.freeze(renderChild(view, r)), key: view.of(r).foldedName }))
    .sort(
      (a, b) =>
        compareCodePoints(a.key, b.key) ||
        compareCodePoints(a.summary.name, b.summary.name) ||
        (a.summary.id < b.summary.id ? -1 : 1),
    )
    .map((x) => x.summary);
}

