// Goal: the real write-ahead log (core/wal/wal-log.ts) keeps its promise over the simulated
// disk: after any crash, replay returns every synced batch, in order, followed by at most a
// prefix of the unsynced ones (a torn tail is cut, never replayed as garbage); a reopen after a
// clean stop reports nothing torn; the marks and sealed sizes count records (the preallocated
// zeros only in allocatedBytes). Method: random operation sequences from many seeds (append,
// sync, rotate, crash with or without a torn tail, clean reopen), checked against a model of
// what the log holds.
import { describe, expect, it } from "vitest";
import type { KvBatch } from "../core/wal/kv-batch";
import { walPath } from "../core/wal/generation-names";
import { WriteAheadLog } from "../core/wal/wal-log";
import { Prng } from "./prng";
import { SimFs } from "./sim-fs";

const batch = (n: number, prng: Prng): KvBatch => ({
  puts: [[`k${n}`, "v".repeat(prng.int(0, 300))]],
  dels: n % 5 === 0 ? [`k${n - 1}`] : [],
});
const keyOf = (b: KvBatch): string => b.puts[0]?.[0] ?? "?";

interface RunStats {
  crashes: number;
  cleanReopens: number;
  tornBytes: number;
  replayedUnsynced: number;
}

/** One random life of a log; throws (via expect) on any broken promise. */
function life(seed: number, fs: SimFs, steps: number, stats: RunStats): void {
  const prng = new Prng(seed);
  const diskPrng = prng.fork("disk");
  let { wal } = WriteAheadLog.open(fs);
  let model: string[] = [];
  let synced = 0;
  let next = 0;
  for (let step = 0; step < steps; step++) {
    const roll = prng.int(0, 99);
    if (roll < 60) {
      const b = batch(next++, prng);
      wal.append(b);
      model.push(keyOf(b));
    } else if (roll < 80) {
      wal.sync();
      synced = model.length;
    } else if (roll < 85) {
      wal.rotate();
      synced = model.length;
    } else if (roll < 88) {
      wal.sync();
      const opened = WriteAheadLog.open(fs);
      expect(opened.tornBytes).toBe(0);
      expect(opened.records.map((r) => keyOf(r.batch))).toEqual(model);
      expect(opened.wal.marks()).toEqual(wal.marks());
      stats.cleanReopens++;
      synced = model.length;
      wal = opened.wal;
    } else {
      fs.crash(diskPrng, { tornTail: prng.chance(0.7) });
      stats.crashes++;
      const opened = WriteAheadLog.open(fs);
      const keys = opened.records.map((r) => keyOf(r.batch));
      expect(keys.length).toBeGreaterThanOrEqual(synced);
      expect(keys).toEqual(model.slice(0, keys.length));
      stats.tornBytes += opened.tornBytes;
      stats.replayedUnsynced += keys.length - synced;
      model = keys;
      synced = keys.length;
      wal = opened.wal;
    }
    expectTruthfulSizes(fs, wal, roll >= 85);
  }
}

/**
 * The active file is `allocatedBytes` long, its records then zeros (read back only around
 * reopens, it is the costly part); sealed files are records.
 */
function expectTruthfulSizes(fs: SimFs, wal: WriteAheadLog, readBack: boolean): void {
  const { appendedBytes, allocatedBytes } = wal.marks();
  expect(fs.size(wal.activePath)).toBe(allocatedBytes);
  if (readBack) {
    const active = fs.read(wal.activePath) ?? new Uint8Array(0);
    expect(active.subarray(appendedBytes).every((b) => b === 0)).toBe(true);
  }
  for (const sealed of wal.sealed()) {
    expect(fs.size(walPath(sealed.generation))).toBe(sealed.bytes);
  }
}

describe("WriteAheadLog over SimFs", () => {
  it("every synced batch survives crashes and torn tails (many seeds)", () => {
    const stats: RunStats = { crashes: 0, cleanReopens: 0, tornBytes: 0, replayedUnsynced: 0 };
    for (let seed = 1; seed <= 150; seed++) {
      // Directories durable on creation (what ext4 mostly delivers).
      life(seed, new SimFs({ strictDirs: false }), 200, stats);
    }
    // The faults really happened: crashes cut torn records and kept whole unsynced ones.
    expect(stats.crashes).toBeGreaterThan(1000);
    expect(stats.tornBytes).toBeGreaterThan(0);
    expect(stats.replayedUnsynced).toBeGreaterThan(0);
    expect(stats.cleanReopens).toBeGreaterThan(100);
  });

  // POSIX: the new `wal/` directory's own entry is durable only after syncDir("") (its
  // parent); WriteAheadLog.open syncs the root when it creates the first generation, so a
  // crash of a fresh disk keeps every synced batch under strict directories too.
  it("under strict directories every synced batch survives too", () => {
    const stats: RunStats = { crashes: 0, cleanReopens: 0, tornBytes: 0, replayedUnsynced: 0 };
    for (let seed = 1; seed <= 100; seed++) life(seed, new SimFs(), 200, stats);
    expect(stats.crashes).toBeGreaterThan(500);
  });
});
