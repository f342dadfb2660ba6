import type { Directory } from "../directory";
import type { UtdVector } from "./messages";
import type { ReplicationState } from "./replication-state";

/**
 * A node learns it runs rolled-back state when a partner's vector holds a USN of one of the
 * node's own invocations beyond what the node has, or an invocation of the node that the node
 * does not know at all (minted after the image it was restored from).
 */
export function detectsRollback(dir: Directory, state: ReplicationState, vector: UtdVector): boolean {
  for (const invocation of Object.keys(vector).sort()) {
    const entry = vector[invocation];
    if (entry === undefined || entry.node !== dir.nodeId) continue;
    if (invocation === dir.invocationId) {
      if (entry.usn > dir.usn) return true;
      continue;
    }
    const retired = state.retired.find((r) => r.invocation === invocation);
    if (retired === undefined || entry.usn > retired.usn) return true;
  }
  return false;
}

/**
 * Retires the current invocation at the current USN and mints a new one. The retired
 * invocation enters the node's own vector, so partners do not send back what it holds.
 */
export function remintInvocation(dir: Directory, state: ReplicationState, nowMs: number): ReplicationState {
  const retired = { invocation: dir.invocationId, usn: dir.usn };
  dir.invocationId = dir.mintGuid();
  return {
    ...state,
    retired: [...state.retired, retired],
    utd: { ...state.utd, [retired.invocation]: { usn: retired.usn, node: dir.nodeId, syncedAtMs: nowMs } },
  };
}
