import { describe, expect, it } from "vitest";
import { runShapeOfArgs, simulatorNodeFlags } from "./runtime-flags";

describe("simulator runtime flags", () => {
  it("runs one seed with parallel GC and ranges, files, swarms and shrinks with one GC thread", () => {
    const shape = (line: string) => runShapeOfArgs(line.split(" "));
    expect(shape("--scenario scenarios/a.scn --seed 7")).toBe("one-run");
    expect(shape("--preset chaos --seeds 12")).toBe("one-run");
    expect(shape("--preset chaos --seeds 4..4 --trace")).toBe("one-run");
    expect(shape("--preset chaos --seeds 1..200")).toBe("many-runs");
    // A scenario file without a seed runs its own seed range.
    expect(shape("--scenario scenarios/a.scn")).toBe("many-runs");
    expect(shape("--all --seeds 3")).toBe("many-runs");
    expect(shape("--swarm --seeds 5")).toBe("many-runs");
    expect(shape("--scenario scenarios/a.scn --seed 9 --shrink")).toBe("many-runs");
  });

  it("gives both shapes a larger young generation and only many runs one GC thread", () => {
    expect(simulatorNodeFlags("one-run")).toEqual(["--max-semi-space-size=64"]);
    expect(simulatorNodeFlags("many-runs")).toEqual(["--max-semi-space-size=128", "--single-threaded-gc"]);
  });
});
