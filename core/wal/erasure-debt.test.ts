/**
 * Goal: an erasure-debt.json that is not what the store writes (a non-negative count and
 * generation) is taken for junk, a debt covering everything on disk, and the store goes on: a
 * negative count was taken as it was, and the next shred's "never negative" assertion killed
 * storage at every boot; a count that is not a number was taken for no debt at all (storage
 * audit, twenty-eighth session).
 * Method: the file written by hand into a MemoryFileSystem, loaded at active generation 4.
 */
import { describe, expect, it } from "vitest";
import { ErasureDebt, erasureDebtPath } from "./erasure-debt";
import { MemoryFileSystem } from "./memory-fs";

function loaded(text: string | null): ErasureDebt {
  const fs = new MemoryFileSystem();
  if (text !== null) fs.write(erasureDebtPath, new TextEncoder().encode(text));
  return ErasureDebt.load(fs, 4);
}

describe("ErasureDebt.load", () => {
  it("reads what the store writes", () => {
    const debt = loaded('{"count":2,"generation":3}');
    expect([debt.count, debt.generation]).toEqual([2, 3]);
    expect(loaded(null).count).toBe(0);
    expect(loaded('{"count":0,"generation":0}').count).toBe(0);
  });

  it.each([
    ["not JSON", "{nope"],
    ["a negative count", '{"count":-5,"generation":2}'],
    ["a count that is not a number", '{"count":"3","generation":2}'],
    ["a fractional count", '{"count":1.5,"generation":2}'],
    ["a negative generation", '{"count":1,"generation":-1}'],
    ["no fields", "{}"],
    ["null", "null"],
    ["a bare number", "7"],
  ])("takes %s for one debt at the active generation, and a shred raises it", (_what, text) => {
    const debt = loaded(text);
    expect([debt.count, debt.generation]).toEqual([1, 4]);
    debt.raise(4);
    expect(debt.count).toBe(2);
  });

  it("brings a generation beyond the active one down to it, so the next rebuild pays it", () => {
    const debt = loaded('{"count":2,"generation":99}');
    expect([debt.count, debt.generation]).toEqual([2, 4]);
  });
});
