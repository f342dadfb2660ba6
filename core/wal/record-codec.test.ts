/**
 * Goal: the record codec round-trips batches, and scanning never throws and never returns
 * anything but a prefix of what was written, whatever the bytes. Method: fast-check properties
 * over random batches (unicode strings included), random garbage, truncation at every offset of
 * a valid log, bit flips anywhere, and out-of-sequence records.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeKvBatch, encodeKvBatch, type KvBatch } from "./kv-batch";
import { crc32Portable } from "./crc32";
import {
  encodeRecord,
  encodeRecordScratch,
  forEachPutRange,
  LogScanner,
  scanLog,
  scanLogFinalValues,
  supersededValue,
} from "./record-codec";

const key = fc.string({ minLength: 1, maxLength: 24, unit: "grapheme" });
const batchArb: fc.Arbitrary<KvBatch> = fc.record({
  puts: fc.array(fc.tuple(key, fc.string({ maxLength: 64, unit: "grapheme" })), { maxLength: 5 }),
  dels: fc.array(key, { maxLength: 4 }),
});

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function logOf(batches: KvBatch[], firstSeq = 1): { log: Uint8Array; ends: number[] } {
  const records = batches.map((b, i) => encodeRecord(firstSeq + i, b));
  const ends: number[] = [];
  let at = 0;
  for (const r of records) ends.push((at += r.length));
  return { log: concat(records), ends };
}

describe("kv batch", () => {
  it("round-trips", () => {
    fc.assert(
      fc.property(batchArb, (batch) => {
        expect(decodeKvBatch(encodeKvBatch(batch))).toEqual(batch);
      }),
    );
  });

  it("decodes garbage to null or a batch, never throws", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const batch = decodeKvBatch(bytes);
        expect(batch === null || Array.isArray(batch.puts)).toBe(true);
      }),
    );
  });
});

/** The record layout written out plainly (one TextEncoder buffer per string). */
function referenceRecord(seq: number, batch: KvBatch): Uint8Array {
  const text = new TextEncoder();
  const parts: Uint8Array[] = [];
  const u32 = (n: number): Uint8Array => {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, n, true);
    return b;
  };
  const str = (s: string): void => {
    const b = text.encode(s);
    parts.push(u32(b.length), b);
  };
  parts.push(u32(seq % 2 ** 32), u32(Math.floor(seq / 2 ** 32)));
  parts.push(Uint8Array.of(1), u32(batch.puts.length), u32(batch.dels.length));
  for (const [k, v] of batch.puts) {
    str(k);
    str(v);
  }
  for (const k of batch.dels) str(k);
  const payload = concat(parts);
  const length = u32(payload.length);
  const crc = crc32Portable(payload, 0, payload.length, crc32Portable(length));
  return concat([length, u32(crc), payload]);
}

describe("record encoding", () => {
  it("writes the documented layout, from the scratch buffer and copied alike", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 2 ** 40 }), batchArb)), (records) => {
        for (const [seq, batch] of records) {
          const expected = referenceRecord(seq, batch);
          expect(encodeRecordScratch(seq, batch)).toEqual(expected);
          expect(encodeRecord(seq, batch)).toEqual(expected);
        }
      }),
    );
  });

  it("hands out the scratch buffer until the next encoding, and copies that stay", () => {
    const a = { puts: [["k", "a".repeat(100)]] as [string, string][], dels: [] };
    const b = { puts: [["k", "b".repeat(100)]] as [string, string][], dels: [] };
    const copy = encodeRecord(1, a);
    const scratch = encodeRecordScratch(1, a);
    expect(scratch).toEqual(copy);
    encodeRecordScratch(1, b);
    expect(scratch).not.toEqual(copy);
    expect(copy).toEqual(referenceRecord(1, a));
  });
});

