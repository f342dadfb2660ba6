import type { Directory } from "../directory";
import type { ObjectRecord, Stage } from "../store/record";

/**
 * Apply-time aging: a soft-deleted record past the restore window (timeUntilShred, counted
 * from its delete stamp's wall time) is effectively shredded, as is a hardened skeleton.
 * Aging is the only view input outside the atoms: it reads this node's own clock.
 */
export function effectiveStage(dir: Directory, record: ObjectRecord, nowMs: number): Stage {
  const stage = record.existence.stage;
  if (stage !== "deleted") return stage;
  if (record.hardened) return "shredded";
  const { restoreWindowMs } = dir.replicationConfig();
  return nowMs - record.existence.stamp.atMs > restoreWindowMs ? "shredded" : "deleted";
}
