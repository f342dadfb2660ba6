/**
 * Goal: the DirectoryNode facade's durability contract: `ready()` hands the shell exactly the
 * changes to persist (records written, records purged, journal records, node meta), nothing
 * for refused writes, and a node booted from the persisted key-value state renders the same
 * directory as the node that wrote it: every object payload, every child list, the schema,
 * the morgue, the journal and the node summary (except the invocation, which every boot
 * re-mints, retiring the old one into the up-to-dateness vector), and it continues USNs where
 * the writer left.
 * Method: run a varied workload (namespaced schema, creates, attribute writes with residue,
 * renames, moves, deletes, restores, shreds, GC hardening and purging), apply every ready()
 * batch to a Map in order (puts, then dels), boot a second node from the Map (also from the
 * Map's entries in reverse order) and compare everything observable.
 */
import { describe, expect, it } from "vitest";
import type { Guid } from "../guid";
import { seededRandom } from "../testing/seeded-random";
import { freshDomain, make, outcome, secondMs, t0Ms, unwrap } from "../testing/node-fixture";
import { DirectoryNode } from "./directory-node";

type Persisted = Map<string, string>;

function persist(node: DirectoryNode, into: Persisted): { erasure: boolean } | null {
  const ready = node.ready();
  if (ready === null) return null;
  for (const [k, v] of ready.batch.puts) into.set(k, v);
  for (const k of ready.batch.dels) into.delete(k);
  return { erasure: ready.erasure };
}

/** Everything a client can observe of a node at `nowMs`. */
function observe(node: DirectoryNode, nowMs: number) {
  const ids = [...node.dir.store.ids()].sort();
  return {
    ids,
    objects: ids.map((id) => node.object(id, nowMs)),
    children: ids.map((id) => node.children(id)),
    schema: node.schema(),
    morgue: node.morgue(nowMs),
    journal: node.journal(),
    // Every boot re-mints the invocation; the rest of the summary must survive as is.
    summary: { ...node.summary(nowMs), invocationId: "(per boot)", utd: "(per boot)" },
    paths: ["/", "/Configuration/Schema/com.example/badge", "/People/alice"].map((p) =>
      node.resolvePath(p, nowMs),
    ),
  };
}

function workload(stored: Persisted) {
  const d = freshDomain(11);
  const n = d.node;
  const step = (): void => void persist(n, stored);
  step();
  let now = t0Ms;
  const tick = (): number => (now += secondMs);
  unwrap(n.putAttribute(d.configuration, "timeUntilShred", ["60"], tick()));
  unwrap(n.putAttribute(d.configuration, "maxTimeApart", ["600"], tick()));
  step();
  const born = { lifecycle: ["active"], system: ["false"] };
  const ns = make(n, d.schema, "com.example", "schemaNamespace", tick());
  const badge = make(n, ns, "badge", "attributeDefinition", tick(), {
    ...born,
    syntax: ["string"],
    singleValued: ["false"],
    matching: ["caseless"],
  });
  const badged = make(n, ns, "badged", "facetDefinition", tick(), { ...born, attributes: [badge] });
  step();
  const people = make(n, d.root, "People", "organizationalUnit", tick());
  const alice = make(n, people, "alice", "user", tick(), {
    givenName: ["Alice"],
    email: ["a@x.test", "b@x.test"],
  });
  const bob = make(n, people, "bob", "user", tick(), {
    attachedFacets: [badged],
    "com.example-badge": ["B1", "B2"],
  });
  const staff = make(n, d.root, "staff", "group", tick(), { member: [alice, bob] });
  step();
  unwrap(n.putAttribute(alice, "email", ["a@x.test"], tick()));
  unwrap(n.putAttribute(alice, "givenName", [], tick()));
  unwrap(n.putAttribute(bob, "com.example-badge", ["B2"], tick()));
  step();
  const temp = make(n, d.root, "Temp", "organizationalUnit", tick());
  const t1 = make(n, temp, "t1", "user", tick(), { description: ["temp"] });
  unwrap(n.move(bob, { parent: temp, name: "Robert" }, tick()));
  unwrap(n.move(temp, { name: "Temporary" }, tick()));
  step();
  unwrap(n.delete(temp, tick()));
  unwrap(n.restore(temp, tick()));
  unwrap(n.delete(t1, tick()));
  step();
  const secret = make(n, people, "secret", "user", tick(), { description: ["classified"] });
  unwrap(n.shred(secret, tick()));
  step();
  const old = make(n, d.root, "Old", "organizationalUnit", tick());
  unwrap(n.delete(old, now));
  const deletedAt = now;
  unwrap(n.gc(deletedAt + 61 * secondMs)); // hardens t1 and Old
  step();
  now = deletedAt + 601 * secondMs;
  unwrap(n.gc(now)); // purges everything deleted at t0..deletedAt
  step();
  const late = make(n, d.root, "Late", "organizationalUnit", now);
  unwrap(n.delete(late, now));
  step();
  return { d, n, now, ids: { people, alice, bob, staff, temp, t1, secret, old, late } };
}

