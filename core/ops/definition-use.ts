import type { Directory } from "../directory";
import { definitionClasses } from "../directory";
import { ok, refuse } from "../errors";
import type { Result } from "../errors";
import type { Guid } from "../guid";
import { compileSchema, definitionDependents, surfaceOf } from "../schema";
import type { ObjectRecord } from "../store/record";
import { presentValues } from "../store/record";

const blockersShownMax = 10;

/**
 * The unused-delete rule: a definition may be deleted only when nothing live outside the
 * deleted set still uses it. Refuses with definition-in-use naming the blockers, or with
 * facet-has-values when deleting an extension would strand values.
 */
export function checkDefinitionsRemovable(
  dir: Directory,
  removing: readonly ObjectRecord[],
): Result<null> {
  const removingIds = new Set(removing.map((r) => r.id));
  const defs = removing.filter(
    (r) => definitionClasses.has(r.existence.className) && r.existence.stage === "alive",
  );
  if (defs.length === 0) return ok(null);
  const inputs = dir.definitionInputs();
  const blockers: string[] = [];
  for (const def of defs) {
    for (const dep of definitionDependents(inputs, def.id)) {
      if (!removingIds.has(dep.id)) blockers.push(`definition ${dep.name} (${dep.id})`);
    }
    blockers.push(...objectUsers(dir, def, removingIds));
  }
  if (blockers.length > 0) {
    const shown = [...new Set(blockers)].sort().slice(0, blockersShownMax);
    return refuse("definition-in-use", `still used by: ${shown.join(", ")}`);
  }
  return checkExtensionValues(dir, defs);
}

/**
 * The live objects using `def`. A definition waiting in quarantine is used too: its instances
 * are ghosts here, alive all the same, and values stay under its name (a quarantined class
 * with a live instance was deleted, and its creator could never write the instance again;
 * rollback and schema audit, twenty-sixth session).
 */
function objectUsers(dir: Directory, def: ObjectRecord, removing: ReadonlySet<Guid>): string[] {
  const out: string[] = [];
  const className = def.existence.className;
  // Values are held under the attribute's name, compiled or waiting; instances by class id.
  // A waiting definition whose name a compiled one holds (a duplicate defined on two nodes
  // apart, quarantined for good) holds no values: they are the compiled one's.
  const attributeName =
    className === "attributeDefinition" ? (dir.schema.attributeById(def.id)?.name ?? waitingName(dir, def.id)) : undefined;
  if (className === "facetDefinition") {
    for (const ref of dir.store.referencedBy(def.id)) {
      const source = dir.get(ref.source);
      // A definition naming the facet is listed once, by definitionDependents.
      if (source === undefined || definitionClasses.has(source.existence.className)) continue;
      if (source.existence.stage === "alive" && !removing.has(ref.source)) {
        out.push(`object ${source.placement.name} (${source.id}) via ${ref.attribute}`);
      }
    }
    return out;
  }
  if (className !== "classDefinition" && attributeName === undefined) return out;
  for (const record of dir.store.all()) {
    if (record.existence.stage !== "alive" || removing.has(record.id)) continue;
    const uses =
      attributeName === undefined
        ? record.existence.classId === def.id
        : presentValues(record, attributeName).length > 0;
    if (uses) out.push(`object ${record.placement.name} (${record.id})`);
    if (out.length >= blockersShownMax) break;
  }
  return out;
}

/** The name of a quarantined attribute definition, unless a compiled attribute holds it. */
function waitingName(dir: Directory, id: Guid): string | undefined {
  const name = dir.schema.quarantined.find((q) => q.id === id)?.name;
  return name === undefined || dir.schema.attribute(name) !== undefined ? undefined : name;
}

function checkExtensionValues(dir: Directory, defs: readonly ObjectRecord[]): Result<null> {
  const extensions = defs.filter((d) => d.existence.className === "classExtension");
  if (extensions.length === 0) return ok(null);
  const dead = new Set(extensions.map((e) => e.id));
  const trial = compileSchema(
    dir.definitionInputs().map((i) => (dead.has(i.id) ? { ...i, alive: false } : i)),
  );
  for (const ext of extensions) {
    const compiled = dir.schema.extensionById(ext.id);
    if (compiled === undefined) continue;
    const target = compiled.targetClass;
    for (const record of dir.store.all()) {
      if (record.existence.stage !== "alive") continue;
      if (record.existence.className.toLowerCase() !== target.toLowerCase()) continue;
      const facets = presentValues(record, "attachedFacets").map((a) => a.value ?? "");
      const before = surfaceOf(dir.schema, target, facets).attributes;
      const after = surfaceOf(trial, target, facets).attributes;
      for (const attr of before) {
        if (!after.has(attr) && presentValues(record, attr).length > 0) {
          return refuse(
            "facet-has-values",
            `deleting ${compiled.name} strands ${attr} values on ${record.id}`,
          );
        }
      }
    }
  }
  return ok(null);
}
