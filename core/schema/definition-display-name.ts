import type { Guid } from "../guid";
import { wireName } from "../naming";
import type { NormalDefinition } from "./normalize-definitions";
import { kindOfClassName } from "./parse-definition";

/**
 * The name a definition is reported under (quarantine entries, definition-in-use blockers):
 * its wire name as far as it is known. A namespaced definition whose namespace object is not
 * present is reported under its bare name, since the namespace's name is unknown.
 */
export function definitionDisplayName(
  byId: ReadonlyMap<Guid, NormalDefinition>,
  def: NormalDefinition,
): string {
  if (def.namespaceId === null || kindOfClassName(def.className) === "namespace") return def.name;
  const ns = byId.get(def.namespaceId);
  return ns === undefined ? def.name : wireName(ns.name, def.name);
}
