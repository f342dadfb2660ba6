// Goal: SimFs keeps the FileSystem port contract while up, and across a crash keeps exactly
// what a real disk may keep: synced bytes, dir entries after syncDir, torn prefixes of the
// last unsynced append; images restore older durable states; failNext injects EIO.
// Method: the shared contract suite, targeted crash cases over many crash seeds, and random
// operation sequences (fast-check) against a naive per-path model.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fileSystemContract } from "./file-system-contract";
import { Prng } from "./prng";
import { SimFs, SimFsError, type SimFsImage } from "./sim-fs";

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (data: Uint8Array | null): string | null =>
  data === null ? null : new TextDecoder().decode(data);
const noTear = { tornTail: false };
const zeros = (n: number): number[] => Array<number>(n).fill(0);

describe("SimFs: FileSystem contract", () => {
  fileSystemContract(() => new SimFs());
});

describe("SimFs: crash", () => {
  it("keeps synced bytes and loses unsynced ones", () => {
    const fs = new SimFs();
    fs.append("f", bytes("durable"));
    fs.sync("f");
    fs.syncDir("");
    fs.append("f", bytes("+volatile"));
    fs.crash(new Prng(1), noTear);
    expect(text(fs.read("f"))).toBe("durable");
  });

  it("a created file whose dir was never synced may vanish; after syncDir it stays", () => {
    const outcomes = new Set<string | null>();
    for (let seed = 0; seed < 40; seed++) {
      const fs = new SimFs();
      fs.append("wal/1.log", bytes("rec"));
      fs.sync("wal/1.log");
      fs.crash(new Prng(seed), noTear);
      outcomes.add(text(fs.read("wal/1.log")));
    }
    expect([...outcomes].sort()).toEqual(["rec", null].sort());
    for (let seed = 0; seed < 40; seed++) {
      const fs = new SimFs();
      fs.append("wal/1.log", bytes("rec"));
      fs.sync("wal/1.log");
      fs.syncDir("wal");
      fs.syncDir("");
      fs.crash(new Prng(seed), noTear);
      expect(text(fs.read("wal/1.log"))).toBe("rec");
    }
  });

  it("strict dirs: a new directory's entry needs syncDir of its parent", () => {
    const survived = (strictDirs: boolean): Set<boolean> => {
      const outcomes = new Set<boolean>();
      for (let seed = 0; seed < 40; seed++) {
        const fs = new SimFs({ strictDirs });
        fs.append("wal/1.log", bytes("rec"));
        fs.sync("wal/1.log");
        fs.syncDir("wal");
        fs.crash(new Prng(seed), noTear);
        outcomes.add(fs.read("wal/1.log") !== null);
        expect(fs.list("").length).toBe(fs.read("wal/1.log") === null ? 0 : 1);
      }
      return outcomes;
    };
    expect([...survived(true)].sort()).toEqual([false, true]);
    expect([...survived(false)]).toEqual([true]);
  });

  it("removing a directory is durable after syncDir of its parent", () => {
    for (let seed = 0; seed < 20; seed++) {
      const fs = new SimFs();
      fs.append("snap/g1/data", bytes("x"));
      fs.sync("snap/g1/data");
      fs.syncDir("snap/g1");
      fs.syncDir("snap");
      fs.syncDir("");
      fs.remove("snap/g1");
      fs.syncDir("snap");
      fs.crash(new Prng(seed), noTear);
      expect(fs.paths()).toEqual([]);
    }
  });

  it("rename is durable only after syncDir; either the old or the new state survives", () => {
    const seen = new Set<string>();
    for (let seed = 0; seed < 40; seed++) {
      const fs = new SimFs();
      fs.write("snap", bytes("v1"));
      fs.sync("snap");
      fs.syncDir("");
      fs.write("snap.tmp", bytes("v2"));
      fs.sync("snap.tmp");
      fs.rename("snap.tmp", "snap");
      fs.crash(new Prng(seed), noTear);
      seen.add(`${text(fs.read("snap"))}|${fs.list("").join(",")}`);
    }
    expect([...seen].sort()).toEqual(["v1|snap", "v2|snap"]);
    const fs = new SimFs();
    fs.write("snap.tmp", bytes("v2"));
    fs.sync("snap.tmp");
    fs.rename("snap.tmp", "snap");
    fs.syncDir("");
    fs.crash(new Prng(0), noTear);
    expect(text(fs.read("snap"))).toBe("v2");
  });

  it("an unsynced write over synced content reverts to the synced content", () => {
    const fs = new SimFs();
    fs.write("f", bytes("old"));
    fs.sync("f");
    fs.syncDir("");
    fs.write("f", bytes("newer"));
    fs.truncate("f", 1);
    fs.crash(new Prng(2));
    expect(text(fs.read("f"))).toBe("old");
  });

  it("a truncate below synced length then appends reverts exactly", () => {
    const fs = new SimFs();
    fs.append("f", bytes("abcdef"));
    fs.sync("f");
    fs.syncDir("");
    fs.truncate("f", 2);
    fs.append("f", bytes("XY"));
    expect(text(fs.read("f"))).toBe("abXY");
    fs.crash(new Prng(3));
    expect(text(fs.read("f"))).toBe("abcdef");
  });

  it("a torn tail keeps a prefix of the unsynced bytes of the last-appended file only", () => {
    const kept = new Set<string>();
    for (let seed = 0; seed < 200; seed++) {
      const fs = new SimFs();
      fs.append("other", bytes("o"));
      fs.append("log", bytes("AAAA"));
      fs.sync("log");
      fs.sync("other");
      fs.syncDir("");
      fs.append("other", bytes("lost"));
      fs.append("log", bytes("BBBB"));
      const report = fs.crash(new Prng(seed));
      const content = text(fs.read("log")) ?? "";
      expect("AAAABBBB".startsWith(content) && content.startsWith("AAAA")).toBe(true);
      expect(text(fs.read("other"))).toBe("o");
      expect(report.torn?.keptBytes ?? 0).toBe(content.length - 4);
      kept.add(content);
    }
    expect(kept.size).toBe(5);
  });

  it("unsynced in-place writes over synced zeros revert to the zeros", () => {
    const fs = new SimFs();
    fs.write("log", new Uint8Array(16));
    fs.sync("log");
    fs.syncDir("");
    fs.writeAt("log", 0, bytes("AAAA"));
    fs.sync("log");
    fs.writeAt("log", 4, bytes("BBBB"));
    fs.writeAt("log", 6, bytes("cc"));
    fs.writeAt("log", 14, bytes("DDDD"));
    expect(fs.image().files.get("log")).toEqual(Uint8Array.from([...bytes("AAAA"), ...zeros(12)]));
    fs.crash(new Prng(1), noTear);
    expect(fs.read("log")).toEqual(Uint8Array.from([...bytes("AAAA"), ...zeros(12)]));
  });

  it("in-place writes over zeros, mixed bytes and a large zero region all revert exactly", () => {
    const fs = new SimFs();
    const durable = new Uint8Array(200_000);
    durable.set(bytes("xy"), 10);
    fs.write("log", durable);
    fs.sync("log");
    fs.syncDir("");
    fs.writeAt("log", 8, bytes("12345678")); // over zeros, "xy", zeros
    fs.writeAt("log", 100, new Uint8Array(100_000).fill(7)); // over more zeros than are shared
    fs.writeAt("log", 0, bytes("ab")); // over zeros only
    fs.crash(new Prng(3), noTear);
    expect(fs.read("log")).toEqual(durable);
  });

  it("a torn crash keeps a prefix, in write order, of the last-written file's writes", () => {
    // Writes since the sync: BBBB at 4, cc at 6 (over two Bs), DDDD at 14 (extends by two).
    const after = (kept: number): string => {
      const out = [..."AAAA", ...Array<string>(12).fill("0")];
      const writes: [number, string][] = [[4, "BBBB"], [6, "cc"], [14, "DDDD"]];
      let left = kept;
      for (const [at, data] of writes) {
        for (const [i, ch] of [...data.slice(0, Math.max(0, left))].entries()) out[at + i] = ch;
        left -= data.length;
      }
      return out.join("");
    };
    const seen = new Set<string>();
    for (let seed = 0; seed < 300; seed++) {
      const fs = new SimFs();
      fs.write("log", Uint8Array.from([...bytes("AAAA"), ...zeros(12)]));
      fs.sync("log");
      fs.syncDir("");
      fs.writeAt("log", 4, bytes("BBBB"));
      fs.writeAt("log", 6, bytes("cc"));
      fs.writeAt("log", 14, bytes("DDDD"));
      const report = fs.crash(new Prng(seed));
      const kept = report.torn?.keptBytes ?? 0;
      const shown = (b: number): string => (b === 0 ? "0" : String.fromCharCode(b));
      const content = [...(fs.read("log") ?? [])].map(shown);
      expect(content.join("")).toBe(after(kept));
      seen.add(content.join(""));
    }
    // 0..10 bytes kept: every prefix happens.
    expect(seen.size).toBe(11);
  });

  it("after a crash the disk is consistent: the next crash changes nothing", () => {
    const fs = new SimFs();
    fs.append("a/x", bytes("1"));
    fs.append("b/y", bytes("2"));
    fs.sync("a/x");
    fs.crash(new Prng(5));
    const before = fs.image();
    fs.crash(new Prng(6));
    expect(fs.image()).toEqual(before);
    expect(fs.paths()).toEqual([...before.files.keys()]);
  });
});

