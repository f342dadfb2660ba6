/**
 * One process per data directory. Two daemons appending to the same log would interleave
 * records and break the sequence, so open() takes a lock file holding the owner's pid. A lock
 * whose pid is no longer alive is stale (a kill -9 leaves one behind) and is taken over.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { isCode } from "./node-fs";

export const lockFileName = "LOCK";

export class DirectoryLockedError extends Error {
  override readonly name = "DirectoryLockedError";
}

/** Takes the lock or throws DirectoryLockedError; returns the release function. */
export function lockDirectory(dataDir: string): () => void {
  const lockPath = path.join(dataDir, lockFileName);
  const mine = String(process.pid);
  // Two attempts: the first may find a stale lock, which is removed before the second.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockPath, mine, { flag: "wx" });
      return () => releaseLock(lockPath, mine);
    } catch (error) {
      if (!isCode(error, "EEXIST")) throw error;
    }
    const owner = Number(fs.readFileSync(lockPath, "utf8").trim());
    if (Number.isSafeInteger(owner) && owner > 0 && isAlive(owner)) {
      const who = owner === process.pid ? "this process" : `process ${owner}`;
      throw new DirectoryLockedError(`data directory ${dataDir} is in use by ${who}`);
    }
    fs.rmSync(lockPath, { force: true });
  }
  throw new DirectoryLockedError(`could not lock data directory ${dataDir}`);
}

function releaseLock(lockPath: string, mine: string): void {
  try {
    if (fs.readFileSync(lockPath, "utf8").trim() === mine) fs.rmSync(lockPath, { force: true });
  } catch (error) {
    if (!isCode(error, "ENOENT")) throw error;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isCode(error, "EPERM"); // alive, owned by someone else
  }
}
