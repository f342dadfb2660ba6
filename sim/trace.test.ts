// Goal: the trace hash is a true FNV-1a 64 of the formatted lines, the ring keeps the tail,
// and firstDivergence finds the first differing line. Method: published FNV test vectors and
// a hash of the joined lines computed the slow way.
import { describe, expect, it } from "vitest";
import { Trace, firstDivergence, fnv1a64Hex } from "./trace";

describe("FNV-1a 64", () => {
  it("matches the published test vectors", () => {
    expect(fnv1a64Hex("")).toBe("cbf29ce484222325");
    expect(fnv1a64Hex("a")).toBe("af63dc4c8601ec8c");
    expect(fnv1a64Hex("foobar")).toBe("85944171f73967e8");
  });

  it("hashes strings as their UTF-8 bytes (BigInt oracle)", () => {
    const slow = (text: string): string => {
      let h = 0xcbf29ce484222325n;
      for (const b of new TextEncoder().encode(text)) {
        h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
      }
      return h.toString(16).padStart(16, "0");
    };
    for (const text of ["é€😀", "t=12 node=n1 recv from=n2", "\ud800x", "ÿ\u0000"]) {
      expect(fnv1a64Hex(text)).toBe(slow(text));
    }
  });
});

describe("Trace", () => {
  it("hashes exactly the formatted lines and keeps a bounded tail", () => {
    const trace = new Trace({ ringLines: 3, keepAll: true });
    for (let i = 0; i < 5; i++) trace.record(i * 10, `n${i}`, "recv", `from=x ${i}`);
    const lines = trace.lines();
    expect(lines[0]).toBe("t=0 node=n0 recv from=x 0");
    expect(trace.hashHex()).toBe(fnv1a64Hex(lines.map((l) => `${l}\n`).join("")));
    expect(trace.tail()).toEqual(lines.slice(2));
    expect(trace.tail(1)).toEqual(lines.slice(4));
    expect(trace.length).toBe(5);
  });

  it("finds the first divergence", () => {
    expect(firstDivergence(["a", "b"], ["a", "b"])).toBeNull();
    expect(firstDivergence(["a", "b"], ["a", "c"])).toEqual({ index: 1, a: "b", b: "c" });
    expect(firstDivergence(["a"], ["a", "c"])).toEqual({ index: 1, a: null, b: "c" });
  });
});
