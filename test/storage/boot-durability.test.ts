/**
 * Goal: the daemon's boot makes durable what it is about to rely on before it erases or serves
 * anything: every log it replays, the marker of the snapshot it loads, and the wal/, snap/ and
 * root directories. A process restarted after an I/O error (no power lost) reads unsynced
 * bytes and directory entries through the page cache; without these syncs it would build on a
 * log or a snapshot marker whose name a later power cut takes back
 * (scenarios/regressions/boot-builds-on-unsynced-log.scn is the simulator's case).
 * Method: a real data directory with a snapshot and a later log; the reopen's syncs are
 * recorded on the file system class (restored afterwards).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DurableStore } from "../../adapters/storage/durable-store";
import { NodeFileSystem } from "../../adapters/storage/node-fs";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe("the daemon's boot", () => {
  it("syncs the logs it replays, the snapshot marker it loads and their directories", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-boot-sync-"));
    dirs.push(dir);
    const { store } = await DurableStore.open(dir);
    store.commit([{ puts: [["o/a", "1"]], dels: [] }]);
    store.rotate();
    await store.whenRebuildIdle();
    store.commit([{ puts: [["o/b", "2"]], dels: [] }]);
    await store.close();

    const synced: string[] = [];
    const { sync, syncDir } = NodeFileSystem.prototype;
    NodeFileSystem.prototype.sync = function (this: NodeFileSystem, file: string) {
      synced.push(file);
      sync.call(this, file);
    };
    NodeFileSystem.prototype.syncDir = function (this: NodeFileSystem, d: string) {
      synced.push(`${d}/`);
      syncDir.call(this, d);
    };
    try {
      const reopened = await DurableStore.open(dir);
      expect(reopened.entries.get("o/b")).toBe("2");
      expect(reopened.boot.snapshotGeneration).toBe(1);
      await reopened.store.close();
    } finally {
      NodeFileSystem.prototype.sync = sync;
      NodeFileSystem.prototype.syncDir = syncDir;
    }
    expect(synced).toEqual(
      expect.arrayContaining(["snap/gen-000001.done", "snap/", "/", "wal/gen-000002.log", "wal/"]),
    );
  });
});
