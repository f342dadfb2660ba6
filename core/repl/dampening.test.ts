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
import type { ObjectRecord, ValueAtom } from "../store/record";
import { atomMapKey } from "../store/record";
import type { Stamp } from "../store/stamp";
import { stampSummary, summarySendsNothing, wanted } from "./dampening";
import type { UtdVector } from "./messages";

const invocations = ["inv-a", "inv-b", "inv-c", "inv-d"];

const stampArb: fc.Arbitrary<Stamp> = fc
  .record({
    inv: fc.integer({ min: 0, max: 3 }),
    certUsn: fc.integer({ min: 1, max: 6 }),
    localUsn: fc.integer({ min: 1, max: 8 }),
  })
  .map(({ inv, certUsn, localUsn }) => ({
    version: 1,
    atMs: 0,
    origin: invocations[inv]!,
    cert: { invocation: invocations[inv]!, usn: certUsn },
    localUsn,
  }));

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

const utdArb: fc.Arbitrary<UtdVector> = fc
  .array(fc.option(fc.integer({ min: 0, max: 7 }), { nil: undefined }), { minLength: 4, maxLength: 4 })
  .map((usns) => {
    const out: Record<string, { usn: number; node: string }> = {};
    usns.forEach((usn, i) => {
      if (usn !== undefined) out[invocations[i]!] = { usn, node: "n" };
    });
    return out;
  });

function byDefinition(record: ObjectRecord, fromUsn: number, utd: UtdVector): boolean {
  const stamps = [record.existence.stamp, record.placement.stamp];
  for (const atoms of record.attrs.values()) for (const atom of atoms.values()) stamps.push(atom.stamp);
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
    const utd = { "inv-a": { usn: 5, node: "n" }, "inv-b": { usn: 8, node: "n" } };
    const summary = stampSummary(record);
    expect(summarySendsNothing(summary, 0, utd)).toBe(false);
    expect(summarySendsNothing(summary, 7, utd)).toBe(true);
    expect(summarySendsNothing(summary, 0, { ...utd, "inv-b": { usn: 9, node: "n" } })).toBe(true);
  });
});
