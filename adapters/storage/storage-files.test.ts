/**
 * Goal: GET /api/storage's file listing says which files it could not read instead of
 * throwing (a dying disk, a wrong chmod) or hiding them: a log or a snapshot that cannot be
 * stat'ed shows with 0 bytes and its error in `unreadable` (attack on the twenty-seventh
 * session's fixes: a snapshot's error was swallowed, a log's threw and the views answered 500).
 * Method: a real temporary folder whose wal/ and snap/ hold self-referencing symlinks (ELOOP
 * on stat), besides a readable log.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { NodeFileSystem } from "./node-fs";
import { listStorageFiles } from "./storage-files";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe("listStorageFiles", () => {
  it("lists what it can and says what it could not stat", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-files-"));
    dirs.push(dir);
    fs.mkdirSync(path.join(dir, "wal"));
    fs.mkdirSync(path.join(dir, "snap"));
    fs.writeFileSync(path.join(dir, "wal", "gen-000002.log"), "x".repeat(10));
    fs.symlinkSync("gen-000001.log", path.join(dir, "wal", "gen-000001.log"));
    fs.symlinkSync("gen-000001.level", path.join(dir, "snap", "gen-000001.level"));
    const marks = { generation: 9, appendedBytes: 0 } as Parameters<typeof listStorageFiles>[1];
    const listing = listStorageFiles(new NodeFileSystem(dir), marks);
    const bytes = Object.fromEntries(listing.files.map((f) => [f.path, f.bytes]));
    expect(bytes).toEqual({ "wal/gen-000001.log": 0, "wal/gen-000002.log": 10, "snap/gen-000001.level": 0 });
    expect(listing.unreadable).toMatch(/wal\/gen-000001\.log: .*ELOOP/);
    expect(listing.unreadable).toMatch(/snap\/gen-000001\.level: .*ELOOP/);
  });
});
