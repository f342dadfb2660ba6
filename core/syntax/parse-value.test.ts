// Goal: parseValue applies the rules shared by every syntax (string type, well-formed
// Unicode, the inclusive 1 MiB UTF-8 limit) before dispatching to the syntax, and every
// syntax's canonical rendering is a fixed point. Method: boundary examples at exactly 1 MiB
// with 1-, 2-, 3- and 4-byte characters, and a fast-check fixed-point property per syntax.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { limits } from "../limits";
import { parseValue } from "./parse-value";
import { type Syntax, syntaxes } from "./syntax";

const mib = 1024 * 1024;

describe("parseValue: rules for every value", () => {
  it("uses the 1 MiB limit from core/limits", () => {
    expect(limits.valueBytesMax).toBe(mib);
  });
  it("accepts exactly 1 MiB and refuses one byte more (ASCII)", () => {
    expect(parseValue("string", "a".repeat(mib)).ok).toBe(true);
    const over = parseValue("string", "a".repeat(mib + 1));
    expect(over).toMatchObject({ ok: false, code: "syntax-violation" });
    if (!over.ok) expect(over.message).toContain("1048577 bytes");
  });
  it("counts multi-byte characters in UTF-8 bytes", () => {
    expect(parseValue("string", "é".repeat(mib / 2)).ok).toBe(true);
    expect(parseValue("string", "é".repeat(mib / 2) + "a").ok).toBe(false);
    expect(parseValue("string", "😀".repeat(mib / 4)).ok).toBe(true);
    expect(parseValue("string", "😀".repeat(mib / 4) + "a").ok).toBe(false);
    // 3-byte characters: 349525 * 3 = 1048575 bytes, then one more byte fits, two do not.
    const euros = "€".repeat(349525);
    expect(parseValue("string", euros + "a").ok).toBe(true);
    expect(parseValue("string", euros + "é").ok).toBe(false);
    // In UTF-16 code units this is far below 1 Mi, so a length-based check would pass it.
    expect(("€".repeat(mib / 2)).length).toBeLessThan(mib);
    expect(parseValue("string", "€".repeat(mib / 2)).ok).toBe(false);
  });
  it("refuses values that are not strings", () => {
    for (const syntax of syntaxes) {
      for (const raw of [undefined, null, 1, true, ["a"], { value: "a" }]) {
        expect(parseValue(syntax, raw)).toMatchObject({ ok: false, code: "syntax-violation" });
      }
    }
  });
  it("refuses unpaired surrogates", () => {
    const r = parseValue("string", "a\ud800");
    expect(r).toMatchObject({ ok: false, code: "syntax-violation" });
    if (!r.ok) expect(r.message).toContain("surrogate");
  });
  it("dispatches to each syntax", () => {
    const examples: Record<Syntax, [string, string]> = {
      string: ["Hi", "Hi"],
      boolean: ["TRUE", "true"],
      integer: ["-5", "-5"],
      timestamp: ["2024-01-01T00:00:00Z", "2024-01-01T00:00:00.000Z"],
      reference: ["0F0E0D0C-0B0A-4908-8706-050403020100", "0f0e0d0c-0b0a-4908-8706-050403020100"],
      endpoint: ["[::1]:5390", "[::1]:5390"],
      publicKey: [`x25519:${"ab".repeat(32)}`, `x25519:${"ab".repeat(32)}`],
    };
    for (const syntax of syntaxes) {
      const [raw, canonical] = examples[syntax];
      expect(parseValue(syntax, raw)).toEqual({ ok: true, value: canonical });
      expect(parseValue(syntax, "")).toMatchObject({ ok: false, code: "syntax-violation" });
    }
  });
});

describe("parseValue: canonical renderings are fixed points", () => {
  it("parse(canonical) === canonical for any accepted input of any syntax", () => {
    const raw = fc.oneof(
      fc.string(),
      fc.mixedCase(fc.constantFrom("true", "false")),
      fc.bigInt().map(String),
      fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(253402300799999) })
        .map((d) => d.toISOString().replace(".000Z", "Z")),
      fc.mixedCase(fc.uuid()),
      fc.domain(),
      fc.stringMatching(/^x25519:[0-9a-f]{64}$/),
    );
    fc.assert(
      fc.property(fc.constantFrom(...syntaxes), raw, (syntax, text) => {
        const first = parseValue(syntax, text);
        if (!first.ok) return true;
        const again = parseValue(syntax, first.value);
        return again.ok && again.value === first.value;
      }),
      { numRuns: 5000 },
    );
  });
});
