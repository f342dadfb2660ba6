/**
 * Goal: a replication message survives its wire form with everything the receiver reads:
 * every field of every message type, every part of a delta (stamps with their certificates,
 * lives beyond the first, meta, absent atoms, missing parts), and the vector as the receiver
 * reads it (each invocation's entry, the sender's own entry winning over its stored one).
 * Method: fast-check generates messages of each type; decode(encode(m)) must read the same as
 * m through the readers replication uses (entryOf, flatVector, the deltas' atoms) and merge
 * into the same records; then fixed examples pin the format's version and field names, and
 * that decoded messages share nothing with the sent ones.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deltaArb, guidArb, messageArb } from "../../test/support/replication-arbitraries";
import { mergeRecord } from "../merge/merge-record";
import type { ObjectDelta } from "../merge/object-delta";
import type { ValueAtom } from "../store/record";
import type { Stamp } from "../store/stamp";
import type { PullBatch, PullRequest, ReplicationMessage, TravellingVector } from "./messages";
import { entryOf, flatVector } from "./vector-parts";
import { decodeMessage, encodeMessage, toWire } from "./wire";

const roundTrip = (m: ReplicationMessage): ReplicationMessage => decodeMessage(encodeMessage(m));

/** What a receiver reads of a vector: each invocation's entry, the own one winning. */
function vectorReading(v: TravellingVector): unknown {
  const invocations = [...new Set([...Object.keys(v.entries), v.own[0]])].sort();
  return { own: v.own[0], flat: flatVector(v), each: invocations.map((inv) => [inv, entryOf(v, inv)?.usn, entryOf(v, inv)?.node]) };
}

/** An atom as merge and storage read it (an absent life is life 1). */
function atomReading(a: ValueAtom): unknown {
  return [a.key, a.present, a.value, a.meta, a.stamp, a.life ?? 1];
}

function deltaReading(d: ObjectDelta): unknown {
  return [d.id, d.existence, d.placement, d.attrs.map(([name, atoms]) => [name, atoms.map(atomReading)])];
}

function reading(m: ReplicationMessage): unknown {
  switch (m.type) {
    case "hint":
    case "refused":
      return m;
    case "pull":
      return { ...m, utd: vectorReading(m.utd) };
    case "batch":
      return { ...m, deltas: m.deltas.map(deltaReading), utd: m.utd === null ? null : vectorReading(m.utd) };
  }
}

describe("replication messages on the wire", () => {
  it("read the same after a round trip, whatever the message", () => {
    fc.assert(
      fc.property(messageArb, (m) => {
        expect(reading(roundTrip(m))).toEqual(reading(m));
      }),
      { numRuns: 400 },
    );
  });

  it("merge into the same records after a round trip (a batch's deltas, in order)", () => {
    fc.assert(
      fc.property(fc.array(deltaArb, { minLength: 1, maxLength: 4 }), guidArb, (deltas, id) => {
        // One object: one id and one class (a class never changes; merge asserts it).
        const sameObject = deltas.map((d) => ({
          ...d,
          id,
          existence: d.existence === null ? null : { ...d.existence, classId: id, className: "user" },
        }));
        const batch: PullBatch = {
          type: "batch",
          requestId: 1,
          from: id,
          invocation: id,
          continued: true,
          deltas: sameObject,
          highUsn: 1,
          more: false,
          utd: null,
        };
        const received = roundTrip(batch) as PullBatch;
        const merged = (list: readonly ObjectDelta[]) => {
          let record: ReturnType<typeof mergeRecord>["record"] | undefined;
          list.forEach((d, i) => {
            const out = mergeRecord(record ?? undefined, d, i + 1);
            if (out.record !== null) record = out.record;
          });
          return record ?? null;
        };
        expect(merged(received.deltas)).toEqual(merged(sameObject));
      }),
      { numRuns: 200 },
    );
  });

  it("is deterministic text: equal messages encode to equal bytes, and a re-encoding is stable", () => {
    fc.assert(
      fc.property(messageArb, (m) => {
        const text = encodeMessage(m);
        expect(encodeMessage(roundTrip(m))).toBe(text);
      }),
      { numRuns: 200 },
    );
  });

  it("names its version and type, and carries a vector flat, sorted and without private fields", () => {
    const own = "00000000-0000-4000-8000-0000000000c3";
    const other = "00000000-0000-4000-8000-0000000000a1";
    const node = "00000000-0000-4000-8000-0000000000ff";
    const pull: PullRequest = {
      type: "pull",
      requestId: 7,
      from: node,
      watermark: { invocation: other, usn: 40, propUsn: 30 },
      utd: {
        entries: { [own]: { usn: 5, node, epoch: 2, syncedAtMs: 99 } as never, [other]: { usn: 12, node: other, epoch: 4 } },
        own: [own, { usn: 9, node, epoch: 2 }],
      },
      objectsMax: 100,
    };
    const wire = toWire(pull);
    expect(wire).toEqual({
      v: 1,
      t: "pull",
      r: 7,
      f: node,
      w: [other, 40, 30],
      u: { n: [other, node], e: [[other, 12, 0, 4], [own, 9, 1, 2]], o: own },
      m: 100,
    });
    expect(encodeMessage(pull)).not.toContain("syncedAtMs");
    expect(encodeMessage({ type: "hint", from: node })).toBe(`{"v":1,"t":"hint","f":"${node}"}`);
  });

  it("hands the receiver objects of its own: nothing of the sent message is shared", () => {
    const stamp: Stamp = { version: 1, atMs: 5, origin: "o", cert: { invocation: "o", usn: 3 }, localUsn: 3 };
    const atom: ValueAtom = { key: "k", present: true, value: "v", meta: { role: ["a"] }, stamp };
    const batch: PullBatch = {
      type: "batch",
      requestId: 1,
      from: "s",
      invocation: "o",
      continued: false,
      deltas: [{ id: "x", existence: null, placement: null, attrs: [["description", [atom]]] }],
      highUsn: 3,
      more: true,
      utd: null,
    };
    const received = roundTrip(batch) as PullBatch;
    const got = received.deltas[0]!.attrs[0]![1][0]!;
    expect(got).toEqual(atom);
    expect(got).not.toBe(atom);
    expect(got.meta).not.toBe(atom.meta);
    expect(got.stamp).not.toBe(atom.stamp);
  });
});
