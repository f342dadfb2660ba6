/**
 * Goal: one storage contract, two implementations. The simulator's KvStore (over the in-memory
 * FileSystem, file snapshots, rebuild inline) and the daemon's DurableStore (node:fs, LevelDB
 * snapshots, rebuild in the background) must behave the same as seen by the node: boot map,
 * durability marks, rotation and snapshot boot, torn tail cut, erasure debt.
 * Method: the same cases run against a harness per implementation; the disk harness uses a
 * fresh directory under os.tmpdir() per case and removes it afterwards.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DurableStore } from "../../adapters/storage/durable-store";
import type { KvBatch } from "../../core/wal/kv-batch";
import { KvStore } from "../../core/wal/kv-store";
import { MemoryFileSystem } from "../../core/wal/memory-fs";
import { scanLog } from "../../core/wal/record-codec";
import type { BootReport, StorageView } from "../../core/wal/storage-view";
import { filesUnder } from "./disk-bytes";

interface StoreLike {
  commit(batches: readonly KvBatch[]): void;
  rotate(): { sealedGeneration: number; generation: number };
  rebuild(): { rotated: boolean };
  markErasureDebt(): void;
  view(): StorageView;
}

interface Opened {
  readonly store: StoreLike;
  readonly boot: BootReport;
  readonly entries: Map<string, string>;
}

interface Harness {
  open(rotateBytes?: number): Promise<Opened>;
  /** Waits until no rebuild runs (a no-op for the inline one). */
  settle(store: StoreLike): Promise<void>;
  close(store: StoreLike): Promise<void>;
  /** Writes bytes just after the active log's last record (a torn write into preallocation). */
  writeAfterLastRecord(bytes: Uint8Array): void;
  allFileBytes(): Uint8Array[];
}

const optionsOf = (rotateBytes: number | undefined) =>
  rotateBytes === undefined ? {} : { rotateBytes };

function memoryHarness(): Harness {
  const mfs = new MemoryFileSystem();
  const walk = (dir: string): string[] =>
    mfs.list(dir).flatMap((name) => {
      const p = dir === "" ? name : `${dir}/${name}`;
      return mfs.read(p) === null ? walk(p) : [p];
    });
  return {
    open: async (rotateBytes) => KvStore.open(mfs, optionsOf(rotateBytes)),
    settle: async () => {},
    close: async () => {},
    writeAfterLastRecord: (bytes) => {
      const log = `wal/${mfs.list("wal").at(-1)}`;
      mfs.writeAt(log, scanLog(mfs.read(log) ?? new Uint8Array(0)).validBytes, bytes);
    },
    allFileBytes: () => walk("").map((p) => mfs.read(p) ?? new Uint8Array(0)),
  };
}

