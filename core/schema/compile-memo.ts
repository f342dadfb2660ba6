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
 * The schema of the inputs whose key is `key` (see schemaMemoKey); `inputs`
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
 * Content numbers of single inputs (all but `namespaceId`, which comes from the parent record,
 * see schemaMemoKey): equal content, equal number. A number is never reused for other content,
 * so a caller may keep it as long as it likes (Directory keeps it per immutable record); when
 * the table is cleared, content seen again gets a fresh number, which costs a compile, never a
 * wrong schema. Keys of numbers instead of content: hashing ~15 KB keys cost more than the
 * lookups saved.
 */
const contentNumbers = new Map<string, number>();
const contentNumbersMax = 16_384;
let nextContentNumber = 1;

/**
 * The content number of one input. Its content is JSON of the fields in a fixed order, so
 * equal text means equal content. Values keep their stored order: inputs equal up to order get
 * different numbers, which costs a compile, never a wrong schema.
 */
export function definitionContentNumber(input: Omit<DefinitionInput, "namespaceId">): number {
  const text = JSON.stringify([input.id, input.className, input.name, input.alive, input.values]);
  const held = contentNumbers.get(text);
  if (held !== undefined) return held;
  if (contentNumbers.size >= contentNumbersMax) contentNumbers.clear();
  const number = nextContentNumber++;
  contentNumbers.set(text, number);
  return number;
}

/** The memo key of inputs given as (content number, namespace id) pairs, in id order. */
export function schemaMemoKey(parts: readonly (readonly [number, string | null])[]): string {
  let key = "";
  // JSON of the id (a quoted string or null) ends unambiguously, so keys parse back uniquely.
  for (const [number, namespaceId] of parts) key += `${number}${JSON.stringify(namespaceId)},`;
  return key;
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
