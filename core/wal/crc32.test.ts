/**
 * Goal: the hand-written CRC-32 is the standard IEEE one. Method: published check values, and
 * agreement with node:zlib's crc32 (tests may use node; the code under test may not) on random
 * inputs, including running checksums over split inputs.
 */
import * as zlib from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { crc32, crc32Portable, useNativeCrc32 } from "./crc32";

const ascii = (s: string) => new TextEncoder().encode(s);

describe("crc32", () => {
  it("matches the published check values", () => {
    expect(crc32(ascii("123456789"))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
    expect(crc32(ascii("The quick brown fox jumps over the lazy dog"))).toBe(0x414fa339);
  });

  it("agrees with zlib, whole and split", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), fc.nat(), (bytes, cut) => {
        const at = bytes.length === 0 ? 0 : cut % bytes.length;
        expect(crc32(bytes)).toBe(zlib.crc32(bytes));
        expect(crc32(bytes, at, bytes.length, crc32(bytes, 0, at))).toBe(zlib.crc32(bytes));
      }),
    );
  });

  it("takes a native implementation only when it agrees, and gives the same checksums", () => {
    expect(() => useNativeCrc32((data, value) => zlib.crc32(data, value) ^ 1)).toThrow(/agrees/);
    useNativeCrc32(zlib.crc32);
    try {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 512 }), fc.nat(), fc.nat(), (bytes, a, b) => {
          const start = bytes.length === 0 ? 0 : a % bytes.length;
          const end = start + (bytes.length === start ? 0 : b % (bytes.length - start));
          expect(crc32(bytes, start, end, a)).toBe(crc32Portable(bytes, start, end, a));
          expect(crc32(bytes)).toBe(crc32Portable(bytes));
        }),
      );
    } finally {
      useNativeCrc32(null);
    }
  });
});
