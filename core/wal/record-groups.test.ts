/**
 * Goal: a batch larger than a record part is written as a group of consecutive records and
 * read back by every reader as one record, all or nothing: it reopens to the same entries; a
 * crash between its parts reopens without any of it, cut like a torn tail, and the log goes on
 * from there; an incomplete group in a sealed log is refused; rebuilds fold it like a record;
 * a batch that fits one record is written exactly as before groups existed.
 * Method: the in-memory file system with a part size of a few hundred bytes (the production
 * bound is 64 MiB); the file's bytes damaged by hand where a crash between parts would; a
 * fast-check property cutting a log of groups at every kind of byte against all three scans.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyKvBatch, type KvBatch } from "./kv-batch";
import { KvStore } from "./kv-store";
import { MemoryFileSystem } from "./memory-fs";
import {
  decodeRecordAt,
  encodeRecord,
  groupContinuesKey,
  encodeRecord as encodePart,
  LogScanner,
  scanLog,
  scanLogFinalValues,
  splitBatch,
} from "./record-codec";
import { StorageCorruptError } from "./storage-errors";
import { scanLogVerified, VerifiedRecords } from "./verified-records";
import { WriteAheadLog } from "./wal-log";

const partBytes = 300;
const log1 = "wal/gen-000001.log";

/** 12 puts of ~40-character values: ~1.6 KB of bound, several parts of 300 bytes. */
function bigBatch(tag: string, dels: string[] = []): KvBatch {
  const puts: Array<readonly [string, string]> = [];
  for (let i = 0; i < 12; i++) puts.push([`o/${tag}${i}`, `${tag}-${i}-`.padEnd(40, "x")]);
  return { puts, dels };
}

/** Offsets and seqs of the framed records of a log, parts included. */
function framed(log: Uint8Array): Array<{ seq: number; offset: number; bytes: number }> {
  const out: Array<{ seq: number; offset: number; bytes: number }> = [];
  for (let offset = 0; ; ) {
    const record = decodeRecordAt(log, offset);
    if (record === null) return out;
    out.push({ seq: record.seq, offset, bytes: record.bytes });
    offset += record.bytes;
  }
}

function apply(map: Map<string, string>, batch: KvBatch): Map<string, string> {
  for (const [k, v] of batch.puts) map.set(k, v);
  for (const k of batch.dels) map.delete(k);
  return map;
}

