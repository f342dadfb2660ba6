import type { Directory } from "../directory";
import type { UtdVector } from "./messages";
import type { ReplicationState, UtdEntry } from "./replication-state";

interface OwnVectorMemo {
  readonly invocation: string;
  readonly usn: number;
  readonly node: string;
  readonly vector: UtdVector;
}

/**
 * The last vector built per stored vector (which is immutable: a change replaces it). Every
 * pull request and every answer carries the vector, which gains an entry per boot of every
 * node; rebuilding it each time was 4 % of the simulator's time.
 */
const ownVectors = new WeakMap<object, OwnVectorMemo>();

/**
 * This node's vector as it travels: the stored entries plus its own current invocation. The
 * result is shared and frozen; callers must not change it.
 */
export function ownVector(dir: Directory, state: ReplicationState): UtdVector {
  const memo = ownVectors.get(state.utd);
  if (
    memo !== undefined &&
    memo.invocation === dir.invocationId &&
    memo.usn === dir.usn &&
    memo.node === dir.nodeId
  ) {
    return memo.vector;
  }
  const out: Record<string, { usn: number; node: string }> = {};
  for (const inv of Object.keys(state.utd).sort()) {
    const e = state.utd[inv];
    if (e !== undefined) out[inv] = { usn: e.usn, node: e.node };
  }
  out[dir.invocationId] = { usn: dir.usn, node: dir.nodeId };
  const vector = Object.freeze(out);
  ownVectors.set(state.utd, { invocation: dir.invocationId, usn: dir.usn, node: dir.nodeId, vector });
  return vector;
}

/** On a completed pull the destination holds everything the source's vector covers. */
export function mergeVectors(
  mine: Readonly<Record<string, UtdEntry>>,
  theirs: UtdVector,
  ownInvocation: string,
  nowMs: number,
): Record<string, UtdEntry> {
  const out: Record<string, UtdEntry> = { ...mine };
  for (const inv of Object.keys(theirs).sort()) {
    if (inv === ownInvocation) continue;
    const e = theirs[inv];
    if (e === undefined) continue;
    const held = out[inv];
    // Only an entry that advances is replaced (its syncedAtMs is when it last advanced): the
    // node persists the entries that changed, and most stay put on a completed pull.
    if (held === undefined || e.usn > held.usn) {
      out[inv] = { usn: e.usn, node: e.node, syncedAtMs: nowMs };
    }
  }
  return out;
}
