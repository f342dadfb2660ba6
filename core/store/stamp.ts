import type { Guid } from "../guid";

/** Transfer certificate: the enumeration coordinate (originating invocation, originating USN). */
export interface Cert {
  readonly invocation: Guid;
  readonly usn: number;
}

/**
 * The stamp of one merge atom. Only (version, atMs, origin) take part in the merge order;
 * `cert` travels with the atom for propagation dampening and `localUsn` is node-private.
 */
export interface Stamp {
  readonly version: number;
  readonly atMs: number;
  readonly origin: Guid;
  readonly cert: Cert;
  readonly localUsn: number;
}

/** Merge order: version, then originating wall time, then originating invocation. */
export function compareStamps(a: Stamp, b: Stamp): number {
  if (a.version !== b.version) return a.version < b.version ? -1 : 1;
  if (a.atMs !== b.atMs) return a.atMs < b.atMs ? -1 : 1;
  if (a.origin !== b.origin) return a.origin < b.origin ? -1 : 1;
  return 0;
}

/** A new originating stamp that supersedes `previous` (version bumped per originating write). */
export function nextStamp(
  previous: Stamp | null,
  at: { atMs: number; invocation: Guid; usn: number },
): Stamp {
  return {
    version: (previous?.version ?? 0) + 1,
    atMs: at.atMs,
    origin: at.invocation,
    cert: { invocation: at.invocation, usn: at.usn },
    localUsn: at.usn,
  };
}

/** The same originating stamp, re-indexed under this node's local USN (on replicated apply). */
export function relocal(stamp: Stamp, localUsn: number): Stamp {
  return { ...stamp, localUsn };
}
