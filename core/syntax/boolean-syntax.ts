import { type Result, ok, refuse } from "../errors";

/** `boolean`: "true"/"false" in any ASCII case; canonical lowercase. */
export function parseBoolean(raw: string): Result<string> {
  const lower = raw.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
  if (lower === "true" || lower === "false") return ok(lower);
  return refuse("syntax-violation", 'boolean value must be "true" or "false" (any case)');
}
