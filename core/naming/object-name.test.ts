// Goal: object names follow SPEC "Naming rules" (non-empty, <= 255 UTF-8 bytes, no control
// characters, no '/', no leading/trailing whitespace) and come back unchanged. Method: a
// table of edge cases, then fast-check against an independent oracle built from the
// runtime's \p{Cc} / \p{White_Space} regexes and TextEncoder byte counts.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateObjectName } from "./object-name";

/** encodeURIComponent throws URIError exactly on unpaired surrogates. */
function wellFormed(s: string): boolean {
  try {
    encodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
}

function oracle(s: string): boolean {
  if (s.length === 0 || !wellFormed(s)) return false;
  if (new TextEncoder().encode(s).length > 255) return false;
  if (/[\p{Cc}\u2028\u2029/]/u.test(s)) return false;
  return !/^\p{White_Space}|\p{White_Space}$/u.test(s);
}

const nameChars = fc.constantFrom(
  "a", "Z", "é", "ß", "😀", " ", "\u00a0", "\u3000", "\t", "\n", "\u0000", "\u007f", "\u0085",
  "\u009f", "/", "\u2028", "\u2029", "\u200d", "\u00ad", "\ufeff", ",", "#", "\\", "\ud800",
);
const oneCodePoint = fc.string({ unit: "binary", maxLength: 1 });
const nameText = fc.string({ unit: fc.oneof(nameChars, oneCodePoint) });

describe("validateObjectName", () => {
  it.each([
    ["Alice"], ["Domain Controllers"], ["a b"], ["#hash"], ["Ünïcödé"], ["😀"], ["a,b+c"],
    ["x\u200dy"], ["soft\u00adhyphen"], ["CNF:not-special"], ["a".repeat(255)], ["é".repeat(127)],
  ])("accepts %j unchanged", (name) => {
    expect(validateObjectName(name)).toEqual({ ok: true, value: name });
  });

  it.each([
    ["", "empty"],
    ["a".repeat(256), "bytes"],
    ["é".repeat(128), "bytes"],
    ["😀".repeat(64), "bytes"],
    ["a/b", "'/'"],
    ["/", "'/'"],
    ["a\u0000b", "U+0000"],
    ["a\tb", "U+0009"],
    ["a\nb", "U+000A"],
    ["a\u007fb", "U+007F"],
    ["a\u0085b", "U+0085"],
    ["a\u2028b", "U+2028"],
    ["a\u2029b", "U+2029"],
    [" a", "begin"],
    ["a ", "end"],
    ["\u00a0a", "begin"],
    ["a\u3000", "end"],
    [" ", "begin"],
    ["a\ud800", "surrogate"],
  ])("refuses %j (%s)", (name, reason) => {
    const r = validateObjectName(name);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe("invalid-name");
      expect(r.message).toContain(reason);
    }
  });

  it("refuses non-strings", () => {
    for (const x of [undefined, null, 5, ["a"], { name: "a" }]) {
      expect(validateObjectName(x)).toMatchObject({ ok: false, code: "invalid-name" });
    }
  });

  it("agrees with an independent oracle on generated strings", () => {
    fc.assert(
      fc.property(nameText, (s) => validateObjectName(s).ok === oracle(s)),
      { numRuns: 5000 },
    );
  });

  it("agrees with the oracle around the 255-byte boundary", () => {
    const char = fc.constantFrom("a", "é", "€", "😀");
    const long = fc.tuple(fc.integer({ min: 60, max: 260 }), char);
    fc.assert(
      fc.property(long, ([n, ch]) => {
        const s = ch.repeat(Math.ceil(n / new TextEncoder().encode(ch).length));
        return validateObjectName(s).ok === oracle(s);
      }),
    );
  });
});