describe("ready(): the batch the shell must persist", () => {
  it("names the written records and the node meta; a refused write produces nothing", () => {
    const d = freshDomain();
    const first = d.node.ready();
    expect(first?.batch.puts.length).toBeGreaterThan(50);
    expect(first?.batch.puts.map(([k]) => k)).toContain("meta/node");
    expect(d.node.ready()).toBeNull();
    expect(outcome(d.node.create({ parent: d.root, name: "", className: "user" }, t0Ms))).toBe(
      "invalid-name",
    );
    expect(d.node.ready()).toBeNull();
    const id = make(d.node, d.root, "one");
    const batch = d.node.ready();
    expect(batch?.batch.puts.map(([k]) => k).sort()).toEqual([`o/${id}`, "meta/node"].sort());
    expect(batch?.batch.dels).toEqual([]);
    expect(batch?.erasure).toBe(false);
  });

  it("raises erasure after a shred and journals it without values", () => {
    const d = freshDomain();
    const id = make(d.node, d.root, "one", "user", t0Ms, { description: ["xyzzy"] });
    d.node.ready();
    unwrap(d.node.shred(id, t0Ms));
    const batch = d.node.ready();
    expect(batch?.erasure).toBe(true);
    expect(batch?.batch.puts.some(([k]) => k.startsWith("j/"))).toBe(true);
    expect(JSON.stringify(batch)).not.toContain("xyzzy");
    expect(d.node.journal().at(-1)?.kind).toBe("shred");
  });
});

