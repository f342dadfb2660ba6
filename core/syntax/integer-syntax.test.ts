// Goal: integers are signed 64-bit in canonical decimal only. Method: boundary table and
// fast-check with BigInt as the oracle for valid values, plus generated non-canonical and
// out-of-range spellings that must be refused.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseInteger } from "./integer-syntax";

const min = -(2n ** 63n);
const max = 2n ** 63n - 1n;

describe("parseInteger", () => {
  it.each([["0"], ["1"], ["-1"], ["42"], [String(max)], [String(min)]])("accepts %j", (v) => {
    expect(parseInteger(v)).toEqual({ ok: true, value: v });
  });
  it.each([
    [""], ["-"], ["+1"], ["01"], ["00"], ["-0"], ["-01"], ["1.0"], ["1e3"], [" 1"], ["1 "],
    ["0x10"], ["١"], [String(max + 1n)], [String(min - 1n)], ["9".repeat(40)], ["--1"],
  ])("refuses %j", (v) => {
    expect(parseInteger(v)).toMatchObject({ ok: false, code: "syntax-violation" });
  });
  it("accepts every 64-bit integer in canonical decimal and returns it unchanged", () => {
    fc.assert(
      fc.property(fc.bigInt({ min, max }), (n) => {
        const r = parseInteger(n.toString());
        return r.ok && r.value === n.toString() && parseInteger(r.value).ok;
      }),
      { numRuns: 2000 },
    );
  });
  it("refuses integers outside 64 bits", () => {
    const outside = fc.oneof(
      fc.bigInt({ min: max + 1n, max: max * 1000n }),
      fc.bigInt({ min: min * 1000n, max: min - 1n }),
    );
    fc.assert(fc.property(outside, (n) => !parseInteger(n.toString()).ok));
  });
  it("refuses leading zeros and plus signs", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max }), fc.constantFrom("0", "+", "-0", "00"), (n, p) => {
        return !parseInteger(p + n.toString()).ok;
      }),
    );
  });
});
