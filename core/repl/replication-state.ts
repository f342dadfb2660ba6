import type { Guid } from "../guid";

/** One entry of the up-to-dateness vector: everything of `invocation` up to `usn` is here. */
export interface UtdEntry {
  readonly usn: number;
  /** Wall time (this node's clock) of the completed pull that last advanced the entry. */
  readonly syncedAtMs: number;
}

/** Per source partner: how far this node has enumerated the partner's changes. */
export interface Watermark {
  readonly invocation: Guid;
  readonly usn: number;
  /** Wall time of the last completed pull from this partner. */
  readonly lastSuccessMs: number | null;
}

export interface ReplicationState {
  readonly utd: Readonly<Record<Guid, UtdEntry>>;
  readonly watermarks: Readonly<Record<Guid, Watermark>>;
  /** Invocations this node held before a rollback re-minted it (oldest first). */
  readonly retiredInvocations: readonly Guid[];
}

export function emptyReplicationState(): ReplicationState {
  return { utd: {}, watermarks: {}, retiredInvocations: [] };
}
