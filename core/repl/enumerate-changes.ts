import type { Directory } from "../directory";
import type { ObjectDelta } from "../merge/object-delta";
import type { ObjectRecord, ValueAtom } from "../store/record";
import type { PullBatch, PullRequest, TravellingVector } from "./messages";
import { assert } from "../assert";
import { limits } from "../limits";
import { stampSummary, summarySendsNothing, wanted, type StampSummary } from "./dampening";
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
  ownUtd: () => TravellingVector,
  retired: readonly RetiredInvocation[] = [],
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
  for (let at = log.positionAfter(fromUsn); at < log.length; at++) {
    const id = log.idAt(at);
    if (id === null) continue;
    if (taken === limit || bytes >= bytesTarget) {
      more = true;
      break;
    }
    taken += 1;
    lastUsn = log.usnAt(at);
    // The summary noted at this position is of the very record version there (the log drops
    // a note when its entry changes); the record is looked up only when it sends something.
    let summary = log.noteAt(at) as StampSummary | undefined;
    let record: ObjectRecord | undefined;
    if (summary === undefined) {
      record = dir.get(id);
      assert(record !== undefined, `record ${id} of the change log is in the store`);
      summary = stampSummary(record);
      log.setNoteAt(at, summary);
    }
    if (summarySendsNothing(summary, propUsn, req.utd)) continue;
    record ??= dir.get(id);
    assert(record !== undefined, `record ${id} of the change log is in the store`);
    const delta = deltaOf(record, propUsn, req.utd);
    if (delta !== null) {
      deltas.push(delta);
      bytes += deltaBytes(delta);
    }
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

/**
 * A delta's size on the wire, estimated (limits.batchBytesTarget): its values, meta and names
 * in UTF-16 code units (ASCII text encodes to as many bytes; the estimate only has to tell a
 * batch of large values from one of small ones) and a fixed share per atom and object for
 * stamps, GUIDs and punctuation.
 */
export function deltaBytes(delta: ObjectDelta): number {
  let n = objectOverheadBytes + (delta.placement?.name.length ?? 0);
  for (const [name, atoms] of delta.attrs) {
    n += name.length;
    for (const atom of atoms) {
      n += atomOverheadBytes + (atom.value?.length ?? 0) + (atom.key?.length ?? 0);
      if (atom.meta !== null) {
        for (const key of Object.keys(atom.meta)) {
          n += key.length;
          for (const v of atom.meta[key] ?? []) n += v.length + 3;
        }
      }
    }
  }
  return n;
}

/** Estimated bytes of one atom beyond its text (stamp tuple: two GUIDs and four numbers). */
const atomOverheadBytes = 120;
/** Estimated bytes of one object beyond its atoms (id, existence, placement tuples). */
const objectOverheadBytes = 400;
const bytesTarget = limits.batchBytesTarget;

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
