/** SPEC "Value syntaxes and matching": the seven syntaxes and two matching rules. */
export type Syntax =
  | "string"
  | "boolean"
  | "integer"
  | "timestamp"
  | "reference"
  | "endpoint"
  | "publicKey";

export const syntaxes: readonly Syntax[] = [
  "string",
  "boolean",
  "integer",
  "timestamp",
  "reference",
  "endpoint",
  "publicKey",
];

/** Exact, case-sensitive: syntax names are schema wire values, not caseless names. */
export function isSyntax(s: string): s is Syntax {
  return (syntaxes as readonly string[]).includes(s);
}

export type Matching = "caseless" | "exact";

export const matchings: readonly Matching[] = ["caseless", "exact"];

export function isMatching(s: string): s is Matching {
  return (matchings as readonly string[]).includes(s);
}
