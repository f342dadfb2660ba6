// Goal: references are GUIDs in any case, canonical lowercase. Method: table plus fast-check
// over generated UUIDs in random casing, and mutated ones that must be refused.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseReference } from "./reference-syntax";

const guid = "0f0e0d0c-0b0a-4908-8706-050403020100";

describe("parseReference", () => {
  it("accepts any case and renders lowercase", () => {
    expect(parseReference(guid)).toEqual({ ok: true, value: guid });
    expect(parseReference(guid.toUpperCase())).toEqual({ ok: true, value: guid });
  });
  it.each([
    [""], [guid.slice(1)], [`{${guid}}`], [guid.replace(/-/g, "")], [` ${guid}`], [`${guid}0`],
    [guid.replace("0", "g")],
  ])("refuses %j", (raw) => {
    expect(parseReference(raw)).toMatchObject({ ok: false, code: "syntax-violation" });
  });
  it("round-trips generated GUIDs in mixed case", () => {
    fc.assert(
      fc.property(fc.mixedCase(fc.uuid()), (raw) => {
        const r = parseReference(raw);
        return r.ok && r.value === raw.toLowerCase() && parseReference(r.value).ok;
      }),
    );
  });
  it("refuses GUIDs with one character removed", () => {
    fc.assert(
      fc.property(fc.uuid(), fc.nat(35), (u, i) => {
        return !parseReference(u.slice(0, i) + u.slice(i + 1)).ok;
      }),
    );
  });
});
