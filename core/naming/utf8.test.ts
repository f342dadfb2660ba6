// Goal: the hand-written UTF-8 byte count and well-formedness check match the platform.
// Method: fast-check against TextEncoder and an encodeURIComponent oracle on arbitrary
// UTF-16 (including lone surrogates), plus boundary examples for each encoded length.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isWellFormedUtf16, utf8ByteLength } from "./utf8";

/** encodeURIComponent throws URIError exactly on unpaired surrogates. */
function wellFormed(s: string): boolean {
  try {
    encodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
}

describe("utf8ByteLength", () => {
  it("counts 1, 2, 3 and 4 byte characters at their boundaries", () => {
    expect(utf8ByteLength("")).toBe(0);
    expect(utf8ByteLength("\u007f")).toBe(1);
    expect(utf8ByteLength("\u0080")).toBe(2);
    expect(utf8ByteLength("\u07ff")).toBe(2);
    expect(utf8ByteLength("\u0800")).toBe(3);
    expect(utf8ByteLength("\uffff")).toBe(3);
    expect(utf8ByteLength("\u{10000}")).toBe(4);
    expect(utf8ByteLength("\u{10ffff}")).toBe(4);
  });
  it("matches TextEncoder on any UTF-16 (lone surrogates encode as U+FFFD)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary" }),
        fc.string({ unit: fc.constantFrom("\ud800", "\udc00", "a") }),
        (a, b) => {
          const s = a + b + a;
          return utf8ByteLength(s) === new TextEncoder().encode(s).length;
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe("isWellFormedUtf16", () => {
  it("refuses lone and reversed surrogates", () => {
    expect(isWellFormedUtf16("😀")).toBe(true);
    expect(isWellFormedUtf16("\ud83d")).toBe(false);
    expect(isWellFormedUtf16("\ude00")).toBe(false);
    expect(isWellFormedUtf16("\ude00\ud83d")).toBe(false);
    expect(isWellFormedUtf16("a\ud83db")).toBe(false);
  });
  it("matches an encodeURIComponent oracle", () => {
    const unit = fc.oneof(fc.constantFrom("\ud800", "\udbff", "\udc00", "\udfff", "a", "😀"),
      fc.string({ unit: "binary", maxLength: 1 }));
    fc.assert(fc.property(fc.string({ unit }), (s) => isWellFormedUtf16(s) === wellFormed(s)),
      { numRuns: 3000 });
  });
});
