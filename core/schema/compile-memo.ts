import { assert } from "../assert";
import { compileSchema } from "./compile";
import type { CompiledSchema } from "./compiled-schema";
import type { DefinitionInput } from "./definition-input";

/**
 * Compiled schemas by the content of their definition inputs. Every boot compiles the schema
 * again, and so does every node that replicates the same definitions: in the simulator the same
 * few definition sets were compiled over and over (~1,200 compiles of ~110 distinct sets in 8
 * standard seeds). compileSchema is a pure function of its inputs' content, so a schema
 * compiled from inputs with the same canonical key is exactly what compiling them again would
 * return.
 *
 * Sharing one schema between directories is safe only because it is immutable: every schema
 * the memo hands out is deep-frozen, so a writer that mutated one would throw instead of
 * silently changing another node's schema. Bounded: past `maxEntries` the memo starts over
 * (a pure cache; no effect on what a run does).
 */
const maxEntries = 64;
const memo = new Map<string, CompiledSchema>();

/**
 * The schema of the inputs whose canonical key is `key` (see definitionKeyPart); `inputs`
 * builds them, and is called only on a miss.
 */
export function compileSchemaMemo(key: string, inputs: () => DefinitionInput[]): CompiledSchema {
  const held = memo.get(key);
  if (held !== undefined) return held;
  if (memo.size >= maxEntries) memo.clear();
  const schema = deepFreeze(compileSchema(inputs()));
  memo.set(key, schema);
  return schema;
}

/**
 * One input's part of a memo key, everything but `namespaceId` (which comes from the parent
 * record, see schemaMemoKey): JSON of the fields in a fixed order, so equal parts mean equal
 * content. Values keep their stored order; inputs equal up to order get different keys, which
 * costs a compile, never a wrong schema.
 */
export function definitionKeyPart(input: Omit<DefinitionInput, "namespaceId">): string {
  return JSON.stringify([input.id, input.className, input.name, input.alive, input.values]);
}

/** The memo key of inputs given as (key part, namespace id) pairs, in id order. */
export function schemaMemoKey(parts: readonly (readonly [string, string | null])[]): string {
  let key = "[";
  for (let i = 0; i < parts.length; i++) {
    const [part, namespaceId] = parts[i]!;
    key += `${i === 0 ? "" : ","}[${part},${JSON.stringify(namespaceId)}]`;
  }
  return `${key}]`;
}

/** Freezes the schema, its arrays and their rows (all plain data) in place. */
function deepFreeze(schema: CompiledSchema): CompiledSchema {
  const freeze = (value: unknown): void => {
    if (typeof value !== "object" || value === null || Object.isFrozen(value)) return;
    Object.freeze(value);
    for (const inner of Object.values(value)) freeze(inner);
  };
  freeze(schema);
  assert(Object.isFrozen(schema.attributes), "a shared schema is frozen");
  return schema;
}
