import type { ObjectDelta } from "../merge/object-delta";
import type { ObjectRecord, ValueAtom } from "../store/record";
import type { AtomCursor, PullBatch, PullRequest, TravellingVector } from "./messages";
import { assert } from "../assert";
import { definitionClasses, type Directory } from "../directory";
import { limits } from "../limits";
import { stampSummary, summarySendsNothing, wanted, type StampSummary } from "./dampening";
import type { RetiredInvocation } from "./replication-state";
import { deltaBytes, deltaPart } from "./split-delta";

/**
 * The source side of a pull: enumerate records by local USN after the destination's
 * watermark, in bounded batches, sending only atoms changed after the watermark that the
 * destination's up-to-dateness vector does not already cover (propagation dampening). Cost
 * grows with the changes, not with the directory's size. `ownUtd` is asked only for the last
 * batch (the only one carrying the source's vector; building it costs O(vector)).
 *
 * A batch takes objects while its bytes are below `bytesTarget`, so its last object may take
 * it past the target by that object's size, up to twice the target; an object that alone
 * comes to more than the target is sent in parts instead, a batch ending inside it
 * (split-delta.ts), so that no message grows with the size of an object.
 */
export function enumerateChanges(
  dir: Directory,
  req: PullRequest,
  ownUtd: () => TravellingVector,
  retired: readonly RetiredInvocation[] = [],
  bytesTarget: number = limits.batchBytesTarget,
): PullBatch {
  const resume = req.watermark === null ? null : resumePoint(dir, req.watermark, retired);
  // `same`: the watermark marks a point of this node's history, and enumeration continues
  // there with the request's atom filter. Otherwise it starts earlier (the fork point of a
  // forgotten future, or zero) and filters atoms by the vector alone.
  const same = resume !== null && resume === req.watermark?.usn;
  const fromUsn = resume ?? 0;
  const propUsn = same ? Math.min(req.watermark?.propUsn ?? 0, fromUsn) : 0;
  const limit = Math.max(1, req.objectsMax);
  const log = dir.store.changeLog();
  const deltas: ObjectDelta[] = [];
  let taken = 0;
  let bytes = 0;
  let lastUsn = fromUsn;
  let more = false;
  // The object the request's last batch stopped inside. Only under the current invocation:
  // a USN names one version of one object for as long as the invocation lives, but a node
  // rolled back to an image reissues the USNs above it to new writes, and a cursor from its
  // forgotten future, applied to whatever now sits at its USN, skipped the creation atoms of
  // another object (regressions/cursor-under-retired-invocation-scripted). Under a retired
  // invocation the object is sent from its start (at worst again).
  let resumeInside = same && req.watermark?.invocation === dir.invocationId ? (req.watermark.within ?? null) : null;
  let within: AtomCursor | null = null;
  for (let at = log.positionAfter(fromUsn); at < log.length; at++) {
    const id = log.idAt(at);
    if (id === null) continue;
    if (taken === limit || bytes >= bytesTarget) {
      more = true;
      break;
    }
    taken += 1;
    const usn = log.usnAt(at);
    const inside = resumeInside;
    resumeInside = null;
    let record: ObjectRecord | undefined;
    let from: "start" | AtomCursor["next"] = "start";
    if (inside !== null && usn === inside.usn) {
      // The same version of the object (a change moves it to a new USN, ahead in the log,
      // from where it is sent whole): go on where the last part stopped.
      from = inside.next;
    } else {
      // The summary noted at this position is of the very record version there (the log
      // drops a note when its entry changes); the record is looked up only when it sends
      // something.
      let summary = log.noteAt(at) as StampSummary | undefined;
      if (summary === undefined) {
        record = dir.get(id);
        assert(record !== undefined, `record ${id} of the change log is in the store`);
        summary = stampSummary(record);
        log.setNoteAt(at, summary);
      }
      if (summarySendsNothing(summary, propUsn, req.utd)) {
        lastUsn = usn;
        continue;
      }
      record ??= dir.get(id);
      assert(record !== undefined, `record ${id} of the change log is in the store`);
      const [filterUsn, filterUtd] = atomFilter(record, propUsn, req.utd);
      const delta = deltaOf(record, filterUsn, filterUtd);
      const size = delta === null ? 0 : deltaBytes(delta);
      // A schema definition always goes whole: a receiver compiles the definitions it holds,
      // and one missing its later attributes would compile with their defaults meanwhile.
      if (size <= bytesTarget || definitionClasses.has(record.existence.className)) {
        if (delta !== null) {
          deltas.push(delta);
          bytes += size;
        }
        lastUsn = usn;
        continue;
      }
    }
    // Too large for a batch of its own (or resumed inside): this batch takes what fits of it,
    // and the next ones the rest.
    record ??= dir.get(id);
    assert(record !== undefined, `record ${id} of the change log is in the store`);
    const [filterUsn, filterUtd] = atomFilter(record, propUsn, req.utd);
    const part = deltaPart(record, filterUsn, filterUtd, from, bytes, bytesTarget);
    if (part.delta !== null) deltas.push(part.delta);
    bytes += part.bytes;
    if (part.next !== null) {
      within = { usn, next: part.next };
      more = true;
      break;
    }
    lastUsn = usn;
  }
  const highUsn = more ? lastUsn : Math.max(fromUsn, dir.usn);
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
    ...(within === null ? {} : { within }),
  };
}

