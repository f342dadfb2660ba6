// Goal: set keys follow the matching rule: caseless keys are the name fold, exact keys are
// the value. Method: examples for each syntax that matters (endpoint caseless, publicKey
// exact, Unicode strings) and a fast-check property against fold.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fold } from "../naming/fold";
import { matchKey } from "./match-key";

describe("matchKey", () => {
  it("makes endpoints differing in case one member, yet keeps the default port distinct", () => {
    const key = (v: string): string => matchKey("caseless", v);
    expect(key("Host.Example:5390")).toBe(key("host.example:5390"));
    expect(key("host.example")).not.toBe(key("host.example:5390"));
  });
  it("folds Unicode strings under caseless and keeps them under exact", () => {
    expect(matchKey("caseless", "Straße")).toBe(matchKey("caseless", "STRASSE"));
    expect(matchKey("exact", "Straße")).not.toBe(matchKey("exact", "STRASSE"));
    expect(matchKey("caseless", "é")).toBe(matchKey("caseless", "e\u0301"));
    expect(matchKey("exact", "é")).not.toBe(matchKey("exact", "e\u0301"));
  });
  it("is fold for caseless and identity for exact", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        return matchKey("caseless", s) === fold(s) && matchKey("exact", s) === s;
      }),
    );
  });
});
