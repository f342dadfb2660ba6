/**
 * Goal: the durability oracle keeps judging a write its node acknowledged and then lost to a
 * disk rollback, when replication had carried it away first (SPEC: a rolled-back node heals
 * "losing nothing acknowledged" that survives elsewhere); it forgives only the acks no other
 * node held when the disk was restored.
 * Method: rollback-heal's shape (n2 acknowledges two writes after its image, then its disk is
 * restored): once with partners that pulled the writes before the rollback, once with the
 * partners' pulls paused until after it. The ledger at the end of each run says which of n2's
 * acks between image and rollback the oracle still judged, and each run passes.
 */
import { describe, expect, it } from "vitest";
import type { DirectoryWorld } from "./directory-world";
import { parseScenario } from "../scenario/parse-scenario";
import { runScenario } from "../scenario/run-scenario";

function scenario(partnersPull: boolean): string {
  return `scenario carried-away-acks
checks DESIGN "Oracles" 2 under a rollback
nodes 3
faults none
rate 0
safety 38s
timing pullTimeout=3s

at 5s image n2 before
${partnersPull ? "" : "at 5500ms pause-pulls n1\nat 5500ms pause-pulls n3\n"}at 6s n2 create / Orion organizationalUnit as @W1
at 7s n2 put @W1 description v1
at 10s pause-pulls n2
at 10s rollback n2 before down=500ms
${partnersPull ? "" : "at 12s resume-pulls n1\nat 12s resume-pulls n3\n"}at 24s resume-pulls n2
`;
}

/** n2's acks made between its image (5 s) and its rollback (10 s) left in the ledger. */
function judgedWindowAcks(partnersPull: boolean, seed: number): number {
  let last: DirectoryWorld | null = null;
  const r = runScenario(parseScenario(scenario(partnersPull)), { seed, afterEvent: (dw) => (last = dw) });
  expect(r.violations).toEqual([]);
  const dw = last as DirectoryWorld | null;
  if (dw === null) throw new Error("the run had no event");
  return dw.ledger.acked.filter((a) => a.node === "n2" && a.trueMs >= 5_000 && a.trueMs <= 10_000).length;
}

describe("acks carried away before a rollback", () => {
  for (const seed of [1, 2, 3]) {
    it(`stay judged when partners pulled them, are forgiven when none did (seed ${seed})`, () => {
      // The create stamps existence, placement and a name; the put one value.
      expect(judgedWindowAcks(true, seed)).toBeGreaterThanOrEqual(3);
      expect(judgedWindowAcks(false, seed)).toBe(0);
    });
  }
});

/**
 * An ack kept at its node's rollback because n1 carried it away stays judged when another
 * node's rollback (n3's, losing nothing) comes while n1 is down with a crash: n1's disk still
 * holds it, and n1 spreads it on restart. Before (diff review, twenty-eighth session) the
 * re-ask at n3's rollback found no running holder and forgave it for good.
 */
function holderDownScenario(unrelatedRollback: boolean): string {
  return `scenario carried-then-holder-down
checks DESIGN "Oracles" 2 under a rollback
nodes 3
faults none
rate 0
safety 60s
timing pullTimeout=3s

at 5s image n2 before
at 5500ms pause-pulls n3
at 6s n2 create / Orion organizationalUnit as @W1
at 7s n2 put @W1 description v1
at 9s pause-pulls n1
at 10s pause-pulls n2
at 10s rollback n2 before down=500ms
at 11s crash n1 down=10s
at 12s image n3 K
${unrelatedRollback ? "at 13s rollback n3 K down=500ms" : ""}
at 24s resume-pulls n1
at 24s resume-pulls n2
at 24s resume-pulls n3
`;
}

describe("a carried-away ack whose holder is down at a later rollback", () => {
  const judged = (unrelatedRollback: boolean, seed: number): number => {
    let last: DirectoryWorld | null = null;
    const r = runScenario(parseScenario(holderDownScenario(unrelatedRollback)), {
      seed,
      afterEvent: (dw) => (last = dw),
    });
    expect(r.violations).toEqual([]);
    const dw = last as DirectoryWorld | null;
    if (dw === null) throw new Error("the run had no event");
    return dw.ledger.acked.filter((a) => a.node === "n2" && a.trueMs >= 5_000 && a.trueMs <= 10_000).length;
  };

  it.each([1, 2, 3])("stays judged (seed %i)", (seed) => {
    const without = judged(false, seed);
    expect(without).toBeGreaterThanOrEqual(3);
    expect(judged(true, seed)).toBe(without);
  });
});
