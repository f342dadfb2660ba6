/**
 * Goal: what a booted node shows and does does not depend on the order its persisted entries
 * arrive in. The daemon streams them from LevelDB in key order, the simulator from its
 * snapshot buckets (hash order) and log replay; each boot rebuilds the store's indexes (children,
 * names, back-references, change log) in that arrival order, so any output that followed it
 * would differ between the daemon and the simulator, and between two boots of one disk.
 * Method: a 3-node chaos run of the real directory in the simulator (crashes, partitions,
 * skew, rollbacks, every workload operation) leaves each node a disk; its entries, loaded
 * once, are booted in their stored order and in fast-check's permutations with the same
 * random source, and each boot is compared with the first as a client and a partner see it:
 * every object's payload and listing, /LostAndFound, schema, morgue, journal, the answer to
 * a partner pulling everything, and the outcome of the same writes after the boot.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DirectoryNode } from "../../core/node/directory-node";
import { seededRandom } from "../../core/testing/seeded-random";
import { emptyTravelling } from "../../core/testing/travelling-vector";
import { flatVector } from "../../core/repl/vector-parts";
import { KvStore } from "../../core/wal/kv-store";
import { presetFaults } from "../faults";
import { directoryWorld } from "./directory-world";

const nowMs = Date.UTC(2026, 0, 1, 0, 10);

/** Each node's persisted entries after a short chaos run (seeded: the same every time). */
function disksAfterChaos(seed: number): Array<Array<[string, string]>> {
  const dw = directoryWorld({ seed, nodeCount: 3, writesPerSecond: 8, faults: presetFaults("chaos") });
  dw.world.start();
  dw.world.runUntil(90_000);
  const out: Array<Array<[string, string]>> = [];
  for (const id of ["n1", "n2", "n3"]) {
    const opened = KvStore.open(dw.world.node(id).fs);
    if (opened.entries.size > 0) out.push([...opened.entries]);
  }
  return out;
}

/** The path of the first difference between two JSON values, for a readable failure. */
function firstDifference(a: unknown, b: unknown, at = "$"): string | null {
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b) || (a === null) !== (b === null)) {
    return `${at}: ${JSON.stringify(a)?.slice(0, 200)} vs ${JSON.stringify(b)?.slice(0, 200)}`;
  }
  if (typeof a !== "object" || a === null) return a === b ? null : `${at}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`;
  const ka = Object.keys(a);
  const kb = Object.keys(b as object);
  if (ka.join() !== kb.join()) return `${at} keys: ${ka.join(",").slice(0, 300)} vs ${kb.join(",").slice(0, 300)}`;
  for (const k of ka) {
    const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`);
    if (d !== null) return d;
  }
  return null;
}

/** Everything a client and a partner can observe of a booted node, as JSON. */
function observe(entries: ReadonlyArray<readonly [string, string]>): string {
  const node = DirectoryNode.boot(seededRandom(7), entries, nowMs);
  expect(node).not.toBeNull();
  const n = node!;
  const ids = [...n.dir.store.ids()].sort();
  const seen: unknown[] = [n.summary(nowMs), n.schema(), n.morgue(nowMs), n.journal(), n.dir.repairSuspects()];
  for (const id of ids) seen.push(id, n.object(id, nowMs), n.children(id));
  // A partner that holds nothing pulls everything, batch by batch.
  const partner = "00000000-0000-4000-8000-00000000beef";
  let watermark: { invocation: string; usn: number; propUsn: number } | null = null;
  for (let batch = 0; batch < 1000; batch++) {
    const answer = n.replicator.answer(
      { type: "pull", requestId: batch, from: partner, watermark, utd: emptyTravelling(partner), objectsMax: 50 },
      nowMs,
    );
    // The vector by what it says: it travels as the stored entries object, in load order.
    seen.push({ ...answer, utd: answer.utd === null ? null : flatVector(answer.utd) });
    if (!answer.more) break;
    watermark = { invocation: answer.invocation, usn: answer.highUsn, propUsn: 0 };
  }
  // The same writes after the boot: a create beside the first listed child, a move and a delete.
  const root = n.root(nowMs);
  if (root.ok) {
    const first = n.children(root.value.id);
    const name = first.ok && first.value[0] !== undefined ? first.value[0].name : "X";
    seen.push(n.create({ parent: root.value.id, name, className: "organizationalUnit" }, nowMs + 1));
    const last = ids.at(-1)!;
    seen.push(n.move(last, { parent: root.value.id }, nowMs + 2));
    seen.push(n.delete(ids[Math.floor(ids.length / 2)]!, nowMs + 3));
    seen.push(n.children(root.value.id));
  }
  return JSON.stringify(seen);
}

describe("a boot does not depend on the order of the persisted entries", () => {
  const disks = [...disksAfterChaos(11), ...disksAfterChaos(12)];

  it("the chaos run left disks with a directory on them", () => {
    expect(disks.length).toBeGreaterThan(0);
    for (const entries of disks) expect(entries.filter(([k]) => k.startsWith("o/")).length).toBeGreaterThan(20);
  });

  it("boots every permutation of a disk's entries to the same observable node", () => {
    const expected = disks.map((entries) => observe(entries));
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: disks.length - 1 }),
        fc.integer({ min: 0, max: 0xffff_ffff }),
        (disk, shuffleSeed) => {
          const entries = [...disks[disk]!];
          const random = seededRandom(shuffleSeed);
          for (let i = entries.length - 1; i > 0; i--) {
            const j = random.nextUint32() % (i + 1);
            [entries[i], entries[j]] = [entries[j]!, entries[i]!];
          }
          expect(observe(entries)).toBe(expected[disk]);
        },
      ),
      { numRuns: 16 },
    );
  });

  it("boots a disk's entries in key order and in reverse to the same observable node", () => {
    for (const entries of disks) {
      const expected = observe(entries);
      const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      expect(firstDifference(JSON.parse(observe(sorted)), JSON.parse(expected))).toBeNull();
      expect(firstDifference(JSON.parse(observe([...entries].reverse())), JSON.parse(expected))).toBeNull();
    }
  });
});
