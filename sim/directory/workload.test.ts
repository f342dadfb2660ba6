/**
 * Goal: the random workload's contention knob aims the given share of ops at the first few
 * entries of a node's pick lists, and without it the workload draws exactly what it drew
 * before (scenarios written earlier keep their schedules).
 * Method: draw a few thousand arrivals from the same stream with and without contention.
 */
import { describe, expect, it } from "vitest";
import { Prng } from "../prng";
import type { DirectoryOp } from "./directory-op";
import { directoryWorkload, type LargeValues } from "./workload";

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

describe("the workload's large values", () => {
  function drawLarge(largeValues: LargeValues | null, count: number): DirectoryOp[] {
    const workload = directoryWorkload({ nodes, writesPerSecond: 5, largeValues });
    const prng = new Prng("workload-test");
    return Array.from({ length: count }, () => workload.next(prng, 0)!.input);
  }

  it("gives about the given share of describe ops values of the given sizes, and changes nothing else", () => {
    const plain = drawLarge(null, 4000);
    const large = drawLarge({ share: 0.5, minBytes: 1000, maxBytes: 100_000 }, 4000);
    expect(draw(null, 4000)).toEqual(plain);
    const describes = large.flatMap((op, i) => (op.kind === "describe" && op.values.length > 0 ? [[op, plain[i]!] as const] : []));
    const grown = describes.filter(([op, was]) => op.kind === "describe" && was.kind === "describe" && op.values[0] !== was.values[0]);
    expect(grown.length / describes.length).toBeGreaterThan(0.42);
    expect(grown.length / describes.length).toBeLessThan(0.58);
    for (const [op, was] of grown) {
      if (op.kind !== "describe" || was.kind !== "describe") continue;
      op.values.forEach((v, k) => {
        // The small value it replaces starts it (so values stay distinct as they were), in lowercase.
        expect(v.startsWith(`${was.values[k]}-`)).toBe(true);
        expect(v.length).toBeGreaterThanOrEqual(1000);
        expect(v.length).toBeLessThanOrEqual(100_000);
        expect(v).toBe(v.toLowerCase());
      });
    }
    // Every other op, and every arrival's node and time, is the one drawn without the knob.
    const strip = (op: DirectoryOp): unknown => (op.kind === "describe" ? { ...op, values: op.values.length } : op);
    expect(large.map(strip)).toEqual(plain.map(strip));
  });
});