/**
 * Where this node's local USN history resumes for a watermark, or null when nothing of it is
 * known to be shared (enumerate from zero). Every boot re-mints the invocation, but the local
 * USNs continue on the same store: a watermark taken under a retired invocation at or below
 * the USN the node held when it retired it marks the same records it marked then. One beyond
 * that USN comes from a forgotten future (a disk rollback, or a crash that lost the tail of
 * the log, retires the invocation at the lower USN the disk held, and the node reissues the
 * USNs above it to new writes): the histories share everything up to the retirement USN, so
 * enumeration resumes there. Records the partner saw in the forgotten future and this node no
 * longer has are the partner's to keep (merge ignores the older versions this node holds).
 * Without this, each restart of a node sent every partner's next pull through the whole
 * directory, and so did every rollback (DESIGN: cost grows with changes, not directory size).
 * An invocation retired holding nothing (usn 0: one this node never knew, minted after the
 * image it was restored from, learned from a partner's vector) still resumes at zero.
 */
function resumePoint(
  dir: Directory,
  watermark: { invocation: string; usn: number; propUsn: number },
  retired: readonly RetiredInvocation[],
): number | null {
  if (watermark.invocation === dir.invocationId) return watermark.usn;
  let held: number | null = null;
  for (const r of retired) {
    if (r.invocation === watermark.invocation) held = held === null ? r.usn : Math.min(held, r.usn);
  }
  if (held === null || held === 0) return null;
  // A continuation (a pull cycle's next batch, `propUsn` < `usn`) under an invocation this
  // node has retired since resumes at the cycle's start. Up to `held` the histories allocated
  // the same USNs, but not every record sits where it did when the partner walked: one that
  // moved past the partner's position before it got there, in a future this node then lost
  // (a rollback or a torn tail), is back at or below that position. A completed cycle saw
  // every move up to its end, so for a stored watermark (`propUsn` = `usn`) this is
  // min(usn, held) as before.
  return Math.min(held, watermark.propUsn);
}

/** A filter that wants every atom: no watermark, an empty vector. */
const everyAtom: readonly [number, TravellingVector] = [-1, { entries: {}, own: ["", { usn: -1, node: "", epoch: 0 }] }];

/**
 * The atom filter for one record. A record past its first delete (existence version 3 on: a
 * restore, and whatever follows it, a delete or a shred; made or merged here) whose existence
 * the destination lacks goes out whole. A restore re-originates existence and values but not
 * placement or the creation's atoms, and a destination whose GC purged the tombstone meanwhile
 * (the restore made inside its window on a node it stayed apart from for more than half of
 * maxTimeApart) holds nothing else of the object: it got an existence without a placement,
 * refused the record (an unknown object without creation atoms), and the two never agreed
 * again (regressions/late-restore-after-purge-scripted; deleted or shredded again before it
 * arrived, the same: late-redelete-after-purge-scripted). A destination that still holds the
 * record merges the old atoms again, which changes nothing. Restores are rare; a whole record
 * per restore (and per later delete or shred) per hop is their price.
 */
function atomFilter(record: ObjectRecord, fromUsn: number, utd: TravellingVector): readonly [number, TravellingVector] {
  const existence = record.existence;
  if (existence.stamp.version > 2 && wanted(existence.stamp, fromUsn, utd)) return everyAtom;
  return [fromUsn, utd];
}

function deltaOf(record: ObjectRecord, fromUsn: number, utd: TravellingVector): ObjectDelta | null {
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