const tempDirs: string[] = [];
afterEach(() => {
  for (const dir of tempDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function diskHarness(): Harness {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-contract-"));
  tempDirs.push(dir);
  const asDurable = (store: StoreLike) => store as DurableStore;
  return {
    open: async (rotateBytes) => DurableStore.open(dir, optionsOf(rotateBytes)),
    settle: (store) => asDurable(store).whenRebuildIdle(),
    close: (store) => asDurable(store).close(),
    writeAfterLastRecord: (bytes) => {
      const logs = fs.readdirSync(path.join(dir, "wal")).sort();
      const log = path.join(dir, "wal", logs.at(-1) ?? "missing");
      const fd = fs.openSync(log, "r+");
      fs.writeSync(fd, bytes, 0, bytes.length, scanLog(fs.readFileSync(log)).validBytes);
      fs.closeSync(fd);
    },
    allFileBytes: () => filesUnder(dir).map((file) => fs.readFileSync(file)),
  };
}

const put = (key: string, value: string): KvBatch => ({ puts: [[key, value]], dels: [] });
const sorted = (map: Map<string, string>) =>
  [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

describe.each([
  ["KvStore over MemoryFileSystem", memoryHarness],
  ["DurableStore over node:fs", diskHarness],
])("storage contract: %s", (_name, makeHarness) => {
  it("boots what was committed, applying a batch's puts before its deletes", async () => {
    const h = makeHarness();
    const first = await h.open();
    first.store.commit([put("o/a", "1"), put("o/b", "2")]);
    first.store.commit([{ puts: [["o/c", "3"], ["o/a", "1b"]], dels: ["o/b", "o/c"] }]);
    const marks = first.store.view().marks;
    expect(marks).toMatchObject({ generation: 1, durableSeq: 3, appendedSeq: 3 });
    await h.close(first.store);
    const second = await h.open();
    expect(sorted(second.entries)).toEqual([["o/a", "1b"]]);
    expect(second.boot).toMatchObject({ recordsReplayed: 3, generation: 1, entries: 1 });
    await h.close(second.store);
  });

  it("rotates, snapshots, and boots from snapshot plus tail", async () => {
    const h = makeHarness();
    const { store } = await h.open();
    store.commit([put("o/a", "1"), put("o/b", "2")]);
    expect(store.rotate()).toEqual({ sealedGeneration: 1, generation: 2 });
    store.commit([{ puts: [["o/c", "3"]], dels: ["o/a"] }]);
    await h.settle(store);
    const view = store.view();
    expect(view.snapshotGeneration).toBe(1);
    expect(view.rebuild).toMatchObject({ running: false, lastOutcome: { ok: true, entries: 2 } });
    const logs = view.files.filter((f) => f.kind === "wal");
    expect(logs.map((f) => [f.generation, f.active])).toEqual([[2, true]]);
    const snapshots = view.files.filter((f) => f.kind === "snapshot");
    expect(snapshots.every((f) => f.generation === 1)).toBe(true);
    await h.close(store);
    const again = await h.open();
    expect(again.boot).toMatchObject({
      snapshotGeneration: 1,
      snapshotEntries: 2,
      recordsReplayed: 1,
    });
    expect(sorted(again.entries)).toEqual([["o/b", "2"], ["o/c", "3"]]);
    await h.close(again.store);
  });

  it("rotates on its own past the threshold", async () => {
    const h = makeHarness();
    const { store } = await h.open(256);
    for (let i = 0; i < 20; i++) store.commit([put(`o/${i}`, "x".repeat(50))]);
    await h.settle(store);
    const view = store.view();
    expect(view.rotateBytes).toBe(256);
    expect(view.marks.generation).toBeGreaterThan(3);
    expect(view.snapshotGeneration).toBe(view.marks.generation - 1);
    await h.close(store);
    expect((await h.open(256)).entries.size).toBe(20);
  });

  it("cuts a torn tail and keeps going", async () => {
    const h = makeHarness();
    const first = await h.open();
    first.store.commit([put("o/a", "1")]);
    await h.close(first.store);
    h.writeAfterLastRecord(new Uint8Array([9, 0, 0, 0, 0xde, 0xad]));
    const second = await h.open();
    expect(second.boot.tornBytesCut).toBe(6);
    second.store.commit([put("o/b", "2")]);
    await h.close(second.store);
    const third = await h.open();
    expect(sorted(third.entries)).toEqual([["o/a", "1"], ["o/b", "2"]]);
    expect(third.boot.tornBytesCut).toBe(0);
    await h.close(third.store);
  });

  it("pays erasure debt only when no file holds the overwritten plaintext", async () => {
    const h = makeHarness();
    const marker = "MARKER-contract-4b1d";
    const holders = () => {
      const needle = Buffer.from(marker);
      return h.allFileBytes().filter((bytes) => Buffer.from(bytes).includes(needle)).length;
    };
    const { store } = await h.open();
    store.commit([put("o/x", `"${marker}"`)]);
    store.rotate();
    await h.settle(store);
    store.markErasureDebt();
    store.commit([put("o/x", '"shredded"')]);
    expect(store.view().erasureDebt).toBe(1);
    expect(holders()).toBeGreaterThan(0);
    store.rotate();
    await h.settle(store);
    expect(store.view().erasureDebt).toBe(0);
    expect(holders()).toBe(0);
    await h.close(store);
  });
});
