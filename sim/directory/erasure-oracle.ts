import type { DirectoryNode } from "../../core/node/directory-node";
import { decodeRecord } from "../../core/store/record-codec";
import { valuesErased } from "../../core/store/record";
import type { FileSystem } from "../../core/wal/fs-port";
import { snapDir, walDir } from "../../core/wal/generation-names";
import { forEachPutRange } from "../../core/wal/record-codec";
import { decodeUtf8Range } from "../../core/wal/utf8-range";

/**
 * Erasure, at the end of a run (DESIGN, "Where SPEC is silent": after a shred nothing of a
 * value survives in any live file under the data directory). A node that owes erasure debt
 * has the rotation that pays it armed (a boot after a crash that came between an erasure and
 * its rotation must arm it: nothing else would); what a rotation leaves is the KvStore's
 * contract, tested there (core/wal/kv-store.test.ts, snapshot-layout.test.ts). On a node
 * whose debt is paid, no valid record of any log or snapshot file holds a version with value
 * atoms of an object the node holds shredded or hardened: a node that never raised the debt
 * it owed fails here. The files are read as a boot reads them (valid records only: a torn
 * tail is zeroed at the next boot, before anything is written). Records the node purged
 * (`purged`, from the run's memory: the directory no longer names them) are judged too while
 * it holds them no more: a tombstone can be purged without ever hardening (GC first running
 * past the horizon), and then only the purge's own erasure clears its values from the files
 * (tombstone audit, twenty-sixth session: the oracle skipped them, so losing that erasure
 * passed).
 */
export function erasureViolations(
  simId: string,
  node: DirectoryNode,
  fs: FileSystem,
  erasure: { readonly debt: number; readonly armed: boolean },
  purged: ReadonlySet<string> = new Set(),
): string[] {
  const out: string[] = [];
  const keys = new Set<string>();
  for (const r of node.dir.store.all()) if (valuesErased(r)) keys.add(`o/${r.id}`);
  for (const id of purged) if (node.dir.get(id) === undefined) keys.add(`o/${id}`);
  if (erasure.debt > 0) {
    if (!erasure.armed) out.push(`${simId}: owes erasure debt ${erasure.debt} with no rotation armed to pay it`);
    return out;
  }
  if (keys.size === 0) return out;
  for (const dir of [walDir, snapDir]) {
    for (const name of fs.list(dir).sort()) {
      if (!name.endsWith(".log") && !name.endsWith(".snap")) continue;
      const path = `${dir}/${name}`;
      const bytes = fs.read(path);
      if (bytes === null) continue;
      forEachPutRange(bytes, (seq, key, start, end) => {
        if (!keys.has(key) || decodeRecord(decodeUtf8Range(bytes, start, end)).attrs.size === 0) return;
        out.push(`${simId}: ${path} record ${seq} holds value atoms of erased ${key.slice(2)}`);
      });
    }
  }
  return out;
}
