/**
 * Goal: an operator's daemon runs local GC by itself (SPEC "States and transitions": aging
 * past timeUntilShred hardens a tombstone by local GC, `POST /api/gc` runs it on demand): with
 * `--gc-every 1` a deleted object past a short restore window is hardened and its values
 * erased from every file under the data directory without anybody calling POST /api/gc; the
 * journal and the daemon's log say so. With `--gc-every 0` GC runs only when asked.
 * Method: real daemons on loopback, windows written on /Configuration; each stage is first
 * observed under a window that cannot have elapsed (one hour), then the window is shortened
 * and the next stage awaited by a bounded polling loop.
 */
import { afterAll, describe, expect, it } from "vitest";
import { cleanup, client, eventually, outcome, sleep, startDaemon } from "../http/daemon-harness";
import type { Client } from "../http/daemon-harness";
import { filesContaining } from "../storage/disk-bytes";

const hourS = 3600;

afterAll(async () => {
  await cleanup();
});

async function configure(api: Client, attribute: "timeUntilShred" | "maxTimeApart", s: number): Promise<void> {
  const configId = await api.idAt("/Configuration");
  const r = await api.put(`/api/objects/${configId}/attributes/${attribute}`, { values: [String(s)] });
  expect(r.status).toBe(200);
}

async function gcLines(api: Client): Promise<string[]> {
  const journal = (await api.get("/api/journal")).body as Array<{ kind: string; detail: string }>;
  return journal.filter((r) => r.kind === "gc").map((r) => r.detail);
}

/** A user with a recognisable value, deleted under a one-hour restore window. */
async function deletedUser(api: Client, secret: string): Promise<string> {
  await configure(api, "timeUntilShred", hourS);
  const root = await api.idAt("/");
  const user = await api.create(root, `holder-${secret}`, "user", { email: [`${secret}@gc.test`] });
  expect((await api.del(`/api/objects/${user.id}`)).status).toBe(204);
  const r = await api.get(`/api/objects/${user.id}`);
  expect(r.body).toMatchObject({ stage: "deleted", effectiveStage: "deleted" });
  expect(r.text).toContain(`${secret}@gc.test`);
  return user.id;
}

describe("local GC on the daemon's own schedule", () => {
  it("hardens and erases an aged tombstone without POST /api/gc (--gc-every 1)", async () => {
    const daemon = await startDaemon({ extraArgs: ["--gc-every", "1"] });
    const api = client(daemon.url);
    // The run at start sets the purge horizon the node view shows.
    await eventually("the GC at start sets a purge horizon", async () => {
      const horizon = (await api.get("/api/node")).body.purgeHorizon;
      return typeof horizon === "string" ? horizon : null;
    });
    const id = await deletedUser(api, "scheduled");
    expect(await gcLines(api)).toEqual([]);

    await configure(api, "timeUntilShred", 1);
    const lines = await eventually("a scheduled GC hardens the tombstone", async () => {
      const found = await gcLines(api);
      return found.some((d) => d.startsWith("hardened 1,")) ? found : null;
    });
    expect(lines).toHaveLength(1);
    expect(outcome(await api.post(`/api/objects/${id}/restore`))).toEqual({ status: 409, error: "not-restorable" });
    // Even a wider window does not bring back what GC erased.
    await configure(api, "timeUntilShred", hourS);
    const after = await api.get(`/api/objects/${id}`);
    expect(after.body).toMatchObject({ stage: "deleted", effectiveStage: "shredded", attributes: [] });
    expect(outcome(await api.post(`/api/objects/${id}/restore`))).toEqual({ status: 409, error: "not-restorable" });
    await eventually("the erasure debt is paid", async () => {
      const storage = (await api.get("/api/storage")).body;
      const busy = storage.erasureDebt > 0 || storage.rebuild.running || storage.rebuild.pending;
      return busy ? null : storage;
    });
    expect(filesContaining(daemon.dataDir, "scheduled@gc.test")).toEqual([]);
    expect(daemon.output()).toContain("canopy: scheduled GC hardened 1, purged 0");
    expect(await daemon.stop()).toBe(0);
  });

  it("runs GC only when asked with --gc-every 0", async () => {
    const daemon = await startDaemon({ extraArgs: ["--gc-every", "0"] });
    const api = client(daemon.url);
    const id = await deletedUser(api, "manual");
    await configure(api, "timeUntilShred", 1);
    await eventually("the tombstone ages", async () => {
      const r = await api.get(`/api/objects/${id}`);
      return r.body.effectiveStage === "shredded" ? r.body : null;
    });
    // Several periods of the other test's schedule: nothing ran by itself.
    await sleep(2500);
    expect(await gcLines(api)).toEqual([]);
    expect((await api.get("/api/node")).body.purgeHorizon).toBeNull();
    expect(filesContaining(daemon.dataDir, "manual@gc.test")).not.toEqual([]);
    expect((await api.post("/api/gc")).body).toMatchObject({ hardened: 1, purged: 0 });
    expect(await gcLines(api)).toHaveLength(1);
    expect(await daemon.stop()).toBe(0);
  });
});
