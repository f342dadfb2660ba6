/**
 * Goal: a disk rollback forgives exactly the acks its node gave between the image and the
 * rollback that no running node holds (replication had not carried them away), and nothing
 * else (other nodes, earlier acks, later acks), in order; an ack kept for a copy elsewhere is
 * forgiven at a later rollback that leaves no copy.
 * Method: a hand-made ledger of acks from two nodes at known virtual times; which acks the
 * other nodes hold is given per rollback.
 */
import { describe, expect, it } from "vitest";
import type { Stamp } from "../../core/store/stamp";
import { Ledger } from "./ledger";

const stamp: Stamp = { version: 1, atMs: 0, origin: "o", cert: { invocation: "o", usn: 1 }, localUsn: 1 };

function ledgerOf(acks: ReadonlyArray<readonly [node: string, trueMs: number]>): Ledger {
  const ledger = new Ledger();
  for (const [node, trueMs] of acks) {
    ledger.ack({ node, objectId: `${node}@${trueMs}`, atom: "existence", stamp, atMs: trueMs, trueMs });
  }
  return ledger;
}

describe("Ledger.forgiveRolledBack", () => {
  it("drops the node's acks from the image to the rollback, keeps the rest in order", () => {
    const ledger = ledgerOf([
      ["n1", 50], ["n2", 100], ["n1", 100], ["n1", 150], ["n2", 160], ["n1", 200], ["n1", 201], ["n2", 250],
    ]);
    ledger.forgiveRolledBack("n1", 100, 200);
    expect(ledger.acked.map((a) => a.objectId)).toEqual(["n1@50", "n2@100", "n2@160", "n1@201", "n2@250"]);
  });

  it("forgives nothing when the node acked nothing since the image", () => {
    const ledger = ledgerOf([["n1", 10], ["n2", 300]]);
    ledger.forgiveRolledBack("n1", 100, 400);
    expect(ledger.acked.map((a) => a.objectId)).toEqual(["n1@10", "n2@300"]);
  });

  it("refuses acks out of virtual-time order (forgiving relies on the order)", () => {
    expect(() => ledgerOf([["n1", 20], ["n2", 10]])).toThrow(/virtual-time order/);
  });

  it("keeps the node's acks another node holds, and forgives them once no copy is left", () => {
    const ledger = ledgerOf([["n1", 100], ["n1", 150], ["n2", 160], ["n1", 200]]);
    const copies = new Set(["n1@150"]);
    const heldElsewhere = (a: { objectId: string }): string | null => (copies.has(a.objectId) ? "n3" : null);
    ledger.forgiveRolledBack("n1", 100, 250, heldElsewhere);
    expect(ledger.acked.map((a) => a.objectId)).toEqual(["n1@150", "n2@160"]);
    // Another rollback while the copy is still held: nothing more goes.
    ledger.forgiveRolledBack("n2", 300, 300, heldElsewhere);
    expect(ledger.acked.map((a) => a.objectId)).toEqual(["n1@150", "n2@160"]);
    // The node that held the copy is rolled back to before it: the ack is gone everywhere.
    copies.clear();
    ledger.forgiveRolledBack("n2", 300, 400, heldElsewhere);
    expect(ledger.acked.map((a) => a.objectId)).toEqual(["n2@160"]);
  });
});