describe("SimFs: images and faults", () => {
  it("image captures durable state only; restore rolls the disk back", () => {
    const fs = new SimFs();
    fs.append("f", bytes("one"));
    fs.sync("f");
    fs.syncDir("");
    fs.append("f", bytes("-unsynced"));
    const old = fs.image();
    expect(text(old.files.get("f") ?? null)).toBe("one");
    fs.sync("f");
    fs.append("g", bytes("new file"));
    fs.sync("g");
    fs.syncDir("");
    fs.restore(old);
    expect(fs.list("")).toEqual(["f"]);
    expect(text(fs.read("f"))).toBe("one");
    fs.append("f", bytes("!"));
    expect(text(old.files.get("f") ?? null)).toBe("one");
  });

  it("images and restored files share bytes copy-on-write: neither sees the other's changes", () => {
    const fs = new SimFs();
    fs.append("f", bytes("one"));
    fs.sync("f");
    fs.syncDir("");
    const image = fs.image();
    fs.writeAt("f", 0, bytes("ONE"));
    expect(text(image.files.get("f") ?? null)).toBe("one");
    fs.restore(image);
    fs.writeAt("f", 1, bytes("x"));
    fs.append("f", bytes("+"));
    expect(text(fs.read("f"))).toBe("oxe+");
    expect(text(image.files.get("f") ?? null)).toBe("one");
    // The same image restored again, and a crash that undoes unsynced writes in place.
    fs.restore(image);
    expect(text(fs.read("f"))).toBe("one");
    fs.writeAt("f", 0, bytes("z"));
    fs.crash(new Prng(2), { tornTail: false });
    expect(text(fs.read("f"))).toBe("one");
    expect(text(image.files.get("f") ?? null)).toBe("one");
  });

  it("overwriteWithZeros is a write of zeros: reverted by a crash before sync, durable after", () => {
    const fs = new SimFs();
    fs.append("a", bytes("secret"));
    fs.append("b", bytes("other!"));
    fs.sync("a");
    fs.sync("b");
    fs.syncDir("");
    fs.overwriteWithZeros("a");
    expect([...(fs.read("a") ?? [])]).toEqual([0, 0, 0, 0, 0, 0]);
    fs.crash(new Prng(3));
    expect(text(fs.read("a"))).toBe("secret");
    fs.overwriteWithZeros("a");
    fs.overwriteWithZeros("b");
    fs.sync("a");
    fs.crash(new Prng(4));
    expect([...(fs.read("a") ?? [])]).toEqual([0, 0, 0, 0, 0, 0]);
    expect(text(fs.read("b"))).toBe("other!");
    // Writing into an erased file does not change another erased file (the zeros are shared).
    fs.overwriteWithZeros("b");
    fs.writeAt("a", 0, bytes("A"));
    expect([...(fs.read("b") ?? [])]).toEqual([0, 0, 0, 0, 0, 0]);
    fs.failNext("write");
    expect(() => fs.overwriteWithZeros("a")).toThrow(SimFsError);
    expect(text(fs.read("a"))?.slice(0, 1)).toBe("A");
  });

  it("readView shows the bytes read copies, fails like read, and is absent for a missing file", () => {
    const fs = new SimFs();
    fs.append("f", bytes("abc"));
    fs.writeAt("f", 1, bytes("X"));
    expect(text(fs.readView("f"))).toBe(text(fs.read("f")));
    expect(text(fs.readView("f"))).toBe("aXc");
    expect(fs.readView("missing")).toBeNull();
    fs.failNext("read");
    expect(() => fs.readView("f")).toThrow(SimFsError);
    expect(text(fs.readView("f"))).toBe("aXc");
  });

  it("failNext throws EIO once without effect, then operations succeed", () => {
    const fs = new SimFs();
    fs.failNext("append");
    expect(() => fs.append("f", bytes("x"))).toThrow(SimFsError);
    expect(fs.read("f")).toBeNull();
    fs.append("f", bytes("x"));
    fs.failNext("sync", 2);
    for (let i = 0; i < 2; i++) {
      try {
        fs.sync("f");
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(SimFsError);
        expect((error as SimFsError).code).toBe("EIO");
      }
    }
    fs.sync("f");
    expect(fs.stats.syncs).toBe(1);
  });

  it("armError fails the N-th counted mutating call once, without effect, and the disk works on", () => {
    const fs = new SimFs();
    fs.append("wal/log", bytes("a"));
    fs.sync("wal/log");
    // Count only calls outside wal/: the log's append is not the 2nd call, the snapshot's sync is.
    fs.armError({ afterWrites: 2, counts: (_op, path) => !path.startsWith("wal/") });
    expect(fs.errorArmed).toBe(true);
    fs.write("snap/s", bytes("snapshot"));
    fs.append("wal/log", bytes("b"));
    expect(() => fs.sync("snap/s")).toThrow(SimFsError);
    expect(fs.errorArmed).toBe(false);
    expect(fs.takeDiskError()).toEqual({ op: "sync", path: "snap/s" });
    expect(fs.takeDiskError()).toBeNull();
    // Unlike a power cut nothing was lost: the unsynced writes are there, and later calls work.
    expect(fs.powerCut).toBeNull();
    expect(text(fs.read("snap/s"))).toBe("snapshot");
    expect(text(fs.read("wal/log"))).toBe("ab");
    fs.sync("snap/s");
    fs.sync("wal/log");
    for (const dir of ["snap", "wal", ""]) fs.syncDir(dir);
    // A crash now keeps everything: every write was synced after the error.
    fs.crash(new Prng("t"), { tornTail: false });
    expect(text(fs.read("snap/s"))).toBe("snapshot");
    expect(text(fs.read("wal/log"))).toBe("ab");
    fs.armError({ afterWrites: 1 });
    fs.disarmError();
    fs.append("wal/log", bytes("c"));
    expect(fs.takeDiskError()).toBeNull();
  });

  it("refuses a file under a file and a file over a directory", () => {
    const fs = new SimFs();
    fs.append("a/b", bytes("x"));
    expect(() => fs.append("a", bytes("y"))).toThrow(/EISDIR/);
    expect(() => fs.append("a/b/c", bytes("y"))).toThrow(/ENOTDIR/);
    expect(text(fs.read("./a//b"))).toBe("x");
  });
});

