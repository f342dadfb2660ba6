import type { Existence } from "../store/record";
import { compareStamps } from "../store/stamp";

/**
 * Existence order: `shredded` is absorbing, so any shredded claim beats any other claim; among
 * claims of the same absorbing class the stamp order decides. A total order, so taking the
 * maximum is commutative, associative and idempotent.
 */
export function compareExistence(a: Existence, b: Existence): number {
  const sa = a.stage === "shredded" ? 1 : 0;
  const sb = b.stage === "shredded" ? 1 : 0;
  if (sa !== sb) return sa - sb;
  return compareStamps(a.stamp, b.stamp);
}
