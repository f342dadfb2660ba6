import type { Directory } from "../directory";
import type { TravellingVector } from "./messages";
import type { ReplicationState, UtdEntry } from "./replication-state";
import { noteSortedEntries, sortedEntries } from "./vector-parts";
import type { VectorEntries, VectorEntry } from "./vector-parts";

interface OwnVectorMemo {
  invocation: string;
  usn: number;
  node: string;
  vector: TravellingVector;
}

/**
 * Per stored vector (immutable: a change replaces it), the last travelling vector built from
 * it: every pull request and every last batch carries one, and the same one goes out again
 * until the node's USN or invocation moves.
 */
const ownVectors = new WeakMap<object, OwnVectorMemo>();

/**
 * This node's vector as it travels: the stored entries, shared as they are, and its own
 * current invocation's entry. The result is shared; callers must not change it.
 */
export function ownVector(dir: Directory, state: ReplicationState): TravellingVector {
  const memo = ownVectors.get(state.utd);
  // An invocation's epoch never changes (a re-mint changes both), so the invocation names it.
  if (memo !== undefined && memo.invocation === dir.invocationId && memo.usn === dir.usn && memo.node === dir.nodeId) {
    return memo.vector;
  }
  const vector: TravellingVector = {
    entries: state.utd,
    own: [dir.invocationId, { usn: dir.usn, node: dir.nodeId, epoch: dir.invocationEpoch }],
  };
  if (memo === undefined) {
    ownVectors.set(state.utd, { invocation: dir.invocationId, usn: dir.usn, node: dir.nodeId, vector });
  } else {
    memo.invocation = dir.invocationId;
    memo.usn = dir.usn;
    memo.node = dir.nodeId;
    memo.vector = vector;
  }
  return vector;
}

/**
 * Two lists sorted by invocation merged into one; `changed` wins on a shared invocation. The
 * entries of `changed` are the merged vector's own entry objects.
 */
function mergeSorted(base: VectorEntries, changed: VectorEntries): VectorEntries {
  const out: Array<readonly [string, VectorEntry]> = [];
  let i = 0;
  let j = 0;
  while (i < base.length || j < changed.length) {
    const a = base[i];
    const b = changed[j];
    if (b === undefined || (a !== undefined && a[0] < b[0])) {
      out.push(a!);
      i++;
    } else {
      if (a !== undefined && a[0] === b[0]) i++;
      out.push(b);
      j++;
    }
  }
  return out;
}

/**
 * Per stored vector made by mergeVectors, how it was made: from which vector (by serial
 * number, see vectorSerial), which invocations' entries it replaced or added (sorted), and its
 * keys in order (what Object.keys returns). Persisting it then writes those entries without
 * walking all of them (PersistedReplication), and the next merge copies it by `keys` without
 * asking the object. A serial, not the vector itself: a WeakMap value holding the predecessor
 * would keep a node's whole chain of vectors alive (vectors-retention.test.ts guards that).
 */
const made = new WeakMap<object, VectorChange>();
const serials = new WeakMap<object, number>();
let nextSerial = 1;

export interface VectorChange {
  readonly fromSerial: number;
  readonly invocations: readonly string[];
  readonly keys: readonly string[];
}

/** A number naming this stored vector for as long as it lives (assigned on first call). */
export function vectorSerial(utd: Readonly<Record<string, UtdEntry>>): number {
  let serial = serials.get(utd);
  if (serial === undefined) serials.set(utd, (serial = nextSerial++));
  return serial;
}

/** How mergeVectors made `utd` from another stored vector, or undefined. */
export function vectorChange(utd: Readonly<Record<string, UtdEntry>>): VectorChange | undefined {
  return made.get(utd);
}

/**
 * The entries of `theirs` that `mine` lacks or holds at a lower USN (`ownInvocation` aside),
 * or null: one merge-walk of the two vectors' sorted entries (see sortedEntries), then their
 * own entry.
 */
function advancingEntries(
  mine: Readonly<Record<string, UtdEntry>>,
  theirs: TravellingVector,
  ownInvocation: string,
): Array<readonly [string, VectorEntry]> | null {
  let advancing: Array<readonly [string, VectorEntry]> | null = null;
  const [theirOwn, theirOwnEntry] = theirs.own;
  const held = sortedEntries(mine);
  let j = 0;
  for (const [inv, e] of sortedEntries(theirs.entries)) {
    if (inv === theirOwn || inv === ownInvocation) continue;
    while (j < held.length && held[j]![0] < inv) j++;
    const mineEntry = j < held.length && held[j]![0] === inv ? held[j]![1] : undefined;
    if (mineEntry === undefined || e.usn > mineEntry.usn) (advancing ??= []).push([inv, e]);
  }
  if (theirOwn !== ownInvocation) {
    const mineEntry = mine[theirOwn];
    if (mineEntry === undefined || theirOwnEntry.usn > mineEntry.usn) (advancing ??= []).push([theirOwn, theirOwnEntry]);
  }
  return advancing;
}

/**
 * On a completed pull the destination holds everything the source's vector covers. Returns
 * `mine` itself when no entry advances (or no vector came), and otherwise a copy replacing
 * only the entries that advanced: callers (ownVector's memo, persisting the entries) compare
 * by identity.
 */
export function mergeVectors(
  mine: Readonly<Record<string, UtdEntry>>,
  theirs: TravellingVector | null,
  ownInvocation: string,
  nowMs: number,
): Readonly<Record<string, UtdEntry>> {
  if (theirs === null) return mine;
  // Only an entry that advances is replaced (its syncedAtMs is when it last advanced): the
  // node persists the entries that changed, and most stay put on a completed pull.
  const advancing = advancingEntries(mine, theirs, ownInvocation);
  if (advancing === null) return mine;
  // A copy by a loop over the remembered key order: spreading a vector of ~100 keys cost three
  // times as much, and Object.keys of a dictionary-mode object (which sorts its keys by
  // insertion index each time) a third of the loop.
  const order = made.get(mine)?.keys ?? Object.keys(mine);
  const out: Record<string, UtdEntry> = {};
  for (let i = 0; i < order.length; i++) {
    const inv = order[i]!;
    out[inv] = mine[inv]!;
  }
  // New entries join in invocation order, as they always did (the key order is persisted).
  advancing.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const changed: Array<readonly [string, VectorEntry]> = [];
  let added: string[] | null = null;
  for (const [inv, e] of advancing) {
    if (mine[inv] === undefined) (added ??= []).push(inv);
    const entry = { usn: e.usn, node: e.node, epoch: e.epoch, syncedAtMs: nowMs };
    out[inv] = entry;
    changed.push([inv, entry]);
  }
  noteSortedEntries(out, mergeSorted(sortedEntries(mine), changed));
  made.set(out, {
    fromSerial: vectorSerial(mine),
    invocations: changed.map(([inv]) => inv),
    keys: added === null ? order : [...order, ...added],
  });
  return out;
}