describe("SimFs: power cut inside writes", () => {
  /** A commit as the WAL makes one: append, then sync. */
  const commit = (fs: SimFs, record: string): void => {
    fs.append("wal/1.log", bytes(record));
    fs.sync("wal/1.log");
  };
  const durableStart = (): SimFs => {
    const fs = new SimFs();
    commit(fs, "a");
    fs.syncDir("wal");
    fs.syncDir("");
    return fs;
  };

  it("strikes just before the armed mutating call; reads before it do not count", () => {
    const fs = durableStart();
    fs.armPowerCut({ afterWrites: 2, tornTail: false, prng: new Prng(1) });
    expect(fs.powerCutArmed).toBe(true);
    expect(text(fs.read("wal/1.log"))).toBe("a");
    expect(fs.list("wal")).toEqual(["1.log"]);
    fs.append("wal/1.log", bytes("b")); // call 1 runs
    expect(() => fs.sync("wal/1.log")).toThrow(SimFsError); // call 2: the power is cut first
    expect(fs.powerCutArmed).toBe(false);
    expect(fs.powerCut).toMatchObject({ op: "sync", path: "wal/1.log", torn: null });
    // The dead process's later calls fail, reads too, and change nothing.
    expect(() => fs.read("wal/1.log")).toThrow(SimFsError);
    expect(() => commit(fs, "c")).toThrow(SimFsError);
    fs.clearPowerCut();
    expect(fs.powerCut).toBeNull();
    expect(text(fs.read("wal/1.log"))).toBe("a"); // the unsynced "b" went with the power
  });

  it("a torn cut keeps a prefix of the unsynced appends, in some seeds all or none of them", () => {
    const kept = new Set<string | null>();
    for (let seed = 0; seed < 40; seed++) {
      const fs = durableStart();
      fs.armPowerCut({ afterWrites: 3, tornTail: true, prng: new Prng(seed) });
      fs.append("wal/1.log", bytes("bc"));
      fs.append("wal/1.log", bytes("de"));
      expect(() => fs.sync("wal/1.log")).toThrow(SimFsError);
      const torn = fs.powerCut?.torn ?? null;
      fs.clearPowerCut();
      const now = text(fs.read("wal/1.log"));
      expect("abcde".startsWith(now ?? "?")).toBe(true);
      expect(torn === null ? 0 : torn.keptBytes).toBe((now?.length ?? 1) - 1);
      kept.add(now);
    }
    expect(kept.has("a")).toBe(true);
    expect([...kept].some((k) => k !== null && k.length > 1)).toBe(true);
  });

  it("a kept cut keeps every unsynced write of the last-written file, whatever the seed", () => {
    for (let seed = 0; seed < 20; seed++) {
      const fs = durableStart();
      fs.armPowerCut({ afterWrites: 3, tornTail: true, keepUnsynced: true, prng: new Prng(seed) });
      fs.append("wal/1.log", bytes("bc"));
      fs.append("wal/1.log", bytes("de"));
      expect(() => fs.sync("wal/1.log")).toThrow(SimFsError);
      expect(fs.powerCut?.torn).toEqual({ path: "wal/1.log", keptBytes: 4 });
      fs.clearPowerCut();
      // The sync never returned, yet the bytes reached the disk: the commit is durable.
      expect(text(fs.read("wal/1.log"))).toBe("abcde");
    }
  });

  it("a synced commit before the cut survives it; a rename not yet made durable may not", () => {
    const outcomes = new Set<string>();
    for (let seed = 0; seed < 40; seed++) {
      const fs = durableStart();
      fs.armPowerCut({ afterWrites: 5, tornTail: false, prng: new Prng(seed) });
      commit(fs, "b"); // calls 1-2
      fs.write("snap/tmp", bytes("s")); // 3
      fs.sync("snap/tmp"); // 4
      expect(() => fs.rename("snap/tmp", "snap/1.snap")).toThrow(SimFsError); // 5: never ran
      fs.clearPowerCut();
      expect(text(fs.read("wal/1.log"))).toBe("ab");
      expect(fs.read("snap/1.snap")).toBeNull();
      outcomes.add(fs.paths().join(","));
    }
    // snap/ was never made durable in its parent: its file may be gone with it.
    expect(outcomes).toEqual(new Set(["wal/1.log", "snap/tmp,wal/1.log"]));
  });

  it("a cut that counts only some calls strikes before the k-th of those", () => {
    const fs = durableStart();
    const notLog = (_op: string, path: string): boolean => !path.startsWith("wal/");
    fs.armPowerCut({ afterWrites: 2, tornTail: false, prng: new Prng(1), counts: notLog });
    for (const record of ["b", "c", "d"]) commit(fs, record); // six calls, none counted
    fs.write("snap/tmp", bytes("s")); // counted: 1
    expect(() => fs.sync("snap/tmp")).toThrow(SimFsError); // counted: 2, never runs
    expect(fs.powerCut).toMatchObject({ op: "sync", path: "snap/tmp" });
    fs.clearPowerCut();
    expect(text(fs.read("wal/1.log"))).toBe("abcd");
  });

  it("clearPowerCut disarms a cut that has not struck", () => {
    const fs = durableStart();
    fs.armPowerCut({ afterWrites: 1, tornTail: false, prng: new Prng(1) });
    fs.clearPowerCut();
    commit(fs, "b");
    expect(fs.powerCut).toBeNull();
    expect(text(fs.read("wal/1.log"))).toBe("ab");
  });
});

