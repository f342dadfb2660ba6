/**
 * One process per data directory. Two daemons appending to the same log would interleave
 * records and break the sequence, so open() takes a lock file holding the owner's pid and, where
 * /proc tells it (Linux), the process's start time. A lock whose process is gone is stale (a
 * kill -9 leaves one behind) and is taken over: its pid is not alive, or it is alive with
 * another start time (the pid was reused), or it is this process's own pid without this process
 * holding the lock (a container restart gives the new daemon the dead one's pid; the lock
 * refused it for ever, as "in use by this process").
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { isCode } from "./node-fs";

export const lockFileName = "LOCK";

export class DirectoryLockedError extends Error {
  override readonly name = "DirectoryLockedError";
}

/**
 * Takes the lock or throws DirectoryLockedError; returns the release function. `onStale` hears
 * of a stale lock taken over (its pid; null: unreadable): the previous run did not shut down cleanly.
 */
export function lockDirectory(dataDir: string, onStale: (pid: number | null) => void = () => undefined): () => void {
  const lockPath = path.resolve(dataDir, lockFileName);
  const started = startTimeOf(process.pid);
  const mine = started === null ? String(process.pid) : `${process.pid} ${started}`;
  // Three attempts: a stale lock is removed before the next one, and a starter racing this
  // one may have removed it first (then the exclusive create decides between the two).
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(lockPath, mine, { flag: "wx", mode: 0o600 });
      heldHere.add(lockPath);
      removeLeftAside(lockPath);
      return () => releaseLock(lockPath, mine);
    } catch (error) {
      if (!isCode(error, "EEXIST")) throw error;
    }
    let text: string;
    try {
      text = fs.readFileSync(lockPath, "utf8");
    } catch (error) {
      if (isCode(error, "ENOENT")) continue; // released or taken away meanwhile: try again
      throw error;
    }
    const owner = ownerOf(text);
    if (owner !== null && isHeld(lockPath, owner)) {
      const who = owner.pid === process.pid ? "this process" : `process ${owner.pid}`;
      throw new DirectoryLockedError(`data directory ${dataDir} is in use by ${who}`);
    }
    if (removeStaleLock(lockPath, text)) onStale(owner?.pid ?? null);
  }
  throw new DirectoryLockedError(`could not lock data directory ${dataDir}`);
}

/**
 * Removes the lock file if it still holds `stale`, the text judged stale; true when it did.
 * Two starters that both judged one lock stale used to remove it both: the second removal
 * could take the first one's fresh lock, and then both created theirs (concurrency audit,
 * twenty-third session). The file is moved aside first (rename is atomic) and checked: when
 * it is not the stale lock, another starter's fresh lock was moved, and it is put back (a link
 * fails only if a third starter created a lock in between: three starters at once on one
 * crashed directory are not guarded against).
 */
export function removeStaleLock(lockPath: string, stale: string): boolean {
  const aside = `${lockPath}.stale-${process.pid}`;
  try {
    fs.renameSync(lockPath, aside);
  } catch (error) {
    if (isCode(error, "ENOENT")) return false; // another starter moved it first
    throw error;
  }
  const moved = fs.readFileSync(aside, "utf8");
  if (moved !== stale) {
    try {
      fs.linkSync(aside, lockPath);
    } catch (error) {
      if (!isCode(error, "EEXIST")) throw error;
    }
    fs.rmSync(aside, { force: true });
    return false;
  }
  fs.rmSync(aside, { force: true });
  return true;
}

/**
 * Removes `LOCK.stale-PID` files a starter that died between moving a lock aside and removing
 * or putting it back left behind; only the lock's holder does it, so none is in use.
 */
function removeLeftAside(lockPath: string): void {
  const dir = path.dirname(lockPath);
  const prefix = `${path.basename(lockPath)}.stale-`;
  for (const name of fs.readdirSync(dir)) {
    if (name.startsWith(prefix)) fs.rmSync(path.join(dir, name), { force: true });
  }
}

/** Lock files this process holds (a second open of the same directory here is refused). */
const heldHere = new Set<string>();

function releaseLock(lockPath: string, mine: string): void {
  heldHere.delete(lockPath);
  try {
    if (fs.readFileSync(lockPath, "utf8").trim() === mine) fs.rmSync(lockPath, { force: true });
  } catch (error) {
    if (!isCode(error, "ENOENT")) throw error;
  }
}

/** The lock's owner: `pid` or `pid starttime` (null for anything else: stale junk). */
function ownerOf(text: string): { pid: number; started: string | null } | null {
  const [pidText, started] = text.trim().split(" ");
  const pid = Number(pidText);
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  return { pid, started: started ?? null };
}

function isHeld(lockPath: string, owner: { pid: number; started: string | null }): boolean {
  if (owner.pid === process.pid) return heldHere.has(lockPath);
  if (!isAlive(owner.pid)) return false;
  if (owner.started === null) return true;
  const now = startTimeOf(owner.pid);
  return now === null || now === owner.started;
}

/**
 * A process's start time in clock ticks since boot (field 22 of /proc/PID/stat), or null where
 * there is no /proc (or no such process): a pid reused by another process has another.
 */
function startTimeOf(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may hold spaces: count after its end.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const started = fields[19];
    return started !== undefined && /^[0-9]+$/u.test(started) ? started : null;
  } catch {
    return null;
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
