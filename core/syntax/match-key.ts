import { assertNever } from "../assert";
import { fold } from "../naming/fold";
import type { Matching } from "./syntax";

/**
 * The set key of a canonical value under a matching rule: two values are the same member of a
 * multi-valued attribute (and a duplicate) iff their keys are equal. Caseless uses the same
 * fold as names; for ASCII-only syntaxes such as endpoint that is plain ASCII case-insensitivity.
 */
export function matchKey(matching: Matching, canonical: string): string {
  switch (matching) {
    case "caseless":
      return fold(canonical);
    case "exact":
      return canonical;
    default:
      return assertNever(matching, "matching");
  }
}
