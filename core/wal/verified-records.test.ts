/**
 * Goal: a scan through VerifiedRecords returns exactly what scanLog returns for the same
 * bytes, whatever the memo holds (records of this log, of a previous version of it, encoded by
 * a writer) and whatever happened to the bytes since (truncation, bit flips); a record noted
 * as encoded is noted only when decoding gives its batch back; passes drop what the last
 * snapshot did not use. Method: fast-check over random batches (lone surrogates and leading
 * byte-order marks included) and damage, compared with scanLog.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { KvBatch } from "./kv-batch";
import { decodeRecordAt, encodeRecord, scanLog } from "./record-codec";
import { scanLogVerified, utf8RoundTrips, VerifiedRecords } from "./verified-records";

const text = fc.oneof(
  fc.string({ maxLength: 30, unit: "grapheme" }),
  fc.string({ maxLength: 30, unit: "binary" }),
  fc.string({ maxLength: 10 }).map((s) => `\ufeff${s}`),
);
const key = text.filter((k) => k.length > 0);
const batchArb: fc.Arbitrary<KvBatch> = fc.record({
  puts: fc.array(fc.tuple(key, text), { maxLength: 4 }),
  dels: fc.array(key, { maxLength: 2 }),
});

function encodeLog(batches: readonly KvBatch[]): { log: Uint8Array; records: Uint8Array[] } {
  const records = batches.map((b, i) => encodeRecord(i + 1, b));
  const log = new Uint8Array(records.reduce((n, r) => n + r.length, 0));
  let at = 0;
  for (const r of records) {
    log.set(r, at);
    at += r.length;
  }
  return { log, records };
}

/** Damage: a cut at some offset, or one flipped bit, or none. */
const damageArb = fc.oneof(
  fc.constant({ kind: "none" as const }),
  fc.record({ kind: fc.constant("cut" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("flip" as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
);

function damaged(
  log: Uint8Array,
  d: { kind: "none" } | { kind: "cut"; at: number } | { kind: "flip"; at: number; bit: number },
) {
  if (d.kind === "none" || log.length === 0) return log;
  if (d.kind === "cut") return log.slice(0, d.at % (log.length + 1));
  const out = log.slice();
  out[d.at % out.length]! ^= 1 << d.bit;
  return out;
}

describe("scanLogVerified", () => {
  it("returns what scanLog returns, whatever the memo learnt before", () => {
    fc.assert(
      fc.property(
        fc.array(batchArb, { maxLength: 6 }),
        fc.array(batchArb, { maxLength: 6 }),
        damageArb,
        fc.boolean(),
        (before, after, damage, viaWriter) => {
          const verified = new VerifiedRecords();
          // The memo learns a log (as a writer's records or by scanning it), then sees another.
          const first = encodeLog(before);
          if (viaWriter) {
            before.forEach((batch, i) =>
              verified.noteEncoded({ seq: i + 1, batch, bytes: first.records[i]! }),
            );
          } else scanLogVerified(first.log, 1, verified);
          for (const log of [first.log, encodeLog([...before, ...after]).log]) {
            const bytes = damaged(log, damage);
            const expected = scanLog(bytes, 1);
            // Twice: the second scan answers from what the first one noted.
            expect(scanLogVerified(bytes, 1, verified)).toEqual(expected);
            expect(scanLogVerified(bytes, 1, verified)).toEqual(expected);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("answers a known record without decoding, and its batch is frozen", () => {
    const batch: KvBatch = { puts: [["o/a", '{"x":1}']], dels: [] };
    const bytes = encodeRecord(1, batch);
    const verified = new VerifiedRecords();
    verified.noteEncoded({ seq: 1, batch, bytes });
    const scan = scanLogVerified(bytes.slice(), 1, verified);
    expect(scan.records[0]?.batch).toBe(batch);
    expect(Object.isFrozen(batch.puts)).toBe(true);
    expect(verified.bytes).toBe(bytes.length);
  });
});

describe("noteEncoded", () => {
  it("notes a batch only when decoding its bytes gives it back", () => {
    fc.assert(
      fc.property(batchArb, (batch) => {
        const bytes = encodeRecord(1, batch);
        const verified = new VerifiedRecords();
        verified.noteEncoded({ seq: 1, batch, bytes });
        const decoded = decodeRecordAt(bytes, 0);
        const roundTrips = JSON.stringify(decoded?.batch) === JSON.stringify(batch);
        expect(verified.bytes > 0).toBe(roundTrips);
      }),
      { numRuns: 500 },
    );
  });

  it("utf8RoundTrips: lone surrogates do not, a leading BOM does", () => {
    expect(utf8RoundTrips("plain")).toBe(true);
    expect(utf8RoundTrips("")).toBe(true);
    expect(utf8RoundTrips("a\ud83d\ude00b")).toBe(true);
    expect(utf8RoundTrips("a\ud83db")).toBe(false);
    expect(utf8RoundTrips("\ude00")).toBe(false);
    expect(utf8RoundTrips("\ufeffx")).toBe(true);
    expect(utf8RoundTrips("x\ufeff")).toBe(true);
  });
});

describe("passes", () => {
  it("keep only the records the last pass used", () => {
    const a = encodeRecord(1, { puts: [["a", "1"]], dels: [] });
    const b = encodeRecord(1, { puts: [["b", "2"]], dels: [] });
    const verified = new VerifiedRecords();
    verified.beginPass();
    scanLogVerified(a, 1, verified);
    verified.endPass();
    expect(verified.bytes).toBe(a.length);
    verified.beginPass();
    scanLogVerified(b, 1, verified);
    verified.endPass();
    expect(verified.bytes).toBe(b.length);
    // A hit counts as use.
    verified.beginPass();
    scanLogVerified(b, 1, verified);
    verified.endPass();
    expect(verified.bytes).toBe(b.length);
  });

  it("hold at most maxBytes", () => {
    const a = encodeRecord(1, { puts: [["a", "1"]], dels: [] });
    const verified = new VerifiedRecords(undefined, a.length - 1);
    scanLogVerified(a, 1, verified);
    expect(verified.bytes).toBe(0);
    expect(scanLogVerified(a, 1, verified)).toEqual(scanLog(a, 1));
  });
});
