/**
 * The daemon's snapshot format: one LevelDB database (classic-level) per generation, in the
 * directory `snap/gen-N.level`. A snapshot is written once, with final values only, into a
 * fresh directory, then closed and fsynced file by file; the shared catalog's marker makes it
 * complete. Because nothing but final values ever enters it, neither its tables nor LevelDB's
 * own log can hold a value that an earlier shred overwrote.
 */
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { ClassicLevel } from "classic-level";
import { generationStem, snapDir } from "../../core/wal/generation-names";
import type { SnapshotFormat, SnapshotMeta } from "../../core/wal/snapshot-catalog";
import { StorageCorruptError } from "../../core/wal/storage-errors";
import { walLimits } from "../../core/wal/wal-limits";
import type { NodeFileSystem } from "./node-fs";

type Entries = AsyncIterable<readonly [string, string]>;

const done: [string, string] = ["", ""];

/**
 * LevelDB maps each table file it holds open into memory, and the pages a scan touches count
 * in the process's resident set until the file is closed: with the default (1,000 open files)
 * a scan of a 250 MiB snapshot kept all of it resident while booting. 74 is LevelDB's
 * smallest table cache (64 tables of `maxFileSize`, 2 MiB by default); a one-pass scan loses
 * nothing by it.
 */
const readOpenFilesMax = 74;

export class LevelSnapshotFormat
  implements SnapshotFormat<Promise<Map<string, string>>, Promise<number>, Entries>
{
  readonly kind = "level";

  constructor(private readonly fs: NodeFileSystem) {}

  dataPath(generation: number): string {
    return `${snapDir}/${generationStem(generation)}.level`;
  }

  async load(meta: SnapshotMeta): Promise<Map<string, string>> {
    const map = new Map<string, string>();
    await this.stream(meta, (key, value) => map.set(key, value));
    return map;
  }

  /**
   * Hands every entry of a complete snapshot to `sink` in key order, chunk by chunk, without
   * holding the snapshot in memory; throws once done if the count does not match the marker.
   */
  async stream(meta: SnapshotMeta, sink: (key: string, value: string) => void): Promise<void> {
    let count = 0;
    for await (const chunk of this.chunks(meta)) {
      for (let i = 0; i < chunk.length; i++) {
        const [key, value] = chunk[i]!;
        // Dropped as soon as handed over, so a value dies young instead of surviving (and
        // being promoted by) the collections that decoding the rest of the chunk triggers.
        chunk[i] = done;
        sink(key, value);
      }
      count += chunk.length;
    }
    if (count !== meta.entries) {
      throw new StorageCorruptError(`snapshot ${meta.generation} does not match its marker`);
    }
  }

  /** Streams a complete snapshot's entries in key order, in chunks (the loop stays free). */
  async *entries(meta: SnapshotMeta): AsyncGenerator<[string, string]> {
    for await (const chunk of this.chunks(meta)) yield* chunk;
  }

  private async *chunks(meta: SnapshotMeta): AsyncGenerator<Array<[string, string]>> {
    const location = this.fs.resolve(this.dataPath(meta.generation));
    const db = new ClassicLevel<string, string>(location, {
      createIfMissing: false,
      maxOpenFiles: readOpenFilesMax,
    });
    await db.open();
    const iterator = db.iterator();
    try {
      // Bounded: each pass yields at least one entry or ends, and the snapshot is finite.
      for (let passes = 0; passes <= meta.entries; passes++) {
        const chunk = await iterator.nextv(walLimits.snapshotChunkEntries);
        if (chunk.length === 0) break;
        yield chunk;
      }
    } finally {
      await iterator.close();
      await db.close();
    }
  }

  /** Writes a fresh database with `entries` (keys distinct), makes it durable, returns count. */
  async write(generation: number, entries: Entries): Promise<number> {
    const relative = this.dataPath(generation);
    const location = this.fs.resolve(relative);
    await fsp.rm(location, { recursive: true, force: true });
    const db = new ClassicLevel<string, string>(location, { errorIfExists: true });
    await db.open();
    let count = 0;
    try {
      let chunk: Array<{ type: "put"; key: string; value: string }> = [];
      for await (const [key, value] of entries) {
        chunk.push({ type: "put", key, value });
        count += 1;
        if (chunk.length >= walLimits.snapshotChunkEntries) {
          await db.batch(chunk);
          chunk = [];
        }
      }
      if (chunk.length > 0) await db.batch(chunk);
    } finally {
      await db.close();
    }
    await syncTree(location);
    await syncDirectory(path.dirname(location));
    return count;
  }
}

/** fsyncs every file of a directory, then the directory itself. */
async function syncTree(dir: string): Promise<void> {
  for (const entry of await fsp.readdir(dir, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const handle = await fsp.open(path.join(dir, entry.name), "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
  await syncDirectory(dir);
}

export async function syncDirectory(dir: string): Promise<void> {
  const handle = await fsp.open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
