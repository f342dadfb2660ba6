import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ByteArena } from "./byte-arena";

describe("ByteArena", () => {
  it("hands out copies equal to their source that later copies and source writes never change", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 64, max: 512 }),
        fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 60 }),
        (chunkBytes, sources) => {
          const arena = new ByteArena(chunkBytes);
          const expected = sources.map((s) => s.slice());
          const copies = sources.map((s) => arena.copy(s));
          for (const s of sources) s.fill(0xee);
          copies.forEach((c, i) => expect(c).toEqual(expected[i]));
          // No two copies share a byte: writing one leaves every other as it was.
          copies.forEach((c, i) => {
            c.fill(0x77);
            copies.forEach((d, j) => {
              if (j > i) expect(d).toEqual(expected[j]);
            });
          });
        },
      ),
    );
  });

  it("gives a large copy its own buffer and packs small ones into a chunk", () => {
    const arena = new ByteArena(1024);
    const a = arena.copy(new Uint8Array(100).fill(1));
    const b = arena.copy(new Uint8Array(100).fill(2));
    expect(a.buffer).toBe(b.buffer);
    expect(b.byteOffset).toBe(100);
    const large = arena.copy(new Uint8Array(300).fill(3));
    expect(large.buffer).not.toBe(a.buffer);
    expect(large.buffer.byteLength).toBe(300);
  });
});
