/**
 * Goal: DurableStore keeps its contract on a real disk: what commit() returned from is there
 * after reopening; rotate + background rebuild + reopen boots from the LevelDB snapshot plus the
 * log tail; garbage after the last record (a torn write) is cut at boot, zeros after it (the
 * preallocated space) are not; a data directory written before preallocation boots; sizes in
 * the view are logical; an I/O error kills writes with StorageDeadError. Method: real temporary
 * directories under os.tmpdir(), removed
 * after each test; reopen in the same process after close().
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { encodeRecord } from "../../core/wal/record-codec";
import { StorageDeadError } from "../../core/wal/storage-errors";
import { walLimits } from "../../core/wal/wal-limits";
import { DirectoryLockedError, removeStaleLock } from "./directory-lock";
import { bootWarnings } from "../daemon/daemon";
import { DurableStore } from "./durable-store";

const dirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-store-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** The boot's refusal message, or "booted" (and the store closed) if it booted. */
async function refusalOf(opening: Promise<{ store: DurableStore }>): Promise<string> {
  return opening.then(
    async ({ store }) => (await store.close(), "booted"),
    (error: Error) => error.message,
  );
}

/** A closed directory with `n` entries in snapshot 1 and `tail` committed after it. */
async function withSnapshot(n: number, value: (i: number) => string, tail: Array<[string, string]>): Promise<string> {
  const dir = tempDir();
  const { store } = await DurableStore.open(dir);
  for (let i = 0; i < n; i++) store.commit([put(`o/${i}`, value(i))]);
  store.rotate();
  for (const [key, v] of tail) store.commit([put(key, v)]);
  await store.whenRebuildIdle();
  await store.close();
  return dir;
}

const put = (key: string, value: string) => ({
  puts: [[key, value] as [string, string]],
  dels: [],
});

