import type { EntryParser } from "../../core/node/persistence";

/**
 * A memo of the parsed JSON of persisted non-object entries (journal records, vector entries,
 * node meta) for boots: every boot of a simulated node parsed the same ~130 small texts again
 * (a journal record never changes, and most vector entries do not between two restarts).
 * Entries are found by store key and hit only on equal text, so a hit is a value equal to what
 * JSON.parse returns; it is deep-frozen, because later boots hand out the very same object
 * (code that mutated one would throw instead of changing another boot's state). Bounded: past
 * `max` keys the memo starts over (a pure cache; no effect on what a run does).
 */
export class JsonMemo {
  private readonly byKey = new Map<string, { readonly text: string; readonly value: unknown }>();

  constructor(private readonly max = 50_000) {}

  readonly parse: EntryParser = (text, key) => {
    const held = this.byKey.get(key);
    if (held !== undefined && held.text === text) return held.value;
    if (held === undefined && this.byKey.size >= this.max) this.byKey.clear();
    const value = deepFreeze(JSON.parse(text) as unknown);
    this.byKey.set(key, { text, value });
    return value;
  };

  get size(): number {
    return this.byKey.size;
  }
}

/** Freezes a JSON value and everything in it (JSON values are trees: no cycles). */
function deepFreeze(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}
