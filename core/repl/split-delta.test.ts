/**
 * Goal: an object too large for one batch goes in parts that together carry exactly the atoms
 * the destination may lack, each once, and no part grows past the byte target by more than one
 * atom; a part ending inside the object names where the next part begins, so that one goes
 * on there even when a local compaction dropped atoms in between (which a count would
 * misplace onto an atom never sent).
 * Method: fast-check builds records of random attributes, keys, value sizes and stamps, random
 * vectors, watermarks and byte targets; parts are taken one after another as consecutive
 * batches would (each batch starting empty), and compared with a direct walk through wanted();
 * the cursor's key prefix separates the keys on either side of it, by property.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { smallStampArb } from "../../test/support/replication-arbitraries";
import type { ObjectRecord, ValueAtom } from "../store/record";
import type { Stamp } from "../store/stamp";
import { wanted } from "./dampening";
import type { AtomCursor, TravellingVector } from "./messages";
import { deltaBytes, deltaPart, separator } from "./split-delta";

const invocations = ["inv-a", "inv-b", "inv-c"];

const stampArb = smallStampArb(invocations);

const atomsArb = fc.array(
  fc.record({ key: fc.string({ maxLength: 4 }), size: fc.integer({ min: 0, max: 3000 }), stamp: stampArb }),
  { maxLength: 12 },
);

const recordArb: fc.Arbitrary<ObjectRecord> = fc
  .record({
    e: stampArb,
    p: stampArb,
    attrs: fc.uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 3 }), atomsArb), { selector: (a) => a[0], maxLength: 5 }),
  })
  .map(({ e, p, attrs }) => ({
    id: "00000000-0000-4000-8000-000000000001",
    existence: { stage: "alive", classId: "c", className: "user", system: false, deleteRoot: null, stamp: e },
    placement: { parent: null, name: "n", stamp: p },
    attrs: new Map(
      attrs.map(([name, atoms]) => {
        const map = new Map<string, ValueAtom>();
        for (const a of atoms) {
          map.set(a.key, { key: a.key, present: true, value: "v".repeat(a.size), meta: null, stamp: a.stamp });
        }
        return [name, map] as const;
      }),
    ),
    usnChanged: 8,
    hardened: false,
  }));

const utdArb: fc.Arbitrary<TravellingVector> = fc
  .array(fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }), { minLength: 3, maxLength: 3 })
  .map((usns) => {
    const entries: Record<string, { usn: number; node: string; epoch: number }> = {};
    usns.forEach((usn, i) => {
      if (usn !== undefined) entries[invocations[i]!] = { usn, node: "n", epoch: i };
    });
    return { entries, own: ["inv-own", { usn: 0, node: "n", epoch: 0 }] as const };
  });

type Sent = string; // "existence", "placement" or "attr\u0000key"

function wantedByDefinition(record: ObjectRecord, fromUsn: number, utd: TravellingVector): Sent[] {
  const out: Sent[] = [];
  if (wanted(record.existence.stamp, fromUsn, utd)) out.push("existence");
  if (wanted(record.placement.stamp, fromUsn, utd)) out.push("placement");
  for (const [name, atoms] of record.attrs) {
    for (const [key, atom] of atoms) if (wanted(atom.stamp, fromUsn, utd)) out.push(`${name}\u0000${key}`);
  }
  return out.sort();
}

/** Every part of the record in turn, each one a batch of its own. */
function allParts(record: ObjectRecord, fromUsn: number, utd: TravellingVector, target: number) {
  const parts = [];
  let from: "start" | AtomCursor["next"] = "start";
  for (let i = 0; i < 1000; i++) {
    const part = deltaPart(record, fromUsn, utd, from, 0, target);
    parts.push(part);
    if (part.next === null) return parts;
    from = part.next;
  }
  throw new Error("the object never ended");
}

function sentOf(part: ReturnType<typeof deltaPart>): Sent[] {
  const d = part.delta;
  if (d === null) return [];
  const out: Sent[] = [];
  if (d.existence !== null) out.push("existence");
  if (d.placement !== null) out.push("placement");
  for (const [name, atoms] of d.attrs) for (const atom of atoms) out.push(`${name}\u0000${atom.key}`);
  return out;
}

