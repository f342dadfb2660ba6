/**
 * Goal: the lifecycle of a tombstone as a user of the daemon sees it (SPEC "States and
 * transitions"): with a short restore window (timeUntilShred) a deleted object ages from
 * effectiveStage `deleted` to `shredded`; POST /api/gc then hardens it (values gone, restore
 * refused with not-restorable, still in the morgue) and, past a short purge horizon
 * (maxTimeApart), purges it (gone from the morgue, GET 404, references to it report
 * refState `missing`); the GC answer carries the new horizon, the journal records each GC,
 * and the journal and the purge survive a restart.
 * Method: one real daemon on a temp dir; the windows are written as attributes of
 * /Configuration. No assertion depends on how fast the machine is: each stage is observed
 * under a window that cannot have elapsed yet, then the window is shortened and the next
 * stage is awaited by a bounded polling loop (a deleted object is observed with a one-hour
 * restore window before the window becomes 2 s; hardening is checked under a one-hour purge
 * horizon before the horizon becomes 4 s).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanup, client, eventually, outcome, startDaemon, valuesOf } from "../http/daemon-harness";
import type { Client, RunningDaemon } from "../http/daemon-harness";
import { filesContaining } from "../storage/disk-bytes";

const hourS = 3600;

let daemon: RunningDaemon;
let api: Client;
let configId: string;

// GC runs only when the test asks (POST /api/gc): test/daemon/scheduled-gc.test.ts covers the schedule.
const onDemandGc = ["--gc-every", "0"];

beforeAll(async () => {
  daemon = await startDaemon({ extraArgs: onDemandGc });
  api = client(daemon.url);
  configId = await api.idAt("/Configuration");
});
afterAll(async () => {
  await daemon?.stop();
  await cleanup();
});

async function configure(attribute: "timeUntilShred" | "maxTimeApart", s: number): Promise<void> {
  const r = await api.put(`/api/objects/${configId}/attributes/${attribute}`, {
    values: [String(s)],
  });
  expect(r.status).toBe(200);
  expect(valuesOf(r.body, attribute)).toEqual([String(s)]);
}

function memberEntry(group: any, target: string): any {
  const member = (group.attributes as any[]).find((a) => a.name === "member");
  return (member?.values as any[] | undefined)?.find((v) => v.value === target);
}

describe("aging, hardening and purging through the API", () => {
  // Shared across the steps below, which run in order and build on each other.
  let alice: any;
  let team: any;
  let carol: any;
  let group: any;
  let hardenHorizon: string;

  it("a deleted object is soft-deleted first: restorable state, listed in the morgue", async () => {
    await configure("timeUntilShred", hourS);
    await configure("maxTimeApart", hourS);
    const root = await api.idAt("/");
    const ou = await api.create(root, "Aging", "organizationalUnit");
    alice = await api.create(ou.id, "alice", "user", {
      description: ["first", "second"],
      givenName: ["Alice"],
      email: ["alice@aging.test"],
    });
    team = await api.create(ou.id, "team", "organizationalUnit", { description: ["a team"] });
    carol = await api.create(team.id, "carol", "user", { surname: ["Smith"] });
    group = await api.create(ou.id, "readers", "group", {
      member: [alice.id, carol.id],
      sid: ["S-1-5-21-1"],
    });
    expect(memberEntry(group, alice.id)).toMatchObject({ refState: "alive" });

    expect((await api.del(`/api/objects/${alice.id}`)).status).toBe(204);
    expect((await api.del(`/api/objects/${team.id}`)).status).toBe(204);
    for (const id of [alice.id, team.id, carol.id]) {
      const r = await api.get(`/api/objects/${id}`);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ stage: "deleted", effectiveStage: "deleted" });
    }
    const morgue = (await api.get("/api/morgue")).body as any[];
    const deleted = morgue.filter((m) => [alice.id, team.id, carol.id].includes(m.id));
    expect(deleted.map((m) => m.effectiveStage)).toEqual(["deleted", "deleted", "deleted"]);
    expect(deleted.find((m) => m.id === carol.id)).toMatchObject({ lastPath: "/Aging/team/carol" });
    const readers = (await api.get(`/api/objects/${group.id}`)).body;
    expect(memberEntry(readers, alice.id)).toMatchObject({ refState: "deleted", refPath: null });
  });

  it("past a 2 s timeUntilShred the tombstones age to effectiveStage shredded", async () => {
    await configure("timeUntilShred", 2);
    const aged = await eventually("alice, team and carol age to shredded", async () => {
      const payloads = [];
      for (const id of [alice.id, team.id, carol.id]) {
        payloads.push((await api.get(`/api/objects/${id}`)).body);
      }
      return payloads.every((p) => p.effectiveStage === "shredded") ? payloads : null;
    });
    // Aging is a view: the stored stage is still the soft delete, shown as the skeleton GC
    // will harden it to (no values), before any GC has run.
    for (const payload of aged) expect(payload).toMatchObject({ stage: "deleted", attributes: [] });
    const morgue = (await api.get("/api/morgue")).body as any[];
    expect(morgue.find((m) => m.id === alice.id)).toMatchObject({ effectiveStage: "shredded" });
    const readers = (await api.get(`/api/objects/${group.id}`)).body;
    expect(memberEntry(readers, alice.id)).toMatchObject({ refState: "shredded", refPath: null });
    expect(outcome(await api.post(`/api/objects/${alice.id}/restore`))).toEqual({
      status: 409,
      error: "not-restorable",
    });
  });

  it("POST /api/gc hardens them: values gone, restore refused, still in the morgue", async () => {
    const gc = await api.post("/api/gc");
    expect(gc.status).toBe(200);
    expect(gc.body.hardened).toBe(3);
    expect(gc.body.purged).toBe(0);
    hardenHorizon = gc.body.purgeHorizon;
    expect(hardenHorizon).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect((await api.get("/api/node")).body.purgeHorizon).toBe(hardenHorizon);
    for (const id of [alice.id, team.id, carol.id]) {
      const r = await api.get(`/api/objects/${id}`);
      expect(r.status).toBe(200);
      expect(r.body.effectiveStage).toBe("shredded");
      expect(r.body.attributes.flatMap((a: any) => a.values)).toEqual([]);
      expect(r.text).not.toMatch(/alice@aging\.test|Smith|a team|first|second/);
      expect(outcome(await api.post(`/api/objects/${id}/restore`))).toEqual({
        status: 409,
        error: "not-restorable",
      });
    }
    const morgue = (await api.get("/api/morgue")).body as any[];
    expect(morgue.filter((m) => [alice.id, team.id, carol.id].includes(m.id))).toHaveLength(3);
    const journal = (await api.get("/api/journal")).body as any[];
    const gcRecords = journal.filter((r) => r.kind === "gc");
    expect(gcRecords).toHaveLength(1);
    expect(gcRecords[0].detail).toMatch(/hardened 3, purged 0/);
    // A second GC finds nothing left to harden.
    expect((await api.post("/api/gc")).body).toMatchObject({ hardened: 0, purged: 0 });
    // Hardening erases like a shred: once the rebuild it started has paid the erasure debt,
    // no file under the data directory holds the dropped values any more.
    await eventually("the erasure debt is paid", async () => {
      const storage = (await api.get("/api/storage")).body;
      const busy = storage.erasureDebt > 0 || storage.rebuild.running || storage.rebuild.pending;
      return busy ? null : storage;
    });
    expect(filesContaining(daemon.dataDir, "alice@aging.test")).toEqual([]);
    expect(filesContaining(daemon.dataDir, "a team")).toEqual([]);
  });

  it("past a 20 s maxTimeApart (the smallest a write may set) GC purges them: no morgue entry, 404, refState missing", async () => {
    await configure("maxTimeApart", 20);
    // The three deletes are milliseconds apart, so one GC may purge some of them and a later
    // one the rest: poll until the morgue holds none of them, summing what each GC purged.
    const doomed = [alice.id, team.id, carol.id];
    let purgedTotal = 0;
    const purged = await eventually("GC purges the three tombstones", async () => {
      const r = await api.post("/api/gc");
      expect(r.status).toBe(200);
      purgedTotal += r.body.purged;
      const morgue = (await api.get("/api/morgue")).body as any[];
      return morgue.some((m) => doomed.includes(m.id)) ? null : r.body;
    });
    expect(purgedTotal).toBe(3);
    expect(Date.parse(purged.purgeHorizon)).toBeGreaterThan(Date.parse(hardenHorizon));
    expect((await api.get("/api/node")).body.purgeHorizon).toBe(purged.purgeHorizon);
    const morgue = (await api.get("/api/morgue")).body as any[];
    expect(morgue.filter((m) => [alice.id, team.id, carol.id].includes(m.id))).toEqual([]);
    for (const id of [alice.id, team.id, carol.id]) {
      expect(outcome(await api.get(`/api/objects/${id}`))).toEqual({
        status: 404,
        error: "no-such-object",
      });
      expect(outcome(await api.post(`/api/objects/${id}/restore`)).status).toBe(404);
    }
    expect((await api.get("/api/path/Aging/team")).status).toBe(404);
    const readers = (await api.get(`/api/objects/${group.id}`)).body;
    for (const id of [alice.id, carol.id]) {
      expect(memberEntry(readers, id)).toMatchObject({ refState: "missing", refPath: null });
    }
    const journal = (await api.get("/api/journal")).body as any[];
    const details = journal.filter((r) => r.kind === "gc").map((r) => String(r.detail));
    expect(details[0]).toMatch(/^hardened 3, purged 0/);
    const purges = details.slice(1).map((d) => Number(/^hardened 0, purged (\d+)/.exec(d)?.[1]));
    expect(purges.reduce((a, b) => a + b, 0)).toBe(3);
    expect(details.at(-1)).toContain(purged.purgeHorizon);
  });

  it("the journal, the horizon and the purge survive SIGTERM and a restart", async () => {
    const before = (await api.get("/api/journal")).body as any[];
    const horizon = (await api.get("/api/node")).body.purgeHorizon;
    expect(await daemon.stop("SIGTERM")).toBe(0);
    daemon = await startDaemon({ dataDir: daemon.dataDir, extraArgs: onDemandGc });
    api = client(daemon.url);
    const after = (await api.get("/api/journal")).body as any[];
    expect(after.slice(0, before.length)).toEqual(before);
    const gcBefore = before.filter((r) => r.kind === "gc");
    expect(gcBefore.length).toBeGreaterThanOrEqual(2);
    expect(after.filter((r) => r.kind === "gc")).toEqual(gcBefore);
    expect((await api.get("/api/node")).body.purgeHorizon).toBe(horizon);
    expect((await api.get(`/api/objects/${alice.id}`)).status).toBe(404);
    const readers = (await api.get(`/api/objects/${group.id}`)).body;
    expect(memberEntry(readers, alice.id)).toMatchObject({ refState: "missing" });
    const config = (await api.get(`/api/objects/${configId}`)).body;
    expect(valuesOf(config, "timeUntilShred")).toEqual(["2"]);
    expect(valuesOf(config, "maxTimeApart")).toEqual(["20"]);
  });
});