describe("scanLog", () => {
  it("returns every record of a clean log, in order", () => {
    fc.assert(
      fc.property(fc.array(batchArb, { maxLength: 8 }), (batches) => {
        const { log } = logOf(batches);
        const scan = scanLog(log, 1);
        expect(scan.records.map((r) => r.batch)).toEqual(batches);
        expect(scan.records.map((r) => r.seq)).toEqual(batches.map((_, i) => i + 1));
        expect(scan).toMatchObject({ validBytes: log.length, tornBytes: 0 });
      }),
    );
  });

  it("never throws on random bytes and accounts for every byte", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), (bytes) => {
        const scan = scanLog(bytes);
        expect(scan.validBytes + scan.tornBytes).toBe(bytes.length);
      }),
      { numRuns: 500 },
    );
  });

  it("keeps exactly the whole records when truncated at any offset", () => {
    fc.assert(
      fc.property(fc.array(batchArb, { minLength: 1, maxLength: 5 }), (batches) => {
        const { log, ends } = logOf(batches);
        for (let cut = 0; cut <= log.length; cut++) {
          const scan = scanLog(log.subarray(0, cut), 1);
          const whole = ends.filter((end) => end <= cut).length;
          expect(scan.records.length).toBe(whole);
          expect(scan.validBytes).toBe(whole === 0 ? 0 : ends[whole - 1]);
          expect(scan.tornBytes).toBe(cut - scan.validBytes);
        }
      }),
      { numRuns: 50 },
    );
  });

  it("returns only a prefix of the records after a bit flip", () => {
    const batchesArb = fc.array(batchArb, { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(batchesArb, fc.nat(), fc.nat(7), (batches, pos, bit) => {
        const { log, ends } = logOf(batches);
        const damaged = log.slice();
        const at = pos % damaged.length;
        damaged[at] = (damaged[at] ?? 0) ^ (1 << bit);
        const scan = scanLog(damaged, 1);
        const hit = ends.findIndex((end) => at < end);
        expect(scan.records.length).toBe(hit);
        expect(scan.records.map((r) => r.batch)).toEqual(batches.slice(0, hit));
      }),
      { numRuns: 500 },
    );
  });

  it("stops at a record out of sequence", () => {
    const a = encodeRecord(1, { puts: [["k", "1"]], dels: [] });
    const c = encodeRecord(3, { puts: [["k", "3"]], dels: [] });
    const scan = scanLog(concat([a, c]));
    expect(scan.records.map((r) => r.seq)).toEqual([1]);
    expect(scan.tornBytes).toBe(c.length);
    expect(scanLog(a, 2).records).toEqual([]);
  });

  it("scans incrementally in bounded steps", () => {
    const batches = Array.from(
      { length: 10 },
      (_, i): KvBatch => ({ puts: [[`k${i}`, "v"]], dels: [] }),
    );
    const { log } = logOf(batches);
    const scanner = new LogScanner(log, 1);
    const sizes: number[] = [];
    for (let i = 0; i < 10 && !scanner.done; i++) sizes.push(scanner.step(4).length);
    expect(sizes).toEqual([4, 4, 2]);
    expect(scanner.validBytes).toBe(log.length);
    const byBytes = new LogScanner(log, 1);
    expect(byBytes.step(100, 1).length).toBe(1); // a byte budget still makes progress
    expect(byBytes.step(100, 3 * (log.length / 10)).length).toBe(3);
  });
});

describe("scanLogFinalValues", () => {
  // Keys from a small set, so that later records put and delete earlier records' keys.
  const smallKey = fc.constantFrom("a", "b", "c", "é", "k/1");
  const overlapping: fc.Arbitrary<KvBatch> = fc.record({
    puts: fc.array(fc.tuple(smallKey, fc.string({ maxLength: 16, unit: "grapheme" })), { maxLength: 4 }),
    dels: fc.array(smallKey, { maxLength: 2 }),
  });
  const applied = (start: ReadonlyArray<readonly [string, string]>, batches: readonly KvBatch[]): [string, string][] => {
    const map = new Map(start);
    for (const b of batches) {
      for (const [k, v] of b.puts) map.set(k, v);
      for (const k of b.dels) map.delete(k);
    }
    return [...map];
  };

  it("replays to the same map as scanLog, key order included, over any prefix and damage", () => {
    fc.assert(
      fc.property(
        fc.array(overlapping, { maxLength: 8 }),
        fc.array(fc.tuple(smallKey, fc.string({ maxLength: 4 })), { maxLength: 4 }),
        fc.nat(),
        fc.option(fc.tuple(fc.nat(), fc.nat(7)), { nil: undefined }),
        (batches, start, cutAt, flip) => {
          const { log } = logOf(batches);
          const damaged = log.slice(0, log.length === 0 ? 0 : cutAt % (log.length + 1));
          if (flip !== undefined && damaged.length > 0) {
            const at = flip[0] % damaged.length;
            damaged[at] = (damaged[at] ?? 0) ^ (1 << flip[1]);
          }
          const plain = scanLog(damaged, 1);
          const finals = scanLogFinalValues(damaged, 1);
          expect(finals.validBytes).toBe(plain.validBytes);
          expect(finals.tornBytes).toBe(plain.tornBytes);
          expect(finals.records.map((r) => [r.seq, r.offset, r.bytes])).toEqual(
            plain.records.map((r) => [r.seq, r.offset, r.bytes]),
          );
          expect(applied(start, finals.records.map((r) => r.batch))).toEqual(
            applied(start, plain.records.map((r) => r.batch)),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it("decodes only the values nothing later in the scan sets again", () => {
    const { log } = logOf([
      { puts: [["a", "1"], ["b", "1"], ["a", "2"], ["d", "1"]], dels: [] },
      { puts: [["b", "2"], ["c", "1"]], dels: ["c", "d"] },
      { puts: [["c", "2"]], dels: [] },
    ]);
    const puts = scanLogFinalValues(log, 1).records.map((r) => r.batch.puts);
    expect(puts).toEqual([
      [["a", supersededValue], ["b", supersededValue], ["a", "2"], ["d", supersededValue]],
      [["b", "2"], ["c", supersededValue]],
      [["c", "2"]],
    ]);
  });
});

describe("forEachPutRange", () => {
  it("visits every put scanLog returns, in order, with its value's bytes, over any damage", () => {
    fc.assert(
      fc.property(fc.array(batchArb, { maxLength: 6 }), fc.nat(), (batches, cutAt) => {
        const { log } = logOf(batches);
        const cut = log.slice(0, log.length === 0 ? 0 : cutAt % (log.length + 1));
        const seen: Array<[number, string, string]> = [];
        forEachPutRange(cut, (seq, key, start, end) => {
          seen.push([seq, key, new TextDecoder().decode(cut.subarray(start, end))]);
        });
        const expected = scanLog(cut).records.flatMap((r) =>
          r.batch.puts.map(([key, value]): [number, string, string] => [r.seq, key, value]),
        );
        expect(seen).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
