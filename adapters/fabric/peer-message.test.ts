/**
 * Goal: the fabric's boundary takes every message a node sends and refuses, with a reason and
 * without throwing, whatever else a peer might send: truncated or corrupted bytes, another
 * version, unknown types or fields, values of the wrong kind anywhere in the message.
 * Method: fast-check messages (test/support/replication-arbitraries.ts) through the core's
 * encoder and the boundary decoder must read as the core's own decoder reads them; then
 * mutated copies of their JSON (a value replaced anywhere, a field removed or added, the bytes
 * cut short) must give a message or a refusal, never an exception; and fixed examples pin
 * each refusal's reason.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeMessage, encodeMessage } from "../../core/repl/wire";
import { messageArb } from "../../test/support/replication-arbitraries";
import { decodePeerMessage, encodePeerMessage } from "./peer-message";

const bytesOf = (json: unknown): Uint8Array => encodePeerMessage(JSON.stringify(json));

/** Every position in a JSON value: a path of keys and indexes. */
function positions(value: unknown, path: Array<string | number> = [], out: Array<Array<string | number>> = []) {
  out.push(path);
  if (Array.isArray(value)) value.forEach((v, i) => positions(v, [...path, i], out));
  else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) positions(v, [...path, k], out);
  }
  return out;
}

/** A deep copy of `value` with the value at `path` replaced (or removed, for `undefined`). */
function replaced(value: unknown, path: ReadonlyArray<string | number>, by: unknown): unknown {
  if (path.length === 0) return by;
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let at: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (by === undefined && !Array.isArray(at)) delete at[last];
  else at[last] = by;
  return copy;
}

const node = "00000000-0000-4000-8000-0000000000ff";
const inv = "00000000-0000-4000-8000-0000000000a1";
const pull = {
  v: 1,
  t: "pull",
  r: 3,
  f: node,
  w: [inv, 10, 5],
  u: { n: [node], e: [[inv, 12, 0, 2]], o: inv },
  m: 100,
};
const stamp = [1, 1767225600000, inv, inv, 7, 7];
const batch = {
  v: 1,
  t: "batch",
  r: 3,
  f: node,
  i: inv,
  c: 1,
  d: [[node, ["alive", inv, "user", 0, null, stamp], [inv, "Bob", stamp], [["description", [[null, 1, "x", null, stamp]]]]]],
  h: 7,
  x: 0,
  u: { n: [node], e: [[inv, 7, 0, 2]], o: inv },
};

