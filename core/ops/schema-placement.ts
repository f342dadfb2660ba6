import type { Directory } from "../directory";
import { definitionClasses } from "../directory";
import { ok, refuse } from "../errors";
import type { Result } from "../errors";
import type { Guid } from "../guid";
import { validateDefinitionName, validateNamespaceName } from "../naming";
import { onStoredChain } from "./stored-chain";

/**
 * Which class may live where in and around the schema subtree. Namespaces live directly under
 * /Configuration/Schema; new definitions live under a namespace (the unprefixed space directly
 * under /Configuration/Schema is reserved for the base definitions, which the engine mints);
 * nothing else lives in the schema subtree and no definition lives outside it.
 */
export function checkSchemaPlacement(
  dir: Directory,
  parentId: Guid,
  className: string,
  name: string,
): Result<null> {
  const schemaId = dir.landmarks()?.schema ?? null;
  const parent = dir.get(parentId);
  const parentClass = parent?.existence.className ?? "";
  const isDefinition = definitionClasses.has(className);
  if (parentId === schemaId) {
    if (className !== "schemaNamespace") {
      return refuse(
        "invalid-schema-placement",
        `only schemaNamespace objects may be created directly under /Configuration/Schema`,
      );
    }
    const named = validateNamespaceName(name);
    return named.ok ? ok(null) : named;
  }
  if (parentClass === "schemaNamespace") {
    if (!isDefinition || className === "schemaNamespace") {
      return refuse(
        "invalid-schema-placement",
        `a schemaNamespace holds attribute, facet, class and extension definitions only`,
      );
    }
    const named = validateDefinitionName(name);
    return named.ok ? ok(null) : named;
  }
  if (definitionClasses.has(parentClass)) {
    return refuse("invalid-schema-placement", `schema definitions have no children`);
  }
  if (isDefinition) {
    return refuse(
      "invalid-schema-placement",
      className === "schemaNamespace"
        ? "schemaNamespace objects live directly under /Configuration/Schema"
        : `${className} objects live under a schemaNamespace in /Configuration/Schema`,
    );
  }
  return ok(null);
}

/** True when `id` is /Configuration/Schema or inside it (by stored parents). */
export function inSchemaSubtree(dir: Directory, id: Guid): boolean {
  const schemaId = dir.landmarks()?.schema ?? null;
  return schemaId !== null && onStoredChain(dir, id, schemaId);
}
