import { type Guid, parseGuid } from "../guid";
import { compareCaseless } from "../naming";
import { definitionDisplayName } from "./definition-display-name";
import type { DefinitionInput } from "./definition-input";
import { compareIds, type NormalDefinition, normalizeDefinitions } from "./normalize-definitions";
import { type DefinitionKind, kindOfClassName } from "./parse-definition";

/**
 * SPEC "definition-in-use": deleting a definition is refused while live definitions reference
 * it, and the message names the blockers. This lists them from the stored definitions, not
 * from the compiled schema, because a quarantined definition still waits for what it names:
 * deleting its dependency would turn "waiting" into "never". A definition referring to itself
 * (an attribute legal as its own meta) does not block its own deletion. Objects that use a
 * definition (instances of a class, values of an attribute, attached facets) are the store's
 * to find; this covers definition-to-definition references only.
 */
export type DefinitionDependent = { readonly id: Guid; readonly name: string };

/** Per definition kind, the attributes whose reference values point at other definitions. */
const referenceAttributes: Readonly<Record<DefinitionKind, readonly string[]>> = {
  attribute: ["legalMeta"],
  facet: ["attributes"],
  class: ["facets"],
  extension: ["targetClass", "facets"],
  namespace: [],
};

export function definitionDependents(
  defs: readonly DefinitionInput[],
  id: Guid,
): DefinitionDependent[] {
  const target = parseGuid(id) ?? id;
  const all = normalizeDefinitions(defs);
  const byId = new Map<Guid, NormalDefinition>(all.map((d) => [d.id, d]));
  const dependents: DefinitionDependent[] = [];
  for (const def of all) {
    if (!def.alive || def.id === target) continue;
    if (references(def, target)) {
      dependents.push({ id: def.id, name: definitionDisplayName(byId, def) });
    }
  }
  return dependents.sort((a, b) => compareCaseless(a.name, b.name) || compareIds(a.id, b.id));
}

function references(def: NormalDefinition, target: Guid): boolean {
  if (def.namespaceId === target) return true;
  const kind = kindOfClassName(def.className);
  if (kind === null) return false;
  return referenceAttributes[kind].some((key) =>
    (def.values.get(key) ?? []).some((v) => parseGuid(v.value) === target),
  );
}
