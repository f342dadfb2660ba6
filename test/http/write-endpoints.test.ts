/**
 * Goal: every mutating endpoint of SPEC "Endpoints" succeeds with its documented status and
 * body over HTTP, and acknowledges only durable writes: create (201 + payload, attributes
 * atomic, strings and {value, meta}), PATCH rename/move, PUT replace/delete an attribute,
 * DELETE (204, subtree, morgue), restore, shred (erasure debt raised, then paid: no live file
 * under the data directory holds the shredded value), GC, storage rotate/rebuild, and group
 * commit under concurrent writes. Method: one real daemon child process on a temp dir;
 * durability marks from GET /api/node; the data directory is read from the test process.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanup, client, sleep, startDaemon, valuesOf } from "./daemon-harness";
import type { Client, RunningDaemon } from "./daemon-harness";

let daemon: RunningDaemon;
let api: Client;
let root: string;
let people: string;

beforeAll(async () => {
  daemon = await startDaemon();
  api = client(daemon.url);
  root = await api.idAt("/");
  people = (await api.create(root, "People", "organizationalUnit")).id;
});
afterAll(async () => {
  await daemon?.stop();
  await cleanup();
});


/** Every byte string under the data directory (bounded walk: the directory is small). */
function dataFilesContain(dir: string, needle: string): string[] {
  const hits: string[] = [];
  const walk = (d: string, depth: number): void => {
    if (depth > 8) return;
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full, depth + 1);
      else if (fs.readFileSync(full).includes(Buffer.from(needle))) hits.push(full);
    }
  };
  walk(dir, 0);
  return hits;
}

describe("POST /api/objects/{id}/children", () => {
  it("creates with attributes applied atomically: 201 and the payload", async () => {
    const group = await api.post(`/api/objects/${people}/children`, {
      name: "staff",
      class: "group",
      attributes: { description: ["Staff", { value: "all of them" }], DISPLAYNAME: ["The staff"] },
    });
    expect(group.status).toBe(201);
    expect(group.body).toMatchObject({ name: "staff", class: "group", parent: people });
    expect(group.body.path).toBe("/People/staff");
    expect(valuesOf(group.body, "displayName")).toEqual(["The staff"]);
    expect(valuesOf(group.body, "description")?.sort()).toEqual(["Staff", "all of them"]);
    const alice = await api.create(people, "alice", "user");
    const member = await api.put(`/api/objects/${group.body.id}/attributes/member`, {
      values: [{ value: alice.id, meta: { expiry: ["2030-01-01T00:00:00Z"] } }],
    });
    expect(member.status).toBe(200);
    type Entry = { meta?: unknown };
    const attrs = member.body.attributes as Array<{ name: string; values: Entry[] }>;
    const entry = attrs.find((a) => a.name === "member")?.values[0];
    expect(entry).toMatchObject({ value: alice.id, refPath: "/People/alice", refState: "alive" });
    expect(entry?.meta).toEqual({ expiry: ["2030-01-01T00:00:00.000Z"] });
    const back = (await api.get(`/api/objects/${alice.id}`)).body.referencedBy;
    expect(back).toEqual([{ id: group.body.id, path: "/People/staff", attribute: "member" }]);
  });
});

describe("PATCH /api/objects/{id}", () => {
  it("renames and moves, returning the payload", async () => {
    const ou = await api.create(people, "Sales", "organizationalUnit");
    const bob = await api.create(people, "bob", "user");
    const renamed = await api.patch(`/api/objects/${bob.id}`, { name: "Robert" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: bob.id, name: "Robert", path: "/People/Robert" });
    const moved = await api.patch(
      `/api/objects/${bob.id}`,
      { parent: ou.id.toUpperCase(), name: "Bob" },
    );
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ parent: ou.id, path: "/People/Sales/Bob" });
    expect(moved.body.dn).toBe("CN=Bob,OU=Sales,OU=People");
    expect(moved.body.placement.version).toBeGreaterThan(bob.placement.version);
  });
});

describe("PUT /api/objects/{id}/attributes/{name}", () => {
  it("replaces wholesale; an empty list deletes, leaving stamped absence residue", async () => {
    const carol = await api.create(people, "carol", "user");
    const set = await api.put(
      `/api/objects/${carol.id}/attributes/Email`,
      { values: ["c@x.test", "carol@x.test"] },
    );
    expect(set.status).toBe(200);
    expect(valuesOf(set.body, "email")?.sort()).toEqual(["c@x.test", "carol@x.test"]);
    const replaced = await api.put(
      `/api/objects/${carol.id}/attributes/email`,
      { values: ["carol@x.test"] },
    );
    expect(valuesOf(replaced.body, "email")).toEqual(["carol@x.test"]);
    const cleared = await api.put(`/api/objects/${carol.id}/attributes/email`, { values: [] });
    expect(cleared.status).toBe(200);
    const email = cleared.body.attributes.find((a: { name: string }) => a.name === "email");
    expect(email?.values ?? []).toEqual([]);
    expect(email?.absent?.length).toBeGreaterThan(0);
  });
});

