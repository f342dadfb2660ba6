/**
 * Goal: dampening by a record's stamp summary (built once per record version and reused by
 * every partner's walk) answers exactly as the definition does: no atom of the record
 * (existence, placement, any value of any attribute) is wanted by a destination at `fromUsn`
 * holding `utd`. Method: fast-check builds records with random stamps (few invocations and
 * USNs, so equal stamps, shared certificates and ties on localUsn are common), random vectors
 * and watermarks, and compares with a direct walk of every atom through `wanted`; one summary
 * answers two different requests, as a noted summary does.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { smallStampArb } from "../../test/support/replication-arbitraries";
import type { ObjectRecord, ValueAtom } from "../store/record";
import { atomMapKey } from "../store/record";
import type { Stamp } from "../store/stamp";
import { stampSummary, summarySendsNothing, wanted } from "./dampening";
import type { TravellingVector } from "./messages";
import { flatVector } from "./vector-parts";

const invocations = ["inv-a", "inv-b", "inv-c", "inv-d"];

const stampArb = smallStampArb(invocations);

const recordArb: fc.Arbitrary<ObjectRecord> = fc
  .record({
    e: stampArb,
    p: stampArb,
    attrs: fc.array(fc.array(stampArb, { maxLength: 4 }), { maxLength: 3 }),
  })
  .map(({ e, p, attrs }) => ({
    id: "00000000-0000-4000-8000-000000000001",
    existence: { stage: "alive", classId: "c", className: "user", system: false, deleteRoot: null, stamp: e },
    placement: { parent: null, name: "n", stamp: p },
    attrs: new Map(
      attrs.map((stamps, i) => {
        const atoms = new Map<string, ValueAtom>();
        stamps.forEach((stamp, j) => {
          const atom: ValueAtom = { key: `v${j}`, present: true, value: `v${j}`, meta: null, stamp };
          atoms.set(atomMapKey(atom.key), atom);
        });
        return [`attr${i}`, atoms] as const;
      }),
    ),
    usnChanged: 8,
    hardened: false,
  }));

// Stored entries over the four invocations, and the sender's own entry: one of them (it then
// wins over the stored one, higher or lower) or an invocation of its own.
const utdArb: fc.Arbitrary<TravellingVector> = fc
  .record({
    usns: fc.array(fc.option(fc.integer({ min: 0, max: 7 }), { nil: undefined }), { minLength: 4, maxLength: 4 }),
    own: fc.constantFrom(...invocations, "inv-own"),
    ownUsn: fc.integer({ min: 0, max: 7 }),
  })
  .map(({ usns, own, ownUsn }) => {
    const entries: Record<string, { usn: number; node: string; epoch: number }> = {};
    usns.forEach((usn, i) => {
      if (usn !== undefined) entries[invocations[i]!] = { usn, node: "n", epoch: i };
    });
    return { entries, own: [own, { usn: ownUsn, node: "n", epoch: 9 }] as const };
  });

/** wanted() by its definition, over the vector's flat dictionary (the own entry winning). */
function wantedByDefinition(stamp: Stamp, fromUsn: number, utd: TravellingVector): boolean {
  const seen = flatVector(utd)[stamp.cert.invocation];
  return stamp.localUsn > fromUsn && (seen === undefined || stamp.cert.usn > seen.usn);
}

function byDefinition(record: ObjectRecord, fromUsn: number, utd: TravellingVector): boolean {
  const stamps = [record.existence.stamp, record.placement.stamp];
  for (const atoms of record.attrs.values()) for (const atom of atoms.values()) stamps.push(atom.stamp);
  for (const s of stamps) expect(wanted(s, fromUsn, utd)).toBe(wantedByDefinition(s, fromUsn, utd));
  return !stamps.some((s) => wanted(s, fromUsn, utd));
}

describe("propagation dampening", () => {
  it("one summary agrees with every atom's wanted() for any watermark and vector", () => {
    fc.assert(
      fc.property(
        recordArb,
        fc.integer({ min: 0, max: 8 }),
        utdArb,
        fc.integer({ min: 0, max: 8 }),
        utdArb,
        (record, from1, utd1, from2, utd2) => {
          const summary = stampSummary(record);
          expect(summarySendsNothing(summary, from1, utd1)).toBe(byDefinition(record, from1, utd1));
          expect(summarySendsNothing(summary, from2, utd2)).toBe(byDefinition(record, from2, utd2));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("a record with one atom the vector does not cover sends something", () => {
    const stamp = (inv: string, certUsn: number, localUsn: number): Stamp => ({
      version: 1,
      atMs: 0,
      origin: inv,
      cert: { invocation: inv, usn: certUsn },
      localUsn,
    });
    const atom: ValueAtom = { key: "x", present: true, value: "x", meta: null, stamp: stamp("inv-b", 9, 7) };
    const record: ObjectRecord = {
      id: "00000000-0000-4000-8000-000000000002",
      existence: { stage: "alive", classId: "c", className: "user", system: false, deleteRoot: null, stamp: stamp("inv-a", 1, 1) },
      placement: { parent: null, name: "n", stamp: stamp("inv-a", 1, 1) },
      attrs: new Map([["description", new Map([[atomMapKey("x"), atom]])]]),
      usnChanged: 7,
      hardened: false,
    };
    const entries = { "inv-a": { usn: 5, node: "n", epoch: 1 }, "inv-b": { usn: 8, node: "n", epoch: 2 } };
    const utd: TravellingVector = { entries, own: ["inv-own", { usn: 3, node: "m", epoch: 1 }] };
    const summary = stampSummary(record);
    expect(summarySendsNothing(summary, 0, utd)).toBe(false);
    expect(summarySendsNothing(summary, 7, utd)).toBe(true);
    const b9 = { usn: 9, node: "n", epoch: 2 };
    expect(summarySendsNothing(summary, 0, { ...utd, entries: { ...entries, "inv-b": b9 } })).toBe(true);
    // The sender's own entry wins over its stored entry of the same invocation, either way.
    expect(summarySendsNothing(summary, 0, { entries, own: ["inv-b", b9] })).toBe(true);
    const lower = { ...entries, "inv-b": b9 };
    expect(summarySendsNothing(summary, 0, { entries: lower, own: ["inv-b", { usn: 8, node: "n", epoch: 2 }] })).toBe(false);
  });
});
