/**
 * Goal: the memo of placement repairs (records whose walk up the stored parents ends without a
 * cycle, shared by siblings and kept across requests) never changes a repair: orphans, broken
 * cycles and cycles above an object come out as a walk without memo computes them, in any
 * order of asking.
 * Method: a fast-check property over small forests of OUs with arbitrary stored parents (other
 * OUs, the root, a missing GUID), some of them soft-deleted, written the way a merge stores
 * records; every repair with one shared memo, asked in a random order, is compared with the
 * naive oracle (a fresh memo per record). The same forests check what a restore asks before
 * it writes: where each record will show once some tombstones are alive again
 * (effectiveParentWith) equals placementRepair after they are written alive, and a record is
 * on an alive stored cycle exactly when no walk ends.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Guid } from "../guid";
import type { DirectoryNode } from "../node/directory-node";
import { freshDomain, make, t0Ms } from "../testing/node-fixture";
import { aliveStoredCycle, effectiveParentWith, placementRepair } from "./placement-repair";

const missing = "dddddddd-0000-4000-8000-000000000009";

/** Rewrites the stored parent and stage of `id` as a replicated write would store them. */
function rewrite(node: DirectoryNode, id: Guid, parent: Guid, alive: boolean, atMs: number): void {
  const dir = node.dir;
  const record = dir.get(id)!;
  const usn = dir.allocateUsn();
  const stamp = { ...record.placement.stamp, version: 2, atMs, localUsn: usn };
  const stage = alive ? "alive" : "deleted";
  dir.write({
    ...record,
    existence: { ...record.existence, stage, deleteRoot: alive ? null : id, stamp },
    placement: { ...record.placement, parent, stamp },
    usnChanged: usn,
  });
}

const count = 6;
const each = { minLength: count, maxLength: count };
const forest = fc.record({
  parents: fc.array(fc.integer({ min: -2, max: count - 1 }), each),
  alive: fc.array(fc.boolean(), each),
  claimsMs: fc.array(fc.integer({ min: 0, max: 5 }), each),
  order: fc.array(fc.nat(), { minLength: 2 * count, maxLength: 2 * count }),
});

describe("placementRepair with a shared acyclic memo", () => {
  it("equals the walk without memo, in any order of asking", () => {
    fc.assert(
      fc.property(forest, ({ parents, alive, claimsMs, order }) => {
        const d = freshDomain();
        const ids = parents.map((_, i) => make(d.node, d.root, `ou ${i}`));
        parents.forEach((p, i) => {
          const parent = p === -1 ? d.root : p === -2 ? missing : ids[p]!;
          rewrite(d.node, ids[i]!, parent, alive[i]!, t0Ms + claimsMs[i]! * 1000);
        });
        const memo = new Set<Guid>();
        for (const k of order) {
          const record = d.node.dir.get(ids[k % count]!)!;
          expect(placementRepair(d.node.dir, record, memo)).toEqual(
            placementRepair(d.node.dir, record, new Set()),
          );
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("effectiveParentWith (a restore's look ahead)", () => {
  it("equals placementRepair once the lifted tombstones are alive", () => {
    fc.assert(
      fc.property(forest, fc.array(fc.boolean(), each), ({ parents, alive, claimsMs }, lift) => {
        const d = freshDomain();
        const ids = parents.map((_, i) => make(d.node, d.root, `ou ${i}`));
        const parentOf = (i: number): Guid => {
          const p = parents[i]!;
          return p === -1 ? d.root : p === -2 ? missing : ids[p]!;
        };
        parents.forEach((_, i) => rewrite(d.node, ids[i]!, parentOf(i), alive[i]!, t0Ms + claimsMs[i]! * 1000));
        const lifted = new Set(ids.filter((_, i) => !alive[i] && lift[i]));
        const shown = (i: number) =>
          effectiveParentWith(d.node.dir, d.node.dir.get(ids[i]!)!, lifted);
        const cycles = ids.map((id) => aliveStoredCycle(d.node.dir, d.node.dir.get(id)!) !== null);
        const ahead = ids.map((_, i) => shown(i));
        // One memo shared by every question of one restore gives the same answers.
        const memo = new Set<Guid>();
        const shared = ids.map((id) => effectiveParentWith(d.node.dir, d.node.dir.get(id)!, lifted, memo));
        expect(shared).toEqual(ahead);
        parents.forEach((_, i) => {
          if (lifted.has(ids[i]!)) rewrite(d.node, ids[i]!, parentOf(i), true, t0Ms + claimsMs[i]! * 1000);
        });
        ids.forEach((id, i) => {
          const record = d.node.dir.get(id)!;
          if (record.existence.stage !== "alive") return;
          expect(ahead[i]).toBe(placementRepair(d.node.dir, record).effectiveParent);
        });
        // The naive walk over the indexes: from an alive record through alive stored parents.
        const onCycle = (i: number): boolean => {
          let at = parents[i]!;
          for (let step = 0; step < count && at >= 0 && alive[at]; step++) {
            if (at === i) return true;
            at = parents[at]!;
          }
          return false;
        };
        cycles.forEach((cycle, i) => expect(cycle).toBe(alive[i]! && onCycle(i)));
      }),
      { numRuns: 300 },
    );
  });
});
