import type { Syntax } from "../../core/syntax";
import { msToTimestamp } from "../../core/syntax";

/**
 * Values the workload writes to typed namespaced attributes (workload.ts `typedValueKinds`),
 * one small pool per syntax, indexed by a drawn number. Each pool holds pairs a matching rule
 * tells apart or not (case variants, `ß`/`ss`, an endpoint with and without its default
 * port), so caseless and exact sets of the same values differ, and nodes that define one
 * attribute name with different matching or syntax concurrently hold values the winning
 * definition would key differently. `reference` is not here: its values are the GUIDs of
 * objects the node picks.
 */
const pools: Readonly<Record<Exclude<Syntax, "reference">, readonly string[]>> = {
  string: ["Alpha", "alpha", "ALPHA", "Straße", "STRASSE", "beta", "Cafe\u0301", "Café"],
  boolean: ["true", "false"],
  integer: ["0", "1", "-1", "42", "9007199254740991", "-7"],
  timestamp: [0, 1, 2, 3, 400].map((d) => msToTimestamp(Date.UTC(2030, 0, 1 + d))),
  endpoint: ["dc1.example.com", "DC1.example.com", "dc1.example.com:5390", "10.0.0.1:636", "[::1]", "[2001:db8::1]:8443"],
  publicKey: ["0", "1", "a", "f"].map((h) => `x25519:${h.repeat(64)}`),
};

/** The value of `syntax` at `pick` (null for `reference`, whose values are objects). */
export function typedValue(syntax: Syntax, pick: number): string | null {
  if (syntax === "reference") return null;
  const pool = pools[syntax];
  return pool[pick % pool.length]!;
}
