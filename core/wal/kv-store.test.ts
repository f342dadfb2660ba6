/**
 * Goal: the simulator's synchronous store keeps the storage contract over the FileSystem port:
 * boot returns exactly the committed map after any mix of commits, rotations, rebuilds and
 * crashes; a rebuild leaves only a snapshot and the active log; erasure debt is paid only once
 * no file still holds the overwritten plaintext, and survives a restart until then.
 * Method: the in-memory file system with crash(); a fast-check op sequence against a plain Map
 * model; byte search over every file for the erasure property.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { KvBatch } from "./kv-batch";
import { KvStore } from "./kv-store";
import { MemoryFileSystem } from "./memory-fs";
import { StorageDeadError } from "./storage-errors";

function allFiles(fs: MemoryFileSystem, dir = ""): string[] {
  const out: string[] = [];
  for (const name of fs.list(dir)) {
    const path = dir === "" ? name : `${dir}/${name}`;
    if (fs.read(path) !== null) out.push(path);
    else out.push(...allFiles(fs, path));
  }
  return out;
}

function contains(haystack: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

type Op =
  | { kind: "commit"; batches: KvBatch[] }
  | { kind: "rotate" }
  | { kind: "rebuild" }
  | { kind: "crash" };

const keyArb = fc.constantFrom("o/a", "o/b", "o/c", "o/d", "meta/node");
const batchArb = fc.record({
  puts: fc.uniqueArray(fc.tuple(keyArb, fc.string({ maxLength: 12 })), {
    selector: (p) => p[0],
    maxLength: 3,
  }),
  dels: fc.uniqueArray(keyArb, { maxLength: 2 }),
});
/** Larger than the part sizes below: written as a group of records. */
const bigBatchArb = fc.record({
  puts: fc.array(fc.tuple(keyArb, fc.string({ minLength: 20, maxLength: 60 })), { minLength: 4, maxLength: 12 }),
  dels: fc.uniqueArray(keyArb, { maxLength: 3 }),
});
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("commit" as const),
      batches: fc.array(batchArb, { minLength: 1, maxLength: 3 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("commit" as const),
      batches: fc.array(fc.oneof(batchArb, bigBatchArb), { minLength: 1, maxLength: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "rotate" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "rebuild" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "crash" as const }) },
);

const opsArb = fc.array(opArb, { maxLength: 40 });
const rotateBytesArb = fc.integer({ min: 40, max: 400 });
/** Small enough that some batches are groups; some runs keep the production bound. */
const partBytesArb = fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined });

