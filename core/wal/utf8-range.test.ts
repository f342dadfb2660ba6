/**
 * Goal: a shell's native UTF-8 range decoder is installed only if it decodes exactly as the
 * portable one (valid and invalid bytes, a leading byte-order mark, ranges inside a buffer).
 * Method: a faithful candidate is taken, and a subtly wrong one (dropping a leading U+FEFF,
 * as TextDecoder's default does) is refused. (Node's decoder is compared with the portable
 * one over random bytes in sim/directory/node-utf8-slice.test.ts.)
 */
import { afterEach, describe, expect, it } from "vitest";
import { useNativeUtf8Range, utf8RangePortable } from "./utf8-range";

afterEach(() => useNativeUtf8Range(null));

describe("UTF-8 range decoding", () => {
  it("refuses a candidate that drops a leading byte-order mark", () => {
    const dropsBom = (b: Uint8Array, s: number, e: number): string => new TextDecoder().decode(b.subarray(s, e));
    expect(() => useNativeUtf8Range(dropsBom)).toThrow(/agrees/);
    const faithful = (b: Uint8Array, s: number, e: number): string => utf8RangePortable(b, s, e);
    expect(() => useNativeUtf8Range(faithful)).not.toThrow();
  });
});
