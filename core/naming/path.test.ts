// Goal: native paths split and join as SPEC "Naming rules" and our documented decisions say
// (root "/", one trailing slash tolerated, malformed paths refused as no-such-object).
// Method: a table of examples, then a fast-check round trip joinPath -> splitPath.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { joinPath, splitPath } from "./path";

describe("splitPath", () => {
  it.each([
    ["/", []],
    ["/a", ["a"]],
    ["/a/b", ["a", "b"]],
    ["/a/b/", ["a", "b"]],
    ["/Domain Controllers/DC 1", ["Domain Controllers", "DC 1"]],
    ["/x CNF:0f0e0d0c-0000-4000-8000-000000000000", ["x CNF:0f0e0d0c-0000-4000-8000-000000000000"]],
  ])("splits %j into %j", (path, names) => {
    expect(splitPath(path)).toEqual({ ok: true, value: names });
  });

  it.each([[""], ["a"], ["a/b"], ["//"], ["/a//b"], ["//a"], ["/a//"], ["///"]])(
    "refuses malformed %j as no-such-object",
    (path) => {
      const r = splitPath(path);
      expect(r).toMatchObject({ ok: false, code: "no-such-object" });
      if (!r.ok) expect(r.message).toMatch(/^malformed path/);
    },
  );
});

describe("joinPath", () => {
  it("renders the root as / and names root-first", () => {
    expect(joinPath([])).toBe("/");
    expect(joinPath(["Configuration", "Schema"])).toBe("/Configuration/Schema");
  });
  it("asserts that every segment is a bare name", () => {
    expect(() => joinPath(["a/b"])).toThrow(/bare name/);
    expect(() => joinPath([""])).toThrow(/bare name/);
  });
  it("round-trips through splitPath", () => {
    const segment = fc.string({ minLength: 1 }).filter((s) => !s.includes("/"));
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 8 }), (names) => {
        const r = splitPath(joinPath(names));
        return r.ok && JSON.stringify(r.value) === JSON.stringify(names);
      }),
    );
  });
});
