// Goal: publicKey is exactly "x25519:" + 64 lowercase hex. Method: table (63/65 hex,
// uppercase hex, uppercase algorithm, other algorithms) and fast-check over generated keys
// and single-character corruptions.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parsePublicKey } from "./public-key-syntax";

const hex64 = "0123456789abcdef".repeat(4);
const hexKey = fc.stringMatching(/^[0-9a-f]{64}$/);

describe("parsePublicKey", () => {
  it("accepts x25519 with 64 lowercase hex unchanged", () => {
    expect(parsePublicKey(`x25519:${hex64}`)).toEqual({ ok: true, value: `x25519:${hex64}` });
  });
  it.each([
    [`x25519:${hex64.slice(1)}`, "64"],
    [`x25519:${hex64}0`, "64"],
    [`x25519:${hex64.toUpperCase()}`, "64"],
    [`x25519:${hex64.slice(1)}A`, "64"],
    [`X25519:${hex64}`, "algorithm"],
    [`ed25519:${hex64}`, "algorithm"],
    [`x25519 :${hex64}`, "algorithm"],
    [`x25519:${hex64} `, "64"],
    [`x25519::${hex64}`, "64"],
    [hex64, "<algorithm>"],
    ["x25519:", "64"],
    ["", "<algorithm>"],
  ])("refuses %j (%s)", (raw, reason) => {
    const r = parsePublicKey(raw);
    expect(r).toMatchObject({ ok: false, code: "syntax-violation" });
    if (!r.ok) expect(r.message).toContain(reason);
  });
  it("accepts generated keys idempotently", () => {
    fc.assert(
      fc.property(hexKey, (h) => {
        const r = parsePublicKey(`x25519:${h}`);
        return r.ok && r.value === `x25519:${h}` && parsePublicKey(r.value).ok;
      }),
    );
  });
  it("refuses a key with one payload character replaced by a non-lowercase-hex one", () => {
    fc.assert(
      fc.property(hexKey, fc.nat(63), fc.constantFrom("A", "F", "g", "z", " ", "-"), (h, i, c) => {
        return !parsePublicKey(`x25519:${h.slice(0, i)}${c}${h.slice(i + 1)}`).ok;
      }),
    );
  });
});