describe("KvStore", () => {
  it("boots to exactly the committed map after any ops and crashes", () => {
    fc.assert(
      fc.property(opsArb, rotateBytesArb, partBytesArb, (ops, rotateBytes, recordPartBytes) => {
        const fs = new MemoryFileSystem();
        const model = new Map<string, string>();
        const options = recordPartBytes === undefined ? { rotateBytes } : { rotateBytes, recordPartBytes };
        let { store } = KvStore.open(fs, options);
        for (const op of ops) {
          if (op.kind === "commit") {
            store.commit(op.batches);
            for (const b of op.batches) {
              for (const [k, v] of b.puts) model.set(k, v);
              for (const k of b.dels) model.delete(k);
            }
          } else if (op.kind === "rotate") store.rotate();
          else if (op.kind === "rebuild") store.rebuild();
          else {
            fs.crash();
            const opened = KvStore.open(fs, options);
            expect(new Map(opened.entries)).toEqual(model);
            store = opened.store;
          }
          expect(store.view().rebuild.lastOutcome?.ok ?? true).toBe(true);
        }
        fs.crash();
        expect(KvStore.open(fs, options).entries).toEqual(model);
      }),
      { numRuns: 300 },
    );
  });

  it("boots from the snapshot plus the log tail after a rotation", () => {
    const fs = new MemoryFileSystem();
    const { store } = KvStore.open(fs);
    store.commit([{ puts: [["o/a", "1"], ["o/b", "2"]], dels: [] }]);
    store.rotate();
    store.commit([{ puts: [["o/c", "3"]], dels: ["o/a"] }]);
    expect(allFiles(fs).sort()).toEqual([
      "snap/gen-000001.done",
      "snap/gen-000001.snap",
      "wal/gen-000002.log",
    ]);
    const { boot, entries } = KvStore.open(fs);
    expect(boot).toMatchObject({
      snapshotGeneration: 1,
      snapshotEntries: 2,
      recordsReplayed: 1,
      generation: 2,
    });
    expect([...entries].sort()).toEqual([["o/b", "2"], ["o/c", "3"]]);
  });

  it("refuses damage in the first record after an empty snapshot, as with no snapshot at all", () => {
    // Diff review, twenty-fifth session: the refusal keyed on "no snapshot", so a store rotated
    // while still empty cut the same damage and every whole record behind it, and opened empty.
    const fs = new MemoryFileSystem();
    const { store } = KvStore.open(fs);
    store.rotate();
    store.commit([{ puts: [["domain", "x".repeat(40)]], dels: [] }]);
    store.commit([{ puts: [["o/b", "2"]], dels: [] }]);
    store.commit([{ puts: [["o/c", "3"]], dels: [] }]);
    const path = "wal/gen-000002.log";
    const file = fs.read(path)!;
    file[20] = (file[20] ?? 0) ^ 0xff;
    fs.write(path, file);
    fs.sync(path);
    expect(() => KvStore.open(fs)).toThrow(/damaged in its first record \(byte 0\).*2 whole, checksummed records follow it/);
    expect(fs.read(path)).toEqual(file);
  });

  it("pays erasure debt only when no file holds the plaintext, across a restart", () => {
    const fs = new MemoryFileSystem();
    const marker = new TextEncoder().encode("PLAINTEXT-7f3a");
    const { store } = KvStore.open(fs);
    store.commit([{ puts: [["o/x", '"PLAINTEXT-7f3a"']], dels: [] }]);
    store.rotate(); // the plaintext now also sits in a snapshot
    store.markErasureDebt(); // intent first: before the overwriting batch
    store.commit([{ puts: [["o/x", '"shredded"']], dels: [] }]);
    expect(store.view().erasureDebt).toBe(1);
    const reopened = KvStore.open(fs).store; // the debt is durable
    expect(reopened.view().erasureDebt).toBe(1);
    const holders = () =>
      allFiles(fs).filter((p) => contains(fs.read(p) ?? new Uint8Array(0), marker));
    expect(holders().length).toBeGreaterThan(0);
    reopened.rotate();
    expect(reopened.view().erasureDebt).toBe(0);
    expect(holders()).toEqual([]);
    expect(KvStore.open(fs).entries.get("o/x")).toBe('"shredded"');
  });

  it("removes a rebuild's leftovers at boot", () => {
    const fs = new MemoryFileSystem();
    const { store } = KvStore.open(fs);
    store.commit([{ puts: [["o/a", "1"]], dels: [] }]);
    fs.write("snap/gen-000009.snap", new Uint8Array([1, 2, 3])); // no marker: interrupted
    fs.write("snap/gen-000009.done.tmp", new Uint8Array([4]));
    KvStore.open(fs);
    expect(fs.list("snap")).toEqual([]);
  });

  it("finishes at boot an erase that a crash cut short, and pays the debt", () => {
    const fs = new MemoryFileSystem();
    const { store } = KvStore.open(fs);
    store.commit([{ puts: [["o/x", "secret"]], dels: [] }]);
    store.markErasureDebt();
    store.commit([{ puts: [["o/x", "gone"]], dels: [] }]);
    const log = fs.read("wal/gen-000001.log") ?? new Uint8Array(0);
    store.rotate();
    expect(store.view().erasureDebt).toBe(0);
    // Recreate what a crash after the marker but before the erase would have left behind.
    fs.write("wal/gen-000001.log", log);
    fs.write("erasure-debt.json", new TextEncoder().encode('{"count":1,"generation":1}'));
    const reopened = KvStore.open(fs);
    expect(fs.list("wal")).toEqual(["gen-000002.log"]);
    expect(reopened.store.view().erasureDebt).toBe(0);
    expect(reopened.entries.get("o/x")).toBe("gone");
  });

  it("dies on an I/O error and refuses writes from then on", () => {
    const fs = new MemoryFileSystem();
    const { store } = KvStore.open(fs);
    // The disk starts failing after the boot (which syncs what it replays).
    let failing = false;
    const disk = Object.assign(Object.create(fs) as MemoryFileSystem, {
      sync: (file: string) => {
        if (failing) throw new Error("EIO: sync");
        fs.sync(file);
      },
    });
    const { store: doomed } = KvStore.open(disk);
    failing = true;
    expect(() => doomed.commit([{ puts: [["o/a", "1"]], dels: [] }])).toThrow(StorageDeadError);
    expect(doomed.view()).toMatchObject({ dead: true, deadReason: "EIO: sync" });
    expect(() => doomed.markErasureDebt()).toThrow(/storage is dead/);
    expect(store.dead).toBe(false);
  });

  it("makes what it replays durable before it serves: logs, the snapshot's marker, directories", () => {
    const fs = new MemoryFileSystem();
    const { store } = KvStore.open(fs);
    store.commit([{ puts: [["o/a", "1"]], dels: [] }]);
    store.rotate(); // a snapshot and its marker, and a second log
    store.commit([{ puts: [["o/b", "2"]], dels: [] }]);
    const synced: string[] = [];
    const disk = Object.assign(Object.create(fs) as MemoryFileSystem, {
      sync: (file: string) => {
        synced.push(file);
        fs.sync(file);
      },
      syncDir: (dir: string) => {
        synced.push(`${dir}/`);
        fs.syncDir(dir);
      },
    });
    const reopened = KvStore.open(disk);
    expect(reopened.entries.get("o/b")).toBe("2");
    // A process restarted after an I/O error (no power lost) reads unsynced bytes and entries
    // through the page cache: the boot syncs them before it builds on them.
    expect(synced).toEqual(expect.arrayContaining(["snap/gen-000001.done", "snap/", "/", "wal/gen-000002.log", "wal/"]));
  });

  it("reports the active log by its records' bytes, not its preallocated file size", () => {
    const fs = new MemoryFileSystem();
    const { store } = KvStore.open(fs);
    store.commit([{ puts: [["o/a", "1"]], dels: [] }]);
    const view = store.view();
    const active = view.files.find((f) => f.kind === "wal" && f.active);
    expect(view.marks.appendedBytes).toBeGreaterThan(0);
    expect(view.marks.allocatedBytes).toBeGreaterThan(view.marks.appendedBytes);
    expect(active?.bytes).toBe(view.marks.appendedBytes);
    expect(fs.size(active?.path ?? "")).toBe(view.marks.allocatedBytes);
  });
});
