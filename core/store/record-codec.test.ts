/**
 * Goal: the record codec is what a node persists per object and what replication carries, so
 * decode(encode(r)) must give back r exactly (every stamp field, absent atoms, meta, null
 * keys, hardened flag), and the stamp order must be the merge order DESIGN.md fixes:
 * version, then originating wall time, then origin; cert and localUsn never take part.
 * Method: property tests with fast-check over generated records and stamps, plus a few
 * hand-written examples; nextStamp is checked to supersede what it follows.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeRecord, encodeRecord } from "./record-codec";
import type { ObjectRecord, ValueAtom } from "./record";
import { atomMapKey, firstValue, maxLocalUsn, presentValues } from "./record";
import type { Stamp } from "./stamp";
import { compareStamps, nextStamp, relocal } from "./stamp";

const guid = fc.uuid({ version: 4 });
const stampArb: fc.Arbitrary<Stamp> = fc.record({
  version: fc.integer({ min: 1, max: 1_000_000 }),
  atMs: fc.integer({ min: 0, max: 4_102_444_800_000 }),
  origin: guid,
  cert: fc.record({ invocation: guid, usn: fc.integer({ min: 1, max: 2 ** 40 }) }),
  localUsn: fc.integer({ min: 1, max: 2 ** 40 }),
});
const text = fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 });
const metaArb = fc.option(
  fc.dictionary(
    fc.constantFrom("expiry", "required", "com.example-since"),
    fc.array(text, { minLength: 1, maxLength: 2 }),
  ),
  { nil: null },
);
const atomArb = (key: string | null): fc.Arbitrary<ValueAtom> =>
  fc.oneof(
    fc.record({
      key: fc.constant(key),
      present: fc.constant(true),
      value: text,
      meta: metaArb,
      stamp: stampArb,
    }),
    fc.record({
      key: fc.constant(key),
      present: fc.constant(false),
      value: fc.constant(null),
      meta: fc.constant(null),
      stamp: stampArb,
    }),
  );
const attrsArb = fc
  .array(
    fc.tuple(
      fc.constantFrom("description", "displayName", "member", "com.example-badge"),
      fc.boolean(),
      fc.uniqueArray(text, { minLength: 1, maxLength: 3 }),
    ),
    { maxLength: 4 },
  )
  .chain((specs) =>
    fc.tuple(
      ...specs.map(([name, single, keys]) =>
        single
          ? atomArb(null).map((a) => [name, [a]] as const)
          : fc.tuple(...keys.map((k) => atomArb(k))).map((atoms) => [name, atoms] as const),
      ),
    ),
  )
  .map((entries) => {
    const attrs = new Map<string, Map<string, ValueAtom>>();
    for (const [name, atoms] of entries) {
      attrs.set(name, new Map(atoms.map((a) => [atomMapKey(a.key), a])));
    }
    return attrs;
  });
const recordArb: fc.Arbitrary<ObjectRecord> = fc.record({
  id: guid,
  existence: fc.record({
    stage: fc.constantFrom("alive" as const, "deleted" as const, "shredded" as const),
    classId: guid,
    className: fc.constantFrom("user", "organizationalUnit", "com.example-employee"),
    system: fc.boolean(),
    deleteRoot: fc.option(guid, { nil: null }),
    stamp: stampArb,
  }),
  placement: fc.record({ parent: fc.option(guid, { nil: null }), name: text, stamp: stampArb }),
  attrs: attrsArb,
  usnChanged: fc.integer({ min: 1, max: 2 ** 40 }),
  hardened: fc.boolean(),
});

describe("record codec", () => {
  it("round-trips every record exactly", () => {
    fc.assert(
      fc.property(recordArb, (record) => {
        const decoded = decodeRecord(encodeRecord(record));
        expect(decoded).toEqual(record);
        expect(encodeRecord(decoded)).toBe(encodeRecord(record));
      }),
      { numRuns: 300 },
    );
  });

  it("keeps a single-valued attribute's null key distinct from any real key", () => {
    const stamp: Stamp = {
      version: 2,
      atMs: 5,
      origin: "o",
      cert: { invocation: "o", usn: 9 },
      localUsn: 9,
    };
    const record: ObjectRecord = {
      id: "r",
      existence: {
        stage: "alive",
        classId: "c",
        className: "user",
        system: false,
        deleteRoot: null,
        stamp,
      },
      placement: { parent: "p", name: "n", stamp },
      attrs: new Map([
        [
          "displayName",
          new Map([
            [atomMapKey(null), { key: null, present: false, value: null, meta: null, stamp }],
          ]),
        ],
      ]),
      usnChanged: 9,
      hardened: false,
    };
    const decoded = decodeRecord(encodeRecord(record));
    expect([...(decoded.attrs.get("displayName")?.values() ?? [])]).toEqual([
      { key: null, present: false, value: null, meta: null, stamp },
    ]);
    expect(presentValues(decoded, "displayName")).toEqual([]);
    expect(firstValue(decoded, "displayName")).toBeNull();
  });

  it("refuses a malformed record with an assertion (corruption is a bug, not a refusal)", () => {
    expect(() => decodeRecord('{"i":"x"}')).toThrow();
    expect(() => decodeRecord("not json")).toThrow();
  });
});

describe("stamps", () => {
  it("order by version, then wall time, then origin; cert and localUsn never count", () => {
    fc.assert(
      fc.property(stampArb, stampArb, (a, b) => {
        const key = (s: Stamp) => [s.version, s.atMs, s.origin] as const;
        const [va, ta, oa] = key(a);
        const [vb, tb, ob] = key(b);
        const expected =
          va !== vb
            ? Math.sign(va - vb)
            : ta !== tb
              ? Math.sign(ta - tb)
              : oa < ob
                ? -1
                : oa > ob
                  ? 1
                  : 0;
        expect(compareStamps(a, b)).toBe(expected);
        expect(compareStamps(b, a)).toBe(-expected);
        expect(compareStamps(a, { ...a, cert: b.cert, localUsn: b.localUsn })).toBe(0);
        expect(compareStamps(relocal(a, 1), a)).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it("nextStamp supersedes what it follows, whatever the clock says", () => {
    fc.assert(
      fc.property(
        stampArb,
        fc.integer({ min: 0, max: 10 ** 13 }),
        guid,
        (prev, atMs, invocation) => {
          const next = nextStamp(prev, { atMs, invocation, usn: 7 });
          expect(compareStamps(next, prev)).toBe(1);
          expect(next).toMatchObject({
            version: prev.version + 1,
            atMs,
            origin: invocation,
            cert: { invocation, usn: 7 },
            localUsn: 7,
          });
        },
      ),
    );
    expect(nextStamp(null, { atMs: 1, invocation: "i", usn: 1 }).version).toBe(1);
  });

  it("maxLocalUsn sees every atom", () => {
    fc.assert(
      fc.property(recordArb, (r) => {
        const all = [r.existence.stamp.localUsn, r.placement.stamp.localUsn];
        for (const atoms of r.attrs.values())
          for (const a of atoms.values()) all.push(a.stamp.localUsn);
        expect(maxLocalUsn(r)).toBe(Math.max(...all));
      }),
      { numRuns: 100 },
    );
  });
});
