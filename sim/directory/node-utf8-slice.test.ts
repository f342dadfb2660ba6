/**
 * Goal: the simulator's native range decoder (Buffer's utf8Slice on a plain Uint8Array) is
 * what core's portable decoder returns, on arbitrary bytes, so installing it changes no run.
 * Method: core's install check accepts it; fast-check compares both over random bytes (mostly
 * multi-byte and broken sequences) and random ranges.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { useNativeUtf8Range, utf8RangePortable } from "../../core/wal/utf8-range";
import { nodeUtf8Slice } from "./node-utf8-slice";

afterEach(() => useNativeUtf8Range(null));

const tricky = [0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0xc3, 0xa9, 0xed, 0xa0, 0x80, 0xef, 0xbb, 0xbf, 0xff, 0xc0, 0x80, 0x41];

describe("Node's UTF-8 range decoder", () => {
  it("passes core's install check", () => {
    expect(() => useNativeUtf8Range(nodeUtf8Slice)).not.toThrow();
  });

  it("agrees with the portable decoder on any bytes and range", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(...tricky)), { maxLength: 80 }),
        fc.nat(),
        fc.nat(),
        (list, a, b) => {
          const bytes = Uint8Array.from(list);
          const start = a % (bytes.length + 1);
          const end = start + (b % (bytes.length - start + 1));
          expect(nodeUtf8Slice(bytes, start, end)).toBe(utf8RangePortable(bytes, start, end));
        },
      ),
      { numRuns: 5000 },
    );
  });
});
