// Goal: the string syntax keeps any non-empty text exactly as given. Method: examples
// (whitespace, controls, both normal forms kept apart) and a fast-check identity property.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseString } from "./string-syntax";

describe("parseString", () => {
  it("refuses the empty string", () => {
    expect(parseString("")).toMatchObject({ ok: false, code: "syntax-violation" });
  });
  it("keeps text unchanged, without trimming or normalizing", () => {
    for (const s of [" padded ", "line\nbreak", "e\u0301", "é", "\u0000", "😀"]) {
      expect(parseString(s)).toEqual({ ok: true, value: s });
    }
  });
  it("is the identity on non-empty strings", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", minLength: 1 }), (s) => {
        const r = parseString(s);
        return r.ok && r.value === s;
      }),
    );
  });
});
