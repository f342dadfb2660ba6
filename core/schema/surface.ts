import { assert } from "../assert";
import { type Guid, parseGuid } from "../guid";
import { compareCaseless } from "../naming";
import type { CompiledSchema, FacetDef } from "./compiled-schema";

/**
 * The surface of an object: the facets it effectively carries and the attributes they permit.
 * SPEC: class facets, plus facets added by extensions targeting the class, plus facets attached
 * to the instance through `attachedFacets`, which itself is legal on every object.
 * Facets are named once however many routes lead to them. Attached ids that are not joined
 * facets (not yet arrived, quarantined, deleted) contribute nothing: the schema decides, not
 * the stored value. An unknown class (a ghost) contributes no class facets.
 */
export const attachedFacetsAttribute = "attachedFacets";

export type Surface = {
  /** Effective facet names, sorted caselessly. */
  readonly facets: readonly string[];
  /** Canonical wire names of every permitted attribute, `attachedFacets` included. */
  readonly attributes: ReadonlySet<string>;
};

export function surfaceOf(
  schema: CompiledSchema,
  className: string,
  attachedFacetIds: readonly Guid[],
): Surface {
  const facets = effectiveFacets(schema, className, attachedFacetIds);
  const attributes = new Set<string>([attachedFacetsAttribute]);
  for (const f of facets) for (const m of f.attributes) attributes.add(m.name);
  return { facets: facets.map((f) => f.name), attributes };
}

/**
 * For each attribute on the surface (except `attachedFacets`, which no facet provides), the
 * sorted names of the effective facets that carry it. An attribute whose only provider is F
 * leaves the surface when F does, provided F is not reached by another route: callers deciding
 * `facet-has-values` should compare surfaces with `surfaceLoss`, which accounts for that.
 */
export function attributeProviders(
  schema: CompiledSchema,
  className: string,
  attachedFacetIds: readonly Guid[],
): Map<string, string[]> {
  const providers = new Map<string, string[]>();
  for (const f of effectiveFacets(schema, className, attachedFacetIds)) {
    for (const m of f.attributes) {
      providers.set(m.name, [...(providers.get(m.name) ?? []), f.name]);
    }
  }
  const sorted = new Map<string, string[]>();
  for (const name of [...providers.keys()].sort(compareCaseless)) {
    sorted.set(name, [...(providers.get(name) ?? [])].sort(compareCaseless));
  }
  return sorted;
}

/**
 * Attributes permitted before a change and not after, sorted: the attributes "exclusively
 * provided" by whatever the change removed (a detached facet, or a deleted extension when
 * `after` is the trial schema without it). Works across two schemas because it compares names.
 */
export function surfaceLoss(
  before: { schema: CompiledSchema; attachedFacetIds: readonly Guid[] },
  after: { schema: CompiledSchema; attachedFacetIds: readonly Guid[] },
  className: string,
): string[] {
  const was = surfaceOf(before.schema, className, before.attachedFacetIds).attributes;
  const is = surfaceOf(after.schema, className, after.attachedFacetIds).attributes;
  return [...was].filter((a) => !is.has(a)).sort(compareCaseless);
}

function effectiveFacets(
  schema: CompiledSchema,
  className: string,
  attachedFacetIds: readonly Guid[],
): FacetDef[] {
  const byName = new Map<string, FacetDef>();
  const add = (f: FacetDef | undefined): void => {
    if (f !== undefined) byName.set(f.name, f);
  };
  const cls = schema.class(className);
  if (cls !== undefined) {
    for (const name of cls.facets) add(schema.facet(name));
    for (const e of schema.extensionsOf(cls.name)) {
      for (const name of e.facets) add(schema.facet(name));
    }
  }
  for (const id of attachedFacetIds) add(schema.facetById(parseGuid(id) ?? id));
  const facets = [...byName.values()].sort((a, b) => compareCaseless(a.name, b.name));
  assert(new Set(facets.map((f) => f.name)).size === facets.length, "facets named once");
  return facets;
}
