/**
 * The files a store has on disk, for GET /api/storage. Listed from the directories rather than
 * from bookkeeping, so a leftover that an erase failed to remove still shows. Sizes are logical:
 * the active log's file is preallocated (zeros after its records, core/wal/wal-log.ts), so its
 * size is its records' bytes (the marks' appendedBytes); the file's size is the marks'
 * allocatedBytes. Other files hold no preallocated space.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { generationOfName, snapDir, walDir } from "../../core/wal/generation-names";
import type { StorageFileView } from "../../core/wal/storage-view";
import type { DurabilityMarks } from "../../core/wal/wal-log";
import type { NodeFileSystem } from "./node-fs";
import { isHoldName } from "./snapshot-hold";

/** The files, and why a folder could not be listed (null: both were). */
export interface StorageListing {
  readonly files: StorageFileView[];
  readonly unreadable: string | null;
}

/**
 * Files in the flat LevelDB directory are summed; deeper nesting is not expected. A folder
 * that cannot be listed (EACCES, EIO, ENOTDIR) is said, not thrown: the listing serves the
 * views that tell an operator the store died (HTTP audit, twenty-seventh session: every
 * write, GET /api/node and GET /api/storage answered 500 then).
 */
export function listStorageFiles(nfs: NodeFileSystem, marks: DurabilityMarks): StorageListing {
  const out: StorageFileView[] = [];
  const problems: string[] = [];
  // A folder listed but whose files cannot be stat'ed (read but no search permission, EIO):
  // the file shows with 0 bytes, and the problem is said (attack on the session's fixes).
  const sizeOf = (file: string): number => {
    try {
      return nfs.size(file) ?? 0;
    } catch (error) {
      problems.push(`${file}: ${error instanceof Error ? error.message : String(error)}`);
      return 0;
    }
  };
  const list = (dir: string): string[] => {
    try {
      return nfs.list(dir);
    } catch (error) {
      problems.push(`${dir}: ${error instanceof Error ? error.message : String(error)}`);
      return [];
    }
  };
  for (const name of list(walDir)) {
    const generation = generationOfName(name);
    if (generation === null) continue;
    const active = generation === marks.generation;
    const bytes = active ? marks.appendedBytes : sizeOf(`${walDir}/${name}`);
    out.push({ path: `${walDir}/${name}`, kind: "wal", generation, bytes, active });
  }
  for (const name of list(snapDir)) {
    const generation = generationOfName(name);
    // A scan's hard links to its snapshot's files (snapshot-hold.ts): the same bytes again.
    if (generation === null || isHoldName(name)) continue;
    const bytes = treeBytes(nfs.resolve(`${snapDir}/${name}`), (error) =>
      problems.push(`${snapDir}/${name}: ${error instanceof Error ? error.message : String(error)}`),
    );
    out.push({ path: `${snapDir}/${name}`, kind: "snapshot", generation, bytes, active: false });
  }
  return { files: out, unreadable: problems.length === 0 ? null : problems.join("; ") };
}

/** Bytes of a file or flat folder; an error other than a concurrent erase is told `problem`. */
function treeBytes(absolute: string, problem: (error: unknown) => void): number {
  try {
    const stat = fs.statSync(absolute);
    if (!stat.isDirectory()) return stat.size;
    let total = 0;
    for (const name of fs.readdirSync(absolute)) {
      const child = fs.statSync(path.join(absolute, name), { throwIfNoEntry: false });
      if (child?.isFile()) total += child.size;
    }
    return total;
  } catch (error) {
    // Removed by a concurrent erase between listing and stat: nothing to say.
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") problem(error);
    return 0;
  }
}
