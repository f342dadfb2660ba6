import type { Directory } from "../directory";
import { ok, refuse } from "../errors";
import type { Result } from "../errors";
import { fold } from "../naming";
import type { AttributeDef } from "../schema";
import { attachedFacetsAttribute, attributeProviders, surfaceOf } from "../schema";
import type { ObjectRecord } from "../store/record";
import { presentValues } from "../store/record";
import type { NormalizedValue, ValueInput } from "./normalize-values";
import { heldValues, normalizeValues, sameMeta } from "./normalize-values";

export interface PreparedAttribute {
  readonly attr: AttributeDef;
  readonly values: NormalizedValue[];
}

/** Resolves an attribute name caselessly (canonical or wire name; aliases do not count). */
export function resolveAttribute(dir: Directory, name: unknown): Result<AttributeDef> {
  if (typeof name !== "string" || name.length === 0) {
    return refuse("unknown-attribute", `attribute name must be a non-empty string`);
  }
  const attr = dir.schema.attribute(name);
  if (attr === undefined) return refuse("unknown-attribute", `no attribute named ${name}`);
  return ok(attr);
}

/**
 * Validates a set of attribute writes against one object's surface, the surface itself
 * computed after the writes' own attachedFacets (so a create may attach and fill a facet).
 */
export function prepareAttributes(
  dir: Directory,
  className: string,
  current: ObjectRecord | null,
  writes: ReadonlyArray<readonly [string, readonly ValueInput[]]>,
): Result<PreparedAttribute[]> {
  const prepared: PreparedAttribute[] = [];
  const seen = new Set<string>();
  // Built only when an attribute the object does not hold is written (most writes rewrite
  // held ones), once.
  let widest: ReadonlySet<string> | null = null;
  for (const [name, inputs] of writes) {
    const attr = resolveAttribute(dir, name);
    if (!attr.ok) return attr;
    if (seen.has(fold(attr.value.name))) {
      return refuse("duplicate-value", `attribute ${attr.value.name} is given twice`);
    }
    seen.add(fold(attr.value.name));
    const present = current === null ? [] : presentValues(current, attr.value.name);
    // An attribute no attachment of this write could permit is refused before its values are
    // judged: a client fixing a bad value only to learn the attribute was never allowed is
    // sent the wrong way (HTTP audit, twenty-seventh session). Held values are judged below.
    if (present.length === 0 && !(widest ??= widestSurface(dir, className, current, writes)).has(attr.value.name)) {
      return refuse("attribute-not-permitted", `${attr.value.name} is outside the surface of ${className}`);
    }
    const held = heldValues(present, attr.value.matching);
    const values = normalizeValues(dir, attr.value, inputs, held);
    if (!values.ok) return values;
    if (attr.value.name === attachedFacetsAttribute) {
      // A value naming no facet is the attribute's own refusal, judged with its values, before
      // later attributes are judged against the facets it names (an object of another class
      // named there answered attribute-not-permitted for them; attack on the session's fixes).
      // A facet the object already holds attached passes, compiled or not: a reference already
      // held survives rewrites after its target died (a facet deleted on another node while
      // this one attached it refused every later attach as unknown-facet; multi-valued audit,
      // twenty-fifth session, regressions/held-dead-facet-rewrite-scripted).
      const heldFacets = new Set(present.map((a) => a.value ?? ""));
      for (const v of values.value) {
        if (dir.schema.facetById(v.value) === undefined && !heldFacets.has(v.value)) {
          return refuse("unknown-facet", `attachedFacets value ${v.value} is not a facet definition`);
        }
      }
    }
    prepared.push({ attr: attr.value, values: values.value });
  }
  const attached = attachedFacetIds(current, prepared);
  // Only values being written are judged (in the loop above): a stored value naming a facet
  // this node does not (yet, or any more) know contributes nothing to the surface and must not
  // block writes of other attributes (replication may deliver an instance before its facet).
  const written = prepared.find((p) => p.attr.name === attachedFacetsAttribute);
  // With no attachedFacets written, the widest surface is the surface (the same facets).
  const surface = written === undefined && widest !== null ? widest : surfaceOf(dir.schema, className, attached.next).attributes;
  for (const p of prepared) {
    if (!surface.has(p.attr.name) && !onlyHeld(current, p)) {
      return refuse("attribute-not-permitted", `${p.attr.name} is outside the surface of ${className}`);
    }
  }
  if (current !== null) {
    const detached = checkDetach(dir, className, current, attached, prepared);
    if (!detached.ok) return detached;
  }
  return ok(prepared);
}

/**
 * The attributes any outcome of this write could permit: the surface with the facets held
 * attached and every facet id the write's attachedFacets names (as given, before its values
 * are judged).
 */
function widestSurface(
  dir: Directory,
  className: string,
  current: ObjectRecord | null,
  writes: ReadonlyArray<readonly [string, readonly ValueInput[]]>,
): ReadonlySet<string> {
  const ids = current === null ? [] : presentValues(current, attachedFacetsAttribute).map((a) => a.value ?? "");
  for (const [name, inputs] of writes) {
    if (dir.schema.attribute(String(name))?.name !== attachedFacetsAttribute) continue;
    for (const input of inputs) {
      const raw = typeof input === "object" && input !== null && "value" in input ? (input as { value: unknown }).value : input;
      if (typeof raw === "string") ids.push(raw.toLowerCase());
    }
  }
  return surfaceOf(dir.schema, className, ids).attributes;
}

function attachedFacetIds(
  current: ObjectRecord | null,
  prepared: readonly PreparedAttribute[],
): { before: string[]; next: string[] } {
  const before =
    current === null ? [] : presentValues(current, "attachedFacets").map((a) => a.value ?? "");
  const write = prepared.find((p) => p.attr.name === attachedFacetsAttribute);
  const next = write === undefined ? before : write.values.map((v) => v.value);
  return { before, next };
}

/** facet-has-values: a detach may not strand values only the detached facet provided. */
function checkDetach(
  dir: Directory,
  className: string,
  current: ObjectRecord,
  attached: { before: string[]; next: string[] },
  prepared: readonly PreparedAttribute[],
): Result<null> {
  const removed = attached.before.filter((id) => !attached.next.includes(id));
  if (removed.length === 0) return ok(null);
  const after = surfaceOf(dir.schema, className, attached.next).attributes;
  const providers = attributeProviders(dir.schema, className, attached.before);
  for (const attrName of [...providers.keys()].sort()) {
    if (after.has(attrName)) continue;
    const rewritten = prepared.find((p) => p.attr.name === attrName);
    const holds = rewritten !== undefined ? rewritten.values.length > 0 : presentValues(current, attrName).length > 0;
    if (holds) {
      return refuse("facet-has-values", `detaching leaves ${attrName} holding values outside the surface`);
    }
  }
  return ok(null);
}

/**
 * Whether a write keeps or removes values the object holds and adds or changes none. Values
 * outside the surface are held when replication raced a detach (facet-has-values judges only
 * the values the detaching node holds) or a restore brought them back after their facet was
 * deleted; such a write lets them be cleared, where refusing it left them for good
 * (multi-valued audit, twenty-fifth session; regressions/detach-race-values-clearable-scripted).
 */
function onlyHeld(current: ObjectRecord | null, p: PreparedAttribute): boolean {
  const present = current === null ? [] : presentValues(current, p.attr.name);
  if (present.length === 0) return false;
  const held = new Map(present.map((a) => [a.key, a]));
  return p.values.every((v) => {
    const atom = held.get(v.key);
    return atom !== undefined && atom.value === v.value && sameMeta(atom.meta, v.meta);
  });
}
