import type { Directory } from "../directory";
import type { UtdVector } from "./messages";
import type { ReplicationState, UtdEntry } from "./replication-state";
import { forEachEntry, partsOf, registerParts } from "./vector-parts";
import type { VectorEntries, VectorEntry } from "./vector-parts";

interface OwnVectorMemo {
  /** The stored entries as they travel, in invocation order (built once per stored vector). */
  readonly base: VectorEntries;
  invocation: string;
  usn: number;
  node: string;
  vector: UtdVector;
}

/**
 * Per stored vector (which is immutable: a change replaces it), its travelling form and the
 * last vector built from it. Every pull request and every answer carries the vector, which
 * gains an entry per boot of every node; rebuilding it each time was 4 % of the simulator's
 * time, and sorting its keys again after every local write (the USN moves) another 3 %.
 */
const ownVectors = new WeakMap<object, OwnVectorMemo>();

/**
 * This node's vector as it travels: the stored entries plus its own current invocation. The
 * result is shared and frozen; callers must not change it.
 */
export function ownVector(dir: Directory, state: ReplicationState): UtdVector {
  const memo = ownVectors.get(state.utd);
  if (memo === undefined) {
    const base = travelling(state.utd);
    const vector = withOwn(base, dir);
    ownVectors.set(state.utd, { base, invocation: dir.invocationId, usn: dir.usn, node: dir.nodeId, vector });
    return vector;
  }
  if (memo.invocation !== dir.invocationId || memo.usn !== dir.usn || memo.node !== dir.nodeId) {
    memo.vector = withOwn(memo.base, dir);
    memo.invocation = dir.invocationId;
    memo.usn = dir.usn;
    memo.node = dir.nodeId;
  }
  return memo.vector;
}

/**
 * Per stored vector made by mergeVectors from one whose travelling form was known: its own
 * travelling form, the old one merged with the entries that advanced (O(vector) without
 * sorting; a completed pull advances one or two entries of ~60). Only the entries are kept,
 * never the vector it was made from: a link to it held every earlier stored vector of the
 * node (and their built vectors) alive for as long as the node ran.
 */
const travellingOf = new WeakMap<object, VectorEntries>();

function travelling(utd: ReplicationState["utd"]): VectorEntries {
  const known = ownVectors.get(utd)?.base ?? travellingOf.get(utd);
  if (known !== undefined) return known;
  const out: Array<readonly [string, VectorEntry]> = [];
  for (const inv of Object.keys(utd).sort()) {
    const e = utd[inv];
    if (e !== undefined) out.push([inv, { usn: e.usn, node: e.node }]);
  }
  return out;
}

/** Two lists sorted by invocation merged into one; `changed` wins on a shared invocation. */
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
      out.push([b[0], { usn: b[1].usn, node: b[1].node }]);
      j++;
    }
  }
  return out;
}

/**
 * The base entries (shared, never changed) in their order, then this node's own. Built by a
 * loop: spreading a frozen vector of ~100 keys was ten times slower.
 */
function withOwn(base: VectorEntries, dir: Directory): UtdVector {
  const out: Record<string, VectorEntry> = {};
  for (const [inv, e] of base) out[inv] = e;
  const own = [dir.invocationId, { usn: dir.usn, node: dir.nodeId }] as const;
  out[own[0]] = own[1];
  const vector = Object.freeze(out);
  registerParts(vector, { base, own });
  return vector;
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
 * or null. When both sides' sorted entries are known (a vector built by ownVector, a stored
 * vector whose travelling form is memoised), one merge-walk of the two sorted lists replaces a
 * dictionary lookup per entry (~100 per completed pull, each a probe of a dictionary-mode
 * object); otherwise the lookups, with the same result.
 */
function advancingEntries(
  mine: Readonly<Record<string, UtdEntry>>,
  theirs: UtdVector,
  ownInvocation: string,
): Array<readonly [string, VectorEntry]> | null {
  let advancing: Array<readonly [string, VectorEntry]> | null = null;
  const parts = partsOf(theirs);
  const held = ownVectors.get(mine)?.base ?? travellingOf.get(mine);
  if (parts === undefined || held === undefined) {
    forEachEntry(theirs, (inv, e) => {
      if (inv === ownInvocation) return;
      const mineEntry = mine[inv];
      if (mineEntry === undefined || e.usn > mineEntry.usn) (advancing ??= []).push([inv, e]);
    });
    return advancing;
  }
  const [theirOwn, theirOwnEntry] = parts.own;
  let j = 0;
  for (const [inv, e] of parts.base) {
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
 * `mine` itself when no entry advances, and otherwise a copy replacing only the entries that
 * advanced: callers (ownVector's memo, persisting the entries) compare by identity.
 */
export function mergeVectors(
  mine: Readonly<Record<string, UtdEntry>>,
  theirs: UtdVector,
  ownInvocation: string,
  nowMs: number,
): Readonly<Record<string, UtdEntry>> {
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
  const sorted = (advancing as Array<readonly [string, VectorEntry]>).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let added: string[] | null = null;
  for (const [inv, e] of sorted) {
    if (mine[inv] === undefined) (added ??= []).push(inv);
    out[inv] = { usn: e.usn, node: e.node, syncedAtMs: nowMs };
  }
  const before = ownVectors.get(mine)?.base ?? travellingOf.get(mine);
  if (before !== undefined) travellingOf.set(out, mergeSorted(before, sorted));
  made.set(out, {
    fromSerial: vectorSerial(mine),
    invocations: sorted.map(([inv]) => inv),
    keys: added === null ? order : [...order, ...added],
  });
  return out;
}
