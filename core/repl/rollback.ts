import type { Directory } from "../directory";
import type { UtdVector } from "./messages";
import type { ReplicationState } from "./replication-state";

/**
 * A node learns it runs rolled-back state when a partner's vector holds a USN of one of the
 * node's own invocations beyond what the node has, or an invocation of the node that the node
 * does not know at all (minted after the image it was restored from).
 */
export function rollbackEvidence(
  dir: Directory,
  state: ReplicationState,
  vector: UtdVector,
): Array<{ invocation: string; usn: number }> {
  const out: Array<{ invocation: string; usn: number }> = [];
  for (const invocation of Object.keys(vector).sort()) {
    const entry = vector[invocation];
    if (entry === undefined || entry.node !== dir.nodeId) continue;
    if (invocation === dir.invocationId) {
      if (entry.usn > dir.usn) out.push({ invocation, usn: entry.usn });
      continue;
    }
    const retired = state.retired.find((r) => r.invocation === invocation);
    if (retired === undefined || entry.usn > Math.max(retired.usn, retired.evidenceUsn)) {
      out.push({ invocation, usn: entry.usn });
    }
  }
  return out;
}

export function detectsRollback(dir: Directory, state: ReplicationState, vector: UtdVector): boolean {
  return rollbackEvidence(dir, state, vector).length > 0;
}

/**
 * Records evidence already acted upon. An invocation the node never knew (minted after the
 * image it was restored from) joins the retired list holding nothing (usn 0), so partners
 * send back everything of it.
 */
export function recordEvidence(
  state: ReplicationState,
  evidence: ReadonlyArray<{ invocation: string; usn: number }>,
): ReplicationState {
  let retired = [...state.retired];
  for (const e of evidence) {
    const held = retired.find((r) => r.invocation === e.invocation);
    if (held === undefined) retired.push({ invocation: e.invocation, usn: 0, evidenceUsn: e.usn });
    else retired = retired.map((r) => (r === held ? { ...r, evidenceUsn: Math.max(r.evidenceUsn, e.usn) } : r));
  }
  return { ...state, retired };
}

/**
 * Retires the current invocation at the current USN and mints a new one. The retired
 * invocation enters the node's own vector, so partners do not send back what it holds.
 */
export function remintInvocation(dir: Directory, state: ReplicationState, nowMs: number): ReplicationState {
  const retired = { invocation: dir.invocationId, usn: dir.usn, evidenceUsn: 0 };
  dir.invocationId = dir.mintGuid();
  return {
    ...state,
    retired: [...state.retired, retired],
    utd: { ...state.utd, [retired.invocation]: { usn: retired.usn, node: dir.nodeId, syncedAtMs: nowMs } },
  };
}
