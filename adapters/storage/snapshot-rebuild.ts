/**
 * Background snapshot rebuild, as a merge of immutable inputs: the previous complete snapshot
 * plus the sealed log generations after it, up to the target. It reads files, never live
 * state, so it can run while the driver keeps committing to the active generation. Every step
 * awaits (file reads, LevelDB batches, a yield between slices of decoded records), so the event
 * loop stays responsive and writes are never blocked.
 */
import * as fsp from "node:fs/promises";
import { assert } from "../../core/assert";
import { parseGeneration, walDir, walPath } from "../../core/wal/generation-names";
import { LogScanner } from "../../core/wal/record-codec";
import { FileSnapshotFormat } from "../../core/wal/snapshot-file";
import {
  supersededSnapshotPaths,
  writeSnapshotMarker,
  type SnapshotMeta,
} from "../../core/wal/snapshot-catalog";
import { StorageCorruptError } from "../../core/wal/storage-errors";
import type { SealedGeneration } from "../../core/wal/wal-log";
import { walLimits } from "../../core/wal/wal-limits";
import { erasePath } from "./erase-files";
import type { LevelSnapshotFormat } from "./level-snapshot";
import type { NodeFileSystem } from "./node-fs";

export interface RebuildInput {
  readonly fs: NodeFileSystem;
  readonly level: LevelSnapshotFormat;
  readonly previous: SnapshotMeta | null;
  /** Sealed generations after the previous snapshot, ascending, the last one the target. */
  readonly sealed: readonly SealedGeneration[];
}

/** Writes snapshot `target` and its marker; returns its meta. Older files are left alone. */
export async function buildSnapshot(input: RebuildInput): Promise<SnapshotMeta> {
  const target = input.sealed.at(-1);
  assert(target !== undefined, "a rebuild folds at least one sealed generation");
  assert(target.generation > (input.previous?.generation ?? 0), "a rebuild moves forward");
  const overlay = await readOverlay(input);
  const entries = mergedEntries(input, overlay);
  const written = await input.level.write(target.generation, entries);
  const meta: SnapshotMeta = {
    generation: target.generation,
    lastSeq: target.lastSeq,
    entries: written.entries,
    kind: "level",
    digest: written.digest,
  };
  writeSnapshotMarker(input.fs, meta);
  return meta;
}

/** Final state of every key the sealed logs touch: a value, or null for a delete. */
async function readOverlay(input: RebuildInput): Promise<Map<string, string | null>> {
  const overlay = new Map<string, string | null>();
  let expectSeq = (input.previous?.lastSeq ?? 0) + 1;
  for (const sealed of input.sealed) {
    const path = walPath(sealed.generation);
    const bytes = await fsp.readFile(input.fs.resolve(path));
    const scanner = new LogScanner(bytes, expectSeq);
    // Bounded: each step consumes at least one record (>= 17 bytes) or finishes the scan.
    for (let steps = 0; !scanner.done && steps <= bytes.length; steps++) {
      for (const record of scanner.step()) {
        for (const [key, value] of record.batch.puts) overlay.set(key, value);
        for (const key of record.batch.dels) overlay.set(key, null);
        expectSeq = record.seq + 1;
      }
      await yieldToLoop();
    }
    if (scanner.validBytes !== bytes.length || expectSeq !== sealed.lastSeq + 1) {
      throw new StorageCorruptError(`sealed log ${path} changed or is damaged`);
    }
  }
  return overlay;
}

async function* mergedEntries(
  input: RebuildInput,
  overlay: Map<string, string | null>,
): AsyncGenerator<[string, string]> {
  const previous = input.previous;
  if (previous !== null) {
    const source =
      previous.kind === "level"
        ? input.level.entries(previous)
        : new FileSnapshotFormat(input.fs).load(previous);
    for await (const [key, value] of source) if (!overlay.has(key)) yield [key, value];
  }
  for (const [key, value] of overlay) if (value !== null) yield [key, value];
}

/**
 * Erases everything snapshot `kept` supersedes: older snapshots (markers first, so a crash
 * midway leaves orphans that boot removes, never a complete-looking snapshot without data)
 * and every log generation at or below it. The active generation is always above `kept`.
 */
export async function eraseSuperseded(fs: NodeFileSystem, kept: number): Promise<number> {
  const snapPaths = supersededSnapshotPaths(fs, kept, false);
  const walPaths = fs
    .list(walDir)
    .filter((name) => (parseGeneration(name, ".log") ?? Infinity) <= kept)
    .map((name) => `${walDir}/${name}`);
  for (const path of snapPaths.filter((p) => p.endsWith(".done"))) fs.remove(path);
  if (snapPaths.length > 0) fs.syncDir("snap");
  for (const path of [...snapPaths, ...walPaths]) await erasePath(fs.resolve(path));
  if (snapPaths.length > 0) fs.syncDir("snap");
  if (walPaths.length > 0) fs.syncDir(walDir);
  return snapPaths.length + walPaths.length;
}

function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
