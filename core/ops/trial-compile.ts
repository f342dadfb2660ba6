import type { Directory } from "../directory";
import { valuesOf } from "../directory";
import { ok, refuse } from "../errors";
import type { Result } from "../errors";
import type { Guid } from "../guid";
import { compileSchema } from "../schema";
import type { DefinitionInput } from "../schema";
import type { NormalizedValue } from "./normalize-values";

export interface DefinitionDraft {
  readonly id: Guid;
  readonly className: string;
  readonly name: string;
  readonly parent: Guid;
  readonly attributes: ReadonlyArray<readonly [string, readonly NormalizedValue[]]>;
}

/**
 * Originating schema writes are strictly gated: compile the schema with the new definition
 * and refuse (schema-violation, carrying the compiler's reason) if the quarantine would grow.
 * Definitions must be born complete; only replication may deliver them out of order.
 */
export function trialCompile(dir: Directory, draft: DefinitionDraft): Result<null> {
  const parent = dir.get(draft.parent);
  const values: ReturnType<typeof valuesOf> = {};
  for (const [name, list] of draft.attributes) {
    if (list.length === 0) continue;
    values[name] = list.map((v) =>
      v.meta === null ? { value: v.value } : { value: v.value, meta: copy(v.meta) },
    );
  }
  const input = {
    id: draft.id,
    className: draft.className,
    name: draft.name,
    namespaceId: parent?.existence.className === "schemaNamespace" ? draft.parent : null,
    alive: true,
    values,
  };
  return refuseIfQuarantineGrows(dir, dir.definitionInputs([input]));
}

/**
 * Restore brings tombstoned definitions back to life, which is an originating schema write
 * too: a restored extension whose target class is still deleted would be quarantined. Compile
 * with the restored definitions alive and refuse if the quarantine would grow.
 */
export function trialRevive(dir: Directory, ids: ReadonlySet<Guid>): Result<null> {
  const inputs = dir.definitionInputs();
  if (!inputs.some((i) => ids.has(i.id))) return ok(null);
  return refuseIfQuarantineGrows(
    dir,
    inputs.map((i) => (ids.has(i.id) ? { ...i, alive: true } : i)),
  );
}

function refuseIfQuarantineGrows(dir: Directory, inputs: readonly DefinitionInput[]): Result<null> {
  const before = new Set(dir.schema.quarantined.map((q) => q.id));
  const trial = compileSchema(inputs);
  const grown = trial.quarantined.filter((q) => !before.has(q.id));
  if (grown.length > 0) {
    const reasons = grown.map((q) => `${q.name}: ${q.reason}`).join("; ");
    return refuse("schema-violation", `the definition would not compile: ${reasons}`);
  }
  return ok(null);
}

function copy(meta: Readonly<Record<string, readonly string[]>>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(meta)) out[k] = [...v];
  return out;
}
