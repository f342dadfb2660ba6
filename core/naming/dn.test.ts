// Goal: DN composition and RFC 4514 escaping exactly as SPEC "Naming rules" words them.
// Method: the SPEC examples and boundary cases as a table; fast-check properties that an
// escaped value never exposes an unescaped special character, that unescape inverts escape,
// and that composeDn keeps the components leaf-first.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { composeDn, escapeDnValue, unescapeDnValue } from "./dn";

const specials = ['"', "+", ",", ";", "<", ">", "\\"];
const dnText = fc.string({
  unit: fc.oneof(
    fc.constantFrom(...specials, " ", "#", "=", "a", "é", "😀"),
    fc.string({ unit: "grapheme", maxLength: 1 }),
  ),
});

/** True when every special character, the leading ' '/'#' and trailing ' ' are escaped. */
function isSafelyEscaped(escaped: string): boolean {
  for (let i = 0; i < escaped.length; i++) {
    const ch = escaped.charAt(i);
    if (ch === "\\") {
      if (i + 1 >= escaped.length) return false;
      i++;
      continue;
    }
    if (specials.includes(ch)) return false;
    if (i === 0 && (ch === " " || ch === "#")) return false;
    if (i === escaped.length - 1 && ch === " ") return false;
  }
  return true;
}

/** Splits a DN at commas that are not escaped. */
function splitDn(dn: string): string[] {
  const parts: string[] = [];
  let current = "";
  for (let i = 0; i < dn.length; i++) {
    const ch = dn.charAt(i);
    if (ch === "\\") {
      current += ch + dn.charAt(i + 1);
      i++;
    } else if (ch === ",") {
      parts.push(current);
      current = "";
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

describe("escapeDnValue", () => {
  it.each([
    ["Alice", "Alice"],
    ["Smith, John", "Smith\\, John"],
    ['a"b+c,d;e<f>g\\h', 'a\\"b\\+c\\,d\\;e\\<f\\>g\\\\h'],
    ["#1", "\\#1"],
    ["a#1", "a#1"],
    [" lead", "\\ lead"],
    ["trail ", "trail\\ "],
    ["in side", "in side"],
    ["  two  ", "\\  two \\ "],
    [" ", "\\ "],
    ["#", "\\#"],
    ["a=b", "a=b"],
    ["Ünïcödé 😀", "Ünïcödé 😀"],
    ["", ""],
  ])("escapes %j as %j", (raw, escaped) => {
    expect(escapeDnValue(raw)).toBe(escaped);
  });

  it("never leaves a special character unescaped", () => {
    fc.assert(fc.property(dnText, (s) => isSafelyEscaped(escapeDnValue(s))), { numRuns: 3000 });
  });
  it("round-trips through unescapeDnValue", () => {
    fc.assert(fc.property(dnText, (s) => unescapeDnValue(escapeDnValue(s)) === s), {
      numRuns: 3000,
    });
  });
  it("adds exactly one backslash per escaped character and nothing else", () => {
    fc.assert(
      fc.property(dnText, (s) => escapeDnValue(s).replace(/\\(.)/gsu, "$1") === s),
    );
  });
});

describe("unescapeDnValue", () => {
  it("accepts RFC 4514 character escapes and refuses what escapeDnValue never emits", () => {
    expect(unescapeDnValue("a\\=b")).toBe("a=b");
    expect(unescapeDnValue("a\\")).toBeNull();
    expect(unescapeDnValue("\\41")).toBeNull();
    expect(unescapeDnValue("\\x")).toBeNull();
  });
});

describe("composeDn", () => {
  it("joins components leaf-first and omits the root", () => {
    expect(composeDn([])).toBe("");
    expect(composeDn([{ prefix: "cn", name: "Configuration" }])).toBe("cn=Configuration");
    expect(
      composeDn([
        { prefix: "cn", name: "Smith, John" },
        { prefix: "ou", name: "Users" },
        { prefix: "o", name: " Acme" },
      ]),
    ).toBe("cn=Smith\\, John,ou=Users,o=\\ Acme");
  });
  it("asserts that prefixes are RFC 4512 keystrings", () => {
    expect(() => composeDn([{ prefix: "1cn", name: "a" }])).toThrow(/dnPrefix/);
    expect(() => composeDn([{ prefix: "c n", name: "a" }])).toThrow(/dnPrefix/);
  });
  it("keeps one component per input, in order, each recoverable", () => {
    const component = fc.record({
      prefix: fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,8}$/),
      name: dnText,
    });
    fc.assert(
      fc.property(fc.array(component, { minLength: 1, maxLength: 6 }), (cs) => {
        const parts = splitDn(composeDn(cs));
        if (parts.length !== cs.length) return false;
        return cs.every((c, i) => {
          const part = parts[i] ?? "";
          const eq = part.indexOf("=");
          return part.slice(0, eq) === c.prefix && unescapeDnValue(part.slice(eq + 1)) === c.name;
        });
      }),
    );
  });
});
