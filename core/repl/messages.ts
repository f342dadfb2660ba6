import type { Guid } from "../guid";
import type { ObjectDelta } from "../merge/object-delta";

/**
 * One entry of an up-to-dateness vector: the highest originating USN seen, its node, and the
 * invocation's epoch (its place among the node's invocations; 0 for entries written before
 * epochs existed, read as the oldest). Epochs let vectors stay bounded (vector-bound.ts).
 */
export interface VectorEntry {
  readonly usn: number;
  readonly node: Guid;
  readonly epoch: number;
}

/** Up-to-dateness vector entries: invocation -> highest originating USN, owner node. */
export type UtdVector = Readonly<Record<Guid, VectorEntry>>;

/**
 * The up-to-dateness vector as it travels: the sender's stored entries as they are (immutable
 * and shared: a change replaces the stored vector; fields beyond `usn` and `node`, such as the
 * sender's `syncedAtMs`, are its own and ignored) and its own current entry, which wins over
 * a stored entry of the same invocation. Every pull request and last batch carries one; the
 * stored vector gains an entry per boot of any node, and copying it into a fresh dictionary
 * per message (the own entry's USN moves with every local change) was ~2.5 % of a standard
 * seed and ~10 % of what survived its young-generation collections. Read it through
 * vector-parts.ts (`entryOf`, `forEachEntry`) or, on a hot path, with the own entry checked
 * first as dampening.ts does: never `entries` alone.
 */
export interface TravellingVector {
  readonly entries: UtdVector;
  readonly own: readonly [invocation: Guid, entry: VectorEntry];
}

/**
 * Where a batch stopped inside one object too large for a batch of its own (split-delta.ts):
 * the object's source-local USN, and where its next part begins: an attribute, and a set-key
 * prefix (the next part takes that attribute's atoms whose keys sort at or above it, then the
 * attributes after it; its existence and placement went with the first part).
 */
export interface AtomCursor {
  readonly usn: number;
  readonly next: readonly [attr: string, keyFrom: string];
}

/** How far a destination enumerated a source (see PullRequest). */
export interface Watermark {
  readonly invocation: Guid;
  readonly usn: number;
  readonly propUsn: number;
  /** Inside a pull cycle only: the object the last batch stopped inside (PullBatch.within). */
  readonly within?: AtomCursor;
}

/**
 * Replication as pure messages (AD's pull model). The `dir/drs` fabric service and the
 * simulator's network carry them unchanged.
 */
export interface PullRequest {
  readonly type: "pull";
  readonly requestId: number;
  /** The destination (the node asking). */
  readonly from: Guid;
  /**
   * How far the destination enumerated this source, under the source's invocation: `usn` is
   * the object enumeration position inside this pull cycle, `propUsn` the watermark at the
   * cycle's start, which filters atoms. They differ after the first batch: an object that
   * changed during the cycle moves ahead in USN order, and its older atoms, never sent, must
   * still go with it (AD's usnHighObjUpdate versus usnHighPropUpdate). `within` echoes the
   * last batch's: the next batch goes on inside that object.
   */
  readonly watermark: Watermark | null;
  readonly utd: TravellingVector;
  readonly objectsMax: number;
}

export interface PullBatch {
  readonly type: "batch";
  readonly requestId: number;
  /** The source (the node answering). */
  readonly from: Guid;
  readonly invocation: Guid;
  /**
   * True when the source enumerated after the request's watermark (its invocation, or one it
   * retired at or above the watermark's USN: the same local history); false when it started
   * earlier, without the request's atom filter: at the USN where the watermark's history and
   * its own part (a watermark from a forgotten future, beyond a retired invocation's USN), or
   * at zero (a watermark it does not recognise). The destination then drops the filter too.
   */
  readonly continued: boolean;
  readonly deltas: readonly ObjectDelta[];
  /** The source local USN this batch enumerated up to: the next watermark. */
  readonly highUsn: number;
  readonly more: boolean;
  /**
   * Only when the batch ended inside an object (then `more` is true and `highUsn` is the
   * position before that object): where the next batch goes on in it.
   */
  readonly within?: AtomCursor;
  /** On the last batch: the source's own vector, merged by the destination on completion. */
  readonly utd: TravellingVector | null;
}

/**
 * A source's refusal to answer a pull: the pair is apart longer than maxTimeApart by the
 * source's own reckoning (its last completed pull from the destination, or, never having
 * pulled from it, from anyone). The destination ends the cycle without completing it.
 */
export interface PullRefusal {
  readonly type: "refused";
  readonly requestId: number;
  /** The source (the node refusing). */
  readonly from: Guid;
  readonly reason: string;
}

/** A change hint: "I have news", so partners pull soon after a write. */
export interface ChangeHint {
  readonly type: "hint";
  readonly from: Guid;
}

export type ReplicationMessage = PullRequest | PullBatch | PullRefusal | ChangeHint;
