/**
 * Which log generation was last made the active one, noted in `active-log.json` (written to a
 * temp name, synced, renamed, the root synced) before anything is appended to it. The boot
 * takes the newest log on disk for the active one; without the note, a directory that lost its
 * newest log behind a sealed one (a partial restore, a file removed by hand) booted from the
 * sealed one without a word and appended to it, the writes acknowledged in the lost log gone
 * (storage audit, twenty-eighth session). A snapshot's missing successor log was refused
 * already (`requireSuccessorLog`); this covers a log behind other logs.
 *
 * Order: a rotation creates the next log, notes it, and only then appends to it; a crash in
 * between leaves the note one behind the newest log, which is fine. A note absent or unreadable
 * (a directory from before the note, foreign junk) checks nothing; the boot writes it anew.
 */
import { walPath } from "../../core/wal/generation-names";
import { StorageCorruptError } from "../../core/wal/storage-errors";
import type { NodeFileSystem } from "./node-fs";

export const activeLogNotePath = "active-log.json";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Notes `generation` as the active log, durably. */
export function noteActiveLog(fs: NodeFileSystem, generation: number): void {
  fs.write(`${activeLogNotePath}.tmp`, encoder.encode(JSON.stringify({ generation })));
  fs.sync(`${activeLogNotePath}.tmp`);
  fs.rename(`${activeLogNotePath}.tmp`, activeLogNotePath);
  fs.syncDir("");
}

/** The noted active generation, or null when there is no readable note. */
export function notedActiveLog(fs: NodeFileSystem): number | null {
  const bytes = fs.read(activeLogNotePath);
  if (bytes === null) return null;
  try {
    const parsed = JSON.parse(decoder.decode(bytes)) as { generation?: unknown } | null;
    const generation = parsed?.generation;
    return Number.isSafeInteger(generation) && (generation as number) > 0 ? (generation as number) : null;
  } catch {
    return null;
  }
}

/** Refuses a boot whose newest log on disk is older than the log last made active. */
export function requireNotedLog(fs: NodeFileSystem, newestOnDisk: number | null): void {
  const noted = notedActiveLog(fs);
  if (noted === null || (newestOnDisk !== null && newestOnDisk >= noted)) return;
  const missing = walPath(noted);
  const newest = newestOnDisk === null ? "no log is left" : `the newest log is ${walPath(newestOnDisk)}`;
  throw new StorageCorruptError(
    `${missing} was the active log (${activeLogNotePath}), but ${newest}: the writes acknowledged in ` +
      `${missing} are gone from this directory. Restore it from a backup, or, to go on without them, ` +
      `create it empty (touch ${missing}) and start again`,
  );
}
