/**
 * Goal: the write-ahead log's contract over the FileSystem port: replay returns what was
 * synced, in order, across generations; group commit makes every append since the last sync
 * durable at once and nothing before; generations are preallocated with zeros, a zero tail is
 * a clean end, a torn tail of the newest log is cut (zeroed + synced) so no older record can
 * come back behind a new one; sealed generations hold their records only; logs written by
 * appending still open; damage that no crash explains is refused. Method: the in-memory file
 * system, whose crash() keeps only synced bytes and dir-synced names.
 */
import { describe, expect, it } from "vitest";
import type { KvBatch } from "./kv-batch";
import { MemoryFileSystem } from "./memory-fs";
import { encodeRecord } from "./record-codec";
import { nextAllocation } from "./log-space";
import { StorageCorruptError } from "./storage-errors";
import { WriteAheadLog } from "./wal-log";
import { walLimits } from "./wal-limits";

const put = (key: string, value = "v"): KvBatch => ({ puts: [[key, value]], dels: [] });
const keysOf = (records: { batch: KvBatch }[]) =>
  records.flatMap((r) => r.batch.puts.map(([k]) => k));
const firstStep = walLimits.preallocateBytesMin;
const allZero = (bytes: Uint8Array): boolean => bytes.every((b) => b === 0);

