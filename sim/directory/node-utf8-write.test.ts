/**
 * Goal: the simulator's native writer (Buffer's utf8Write on a plain Uint8Array) writes what
 * core's portable writer writes, on any string, so installing it changes no run.
 * Method: core's install check accepts it; fast-check compares the bytes both leave in a
 * padded buffer, and their counts, over random strings (lone surrogates and astral
 * characters included) at random offsets.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { useNativeUtf8Write, utf8WritePortable } from "../../core/wal/utf8-write";
import { nodeUtf8Write } from "./node-utf8-write";

afterEach(() => useNativeUtf8Write(null));

const units = fc.oneof(
  fc.integer({ min: 0, max: 0x7f }),
  fc.integer({ min: 0x80, max: 0xffff }),
  fc.constantFrom(0xd800, 0xdbff, 0xdc00, 0xdfff, 0xd83d, 0xde00, 0xfeff, 0xfffd),
);

describe("Node's UTF-8 writer", () => {
  it("passes core's install check", () => {
    expect(() => useNativeUtf8Write(nodeUtf8Write)).not.toThrow();
  });

  it("agrees with the portable writer on any string and offset", () => {
    fc.assert(
      fc.property(fc.array(units, { maxLength: 60 }), fc.nat({ max: 16 }), (codes, at) => {
        const text = String.fromCharCode(...codes);
        const room = at + 3 * text.length + 4;
        const mine = new Uint8Array(room).fill(0xaa);
        const theirs = new Uint8Array(room).fill(0xaa);
        expect(nodeUtf8Write(text, mine, at)).toBe(utf8WritePortable(text, theirs, at));
        expect(mine).toEqual(theirs);
      }),
      { numRuns: 5000 },
    );
  });
});
