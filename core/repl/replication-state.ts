import type { Guid } from "../guid";

/** One entry of the up-to-dateness vector: everything of `invocation` up to `usn` is here. */
export interface UtdEntry {
  readonly usn: number;
  /** The node that owns the invocation (rollback detection needs to know whose it is). */
  readonly node: Guid;
  /**
   * The invocation's epoch on its node (VectorEntry.epoch; loading reads entries persisted
   * before epochs existed as 0, the oldest).
   */
  readonly epoch: number;
  /** Wall time (this node's clock) of the completed pull that last advanced the entry. */
  readonly syncedAtMs: number;
}

/** Per source partner: how far this node has enumerated the partner's changes. */
export interface Watermark {
  readonly invocation: Guid;
  readonly usn: number;
  /** Wall time of the last completed pull from this partner (null: none completed yet). */
  readonly lastSuccessMs: number | null;
  /** The partner's invocation epoch at that pull (absent: none recorded yet, read as 0). */
  readonly epoch?: number;
  /**
   * The partner's epoch at the completed pull before that one: this node's vector keeps no
   * entry of the partner's below it (vector-bound.ts; absent: 0, no floor).
   */
  readonly floor?: number;
}

export interface RetiredInvocation {
  readonly invocation: Guid;
  /** The node's USN when it stopped using the invocation (what it holds of it). */
  readonly usn: number;
  /**
   * The highest USN of this invocation a partner was seen to hold: evidence of a rollback
   * already acted upon, so the same evidence does not re-mint the invocation again.
   */
  readonly evidenceUsn: number;
  /** The invocation's epoch (loading reads lists persisted before epochs existed as 0). */
  readonly epoch: number;
}

export interface ReplicationState {
  readonly utd: Readonly<Record<Guid, UtdEntry>>;
  readonly watermarks: Readonly<Record<Guid, Watermark>>;
  /** Invocations this node held before (each boot and each detected rollback re-mints). */
  readonly retired: readonly RetiredInvocation[];
}

export function emptyReplicationState(): ReplicationState {
  return { utd: {}, watermarks: {}, retired: [] };
}
