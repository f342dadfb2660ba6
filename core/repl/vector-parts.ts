import type { UtdVector } from "./messages";

export type VectorEntry = UtdVector[string];
export type VectorEntries = ReadonlyArray<readonly [string, VectorEntry]>;

/**
 * How a vector this process built is made: the sender's stored entries (an array shared by
 * every vector built from the same stored vector, never changed) and its own current entry,
 * which wins over a stored entry of the same invocation, as the object's property does.
 * Receivers iterate these instead of the vector object: a vector holds an entry per boot of
 * every node (~100), and enumerating or probing a dictionary-mode object of that size per
 * message cost several microseconds. Vectors decoded from the wire have no parts; readers
 * then fall back to the object, with the same result.
 */
export interface VectorParts {
  readonly base: VectorEntries;
  readonly own: readonly [string, VectorEntry];
}

const partsByVector = new WeakMap<UtdVector, VectorParts>();

/** Notes how `vector` (frozen, immutable from now on) was built. */
export function registerParts(vector: UtdVector, parts: VectorParts): void {
  partsByVector.set(vector, parts);
}

export function partsOf(vector: UtdVector): VectorParts | undefined {
  return partsByVector.get(vector);
}

/** Visits the vector's entries, each invocation once, in no particular order. */
export function forEachEntry(vector: UtdVector, visit: (invocation: string, entry: VectorEntry) => void): void {
  const parts = partsByVector.get(vector);
  if (parts === undefined) {
    for (const inv of Object.keys(vector)) {
      const e = vector[inv];
      if (e !== undefined) visit(inv, e);
    }
    return;
  }
  const own = parts.own[0];
  for (const [inv, e] of parts.base) if (inv !== own) visit(inv, e);
  visit(own, parts.own[1]);
}
