import type { TravellingVector, UtdVector, VectorEntry } from "./messages";

export type { VectorEntry };
export type VectorEntries = ReadonlyArray<readonly [string, VectorEntry]>;

/** The entry a travelling vector holds for `invocation` (the own entry wins), or undefined. */
export function entryOf(vector: TravellingVector, invocation: string): VectorEntry | undefined {
  return invocation === vector.own[0] ? vector.own[1] : vector.entries[invocation];
}

/** Visits the vector's entries, each invocation once, in no particular order. */
export function forEachEntry(vector: TravellingVector, visit: (invocation: string, entry: VectorEntry) => void): void {
  const [own, ownEntry] = vector.own;
  const entries = vector.entries;
  for (const inv of Object.keys(entries)) {
    const e = entries[inv];
    if (inv !== own && e !== undefined) visit(inv, e);
  }
  visit(own, ownEntry);
}

/**
 * A travelling vector as one dictionary in invocation order, entries reduced to `usn`, `node`
 * and `epoch`: what it says, for the wire, the node view and tests.
 */
export function flatVector(vector: TravellingVector): Record<string, VectorEntry> {
  const all: Array<readonly [string, VectorEntry]> = [];
  forEachEntry(vector, (inv, e) => all.push([inv, e]));
  all.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const out: Record<string, VectorEntry> = {};
  for (const [inv, e] of all) out[inv] = { usn: e.usn, node: e.node, epoch: e.epoch };
  return out;
}

/**
 * Per entries object (immutable: a change replaces a stored vector), its entries sorted by
 * invocation: known for every vector mergeVectors made from one whose order was known, else
 * sorted once on first use. A completed pull walks the two sorted lists together instead of
 * probing a dictionary per entry (~100 per pull, each a probe of a dictionary-mode object).
 */
const sortedOf = new WeakMap<object, VectorEntries>();

export function sortedEntries(entries: UtdVector): VectorEntries {
  const known = sortedOf.get(entries);
  if (known !== undefined) return known;
  const out: Array<readonly [string, VectorEntry]> = [];
  for (const inv of Object.keys(entries).sort()) {
    const e = entries[inv];
    if (e !== undefined) out.push([inv, e]);
  }
  sortedOf.set(entries, out);
  return out;
}

/** Notes the sorted entries of `entries`, made alongside it (see sortedEntries). */
export function noteSortedEntries(entries: UtdVector, sorted: VectorEntries): void {
  sortedOf.set(entries, sorted);
}
