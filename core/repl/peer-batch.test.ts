/**
 * Goal: a well-formed batch from a peer never crashes the node that applies it, whatever its
 * content: a bug, corruption or another version on the peer's side is refused and journaled
 * (`record-refused`), and the node goes on serving. Two such records used to trip assertions:
 * a record whose class contradicts the one held (a GUID collision or corruption), and one with
 * a name SPEC's naming rules refuse (its path could not be rendered).
 * Method: fast-check batches of arbitrary deltas (test/support/replication-arbitraries.ts),
 * some re-aimed at the node's own objects, at each other as parents (cycles) and at the real
 * schema's classes and attributes, applied to a fresh domain; then every object is rendered,
 * the tree walked, the schema, journal and morgue read and GC run far in the future. Then the
 * two refusals on fixed examples. Last, requests and batches whose watermarks and vectors say
 * anything (this node's own invocation at any USN among them, which is rollback evidence) go
 * through `answer` and `receive` and the node's persistence without an exception. And a batch
 * interrupted midway by an exception (a write made to fail) leaves the node consistent: what
 * merged persists, the cycle stays open, and asking again ends where a clean pull ends.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deltaArb, guidArb, vectorArb } from "../../test/support/replication-arbitraries";
import { DirectoryNode } from "../node/directory-node";
import { freshDomain, t0Ms, unwrap } from "../testing/node-fixture";
import { seededRandom } from "../testing/seeded-random";
import { applyBatch } from "./apply-batch";
import type { PullBatch, PullRequest, TravellingVector } from "./messages";

describe("a peer's batch on the receiving node", () => {
  it("never crashes the node, whatever well-formed content it carries", () => {
    const probe = freshDomain();
    const schema = unwrap(probe.node.schema());
    const classes = schema.classes.map((c) => [c.id, c.name] as const);
    const attrNames = schema.attributes.map((a) => a.name);
    fc.assert(
      fc.property(
        fc.array(deltaArb, { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 6 }),
        (deltas, aims, kinds) => {
          const d = freshDomain();
          const known = [d.root, d.configuration, d.schema, d.lostAndFound, d.domainControllers];
          const ids = deltas.map((x) => x.id);
          const aimed = deltas.map((x, i) => {
            const a = aims[i];
            const k = kinds[i];
            let out = x;
            if (k !== undefined) {
              const [cid, cname] = classes[k[0] % classes.length]!;
              out = {
                ...out,
                existence: out.existence === null ? null : { ...out.existence, classId: cid, className: cname },
                attrs: out.attrs.map(([, atoms], j) => [attrNames[(k[1] + j) % attrNames.length]!, atoms] as const),
              };
            }
            if (a === undefined) return out;
            const pool = [...known, ...ids];
            const placement = out.placement === null ? null : { ...out.placement, parent: pool[(a >> 1) % pool.length]! };
            return { ...out, placement };
          });
          const batch: PullBatch = { type: "batch", requestId: 1, from: "peer", invocation: "inv", continued: true, deltas: aimed, highUsn: 1, more: false, utd: null };
          applyBatch(d.node.dir, batch, t0Ms);
          const walk = (id: string, depth: number): void => {
            if (depth > 50) return;
            d.node.object(id, t0Ms);
            const kids = d.node.children(id);
            if (kids.ok) for (const k of kids.value) walk(k.id, depth + 1);
          };
          walk(d.root, 0);
          for (const x of aimed) d.node.object(x.id, t0Ms);
          d.node.schema();
          d.node.journal();
          d.node.morgue(t0Ms);
          d.node.gc(t0Ms + 400 * 24 * 3600 * 1000);
          expect(d.node.ready()).not.toBeUndefined();
        },
      ),
      { numRuns: 400 },
    );
  });

  it("refuses a record whose class contradicts the held one, and one with an invalid name, journaling both", () => {
    const d = freshDomain();
    const held = d.node.dir.get(d.lostAndFound)!;
    const stamp = { version: 9, atMs: t0Ms, origin: "peer-inv", cert: { invocation: "peer-inv", usn: 1 }, localUsn: 0 };
    const otherClass = { ...held.existence, classId: d.root, className: "user", stamp };
    const badName = "00000000-0000-4000-8000-00000000abcd";
    const batch: PullBatch = {
      type: "batch",
      requestId: 1,
      from: "peer",
      invocation: "peer-inv",
      continued: true,
      deltas: [
        { id: d.lostAndFound, existence: otherClass, placement: null, attrs: [] },
        {
          id: badName,
          existence: { ...held.existence, stamp },
          placement: { parent: d.root, name: " trailing space is invalid ", stamp },
          attrs: [],
        },
      ],
      highUsn: 1,
      more: false,
      utd: null,
    };
    const outcome = applyBatch(d.node.dir, batch, t0Ms);
    expect(outcome).toMatchObject({ applied: 0, refused: 2 });
    expect(d.node.dir.get(d.lostAndFound)).toBe(held);
    expect(d.node.dir.get(badName)).toBeUndefined();
    const refused = d.node.journal().filter((e) => e.kind === "record-refused").map((e) => e.detail);
    expect(refused).toEqual([
      `${d.lostAndFound}: record of class user refused, held as organizationalUnit (from peer)`,
      `${badName}: record with an invalid name refused (from peer)`,
    ]);
  });

  it("answers any well-formed request and takes any batch of a cycle it started, whatever the vectors and watermarks say", () => {
    const watermarkArb = fc.option(fc.record({ usn: fc.nat(), propUsn: fc.nat(), own: fc.boolean(), inv: guidArb }), {
      nil: null,
    });
    fc.assert(
      fc.property(
        vectorArb,
        watermarkArb,
        fc.nat({ max: 60 }),
        fc.array(deltaArb, { maxLength: 4 }),
        fc.option(vectorArb, { nil: null }),
        fc.boolean(),
        fc.nat(),
        fc.boolean(),
        (utd, wm, objectsMax, deltas, batchUtd, more, usnPick, evidence) => {
          const d = freshDomain();
          const self = d.node.dir;
          // With `evidence`, the vector names this node's own invocation at some USN.
          const tweak = (v: TravellingVector): TravellingVector =>
            evidence ? { entries: { ...v.entries, [self.invocationId]: { usn: usnPick % 500, node: self.nodeId, epoch: self.invocationEpoch } }, own: v.own } : v;
          const watermark =
            wm === null ? null : { invocation: wm.own ? self.invocationId : wm.inv, usn: wm.usn % 400, propUsn: wm.propUsn % 400 };
          const partner = utd.own[1].node;
          const req: PullRequest = { type: "pull", requestId: 1, from: partner, watermark, utd: tweak(utd), objectsMax: Math.max(1, objectsMax) };
          d.node.replicator.answer(req, t0Ms);
          d.node.ready();
          const out = d.node.replicator.pullRequest(partner, t0Ms);
          if (out === null) return;
          const batch: PullBatch = {
            type: "batch",
            requestId: out.requestId,
            from: partner,
            invocation: utd.own[0],
            continued: more,
            deltas,
            highUsn: usnPick % 1000,
            more,
            utd: batchUtd === null ? null : tweak(batchUtd),
          };
          const next = d.node.replicator.receive(batch, t0Ms);
          d.node.ready();
          if (next !== null) d.node.replicator.answer({ ...req, requestId: 2 }, t0Ms);
          d.node.summary(t0Ms);
          expect(d.node.ready()).not.toBeUndefined();
        },
      ),
      { numRuns: 300 },
    );
  });

  it("stops midway through a batch without harm: what was merged persists, the cycle stays open, and asking again converges", () => {
    const source = freshDomain(1).node;
    const clean = DirectoryNode.joining(seededRandom(2));
    const broken = DirectoryNode.joining(seededRandom(3));
    const pullAll = (node: DirectoryNode): void => {
      const req = node.replicator.pullRequest(source.dir.nodeId, t0Ms, 1000)!;
      node.replicator.receive(source.replicator.answer(req, t0Ms), t0Ms);
    };
    pullAll(clean);
    // The tenth record written fails (say, a bug met in one object): receive throws midway.
    const write = broken.dir.write.bind(broken.dir);
    let writes = 0;
    broken.dir.write = (record) => {
      if (++writes === 10) throw new Error("interrupted");
      write(record);
    };
    expect(() => pullAll(broken)).toThrow("interrupted");
    broken.dir.write = write;
    // Nine records merged; they persist with the next batch. The cycle did not complete.
    expect(broken.dir.store.size).toBe(9);
    expect(broken.ready()?.batch.puts.length).toBeGreaterThanOrEqual(9);
    expect(broken.replication.watermarks[source.dir.nodeId]).toBeUndefined();
    expect(broken.replicator.isPulling(source.dir.nodeId)).toBe(true);
    // The schedule gives up on the cycle and asks again: the node ends where a clean pull ends.
    broken.replicator.abandon(source.dir.nodeId);
    pullAll(broken);
    expect(digestOf(broken)).toEqual(digestOf(clean));
    expect(broken.replication.watermarks[source.dir.nodeId]?.usn).toBe(clean.replication.watermarks[source.dir.nodeId]?.usn);
    expect(unwrap(broken.root(t0Ms))).toEqual(unwrap(clean.root(t0Ms)));
  });
});

/** Every record's atoms with their stamps (the node-local USNs left out), by id. */
function digestOf(node: DirectoryNode): string[] {
  const out: string[] = [];
  for (const id of node.dir.store.ids()) {
    const r = node.dir.get(id)!;
    const stamp = (s: { version: number; atMs: number; origin: string }) => `${s.version}/${s.atMs}/${s.origin}`;
    const attrs = [...r.attrs].map(([n, atoms]) => `${n}:${[...atoms.values()].map((a) => `${a.key}=${a.value}@${stamp(a.stamp)}`).join(",")}`);
    out.push(`${id} ${r.existence.stage}@${stamp(r.existence.stamp)} ${r.placement.parent}/${r.placement.name}@${stamp(r.placement.stamp)} ${attrs.join(" ")}`);
  }
  return out.sort();
}
