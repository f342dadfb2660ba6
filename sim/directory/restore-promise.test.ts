/**
 * Goal: the simulator judges what a restore promises, every value of the deleted life back
 * (restore-promise.ts). A restore that lost them all passed every oracle before (liveness
 * audit, twenty-eighth session).
 * Method: one core node; an object with values is deleted and restored; the restored record is
 * then forged without one value, as a lossy restore would leave it.
 */
import { describe, expect, it } from "vitest";
import { freshDomain, make, t0Ms, unwrap } from "../../core/testing/node-fixture";
import { lostOnRestore, restorableValues } from "./restore-promise";

describe("the restore promise", () => {
  it("holds for a restore that brings the values back, and names each value a restore lost", () => {
    const { node, root } = freshDomain(3);
    const id = make(node, root, "Vault", "organizationalUnit", t0Ms, {
      description: ["precious"],
      displayName: ["Vault of values"],
    });
    unwrap(node.delete(id, t0Ms + 1000));
    const before = restorableValues(node, id);
    expect(before.get(id)?.map((v) => v.attr).sort()).toEqual(["description", "displayName"]);
    unwrap(node.restore(id, t0Ms + 2000));
    expect(lostOnRestore(node, before)).toEqual([]);
    const restored = node.dir.get(id)!;
    const attrs = new Map(restored.attrs);
    attrs.delete("description");
    node.dir.write({ ...restored, attrs });
    expect(lostOnRestore(node, before)).toEqual([
      `the restore of ${id} did not bring back its description value (key "precious")`,
    ]);
  });

  it("asks nothing of tombstones the restore left deleted", () => {
    const { node, root } = freshDomain(4);
    const kept = make(node, root, "Kept", "organizationalUnit", t0Ms, { description: ["k"] });
    const other = make(node, root, "Other", "organizationalUnit", t0Ms, { description: ["o"] });
    unwrap(node.delete(kept, t0Ms + 1000));
    unwrap(node.delete(other, t0Ms + 1000));
    const before = restorableValues(node, null);
    expect([...before.keys()].sort()).toEqual([kept, other].sort());
    expect([...restorableValues(node, kept).keys()]).toEqual([kept]);
    unwrap(node.restore(kept, t0Ms + 2000));
    expect(lostOnRestore(node, before)).toEqual([]);
    expect(node.dir.get(other)?.existence.stage).toBe("deleted");
  });
});
