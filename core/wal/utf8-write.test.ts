/**
 * Goal: a shell's native UTF-8 writer is installed only if it writes exactly the portable
 * writer's bytes at an offset (lone surrogates as U+FFFD, nothing past the string's bytes).
 * Method: a faithful candidate is taken; wrong ones (CESU-8 surrogates, a stray byte after the
 * string, a miscount) are refused; a batch encoded under an installed writer decodes back.
 * (Node's writer is compared with the portable one over random strings in
 * sim/directory/node-utf8-write.test.ts.)
 */
import { afterEach, describe, expect, it } from "vitest";
import { decodeKvBatch, encodeKvBatch } from "./kv-batch";
import { useNativeUtf8Write, utf8WritePortable, type Utf8Writer } from "./utf8-write";

afterEach(() => useNativeUtf8Write(null));

describe("UTF-8 writing at an offset", () => {
  it("refuses candidates that write other bytes, past the string, or miscount", () => {
    // CESU-8: a surrogate pair as two 3-byte sequences, one per UTF-16 unit.
    const cesu: Utf8Writer = (text, bytes, at) => {
      let n = 0;
      for (let i = 0; i < text.length; i++) {
        const u = text.charCodeAt(i);
        if (u < 0xd800 || u > 0xdfff) n += utf8WritePortable(text[i]!, bytes, at + n);
        else for (const b of [0xe0 | (u >> 12), 0x80 | ((u >> 6) & 0x3f), 0x80 | (u & 0x3f)]) bytes[at + n++] = b;
      }
      return n;
    };
    const stray: Utf8Writer = (text, bytes, at) => {
      const n = utf8WritePortable(text, bytes, at);
      if (at + n < bytes.length) bytes[at + n] = 0;
      return n;
    };
    const miscount: Utf8Writer = (text, bytes, at) => utf8WritePortable(text, bytes, at) + (text.length > 3 ? 1 : 0);
    for (const wrong of [cesu, stray, miscount]) expect(() => useNativeUtf8Write(wrong)).toThrow(/agrees/);
    expect(() => useNativeUtf8Write((t, b, a) => utf8WritePortable(t, b, a))).not.toThrow();
  });

  it("encodes batches through the installed writer", () => {
    let calls = 0;
    useNativeUtf8Write((t, b, a) => {
      calls++;
      return utf8WritePortable(t, b, a);
    });
    calls = 0;
    const batch = { puts: [["o/1", "{\"n\":\"é😀\"}"] as const], dels: ["o/2"] };
    expect(decodeKvBatch(encodeKvBatch(batch))).toEqual(batch);
    expect(calls).toBe(3);
  });
});
