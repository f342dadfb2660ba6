import type { DirectoryNode } from "../../core/node/directory-node";
import { decodeRecord } from "../../core/store/record-codec";
import type { ObjectRecord } from "../../core/store/record";
import type { FileSystem } from "../../core/wal/fs-port";
import { snapDir, walDir } from "../../core/wal/generation-names";
import { scanLog } from "../../core/wal/record-codec";

/** A record whose values are gone for good: shredded, or a hardened skeleton. */
function erased(r: ObjectRecord): boolean {
  return r.existence.stage === "shredded" || r.hardened;
}

/**
 * Erasure, at the end of a run (DESIGN, "Where SPEC is silent": after a shred nothing of a
 * value survives in any live file under the data directory). A node that owes erasure debt
 * has the rotation that pays it armed (a boot after a crash that came between an erasure and
 * its rotation must arm it: nothing else would). On a node whose debt is paid, no record of
 * any log or snapshot file on its disk holds a version with value atoms of an object the node
 * holds shredded or hardened: the files are read as a boot reads them (valid records only: a
 * torn tail is zeroed at the next boot, before anything is written). A node still owing debt
 * is not judged on its files. Purged records are not judged: the directory no longer names
 * them (their values were erased when they hardened, judged while they were still held).
 */
export function erasureViolations(
  simId: string,
  node: DirectoryNode,
  fs: FileSystem,
  erasure: { readonly debt: number; readonly armed: boolean },
): string[] {
  if (erasure.debt > 0) {
    return erasure.armed ? [] : [`${simId}: owes erasure debt ${erasure.debt} with no rotation armed to pay it`];
  }
  const keys = new Set<string>();
  for (const r of node.dir.store.all()) if (erased(r)) keys.add(`o/${r.id}`);
  if (keys.size === 0) return [];
  const out: string[] = [];
  for (const dir of [walDir, snapDir]) {
    for (const name of fs.list(dir).sort()) {
      if (!name.endsWith(".log") && !name.endsWith(".snap")) continue;
      const path = `${dir}/${name}`;
      const bytes = fs.read(path);
      if (bytes === null) continue;
      for (const record of scanLog(bytes).records) {
        for (const [key, value] of record.batch.puts) {
          if (!keys.has(key) || decodeRecord(value).attrs.size === 0) continue;
          out.push(`${simId}: ${path} record ${record.seq} holds value atoms of erased ${key.slice(2)}`);
        }
      }
    }
  }
  return out;
}
