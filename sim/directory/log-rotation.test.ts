/**
 * Goal: a simulated node's write-ahead log rotates by size, so a boot replays a bounded log
 * however long the run. Without shreds nothing else rotates (erasure does), and at the
 * daemon's 64 MiB threshold a node's log grew for the whole run: every boot replayed all of
 * it, and boots cost O(history) (a move-heavy chaos run of 40 minutes spent half its time
 * replaying). Method: a shred-free run of 3 nodes at 20 writes/s for 8 simulated minutes (each
 * node logs every write once, ~6 MiB); then each node's disk is opened as a boot would.
 */
import { describe, expect, it } from "vitest";
import { KvStore } from "../../core/wal/kv-store";
import { simRotateBytes } from "./directory-host";
import { directoryWorld } from "./directory-world";
import { defaultMix } from "./workload";

describe("simulated log rotation by size", () => {
  it("keeps every node's active log under the threshold after more than its worth of writes", () => {
    const mix = { ...defaultMix, shred: 0 };
    const dw = directoryWorld({ seed: 11, nodeCount: 3, writesPerSecond: 20, mix });
    dw.world.start();
    dw.world.runUntil(8 * 60_000);
    for (const id of ["n1", "n2", "n3"]) {
      const opened = KvStore.open(dw.world.node(id).fs);
      expect(opened.boot.generation, `${id} rotated`).toBeGreaterThan(1);
      expect(opened.boot.snapshotEntries, `${id} booted from a snapshot`).toBeGreaterThan(0);
      expect(opened.store.marks().appendedBytes).toBeLessThan(simRotateBytes);
    }
  });
});
