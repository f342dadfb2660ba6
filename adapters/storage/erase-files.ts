/**
 * Erasing superseded files: overwrite with zeros, sync, then unlink. Unlinking alone leaves the
 * bytes in free blocks and, worse, in any hard link or open descriptor; overwriting first is
 * what DESIGN asks of a rebuild ("overwrites and unlinks the files it supersedes"). Async so a
 * background rebuild erasing a 64 MiB log never blocks the driver loop.
 */
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { assert } from "../../core/assert";
import { isCode } from "./node-fs";

const zeroChunkBytes = 1024 * 1024;
const zeros = new Uint8Array(zeroChunkBytes);
/** LevelDB directories are flat; a deeper tree under snap/ is not ours to walk. */
const depthMax = 4;

/** Overwrites and removes a file, or a directory tree of files. Absent paths are fine. */
export async function erasePath(absolute: string, depth = 0): Promise<void> {
  assert(depth <= depthMax, `erase descends too deep at ${absolute}`);
  let stat;
  try {
    stat = await fsp.lstat(absolute);
  } catch (error) {
    if (isCode(error, "ENOENT")) return;
    throw error;
  }
  if (stat.isDirectory()) {
    for (const name of await fsp.readdir(absolute)) {
      await erasePath(path.join(absolute, name), depth + 1);
    }
    await fsp.rmdir(absolute);
    return;
  }
  if (stat.isFile() && stat.size > 0) await overwriteWithZeros(absolute, stat.size);
  await fsp.unlink(absolute);
}

async function overwriteWithZeros(absolute: string, size: number): Promise<void> {
  const handle = await fsp.open(absolute, "r+");
  try {
    // Bounded: every pass writes a positive amount and the size is fixed.
    for (let at = 0; at < size; ) {
      const length = Math.min(zeroChunkBytes, size - at);
      const { bytesWritten } = await handle.write(zeros, 0, length, at);
      assert(bytesWritten > 0, "overwrite makes progress");
      at += bytesWritten;
    }
    await handle.datasync();
  } finally {
    await handle.close();
  }
}
