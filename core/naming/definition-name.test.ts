// Goal: definition, namespace and dnPrefix names follow SPEC "Naming rules" and our
// documented decisions (ASCII letters/digits, reserved x/gip/dir, first-segment reservation
// of gip/dir). Method: tables of examples, and fast-check against regex oracles plus a
// wireName/parseWireName round trip.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  isDefinitionName,
  isDnPrefix,
  isNamespaceName,
  isReservedDefinitionName,
  isReservedNamespaceName,
  parseWireName,
  validateDefinitionName,
  validateDnPrefix,
  validateNamespaceName,
  wireName,
} from "./definition-name";

const defName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9]{0,15}$/);
const nsName = fc
  .array(defName, { minLength: 1, maxLength: 4 })
  .map((segments) => segments.join("."));
const nameishChars = fc.string({
  unit: fc.constantFrom("a", "Z", "0", "9", "-", ".", "_", "é", " ", "x"),
  maxLength: 10,
});

describe("definition names", () => {
  it.each([["cn"], ["networkAddress"], ["a1"], ["X1"], ["xx"], ["Zz9"]])("accepts %j", (s) => {
    expect(isDefinitionName(s)).toBe(true);
    expect(validateDefinitionName(s)).toEqual({ ok: true, value: s });
  });
  it.each([
    ["", "empty"],
    ["1a", "letter"],
    ["a-b", "letter"],
    ["a_b", "letter"],
    ["a.b", "letter"],
    ["é", "letter"],
    ["a b", "letter"],
    ["x", "reserved"],
    ["X", "reserved"],
    ["a".repeat(256), "255"],
  ])("refuses %j (%s)", (s, reason) => {
    const r = validateDefinitionName(s);
    expect(r).toMatchObject({ ok: false, code: "invalid-name" });
    if (!r.ok) expect(r.message).toContain(reason);
  });
  it("matches the ASCII grammar on generated text", () => {
    fc.assert(
      fc.property(nameishChars, (s) => {
        const grammar = /^[A-Za-z][A-Za-z0-9]*$/.test(s);
        return isDefinitionName(s) === grammar &&
          validateDefinitionName(s).ok === (grammar && s.toLowerCase() !== "x");
      }),
      { numRuns: 3000 },
    );
  });
  it("reserves only x, caselessly", () => {
    expect(isReservedDefinitionName("x")).toBe(true);
    expect(isReservedDefinitionName("X")).toBe(true);
    expect(isReservedDefinitionName("xy")).toBe(false);
    expect(isReservedDefinitionName("gip")).toBe(false);
  });
});

describe("namespace names", () => {
  const good = ["com.example", "Acme", "org.acme.hr2", "xy", "x.example", "gipsy", "dirt.x"];
  it.each(good.map((s) => [s]))("accepts %j", (s) => {
    expect(validateNamespaceName(s)).toEqual({ ok: true, value: s });
  });
  it.each([
    ["", "empty"],
    ["com.", "segments"],
    [".com", "segments"],
    ["com..example", "segments"],
    ["com.1example", "segments"],
    ["com-example", "segments"],
    ["gip", "reserved"],
    ["GIP", "reserved"],
    ["dir", "reserved"],
    ["Dir", "reserved"],
    ["x", "reserved"],
    ["X", "reserved"],
    ["gip.relay", "reserved"],
    ["DIR.drs.more", "reserved"],
  ])("refuses %j (%s)", (s, reason) => {
    const r = validateNamespaceName(s);
    expect(r).toMatchObject({ ok: false, code: "invalid-name" });
    if (!r.ok) expect(r.message).toContain(reason);
  });
  it("reserves gip/dir by first segment and x as a whole name", () => {
    expect(isReservedNamespaceName("gip.anything")).toBe(true);
    expect(isReservedNamespaceName("com.gip")).toBe(false);
    expect(isReservedNamespaceName("x.y")).toBe(false);
  });
  it("matches the dotted grammar on generated text", () => {
    fc.assert(
      fc.property(nameishChars, (s) => {
        const grammar = /^[A-Za-z][A-Za-z0-9]*(\.[A-Za-z][A-Za-z0-9]*)*$/.test(s);
        return isNamespaceName(s) === grammar;
      }),
      { numRuns: 3000 },
    );
  });
});

describe("dnPrefix", () => {
  it("follows the RFC 4512 keystring grammar", () => {
    for (const ok of ["cn", "ou", "dc", "a-b", "a1-", "X"]) expect(isDnPrefix(ok)).toBe(true);
    for (const bad of ["", "1a", "-a", "a_b", "a b", "é", "a.b"]) {
      expect(isDnPrefix(bad)).toBe(false);
      expect(validateDnPrefix(bad)).toMatchObject({ ok: false, code: "invalid-name" });
    }
  });
});

describe("wire names", () => {
  it("prefixes namespaced definitions and leaves base ones bare", () => {
    expect(wireName(null, "cn")).toBe("cn");
    expect(wireName("com.example", "badge")).toBe("com.example-badge");
  });
  it("parses what wireName renders", () => {
    fc.assert(
      fc.property(fc.option(nsName, { nil: null }), defName, (ns, name) => {
        expect(parseWireName(wireName(ns, name))).toEqual({ namespace: ns, name });
      }),
    );
  });
  it("refuses malformed wire names", () => {
    for (const bad of ["", "-a", "a-", "a-b-c", "a.-b", "1-a", "a-1"]) {
      expect(parseWireName(bad)).toBeNull();
    }
  });
});
