import type { Directory } from "../directory";
import type { Guid } from "../guid";
import { msToTimestamp } from "../syntax";
import { effectiveStage } from "../view/aging";

export interface GcOutcome {
  /** Tombstones whose existence stamp is older than this wall time are purged. */
  readonly purgeHorizonMs: number;
  readonly hardened: number;
  readonly purged: number;
}

/**
 * Local garbage collection. Hardening is a local, unstamped compaction: a soft-deleted record
 * past the restore window drops its values and residue and can no longer be restored (its
 * stored stage stays `deleted`; its effectiveStage is `shredded`). Purging removes tombstones
 * older than the purge horizon (now - maxTimeApart) entirely.
 */
export function collectGarbage(dir: Directory, nowMs: number): GcOutcome {
  const { purgeAfterMs } = dir.replicationConfig();
  const purgeHorizonMs = nowMs - purgeAfterMs;
  let hardened = 0;
  const doomed: Guid[] = [];
  for (const record of dir.store.all()) {
    if (record.existence.stage === "alive") continue;
    if (record.existence.stamp.atMs < purgeHorizonMs) {
      doomed.push(record.id);
      continue;
    }
    const needsHardening =
      record.existence.stage === "deleted" &&
      !record.hardened &&
      effectiveStage(dir, record, nowMs) === "shredded";
    if (needsHardening) {
      dir.write({ ...record, attrs: new Map(), hardened: true });
      hardened += 1;
    }
  }
  for (const id of doomed.sort()) dir.purge(id);
  dir.refreshSchema();
  if (hardened + doomed.length > 0) {
    dir.journal.add(
      nowMs,
      "gc",
      `hardened ${hardened}, purged ${doomed.length}; purge horizon ${msToTimestamp(purgeHorizonMs)}`,
    );
  }
  return { purgeHorizonMs, hardened, purged: doomed.length };
}
