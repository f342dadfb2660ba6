import type { Directory } from "../directory";
import type { TravellingVector, UtdVector } from "./messages";
import { entryOf, sortedEntries } from "./vector-parts";
import { assert } from "../assert";
import type { ReplicationState, RetiredInvocation } from "./replication-state";
import { boundVector } from "./vector-bound";

/**
 * The invocations a received vector holds of one node, sorted. Every pull and answer carries
 * a vector with an entry per boot of every node; sorting all its keys per message to find
 * this node's few was a hot spot. Answered per stored entries object (shared by every vector
 * built from it: it travels to every partner, and one remembered node per object was
 * recomputed at each partner in turn), then per travelling vector with its own entry.
 */
const ofEntries = new WeakMap<UtdVector, Map<string, readonly string[]>>();
const ofVector = new WeakMap<TravellingVector, { readonly node: string; readonly invocations: readonly string[] }>();

function invocationsOf(vector: TravellingVector, node: string): readonly string[] {
  const memo = ofVector.get(vector);
  if (memo !== undefined && memo.node === node) return memo.invocations;
  let byNode = ofEntries.get(vector.entries);
  if (byNode === undefined) ofEntries.set(vector.entries, (byNode = new Map()));
  let ofNode = byNode.get(node);
  if (ofNode === undefined) {
    const found: string[] = [];
    for (const [invocation, e] of sortedEntries(vector.entries)) if (e.node === node) found.push(invocation);
    byNode.set(node, (ofNode = found));
  }
  const [own, ownEntry] = vector.own;
  let invocations = ofNode;
  if (invocations.includes(own)) invocations = invocations.filter((i) => i !== own);
  if (ownEntry.node === node) invocations = [...invocations, own].sort();
  ofVector.set(vector, { node, invocations });
  return invocations;
}

/** Per retired list (immutable: a change replaces it): the first entry of each invocation. */
const retiredIndexes = new WeakMap<readonly RetiredInvocation[], ReadonlyMap<string, RetiredInvocation>>();

function retiredIndex(retired: readonly RetiredInvocation[]): ReadonlyMap<string, RetiredInvocation> {
  let index = retiredIndexes.get(retired);
  if (index === undefined) {
    const built = new Map<string, RetiredInvocation>();
    for (const r of retired) if (!built.has(r.invocation)) built.set(r.invocation, r);
    retiredIndexes.set(retired, (index = built));
  }
  return index;
}

/** One of this node's invocations as a partner's vector holds it, beyond this node's state. */
export interface Evidence {
  readonly invocation: string;
  readonly usn: number;
  readonly epoch: number;
}

/**
 * A node learns it runs rolled-back state when a partner's vector holds a USN of one of the
 * node's own invocations beyond what the node has, or an invocation of the node that the node
 * does not know at all (minted after the image it was restored from).
 */
export function rollbackEvidence(
  dir: Directory,
  state: ReplicationState,
  vector: TravellingVector,
): Evidence[] {
  const out: Evidence[] = [];
  const own = invocationsOf(vector, dir.nodeId);
  if (own.length === 0) return out;
  const retiredByInvocation = retiredIndex(state.retired);
  for (const invocation of own) {
    const entry = entryOf(vector, invocation);
    assert(entry !== undefined && entry.node === dir.nodeId, "a memoised vector did not change");
    if (invocation === dir.invocationId) {
      if (entry.usn > dir.usn) out.push({ invocation, usn: entry.usn, epoch: entry.epoch });
      continue;
    }
    const retired = retiredByInvocation.get(invocation);
    if (retired === undefined || entry.usn > Math.max(retired.usn, retired.evidenceUsn)) {
      out.push({ invocation, usn: entry.usn, epoch: entry.epoch });
    }
  }
  return out;
}

export function detectsRollback(dir: Directory, state: ReplicationState, vector: TravellingVector): boolean {
  return rollbackEvidence(dir, state, vector).length > 0;
}

/**
 * Records evidence already acted upon. An invocation the node never knew (minted after the
 * image it was restored from) joins the retired list holding nothing (usn 0), so partners
 * send back everything of it.
 */
export function recordEvidence(state: ReplicationState, evidence: readonly Evidence[]): ReplicationState {
  let retired = [...state.retired];
  for (const e of evidence) {
    const held = retired.find((r) => r.invocation === e.invocation);
    if (held === undefined) retired.push({ invocation: e.invocation, usn: 0, evidenceUsn: e.usn, epoch: e.epoch });
    else retired = retired.map((r) => (r === held ? { ...r, evidenceUsn: Math.max(r.evidenceUsn, e.usn) } : r));
  }
  return { ...state, retired };
}

/**
 * Retires the current invocation at the current USN and mints a new one, at an epoch above
 * the retired one's and above `aboveEpoch` (the highest epoch of its own that rollback
 * evidence showed: a node restored to an older image mints epochs its lost future already
 * used, and partners' vector floors count on a node's epochs rising). The current epoch is
 * above every retired one already (evidence recorded after a re-mint is below it). The
 * retired invocation enters the node's own vector, so partners do not send back what it
 * holds; the vector then keeps only the newest of them (vector-bound.ts).
 */
export function remintInvocation(
  dir: Directory,
  state: ReplicationState,
  nowMs: number,
  aboveEpoch = 0,
): ReplicationState {
  const epoch = dir.invocationEpoch;
  const retired: RetiredInvocation = { invocation: dir.invocationId, usn: dir.usn, evidenceUsn: 0, epoch };
  dir.invocationId = dir.mintGuid();
  dir.invocationEpoch = Math.max(epoch, aboveEpoch) + 1;
  const utd = { ...state.utd, [retired.invocation]: { usn: retired.usn, node: dir.nodeId, epoch, syncedAtMs: nowMs } };
  return {
    ...state,
    retired: [...state.retired, retired],
    utd: boundVector(utd, state.watermarks),
  };
}
