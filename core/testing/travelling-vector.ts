import type { TravellingVector, UtdVector } from "../repl/messages";

/**
 * Tests' way to a travelling vector saying exactly `flat`: its last invocation in key order
 * becomes the own entry (which wins over the stored one of the same invocation, equal here),
 * or null when `flat` is empty (a vector has at least its sender's own entry).
 */
export function travellingFrom(flat: UtdVector): TravellingVector | null {
  const invocations = Object.keys(flat).sort();
  const last = invocations.at(-1);
  if (last === undefined) return null;
  const entry = flat[last]!;
  return { entries: flat, own: [last, entry] };
}

/** A requester's vector that covers nothing of the source: only its own, unknown invocation. */
export function emptyTravelling(requester: string): TravellingVector {
  return { entries: {}, own: [`${requester}-invocation`, { usn: 0, node: requester, epoch: 0 }] };
}
