// Goal: booleans accept true/false in any ASCII case and render lowercase. Method: a table,
// then fast-check over random casings (accepted) and arbitrary other strings (refused).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseBoolean } from "./boolean-syntax";

describe("parseBoolean", () => {
  it.each([
    ["true", "true"], ["TRUE", "true"], ["True", "true"], ["false", "false"], ["FaLsE", "false"],
  ])("accepts %j as %j", (raw, canonical) => {
    expect(parseBoolean(raw)).toEqual({ ok: true, value: canonical });
  });
  it.each([
    [""], ["1"], ["0"], ["yes"], ["t"], [" true"], ["true "], ["truE\u0000"], ["ｔｒｕｅ"], ["TRUE1"],
  ])("refuses %j", (raw) => {
    expect(parseBoolean(raw)).toMatchObject({ ok: false, code: "syntax-violation" });
  });
  it("accepts any casing and is idempotent on the canonical form", () => {
    fc.assert(
      fc.property(fc.mixedCase(fc.constantFrom("true", "false")), (raw) => {
        const r = parseBoolean(raw);
        return r.ok && r.value === raw.toLowerCase() && parseBoolean(r.value).ok;
      }),
    );
  });
  it("refuses every other string", () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const lower = s.toLowerCase();
        const expected = /^[a-z]*$/i.test(s) && (lower === "true" || lower === "false");
        return parseBoolean(s).ok === expected;
      }),
    );
  });
});
