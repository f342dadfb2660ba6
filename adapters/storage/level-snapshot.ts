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
import { SnapshotDigest } from "./snapshot-digest";
import { SnapshotHold } from "./snapshot-hold";

type Entries = AsyncIterable<readonly [string, string]>;

const done: [string, string] = ["", ""];

/** LevelDB's smallest table cache (64 open tables); a one-pass scan loses nothing by it. */
const readOpenFilesMax = 74;
/** Entry bytes (UTF-16 code units) scanned per opening of a snapshot database. */
const scanWindowBytesDefault = 32 * 2 ** 20;

/** What a write made durable: the entry count and digest its marker must hold. */
export interface LevelSnapshotWritten {
  readonly entries: number;
  readonly digest: number;
}

export class LevelSnapshotFormat
  implements SnapshotFormat<Promise<Map<string, string>>, Promise<LevelSnapshotWritten>, Entries>
{
  readonly kind = "level";

  constructor(
    private readonly fs: NodeFileSystem,
    private readonly scanWindowBytes = scanWindowBytesDefault,
  ) {}

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
   * holding the snapshot in memory; throws once done if the count or the digest does not match
   * the marker (the entries handed over by then must be dropped).
   */
  async stream(meta: SnapshotMeta, sink: (key: string, value: string) => void): Promise<void> {
    for await (const chunk of this.chunks(meta)) {
      for (let i = 0; i < chunk.length; i++) {
        const [key, value] = chunk[i]!;
        // Dropped as soon as handed over, so a value dies young instead of surviving (and
        // being promoted by) the collections that decoding the rest of the chunk triggers.
        chunk[i] = done;
        sink(key, value);
      }
    }
  }

  /**
   * Streams a complete snapshot's entries in key order, in chunks (the loop stays free); throws
   * after the last one if the count or the digest does not match the marker, so a rebuild
   * reading a damaged snapshot fails instead of sealing the damage under a digest of its own.
   */
  async *entries(meta: SnapshotMeta): AsyncGenerator<[string, string]> {
    for await (const chunk of this.chunks(meta)) yield* chunk;
  }

  /**
   * The scan reopens the database after every `scanWindowBytes` of entries, resuming after the
   * last key: LevelDB maps each table file it holds open into memory, and the pages a scan
   * touched stay in the process's resident set until the file is closed. Its table cache keeps
   * at least 64 files (128 MiB of 2 MiB tables) open, so without the reopening a scan of a
   * 250 MiB snapshot kept all of it resident while booting (1,000 open files by default).
   * The count and digest are checked after the last chunk (a consumer must drop what it took
   * when the scan throws). The files are held by links for the scan (snapshot-hold.ts): only a
   * scan that ends with its check passed lets LevelDB's changes to them stand.
   */
  private async *chunks(meta: SnapshotMeta): AsyncGenerator<Array<[string, string]>> {
    const location = this.fs.resolve(this.dataPath(meta.generation));
    const hold = await SnapshotHold.take(this.fs, meta.generation, location);
    let passed = false;
    try {
      const check = new ScanCheck(this.dataPath(meta.generation), meta);
      for await (const chunk of this.windows(meta, location)) {
        for (const [key, value] of chunk) check.add(key, value);
        yield chunk;
      }
      check.end();
      passed = true;
    } finally {
      if (hold === null) {
        // No hard links here: nothing held, nothing to put back.
      } else if (passed) await hold.release();
      else await hold.restore();
    }
  }

  /** The scan's database openings, one per window (see chunks). */
  private async *windows(meta: SnapshotMeta, location: string): AsyncGenerator<Array<[string, string]>> {
    let after: string | null = null;
    // Bounded: each window yields at least one entry or ends, and the snapshot is finite.
    for (let windows = 0; windows <= meta.entries; windows++) {
      const db = new ClassicLevel<string, string>(location, {
        createIfMissing: false,
        maxOpenFiles: readOpenFilesMax,
      });
      await db.open();
      const range: { gt?: string } = after === null ? {} : { gt: after };
      const iterator = db.iterator(range);
      let bytes = 0;
      let ended = false;
      try {
        while (bytes < this.scanWindowBytes) {
          const chunk: Array<[string, string]> = await iterator.nextv(
            walLimits.snapshotChunkEntries,
          );
          if (chunk.length === 0) {
            ended = true;
            break;
          }
          for (const [key, value] of chunk) bytes += key.length + value.length;
          after = chunk[chunk.length - 1]![0];
          yield chunk;
        }
      } finally {
        await iterator.close();
        await db.close();
      }
      if (ended) return;
    }
  }

  /** Writes a fresh database with `entries` (keys distinct), makes it durable. */
  async write(generation: number, entries: Entries): Promise<LevelSnapshotWritten> {
    const relative = this.dataPath(generation);
    const location = this.fs.resolve(relative);
    await fsp.rm(location, { recursive: true, force: true });
    // LevelDB creates its files for everyone to read (0644, its folder 0755): the folder is
    // made here 0700 and the files set 0600 once written, as every file the daemon makes (a
    // copy keeping modes, a backup, exposed plaintext values; HTTP audit, twenty-seventh
    // session). snap/ keeps them the owner's meanwhile.
    await fsp.mkdir(path.dirname(location), { recursive: true, mode: 0o700 });
    await fsp.mkdir(location, { mode: 0o700 });
    const db = new ClassicLevel<string, string>(location, { errorIfExists: true });
    await db.open();
    let count = 0;
    const digest = new SnapshotDigest();
    try {
      let chunk: Array<{ type: "put"; key: string; value: string }> = [];
      for await (const [key, value] of entries) {
        chunk.push({ type: "put", key, value });
        digest.add(key, value);
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
    for (const name of await fsp.readdir(location)) await fsp.chmod(path.join(location, name), 0o600);
    await syncTree(location);
    await syncDirectory(path.dirname(location));
    return { entries: count, digest: digest.value };
  }
}

/** A full scan's count and digest, compared with the marker's once the scan ends. */
class ScanCheck {
  private count = 0;
  private readonly digest = new SnapshotDigest();

  constructor(
    private readonly where: string,
    private readonly meta: SnapshotMeta,
  ) {}

  add(key: string, value: string): void {
    this.count += 1;
    this.digest.add(key, value);
  }

  end(): void {
    if (this.count !== this.meta.entries) {
      throw new StorageCorruptError(
        `snapshot ${this.where} holds ${this.count} entries where its marker says ${this.meta.entries} (damaged?)`,
      );
    }
    if (this.meta.digest !== undefined && this.digest.value !== this.meta.digest) {
      throw new StorageCorruptError(
        `snapshot ${this.where}: its entries do not match the digest its marker holds, so its data changed ` +
          `after it was written (damaged?)`,
      );
    }
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
