/**
 * Goal: erasure debt that a crash left unpaid is paid when the daemon starts again. A daemon
 * that dies after a shred's batch and its debt are durable, but before the rotation's rebuild
 * has erased the older files, restarts with the plaintext still on disk; nothing else would
 * start the rebuild before the next shred or a 64 MiB rotation, possibly never on a quiet
 * node. Method: a real daemon on a temp dir writes a unique marker and closes; the shred is
 * then committed exactly as the daemon's group commit does (the node booted from the store,
 * the debt raised, then its batch committed) and the store closed without rotating, as a kill
 * at that point leaves it; a daemon opened on the directory must pay the debt on its own.
 * Second: the debt is raised before the overwrite (below).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, expect, it } from "vitest";
import { DirectoryNode } from "../../core/node/directory-node";
import { DurableStore } from "../storage/durable-store";
import { filesContaining } from "../../test/storage/disk-bytes";
import { CryptoRandom } from "./crypto-random";
import { Daemon } from "./daemon";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

const log = (): void => {};

/** A new domain in a temp dir whose OU "Vault" holds a unique marker; the daemon stays open. */
async function vaultWithSecret(prefix: string): Promise<{ dataDir: string; marker: string; daemon: Daemon; vault: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dataDir);
  const marker = `SECRET-${randomBytes(12).toString("hex")}`;
  const daemon = await Daemon.open({ dataDir, boot: "either", log });
  const root = daemon.read((node, now) => node.root(now));
  if (!root.ok) throw new Error("the new domain has a root");
  const made = await daemon.write((node, now) =>
    node.createQuiet(
      { parent: root.value.id, name: "Vault", className: "organizationalUnit", attributes: { description: [marker] } },
      now,
    ),
  );
  if (!made.ok) throw new Error(`create refused: ${made.code}`);
  return { dataDir, marker, daemon, vault: made.value };
}

it("pays at boot the erasure debt of a shred whose rebuild a crash cut short", async () => {
  const { dataDir, marker, daemon: first, vault } = await vaultWithSecret("canopy-erasure-boot-");
  await first.close();

  // The shred as the daemon commits it, then the process "dies" before rotating.
  const loader = DirectoryNode.loader(new CryptoRandom());
  const opened = await DurableStore.openInto(dataDir, loader.put);
  const node = loader.boot(Date.now());
  if (node === null) throw new Error("the store holds a node");
  expect(node.shred(vault, Date.now()).ok).toBe(true);
  const ready = node.ready();
  expect(ready?.erasure).toBe(true);
  opened.store.markErasureDebt();
  opened.store.commit([ready!.batch]);
  await opened.store.close();
  expect(filesContaining(dataDir, marker).length).toBeGreaterThan(0);

  const restarted = await Daemon.open({ dataDir, boot: "existing", log });
  await restarted.whenStorageIdle();
  const storage = restarted.storageView();
  await restarted.close();
  expect(storage.erasureDebt).toBe(0);
  expect(storage.rebuild.lastOutcome?.ok).toBe(true);
  expect(filesContaining(dataDir, marker)).toEqual([]);
});

// Intent first (scenarios/regressions/erasure-debt-raised-before-commit.scn): the debt is
// durable before the batch that overwrites the plaintext. Raised after the commit, as it was,
// a failure (or a crash) between the two acknowledged a shred whose plaintext no debt owned.
// Method: the debt file cannot be written (a directory squats its temporary name), so the
// raise fails; the shred must be refused, and after a restart no shred may sit on disk with
// the plaintext and no debt.
it("refuses a shred whose erasure debt cannot be recorded, and never leaves one without debt", async () => {
  const { dataDir, marker, daemon, vault } = await vaultWithSecret("canopy-erasure-intent-");
  fs.mkdirSync(path.join(dataDir, "erasure-debt.json.tmp"));
  const shred = await daemon.write((node, now) => node.shred(vault, now));
  expect(shred.ok).toBe(false);
  expect(shred.ok ? null : shred.code).toBe("storage-dead");
  await daemon.close();
  fs.rmSync(path.join(dataDir, "erasure-debt.json.tmp"), { recursive: true });

  const restarted = await Daemon.open({ dataDir, boot: "existing", log });
  await restarted.whenStorageIdle();
  const stage = restarted.read((node, now) => node.object(vault, now));
  const storage = restarted.storageView();
  await restarted.close();
  // The refused shred never reached the disk: the object is as it was, its value on disk.
  expect(stage.ok && stage.value.stage).toBe("alive");
  expect(storage.erasureDebt).toBe(0);
  expect(filesContaining(dataDir, marker).length).toBeGreaterThan(0);
});
