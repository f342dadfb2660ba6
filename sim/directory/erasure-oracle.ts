import type { DirectoryNode } from "../../core/node/directory-node";
import { decodeRecord } from "../../core/store/record-codec";
import type { ObjectRecord } from "../../core/store/record";
import { snapDir, walDir } from "../../core/wal/generation-names";
import { KvStore } from "../../core/wal/kv-store";
import { forEachPutRange } from "../../core/wal/record-codec";
import { decodeUtf8Range } from "../../core/wal/utf8-range";
import { SimFs } from "../sim-fs";

/** A record whose values are gone for good: shredded, or a hardened skeleton. */
function erased(r: ObjectRecord): boolean {
  return r.existence.stage === "shredded" || r.hardened;
}

/**
 * Erasure, at the end of a run (DESIGN, "Where SPEC is silent": after a shred nothing of a
 * value survives in any live file under the data directory). A node that owes erasure debt
 * has the rotation that pays it armed (a boot after a crash that came between an erasure and
 * its rotation must arm it: nothing else would). Its files are then judged as that rotation
 * will leave them: a copy of its disk, opened and rotated as the armed timer would. On a node
 * whose debt is paid (or on that copy), no valid record of any log or snapshot file holds a
 * version with value atoms of an object the node holds shredded or hardened: the files are
 * read as a boot reads them (valid records only: a torn tail is zeroed at the next boot,
 * before anything is written). Purged records are not judged: the directory no longer names
 * them (their values were erased when they hardened, judged while they were still held).
 */
export function erasureViolations(
  simId: string,
  node: DirectoryNode,
  disk: SimFs,
  erasure: { readonly debt: number; readonly armed: boolean },
): string[] {
  const keys = new Set<string>();
  for (const r of node.dir.store.all()) if (erased(r)) keys.add(`o/${r.id}`);
  if (erasure.debt > 0 && !erasure.armed) {
    return [`${simId}: owes erasure debt ${erasure.debt} with no rotation armed to pay it`];
  }
  if (keys.size === 0) return [];
  let fs = disk;
  let paid = "";
  if (erasure.debt > 0) {
    fs = new SimFs();
    fs.restore(disk.image());
    const { store } = KvStore.open(fs);
    store.rotate();
    if (store.erasureDebt > 0) return [`${simId}: a rotation did not pay erasure debt ${store.erasureDebt}`];
    paid = " (after the armed rotation)";
  }
  const out: string[] = [];
  for (const dir of [walDir, snapDir]) {
    for (const name of fs.list(dir).sort()) {
      if (!name.endsWith(".log") && !name.endsWith(".snap")) continue;
      const path = `${dir}/${name}`;
      const bytes = fs.read(path);
      if (bytes === null) continue;
      forEachPutRange(bytes, (seq, key, start, end) => {
        if (!keys.has(key) || decodeRecord(decodeUtf8Range(bytes, start, end)).attrs.size === 0) return;
        out.push(`${simId}: ${path} record ${seq} holds value atoms of erased ${key.slice(2)}${paid}`);
      });
    }
  }
  return out;
}