describe("WriteAheadLog", () => {
  it("creates generation 1 on an empty disk, durably", () => {
    const fs = new MemoryFileSystem();
    const { wal, records, tornBytes } = WriteAheadLog.open(fs);
    expect(records).toEqual([]);
    expect(tornBytes).toBe(0);
    expect(wal.activePath).toBe("wal/gen-000001.log");
    fs.crash();
    expect(fs.list("wal")).toEqual(["gen-000001.log"]);
    // Zero-filled to the first step, durably.
    const file = fs.read("wal/gen-000001.log") ?? new Uint8Array(1);
    expect(file.length).toBe(firstStep);
    expect(allZero(file)).toBe(true);
  });

  it("moves the marks: append raises appended, sync raises durable", () => {
    const { wal } = WriteAheadLog.open(new MemoryFileSystem());
    const first = wal.append(put("a"));
    const second = wal.append(put("b"));
    expect([first.seq, second.seq]).toEqual([1, 2]);
    expect(wal.marks()).toEqual({
      generation: 1, durableBytes: 0, appendedBytes: first.bytes + second.bytes,
      durableSeq: 0, appendedSeq: 2, allocatedBytes: firstStep,
    });
    wal.sync();
    expect(wal.marks()).toMatchObject({ durableSeq: 2, durableBytes: first.bytes + second.bytes });
  });

  it("group commit: one sync makes all appends durable; unsynced appends die in a crash", () => {
    const fs = new MemoryFileSystem();
    const { wal } = WriteAheadLog.open(fs);
    wal.append(put("a"));
    wal.append(put("b"));
    wal.sync();
    wal.append(put("c"));
    fs.crash();
    const reopened = WriteAheadLog.open(fs);
    expect(keysOf(reopened.records)).toEqual(["a", "b"]);
    expect(reopened.wal.marks()).toMatchObject({ appendedSeq: 2, durableSeq: 2 });
    expect(reopened.wal.append(put("d")).seq).toBe(3);
  });

  it("replays in order across rotations and keeps sequence numbers running", () => {
    const fs = new MemoryFileSystem();
    const { wal } = WriteAheadLog.open(fs);
    wal.append(put("a"));
    expect(wal.rotate()).toBe(1);
    wal.append(put("b"));
    wal.append(put("c"));
    wal.sync();
    expect(wal.rotate()).toBe(2);
    expect(wal.marks()).toEqual({
      generation: 3, durableBytes: 0, appendedBytes: 0, durableSeq: 3, appendedSeq: 3,
      allocatedBytes: firstStep,
    });
    wal.append(put("d"));
    wal.sync();
    fs.crash();
    const reopened = WriteAheadLog.open(fs);
    expect(keysOf(reopened.records)).toEqual(["a", "b", "c", "d"]);
    expect(reopened.records.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    expect(reopened.wal.sealed().map((s) => [s.generation, s.lastSeq])).toEqual([[1, 1], [2, 3]]);
    expect(reopened.wal.marks().generation).toBe(3);
  });

  it("replays only generations newer than the snapshot and reports older ones as stale", () => {
    const fs = new MemoryFileSystem();
    const { wal } = WriteAheadLog.open(fs);
    wal.append(put("a"));
    wal.rotate();
    wal.append(put("b"));
    wal.sync();
    const reopened = WriteAheadLog.open(fs, { generation: 1, seq: 1 });
    expect(keysOf(reopened.records)).toEqual(["b"]);
    expect(reopened.stalePaths).toEqual(["wal/gen-000001.log"]);
  });

  it("starts a fresh generation after the snapshot when no newer log exists", () => {
    const fs = new MemoryFileSystem();
    const { wal, records } = WriteAheadLog.open(fs, { generation: 4, seq: 17 });
    expect(records).toEqual([]);
    expect(wal.marks()).toMatchObject({ generation: 5, appendedSeq: 17 });
    expect(wal.append(put("x")).seq).toBe(18);
  });

  it("a zero tail is a clean end; reopening after a clean shutdown continues in place", () => {
    const fs = new MemoryFileSystem();
    const { wal } = WriteAheadLog.open(fs);
    wal.append(put("a"));
    wal.append(put("b"));
    wal.sync();
    const marks = wal.marks();
    const reopened = WriteAheadLog.open(fs);
    expect(reopened.tornBytes).toBe(0);
    expect(keysOf(reopened.records)).toEqual(["a", "b"]);
    expect(reopened.wal.marks()).toEqual({ ...marks, allocatedBytes: firstStep });
    reopened.wal.append(put("c"));
    reopened.wal.sync();
    expect(fs.size(wal.activePath)).toBe(firstStep);
    fs.crash();
    const again = WriteAheadLog.open(fs);
    expect(again.tornBytes).toBe(0);
    expect(keysOf(again.records)).toEqual(["a", "b", "c"]);
  });

  it("cuts torn garbage before the zeros by zeroing it durably, and appends after it", () => {
    const fs = new MemoryFileSystem();
    const { wal } = WriteAheadLog.open(fs);
    wal.append(put("a"));
    wal.sync();
    const valid = wal.marks().durableBytes;
    // Up to the sequence number's low byte (2): torn bytes count to the last non-zero one.
    const partial = encodeRecord(2, put("b")).subarray(0, 9);
    fs.writeAt(wal.activePath, valid, partial);
    fs.sync(wal.activePath);
    const reopened = WriteAheadLog.open(fs);
    expect(reopened.tornBytes).toBe(9);
    expect(reopened.wholeRecordsCut).toBeNull();
    expect(reopened.wal.marks()).toMatchObject({ appendedBytes: valid, allocatedBytes: firstStep });
    fs.crash(); // the cut itself was synced
    const file = fs.read("wal/gen-000001.log") ?? new Uint8Array(0);
    expect(file.length).toBe(firstStep);
    expect(allZero(file.subarray(valid))).toBe(true);
    const again = WriteAheadLog.open(fs);
    expect(again.tornBytes).toBe(0);
    again.wal.append(put("c"));
    again.wal.sync();
    expect(keysOf(WriteAheadLog.open(fs).records)).toEqual(["a", "c"]);
  });

  it("refuses, leaving the file as it is, damage in the store's first record with whole records behind it", () => {
    // A cut there would leave the store empty, and a daemon may create a new domain in an
    // empty store: one flipped byte in the creation batch lost the whole domain.
    const fs = new MemoryFileSystem();
    const { wal } = WriteAheadLog.open(fs);
    wal.append(put("domain", "x".repeat(40)));
    wal.append(put("b"));
    wal.append(put("c"));
    wal.sync();
    const file = fs.read(wal.activePath)!;
    file[20] = (file[20] ?? 0) ^ 0xff;
    fs.write(wal.activePath, file);
    fs.sync(wal.activePath);
    expect(() => WriteAheadLog.open(fs)).toThrow(/damaged in its first record \(byte 0\).*2 whole, checksummed records follow it \(seq 2-3\)/);
    expect(fs.read(wal.activePath)).toEqual(file);
    // A torn first record with nothing whole behind it (a crash inside the first commit) is cut.
    const torn = new MemoryFileSystem();
    const first = WriteAheadLog.open(torn).wal;
    torn.writeAt(first.activePath, 0, encodeRecord(1, put("domain")).subarray(0, 9));
    torn.sync(first.activePath);
    const reopened = WriteAheadLog.open(torn);
    expect(reopened.records).toEqual([]);
    expect(reopened.tornBytes).toBe(9);
  });

  it("a shorter new record after a cut never brings back an older record behind it", () => {
    // What a crash with out-of-order writeback may leave: record 3 torn (a page lost), the
    // following record 4 intact. A new record 3 that ends exactly where the old record 4 begins
    // would make that record valid again unless the cut zeroed it.
    const fs = new MemoryFileSystem();
    const { wal } = WriteAheadLog.open(fs);
    wal.append(put("a"));
    wal.append(put("b"));
    wal.sync();
    const valid = wal.marks().durableBytes;
    const old3 = encodeRecord(3, put("c", "x".repeat(40)));
    const old4 = encodeRecord(4, put("resurrected"));
    const damaged = old3.slice();
    damaged[20] = (damaged[20] ?? 0) ^ 0xff;
    fs.writeAt(wal.activePath, valid, damaged);
    fs.writeAt(wal.activePath, valid + old3.length, old4);
    fs.sync(wal.activePath);
    const reopened = WriteAheadLog.open(fs);
    expect(keysOf(reopened.records)).toEqual(["a", "b"]);
    expect(reopened.tornBytes).toBe(old3.length + old4.length);
    // The cut dropped a whole record behind the damaged one: reported, as disk damage could be.
    expect(reopened.wholeRecordsCut).toEqual({ path: wal.activePath, atByte: valid, count: 1, firstSeq: 4, lastSeq: 4 });
    // Same length as the old record 3, different bytes: it ends where the old record 4 began.
    const new3 = reopened.wal.append(put("C", "y".repeat(40)));
    expect(new3.bytes).toBe(old3.length);
    reopened.wal.sync();
    fs.crash();
    expect(keysOf(WriteAheadLog.open(fs).records)).toEqual(["a", "b", "C"]);
  });

  it("grows in zero-filled steps; the marks count records, the allocation the file", () => {
    const fs = new MemoryFileSystem();
    const { wal } = WriteAheadLog.open(fs);
    const keys: string[] = [];
    for (let i = 0; wal.marks().appendedBytes <= 3 * firstStep; i++) {
      wal.append(put(`k${i}`, "v".repeat(1000)));
      keys.push(`k${i}`);
      const { appendedBytes, allocatedBytes } = wal.marks();
      expect(allocatedBytes).toBeGreaterThanOrEqual(appendedBytes);
      expect(fs.size(wal.activePath)).toBe(allocatedBytes);
    }
    wal.sync();
    const { appendedBytes, allocatedBytes } = wal.marks();
    expect(allocatedBytes).toBe(nextAllocation(nextAllocation(firstStep, 0), 0));
    expect(allZero((fs.read(wal.activePath) ?? new Uint8Array(0)).subarray(appendedBytes))).toBe(
      true,
    );
    fs.crash();
    const reopened = WriteAheadLog.open(fs);
    expect(reopened.tornBytes).toBe(0);
    expect(keysOf(reopened.records)).toEqual(keys);
    expect(reopened.wal.marks()).toMatchObject({ appendedBytes, allocatedBytes });
  });

  it("growth doubles within the min and max step, block-aligned, and fits any record", () => {
    const { preallocateBytesMin: min, preallocateBytesMax: max } = walLimits;
    expect(nextAllocation(0, 1)).toBe(min);
    expect(nextAllocation(min, min + 1)).toBe(2 * min);
    expect(nextAllocation(max, max + 1)).toBe(2 * max);
    expect(nextAllocation(10 * max, 0)).toBe(11 * max);
    expect(nextAllocation(min, 5 * max + 1)).toBe(5 * max + walLimits.preallocateAlignBytes);
  });

  it("rotation cuts the sealed generation to its records; the next one is preallocated", () => {
    const fs = new MemoryFileSystem();
    const { wal } = WriteAheadLog.open(fs);
    wal.append(put("a"));
    wal.append(put("b"));
    const records = wal.marks().appendedBytes;
    expect(wal.rotate()).toBe(1);
    expect(fs.size("wal/gen-000001.log")).toBe(records);
    expect(wal.sealed()).toEqual([{ generation: 1, bytes: records, lastSeq: 2 }]);
    expect(fs.size("wal/gen-000002.log")).toBe(firstStep);
    wal.append(put("c"));
    wal.sync();
    fs.crash();
    const reopened = WriteAheadLog.open(fs);
    expect(reopened.tornBytes).toBe(0);
    expect(keysOf(reopened.records)).toEqual(["a", "b", "c"]);
    expect(reopened.wal.sealed()).toEqual([{ generation: 1, bytes: records, lastSeq: 2 }]);
  });

  it("opens logs written by appending (no preallocation), torn tail included", () => {
    const fs = new MemoryFileSystem();
    fs.append("wal/gen-000001.log", encodeRecord(1, put("a")));
    fs.append("wal/gen-000002.log", encodeRecord(2, put("b")));
    const valid = encodeRecord(3, put("c"));
    fs.append("wal/gen-000002.log", valid);
    fs.append("wal/gen-000002.log", encodeRecord(4, put("d")).subarray(0, 9));
    const opened = WriteAheadLog.open(fs);
    expect(keysOf(opened.records)).toEqual(["a", "b", "c"]);
    expect(opened.tornBytes).toBe(9);
    const logical = opened.wal.marks().appendedBytes;
    expect(opened.wal.marks().allocatedBytes).toBe(logical + 9);
    opened.wal.append(put("e"));
    opened.wal.sync();
    expect(opened.wal.marks().allocatedBytes).toBe(fs.size("wal/gen-000002.log"));
    const reopened = WriteAheadLog.open(fs);
    expect(reopened.tornBytes).toBe(0);
    expect(keysOf(reopened.records)).toEqual(["a", "b", "c", "e"]);
  });

  it("refuses a torn or zero-padded sealed generation and an out-of-sequence record", () => {
    const fs = new MemoryFileSystem();
    const { wal } = WriteAheadLog.open(fs);
    wal.append(put("a"));
    wal.rotate();
    fs.append("wal/gen-000001.log", new Uint8Array([1, 2, 3]));
    expect(() => WriteAheadLog.open(fs)).toThrow(StorageCorruptError);

    const padded = new MemoryFileSystem();
    const opened = WriteAheadLog.open(padded);
    opened.wal.append(put("a"));
    opened.wal.rotate();
    padded.append("wal/gen-000001.log", new Uint8Array(8));
    expect(() => WriteAheadLog.open(padded)).toThrow(/sealed log .* is torn/);

    const other = new MemoryFileSystem();
    WriteAheadLog.open(other);
    other.writeAt("wal/gen-000001.log", 0, encodeRecord(5, put("z")));
    expect(() => WriteAheadLog.open(other)).toThrow(/seq 5 where 1 belongs/);
  });

  it("forgets sealed generations a snapshot covers, never the active one", () => {
    const fs = new MemoryFileSystem();
    const { wal } = WriteAheadLog.open(fs);
    wal.rotate();
    wal.rotate();
    expect(wal.forget(1)).toEqual(["wal/gen-000001.log"]);
    expect(wal.sealed().map((s) => s.generation)).toEqual([2]);
    expect(() => wal.forget(3)).toThrow(/active generation/);
  });
});
