/**
 * Goal: the rules that bound the up-to-dateness vector, one by one (the property test beside
 * this file checks that they keep rollback evidence): of every node the newest few entries
 * stay, and of a direct source every entry at or above its floor; nothing else does; a
 * completed pull moves the floor to the source's previous epoch and never down; entries and
 * retired invocations persisted before epochs existed load as epoch 0 and the boot mints
 * above them.
 */
import { describe, expect, it } from "vitest";
import { DirectoryNode } from "../node/directory-node";
import { freshDomain, t0Ms } from "../testing/node-fixture";
import { seededRandom } from "../testing/seeded-random";
import type { UtdEntry, Watermark } from "./replication-state";
import { boundVector, completedWatermark, newestEntriesKept } from "./vector-bound";

const entry = (node: string, epoch: number, usn = 10): UtdEntry => ({ usn, node, epoch, syncedAtMs: 0 });
const mark = (floor: number, epoch = floor + 1): Watermark => ({ invocation: "x", usn: 1, lastSuccessMs: 0, epoch, floor });

describe("boundVector", () => {
  it("returns the vector itself when nothing goes", () => {
    const utd = { a1: entry("a", 1), a2: entry("a", 2), b1: entry("b", 5) };
    expect(boundVector(utd, { a: mark(1) })).toBe(utd);
    expect(boundVector({}, {})).toEqual({});
  });

  it("keeps a direct source's entries at or above its floor however many, and its newest below", () => {
    const utd: Record<string, UtdEntry> = {};
    for (let e = 1; e <= 3 * newestEntriesKept; e++) utd[`a${String(e).padStart(2, "0")}`] = entry("a", e);
    // A floor among the newest: only the newest stay (the floor keeps no more than they do).
    const high = boundVector(utd, { a: mark(3 * newestEntriesKept - 1) });
    expect(Object.values(high).map((e) => e.epoch)).toEqual(
      Array.from({ length: newestEntriesKept }, (_, i) => 2 * newestEntriesKept + 1 + i),
    );
    // A low floor: everything at or above it stays, beyond the newest.
    const low = boundVector(utd, { a: mark(3) });
    expect(Object.values(low).map((e) => e.epoch)).toEqual(Array.from({ length: 3 * newestEntriesKept - 2 }, (_, i) => 3 + i));
    // Without a floor (none recorded yet, or an older layout), nothing of a direct source goes.
    expect(boundVector(utd, { a: { invocation: "x", usn: 1, lastSuccessMs: 0 } })).toBe(utd);
    // Of a node this one does not pull from, only the newest stay, whatever floor another has.
    expect(Object.keys(boundVector(utd, { b: mark(1) }))).toHaveLength(newestEntriesKept);
  });

  it("keeps the newest entries of any other node, equal epochs by invocation, and its key order", () => {
    const utd: Record<string, UtdEntry> = { z9: entry("c", 1) };
    for (let e = 1; e <= newestEntriesKept + 3; e++) utd[`c${e}`] = entry("c", e);
    utd["b-same"] = entry("c", newestEntriesKept + 3);
    utd["d1"] = entry("d", 0);
    const bounded = boundVector(utd, { a: mark(5) });
    const kept = Object.keys(bounded);
    // The newest epochs win; of the two at the top epoch both stay; "b-same" < "c..." in order.
    const newest = Object.keys(utd)
      .filter((inv) => utd[inv]!.node === "c")
      .sort((x, y) => utd[y]!.epoch - utd[x]!.epoch || (x < y ? -1 : 1))
      .slice(0, newestEntriesKept);
    expect(kept).toEqual(Object.keys(utd).filter((inv) => newest.includes(inv) || inv === "d1"));
    expect(kept).toContain("b-same");
  });
});

describe("completedWatermark", () => {
  it("moves the floor to the source's epoch at the previous completed pull, never down", () => {
    const first = completedWatermark(undefined, "inv", 5, t0Ms, 4);
    expect(first).toEqual({ invocation: "inv", usn: 5, lastSuccessMs: t0Ms, epoch: 4 });
    const second = completedWatermark(first, "inv", 9, t0Ms + 1, 6);
    expect(second.floor).toBe(4);
    expect(second.epoch).toBe(6);
    const third = completedWatermark(second, "inv", 9, t0Ms + 2, 2);
    expect(third.floor).toBe(6);
    const fourth = completedWatermark(third, "inv", 9, t0Ms + 3, 3);
    expect(fourth.floor).toBe(6);
  });
});

describe("epochs across boots", () => {
  it("each boot mints an epoch above every one the node held, older layouts included", () => {
    const d = freshDomain();
    const disk = new Map<string, string>();
    const persist = (n: DirectoryNode): void => {
      const ready = n.ready();
      for (const [k, v] of ready?.batch.puts ?? []) disk.set(k, v);
      for (const k of ready?.batch.dels ?? []) disk.delete(k);
    };
    persist(d.node);
    let node = DirectoryNode.boot(seededRandom(2), disk, t0Ms)!;
    persist(node);
    expect(node.dir.invocationEpoch).toBe(1);
    node = DirectoryNode.boot(seededRandom(3), disk, t0Ms)!;
    persist(node);
    expect(node.dir.invocationEpoch).toBe(2);
    expect(node.replication.retired.map((r) => r.epoch)).toEqual([0, 1]);

    // As a data directory written before epochs existed holds it: no epoch anywhere.
    const meta = JSON.parse(disk.get("meta/node")!) as Record<string, unknown>;
    delete meta.invocationEpoch;
    disk.set("meta/node", JSON.stringify(meta));
    const retired = JSON.parse(disk.get("meta/retired")!) as Array<Record<string, unknown>>;
    disk.set("meta/retired", JSON.stringify(retired.map(({ epoch: _, ...r }) => ({ ...r, epoch: undefined }))));
    for (const [k, v] of disk) {
      if (!k.startsWith("meta/utd/")) continue;
      const { epoch: _, ...rest } = JSON.parse(v) as Record<string, unknown>;
      disk.set(k, JSON.stringify(rest));
    }
    const old = DirectoryNode.boot(seededRandom(4), disk, t0Ms)!;
    for (const e of Object.values(old.replication.utd)) expect(e.epoch).toBe(0);
    expect(old.replication.retired.every((r) => r.epoch === 0)).toBe(true);
    expect(old.dir.invocationEpoch).toBe(1);
  });
});
