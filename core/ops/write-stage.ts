import type { Directory } from "../directory";
import type { Guid } from "../guid";
import type { ObjectRecord, Stage } from "../store/record";

/**
 * One lifecycle transition as an originating write: the existence atom takes the new stage
 * under a fresh stamp (delete, restore and shred share this); `attrs` may replace the value
 * atoms under the same USN (shred erases them, restore re-originates them). A record that
 * comes back alive is no longer a hardened skeleton, as a merged restore makes it
 * (core/merge/merge-record.ts): a restore lifts descendants of its delete that this node's GC
 * hardened when their own, older delete stamps aged out before the root's
 * (scenarios/regressions/restore-lifts-hardened-descendant.scn).
 */
export function writeStage(
  dir: Directory,
  record: ObjectRecord,
  change: {
    readonly stage: Stage;
    readonly deleteRoot: Guid | null;
    readonly atMs: number;
    readonly attrs?: (usn: number) => ObjectRecord["attrs"];
  },
): void {
  const usn = dir.allocateUsn();
  dir.write({
    ...record,
    existence: {
      ...record.existence,
      stage: change.stage,
      deleteRoot: change.deleteRoot,
      stamp: dir.stamp(record.existence.stamp, change.atMs, usn),
    },
    attrs: change.attrs === undefined ? record.attrs : change.attrs(usn),
    usnChanged: usn,
    hardened: record.hardened && change.stage !== "alive",
  });
}
