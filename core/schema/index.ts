/** Schema: the base definitions as data, the compiler, surfaces and definition dependents. */
export {
  type BaseAttribute,
  type BaseFacet,
  type BaseClass,
  type BaseDefinitionObject,
  baseAttributes,
  baseFacets,
  baseClasses,
  baseDefinitionObjects,
  definitionClassNames,
  activeLifecycle,
} from "./base-schema";
export type {
  AttributeDef,
  FacetMember,
  FacetDef,
  ClassDef,
  ExtensionDef,
  NamespaceDef,
  Quarantined,
  CompiledSchema,
} from "./compiled-schema";
export type { DefinitionInput, DefinitionValue } from "./definition-input";
export { compileSchema } from "./compile";
export {
  type Surface,
  surfaceOf,
  attributeProviders,
  surfaceLoss,
  attachedFacetsAttribute,
} from "./surface";
export { type DefinitionDependent, definitionDependents } from "./dependents";
