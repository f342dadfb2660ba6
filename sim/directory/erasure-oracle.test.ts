/**
 * Goal: the erasure oracle can fail. On a node whose erasure debt is paid, a live log holding
 * value atoms of an object the node holds erased (shredded or hardened), or of one its GC
 * purged and it holds no more, is flagged; a purged object that came back (a late restore)
 * is judged by what it is now, and a node owing debt is judged only on whether its rotation
 * is armed. The purged case was skipped until the tombstone audit (twenty-sixth session): a
 * tombstone purged without ever hardening keeps its values in the files unless the purge's
 * own erasure runs, and losing that erasure passed every oracle.
 * Method: a real KvStore over an in-memory file system holding one object's record with a
 * value, read against a core node that holds it or not.
 */
import { describe, expect, it } from "vitest";
import { encodeRecord } from "../../core/store/record-codec";
import { freshDomain, make, t0Ms, unwrap } from "../../core/testing/node-fixture";
import { KvStore } from "../../core/wal/kv-store";
import { MemoryFileSystem } from "../../core/wal/memory-fs";
import { erasureViolations } from "./erasure-oracle";

function filesHoldingValuesOf() {
  const d = freshDomain();
  const id = make(d.node, d.root, "Vault", "organizationalUnit", t0Ms + 1000, { description: ["secret"] });
  const fs = new MemoryFileSystem();
  const { store } = KvStore.open(fs);
  store.commit([{ puts: [[`o/${id}`, encodeRecord(d.node.dir.get(id)!)]], dels: [] }]);
  return { d, id, fs };
}

const paid = { debt: 0, armed: false };

describe("the erasure oracle", () => {
  it("flags a live file holding values of an object the node purged", () => {
    const { d, id, fs } = filesHoldingValuesOf();
    d.node.dir.purge(id);
    expect(erasureViolations("n1", d.node, fs, paid)).toEqual([]);
    const found = erasureViolations("n1", d.node, fs, paid, new Set([id]));
    expect(found).toEqual([`n1: wal/gen-000001.log record 1 holds value atoms of erased ${id}`]);
  });

  it("flags values of an object the node holds shredded", () => {
    const { d, id, fs } = filesHoldingValuesOf();
    unwrap(d.node.delete(id, t0Ms + 2000));
    unwrap(d.node.shred(id, t0Ms + 3000));
    expect(erasureViolations("n1", d.node, fs, paid)).toHaveLength(1);
  });

  it("judges a purged object that is held again by what it is now, and debt by its armed rotation", () => {
    const { d, id, fs } = filesHoldingValuesOf();
    // Purged once, alive again (a late restore brought it back): its values may stay.
    expect(erasureViolations("n1", d.node, fs, paid, new Set([id]))).toEqual([]);
    d.node.dir.purge(id);
    expect(erasureViolations("n1", d.node, fs, { debt: 1, armed: true }, new Set([id]))).toEqual([]);
    expect(erasureViolations("n1", d.node, fs, { debt: 1, armed: false }, new Set([id]))).toEqual([
      "n1: owes erasure debt 1 with no rotation armed to pay it",
    ]);
  });
});
