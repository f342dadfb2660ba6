/**
 * Goal: JsonMemo hands out exactly what JSON.parse returns for the text given (equal value),
 * the same frozen object while a key's text is unchanged, a fresh parse once it changes, and
 * stays bounded.
 * Method: fast-check over JSON values and keys; direct cases for change and the bound.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonMemo } from "./json-memo";

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen);
}

describe("JsonMemo", () => {
  it("returns JSON.parse's value, deep-frozen, and the same object for the same text", () => {
    fc.assert(
      fc.property(fc.string(), fc.jsonValue(), (key, value) => {
        const memo = new JsonMemo();
        const text = JSON.stringify(value);
        const first = memo.parse(text, key);
        expect(first).toEqual(JSON.parse(text));
        expect(isDeepFrozen(first)).toBe(true);
        // An equal text that is another string object still hits.
        expect(memo.parse(`${text} `.slice(0, text.length), key)).toBe(first);
      }),
    );
  });

  it("parses again when the text under a key changed", () => {
    const memo = new JsonMemo();
    const a = memo.parse('{"usn":1,"node":"n"}', "meta/utd/x");
    const b = memo.parse('{"usn":2,"node":"n"}', "meta/utd/x");
    expect(b).toEqual({ usn: 2, node: "n" });
    expect(b).not.toBe(a);
    expect(memo.parse('{"usn":2,"node":"n"}', "meta/utd/x")).toBe(b);
  });

  it("a frozen value refuses mutation instead of changing what later boots get", () => {
    const memo = new JsonMemo();
    const value = memo.parse('{"seq":1,"detail":{"a":[1]}}', "j/1") as { detail: { a: number[] } };
    expect(() => value.detail.a.push(2)).toThrow();
    expect(memo.parse('{"seq":1,"detail":{"a":[1]}}', "j/1")).toEqual({ seq: 1, detail: { a: [1] } });
  });

  it("starts over past its bound", () => {
    const memo = new JsonMemo(3);
    for (let i = 0; i < 3; i++) memo.parse(String(i), `k${i}`);
    expect(memo.size).toBe(3);
    memo.parse("3", "k3");
    expect(memo.size).toBe(1);
    expect(memo.parse("0", "k0")).toBe(0);
  });
});
