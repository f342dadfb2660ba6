/**
 * A plain in-memory FileSystem for contract tests of the write-ahead log. It honours the port
 * and, to test the durability contract, remembers what was made durable: `crash()` rolls every
 * file back to its content at its last `sync` and drops names whose directory was not synced.
 * Fault injection beyond that (torn writes, I/O errors, image rollback) lives in the simulator's
 * own disk, not here.
 */
import { assert } from "../assert";
import type { FileSystem } from "./fs-port";

export class MemoryFileSystem implements FileSystem {
  private readonly files = new Map<string, Uint8Array>();
  private readonly durableFiles = new Map<string, Uint8Array>();
  /** Names whose existence (or absence) is durable: path -> present. */
  private readonly durableNames = new Map<string, boolean>();

  list(dir: string): string[] {
    const prefix = dir === "" ? "" : `${dir}/`;
    const names = new Set<string>();
    for (const path of this.files.keys()) {
      if (!path.startsWith(prefix)) continue;
      const rest = path.slice(prefix.length);
      names.add(rest.split("/")[0] ?? rest);
    }
    return [...names].sort();
  }

  read(path: string): Uint8Array | null {
    const bytes = this.files.get(path);
    return bytes === undefined ? null : bytes.slice();
  }

  append(path: string, bytes: Uint8Array): void {
    const old = this.files.get(path) ?? new Uint8Array(0);
    const next = new Uint8Array(old.length + bytes.length);
    next.set(old, 0);
    next.set(bytes, old.length);
    this.files.set(path, next);
  }

  writeAt(path: string, offset: number, bytes: Uint8Array): void {
    const old = this.files.get(path);
    assert(old !== undefined, `writeAt of a missing file ${path}`);
    assert(Number.isSafeInteger(offset) && offset >= 0 && offset <= old.length, "no holes");
    const next = new Uint8Array(Math.max(old.length, offset + bytes.length));
    next.set(old, 0);
    next.set(bytes, offset);
    this.files.set(path, next);
  }

  write(path: string, bytes: Uint8Array): void {
    this.files.set(path, bytes.slice());
  }

  sync(path: string): void {
    const bytes = this.files.get(path);
    assert(bytes !== undefined, `sync of a missing file ${path}`);
    this.durableFiles.set(path, bytes.slice());
  }

  syncDir(dir: string): void {
    const prefix = dir === "" ? "" : `${dir}/`;
    const isChild = (path: string) =>
      path.startsWith(prefix) && !path.slice(prefix.length).includes("/");
    for (const path of this.files.keys()) if (isChild(path)) this.durableNames.set(path, true);
    for (const path of this.durableNames.keys()) {
      if (isChild(path) && !this.files.has(path)) this.durableNames.set(path, false);
    }
  }

  truncate(path: string, length: number): void {
    const bytes = this.files.get(path);
    assert(bytes !== undefined && length <= bytes.length, `bad truncate of ${path}`);
    this.files.set(path, bytes.slice(0, length));
  }

  rename(from: string, to: string): void {
    const bytes = this.files.get(from);
    assert(bytes !== undefined, `rename of a missing file ${from}`);
    this.files.delete(from);
    this.files.set(to, bytes);
    // A rename moves the inode: synced content travels with it.
    const durable = this.durableFiles.get(from);
    this.durableFiles.delete(from);
    if (durable === undefined) this.durableFiles.delete(to);
    else this.durableFiles.set(to, durable);
  }

  remove(path: string): void {
    for (const key of [...this.files.keys()]) {
      if (key === path || key.startsWith(`${path}/`)) this.files.delete(key);
    }
  }

  size(path: string): number | null {
    return this.files.get(path)?.length ?? null;
  }

  /**
   * Simulates power loss: each file keeps only its synced bytes, and a name survives only if a
   * syncDir recorded it (a file never synced at all is lost even then).
   */
  crash(): void {
    const survivors = new Map<string, Uint8Array>();
    for (const [path, present] of this.durableNames) {
      const durable = this.durableFiles.get(path);
      if (present && durable !== undefined) survivors.set(path, durable.slice());
    }
    this.files.clear();
    for (const [path, bytes] of survivors) this.files.set(path, bytes);
  }
}
