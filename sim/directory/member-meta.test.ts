/**
 * Goal: the random workload's member meta (workload.ts `memberMetaKinds`) really sets and
 * clears the `expiry` meta of member values on a live run under chaos, with contention so
 * that nodes change the meta of the same values concurrently, and the runs pass every oracle
 * (convergence compares each value atom's meta on every node).
 * Method: a few seeds of a scenario with `expiry` in its mix; every node's final directory
 * must hold member values with an expiry and the oracles must have nothing to say.
 */
import { describe, expect, it } from "vitest";
import { parseScenario } from "../scenario/parse-scenario";
import { runScenario } from "../scenario/run-scenario";
import type { DirectoryWorld } from "./directory-world";

const scenario = parseScenario(`scenario member-meta-under-chaos
checks SPEC "Base schema" (member has legalMeta expiry); DESIGN "Oracles" 1-2
nodes 4
faults chaos
rate 5
safety 40s
contention share=0.5 objects=3
mix create=10 rename=2 move=2 member=10 expiry=10 delete=2 restore=2 describe=2
`);

describe("the workload's member meta", () => {
  it("sets and clears expiry meta on member values, and every node ends with the same", () => {
    let withExpiry = 0;
    const expiries = new Set<string>();
    for (let seed = 1; seed <= 3; seed++) {
      let world: DirectoryWorld | null = null;
      const report = runScenario(scenario, { seed, afterEvent: (dw) => void (world = dw) });
      expect(report.violations).toEqual([]);
      for (const node of (world as DirectoryWorld | null)!.nodes().values()) {
        for (const r of node.dir.store.all()) {
          for (const atom of r.attrs.get("member")?.values() ?? []) {
            const expiry = atom.present ? atom.meta?.["expiry"]?.[0] : undefined;
            if (expiry === undefined) continue;
            withExpiry += 1;
            expiries.add(expiry);
          }
        }
      }
    }
    expect(withExpiry).toBeGreaterThan(0);
    // Several of the four dates the workload draws: values were set more than once.
    expect(expiries.size).toBeGreaterThan(1);
  });
});
