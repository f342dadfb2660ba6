// Goal: the syntax and matching vocabularies are exactly SPEC's. Method: literal comparison
// and case-sensitivity examples.
import { describe, expect, it } from "vitest";
import { isMatching, isSyntax, matchings, syntaxes } from "./syntax";

describe("syntax vocabulary", () => {
  it("lists SPEC's seven syntaxes and two matching rules", () => {
    expect(syntaxes).toEqual([
      "string", "boolean", "integer", "timestamp", "reference", "endpoint", "publicKey",
    ]);
    expect(matchings).toEqual(["caseless", "exact"]);
  });
  it("recognizes names exactly, case-sensitively", () => {
    expect(isSyntax("publicKey")).toBe(true);
    expect(isSyntax("publickey")).toBe(false);
    expect(isSyntax("toString")).toBe(false);
    expect(isMatching("exact")).toBe(true);
    expect(isMatching("Exact")).toBe(false);
  });
});
