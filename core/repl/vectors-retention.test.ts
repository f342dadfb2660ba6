/**
 * Goal: a vector made by mergeVectors keeps nothing of the vector it was made from alive. A
 * node merges one after every completed pull for as long as it runs; a link from each merged
 * vector to its predecessor (there was one, through a WeakMap value) held the node's whole
 * history of vectors, with their built forms, and the garbage collector promoted them all.
 * Method: a chain of merges, the earlier vectors released, a full collection, WeakRefs.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { expect, it } from "vitest";
import type { Directory } from "../directory";
import type { TravellingVector } from "./messages";
import { flatVector } from "./vector-parts";
import { emptyReplicationState, type UtdEntry } from "./replication-state";
import { mergeVectors, ownVector } from "./vectors";

type Stored = Readonly<Record<string, UtdEntry>>;

setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;

const dir = { invocationId: "inv-self", invocationEpoch: 3, nodeId: "node-self", usn: 7 } as unknown as Directory;

/** Merges `steps` pulls one after another, each vector built first as a pull would build it. */
function chain(steps: number): { last: Stored; earlier: Array<WeakRef<object>> } {
  let utd: Stored = {};
  const earlier: Array<WeakRef<object>> = [];
  for (let i = 1; i <= steps; i++) {
    ownVector(dir, { ...emptyReplicationState(), utd });
    const theirs: TravellingVector = { entries: {}, own: [`inv-${i % 3}`, { usn: i, node: `node-${i % 3}`, epoch: 0 }] };
    const next = mergeVectors(utd, theirs, dir.invocationId, i);
    expect(next).not.toBe(utd);
    earlier.push(new WeakRef(utd));
    utd = next;
  }
  return { last: utd, earlier };
}

it("a merged vector does not keep the vectors before it alive", async () => {
  const { last, earlier } = chain(20);
  // WeakRef targets stay alive until the current job ends.
  await new Promise((resolve) => setTimeout(resolve, 0));
  collect();
  const alive = earlier.filter((ref) => ref.deref() !== undefined).length;
  expect(alive).toBe(0);
  // The last vector is still usable: its sorted entries were kept, not its ancestors.
  expect(flatVector(ownVector(dir, { ...emptyReplicationState(), utd: last }))).toEqual({
    "inv-0": { usn: 18, node: "node-0", epoch: 0 },
    "inv-1": { usn: 19, node: "node-1", epoch: 0 },
    "inv-2": { usn: 20, node: "node-2", epoch: 0 },
    "inv-self": { usn: 7, node: "node-self", epoch: 3 },
  });
});
