/**
 * The FileSystem port over node:fs, synchronous on purpose: the daemon's single driver loop
 * blocks on fdatasync while new requests queue behind it, so the next turn naturally batches
 * them into one sync (group commit, and a lone write never waits for a timer).
 *
 * Each appended or written-at file keeps one fd open, so a write is one write(2)/pwrite(2) and a
 * sync is one fdatasync(2) on the same fd. Appends use an O_APPEND fd; positional writes need
 * one without O_APPEND (Linux pwrite on an O_APPEND fd appends whatever the position), so a
 * file switching between the two is reopened. Directory syncs open the directory read-only and
 * fsync it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { assert } from "../../core/assert";
import type { FileSystem } from "../../core/wal/fs-port";

/** How a kept-open fd was opened: "a" appends (O_APPEND), "r+" writes at positions. */
type FdMode = "a" | "r+";

export class NodeFileSystem implements FileSystem {
  private readonly fds = new Map<string, { readonly fd: number; readonly mode: FdMode }>();

  constructor(readonly root: string) {
    // Private when created here: the files hold every value in plain text until erased.
    fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  }

  /** Absolute path of a port path. */
  resolve(relative: string): string {
    assert(!relative.split("/").includes(".."), `path escapes the root: ${relative}`);
    return relative === "" ? this.root : path.join(this.root, ...relative.split("/"));
  }

  list(dir: string): string[] {
    try {
      return fs.readdirSync(this.resolve(dir)).sort();
    } catch (error) {
      if (isCode(error, "ENOENT")) return [];
      throw error;
    }
  }

  read(file: string): Uint8Array | null {
    try {
      return fs.readFileSync(this.resolve(file));
    } catch (error) {
      if (isCode(error, "ENOENT")) return null;
      throw error;
    }
  }

  append(file: string, bytes: Uint8Array): void {
    const fd = this.keptFd(file, "a");
    // writeSync may write less than asked; loop until done (bounded: each pass writes >= 1 byte).
    let written = 0;
    for (let passes = 0; written < bytes.length; passes++) {
      assert(passes <= bytes.length, "write makes progress");
      written += fs.writeSync(fd, bytes, written, bytes.length - written);
    }
  }

  writeAt(file: string, offset: number, bytes: Uint8Array): void {
    assert(Number.isSafeInteger(offset) && offset >= 0, `bad offset ${offset}`);
    const fd = this.keptFd(file, "r+");
    let written = 0;
    for (let passes = 0; written < bytes.length; passes++) {
      assert(passes <= bytes.length, "write makes progress");
      const length = bytes.length - written;
      written += fs.writeSync(fd, bytes, written, length, offset + written);
    }
  }

  write(file: string, bytes: Uint8Array): void {
    this.close(file);
    const absolute = this.resolve(file);
    fs.mkdirSync(path.dirname(absolute), { recursive: true, mode: 0o700 });
    fs.writeFileSync(absolute, bytes, { mode: 0o600 });
  }

  sync(file: string): void {
    const open = this.fds.get(file);
    if (open !== undefined) {
      fs.fdatasyncSync(open.fd);
      return;
    }
    const fd = fs.openSync(this.resolve(file), "r+");
    try {
      fs.fdatasyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  syncDir(dir: string): void {
    const fd = fs.openSync(this.resolve(dir), "r");
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  truncate(file: string, length: number): void {
    const open = this.fds.get(file);
    if (open !== undefined) fs.ftruncateSync(open.fd, length);
    else fs.truncateSync(this.resolve(file), length);
  }

  rename(from: string, to: string): void {
    this.close(from);
    this.close(to);
    fs.renameSync(this.resolve(from), this.resolve(to));
  }

  /** Removes a file, or a directory with its content (LevelDB snapshots are directories). */
  remove(file: string): void {
    for (const open of [...this.fds.keys()]) {
      if (open === file || open.startsWith(`${file}/`)) this.close(open);
    }
    fs.rmSync(this.resolve(file), { recursive: true, force: true });
  }

  size(file: string): number | null {
    try {
      return fs.statSync(this.resolve(file)).size;
    } catch (error) {
      if (isCode(error, "ENOENT")) return null;
      throw error;
    }
  }

  /** Closes the kept-open descriptor of a file that will not be written again, if any. */
  release(file: string): void {
    this.close(file);
  }

  /** Closes every kept-open file descriptor. */
  closeAll(): void {
    for (const file of [...this.fds.keys()]) this.close(file);
  }

  /**
   * The kept-open fd of `file` in `mode`, reopening it if it is open in the other one. "a"
   * creates the file (and its directory); "r+" requires it to exist (ENOENT otherwise).
   */
  private keptFd(file: string, mode: FdMode): number {
    const open = this.fds.get(file);
    if (open !== undefined && open.mode === mode) return open.fd;
    this.close(file);
    const absolute = this.resolve(file);
    // Owner only: the files hold every value in plain text (the modes apply on creation).
    if (mode === "a") fs.mkdirSync(path.dirname(absolute), { recursive: true, mode: 0o700 });
    const fd = fs.openSync(absolute, mode, 0o600);
    this.fds.set(file, { fd, mode });
    return fd;
  }

  private close(file: string): void {
    const open = this.fds.get(file);
    if (open === undefined) return;
    this.fds.delete(file);
    fs.closeSync(open.fd);
  }
}

export function isCode(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
}
