/**
 * Which snapshots exist and which are complete, for every snapshot format. A snapshot of
 * generation N holds the merged final key-value map of every log generation <= N. It is
 * complete once its marker `snap/gen-N.done` exists: the marker is written to a temp name,
 * synced, renamed and the directory synced, and only after the data itself was made durable.
 * Formats differ only in their data (a file here, a LevelDB directory in the daemon), so the
 * format sits behind `SnapshotFormat` and the catalog is shared.
 */
import { assert } from "../assert";
import type { FileSystem } from "./fs-port";
import { generationOfName, parseGeneration, snapDir, snapshotMarkerPath } from "./generation-names";

export type SnapshotKind = "file" | "level";

export interface SnapshotMeta {
  readonly generation: number;
  /** Last log sequence number the snapshot covers (0 when none). */
  readonly lastSeq: number;
  readonly entries: number;
  readonly kind: SnapshotKind;
  /**
   * LevelDB snapshots: the digest of their entries (adapters/storage/snapshot-digest.ts), which
   * every scan checks. Absent in markers written before it existed: those load unchecked.
   */
  readonly digest?: number;
}

/**
 * One snapshot data format. `Loaded`, `Written` and `Source` are the types of a loaded map, of
 * a write's result (the entry count) and of the entries fed to a write: plain values and
 * iterables for the synchronous file format, deferred results and async iterables for LevelDB
 * in the daemon. Either way the data is durable when `write` has finished; the caller then
 * writes the marker.
 */
export interface SnapshotFormat<Loaded, Written, Source> {
  readonly kind: SnapshotKind;
  /** Path of generation N's data (a file or a directory) relative to the store root. */
  dataPath(generation: number): string;
  load(meta: SnapshotMeta): Loaded;
  write(generation: number, entries: Source): Written;
}

const markerEncoder = new TextEncoder();
const markerDecoder = new TextDecoder();

export function writeSnapshotMarker(fs: FileSystem, meta: SnapshotMeta): void {
  const path = snapshotMarkerPath(meta.generation);
  fs.write(`${path}.tmp`, markerEncoder.encode(JSON.stringify(meta)));
  fs.sync(`${path}.tmp`);
  fs.rename(`${path}.tmp`, path);
  fs.syncDir(snapDir);
  // The first snapshot creates snap/: its entry in the root becomes durable only now.
  fs.syncDir("");
}

/**
 * Makes the marker of the snapshot a boot is about to rely on durable, with its directory
 * entries, before the boot erases anything that snapshot supersedes. A process that died of an
 * I/O error after renaming the marker but before syncing the directory (storage dead, then
 * restarted; no power lost) finds the marker through the page cache: without this, the boot
 * would erase the older logs, and a power cut would then take the marker's entry too.
 */
export function makeSnapshotDurable(fs: FileSystem, meta: SnapshotMeta): void {
  fs.sync(snapshotMarkerPath(meta.generation));
  fs.syncDir(snapDir);
  fs.syncDir("");
}

/** The newest complete snapshot, or null when there is none. */
export function newestCompleteSnapshot(fs: FileSystem): SnapshotMeta | null {
  let newest: SnapshotMeta | null = null;
  for (const name of fs.list(snapDir)) {
    const generation = parseGeneration(name, ".done");
    if (generation === null || (newest !== null && generation <= newest.generation)) continue;
    const meta = readMarker(fs, generation);
    if (meta !== null) newest = meta;
  }
  return newest;
}

function readMarker(fs: FileSystem, generation: number): SnapshotMeta | null {
  const bytes = fs.read(snapshotMarkerPath(generation));
  if (bytes === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(markerDecoder.decode(bytes));
  } catch {
    return null; // renamed into place only after a sync, so this is foreign junk: not complete
  }
  if (typeof parsed !== "object" || parsed === null) return null;
  const meta = parsed as Record<string, unknown>;
  const ok =
    meta["generation"] === generation &&
    Number.isSafeInteger(meta["lastSeq"]) &&
    Number.isSafeInteger(meta["entries"]) &&
    (meta["kind"] === "file" || meta["kind"] === "level") &&
    (meta["digest"] === undefined || isUint32(meta["digest"]));
  return ok ? (parsed as SnapshotMeta) : null;
}

function isUint32(x: unknown): boolean {
  return Number.isInteger(x) && (x as number) >= 0 && (x as number) <= 0xffffffff;
}

/**
 * Names in snap/ that a snapshot of `keep` supersedes: markers, data and temp files of every
 * older generation. With `orphans`, also anything of a newer generation that has no marker (a
 * rebuild a crash interrupted); only safe when no rebuild is running. Markers come first in the
 * result so that removing in order retires a snapshot before its data disappears.
 */
export function supersededSnapshotPaths(fs: FileSystem, keep: number, orphans: boolean): string[] {
  const markers: string[] = [];
  const data: string[] = [];
  for (const name of fs.list(snapDir)) {
    const generation = generationOfName(name);
    if (generation === null || generation === keep) continue;
    if (generation > keep && !orphans) continue;
    (name.endsWith(".done") ? markers : data).push(`${snapDir}/${name}`);
  }
  const out = [...markers, ...data];
  assert(!out.includes(snapshotMarkerPath(keep)), "the kept snapshot is never superseded");
  return out;
}
