/**
 * Goal: a rotation that leaves erasure debt unpaid without a failed rebuild fails the run. The
 * host re-arms the erasure rotation while debt is owed, so a store whose rotation never paid
 * looked "armed" to the erasure oracle at the end of every run, the shredded plaintext in the
 * live log all along (liveness audit, twenty-eighth session).
 * Method: a shred on n1, run once as it is and once with KvStore#rotate made to skip its
 * rebuild while debt is owed (the injected bug), spied on the prototype.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { KvStore } from "../../core/wal/kv-store";
import { parseScenario } from "../scenario/parse-scenario";
import { runScenario } from "../scenario/run-scenario";

const scenario = parseScenario(`scenario shred-never-erased
checks DESIGN "after a shred nothing of a value survives in any live file"
nodes 2
faults none
network latency=fixed:10
timing pullJitter=0
rate 0
safety 90s

at 1s n1 create / Secret organizationalUnit description=plaintext-secret as @S
at 5s n1 shred @S
`);

afterEach(() => {
  vi.restoreAllMocks();
});

describe("an erasure rotation", () => {
  it("that pays passes", () => {
    expect(runScenario(scenario, { seed: 1 }).violations).toEqual([]);
  });

  it("that never pays fails the run", () => {
    const rotate = KvStore.prototype.rotate;
    vi.spyOn(KvStore.prototype, "rotate").mockImplementation(function (this: KvStore) {
      if (this.erasureDebt > 0) return { sealedGeneration: 0, generation: this.marks().generation };
      return rotate.call(this);
    });
    const violations = runScenario(scenario, { seed: 1 }).violations.join("\n");
    expect(violations).toMatch(/n1: a rotation left erasure debt 1 unpaid, and no rebuild of it failed/);
  });
});
