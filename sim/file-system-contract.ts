import { expect, it } from "vitest";
import type { FileSystem } from "../core/wal/fs-port";

/**
 * The FileSystem port's contract as a reusable suite (STYLE 21): the simulated disk and the
 * real storage adapter run the same cases. It covers what any implementation must do while
 * the machine stays up; crash behaviour is specific to the simulated disk.
 */
export function fileSystemContract(makeFs: () => FileSystem): void {
  const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
  const text = (data: Uint8Array | null): string | null =>
    data === null ? null : new TextDecoder().decode(data);

  it("append creates the file and parent dirs; read returns the whole content", () => {
    const fs = makeFs();
    expect(fs.read("wal/0001.log")).toBeNull();
    fs.append("wal/0001.log", bytes("ab"));
    fs.append("wal/0001.log", bytes("cd"));
    expect(text(fs.read("wal/0001.log"))).toBe("abcd");
    expect(fs.size("wal/0001.log")).toBe(4);
    expect(fs.size("wal/none")).toBeNull();
  });

  it("read returns a copy; the caller's buffers are not aliased", () => {
    const fs = makeFs();
    const input = bytes("xyz");
    fs.append("f", input);
    input[0] = 0;
    const out = fs.read("f");
    expect(text(out)).toBe("xyz");
    if (out !== null) out[1] = 0;
    expect(text(fs.read("f"))).toBe("xyz");
  });

  it("write replaces the whole content", () => {
    const fs = makeFs();
    fs.write("meta", bytes("long content"));
    fs.write("meta", bytes("short"));
    expect(text(fs.read("meta"))).toBe("short");
  });

  it("writeAt overwrites in place and extends at the end; a missing file throws", () => {
    const fs = makeFs();
    fs.write("wal/g.log", new Uint8Array(6));
    fs.writeAt("wal/g.log", 1, bytes("ab"));
    expect([...(fs.read("wal/g.log") ?? [])]).toEqual([0, 97, 98, 0, 0, 0]);
    fs.writeAt("wal/g.log", 5, bytes("cd"));
    expect([...(fs.read("wal/g.log") ?? [])]).toEqual([0, 97, 98, 0, 0, 99, 100]);
    fs.writeAt("wal/g.log", 7, bytes("e"));
    expect(fs.size("wal/g.log")).toBe(8);
    fs.sync("wal/g.log");
    fs.append("wal/g.log", bytes("f"));
    fs.writeAt("wal/g.log", 0, bytes("z"));
    expect(text(fs.read("wal/g.log"))?.slice(0, 1)).toBe("z");
    expect(fs.size("wal/g.log")).toBe(9);
    expect(() => fs.writeAt("wal/none", 0, bytes("x"))).toThrow();
  });

  it("list gives names directly inside a dir, sorted by code unit; [] when absent", () => {
    const fs = makeFs();
    for (const name of ["b", "a", "B", "sub/x", "sub/y/z", "é"]) {
      fs.append(`d/${name}`, bytes("."));
    }
    expect(fs.list("d")).toEqual(["B", "a", "b", "sub", "é"]);
    expect(fs.list("d/sub")).toEqual(["x", "y"]);
    expect(fs.list("nowhere")).toEqual([]);
  });

  it("truncate shortens (and pads with zeros when longer)", () => {
    const fs = makeFs();
    fs.append("f", bytes("abcdef"));
    fs.truncate("f", 2);
    expect(text(fs.read("f"))).toBe("ab");
    fs.truncate("f", 4);
    expect([...(fs.read("f") ?? [])]).toEqual([97, 98, 0, 0]);
    fs.append("f", bytes("z"));
    expect(fs.size("f")).toBe(5);
  });

  it("rename moves content and replaces an existing target", () => {
    const fs = makeFs();
    fs.write("a.tmp", bytes("new"));
    fs.write("a", bytes("old"));
    fs.rename("a.tmp", "a");
    expect(text(fs.read("a"))).toBe("new");
    expect(fs.read("a.tmp")).toBeNull();
    expect(fs.list("")).toEqual(["a"]);
  });

  it("remove deletes files and whole dirs, absent is fine; others throw on missing files", () => {
    const fs = makeFs();
    fs.append("f", bytes("x"));
    fs.remove("f");
    expect(fs.read("f")).toBeNull();
    fs.remove("f");
    fs.append("snap/gen-1/a", bytes("x"));
    fs.append("snap/gen-1/b/c", bytes("x"));
    fs.append("snap/gen-2/a", bytes("x"));
    fs.remove("snap/gen-1");
    expect(fs.list("snap")).toEqual(["gen-2"]);
    expect(() => fs.rename("f", "g")).toThrow();
    expect(() => fs.sync("f")).toThrow();
    expect(() => fs.truncate("f", 0)).toThrow();
  });

  it("sync and syncDir succeed on present files and dirs and change no content", () => {
    const fs = makeFs();
    fs.append("d/f", bytes("x"));
    fs.sync("d/f");
    fs.syncDir("d");
    fs.syncDir("");
    expect(text(fs.read("d/f"))).toBe("x");
  });
}