describe("boot round trip", () => {
  it("a node booted from the persisted state renders the same directory", () => {
    const stored: Persisted = new Map();
    const w = workload(stored);
    expect(outcome(w.n.object(w.ids.old, w.now))).toBe("no-such-object"); // purged: a del happened
    expect(stored.has(`o/${w.ids.old}`)).toBe(false);
    const booted = DirectoryNode.boot(seededRandom(12345), stored);
    expect(booted).not.toBeNull();
    for (const nowMs of [w.now, w.now + 3600 * secondMs]) {
      expect(observe(booted!, nowMs)).toEqual(observe(w.n, nowMs));
    }
    // Only what the re-mint changed is left to persist: the node meta (the new invocation),
    // the retired list and the retired invocation's vector entry; no record was rewritten.
    const keys = ["meta/node", "meta/retired", `meta/utd/${w.n.dir.invocationId}`];
    expect(booted!.ready()?.batch.puts.map(([k]) => k).sort()).toEqual(keys.sort());
  });

  it("boots the same node from a Map and from a plain iterable of its entries", () => {
    const stored: Persisted = new Map();
    const w = workload(stored);
    const fromMap = DirectoryNode.boot(seededRandom(4), stored)!;
    const fromList = DirectoryNode.boot(seededRandom(4), [...stored.entries()])!;
    expect(observe(fromMap, w.now)).toEqual(observe(fromList, w.now));
    expect([...fromMap.dir.store.ids()]).toEqual([...fromList.dir.store.ids()]);
    expect(fromMap.ready()?.batch).toEqual(fromList.ready()?.batch);
  });

  it("parses every non-object entry through the parser it is given, and only those", () => {
    const stored: Persisted = new Map();
    const w = workload(stored);
    const parsedKeys: string[] = [];
    const parse = (text: string, key: string): unknown => {
      parsedKeys.push(key);
      return JSON.parse(text);
    };
    const booted = DirectoryNode.boot(seededRandom(4), stored, 0, undefined, parse)!;
    expect(parsedKeys.sort()).toEqual([...stored.keys()].filter((k) => !k.startsWith("o/")).sort());
    expect(observe(booted, w.now)).toEqual(observe(DirectoryNode.boot(seededRandom(4), stored)!, w.now));
  });

  it("does not depend on the order the entries come back in", () => {
    const stored: Persisted = new Map();
    const w = workload(stored);
    const reversed: Persisted = new Map([...stored.entries()].reverse());
    const booted = DirectoryNode.boot(seededRandom(1), reversed);
    expect(observe(booted!, w.now)).toEqual(observe(w.n, w.now));
  });

  it("continues USNs and the journal; re-mints the invocation and retires the old one", () => {
    const stored: Persisted = new Map();
    const w = workload(stored);
    const booted = DirectoryNode.boot(seededRandom(777), stored)!;
    expect(booted.dir.usn).toBe(w.n.dir.usn);
    expect(booted.dir.nodeId).toBe(w.n.dir.nodeId);
    expect(booted.dir.invocationId).not.toBe(w.n.dir.invocationId);
    expect(booted.summary(w.now).utd[w.n.dir.invocationId]).toMatchObject({
      usn: w.n.dir.usn,
      node: w.n.dir.nodeId,
    });
    const before = Math.max(...[...booted.dir.store.all()].map((r) => r.usnChanged));
    const next = unwrap(
      booted.create(
        { parent: w.d.root, name: "After boot", className: "organizationalUnit" },
        w.now,
      ),
    );
    expect(next.usnChanged).toBeGreaterThan(before);
    expect(next.existence.origin).toBe(booted.dir.invocationId);
    const journalBefore = booted.journal().length;
    unwrap(booted.shred(next.id, w.now));
    expect(booted.journal().length).toBe(journalBefore + 1);
    persist(booted, stored);
    const again = DirectoryNode.boot(seededRandom(778), stored)!;
    expect(observe(again, w.now)).toEqual(observe(booted, w.now));
  });

  it("the journal cap holds across batches: evicted records are deleted from the store", () => {
    const stored: Persisted = new Map();
    const d = freshDomain();
    persist(d.node, stored);
    for (let i = 0; i < 1100; i++) {
      d.node.dir.journal.add(t0Ms + i, "gc", `entry ${i}`);
      if (i % 250 === 0) {
        d.node.markChanged();
        persist(d.node, stored);
      }
    }
    d.node.markChanged();
    persist(d.node, stored);
    const journalKeys = [...stored.keys()].filter((k) => k.startsWith("j/"));
    expect(journalKeys).toHaveLength(d.node.journal().length);
    const booted = DirectoryNode.boot(seededRandom(9), stored)!;
    expect(booted.journal()).toEqual(d.node.journal());
    expect(booted.journal().at(-1)?.detail).toBe("entry 1099");
  });

  it("writes each part of the replication state, and the node meta, only when it changed", () => {
    const d = freshDomain();
    const first = d.node.ready()!.batch.puts.map(([k]) => k);
    expect(first).toEqual(expect.arrayContaining(["meta/watermarks", "meta/retired", "meta/node"]));
    // Nothing changed since: no batch at all (a received batch that applied nothing).
    d.node.markChanged();
    expect(d.node.ready()).toBeNull();
    const mark = { invocation: "p-inv", usn: 7, lastSuccessMs: t0Ms };
    d.node.replication = { ...d.node.replication, watermarks: { partner: mark } };
    d.node.markChanged();
    const marked = d.node.ready()!.batch.puts;
    expect(marked.map(([k]) => k)).toEqual(["meta/watermarks"]);
    expect(JSON.parse(marked[0]![1])).toEqual({ partner: mark });
    const id = make(d.node, d.root, "one");
    const made = d.node.ready()!.batch.puts;
    expect(made.map(([k]) => k)).toEqual([`o/${id}`, "meta/node"]);
    expect(JSON.parse(made[1]![1])).not.toHaveProperty("replication");
    expect(JSON.parse(made[1]![1])).toHaveProperty("usn", d.node.dir.usn);
    // The vector is written entry by entry: only the entries that changed.
    const many = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`inv-${i}`, { usn: i, node: "n", epoch: i, syncedAtMs: t0Ms }]),
    );
    d.node.replication = { ...d.node.replication, utd: { ...d.node.replication.utd, ...many } };
    d.node.markChanged();
    expect(d.node.ready()!.batch.puts.filter(([k]) => k.startsWith("meta/utd/"))).toHaveLength(50);
    const advanced = { usn: 99, node: "n", epoch: 7, syncedAtMs: t0Ms + 1 };
    d.node.replication = { ...d.node.replication, utd: { ...d.node.replication.utd, "inv-7": advanced } };
    d.node.markChanged();
    const puts = d.node.ready()!.batch.puts;
    expect(puts.map(([k]) => k)).toEqual(["meta/utd/inv-7"]);
    expect(JSON.parse(puts[0]![1])).toEqual(advanced);
  });

  it("a booted node's first batch writes only the replication parts the boot changed", () => {
    // What the boot loaded from the current layout is on disk already: the re-mint adds one
    // vector entry (the retired invocation's) and changes the retired list, nothing else
    // (one entry per node: none is beyond what a vector keeps of a node, vector-bound.ts).
    const stored: Persisted = new Map();
    const w = workload(stored);
    const many = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [`inv-${i}`, { usn: i, node: `n-${i}`, epoch: 1, syncedAtMs: w.now }]),
    );
    const mark = { invocation: "p-inv", usn: 7, lastSuccessMs: w.now };
    w.n.replication = { ...w.n.replication, utd: { ...w.n.replication.utd, ...many }, watermarks: { partner: mark } };
    w.n.markChanged();
    persist(w.n, stored);
    const booted = DirectoryNode.boot(seededRandom(41), stored)!;
    const retired = w.n.dir.invocationId;
    const batch = booted.ready()!.batch;
    expect(batch.puts.map(([k]) => k).filter((k) => k.startsWith("meta/")).sort()).toEqual(
      [`meta/utd/${retired}`, "meta/node", "meta/retired"].sort(),
    );
    expect(batch.dels.filter((k) => k.startsWith("meta/"))).toEqual([]);
    // And what it wrote is enough: booting again gives the booted node's state back.
    for (const [k, v] of batch.puts) stored.set(k, v);
    for (const k of batch.dels) stored.delete(k);
    const again = DirectoryNode.boot(seededRandom(42), stored)!;
    const { retired: retiredAgain, ...restAgain } = again.replication;
    const { retired: retiredBefore, ...restBefore } = booted.replication;
    // The second boot retires the first boot's invocation too; the rest is the same, in order.
    expect(retiredAgain.slice(0, retiredBefore.length)).toEqual(retiredBefore);
    expect(Object.keys(restAgain.utd).slice(0, Object.keys(restBefore.utd).length)).toEqual(Object.keys(restBefore.utd));
    expect(restAgain.watermarks).toEqual(restBefore.watermarks);
    for (const [inv, e] of Object.entries(restBefore.utd)) expect(restAgain.utd[inv]).toEqual(e);
  });

  it("boots the older layouts: the whole node meta under meta/node, or the whole vector under meta/utd", () => {
    const stored: Persisted = new Map();
    const w = workload(stored);
    const mark = { invocation: "p-inv", usn: 7, lastSuccessMs: w.now };
    const entry = { usn: 5, node: "partner-node", epoch: 3, syncedAtMs: w.now };
    w.n.replication = { ...w.n.replication, watermarks: { partner: mark }, utd: { "p-inv": entry } };
    w.n.markChanged();
    persist(w.n, stored);
    const old: Persisted = new Map(stored);
    const parse = (key: string): unknown => JSON.parse(old.get(key)!);
    const utdKeys = [...old.keys()].filter((k) => k.startsWith("meta/utd/"));
    const utd = Object.fromEntries(utdKeys.map((k) => [k.slice("meta/utd/".length), parse(k)]));
    const replication = { utd, watermarks: parse("meta/watermarks"), retired: parse("meta/retired") };
    old.set("meta/node", JSON.stringify({ ...(parse("meta/node") as object), replication }));
    for (const key of [...utdKeys, "meta/watermarks", "meta/retired"]) old.delete(key);
    // The layout between the two: the whole vector under one key, meta/utd.
    const between: Persisted = new Map(stored);
    for (const key of utdKeys) between.delete(key);
    between.set("meta/utd", JSON.stringify(utd));
    const fromOld = DirectoryNode.boot(seededRandom(31), old)!;
    const fromBetween = DirectoryNode.boot(seededRandom(31), between)!;
    const fromNew = DirectoryNode.boot(seededRandom(31), stored)!;
    expect(Object.keys(utd).length).toBeGreaterThan(0);
    expect(fromOld.replication).toEqual(fromNew.replication);
    expect(fromBetween.replication).toEqual(fromNew.replication);
    expect(fromOld.replication.watermarks).toEqual({ partner: mark });
    expect(observe(fromOld, w.now)).toEqual(observe(w.n, w.now));
    // The first batch after booting the in-between layout drops the whole-vector key.
    expect(fromBetween.ready()!.batch.dels).toContain("meta/utd");
  });

  it("an empty store boots to nothing (no node meta)", () => {
    expect(DirectoryNode.boot(seededRandom(1), new Map())).toBeNull();
  });

  it("a joining node persists its meta and boots back without a root", () => {
    const joining = DirectoryNode.joining(seededRandom(5));
    const stored: Persisted = new Map();
    persist(joining, stored);
    const booted = DirectoryNode.boot(seededRandom(6), stored)!;
    expect(booted.summary(t0Ms)).toMatchObject({
      nodeId: joining.dir.nodeId,
      usn: 0,
      hasRoot: false,
    });
    expect(outcome(booted.root(t0Ms))).toBe("no-root");
  });
});

describe("summary", () => {
  it("reports identity, usn, root, morgue size and the latch", () => {
    const d = freshDomain();
    const id: Guid = make(d.node, d.root, "x");
    unwrap(d.node.delete(id, t0Ms));
    const s = d.node.summary(t0Ms);
    expect(s).toMatchObject({
      nodeId: d.node.dir.nodeId,
      invocationId: d.node.dir.invocationId,
      usn: d.node.dir.usn,
      hasRoot: true,
      purgeHorizon: null,
      morgueSize: 1,
      rollbackLatched: false,
    });
    expect(s.nodeId).not.toBe(s.invocationId);
  });
});