describe("DurableStore", () => {
  it("boots an empty directory to an empty map", async () => {
    const { store, boot, entries } = await DurableStore.open(tempDir());
    expect(entries.size).toBe(0);
    expect(boot).toMatchObject({ generation: 1, snapshotGeneration: 0, recordsReplayed: 0 });
    expect(store.view().marks).toEqual({
      generation: 1, durableBytes: 0, appendedBytes: 0, durableSeq: 0, appendedSeq: 0,
      allocatedBytes: walLimits.preallocateBytesMin,
    });
    await store.close();
  });

  it("round-trips committed puts and deletes across reopen", async () => {
    const dir = tempDir();
    const first = await DurableStore.open(dir);
    first.store.commit([put("o/a", '{"v":1}'), put("o/b", '{"v":2}')]);
    first.store.commit([{ puts: [["meta/node", '"n"']], dels: ["o/a"] }]);
    const marks = first.store.view().marks;
    expect(marks.durableSeq).toBe(3);
    expect(marks.durableBytes).toBe(marks.appendedBytes);
    await first.store.close();
    const second = await DurableStore.open(dir);
    expect([...second.entries].sort()).toEqual([["meta/node", '"n"'], ["o/b", '{"v":2}']]);
    expect(second.boot.recordsReplayed).toBe(3);
    second.store.commit([put("o/c", "3")]);
    expect(second.store.view().marks.appendedSeq).toBe(4);
    await second.store.close();
  });

  it("rotates, rebuilds in the background and boots from snapshot plus tail", async () => {
    const dir = tempDir();
    const { store } = await DurableStore.open(dir);
    for (let i = 0; i < 50; i++) store.commit([put(`o/${i}`, `v${i}`)]);
    store.commit([{ puts: [], dels: ["o/7"] }]);
    expect(store.rotate()).toEqual({ sealedGeneration: 1, generation: 2 });
    store.commit([put("o/tail", "t"), { puts: [["o/3", "changed"]], dels: ["o/4"] }]);
    await store.whenRebuildIdle();
    const view = store.view();
    expect(view.snapshotGeneration).toBe(1);
    expect(view.rebuild.lastOutcome).toMatchObject({ ok: true, entries: 49, generation: 1 });
    expect(view.files.map((f) => f.path)).toEqual([
      "wal/gen-000002.log", "snap/gen-000001.done", "snap/gen-000001.level",
    ]);
    await store.close();
    const again = await DurableStore.open(dir);
    expect(again.boot).toMatchObject({ snapshotGeneration: 1, snapshotEntries: 49 });
    expect(again.boot.recordsReplayed).toBe(2);
    expect(again.entries.size).toBe(49);
    expect(again.entries.get("o/3")).toBe("changed");
    expect(again.entries.has("o/4") || again.entries.has("o/7")).toBe(false);
    await again.store.close();
  });

  it("a batch written as a group of records boots, rebuilds in the background and boots again the same", async () => {
    const dir = tempDir();
    const options = { recordPartBytes: 300 };
    const { store } = await DurableStore.open(dir, options);
    store.commit([put("o/gone", "g"), put("o/a2", "old")]);
    const puts: Array<readonly [string, string]> = [];
    for (let i = 0; i < 12; i++) puts.push([`o/a${i}`, `a-${i}-`.padEnd(40, "x")]);
    store.commit([{ puts, dels: ["o/gone", "o/a3"] }]);
    expect(store.view().marks.appendedSeq).toBeGreaterThan(4);
    const expected = new Map(puts.filter(([k]) => k !== "o/a3"));
    await store.close();
    const reopened = await DurableStore.open(dir, options);
    expect(reopened.entries).toEqual(expected);
    expect(reopened.boot).toMatchObject({ recordsReplayed: 3, tornBytesCut: 0 });
    // The background rebuild reads the sealed log with LogScanner, a part per step or more.
    reopened.store.rotate();
    await reopened.store.whenRebuildIdle();
    expect(reopened.store.view().rebuild.lastOutcome).toMatchObject({ ok: true, entries: 11, generation: 1 });
    await reopened.store.close();
    const again = await DurableStore.open(dir, options);
    expect(again.boot).toMatchObject({ snapshotGeneration: 1, recordsReplayed: 0 });
    expect(again.entries).toEqual(expected);
    await again.store.close();
  });

  it("reports whole records a cut drops behind a damaged one (media damage looks like that)", async () => {
    const dir = tempDir();
    const { store } = await DurableStore.open(dir);
    for (let i = 0; i < 12; i++) store.commit([put(`o/${i}`, `value-${i}`.padEnd(60, "x"))]);
    await store.close();
    const log = path.join(dir, "wal", "gen-000001.log");
    const bytes = fs.readFileSync(log);
    const fourth = bytes.indexOf("o/3");
    bytes[fourth + 1] = bytes[fourth + 1]! ^ 0xff;
    fs.writeFileSync(log, bytes);
    const again = await DurableStore.open(dir);
    expect(again.entries.size).toBe(3);
    expect(again.boot.wholeRecordsCut).toMatchObject({ path: "wal/gen-000001.log", count: 8, firstSeq: 5, lastSeq: 12 });
    expect(bootWarnings({ ...again.boot, mode: "booted", at: "" })[0]).toMatch(/WARNING: .*8 whole, checksummed records/u);
    await again.store.close();
  });

  it("a snapshot entry that does not decode is named with its file, not quoted", async () => {
    const dir = await withSnapshot(20, (i) => (i === 7 ? "s3cret, not JSON" : JSON.stringify({ secret: `s3cret-value-${i}` })), []);
    const refused = await refusalOf(DurableStore.openInto(dir, (_key, value) => void JSON.parse(value)));
    expect(refused).toMatch(/^snapshot snap\/gen-000001: entry "o\/7" is not valid JSON/u);
    expect(refused).not.toMatch(/s3cret/u);
  });

  it("a byte changed inside a snapshot's LevelDB files refuses the boot instead of changing a value", async () => {
    // Values snappy cannot compress, so that their bytes stand literally in a table.
    const token = (i: number) => createHash("sha256").update(`value ${i}`).digest("base64");
    const dir = await withSnapshot(40, (i) => JSON.stringify({ name: token(i) }), []);
    // A boot opens the snapshot's database, and LevelDB's recovery moves what its own log held
    // into a table: reads of tables do not check LevelDB's block checksums (its log's records
    // they do, and drop a damaged one, which the entry count catches).
    await refusalOf(DurableStore.open(dir));
    const level = path.join(dir, "snap", "gen-000001.level");
    const needle = Buffer.from(token(17).slice(0, 12));
    const tables = fs.readdirSync(level).filter((f) => f.endsWith(".ldb")).map((f) => path.join(level, f));
    const holder = tables.find((f) => fs.readFileSync(f).includes(needle));
    expect(holder, "the value's bytes are stored literally in a table").toBeDefined();
    const bytes = fs.readFileSync(holder!);
    const at = bytes.indexOf(needle) + needle.length - 1;
    bytes[at] = bytes[at]! ^ 0x01; // one flipped bit in the value
    fs.writeFileSync(holder!, bytes);
    const refused = await refusalOf(DurableStore.open(dir));
    expect(refused).toMatch(/^snapshot snap\/gen-000001\.level: its entries do not match the digest its marker holds/u);
    expect(refused).not.toContain(token(17).slice(0, 8));
  });

  it("a refused boot leaves a damaged snapshot's files as they were: repaired, it boots whole", async () => {
    // A fresh snapshot's entries sit in LevelDB's own log until its first open, whose recovery
    // drops a damaged record and unlinks the log: the refusal came after the only copy was gone
    // (storage audit, twenty-eighth session). Now the scan holds the files by links and puts
    // them back when it fails.
    const dir = await withSnapshot(60, (i) => JSON.stringify({ name: `value ${i}`.padEnd(200, "x") }), [["o/tail", "t"]]);
    const level = path.join(dir, "snap", "gen-000001.level");
    const files = () =>
      Object.fromEntries(fs.readdirSync(level).map((f) => [f, createHash("sha256").update(fs.readFileSync(path.join(level, f))).digest("hex")]));
    const log = fs.readdirSync(level).map((f) => path.join(level, f)).find((f) => f.endsWith(".log") && fs.statSync(f).size > 4000);
    expect(log, "the snapshot's entries are in LevelDB's log").toBeDefined();
    const bytes = fs.readFileSync(log!);
    const at = Math.floor(bytes.length / 2);
    const good = bytes[at]!;
    bytes[at] = good ^ 0x20;
    fs.writeFileSync(log!, bytes);
    const damaged = files();
    for (let boot = 0; boot < 2; boot++) {
      expect(await refusalOf(DurableStore.open(dir))).toMatch(/^snapshot snap\/gen-000001\.level holds \d+ entries where its marker says 60/u);
      expect(files()).toEqual(damaged);
      expect(fs.readdirSync(path.join(dir, "snap")).sort()).toEqual(["gen-000001.done", "gen-000001.level"]);
    }
    bytes[at] = good;
    fs.writeFileSync(log!, bytes);
    const again = await DurableStore.open(dir);
    expect(again.entries.size).toBe(61);
    expect(again.entries.get("o/59")).toBe(JSON.stringify({ name: "value 59".padEnd(200, "x") }));
    await again.store.close();
    expect(fs.readdirSync(path.join(dir, "snap")).sort()).toEqual(["gen-000001.done", "gen-000001.level"]);
  });

  it("refuses a boot whose log after the newest snapshot is missing; an empty one accepts the loss", async () => {
    const dir = await withSnapshot(10, (i) => `v${i}`, [["o/after", "acknowledged after the snapshot"]]);
    const log = path.join(dir, "wal", "gen-000002.log");
    fs.rmSync(log);
    const refused = await refusalOf(DurableStore.open(dir));
    expect(refused).toMatch(/successor log wal\/gen-000002\.log is missing/u);
    fs.writeFileSync(log, "");
    const again = await DurableStore.open(dir);
    expect(again.entries.size).toBe(10);
    expect(again.entries.has("o/after")).toBe(false);
    again.store.commit([put("o/new", "n")]);
    await again.store.close();
    expect((await DurableStore.open(dir).then(async (o) => (await o.store.close(), o.entries.get("o/new"))))).toBe("n");
  });

  it("a hard-link backup of the directory still boots after the live one booted (its files are not zeroed)", async () => {
    // A scan erased the files only its hold still linked; a backup made with hard links
    // (cp -al, rsync --link-dest) links them too, and a plain restart zeroed its CURRENT,
    // MANIFEST and log (attack on the hold, twenty-eighth session).
    const dir = await withSnapshot(40, (i) => `value ${i}`, [["o/tail", "t"]]);
    const backup = tempDir();
    const linkTree = (from: string, to: string): void => {
      for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
        const [a, b] = [path.join(from, entry.name), path.join(to, entry.name)];
        if (entry.isDirectory()) {
          fs.mkdirSync(b);
          linkTree(a, b);
        } else if (entry.name !== "LOCK") fs.linkSync(a, b);
      }
    };
    linkTree(dir, backup);
    const live = await DurableStore.open(dir);
    expect(live.entries.size).toBe(41);
    await live.store.close();
    const restored = await DurableStore.open(backup);
    expect(restored.entries.size).toBe(41);
    expect(restored.entries.get("o/39")).toBe("value 39");
    await restored.store.close();
  });

  it("notes the active log, and refuses a boot whose newest log is older than the noted one", async () => {
    // A log lost behind a sealed one booted from the sealed one without a word, the writes
    // acknowledged in the lost log gone (storage audit, twenty-eighth session).
    const dir = tempDir();
    const { store } = await DurableStore.open(dir);
    const note = () => JSON.parse(fs.readFileSync(path.join(dir, "active-log.json"), "utf8")) as unknown;
    expect(note()).toEqual({ generation: 1 });
    store.commit([put("o/a", "1")]);
    store.rotate();
    expect(note()).toEqual({ generation: 2 });
    store.commit([put("o/b", "2")]);
    store.rotate();
    store.commit([put("o/c", "3")]);
    await store.whenRebuildIdle();
    const sealedBytes = store.view().marks.durableBytes;
    await store.close();
    expect(note()).toEqual({ generation: 3 });
    // The directory as a later rotation would leave it had log 4 then been lost behind log 3
    // (sealed: cut to its records; its rebuild failed): log 3 is the newest on disk, the note
    // says 4.
    fs.truncateSync(path.join(dir, "wal", "gen-000003.log"), sealedBytes);
    fs.writeFileSync(path.join(dir, "active-log.json"), JSON.stringify({ generation: 4 }));
    const refused = await refusalOf(DurableStore.open(dir));
    expect(refused).toMatch(/^wal\/gen-000004\.log was the active log \(active-log\.json\), but the newest log is wal\/gen-000003\.log/u);
    expect(refused).toMatch(/touch wal\/gen-000004\.log/u);
    fs.writeFileSync(path.join(dir, "wal", "gen-000004.log"), "");
    const again = await DurableStore.open(dir);
    expect([...again.entries].sort()).toEqual([["o/a", "1"], ["o/b", "2"], ["o/c", "3"]]);
    await again.store.close();
    expect(note()).toEqual({ generation: 4 });
  });

  it("a damaged or lost snapshot marker refuses the boot and erases nothing; restored, it boots", async () => {
    const dir = await withSnapshot(30, (i) => `v${i}`, [["o/tail", "t"]]);
    const marker = path.join(dir, "snap", "gen-000001.done");
    const good = fs.readFileSync(marker);
    for (const damage of [() => fs.writeFileSync(marker, Buffer.from([good[0]! ^ 1, ...good.subarray(1)])), () => fs.rmSync(marker)]) {
      damage();
      const refused = await refusalOf(DurableStore.open(dir));
      expect(refused).toMatch(/kept, not erased: snap\/gen-000001\.level/u);
      expect(fs.existsSync(path.join(dir, "snap", "gen-000001.level"))).toBe(true);
      fs.writeFileSync(marker, good);
    }
    const again = await DurableStore.open(dir);
    expect(again.entries.size).toBe(31);
    expect(again.entries.get("o/29")).toBe("v29");
    await again.store.close();
  });

  it("openInto streams each live key once with its final value (log tail over snapshot)", async () => {
    const dir = tempDir();
    const { store } = await DurableStore.open(dir);
    for (let i = 0; i < 20; i++) store.commit([put(`o/${i}`, `v${i}`)]);
    store.rotate();
    await store.whenRebuildIdle();
    store.commit([put("o/3", "three"), { puts: [["o/new", "n"], ["o/4", "x"]], dels: ["o/4"] }]);
    store.commit([{ puts: [], dels: ["o/5", "o/never"] }, put("o/3", "final"), put("o/5", "back")]);
    store.commit([{ puts: [["o/gone", "g"]], dels: [] }, { puts: [], dels: ["o/gone", "o/6"] }]);
    await store.close();
    const seen: Array<[string, string]> = [];
    const opened = await DurableStore.openInto(dir, (k, v) => void seen.push([k, v]));
    expect(opened.boot).toMatchObject({ snapshotGeneration: 1, recordsReplayed: 7, entries: 19 });
    const keys = seen.map(([k]) => k);
    expect(new Set(keys).size).toBe(keys.length);
    const expected = new Map(Array.from({ length: 20 }, (_, i) => [`o/${i}`, `v${i}`]));
    expected.set("o/3", "final").set("o/5", "back").set("o/new", "n");
    expected.delete("o/4");
    expected.delete("o/6");
    expect(new Map(seen)).toEqual(expected);
    await opened.store.close();
  });

  it("keeps no descriptor of a sealed log open (one per rotation would leak)", async () => {
    const openFds = () => fs.readdirSync("/proc/self/fd").length;
    const { store } = await DurableStore.open(tempDir());
    store.commit([put("o/a", "1")]);
    const before = openFds();
    for (let i = 0; i < 20; i++) {
      store.commit([put(`o/${i}`, "x")]);
      store.rotate();
      await store.whenRebuildIdle();
    }
    expect(openFds() - before).toBeLessThan(5);
    await store.close();
  });

  it("rebuild() snapshots without rotating when a sealed generation is pending", async () => {
    const { store } = await DurableStore.open(tempDir(), { rotateBytes: 200 });
    for (let i = 0; i < 10; i++) store.commit([put(`o/${i}`, "x".repeat(40))]);
    await store.whenRebuildIdle(); // automatic rotations already rebuilt
    const before = store.view();
    expect(before.marks.generation).toBeGreaterThan(1);
    expect(before.snapshotGeneration).toBe(before.marks.generation - 1);
    store.commit([put("o/last", "y")]);
    expect(store.rebuild()).toEqual({ rotated: true }); // nothing sealed is newer: rotates
    await store.whenRebuildIdle();
    expect(store.view().snapshotGeneration).toBe(before.marks.generation);
    expect(store.rebuild()).toEqual({ rotated: false }); // idle: nothing to do, nothing rotates
    await store.whenRebuildIdle();
    expect(store.view().rebuild.lastOutcome?.ok).toBe(true);
    await store.close();
  });

  it("a rebuild request arriving in a batch's last round starts the next batch: a shred's debt is paid", async () => {
    const dir = tempDir();
    const { store } = await DurableStore.open(dir);
    store.commit([put("o/a", "1")]);
    store.rotate();
    const nextOutcome = async (): Promise<boolean> => {
      const seen = store.view().rebuild.lastOutcome;
      // Bounded: a round takes milliseconds; 5 s without one means none is coming.
      for (let i = 0; i < 5000; i++) {
        if (store.view().rebuild.lastOutcome !== seen) return true;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      return false;
    };
    // A request during every round, past the 64 rounds one batch serves; the last is a shred's.
    let rounds = 0;
    for (; rounds < 70 && store.view().rebuild.running; rounds++) {
      if (rounds === 69) store.markErasureDebt();
      store.commit([put(`o/${rounds}`, rounds === 69 ? "overwrites a shredded value" : "x")]);
      store.rotate();
      if (!(await nextOutcome())) break;
    }
    expect(rounds).toBe(70);
    await store.whenRebuildIdle();
    const view = store.view();
    expect(view.rebuild.pending).toBe(false);
    expect(view.erasureDebt).toBe(0);
    expect(view.snapshotGeneration).toBe(view.marks.generation - 1);
    await store.close();
  });

  it("reports logical sizes: the active log's records (file size: allocatedBytes)", async () => {
    const dir = tempDir();
    const { store } = await DurableStore.open(dir);
    store.commit([put("o/a", "1"), put("o/b", "2")]);
    const { marks, files } = store.view();
    const log = path.join(dir, "wal", "gen-000001.log");
    expect(files).toEqual([
      {
        path: "wal/gen-000001.log", kind: "wal", generation: 1, bytes: marks.appendedBytes,
        active: true,
      },
    ]);
    expect(fs.statSync(log).size).toBe(marks.allocatedBytes);
    expect(marks.allocatedBytes).toBeGreaterThan(marks.appendedBytes);
    store.rotate();
    await store.whenRebuildIdle();
    expect(store.view().files.find((f) => f.path === "wal/gen-000002.log")?.bytes).toBe(0);
    await store.close();
  });

  it("cuts a torn tail at the last valid record by zeroing it", async () => {
    const dir = tempDir();
    const first = await DurableStore.open(dir);
    first.store.commit([put("o/a", "1")]);
    first.store.commit([put("o/b", "2")]);
    const durable = first.store.view().marks.durableBytes;
    await first.store.close();
    const log = path.join(dir, "wal", "gen-000001.log");
    const fd = fs.openSync(log, "r+");
    fs.writeSync(fd, Buffer.from([0x30, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7]), 0, 11, durable);
    fs.closeSync(fd);
    const second = await DurableStore.open(dir);
    expect(second.boot.tornBytesCut).toBe(11);
    expect(fs.statSync(log).size).toBe(walLimits.preallocateBytesMin);
    expect(fs.readFileSync(log).subarray(durable).every((b) => b === 0)).toBe(true);
    expect([...second.entries].sort()).toEqual([["o/a", "1"], ["o/b", "2"]]);
    second.store.commit([put("o/c", "3")]);
    await second.store.close();
    const third = await DurableStore.open(dir);
    expect(third.entries.get("o/c")).toBe("3");
    expect(third.boot.tornBytesCut).toBe(0);
    await third.store.close();
  });

  it("boots a directory written by appending (no preallocated space), torn tail cut", async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, "wal"));
    const one = encodeRecord(1, put("o/a", "1"));
    const two = encodeRecord(2, put("o/b", "2"));
    const torn = encodeRecord(3, put("o/c", "3")).subarray(0, 12);
    fs.writeFileSync(path.join(dir, "wal", "gen-000001.log"), one);
    const log = path.join(dir, "wal", "gen-000002.log");
    fs.writeFileSync(log, Buffer.concat([two, torn]));
    const first = await DurableStore.open(dir);
    expect([...first.entries].sort()).toEqual([["o/a", "1"], ["o/b", "2"]]);
    expect(first.boot).toMatchObject({ generation: 2, recordsReplayed: 2 });
    expect(first.boot.tornBytesCut).toBeGreaterThan(0);
    first.store.commit([put("o/d", "4")]);
    const view = first.store.view();
    expect(view.files.map((f) => f.bytes)).toEqual([one.length, view.marks.appendedBytes]);
    await first.store.close();
    const second = await DurableStore.open(dir);
    expect(second.boot.tornBytesCut).toBe(0);
    expect([...second.entries].sort()).toEqual([["o/a", "1"], ["o/b", "2"], ["o/d", "4"]]);
    await second.store.close();
  });

  it("marks itself dead on an I/O error and refuses later writes", async () => {
    const dir = tempDir();
    const { store } = await DurableStore.open(dir);
    store.commit([put("o/a", "1")]);
    // Replacing the active log by a directory makes the next append fail with EISDIR/EBADF.
    await store.close();
    const log = path.join(dir, "wal", "gen-000001.log");
    fs.rmSync(log);
    fs.mkdirSync(log);
    expect(() => store.commit([put("o/b", "2")])).toThrow(StorageDeadError);
    const view = store.view();
    expect(view.dead).toBe(true);
    expect(view.deadReason).toBeTruthy();
    expect(() => store.commit([put("o/c", "3")])).toThrow(/storage is dead/);
    expect(() => store.rotate()).toThrow(StorageDeadError);
  });

  it("locks its directory against a second open, and takes over a stale lock", async () => {
    const dir = tempDir();
    const { store } = await DurableStore.open(dir);
    await expect(DurableStore.open(dir)).rejects.toThrow(DirectoryLockedError);
    await store.close();
    fs.writeFileSync(path.join(dir, "LOCK"), "999999999"); // no such process: stale
    const again = await DurableStore.open(dir);
    expect(fs.readFileSync(path.join(dir, "LOCK"), "utf8")).toMatch(new RegExp(`^${process.pid}( [0-9]+)?$`, "u"));
    await again.store.close();
    expect(fs.existsSync(path.join(dir, "LOCK"))).toBe(false);
  });

  it("removes a stale lock only if it is still that lock: a racing starter's fresh lock is put back", async () => {
    const dir = tempDir();
    const lock = path.join(dir, "LOCK");
    // The other starter judged "999999999" stale too, removed it first and wrote its own.
    fs.writeFileSync(lock, "4242 777");
    expect(removeStaleLock(lock, "999999999")).toBe(false);
    expect(fs.readFileSync(lock, "utf8")).toBe("4242 777");
    expect(fs.readdirSync(dir)).toEqual(["LOCK"]);
    fs.writeFileSync(lock, "999999999");
    expect(removeStaleLock(lock, "999999999")).toBe(true);
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(removeStaleLock(lock, "999999999")).toBe(false); // gone already
    // A starter that died between moving a lock aside and putting it back left it there: the
    // next holder removes it.
    fs.writeFileSync(`${lock}.stale-31337`, "4242 777");
    const { store } = await DurableStore.open(dir);
    expect(fs.readdirSync(dir).filter((f) => f.startsWith("LOCK"))).toEqual(["LOCK"]);
    await store.close();
  });

  it("takes over a lock naming its own pid that it does not hold (a container restart reuses the pid)", async () => {
    const dir = tempDir();
    await (await DurableStore.open(dir)).store.close();
    fs.writeFileSync(path.join(dir, "LOCK"), String(process.pid));
    const again = await DurableStore.open(dir);
    await expect(DurableStore.open(dir)).rejects.toThrow(/in use by this process/u);
    await again.store.close();
    // A live pid with another start time is a reused pid: stale too (Linux, where /proc tells).
    if (fs.existsSync(`/proc/${process.ppid}/stat`)) {
      fs.writeFileSync(path.join(dir, "LOCK"), `${process.ppid} 1`);
      const third = await DurableStore.open(dir);
      await third.store.close();
      fs.writeFileSync(path.join(dir, "LOCK"), `${process.ppid}`);
      await expect(DurableStore.open(dir)).rejects.toThrow(new RegExp(`in use by process ${process.ppid}`, "u"));
    }
  });
});
