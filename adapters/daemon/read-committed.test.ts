/**
 * Goal: what the API shows a client cannot be taken back by a crash. A read waits for the
 * flush of the writes applied before it (`committed()`), and a refusal that rests on a write
 * of the same turn (name-in-use after a create) is answered only once that write is durable.
 * Before, a read in the turn of a write saw it before its fsync, and after a kill -9 the
 * node's usn went back and a value read before was gone (concurrency audit). Method: a real
 * daemon on a temp dir; writes applied without awaiting them, then the storage marks (the
 * log's durable and appended sequence numbers) read after `committed()` and when the
 * refusal's answer arrives.
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

async function openDaemon(): Promise<Daemon> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-committed-"));
  dirs.push(dataDir);
  return Daemon.open({ dataDir, boot: "either", log: () => {} });
}

const marks = (daemon: Daemon) => daemon.storageView().marks;

it("a read after committed() sees only durable writes; a refusal resting on a pending write waits for it", async () => {
  const daemon = await openDaemon();
  const root = daemon.read((node, nowMs) => node.root(nowMs));
  if (!root.ok) throw new Error(root.message);
  const create = (name: string) =>
    daemon.write((node, nowMs) => node.create({ parent: root.value.id, name, className: "organizationalUnit" }, nowMs));

  // Applied in memory at once; logged and synced by the turn's flush.
  const before = marks(daemon).durableSeq;
  const first = create("Once");
  expect(marks(daemon).appendedSeq).toBe(before);
  await daemon.committed();
  expect(marks(daemon).durableSeq).toBeGreaterThan(before);
  expect(marks(daemon).durableSeq).toBe(marks(daemon).appendedSeq);
  expect((await first).ok).toBe(true);

  // Same turn: the second create is refused because of the first, not durable yet; the
  // refusal is answered once it is.
  const pendingFrom = marks(daemon).durableSeq;
  const created = create("Twice");
  const answer = await create("twice");
  expect(answer.ok ? "created" : answer.code).toBe("name-in-use");
  expect(marks(daemon).durableSeq).toBeGreaterThan(pendingFrom);
  expect((await created).ok).toBe(true);
  await daemon.close();
});
