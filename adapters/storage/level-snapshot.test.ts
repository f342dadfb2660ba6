/**
 * Goal: a LevelDB snapshot scan hands over every entry once, in key order, also when it reopens
 * the database between windows (resuming after the last key), and refuses a snapshot whose
 * entry count or digest does not match its marker, by boot's scan and by a rebuild's alike
 * (only after the last entry: the caller drops what it took); a marker from before digests
 * loads unchecked. A written snapshot's folder is the owner's alone (0700), its files 0600,
 * whatever the process umask. Method: real temporary directories; a tiny scan
 * window so that a few hundred entries span many reopenings.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SnapshotMeta } from "../../core/wal/snapshot-catalog";
import { LevelSnapshotFormat } from "./level-snapshot";
import { NodeFileSystem } from "./node-fs";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

async function* entriesOf(pairs: ReadonlyArray<[string, string]>) {
  yield* pairs;
}

describe("LevelSnapshotFormat scan", () => {
  it("streams every entry once in key order across reopened windows", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-level-"));
    dirs.push(dir);
    const fsys = new NodeFileSystem(dir);
    const pairs = Array.from({ length: 3000 }, (_, i): [string, string] => [
      `o/${String(i).padStart(5, "0")}`,
      `value ${i} ${"x".repeat(i % 50)}`,
    ]);
    const written = await new LevelSnapshotFormat(fsys).write(3, entriesOf(pairs));
    expect(written.entries).toBe(3000);
    // LevelDB made them 0755 and 0644 (HTTP audit, twenty-seventh session).
    const level = fs.readdirSync(path.join(dir, "snap")).map((n) => path.join(dir, "snap", n));
    expect(level).toHaveLength(1);
    expect(fs.statSync(level[0]!).mode & 0o777).toBe(0o700);
    const files = fs.readdirSync(level[0]!);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(fs.statSync(path.join(level[0]!, f)).mode & 0o777, f).toBe(0o600);
    const meta: SnapshotMeta = { generation: 3, kind: "level", entries: 3000, lastSeq: 0, digest: written.digest };
    for (const window of [1, 700, 2 ** 30]) {
      const seen: Array<[string, string]> = [];
      await new LevelSnapshotFormat(fsys, window).stream(meta, (k, v) => void seen.push([k, v]));
      expect(seen).toEqual(pairs);
    }
    // A caller that stops early (a read may be in flight) closes the database cleanly.
    let taken = 0;
    for await (const entry of new LevelSnapshotFormat(fsys).entries(meta)) {
      expect(entry).toEqual(pairs[taken]);
      if (++taken === 1500) break;
    }
    const again: string[] = [];
    await new LevelSnapshotFormat(fsys).stream(meta, (k) => void again.push(k));
    expect(again).toHaveLength(3000);
    const wrong = { ...meta, entries: 2999 };
    await expect(new LevelSnapshotFormat(fsys, 700).stream(wrong, () => {})).rejects.toThrow(
      /holds \d+ entries where its marker says \d+/,
    );
  });

  it("checks the digest on every full scan; the writer's order does not matter", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-level-"));
    dirs.push(dir);
    const fsys = new NodeFileSystem(dir);
    const pairs = Array.from({ length: 200 }, (_, i): [string, string] => [`o/${String(i).padStart(3, "0")}`, `välue ${i}`]);
    const format = new LevelSnapshotFormat(fsys);
    const forward = await format.write(1, entriesOf(pairs));
    const backward = await format.write(2, entriesOf([...pairs].reverse()));
    expect(backward).toEqual(forward);
    const meta: SnapshotMeta = { generation: 2, kind: "level", entries: 200, lastSeq: 0, digest: forward.digest };
    await format.stream(meta, () => {});
    // The same count, one value changed: what a flipped bit in a table looks like to a scan.
    const changed = pairs.map(([k, v]): [string, string] => (k === "o/117" ? [k, "välue 118"] : [k, v]));
    await format.write(2, entriesOf(changed));
    const refusal = /snapshot snap\/gen-000002\.level: its entries do not match the digest its marker holds/u;
    await expect(format.stream(meta, () => {})).rejects.toThrow(refusal);
    let seen = 0;
    await expect(
      (async () => {
        for await (const _ of format.entries(meta)) seen += 1;
      })(),
    ).rejects.toThrow(refusal);
    expect(seen).toBe(200);
    // A key moved by a damaged length (same bytes, other boundary) changes the digest too.
    await format.write(2, entriesOf(pairs.map(([k, v]): [string, string] => (k === "o/005" ? ["o/00", `5${v}`] : [k, v]))));
    await expect(format.stream(meta, () => {})).rejects.toThrow(refusal);
    // A marker written before digests existed: loads unchecked.
    const { digest: _, ...legacy } = meta;
    await format.stream(legacy, () => {});
  });
});
