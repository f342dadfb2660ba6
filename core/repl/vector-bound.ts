import type { Guid } from "../guid";
import type { UtdEntry, Watermark } from "./replication-state";

/** How many of one node's entries a vector keeps in any case: the newest by epoch. */
export const newestEntriesKept = 4;

/**
 * The up-to-dateness vector without the entries it need not keep, so that it stays a few
 * entries per node instead of gaining one per boot of every node for ever (every boot
 * re-mints the invocation). Returns `utd` itself when nothing goes.
 *
 * An entry does two jobs. It dampens propagation: a dropped entry only lets partners send
 * again atoms this node holds (merge is idempotent). And it is rollback evidence: a node shown
 * an entry of its own that it does not know, or beyond what it holds, learns it was restored
 * to an older image. Only the node's direct partners can show it anything (a vector reaches a
 * node only in the requests of the nodes that pull from it), so only their entries need to
 * last as evidence. Of every node the vector keeps the `newestEntriesKept` newest entries by
 * epoch (equal epochs, which only a restored node's re-mints make, by invocation): they dampen
 * the atoms still travelling. Beyond those:
 * - Of a node this node pulls from (it holds a watermark for it), the entries whose epoch is
 *   at or above the watermark's `floor`, the node's epoch at the completed pull before the
 *   last, however many. The node's epochs rise with every re-mint along one history, so
 *   entries below are of invocations that node already held then, and every request since
 *   showed this vector to it. A node restored to an image older than the floor meets, in this
 *   node's next request, the entry at the floor (an invocation minted after its image), or at
 *   an epoch above the image the entries its lost future left: none of them is ever dropped
 *   before that request. The floor trails one completed pull, so an entry that arrives from a
 *   third node during a cycle is still shown in the next cycle's request before it can go.
 * - Of any other node, and of this node's own retired invocations (the rollback check reads
 *   the retired list, not the vector), nothing more.
 * Raising floors only on pulls from the node itself, never on entries relayed by third
 * nodes, is what keeps a restored node's new invocations, relayed by a third node, from
 * pushing its lost future out of a direct partner's vector before that partner showed it: the
 * newest entries alone would not.
 */
export function boundVector(
  utd: Readonly<Record<Guid, UtdEntry>>,
  watermarks: Readonly<Record<Guid, Watermark>>,
): Readonly<Record<Guid, UtdEntry>> {
  // Only a node with more entries than the newest kept needs sorting.
  const byNode = new Map<Guid, Array<readonly [Guid, UtdEntry]>>();
  for (const invocation in utd) {
    const entry = utd[invocation]!;
    let list = byNode.get(entry.node);
    if (list === undefined) byNode.set(entry.node, (list = []));
    list.push([invocation, entry]);
  }
  let dropped: Set<Guid> | null = null;
  for (const [node, list] of byNode) {
    if (list.length <= newestEntriesKept) continue;
    // A source with no floor yet (its first completed pull, or an older layout) keeps every
    // entry; of a node this one does not pull from, nothing beyond the newest stays.
    const mark = watermarks[node];
    const floor = mark === undefined ? Number.POSITIVE_INFINITY : (mark.floor ?? 0);
    list.sort(newestFirst);
    for (let i = newestEntriesKept; i < list.length; i++) {
      if (list[i]![1].epoch < floor) (dropped ??= new Set()).add(list[i]![0]);
    }
  }
  if (dropped === null) return utd;
  const out: Record<Guid, UtdEntry> = {};
  for (const invocation in utd) if (!dropped.has(invocation)) out[invocation] = utd[invocation]!;
  return out;
}

function newestFirst(a: readonly [Guid, UtdEntry], b: readonly [Guid, UtdEntry]): number {
  const byEpoch = b[1].epoch - a[1].epoch;
  if (byEpoch !== 0) return byEpoch;
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

/**
 * The watermark a completed pull leaves: the partner's epoch now, and the floor moved up to
 * its epoch at the previous completed pull (never down: a partner restored to an older image
 * re-mints above its lost future's epochs once it meets them, in the request before any
 * completion).
 */
export function completedWatermark(
  previous: Watermark | undefined,
  invocation: Guid,
  usn: number,
  nowMs: number,
  partnerEpoch: number,
): Watermark {
  const floor = Math.max(previous?.floor ?? 0, previous?.epoch ?? 0);
  return { invocation, usn, lastSuccessMs: nowMs, epoch: partnerEpoch, ...(floor > 0 ? { floor } : {}) };
}