describe("DELETE, restore, morgue", () => {
  it("soft-deletes a subtree (204), lists it in the morgue, restores it", async () => {
    const team = await api.create(people, "team", "organizationalUnit");
    const dave = await api.create(team.id, "dave", "user");
    const del = await api.del(`/api/objects/${team.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    expect((await api.get(`/api/objects/${dave.id}`)).body.stage).toBe("deleted");
    const morgue = (await api.get("/api/morgue")).body;
    const record = morgue.find((m: { id: string }) => m.id === team.id);
    expect(record).toMatchObject({ name: "team", class: "organizationalUnit", stage: "deleted" });
    expect(record.lastPath).toBe("/People/team");
    const fields = ["at", "class", "effectiveStage", "id", "lastPath", "name", "stage"];
    expect(Object.keys(record).sort()).toEqual(fields);
    expect((await api.get("/api/node")).body.morgueSize).toBeGreaterThanOrEqual(2);
    const restored = await api.post(`/api/objects/${team.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ id: team.id, stage: "alive", path: "/People/team" });
    expect((await api.get("/api/path/People/team/dave")).body.stage).toBe("alive");
  });
});

describe("POST /api/objects/{id}/shred and erasure", () => {
  it("shreds ({id, shredded}), raises erasure debt, and the rebuild pays it", async () => {
    const secret = `plaintext-${Date.now()}-must-vanish`;
    const eve = await api.create(people, "eve", "user", { description: [secret] });
    expect(dataFilesContain(daemon.dataDir, secret).length).toBeGreaterThan(0);
    const shred = await api.post(`/api/objects/${eve.id}/shred`);
    expect(shred.status).toBe(200);
    expect(shred.body).toEqual({ id: eve.id, shredded: 1 });
    const after = (await api.get(`/api/objects/${eve.id}`)).body;
    expect(after.stage).toBe("shredded");
    expect(JSON.stringify(after)).not.toContain(secret);
    const busy = (s: { erasureDebt: number; rebuild: { running: boolean; pending: boolean } }) =>
      s.erasureDebt > 0 || s.rebuild.running || s.rebuild.pending;
    let storage = (await api.get("/api/storage")).body;
    for (let i = 0; i < 200 && busy(storage); i++) {
      await sleep(50);
      storage = (await api.get("/api/storage")).body;
    }
    expect(storage.erasureDebt).toBe(0);
    expect(storage.rebuild.lastOutcome?.ok).toBe(true);
    expect(dataFilesContain(daemon.dataDir, secret)).toEqual([]);
  });
});

describe("POST /api/gc", () => {
  it("runs GC and returns the new purge horizon, also shown by the node view", async () => {
    const r = await api.post("/api/gc");
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["hardened", "purgeHorizon", "purged"]);
    expect(r.body.purgeHorizon).toMatch(/Z$/);
    const horizonMs = Date.parse(r.body.purgeHorizon);
    // The default horizon is 180 days (maxTimeApart) before now.
    expect(Math.abs(Date.now() - 180 * 86_400_000 - horizonMs)).toBeLessThan(600_000);
    expect((await api.get("/api/node")).body.purgeHorizon).toBe(r.body.purgeHorizon);
  });
});

describe("POST /api/storage/rotate and /rebuild", () => {
  it("rotate seals the active log and returns the storage view", async () => {
    const before = (await api.get("/api/storage")).body.marks.generation;
    const r = await api.post("/api/storage/rotate");
    expect(r.status).toBe(200);
    expect(r.body.marks.generation).toBe(before + 1);
    expect(r.body).toHaveProperty("files");
  });

  it("rebuild starts a snapshot rebuild and returns the storage view", async () => {
    await api.create(people, "for-rebuild", "user");
    const r = await api.post("/api/storage/rebuild");
    expect(r.status).toBe(200);
    expect(r.body).toHaveProperty("rebuild");
    let storage = r.body;
    for (let i = 0; i < 200 && (storage.rebuild.running || storage.rebuild.pending); i++) {
      await sleep(50);
      storage = (await api.get("/api/storage")).body;
    }
    expect(storage.rebuild.lastOutcome?.ok).toBe(true);
    expect(storage.snapshotGeneration).toBeGreaterThan(0);
  });
});

describe("group commit", () => {
  const burst = (tag: string, count: number) =>
    Promise.all(
      Array.from({ length: count }, (_, i) =>
        api.post(`/api/objects/${people}/children`, { name: `${tag}-${i}`, class: "user" }),
      ),
    );

  it("acknowledges concurrent writes, all durable, several sharing one log record", async () => {
    const count = 40;
    // The first burst opens the client's connections one by one, which spreads the requests
    // over many server turns; the measured burst then arrives together on warm connections.
    expect((await burst("warm", count)).every((r) => r.status === 201)).toBe(true);
    const before = (await api.get("/api/node")).body.storage;
    const results = await burst("burst", count);
    expect(results.map((r) => r.status)).toEqual(Array(count).fill(201));
    const node = (await api.get("/api/node")).body;
    expect(node.storage.durableUsn).toBe(node.usn);
    expect(node.storage.durableSeq).toBe(node.storage.appendedSeq);
    // One log record per flush, so fewer records than writes proves that writes shared one.
    const records = node.storage.durableSeq - before.durableSeq;
    expect(records).toBeGreaterThan(0);
    expect(records).toBeLessThan(count);
  });
});
