/**
 * Goal: the random workload's contention knob aims the given share of ops at the first few
 * entries of a node's pick lists, and without it the workload draws exactly what it drew
 * before (scenarios written earlier keep their schedules).
 * Method: draw a few thousand arrivals from the same stream with and without contention.
 */
import { describe, expect, it } from "vitest";
import { Prng } from "../prng";
import type { DirectoryOp } from "./directory-op";
import { directoryWorkload } from "./workload";

const nodes = ["n1", "n2", "n3"];

function draw(contention: { share: number; objects: number } | null, count: number): DirectoryOp[] {
  const workload = directoryWorkload({ nodes, writesPerSecond: 5, contention });
  const prng = new Prng("workload-test");
  return Array.from({ length: count }, () => workload.next(prng, 0)!.input);
}

/** Every pick an op carries (the target, a move's parent, a member's member). */
function picks(op: DirectoryOp): number[] {
  if (!("pick" in op)) return [];
  if (op.kind === "move") return [op.pick, op.parentPick];
  if (op.kind === "member") return [op.pick, op.memberPick];
  return [op.pick];
}

describe("the workload's contention", () => {
  it("aims about the given share of ops at the first few objects", () => {
    const ops = draw({ share: 0.5, objects: 3 }, 4000);
    const aimed = ops.filter((op) => picks(op).length > 0 && picks(op).every((p) => p < 3));
    const withPicks = ops.filter((op) => picks(op).length > 0);
    // Uniform 32-bit picks below 3 happen with probability ~1e-9: these are the aimed ones.
    expect(aimed.length / withPicks.length).toBeGreaterThan(0.45);
    expect(aimed.length / withPicks.length).toBeLessThan(0.55);
    for (const op of draw({ share: 1, objects: 2 }, 500)) for (const p of picks(op)) expect(p).toBeLessThan(2);
  });

  it("changes nothing else: kinds, nodes, timing and names are the uncontended draws", () => {
    const plain = draw(null, 2000);
    const hot = draw({ share: 0.9, objects: 5 }, 2000);
    const strip = (op: DirectoryOp): unknown => {
      const { pick: _p, parentPick: _pp, memberPick: _mp, ...rest } = op as DirectoryOp & {
        pick?: number;
        parentPick?: number;
        memberPick?: number;
      };
      return rest;
    };
    expect(hot.map(strip)).toEqual(plain.map(strip));
    // And a workload without contention is the one scenarios always had: same stream, same ops.
    expect(draw(null, 50)).toEqual(plain.slice(0, 50));
  });
});
