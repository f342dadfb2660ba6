/**
 * Goal: the write-ahead log's contract over the FileSystem port: replay returns what was
 * synced, in order, across generations; group commit makes every append since the last sync
 * durable at once and nothing before; a torn tail of the newest log is cut (truncate + sync);
 * damage that no crash explains is refused. Method: the in-memory file system, whose crash()
 * keeps only synced bytes and dir-synced names.
 */
import { describe, expect, it } from "vitest";
import type { KvBatch } from "./kv-batch";
import { MemoryFileSystem } from "./memory-fs";
import { encodeRecord } from "./record-codec";
import { StorageCorruptError } from "./storage-errors";
import { WriteAheadLog } from "./wal-log";

const put = (key: string, value = "v"): KvBatch => ({ puts: [[key, value]], dels: [] });
const keysOf = (records: { batch: KvBatch }[]) =>
  records.flatMap((r) => r.batch.puts.map(([k]) => k));

describe("WriteAheadLog", () => {
  it("creates generation 1 on an empty disk, durably", () => {
    const fs = new MemoryFileSystem();
    const { wal, records, tornBytes } = WriteAheadLog.open(fs);
    expect(records).toEqual([]);
    expect(tornBytes).toBe(0);
    expect(wal.activePath).toBe("wal/gen-000001.log");
    fs.crash();
    expect(fs.list("wal")).toEqual(["gen-000001.log"]);
  });

  it("moves the marks: append raises appended, sync raises durable", () => {
    const { wal } = WriteAheadLog.open(new MemoryFileSystem());
    const first = wal.append(put("a"));
    const second = wal.append(put("b"));
    expect([first.seq, second.seq]).toEqual([1, 2]);
    expect(wal.marks()).toEqual({
      generation: 1, durableBytes: 0, appendedBytes: first.bytes + second.bytes,
      durableSeq: 0, appendedSeq: 2,
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

  it("cuts a torn tail durably and appends after it", () => {
    const fs = new MemoryFileSystem();
    const { wal } = WriteAheadLog.open(fs);
    wal.append(put("a"));
    wal.sync();
    const valid = wal.marks().durableBytes;
    const partial = encodeRecord(2, put("b")).subarray(0, 10);
    fs.append(wal.activePath, partial);
    fs.sync(wal.activePath);
    const reopened = WriteAheadLog.open(fs);
    expect(reopened.tornBytes).toBe(10);
    expect(fs.size("wal/gen-000001.log")).toBe(valid);
    fs.crash(); // the cut itself was synced
    expect(fs.size("wal/gen-000001.log")).toBe(valid);
    const again = WriteAheadLog.open(fs);
    expect(again.tornBytes).toBe(0);
    again.wal.append(put("c"));
    again.wal.sync();
    expect(keysOf(WriteAheadLog.open(fs).records)).toEqual(["a", "c"]);
  });

  it("refuses a torn sealed generation and an out-of-sequence record", () => {
    const fs = new MemoryFileSystem();
    const { wal } = WriteAheadLog.open(fs);
    wal.append(put("a"));
    wal.rotate();
    fs.append("wal/gen-000001.log", new Uint8Array([1, 2, 3]));
    expect(() => WriteAheadLog.open(fs)).toThrow(StorageCorruptError);

    const other = new MemoryFileSystem();
    WriteAheadLog.open(other);
    other.append("wal/gen-000001.log", encodeRecord(5, put("z")));
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