describe("SimFs: against a naive model", () => {
  // Files only at these paths, so no file ever sits where a directory is.
  const paths = ["a", "b", "d/a", "d/b", "d/e/a"];
  const op = fc.oneof(
    fc.record({ kind: fc.constant("append" as const), p: fc.nat(4), n: fc.nat(5) }),
    fc.record({ kind: fc.constant("write" as const), p: fc.nat(4), n: fc.nat(5) }),
    fc.record({ kind: fc.constant("writeAt" as const), p: fc.nat(4), n: fc.nat(8) }),
    fc.record({ kind: fc.constant("truncate" as const), p: fc.nat(4), n: fc.nat(8) }),
    fc.record({ kind: fc.constant("rename" as const), p: fc.nat(4), n: fc.nat(4) }),
    fc.record({ kind: fc.constant("remove" as const), p: fc.nat(4), n: fc.constant(0) }),
    fc.record({ kind: fc.constant("sync" as const), p: fc.nat(4), n: fc.constant(0) }),
  );
  interface ModelFile {
    content: number[];
    synced: number[];
  }

  it("reads, sizes, lists match the model; all dirs synced, a crash keeps synced bytes", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), fc.boolean(), (ops, strictDirs) => {
        const fs = new SimFs({ strictDirs });
        const model = new Map<string, ModelFile>();
        let stamp = 0;
        for (const o of ops) {
          const p = paths[o.p] as string;
          const file = model.get(p);
          const fresh = Array.from({ length: o.n }, () => stamp++ % 256);
          if (o.kind === "append") {
            fs.append(p, Uint8Array.from(fresh));
            if (file) file.content.push(...fresh);
            else model.set(p, { content: fresh, synced: [] });
          } else if (o.kind === "write") {
            fs.write(p, Uint8Array.from(fresh));
            if (file) file.content = fresh;
            else model.set(p, { content: fresh, synced: [] });
          } else if (file === undefined) {
            if (o.kind !== "remove") continue;
            fs.remove(p);
          } else if (o.kind === "writeAt") {
            // n picks the offset (at most the length) and the length (1..3).
            const at = Math.min(o.n, file.content.length);
            const data = fresh.slice(0, 1 + (o.n % 3));
            while (data.length < 1 + (o.n % 3)) data.push(stamp++ % 256);
            fs.writeAt(p, at, Uint8Array.from(data));
            file.content.splice(at, data.length, ...data);
          } else if (o.kind === "truncate") {
            fs.truncate(p, o.n);
            file.content = Array.from({ length: o.n }, (_, i) => file.content[i] ?? 0);
          } else if (o.kind === "rename") {
            const q = paths[o.n] as string;
            fs.rename(p, q);
            model.delete(p);
            model.set(q, file);
          } else if (o.kind === "remove") {
            fs.remove(p);
            model.delete(p);
          } else {
            fs.sync(p);
            file.synced = [...file.content];
          }
          for (const path of paths) {
            expect([...(fs.read(path) ?? [])]).toEqual(model.get(path)?.content ?? []);
            expect(fs.size(path)).toBe(model.get(path)?.content.length ?? null);
          }
        }
        const names = (dir: string): string[] => {
          const inside = [...model.keys()].filter((k) => k.startsWith(dir));
          return [...new Set(inside.map((k) => k.slice(dir.length).split("/")[0] ?? ""))].sort();
        };
        expect(fs.list("")).toEqual(names(""));
        expect(fs.list("d")).toEqual(names("d/"));
        for (const dir of ["d/e", "d", ""]) fs.syncDir(dir);
        fs.crash(new Prng(ops.length), { tornTail: false });
        expect(fs.paths()).toEqual([...model.keys()].sort());
        for (const [path, file] of model) expect([...(fs.read(path) ?? [])]).toEqual(file.synced);
      }),
      { numRuns: 300 },
    );
  });
});

