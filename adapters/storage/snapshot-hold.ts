/**
 * A snapshot's files, held by hard links while LevelDB has its database open for a scan.
 *
 * Opening a LevelDB database writes to it: its recovery folds its own log into a table and
 * unlinks the log (a new snapshot's entries sit only in that log until its first open), writes
 * a new MANIFEST, and may compact tables away. A damaged log record is dropped on the way
 * (LevelDB recovers without paranoid checks), so the scan that then finds entries missing and
 * refuses the boot came after LevelDB had destroyed the only copy of the directory up to that
 * generation: the next boot refused the same, with the intact entries gone (storage audit,
 * twenty-eighth session). So every scan first links the snapshot's files into `gen-N.held`;
 * a scan that fails (or stops before its check) puts them back as they were, and a scan that
 * passes drops the links, erasing (zeros, then unlink) the files only the links still held:
 * the ones LevelDB unlinked at the open, whose values a later shred could not erase otherwise.
 *
 * Files with links of their own beyond the database's and the hold's (a hard-link backup,
 * `cp -al`, `rsync --link-dest`) are only unlinked, never zeroed: zeroing a shared inode wiped
 * the backup's live data at a plain restart (attack on the hold, twenty-eighth session). A
 * file system without hard links (vfat, some network mounts) cannot hold: the scan goes on
 * without the hold, as before it existed. Left open: tables LevelDB makes and drops during the
 * scan itself (compaction outputs between the windows' openings) are neither held nor zeroed.
 *
 * Crash safety: the links are made under `gen-N.holding` and renamed to `gen-N.held` once all
 * are durable, so a `.held` directory is always complete; a release renames it to
 * `gen-N.releasing` before it drops anything. The next scan of generation N (the boot's) first
 * settles what a crash left: `.holding` is removed (the database was not opened yet), `.held`
 * put back, `.releasing` released. All three names parse as generation N (`generationOfName`),
 * so those of superseded generations are erased with the rest of them.
 */
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { generationStem, snapDir } from "../../core/wal/generation-names";
import { erasePath } from "./erase-files";
import { syncDirectory } from "./level-snapshot";
import type { NodeFileSystem } from "./node-fs";
import { isCode } from "./node-fs";

export class SnapshotHold {
  private constructor(
    private readonly level: string,
    private readonly held: string,
  ) {}

  /**
   * Links every file of generation N's database into `gen-N.held`, durably, after settling
   * what a crash left of an earlier hold of it.
   */
  static async take(fs: NodeFileSystem, generation: number, level: string): Promise<SnapshotHold | null> {
    const { holding, held, releasing } = paths(fs, generation);
    await removeLinks(holding);
    if (await exists(releasing)) await release(level, releasing);
    if (await exists(held)) await new SnapshotHold(level, held).restore();
    await fsp.mkdir(holding, { mode: 0o700 });
    for (const name of await fsp.readdir(level)) {
      try {
        await fsp.link(path.join(level, name), path.join(holding, name));
      } catch (error) {
        if (!noHardLinks(error)) throw error;
        await removeLinks(holding);
        return null;
      }
    }
    await syncDirectory(holding);
    await fsp.rename(holding, held);
    await syncDirectory(fs.resolve(snapDir));
    return new SnapshotHold(level, held);
  }

  /** The scan passed: drops the links, erasing the files LevelDB no longer holds. */
  async release(): Promise<void> {
    const releasing = this.held.replace(/\.held$/u, ".releasing");
    await fsp.rename(this.held, releasing);
    await syncDirectory(path.dirname(this.held));
    await release(this.level, releasing);
  }

  /**
   * The scan failed or stopped: the database goes back to the files it had before the open.
   * What LevelDB made meanwhile is erased (it holds the same values); the files it shares with
   * the hold are only unlinked from the database's directory.
   */
  async restore(): Promise<void> {
    const kept = await inodes(this.held);
    if (await exists(this.level)) {
      for (const name of await fsp.readdir(this.level)) {
        const file = path.join(this.level, name);
        const stat = await fsp.stat(file);
        if (kept.has(stat.ino) || stat.nlink > 1) await fsp.unlink(file);
        else await erasePath(file);
      }
      await fsp.rmdir(this.level);
    }
    await fsp.rename(this.held, this.level);
    await syncDirectory(path.dirname(this.level));
  }
}

function paths(fs: NodeFileSystem, generation: number): { holding: string; held: string; releasing: string } {
  const stem = fs.resolve(`${snapDir}/${generationStem(generation)}`);
  return { holding: `${stem}.holding`, held: `${stem}.held`, releasing: `${stem}.releasing` };
}

/** Drops the links of a passed scan's hold, erasing the files the database no longer has. */
async function release(level: string, links: string): Promise<void> {
  // What LevelDB renamed or wrote at the open (CURRENT, MANIFEST) is durable before the files
  // it replaced are zeroed.
  await syncDirectory(level);
  const live = await inodes(level);
  for (const name of await fsp.readdir(links)) {
    const file = path.join(links, name);
    const stat = await fsp.stat(file);
    if (live.has(stat.ino) || stat.nlink > 1) await fsp.unlink(file);
    else await erasePath(file);
  }
  await fsp.rmdir(links);
  await syncDirectory(path.dirname(links));
}

/** Whether a directory of this snapshot's names is a hold (`.holding`, `.held`, `.releasing`). */
export function isHoldName(name: string): boolean {
  return /\.(holding|held|releasing)$/u.test(name);
}

/** `link` failing because the file system has no hard links (or not across these paths). */
function noHardLinks(error: unknown): boolean {
  return ["EPERM", "ENOTSUP", "EOPNOTSUPP", "EXDEV", "ENOSYS"].some((code) => isCode(error, code));
}

/** Removes a directory of links only: its files are still the database's, so no erasing. */
async function removeLinks(dir: string): Promise<void> {
  if (!(await exists(dir))) return;
  for (const name of await fsp.readdir(dir)) await fsp.unlink(path.join(dir, name));
  await fsp.rmdir(dir);
}

async function inodes(dir: string): Promise<Set<number>> {
  const out = new Set<number>();
  for (const name of await fsp.readdir(dir)) out.add((await fsp.stat(path.join(dir, name))).ino);
  return out;
}

async function exists(absolute: string): Promise<boolean> {
  try {
    await fsp.lstat(absolute);
    return true;
  } catch (error) {
    if (isCode(error, "ENOENT")) return false;
    throw error;
  }
}
