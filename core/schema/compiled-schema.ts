import { assert } from "../assert";
import type { Guid } from "../guid";
import { compareCodePoints, fold } from "../naming";
import type { Matching, Syntax } from "../syntax";

/**
 * The compiled schema: what every validation, surface and payload question is answered from.
 * The record types mirror SPEC's "Schema attribute/facet/class/extension" and "Quarantined
 * definition" shapes field for field, so GET /api/schema can render the arrays as they are.
 * Every name is a canonical wire name; references between definitions are by name because
 * names are unique among joined definitions (the compiler resolves duplicates).
 */
export type AttributeDef = {
  readonly id: Guid;
  readonly name: string;
  readonly syntax: Syntax;
  readonly singleValued: boolean;
  readonly matching: Matching;
  /** Recorded, sorted caselessly, never used for lookup (SPEC naming rules). */
  readonly aliases: readonly string[];
  /** Wire names of the attributes legal as meta keys on this attribute's values. */
  readonly legalMeta: readonly string[];
};

export type FacetMember = { readonly name: string; readonly required: boolean };

export type FacetDef = {
  readonly id: Guid;
  readonly name: string;
  readonly attributes: readonly FacetMember[];
};

export type ClassDef = {
  readonly id: Guid;
  readonly name: string;
  readonly dnPrefix: string | null;
  readonly instantiable: boolean;
  readonly facets: readonly string[];
};

export type ExtensionDef = {
  readonly id: Guid;
  readonly name: string;
  readonly targetClass: string;
  readonly facets: readonly string[];
};

export type NamespaceDef = { readonly id: Guid; readonly name: string };

export type Quarantined = { readonly id: Guid; readonly name: string; readonly reason: string };

export type CompiledSchema = {
  /** Sorted by name in caseless order (SPEC: GET /api/schema arrays are sorted by name). */
  readonly attributes: readonly AttributeDef[];
  readonly facets: readonly FacetDef[];
  readonly classes: readonly ClassDef[];
  readonly extensions: readonly ExtensionDef[];
  readonly namespaces: readonly NamespaceDef[];
  /** Sorted by name, then id (quarantined names need not be unique). */
  readonly quarantined: readonly Quarantined[];
  /** Caseless lookup by canonical wire name; aliases are not names. */
  attribute(name: string): AttributeDef | undefined;
  attributeById(id: Guid): AttributeDef | undefined;
  facet(name: string): FacetDef | undefined;
  facetById(id: Guid): FacetDef | undefined;
  class(name: string): ClassDef | undefined;
  classById(id: Guid): ClassDef | undefined;
  extension(name: string): ExtensionDef | undefined;
  extensionById(id: Guid): ExtensionDef | undefined;
  namespace(name: string): NamespaceDef | undefined;
  namespaceById(id: Guid): NamespaceDef | undefined;
  /** Extensions whose target is the named class (caseless), sorted by name. */
  extensionsOf(className: string): readonly ExtensionDef[];
  /** True when `id` is a joined definition of any kind: alive and not quarantined. */
  isDefinitionLive(id: Guid): boolean;
};

export type SchemaParts = {
  readonly attributes: readonly AttributeDef[];
  readonly facets: readonly FacetDef[];
  readonly classes: readonly ClassDef[];
  readonly extensions: readonly ExtensionDef[];
  readonly namespaces: readonly NamespaceDef[];
  readonly quarantined: readonly Quarantined[];
};

type Named = { readonly id: Guid; readonly name: string };

/**
 * Caseless name order (compareCaseless), then id. Each name is folded once up front: folding
 * inside the comparator would repeat the NFD work O(n log n) times on large schemas.
 */
export function sortByName<T extends Named>(rows: readonly T[]): T[] {
  const keyed = rows.map((row) => ({ row, key: fold(row.name) }));
  keyed.sort(
    (a, b) =>
      compareCodePoints(a.key, b.key) ||
      compareCodePoints(a.row.name, b.row.name) ||
      compareCodePoints(a.row.id, b.row.id),
  );
  return keyed.map((k) => k.row);
}

/** Strings in compareCaseless order, each folded once. */
export function sortCaseless(names: readonly string[]): string[] {
  return sortByName(names.map((name) => ({ id: "", name }))).map((n) => n.name);
}

/** Sorts and indexes compiled parts. Joined names must be caselessly unique per kind. */
export function makeCompiledSchema(parts: SchemaParts): CompiledSchema {
  const attributes = sortByName(parts.attributes);
  const facets = sortByName(parts.facets);
  const classes = sortByName(parts.classes);
  const extensions = sortByName(parts.extensions);
  const namespaces = sortByName(parts.namespaces);
  const quarantined = sortByName(parts.quarantined);
  const attributeIndex = index(attributes);
  const facetIndex = index(facets);
  const classIndex = index(classes);
  const extensionIndex = index(extensions);
  const namespaceIndex = index(namespaces);
  const extensionsByTarget = new Map<string, ExtensionDef[]>();
  for (const e of extensions) {
    const key = fold(e.targetClass);
    assert(classIndex.byName.has(key), `extension ${e.name} targets a joined class`);
    extensionsByTarget.set(key, [...(extensionsByTarget.get(key) ?? []), e]);
  }
  const live = new Set<Guid>();
  for (const i of [attributeIndex, facetIndex, classIndex, extensionIndex, namespaceIndex]) {
    for (const id of i.byId.keys()) {
      assert(!live.has(id), `definition ${id} joined once`);
      live.add(id);
    }
  }
  for (const q of quarantined) assert(!live.has(q.id), `quarantined ${q.id} is not joined`);
  return {
    attributes,
    facets,
    classes,
    extensions,
    namespaces,
    quarantined,
    attribute: (name) => attributeIndex.byName.get(fold(name)),
    attributeById: (id) => attributeIndex.byId.get(id),
    facet: (name) => facetIndex.byName.get(fold(name)),
    facetById: (id) => facetIndex.byId.get(id),
    class: (name) => classIndex.byName.get(fold(name)),
    classById: (id) => classIndex.byId.get(id),
    extension: (name) => extensionIndex.byName.get(fold(name)),
    extensionById: (id) => extensionIndex.byId.get(id),
    namespace: (name) => namespaceIndex.byName.get(fold(name)),
    namespaceById: (id) => namespaceIndex.byId.get(id),
    extensionsOf: (className) => extensionsByTarget.get(fold(className)) ?? [],
    isDefinitionLive: (id) => live.has(id),
  };
}

type Index<T> = { byName: Map<string, T>; byId: Map<Guid, T> };

function index<T extends Named>(rows: readonly T[]): Index<T> {
  const byName = new Map<string, T>();
  const byId = new Map<Guid, T>();
  for (const row of rows) {
    const key = fold(row.name);
    assert(!byName.has(key), `joined name ${row.name} is caselessly unique`);
    assert(!byId.has(row.id), `joined id ${row.id} is unique`);
    byName.set(key, row);
    byId.set(row.id, row);
  }
  return { byName, byId };
}
