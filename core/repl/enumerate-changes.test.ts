/**
 * Goal: a pull continues where the destination's watermark left off even though every boot of
 * the source re-mints its invocation (the local USNs continue on the same store), resumes at
 * the fork point when the watermark names a USN the source no longer holds (its disk was
 * rolled back below it), restarts a cycle under way at its start when the source restarted
 * meanwhile, and starts over from zero for a watermark it does not know. Method: a source node writes, a partner's watermark is taken, the
 * source reboots from its persisted state (re-minting) or from an older image, writes again,
 * and the batch it answers is inspected.
 */
import { describe, expect, it } from "vitest";
import { seededRandom } from "../testing/seeded-random";
import { emptyTravelling } from "../testing/travelling-vector";
import { freshDomain, t0Ms, unwrap } from "../testing/node-fixture";
import { DirectoryNode } from "../node/directory-node";
import type { PullRequest } from "./messages";

function persist(node: DirectoryNode, into: Map<string, string>): void {
  const ready = node.ready();
  if (ready === null) return;
  for (const [k, v] of ready.batch.puts) into.set(k, v);
  for (const k of ready.batch.dels) into.delete(k);
}

function pull(watermark: PullRequest["watermark"]): PullRequest {
  const from = "00000000-0000-4000-8000-00000000beef";
  return { type: "pull", requestId: 1, from, watermark, utd: emptyTravelling(from), objectsMax: 1000 };
}

function setUp() {
  const d = freshDomain();
  const stored = new Map<string, string>();
  const ou = (name: string, node: DirectoryNode) =>
    unwrap(node.create({ parent: d.root, name, className: "organizationalUnit" }, t0Ms)).id;
  ou("Before", d.node);
  persist(d.node, stored);
  const image = new Map(stored);
  const imageUsn = d.node.dir.usn;
  ou("Seen", d.node);
  persist(d.node, stored);
  // The partner enumerated everything so far under the source's first invocation.
  const watermark = { invocation: d.node.dir.invocationId, usn: d.node.dir.usn, propUsn: d.node.dir.usn };
  return { d, stored, image, imageUsn, watermark, ou };
}

describe("enumerateChanges across re-minted invocations", () => {
  it("continues after a watermark of an invocation the source retired at a reboot", () => {
    const { stored, watermark, ou } = setUp();
    const booted = DirectoryNode.boot(seededRandom(2), stored)!;
    expect(booted.dir.invocationId).not.toBe(watermark.invocation);
    const after = ou("After", booted);
    const batch = booted.replicator.answer(pull(watermark), t0Ms);
    expect(batch.continued).toBe(true);
    expect(batch.deltas.map((d) => d.id)).toEqual([after]);
  });

  it("resumes where a rolled-back disk's history forked when the watermark lies beyond it", () => {
    const { image, imageUsn, watermark, ou } = setUp();
    const rolledBack = DirectoryNode.boot(seededRandom(3), image)!;
    expect(rolledBack.dir.usn).toBe(imageUsn);
    expect(watermark.usn).toBeGreaterThan(imageUsn);
    // The rolled-back node reissues USNs the partner's watermark already covers: they are
    // sent, and so is everything else after the fork point, but not what lies before it
    // (both histories share it).
    const reissued = ou("Reissued", rolledBack);
    const batch = rolledBack.replicator.answer(pull(watermark), t0Ms);
    expect(batch.continued).toBe(false);
    const afterFork = [...rolledBack.dir.store.all()].filter((r) => r.usnChanged > imageUsn).map((r) => r.id);
    expect(batch.deltas.map((d) => d.id)).toContain(reissued);
    expect(batch.deltas.map((d) => d.id).sort()).toEqual(afterFork.sort());
    expect(batch.deltas.length).toBeLessThan(rolledBack.dir.store.size);
  });

  it("restarts a cycle at its start when the continuation names an invocation retired since", () => {
    // The partner's cycle started at the image's USN (a completed point) and walked to the
    // current one; then the source restarted. A record that moved past the partner's
    // position before it got there may sit below it again in a history the source went back
    // to, so the next batch walks again from the cycle's start, without the atom filter.
    const { d, stored, imageUsn, watermark } = setUp();
    const seen = [...d.node.dir.store.all()].filter((r) => r.usnChanged > imageUsn).map((r) => r.id);
    expect(seen.length).toBeGreaterThan(0);
    const continuation = { ...watermark, propUsn: imageUsn };
    const booted = DirectoryNode.boot(seededRandom(4), stored)!;
    const batch = booted.replicator.answer(pull(continuation), t0Ms);
    expect(batch.continued).toBe(false);
    expect(batch.deltas.map((delta) => delta.id).sort()).toEqual(seen.sort());
    // A stored watermark (a completed cycle) still continues where it stopped.
    expect(booted.replicator.answer(pull(watermark), t0Ms).deltas).toEqual([]);
  });

  it("does not recognise an unknown invocation", () => {
    const { d, ou } = setUp();
    ou("Later", d.node);
    const stranger = { invocation: "00000000-0000-4000-8000-0000000000aa", usn: 1, propUsn: 1 };
    const batch = d.node.replicator.answer(pull(stranger), t0Ms);
    expect(batch.continued).toBe(false);
    expect(batch.deltas.length).toBe(d.node.dir.store.size);
  });
});
