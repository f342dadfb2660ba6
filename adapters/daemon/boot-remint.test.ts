/**
 * Goal: every boot's re-minted invocation is durable before the daemon serves, as the
 * simulator's hosts make it. A daemon restarted without any write in between must not boot
 * the same invocation again: a partner that saw the unpersisted one (a pull answered under
 * it) would then hold an invocation of this node that the node never knew, which is exactly
 * how a rollback looks, and the node would re-mint and quarantine itself for nothing.
 * Method: a real daemon on a temp dir, opened and closed three times without writes; each
 * boot must retire the previous boot's invocation, so the third sees both earlier ones.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, expect, it } from "vitest";
import { Daemon } from "./daemon";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** Opens a daemon on a fresh temp dir `boots` times, closing it between; each boot's invocation and the last view. */
async function restarted(boots: number): Promise<{ invocations: string[]; view: ReturnType<Daemon["nodeView"]> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-remint-"));
  dirs.push(dataDir);
  const log = (): void => {};
  const invocations: string[] = [];
  let last = await Daemon.open({ dataDir, boot: "either", log });
  invocations.push(last.nodeView().invocationId);
  for (let boot = 1; boot < boots; boot++) {
    await last.close();
    last = await Daemon.open({ dataDir, boot: "existing", log });
    invocations.push(last.nodeView().invocationId);
  }
  const view = last.nodeView();
  await last.close();
  return { invocations, view };
}

it("retires each boot's invocation even when nothing was written between boots", async () => {
  const { invocations, view } = await restarted(3);
  expect(new Set(invocations).size).toBe(3);
  // The vector holds an entry for every invocation this node retired, the first two boots'.
  expect(Object.keys(view.utd).sort()).toEqual([invocations[0]!, invocations[1]!].sort());
  // Stamped with the boot's wall clock, not 1970 (the journal audit found syncedAtMs 0: the
  // daemon booted the node without its clock).
  const synced = Object.values(view.utd as Record<string, { syncedAtMs: number }>).map((e) => e.syncedAtMs);
  for (const at of synced) expect(Math.abs(at - Date.now())).toBeLessThan(3_600_000);
});

it("keeps only its newest retired invocations in the vector, however often it restarts", async () => {
  // Every boot retires an invocation; the node view's vector (core/repl/vector-bound.ts) keeps
  // the newest four of them, by epoch, and the epochs rise one per boot.
  const { invocations, view } = await restarted(8);
  const entries = view.utd as Record<string, { epoch: number; node: string }>;
  expect(Object.keys(entries).sort()).toEqual(invocations.slice(3, 7).sort());
  expect(invocations.slice(3, 7).map((inv) => entries[inv]!.epoch)).toEqual([3, 4, 5, 6]);
  for (const e of Object.values(entries)) expect(e.node).toBe(view.nodeId);
});
