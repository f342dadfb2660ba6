import { type Result, ok, refuse } from "../errors";

/**
 * `string`: any non-empty well-formed Unicode text (checked by parseValue) within the value
 * size limit. No normalization and no whitespace rule: the value is stored as given, and
 * caseless matching (NFD inside the fold) makes composed/decomposed spellings one member.
 * Empty is refused because "no value" is expressed by removing the value, not by "".
 */
export function parseString(raw: string): Result<string> {
  if (raw.length === 0) return refuse("syntax-violation", "string value must not be empty");
  return ok(raw);
}
