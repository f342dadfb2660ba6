import { type Result, ok, refuse } from "../errors";

/**
 * `publicKey`: `x25519:` then exactly 64 lowercase hex characters. SPEC compares these
 * exactly, so "X25519:" and uppercase hex are refused instead of accepted as distinct members
 * that would silently fail to equal the lowercase spelling of the same key.
 */
export function parsePublicKey(raw: string): Result<string> {
  const colon = raw.indexOf(":");
  if (colon < 0) return refuse("syntax-violation", "publicKey value must be <algorithm>:<hex>");
  const algorithm = raw.slice(0, colon);
  if (algorithm !== "x25519") {
    return refuse("syntax-violation", 'publicKey algorithm must be "x25519" (lowercase)');
  }
  if (!/^[0-9a-f]{64}$/.test(raw.slice(colon + 1))) {
    return refuse(
      "syntax-violation",
      "publicKey payload must be exactly 64 lowercase hex characters",
    );
  }
  return ok(raw);
}
