/**
 * Goal: a LevelDB snapshot scan hands over every entry once, in key order, also when it reopens
 * the database between windows (resuming after the last key), and refuses a snapshot whose
 * entry count does not match its marker. Method: real temporary directories; a tiny scan
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
    const count = await new LevelSnapshotFormat(fsys).write(3, entriesOf(pairs));
    expect(count).toBe(3000);
    const meta: SnapshotMeta = { generation: 3, kind: "level", entries: 3000, lastSeq: 0 };
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
});