const largestAtomBytes = 120 + 3000 + 4;
/** The estimate's overhead per object (400), its placement's name ("n") and an attribute's name (<= 3). */
const objectBytes = 400 + 1 + 3;

describe("an object sent in parts", () => {
  it("carries exactly the wanted atoms, each once, every part within the target plus one atom", () => {
    fc.assert(
      fc.property(recordArb, fc.integer({ min: 0, max: 8 }), utdArb, fc.integer({ min: 1, max: 9000 }), (record, fromUsn, utd, target) => {
        const parts = allParts(record, fromUsn, utd, target);
        const sent = parts.flatMap(sentOf);
        expect([...sent].sort()).toEqual(wantedByDefinition(record, fromUsn, utd));
        expect(new Set(sent).size).toBe(sent.length);
        for (const part of parts) {
          if (part.delta !== null) expect(part.bytes).toBe(deltaBytes(part.delta));
          // Below the target before its last atom, which adds itself and its attribute's name;
          // every part counts the object's overhead, the first its placement's name too.
          expect(part.bytes).toBeLessThan(target + largestAtomBytes + objectBytes);
          // Existence and placement travel in the first part only.
          if (part !== parts[0]) expect(sentOf(part).some((s) => s === "existence" || s === "placement")).toBe(false);
        }
        // Every part but the last moves the object on by at least one atom.
        for (const part of parts.slice(0, -1)) expect(sentOf(part).length).toBeGreaterThan(0);
      }),
      { numRuns: 1500 },
    );
  });

  it("goes on where it stopped, though atoms before it were dropped meanwhile", () => {
    const stamp: Stamp = { version: 1, atMs: 0, origin: "inv-a", cert: { invocation: "inv-a", usn: 1 }, localUsn: 5 };
    // Keys sharing long prefixes, as caseless values' keys (the values themselves) may.
    const keys = "abcdefghij".split("").map((k) => `${"shared ".repeat(20)}${k} and more`);
    const atoms = (ks: string[]) =>
      new Map(ks.map((k) => [k, { key: k, present: true, value: k.padEnd(860, "v"), meta: null, stamp } as ValueAtom]));
    const record: ObjectRecord = {
      id: "00000000-0000-4000-8000-000000000002",
      existence: { stage: "alive", classId: "c", className: "user", system: false, deleteRoot: null, stamp },
      placement: { parent: null, name: "n", stamp },
      // Built in no particular order: parts follow key order, not insertion order.
      attrs: new Map([["description", atoms([...keys].reverse())]]),
      usnChanged: 5,
      hardened: false,
    };
    const utd: TravellingVector = { entries: {}, own: ["inv-own", { usn: 0, node: "n", epoch: 0 }] };
    const first = deltaPart(record, 0, utd, "start", 0, 3000);
    const [a, b, c, d, e, f] = keys as [string, string, string, string, string, string];
    expect(sentOf(first)).toEqual(["existence", "placement", ...[a, b, c].map((k) => `description\u0000${k}`)]);
    // The cursor holds the shortest key prefix between the last key sent and the next one.
    expect(first.next).toEqual(["description", `${"shared ".repeat(20)}d`]);
    // A compaction keeping the record's USN drops b and c: the next part still starts at d.
    const compacted: ObjectRecord = { ...record, attrs: new Map([["description", atoms(keys.filter((k) => k !== b && k !== c))]]) };
    const next = deltaPart(compacted, 0, utd, first.next!, 0, 3000);
    expect(sentOf(next)).toEqual([d, e, f].map((k) => `description\u0000${k}`));
  });

  it("separates two keys by the shortest prefix of the second above the first", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (x, y) => {
        fc.pre(x !== y);
        const [last, next] = x < y ? [x, y] : [y, x];
        const s = separator(last, next);
        expect(last < s && s <= next).toBe(true);
        expect(next.startsWith(s)).toBe(true);
        // No shorter prefix of `next` sorts above `last`.
        if (s.length > 0) expect(next.slice(0, s.length - 1) <= last).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});
