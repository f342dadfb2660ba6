/**
 * Goal: tornEnd (word-at-a-time over the aligned middle) finds exactly what the plain
 * definition finds: one past the last non-zero byte at or after the valid prefix, whatever the
 * view's alignment in its buffer.
 * Method: fast-check over mostly-zero byte arrays placed at every offset of a larger buffer,
 * against a byte-by-byte scan.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tornEnd } from "./log-space";

function plainTornEnd(log: Uint8Array, validBytes: number): number {
  let end = log.length;
  while (end > validBytes && log[end - 1] === 0) end--;
  return end;
}

describe("tornEnd", () => {
  it("agrees with a byte-by-byte scan at any alignment", () => {
    const sparse = fc.array(fc.oneof({ weight: 6, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 255 }) }), { maxLength: 80 });
    fc.assert(
      fc.property(sparse, fc.nat(7), fc.nat(7), fc.nat(100), (bytes, before, after, validPick) => {
        const buffer = new Uint8Array(before + bytes.length + after).fill(9);
        const log = buffer.subarray(before, before + bytes.length);
        log.set(bytes);
        const validBytes = bytes.length === 0 ? 0 : validPick % (bytes.length + 1);
        expect(tornEnd(log, validBytes)).toBe(plainTornEnd(log, validBytes));
      }),
      { numRuns: 2000 },
    );
  });

  it("sees a single non-zero byte anywhere in a long zero tail", () => {
    const log = new Uint8Array(4099);
    expect(tornEnd(log, 3)).toBe(3);
    for (const at of [3, 4, 5, 6, 7, 1000, 2049, 4095, 4096, 4098]) {
      log.fill(0);
      log[at] = 1;
      expect(tornEnd(log, 3)).toBe(at + 1);
      expect(tornEnd(log.subarray(1), 2)).toBe(at);
    }
  });
});
