/**
 * Goal: the simulator's snapshots re-encode only changed buckets, yet every snapshot holds
 * exactly the committed map, through bucket-count changes (the map growing and shrinking past
 * powers of two), deletions and crashes, and a reused bucket never carries an erased value.
 * Method: seeded random commits over a few thousand keys on the in-memory file system,
 * against a plain Map model; boots after crashes compare with the model; a byte search of
 * every file after overwriting marker values and rotating.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KvStore } from "./kv-store";
import { MemoryFileSystem } from "./memory-fs";
import { SnapshotLayout } from "./snapshot-layout";

const encoder = new TextEncoder();

function filesContaining(fs: MemoryFileSystem, marker: string, dir = ""): string[] {
  const needle = encoder.encode(marker);
  const out: string[] = [];
  for (const name of fs.list(dir)) {
    const path = dir === "" ? name : `${dir}/${name}`;
    const bytes = fs.read(path);
    if (bytes === null) {
      out.push(...filesContaining(fs, marker, path));
      continue;
    }
    outer: for (let i = 0; i + needle.length <= bytes.length; i++) {
      for (let j = 0; j < needle.length; j++) if (bytes[i + j] !== needle[j]) continue outer;
      out.push(path);
      break;
    }
  }
  return out;
}

describe("SnapshotLayout", () => {
  it("sizes buckets by powers of two of at most 64 entries each", () => {
    expect(SnapshotLayout.bucketsFor(0)).toBe(1);
    expect(SnapshotLayout.bucketsFor(64)).toBe(1);
    expect(SnapshotLayout.bucketsFor(65)).toBe(2);
    expect(SnapshotLayout.bucketsFor(5000)).toBe(128);
  });

  it("every rebuilt snapshot boots to the committed map, across growth, shrinking and crashes", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 30 }), (seed) => {
        let state = seed;
        const rand = (n: number): number => {
          state = (Math.imul(state, 1103515245) + 12345) >>> 0;
          return state % n;
        };
        const fs = new MemoryFileSystem();
        const model = new Map<string, string>();
        let { store } = KvStore.open(fs);
        for (let step = 0; step < 40; step++) {
          const grow = step < 20;
          const puts: Array<[string, string]> = [];
          const dels: string[] = [];
          for (let i = 0; i < 150; i++) {
            const key = `o/${rand(grow ? 4000 : 6000)}`;
            if (!grow && rand(2) === 0) dels.push(key);
            else puts.push([key, `v${step}.${i}`]);
          }
          const delSet = new Set(dels);
          const batch = { puts: puts.filter(([k]) => !delSet.has(k)), dels: [...delSet] };
          store.commit([batch]);
          for (const [k, v] of batch.puts) model.set(k, v);
          for (const k of batch.dels) model.delete(k);
          if (rand(3) === 0) store.rotate();
          if (rand(8) === 0) {
            fs.crash();
            const opened = KvStore.open(fs);
            expect(opened.entries).toEqual(model);
            store = opened.store;
          }
          expect(store.view().rebuild.lastOutcome?.ok ?? true).toBe(true);
        }
        store.rotate();
        fs.crash();
        expect(KvStore.open(fs).entries).toEqual(model);
      }),
      { numRuns: 8 },
    );
  });

  it("a rebuild after an overwrite leaves no file holding the old value, reused buckets included", () => {
    const fs = new MemoryFileSystem();
    const { store } = KvStore.open(fs);
    const puts: Array<[string, string]> = [];
    for (let i = 0; i < 3000; i++) puts.push([`o/${i}`, i % 500 === 0 ? `secret-${i}` : `plain-${i}`]);
    store.commit([{ puts, dels: [] }]);
    store.rotate();
    expect(filesContaining(fs, "secret-1000")).toEqual(["snap/gen-000001.snap"]);
    // Overwrite two secrets (erasure), touch nothing else; the rebuild reuses other buckets.
    store.markErasureDebt();
    store.commit([{ puts: [["o/1000", "gone"], ["o/2500", "gone"]], dels: [] }]);
    store.rotate();
    expect(filesContaining(fs, "secret-1000")).toEqual([]);
    expect(filesContaining(fs, "secret-2500")).toEqual([]);
    expect(filesContaining(fs, "secret-500")).toEqual(["snap/gen-000002.snap"]);
    expect(store.view().erasureDebt).toBe(0);
    const booted = KvStore.open(fs).entries;
    expect(booted.get("o/1000")).toBe("gone");
    expect(booted.size).toBe(3000);
  });
});
