import { assert } from "../assert";
import { type Result, ok, refuse } from "../errors";

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/**
 * `integer`: signed 64-bit, written in canonical decimal only: an optional '-', then digits
 * without leading zeros. "+5", "007" and "-0" are refused rather than rewritten, so that every
 * accepted integer is already its own canonical rendering and two spellings of one number
 * can never both reach a value set.
 */
export function parseInteger(raw: string): Result<string> {
  if (!/^-?(?:0|[1-9][0-9]*)$/.test(raw)) {
    return refuse(
      "syntax-violation",
      "integer value must be decimal digits with an optional leading '-', " +
        "no '+' and no leading zeros",
    );
  }
  if (raw === "-0") {
    return refuse("syntax-violation", 'integer value "-0" is not canonical; use "0"');
  }
  // Cheap length bound first so BigInt never sees megabytes of digits.
  if (raw.length > 20) {
    return refuse("syntax-violation", "integer value is outside signed 64-bit range");
  }
  const n = BigInt(raw);
  if (n < int64Min || n > int64Max) {
    return refuse("syntax-violation", "integer value is outside signed 64-bit range");
  }
  assert(n.toString() === raw, "accepted integer is canonical");
  return ok(raw);
}
