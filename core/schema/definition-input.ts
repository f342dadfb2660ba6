import type { Guid } from "../guid";

/**
 * One stored attribute value as the store holds it: a canonical string plus optional meta,
 * keyed by canonical attribute wire names (for a facet's `attributes`: `{required: ["true"]}`).
 */
export type DefinitionValue = {
  readonly value: string;
  readonly meta?: Readonly<Record<string, readonly string[]>>;
};

/**
 * A definition object as the compiler sees it: the store hands over every object of a
 * definition class under /Configuration/Schema, tombstones included, and the compiler decides
 * what joins. `values` is keyed by canonical attribute wire name ("syntax", "facets", ...).
 */
export type DefinitionInput = {
  readonly id: Guid;
  /** attributeDefinition, facetDefinition, classDefinition, classExtension, schemaNamespace. */
  readonly className: string;
  /** The bare object name; namespaced definitions get `<Namespace>-<name>` as wire name. */
  readonly name: string;
  /** The parent schemaNamespace's id, or null when flat under /Configuration/Schema. */
  readonly namespaceId: Guid | null;
  /** False for a tombstone (deleted or shredded): it compiles out, and so do references to it. */
  readonly alive: boolean;
  readonly values: Readonly<Record<string, readonly DefinitionValue[]>>;
};
