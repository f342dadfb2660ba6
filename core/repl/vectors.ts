import type { Directory } from "../directory";
import type { UtdVector } from "./messages";
import type { ReplicationState, UtdEntry } from "./replication-state";

/** This node's vector as it travels: the stored entries plus its own current invocation. */
export function ownVector(dir: Directory, state: ReplicationState): UtdVector {
  const out: Record<string, { usn: number; node: string }> = {};
  for (const inv of Object.keys(state.utd).sort()) {
    const e = state.utd[inv];
    if (e !== undefined) out[inv] = { usn: e.usn, node: e.node };
  }
  out[dir.invocationId] = { usn: dir.usn, node: dir.nodeId };
  return out;
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
