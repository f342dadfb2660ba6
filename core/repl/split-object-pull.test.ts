/**
 * Goal: a destination pulling an object too large for one batch ends holding all of it, as the
 * source holds it, whether the cycle runs straight through, the object changes at the source
 * between its parts, or a request is lost inside the object and the cycle resumes.
 * Method: a founded domain with a lowered byte target (20 KB) creates an organizational unit
 * of forty 5,000-character descriptions; a joining node pulls it through the replicators'
 * own answer and receive, and its record is compared with the source's atom by atom.
 */
import { describe, expect, it } from "vitest";
import { DirectoryNode } from "../node/directory-node";
import { freshDomain, t0Ms, unwrap } from "../testing/node-fixture";
import { seededRandom } from "../testing/seeded-random";
import type { ObjectRecord } from "../store/record";
import type { PullBatch, PullRequest } from "./messages";

const target = 20_000;

function setUp() {
  const d = freshDomain();
  d.node.replicator.batchBytesTarget = target;
  const values = Array.from({ length: 40 }, (_, i) => `value ${i} `.padEnd(5000, "z"));
  const id = unwrap(
    d.node.create({ parent: d.root, name: "Big", className: "organizationalUnit", attributes: { description: values } }, t0Ms),
  ).id;
  d.node.ready();
  return { source: d.node, dest: DirectoryNode.joining(seededRandom(7)), id };
}

/** What a destination should hold: every atom, by attribute and key, with its stamp and value. */
function atomsOf(record: ObjectRecord | undefined) {
  expect(record).toBeDefined();
  const out: Record<string, unknown> = {};
  for (const [name, atoms] of record!.attrs) {
    for (const [key, atom] of atoms) {
      out[`${name}/${key}`] = { value: atom.value, present: atom.present, version: atom.stamp.version, cert: atom.stamp.cert };
    }
  }
  // Stamps without their local USN, which is each node's own.
  const { stamp: e, ...existence } = record!.existence;
  const { stamp: p, ...placement } = record!.placement;
  return { existence, e: [e.version, e.cert], placement, p: [p.version, p.cert], out };
}

/** Runs a cycle from `req` to completion, or `stopAfter` batches; returns the batches. */
function run(source: DirectoryNode, dest: DirectoryNode, req: PullRequest | null, stopAfter = 1000): PullBatch[] {
  const batches: PullBatch[] = [];
  for (let i = 0; req !== null && i < stopAfter; i++) {
    const batch = source.replicator.answer(req, t0Ms);
    batches.push(batch);
    req = dest.replicator.receive(batch, t0Ms);
  }
  return batches;
}

describe("an object larger than a batch, pulled", () => {
  it("arrives whole, in parts of bounded size", () => {
    const { source, dest, id } = setUp();
    const batches = run(source, dest, dest.replicator.pullRequest(source.dir.nodeId, t0Ms));
    expect(batches.at(-1)?.more).toBe(false);
    const carrying = batches.filter((b) => b.deltas.some((x) => x.id === id));
    // 40 values of ~10 KB each (a caseless value travels twice): two per part.
    expect(carrying.length).toBeGreaterThanOrEqual(20);
    expect(carrying.filter((b) => b.within?.usn === source.dir.get(id)!.usnChanged).length).toBe(carrying.length - 1);
    expect(atomsOf(dest.dir.get(id))).toEqual(atomsOf(source.dir.get(id)));
    expect(dest.replication.watermarks[source.dir.nodeId]?.usn).toBe(source.dir.usn);
  });

  it("arrives as the source holds it when it changes between parts", () => {
    const { source, dest, id } = setUp();
    const sourceId = source.dir.nodeId;
    const first = run(source, dest, dest.replicator.pullRequest(sourceId, t0Ms), 4);
    expect(first.at(-1)?.within).toBeDefined();
    // The source keeps half of the values and adds new ones: the object moves to a new USN.
    const kept = source.dir.get(id)!.attrs.get("description")!;
    const values = [...kept.values()].filter((_, i) => i % 2 === 0).map((a) => a.value!);
    unwrap(source.putAttribute(id, "description", [...values, "added later"], t0Ms + 1000));
    source.ready();
    // The destination's next request goes out now, naming the object's old version.
    dest.replicator.abandon(sourceId);
    const resumed = dest.replicator.pullRequest(sourceId, t0Ms + 2000);
    expect(resumed?.watermark?.within).toEqual(first.at(-1)!.within);
    const rest = run(source, dest, resumed);
    expect(rest.at(-1)?.more).toBe(false);
    expect(atomsOf(dest.dir.get(id))).toEqual(atomsOf(source.dir.get(id)));
  });

  it("except a schema definition, which goes whole: a receiver compiles what it holds", () => {
    const { source, dest } = setUp();
    const ns = unwrap(
      source.create(
        { parent: unwrap(source.resolvePath("/Configuration/Schema", t0Ms)).id, name: "com.example", className: "schemaNamespace", attributes: {} },
        t0Ms,
      ),
    ).id;
    const def = unwrap(
      source.create(
        {
          parent: ns,
          name: "bigDefinition",
          className: "attributeDefinition",
          attributes: {
            lifecycle: ["active"],
            system: ["false"],
            syntax: ["string"],
            singleValued: ["true"],
            matching: ["caseless"],
            description: Array.from({ length: 10 }, (_, i) => `about ${i} `.padEnd(5000, "d")),
          },
        },
        t0Ms,
      ),
    ).id;
    source.ready();
    const batches = run(source, dest, dest.replicator.pullRequest(source.dir.nodeId, t0Ms));
    const carrying = batches.filter((b) => b.deltas.some((x) => x.id === def));
    expect(carrying).toHaveLength(1);
    expect(atomsOf(dest.dir.get(def))).toEqual(atomsOf(source.dir.get(def)));
    expect(unwrap(dest.schema()).quarantined).toEqual([]);
  });

  it("resumes inside the object after a lost request", () => {
    const { source, dest, id } = setUp();
    const sourceId = source.dir.nodeId;
    let req = dest.replicator.pullRequest(sourceId, t0Ms);
    const before = run(source, dest, req, 5);
    const last = before.at(-1)!;
    expect(last.within).toBeDefined();
    dest.replicator.abandon(sourceId); // the next request was lost: the pull timed out
    req = dest.replicator.pullRequest(sourceId, t0Ms + 5000);
    expect(req?.watermark?.within).toEqual(last.within);
    const sentBefore = new Set(
      before.flatMap((b) => b.deltas.filter((x) => x.id === id).flatMap((x) => x.attrs.flatMap(([, a]) => a.map((v) => v.key)))),
    );
    const after = run(source, dest, req);
    const sentAfter = after.flatMap((b) => b.deltas.filter((x) => x.id === id).flatMap((x) => x.attrs.flatMap(([, a]) => a.map((v) => v.key))));
    // Nothing sent before the loss is sent again.
    expect(sentAfter.filter((k) => sentBefore.has(k))).toEqual([]);
    expect(atomsOf(dest.dir.get(id))).toEqual(atomsOf(source.dir.get(id)));
  });
});
