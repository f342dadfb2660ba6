import type { Directory } from "../directory";
import type { ObjectRecord, Stage } from "../store/record";
import type { StageObservation } from "./view-cache";

/**
 * Apply-time aging: a soft-deleted record past the restore window (timeUntilShred, counted
 * from its delete stamp's wall time) is effectively shredded, as is a hardened skeleton.
 * Aging is the only view input outside the atoms: it reads this node's own clock.
 */
export function effectiveStage(
  dir: Directory,
  record: ObjectRecord,
  nowMs: number,
  observed?: StageObservation[],
): Stage {
  const stage = record.existence.stage;
  if (stage !== "deleted") return stage;
  const aged = record.hardened ? "shredded" : agedStage(dir, record, nowMs);
  // A soft-deleted record's effective stage depends on the clock (and GC may harden it
  // without a USN): a cached rendering must check it again (view-cache.ts).
  observed?.push({ record, stage: aged });
  return aged;
}

function agedStage(dir: Directory, record: ObjectRecord, nowMs: number): Stage {
  const { restoreWindowMs } = dir.replicationConfig();
  return nowMs - record.existence.stamp.atMs > restoreWindowMs ? "shredded" : "deleted";
}

/** Whether every observed effective stage still holds for the stored records at `nowMs`. */
export function observationsHold(
  dir: Directory,
  observed: readonly StageObservation[],
  nowMs: number,
): boolean {
  for (const { record, stage } of observed) {
    if (dir.get(record.id) !== record) return false;
    if (effectiveStage(dir, record, nowMs) !== stage) return false;
  }
  return true;
}
