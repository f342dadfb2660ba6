/**
 * Goal: the boot-equivalence oracle flags a running node that renders what a restart from its
 * own disk would not (derived state kept in memory that a boot does not derive, or state never
 * persisted), and accepts one that agrees. Method: a node with a stored move cycle persisted
 * through the real KvStore onto a SimFs; the check runs as is, then after the node forgets the
 * cycle's breaker as a repair suspect, then after a write that was never persisted.
 */
import { describe, expect, it } from "vitest";
import type { DirectoryNode } from "../../core/node/directory-node";
import { make, withStoredCycle } from "../../core/testing/node-fixture";
import { KvStore } from "../../core/wal/kv-store";
import { SimFs } from "../sim-fs";
import { bootViolations } from "./boot-oracle";

function persisted(node: DirectoryNode): SimFs {
  const fs = new SimFs();
  const { store } = KvStore.open(fs);
  const ready = node.ready();
  if (ready !== null) store.commit([ready.batch]);
  return fs;
}

describe("the boot-equivalence oracle", () => {
  it("accepts a node that renders what its disk boots to", () => {
    const { node } = withStoredCycle();
    expect(bootViolations("n1", node, persisted(node))).toEqual([]);
  });

  it("flags a repair the running node lost from its listing", () => {
    const { node, b } = withStoredCycle();
    const fs = persisted(node);
    node.dir.dropRepairSuspect(b);
    expect(bootViolations("n1", node, fs)).toEqual(["n1: a restart from its disk changes /LostAndFound's listing"]);
  });

  it("flags state that never reached the disk", () => {
    const d = withStoredCycle();
    const fs = persisted(d.node);
    make(d.node, d.root, "Unsaved");
    const found = bootViolations("n1", d.node, fs);
    expect(found).toContain("n1: a restart from its disk changes the records");
    expect(found).toContain("n1: a restart from its disk changes the USN");
  });
});
