import { type Result, ok, refuse } from "../errors";
import { parseGuid } from "../guid";

/**
 * `reference`: the GUID of a target object, accepted in any case, canonical lowercase. Whether
 * the target exists (and its state) is the caller's concern: references may dangle.
 */
export function parseReference(raw: string): Result<string> {
  const guid = parseGuid(raw);
  if (guid === null) {
    return refuse("syntax-violation", "reference value must be a GUID (8-4-4-4-12 hex digits)");
  }
  return ok(guid);
}
