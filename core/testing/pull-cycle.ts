import type { DirectoryNode } from "../node/directory-node";

/** How one pull cycle between two nodes driven directly ended. */
export type PullCycleEnd = "done" | "dest-refused" | "source-refused";

/**
 * One pull cycle of `dest` from `source` at `nowMs`, every request answered at once: until
 * the destination completes it, refuses to ask, or the source refuses to answer (then told to
 * the destination, as a shell would). Bounded: a cycle of more than 1,000 batches throws.
 */
export function pullCycle(source: DirectoryNode, dest: DirectoryNode, nowMs: number, objectsMax?: number): PullCycleEnd {
  let req = dest.replicator.pullRequest(source.dir.nodeId, nowMs, objectsMax);
  if (req === null) return "dest-refused";
  for (let round = 0; round < 1000; round++) {
    const answer = source.replicator.respond(req, nowMs);
    if (answer.type === "refused") {
      dest.replicator.refusedBy(answer, nowMs);
      return "source-refused";
    }
    const next = dest.replicator.receive(answer, nowMs);
    if (next === null) return "done";
    req = next;
  }
  throw new Error("pull cycle did not end within 1,000 batches");
}
