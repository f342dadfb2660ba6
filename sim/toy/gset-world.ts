import type { FaultConfig } from "../faults";
import type { Workload } from "../world";
import { World } from "../world";
import type { GSetInput, GSetMsg, GSetOracle } from "./gset-node";
import { GSetNode, newOracle } from "./gset-node";

/** A world of toy nodes with its oracle; shared by the toy tests. */
export interface GSetWorld {
  readonly world: World<GSetMsg, GSetInput>;
  readonly nodes: ReadonlyMap<string, GSetNode>;
  readonly oracle: GSetOracle;
  /** Acked elements that must be everywhere at convergence (rollbacks forgive some). */
  readonly required: Set<string>;
}

export interface GSetWorldOptions {
  readonly seed: number | string;
  readonly nodeCount: number;
  readonly faults?: FaultConfig;
  /** Mean gap between client writes in ms; 0 means no workload. */
  readonly writeGapMs: number;
  readonly keepTrace?: boolean;
}

export function gsetWorld(options: GSetWorldOptions): GSetWorld {
  const ids = Array.from({ length: options.nodeCount }, (_, i) => `n${i + 1}`);
  const oracle = newOracle(ids);
  const nodes = new Map<string, GSetNode>();
  const required = new Set<string>();
  let writes = 0;
  const workload: Workload<GSetInput> = {
    next(prng) {
      const node = prng.pick(ids);
      const afterMs = Math.round(prng.exponential(options.writeGapMs));
      return { afterMs, node, input: { add: `${node}-w${writes++}` } };
    },
  };
  const world: World<GSetMsg, GSetInput> = new World<GSetMsg, GSetInput>({
    seed: options.seed,
    nodeIds: ids,
    makeNode: (id) => {
      const node = new GSetNode(id, ids.filter((p) => p !== id), oracle);
      nodes.set(id, node);
      return node;
    },
    ...(options.faults ? { faults: options.faults } : {}),
    ...(options.writeGapMs > 0 ? { workload } : {}),
    trace: { ringLines: 50, keepAll: options.keepTrace ?? false },
    describeMsg: (msg) =>
      msg.kind === "push" ? `push ${msg.vv.size}` : `reply ${msg.entries.length}`,
    observe: (event) => {
      // A rolled-back disk forgets what its node synced and acked; the model forgives it.
      if (event.kind === "rollback" && event.node !== null) {
        oracle.synced.get(event.node)?.clear();
        for (const elem of oracle.acked.get(event.node) ?? []) required.delete(elem);
        oracle.acked.get(event.node)?.clear();
      }
      // A node's state only shrinks in a crash, so checking at restart covers every instant.
      if (event.kind === "restart" && event.node !== null) {
        const lost = lostSynced(event.node, nodes, oracle);
        if (lost.length > 0) world.fail(`${event.node} lost synced ${lost.join(",")}`);
      }
    },
    invariants: (): string[] => {
      // Cheap per-event check: an up node holds at least as many values as it synced.
      const violations: string[] = [];
      for (const [id, node] of nodes) {
        const synced = oracle.synced.get(id)?.size ?? 0;
        if (world.isUp(id) && node.elements.size < synced) violations.push(`${id} shrank`);
      }
      return violations;
    },
  });
  return { world, nodes, oracle, required };
}

function lostSynced(
  id: string,
  nodes: ReadonlyMap<string, GSetNode>,
  oracle: GSetOracle,
): string[] {
  const node = nodes.get(id);
  const lost: string[] = [];
  for (const value of oracle.synced.get(id) ?? []) if (!node?.elements.has(value)) lost.push(value);
  return lost.sort();
}

/** Adds every acked value to the required set (call before checking convergence). */
function collectRequired(g: GSetWorld): void {
  for (const acked of g.oracle.acked.values()) for (const value of acked) g.required.add(value);
}

/** All nodes hold the same set, and it contains every required element. */
export function gsetConverged(g: GSetWorld): boolean {
  collectRequired(g);
  const sets = [...g.nodes.values()].map((n) => n.elements);
  const first = sets[0];
  if (first === undefined) return true;
  for (const set of sets) {
    if (set.size !== first.size) return false;
    for (const elem of set) if (!first.has(elem)) return false;
  }
  for (const elem of g.required) if (!first.has(elem)) return false;
  return true;
}