describe("a peer's message at the fabric boundary", () => {
  it("accepts every message a node sends and reads it as the core does", () => {
    fc.assert(
      fc.property(messageArb, (m) => {
        const text = encodeMessage(m);
        const got = decodePeerMessage(encodePeerMessage(text));
        expect(got).toEqual({ ok: true, message: decodeMessage(text) });
      }),
      { numRuns: 300 },
    );
  });

  it("never throws on a mutated message: a value replaced or removed anywhere, or a field added", () => {
    fc.assert(
      fc.property(messageArb, fc.nat(), fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }), (m, pick, by) => {
        const json: unknown = JSON.parse(encodeMessage(m));
        const all = positions(json);
        const mutated = replaced(json, all[pick % all.length]!, by);
        const got = decodePeerMessage(bytesOf(mutated));
        if (!got.ok) expect(got.reason).toMatch(/\S/u);
        const added = decodePeerMessage(bytesOf({ ...(json as object), extra: by ?? 1 }));
        expect(added.ok).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it("never throws on bytes cut short or corrupted", () => {
    fc.assert(
      fc.property(messageArb, fc.nat(), fc.integer({ min: 0, max: 255 }), (m, at, byte) => {
        const bytes = encodePeerMessage(encodeMessage(m));
        const cut = decodePeerMessage(bytes.slice(0, at % bytes.length));
        expect(cut.ok).toBe(false);
        const flipped = bytes.slice();
        flipped[at % bytes.length] = byte;
        const got = decodePeerMessage(flipped);
        expect(typeof got.ok).toBe("boolean");
      }),
      { numRuns: 300 },
    );
  });

  it("names why it refuses", () => {
    const refusal = (bytes: Uint8Array, max?: number) => {
      const got = decodePeerMessage(bytes, max);
      return got.ok ? "accepted" : got.reason;
    };
    expect(refusal(bytesOf(pull))).toBe("accepted");
    expect(refusal(bytesOf(batch))).toBe("accepted");
    expect(refusal(bytesOf(pull), 10)).toMatch(/^message of \d+ bytes exceeds 10$/u);
    expect(refusal(Uint8Array.of(0x7b, 0xff, 0x7d))).toBe("not UTF-8");
    expect(refusal(encodePeerMessage('{"v":1,'))).toBe("not JSON");
    expect(refusal(bytesOf([1, 2]))).toBe("not a JSON object");
    expect(refusal(bytesOf({ ...pull, v: 2 }))).toBe("wire version 2 (this node speaks 1)");
    expect(refusal(bytesOf({ t: "hint", f: node }))).toBe("wire version missing (this node speaks 1)");
    expect(refusal(bytesOf({ ...pull, t: "push" }))).toBe('unknown message type "push"');
    expect(refusal(bytesOf({ ...pull, t: "constructor" }))).toBe('unknown message type "constructor"');
    expect(refusal(bytesOf({ ...pull, z: 1 }))).toBe("malformed message (message: pull has unknown field(s) z)");
    expect(refusal(bytesOf({ ...pull, f: node.toUpperCase() }))).toMatch(/^malformed message \(f: expected GUID, got "0{8}-/u);
    expect(refusal(bytesOf({ ...pull, r: -1 }))).toBe("malformed message (r: expected non-negative safe integer, got -1)");
    expect(refusal(bytesOf({ ...pull, m: 0 }))).toMatch(/^malformed message \(m: expected objects per batch >= 1/u);
    expect(refusal(bytesOf({ ...pull, u: { n: [], e: [], o: inv } }))).toMatch(/^malformed message \(u: expected vector with each invocation once and its sender's own entry/u);
    expect(refusal(bytesOf({ ...pull, u: { n: [node], e: [[inv, 1, 0, 0], [inv, 2, 0, 0]], o: inv } }))).toMatch(/each invocation once/u);
    expect(refusal(bytesOf({ ...pull, u: { n: [node], e: [[inv, 1, 1, 0]], o: inv } }))).toMatch(/^malformed message \(u: expected vector with .* a table its entries point into/u);
    expect(refusal(bytesOf({ ...pull, u: { n: [node, node], e: [[inv, 1, 0, 0]], o: inv } }))).toMatch(/^malformed message \(u: expected vector with .* naming each node once/u);
    expect(refusal(bytesOf({ ...batch, x: 1, p: [7, "description", "k"] }))).toBe("accepted");
    expect(refusal(bytesOf({ ...batch, x: 1, p: [7, "description", ""] }))).toBe("accepted");
    expect(refusal(bytesOf({ ...batch, x: 0, p: [7, "description", ""] }))).toMatch(/^malformed message \(message: expected batch that ends inside an object \(p\) with more to come/u);
    expect(refusal(bytesOf({ ...batch, x: 1, p: [7, "description"] }))).toMatch(/^malformed message \(p: /u);
    expect(refusal(bytesOf({ ...pull, w: [inv, 3, 2, [3, "a", "b"]] }))).toBe("accepted");
    expect(refusal(bytesOf({ ...pull, w: [inv, 3, 2, [-3, "a", "b"]] }))).toMatch(/^malformed message \(w/u);
    expect(refusal(bytesOf({ ...pull, w: [inv, 3, 2, [3]] }))).toMatch(/^malformed message \(w/u);
    // A wall time no timestamp can show (beyond the year 9999) would trip the renderer.
    const farStamp = replaced(batch, ["d", 0, 2, 2], [1, 10 ** 16, inv, inv, 7, 7]);
    expect(refusal(bytesOf(farStamp))).toMatch(/^malformed message \(d\.0\.2\.2\.1: expected instant within the years 0-9999/u);
    const shortStamp = replaced(batch, ["d", 0, 2, 2], [1, 2, inv, inv, 7]);
    expect(refusal(bytesOf(shortStamp))).toBe("malformed message (d.0.2.2: stamp must be an array of 6)");
    const badStage = replaced(batch, ["d", 0, 1, 0], "gone");
    expect(refusal(bytesOf(badStage))).toMatch(/^malformed message \(d\.0\.1\.0: expected "alive" \| "deleted" \| "shredded", got "gone"\)$/u);
    const protoMeta = encodePeerMessage(
      JSON.stringify(batch).replace('[null,1,"x",null,', '[null,1,"x",{"__proto__":["y"]},'),
    );
    expect(refusal(protoMeta)).toMatch(/^malformed message \(d\.0\.3\.0\.1\.0\.3: expected meta without __proto__/u);
    const badLife = replaced(batch, ["d", 0, 3, 0, 1, 0], [null, 1, "x", null, stamp, 1]);
    expect(refusal(bytesOf(badLife))).toMatch(/^malformed message \(d\.0\.3\.0\.1\.0(\.5)?: /u);
  });
});
