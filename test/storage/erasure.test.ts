/**
 * Goal: shred erasure on a real disk. After a value is overwritten (as a shred does), the debt
 * raised and a rotation's background rebuild has finished, no file anywhere under the data
 * directory holds the old plaintext, and the debt is back to 0; until then the debt survives a
 * restart. Method: a unique marker string put into the store, rotated into a LevelDB snapshot,
 * overwritten; the view is polled in a bounded loop until the rebuild is done; then every file
 * under the directory is read and searched for the marker bytes.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { DurableStore } from "../../adapters/storage/durable-store";
import { filesContaining } from "./disk-bytes";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** Polls until no rebuild runs or is pending; bounded (about 10 s at most). */
async function waitForRebuild(store: DurableStore): Promise<void> {
  for (let polls = 0; polls < 1000; polls++) {
    const { running, pending } = store.view().rebuild;
    if (!running && !pending) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("rebuild did not finish within the polling bound");
}

describe("erasure", () => {
  it("leaves no file holding an overwritten value once the debt is paid", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-erasure-"));
    dirs.push(dir);
    const marker = `SECRET-${randomBytes(12).toString("hex")}`;
    const { store } = await DurableStore.open(dir);
    for (let i = 0; i < 200; i++) store.commit([{ puts: [[`o/${i}`, `{"n":${i}}`]], dels: [] }]);
    store.commit([{ puts: [["o/secret", JSON.stringify({ cn: marker })]], dels: [] }]);
    expect(filesContaining(dir, marker)).toEqual([path.join(dir, "wal", "gen-000001.log")]);
    store.rotate(); // the marker now also reaches a LevelDB snapshot
    await waitForRebuild(store);
    store.commit([{ puts: [["o/after", "1"]], dels: [] }]);

    store.markErasureDebt(); // intent first: before the overwriting batch
    store.commit([{ puts: [["o/secret", '{"stage":"shredded"}']], dels: [] }]);
    expect(store.view().erasureDebt).toBe(1);
    await store.close();

    const reopened = await DurableStore.open(dir); // the debt is durable across a restart
    expect(reopened.store.view().erasureDebt).toBe(1);
    reopened.store.rotate();
    await waitForRebuild(reopened.store);
    const view = reopened.store.view();
    expect(view.rebuild.lastOutcome).toMatchObject({ ok: true, generation: 2 });
    expect(view.erasureDebt).toBe(0);
    expect(filesContaining(dir, marker)).toEqual([]);
    await reopened.store.close();

    const final = await DurableStore.open(dir);
    expect(final.entries.get("o/secret")).toBe('{"stage":"shredded"}');
    expect(final.entries.size).toBe(202);
    expect(final.store.view().erasureDebt).toBe(0);
    await final.store.close();
  });

  it("keeps the debt while a rebuild has not reached the shred's generation", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-erasure-"));
    dirs.push(dir);
    const { store } = await DurableStore.open(dir);
    store.commit([{ puts: [["o/a", "plain"]], dels: [] }]);
    store.rotate();
    store.markErasureDebt(); // raised in generation 2, while a rebuild of 1 may still run
    store.commit([{ puts: [["o/a", "overwritten"]], dels: [] }]);
    await waitForRebuild(store);
    expect(store.view().snapshotGeneration).toBe(1);
    expect(store.view().erasureDebt).toBe(1);
    expect(filesContaining(dir, "plain").length).toBeGreaterThan(0);
    expect(store.rebuild()).toEqual({ rotated: true }); // nothing sealed pending: rotates
    await waitForRebuild(store);
    expect(store.view().erasureDebt).toBe(0);
    expect(filesContaining(dir, "plain")).toEqual([]);
    await store.close();
  });

  it("tries a failed rebuild again while debt is owed, until the plaintext is gone", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-erasure-"));
    dirs.push(dir);
    const marker = `SECRET-${randomBytes(12).toString("hex")}`;
    const logged: string[] = [];
    const { store } = await DurableStore.open(dir, { rebuildRetryMs: 50, log: (line) => void logged.push(line) });
    store.commit([{ puts: [["o/secret", JSON.stringify({ cn: marker })]], dels: [] }]);
    // The disk fails the next two snapshot markers (a transient EIO), nothing else.
    const disk = (store as unknown as { fs: { write: (file: string, bytes: Uint8Array) => void } }).fs;
    const write = disk.write.bind(disk);
    let failures = 2;
    disk.write = (file, bytes) => {
      if (file.endsWith(".done.tmp") && failures-- > 0) {
        throw Object.assign(new Error(`EIO: i/o error, write '${file}'`), { code: "EIO" });
      }
      write(file, bytes);
    };
    store.markErasureDebt();
    store.commit([{ puts: [["o/secret", '{"stage":"shredded"}']], dels: [] }]);
    store.rotate();
    // Bounded: the retries come after 50 and 100 ms; allow about 10 s.
    let sawFailure = false;
    for (let polls = 0; polls < 1000 && store.view().erasureDebt > 0; polls++) {
      if (store.view().rebuild.lastOutcome?.ok === false) sawFailure = true;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(sawFailure).toBe(true);
    expect(failures).toBeLessThan(0); // both injected failures were hit, then a retry passed
    const view = store.view();
    expect(view.dead).toBe(false);
    expect(view.erasureDebt).toBe(0);
    expect(view.rebuild.lastOutcome).toMatchObject({ ok: true });
    expect(filesContaining(dir, marker)).toEqual([]);
    // Each failed attempt told the operator's log, with the debt it left outstanding.
    const failed = logged.filter((l) => l.includes("rebuild to generation"));
    expect(failed.length).toBe(2);
    expect(failed[0]).toMatch(/failed: EIO.*erasure debt 1 outstanding/u);
    await store.close();
  });
});