describe("record groups", () => {
  it("splits in order, deletes last, a marker ending every part but the last", () => {
    const batch = bigBatch("a", ["o/a3", "o/zz"]);
    const parts = splitBatch(batch, partBytes);
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts.slice(0, -1)) {
      expect(part.puts.at(-1)).toEqual([groupContinuesKey, ""]);
      expect(part.dels).toEqual([]);
    }
    expect(parts.at(-1)!.dels).toEqual(batch.dels);
    const puts = parts.flatMap((p) => p.puts).filter(([k]) => k !== groupContinuesKey);
    expect(puts).toEqual(batch.puts);
    // A put larger than a part goes alone; a batch that fits is itself.
    const huge: KvBatch = { puts: [["o/s", "s"], ["o/h", "h".repeat(500)], ["o/t", "t"]], dels: [] };
    expect(splitBatch(huge, partBytes).map((p) => p.puts.length)).toEqual([2, 2, 1]);
    const small: KvBatch = { puts: [["o/s", "s"]], dels: ["o/t"] };
    expect(splitBatch(small, partBytes)[0]).toBe(small);
    expect(() => splitBatch({ puts: [[groupContinuesKey, ""]], dels: [] }, partBytes)).toThrow(/U\+0000/);
  });

  it("commits a batch larger than a part as several records and reopens to the same entries", () => {
    const fs = new MemoryFileSystem();
    const { store } = KvStore.open(fs, { recordPartBytes: partBytes });
    const first: KvBatch = { puts: [["o/keep", "k"], ["o/gone", "g"]], dels: [] };
    store.commit([first]);
    // Put and deleted in one batch: deleted, as a lone record would leave it.
    const batch = bigBatch("a", ["o/gone", "o/a5"]);
    store.commit([batch, { puts: [["o/after", "1"]], dels: [] }]);
    const model = apply(apply(apply(new Map(), first), batch), { puts: [["o/after", "1"]], dels: [] });
    const log = fs.read(log1)!;
    const records = framed(log);
    expect(records.length).toBeGreaterThan(4);
    // A record outside a group is written exactly as before groups existed.
    expect(log.subarray(0, records[0]!.bytes)).toEqual(encodeRecord(1, first));
    expect(store.marks().appendedSeq).toBe(records.length);
    fs.crash();
    const opened = KvStore.open(fs, { recordPartBytes: partBytes });
    expect(opened.entries).toEqual(model);
    expect(opened.boot).toMatchObject({ recordsReplayed: 3, tornBytesCut: 0 });
    // Every reader sees the group as one record whose seq is its last part's.
    const valid = log.subarray(0, opened.store.marks().appendedBytes);
    const scans = [scanLog(valid, 1), scanLogFinalValues(valid, 1), scanLogVerified(valid, 1, new VerifiedRecords())];
    for (const scan of scans) {
      expect(scan.records.map((r) => r.seq)).toEqual([1, records.length - 1, records.length]);
      expect(scan.records[1]!.batch.dels).toEqual(batch.dels);
      expect(scan.records[1]!.offset).toBe(records[1]!.offset);
      expect(scan.records[1]!.bytes).toBe(records.at(-1)!.offset - records[1]!.offset);
      expect(scan).toMatchObject({ validBytes: valid.length, tornBytes: 0, cutGroup: null });
    }
    expect(scans[0]!.records[1]!.batch).toEqual(batch);
    // An incremental scan a part at a time holds the group across steps.
    const scanner = new LogScanner(valid, 1);
    const stepped = [];
    while (!scanner.done) stepped.push(...scanner.step(1, 1));
    expect(stepped).toEqual(scans[0]!.records);
  });

  it("reopens without any of a group a crash cut between its parts, cut like a torn tail", () => {
    const fs = new MemoryFileSystem();
    const { store } = KvStore.open(fs, { recordPartBytes: partBytes });
    store.commit([{ puts: [["o/keep", "k"], ["o/a1", "old"]], dels: [] }]);
    store.commit([bigBatch("a", ["o/keep"])]);
    const before = fs.read(log1)!;
    const records = framed(before);
    const groupStart = records[1]!.offset;
    const partTwo = records[2]!.offset;
    // The crash wrote part 1 and nothing after it (the rest of the file is preallocated zeros).
    const file = before.slice();
    file.fill(0, partTwo);
    fs.write(log1, file);
    fs.sync(log1);
    const opened = KvStore.open(fs, { recordPartBytes: partBytes });
    expect(opened.entries).toEqual(new Map([["o/keep", "k"], ["o/a1", "old"]]));
    expect(opened.boot).toMatchObject({ recordsReplayed: 1, tornBytesCut: partTwo - groupStart, wholeRecordsCut: null });
    // Zeroed like a torn tail: no part can come back behind a later record.
    expect(fs.read(log1)!.subarray(groupStart).every((b) => b === 0)).toBe(true);
    expect(opened.store.marks()).toMatchObject({ appendedBytes: groupStart, appendedSeq: 1 });
    // The log goes on where the group began, groups and all.
    opened.store.commit([{ puts: [["o/next", "n"]], dels: [] }, bigBatch("b", ["o/a1"])]);
    expect(opened.store.marks().appendedSeq).toBeGreaterThan(3);
    fs.crash();
    const model = apply(new Map([["o/keep", "k"], ["o/a1", "old"], ["o/next", "n"]]), bigBatch("b", ["o/a1"]));
    expect(KvStore.open(fs, { recordPartBytes: partBytes }).entries).toEqual(model);
  });

  it("cuts an incomplete group whose next part is torn, and reports no whole record behind it", () => {
    const fs = new MemoryFileSystem();
    const { store } = KvStore.open(fs, { recordPartBytes: partBytes });
    store.commit([bigBatch("a")]);
    const records = framed(fs.read(log1)!);
    const file = fs.read(log1)!.slice();
    // Part 2 half written, the rest never reached the disk.
    file.fill(0, records[1]!.offset + 20);
    fs.write(log1, file);
    fs.sync(log1);
    const opened = KvStore.open(fs, { recordPartBytes: partBytes });
    expect(opened.entries).toEqual(new Map());
    expect(opened.boot).toMatchObject({ recordsReplayed: 0, wholeRecordsCut: null });
    // Counted to the last non-zero byte of the torn part.
    expect(opened.boot.tornBytesCut).toBeGreaterThan(records[1]!.offset);
    expect(opened.boot.tornBytesCut).toBeLessThanOrEqual(records[1]!.offset + 20);
    expect(fs.read(log1)!.every((b) => b === 0)).toBe(true);
  });

  it("refuses damage in the store's first record with a group's whole first part behind it", () => {
    // The part ends in zero bytes (its marker's empty value): counted only to the last
    // non-zero byte, it went unseen and the store was wiped (WAL-group audit, twenty-fifth
    // session). A lone record behind the damage was refused already.
    const fs = new MemoryFileSystem();
    const { store } = KvStore.open(fs, { recordPartBytes: partBytes });
    store.commit([{ puts: [["meta/domain", '{"id":"d1"}']], dels: [] }]);
    store.commit([bigBatch("a")]);
    const records = framed(fs.read(log1)!);
    const file = fs.read(log1)!.slice();
    // A crash kept the group's first part only; then one bit of the first record flipped.
    file.fill(0, records[1]!.offset + records[1]!.bytes);
    file[records[0]!.offset + 30] = (file[records[0]!.offset + 30] ?? 0) ^ 0x01;
    fs.write(log1, file);
    fs.sync(log1);
    expect(() => KvStore.open(fs, { recordPartBytes: partBytes })).toThrow(
      /damaged in its first record \(byte 0\), and 1 whole, checksummed records follow it \(seq 2-2\)/u,
    );
    expect(fs.read(log1)).toEqual(file);
  });

  it("refuses an incomplete group in a sealed generation", () => {
    const fs = new MemoryFileSystem();
    const { wal } = WriteAheadLog.open(fs, undefined, { recordPartBytes: partBytes });
    wal.append(bigBatch("a"));
    wal.sync();
    wal.rotate();
    wal.append({ puts: [["o/b", "1"]], dels: [] });
    wal.sync();
    const sealed = fs.read(log1)!;
    fs.truncate(log1, framed(sealed)[1]!.offset);
    fs.sync(log1);
    expect(() => WriteAheadLog.open(fs)).toThrow(StorageCorruptError);
    expect(() => WriteAheadLog.open(fs)).toThrow(/sealed log wal\/gen-000001.log is torn at byte 0 \(group seq 1-1 is incomplete\)/);
  });

  it("a rebuild that reads a sealed log holding a group gives the same entries", () => {
    const fs = new MemoryFileSystem();
    const { wal } = WriteAheadLog.open(fs, undefined, { recordPartBytes: partBytes });
    wal.append({ puts: [["o/gone", "g"], ["o/a2", "old"]], dels: [] });
    wal.append(bigBatch("a", ["o/gone"]));
    wal.append({ puts: [["o/z", "z"]], dels: ["o/a3"] });
    wal.sync();
    // Sealed, with no snapshot: the store's open cannot know the tail, so its rebuild reads
    // the sealed log back (scanLog).
    wal.rotate();
    const model = apply(apply(new Map([["o/gone", "g"], ["o/a2", "old"]]), bigBatch("a", ["o/gone"])), {
      puts: [["o/z", "z"]],
      dels: ["o/a3"],
    });
    const opened = KvStore.open(fs, { recordPartBytes: partBytes });
    expect(opened.entries).toEqual(model);
    expect(opened.store.rebuild()).toEqual({ rotated: false });
    expect(opened.store.view().rebuild.lastOutcome).toMatchObject({ ok: true, generation: 1 });
    expect(fs.list("snap").sort()).toEqual(["gen-000001.done", "gen-000001.snap"]);
    fs.crash();
    const again = KvStore.open(fs, { recordPartBytes: partBytes });
    expect(again.boot).toMatchObject({ snapshotGeneration: 1, recordsReplayed: 0 });
    expect(again.entries).toEqual(model);
    // And through the rotation's own rebuild, which folds the active generation from memory.
    again.store.commit([bigBatch("b", ["o/a4"])]);
    again.store.rotate();
    fs.crash();
    expect(KvStore.open(fs, { recordPartBytes: partBytes }).entries).toEqual(apply(model, bigBatch("b", ["o/a4"])));
  });

  it("every reader cuts a log ending anywhere at the same place, to the same map", () => {
    const keyArb = fc.constantFrom("o/a", "o/b", "o/c", "meta/node");
    const batchArb = fc.record({
      puts: fc.array(fc.tuple(keyArb, fc.string({ maxLength: 50 })), { maxLength: 8 }),
      dels: fc.uniqueArray(keyArb, { maxLength: 2 }),
    });
    fc.assert(
      fc.property(fc.array(batchArb, { minLength: 1, maxLength: 6 }), fc.nat(), (batches, cutAt) => {
        const records: Uint8Array[] = [];
        const ends: number[] = [];
        let length = 0;
        for (const batch of batches) {
          for (const part of splitBatch(batch, 120)) {
            records.push(encodePart(records.length + 1, part));
            length += records.at(-1)!.length;
          }
          ends.push(length);
        }
        const full = new Uint8Array(length);
        let at = 0;
        for (const record of records) {
          full.set(record, at);
          at += record.length;
        }
        const cut = full.subarray(0, cutAt % (length + 1));
        // What a crash at `cut` keeps: the batches whose last part is whole.
        const kept = ends.filter((end) => end <= cut.length).length;
        const model = new Map<string, string>();
        for (const batch of batches.slice(0, kept)) applyKvBatch(model, batch);
        const validBytes = kept === 0 ? 0 : ends[kept - 1]!;
        const verified = new VerifiedRecords();
        const scans = [scanLog(cut, 1), scanLogFinalValues(cut, 1), scanLogVerified(cut, 1, verified)];
        for (const scan of scans) {
          expect(scan.validBytes).toBe(validBytes);
          expect(scan.tornBytes).toBe(cut.length - validBytes);
          expect(scan.records.length).toBe(kept);
          const map = new Map<string, string>();
          for (const record of scan.records) applyKvBatch(map, record.batch);
          expect(map).toEqual(model);
          expect(scan.cutGroup === null).toBe(scan.tornBytes === 0 || decodeRecordAt(cut, validBytes) === null);
        }
        expect(scans[0]!.records.map((r) => r.batch)).toEqual(batches.slice(0, kept));
      }),
      { numRuns: 300 },
    );
  });
});
