import type { Directory } from "../directory";
import type { ObjectDelta } from "../merge/object-delta";
import type { ObjectRecord, ValueAtom } from "../store/record";
import type { PullBatch, PullRequest, UtdVector } from "./messages";
import { sendsNothing, wanted } from "./dampening";
import type { RetiredInvocation } from "./replication-state";

/**
 * The source side of a pull: enumerate records by local USN after the destination's
 * watermark, in bounded batches, sending only atoms changed after the watermark that the
 * destination's up-to-dateness vector does not already cover (propagation dampening). Cost
 * grows with the changes, not with the directory's size. `ownUtd` is asked only for the last
 * batch (the only one carrying the source's vector; building it costs O(vector)).
 */
export function enumerateChanges(
  dir: Directory,
  req: PullRequest,
  ownUtd: () => UtdVector,
  retired: readonly RetiredInvocation[] = [],
): PullBatch {
  const same = req.watermark !== null && continuesLocalHistory(dir, req.watermark, retired);
  const fromUsn = same ? (req.watermark?.usn ?? 0) : 0;
  const propUsn = same ? Math.min(req.watermark?.propUsn ?? 0, fromUsn) : 0;
  const limit = Math.max(1, req.objectsMax);
  const changed = dir.store.changedAfter(fromUsn, limit + 1);
  const more = changed.length > limit;
  const page = more ? changed.slice(0, limit) : changed;
  const deltas: ObjectDelta[] = [];
  for (const { id } of page) {
    const record = dir.get(id);
    if (record === undefined || sendsNothing(record, propUsn, req.utd)) continue;
    const delta = deltaOf(record, propUsn, req.utd);
    if (delta !== null) deltas.push(delta);
  }
  const last = page[page.length - 1];
  const highUsn = more && last !== undefined ? last.usn : Math.max(fromUsn, dir.usn);
  return {
    type: "batch",
    requestId: req.requestId,
    from: dir.nodeId,
    invocation: dir.invocationId,
    continued: same,
    deltas,
    highUsn,
    more,
    utd: more ? null : ownUtd(),
  };
}

/**
 * Whether a watermark still names a point of this node's local USN history. Every boot
 * re-mints the invocation, but the local USNs continue on the same store: a watermark taken
 * under a retired invocation at or below the USN the node held when it retired it marks the
 * same records it marked then (a disk rollback retires the invocation at the image's lower
 * USN, so a watermark from the forgotten future fails the test and the pull starts over from
 * 0, as it must: the node will reissue those USNs to new writes). Without this, each restart
 * of a node sent every partner's next pull through the whole directory.
 */
function continuesLocalHistory(
  dir: Directory,
  watermark: { invocation: string; usn: number },
  retired: readonly RetiredInvocation[],
): boolean {
  if (watermark.invocation === dir.invocationId) return true;
  let held: number | null = null;
  for (const r of retired) {
    if (r.invocation === watermark.invocation) held = held === null ? r.usn : Math.min(held, r.usn);
  }
  return held !== null && watermark.usn <= held;
}

function deltaOf(record: ObjectRecord, fromUsn: number, utd: UtdVector): ObjectDelta | null {
  const existence = wanted(record.existence.stamp, fromUsn, utd) ? record.existence : null;
  const placement = wanted(record.placement.stamp, fromUsn, utd) ? record.placement : null;
  const attrs: Array<readonly [string, ValueAtom[]]> = [];
  for (const [name, atoms] of record.attrs) {
    const list = [...atoms.values()].filter((a) => wanted(a.stamp, fromUsn, utd));
    if (list.length > 0) attrs.push([name, list]);
  }
  if (existence === null && placement === null && attrs.length === 0) return null;
  return { id: record.id, existence, placement, attrs };
}
