/**
 * Goal: the memoised vector helpers (ownVector's travelling vectors, the sorted entries
 * carried through mergeVectors, rollbackEvidence's per-vector memo) answer exactly what the
 * plain definitions answer over flat dictionaries, key order included (the stored vector's key
 * order is persisted). Method: fast-check drives a few nodes through local writes, completed
 * pulls from one another (vectors built by ownVector, or plain decoded objects as from the
 * wire; some pulls back to back, with no vector built in between), remints and retirements,
 * and compares every answer with the reference definitions below.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Directory } from "../directory";
import type { TravellingVector, UtdVector } from "./messages";
import { flatVector } from "./vector-parts";
import type { ReplicationState, UtdEntry } from "./replication-state";
import { rollbackEvidence } from "./rollback";
import { mergeVectors, ownVector } from "./vectors";

type Stored = Readonly<Record<string, UtdEntry>>;

function referenceOwnVector(dir: Directory, state: ReplicationState): UtdVector {
  const out: Record<string, { usn: number; node: string; epoch: number }> = {};
  for (const inv of Object.keys(state.utd).sort()) {
    const e = state.utd[inv];
    if (e !== undefined) out[inv] = { usn: e.usn, node: e.node, epoch: e.epoch };
  }
  out[dir.invocationId] = { usn: dir.usn, node: dir.nodeId, epoch: dir.invocationEpoch };
  return out;
}

function referenceMerge(mine: Stored, theirs: UtdVector, ownInvocation: string, nowMs: number): Stored {
  const out: Record<string, UtdEntry> = { ...mine };
  for (const inv of Object.keys(theirs).sort()) {
    if (inv === ownInvocation) continue;
    const e = theirs[inv];
    if (e === undefined) continue;
    const held = out[inv];
    if (held === undefined || e.usn > held.usn) out[inv] = { usn: e.usn, node: e.node, epoch: e.epoch, syncedAtMs: nowMs };
  }
  return out;
}

function referenceEvidence(
  dir: Directory,
  state: ReplicationState,
  vector: UtdVector,
): Array<{ invocation: string; usn: number; epoch: number }> {
  const out: Array<{ invocation: string; usn: number; epoch: number }> = [];
  for (const invocation of Object.keys(vector).sort()) {
    const entry = vector[invocation];
    if (entry === undefined || entry.node !== dir.nodeId) continue;
    if (invocation === dir.invocationId) {
      if (entry.usn > dir.usn) out.push({ invocation, usn: entry.usn, epoch: entry.epoch });
      continue;
    }
    const retired = state.retired.find((r) => r.invocation === invocation);
    if (retired === undefined || entry.usn > Math.max(retired.usn, retired.evidenceUsn)) {
      out.push({ invocation, usn: entry.usn, epoch: entry.epoch });
    }
  }
  return out;
}

interface SimNode {
  dir: { nodeId: string; invocationId: string; invocationEpoch: number; usn: number };
  state: ReplicationState;
}

const hex = (n: number): string => n.toString(16).padStart(12, "0");
const guid = (n: number): string => `00000000-0000-4000-8000-${hex(n)}`;

type Step =
  | { kind: "write"; node: number; count: number }
  | { kind: "pull"; node: number; from: number; wire: boolean; quiet: boolean }
  | { kind: "remint"; node: number }
  | { kind: "evidence"; node: number; from: number; wire: boolean };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("write" as const), node: fc.nat(2), count: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant("pull" as const), node: fc.nat(2), from: fc.nat(2), wire: fc.boolean(), quiet: fc.boolean() }),
  fc.record({ kind: fc.constant("remint" as const), node: fc.nat(2) }),
  fc.record({ kind: fc.constant("evidence" as const), node: fc.nat(2), from: fc.nat(2), wire: fc.boolean() }),
);

describe("vector helpers", () => {
  it("answer as the plain definitions do, key order included", () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 60 }), fc.integer({ min: 0, max: 1_000 }), (steps, salt) => {
        let minted = salt * 1_000;
        const nodes: SimNode[] = [0, 1, 2].map((i) => ({
          dir: { nodeId: guid(0xf00 + i), invocationId: guid(++minted), invocationEpoch: 0, usn: 0 },
          state: { utd: {}, watermarks: {}, retired: [] },
        }));
        const vectorOf = (n: SimNode, wire: boolean): TravellingVector => {
          const dir = n.dir as unknown as Directory;
          const built = ownVector(dir, n.state);
          const reference = referenceOwnVector(dir, n.state);
          // What it says (a travelling vector has no key order of its own to keep).
          expect(flatVector(built)).toEqual(reference);
          expect(ownVector(dir, n.state)).toBe(built);
          // A vector decoded from the wire is a plain object no memo knows.
          return wire ? (JSON.parse(JSON.stringify(built)) as TravellingVector) : built;
        };
        for (const [t, step] of steps.entries()) {
          const n = nodes[step.node]!;
          const dir = n.dir as unknown as Directory;
          if (step.kind === "write") n.dir.usn += step.count;
          if (step.kind === "remint") {
            n.state = {
              ...n.state,
              retired: [
                ...n.state.retired,
                { invocation: n.dir.invocationId, usn: n.dir.usn, evidenceUsn: 0, epoch: n.dir.invocationEpoch },
              ],
              utd: {
                ...n.state.utd,
                [n.dir.invocationId]: { usn: n.dir.usn, node: n.dir.nodeId, epoch: n.dir.invocationEpoch, syncedAtMs: t },
              },
            };
            n.dir.invocationId = guid(++minted);
            n.dir.invocationEpoch += 1;
          }
          if (step.kind === "pull" || step.kind === "evidence") {
            const theirs = vectorOf(nodes[step.from]!, step.wire);
            const evidence = rollbackEvidence(dir, n.state, theirs);
            expect(evidence).toEqual(referenceEvidence(dir, n.state, flatVector(theirs)));
            expect(rollbackEvidence(dir, n.state, theirs)).toEqual(evidence);
            if (step.kind === "pull") {
              const merged = mergeVectors(n.state.utd, theirs, n.dir.invocationId, t);
              const reference = referenceMerge(n.state.utd, flatVector(theirs), n.dir.invocationId, t);
              expect(Object.keys(merged)).toEqual(Object.keys(reference));
              expect(merged).toEqual(reference);
              n.state = { ...n.state, utd: merged };
            }
          }
          // A quiet pull builds no vector of the merged one before the next change (as when
          // two pulls complete back to back): its travelling form is then not known yet.
          if (step.kind !== "pull" || !step.quiet) vectorOf(n, false);
        }
      }),
      { numRuns: 300 },
    );
  });
});