describe("SimFs: shared and reused buffers against a naive model", () => {
  // Sizes past the reuse threshold, two disks drawing on the same spare buffers, images,
  // restores, erasures and crashes: copy on write and buffer reuse must never show.
  const paths = ["a", "b", "c"];
  const op = fc.record({
    disk: fc.nat(1),
    kind: fc.constantFrom(
      "append",
      "write",
      "writeAt",
      "truncate",
      "sync",
      "zeros",
      "image",
      "restore",
      "crash",
      "remove",
      "syncDir",
    ),
    p: fc.nat(2),
    n: fc.nat(20_000),
    k: fc.nat(2),
  });
  interface Disk {
    fs: SimFs;
    files: Map<string, { content: Uint8Array; synced: Uint8Array }>;
    /** The names as of the last syncDir (the same file objects as `files` where both hold one). */
    durable: Map<string, { content: Uint8Array; synced: Uint8Array }>;
    images: Map<number, { image: SimFsImage; files: Map<string, Uint8Array> }>;
  }

  const big = (byte: number, n: number): Uint8Array => new Uint8Array(n).fill(byte);
  /** A disk whose file f (8 KiB of sevens) is durable, and its image. */
  const imagedDisk = (): { fs: SimFs; image: SimFsImage } => {
    const fs = new SimFs();
    fs.write("f", big(7, 8192));
    fs.sync("f");
    fs.syncDir("");
    return { fs, image: fs.image() };
  };

  it("a buffer an image shares is never reused, though the file replaced it and synced", () => {
    const { fs, image } = imagedDisk();
    fs.write("f", big(8, 8192));
    fs.overwriteWithZeros("f");
    fs.sync("f");
    // Growth and whole-file writes elsewhere now draw on the spare buffers.
    for (let i = 0; i < 4; i++) {
      fs.write(`g${i}`, big(9, 8000));
      fs.append(`h${i}`, big(10, 5000));
      fs.append(`h${i}`, big(11, 5000));
    }
    expect(image.files.get("f")).toEqual(big(7, 8192));
  });

  it("a disk restored again leaves the image it was restored from intact, and reuses what it dropped", () => {
    const { fs, image } = imagedDisk();
    const other = new SimFs();
    fs.restore(image);
    // The restored file shares the image's buffer; this restore drops it without giving it.
    fs.restore(image);
    // Unsynced names a crash loses, and a durable removal, drop their files' buffers.
    fs.write("g", big(8, 8192));
    fs.sync("g");
    other.append("h", big(9, 6000));
    other.sync("h");
    other.syncDir("");
    other.remove("h");
    other.syncDir("");
    fs.crash(new Prng(1), { tornTail: false });
    for (let i = 0; i < 6; i++) other.append(`k${i}`, big(10 + i, 6000));
    expect(image.files.get("f")).toEqual(big(7, 8192));
    expect(fs.read("f")).toEqual(big(7, 8192));
    for (let i = 0; i < 6; i++) expect(other.read(`k${i}`)).toEqual(big(10 + i, 6000));
  });

  it("what every disk and image holds matches the model", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        let stamp = 1;
        const fresh = (n: number): Uint8Array => Uint8Array.from({ length: n }, () => (stamp++ % 255) + 1);
        const concat = (a: Uint8Array, b: Uint8Array): Uint8Array => {
          const out = new Uint8Array(a.length + b.length);
          out.set(a);
          out.set(b, a.length);
          return out;
        };
        const disks: Disk[] = [0, 1].map(() => ({ fs: new SimFs(), files: new Map(), durable: new Map(), images: new Map() }));
        // k = 0: a name created or removed stays volatile until a later syncDir (a crash may
        // lose it, and the simulator's disk recycles the buffers of files it drops).
        const syncDirUnless = (d: Disk, k: number): void => {
          if (k === 0) return;
          d.fs.syncDir("");
          d.durable = new Map(d.files);
        };
        for (const o of ops) {
          const d = disks[o.disk]!;
          const p = paths[o.p]!;
          const file = d.files.get(p);
          if (o.kind === "append" || (o.kind === "write" && file === undefined)) {
            const data = fresh(o.n);
            if (o.kind === "append") d.fs.append(p, data);
            else d.fs.write(p, data);
            if (file === undefined) d.files.set(p, { content: data, synced: new Uint8Array(0) });
            else file.content = concat(file.content, data);
            syncDirUnless(d, o.k);
          } else if (o.kind === "write" && file !== undefined) {
            const data = fresh(o.n);
            d.fs.write(p, data);
            file.content = data;
          } else if (o.kind === "image") {
            const files = new Map([...d.durable].map(([q, f]) => [q, f.synced.slice()] as const));
            d.images.set(o.k, { image: d.fs.image(), files });
          } else if (o.kind === "restore") {
            const held = d.images.get(o.k);
            if (held === undefined) continue;
            d.fs.restore(held.image);
            d.files = new Map([...held.files].map(([q, b]) => [q, { content: b.slice(), synced: b.slice() }]));
            d.durable = new Map(d.files);
          } else if (o.kind === "crash") {
            const report = d.fs.crash(new Prng(o.n), { tornTail: false });
            if (report.lostDirs.includes("")) d.files = new Map(d.durable);
            else d.durable = new Map(d.files);
            for (const f of d.files.values()) f.content = f.synced.slice();
          } else if (o.kind === "syncDir") {
            syncDirUnless(d, 1);
          } else if (file === undefined) {
            continue;
          } else if (o.kind === "writeAt") {
            const at = o.n % (file.content.length + 1);
            const data = fresh(1 + (o.n % 5000));
            d.fs.writeAt(p, at, data);
            const grown = new Uint8Array(Math.max(file.content.length, at + data.length));
            grown.set(file.content);
            grown.set(data, at);
            file.content = grown;
          } else if (o.kind === "truncate") {
            d.fs.truncate(p, o.n);
            const cut = new Uint8Array(o.n);
            cut.set(file.content.subarray(0, Math.min(o.n, file.content.length)));
            file.content = cut;
          } else if (o.kind === "sync") {
            d.fs.sync(p);
            file.synced = file.content.slice();
          } else if (o.kind === "zeros") {
            d.fs.overwriteWithZeros(p);
            file.content = new Uint8Array(file.content.length);
          } else {
            d.fs.remove(p);
            d.files.delete(p);
            syncDirUnless(d, o.k);
          }
          for (const disk of disks) {
            for (const q of paths) {
              expect(disk.fs.read(q)).toEqual(disk.files.get(q)?.content ?? null);
            }
            for (const held of disk.images.values()) {
              expect(new Map(held.image.files)).toEqual(held.files);
            }
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
