/**
 * Parses a raw attribute value of a given syntax into its canonical rendering, or refuses it
 * with `syntax-violation`. Documented canonical renderings (the form stored, rendered and
 * used for set keys):
 * - string:    as given (non-empty; no normalization, no trimming).
 * - boolean:   "true" or "false", lowercase (input accepted in any ASCII case).
 * - integer:   canonical decimal, signed 64-bit; only canonical input is accepted
 *              ("+1", "01", "-0" are refused), so the rendering is the input.
 * - timestamp: YYYY-MM-DDTHH:MM:SS.sssZ, exactly 3 fraction digits (input with 0-9 fraction
 *              digits; longer fractions truncated to milliseconds).
 * - reference: the target GUID, lowercase 8-4-4-4-12 (input in any case).
 * - endpoint:  as given (host[:port]; the default port is never added or removed).
 * - publicKey: as given ("x25519:" + 64 lowercase hex; nothing else is accepted).
 * Rules for every value, checked first and in this order: it is a string; it is well-formed
 * Unicode (no unpaired surrogate, so it survives UTF-8 on disk and wire); its UTF-8 size is
 * at most limits.valueBytesMax (1 MiB, inclusive).
 */
import { assertNever } from "../assert";
import { type Result, refuse } from "../errors";
import { limits } from "../limits";
import { isWellFormedUtf16, utf8ByteLength } from "../naming/utf8";
import { parseBoolean } from "./boolean-syntax";
import { parseEndpoint } from "./endpoint-syntax";
import { parseInteger } from "./integer-syntax";
import { parsePublicKey } from "./public-key-syntax";
import { parseReference } from "./reference-syntax";
import { parseString } from "./string-syntax";
import type { Syntax } from "./syntax";
import { parseTimestamp } from "./timestamp-syntax";

export function parseValue(syntax: Syntax, raw: unknown): Result<string> {
  if (typeof raw !== "string") return refuse("syntax-violation", "value must be a string");
  if (!isWellFormedUtf16(raw)) {
    return refuse("syntax-violation", "value contains an unpaired surrogate (not valid Unicode)");
  }
  const bytes = utf8ByteLength(raw);
  if (bytes > limits.valueBytesMax) {
    return refuse("syntax-violation", `value is ${bytes} bytes; at most ${limits.valueBytesMax}`);
  }
  switch (syntax) {
    case "string":
      return parseString(raw);
    case "boolean":
      return parseBoolean(raw);
    case "integer":
      return parseInteger(raw);
    case "timestamp":
      return parseTimestamp(raw);
    case "reference":
      return parseReference(raw);
    case "endpoint":
      return parseEndpoint(raw);
    case "publicKey":
      return parsePublicKey(raw);
    default:
      return assertNever(syntax, "syntax");
  }
}
