/**
 * Who replicates with whom. Every node pulls from its neighbours and hints them after a write;
 * edges are undirected (both ends pull), as a KCC ring's connections come in pairs. `mesh`
 * (every pair, the default) has diameter 1, so the liveness bound 2 x diameter + 1 (item 10)
 * and every transitive path (an atom, a vector entry or rollback evidence carried by a third
 * node) are only exercised by the other shapes:
 *   ring    n1-n2-...-nN-n1
 *   line    n1-n2-...-nN (the longest diameter: N - 1)
 *   star    n1 in the middle (every other node only reaches the others through n1)
 *   sparse K   a random connected graph drawn from seed K: a random spanning tree plus each
 *              other pair with probability 1/5
 * Shapes are defined for any node count, so a shrink that drops a node keeps a valid graph.
 */
import { Prng } from "../prng";

export type Topology =
  | { readonly kind: "mesh" | "ring" | "line" | "star" }
  | { readonly kind: "sparse"; readonly seed: number };

export const mesh: Topology = { kind: "mesh" };

const shapes = ["mesh", "ring", "line", "star", "sparse"] as const;

export function isTopologyKind(word: string): word is Topology["kind"] {
  return (shapes as readonly string[]).includes(word);
}

/** The canonical text after `topology` (parseTopology's inverse). */
export function topologyText(t: Topology): string {
  return t.kind === "sparse" ? `sparse ${t.seed}` : t.kind;
}

/** Edges as index pairs [a, b] with a < b, in a fixed order, for `n` nodes. */
export function topologyEdges(t: Topology, n: number): Array<readonly [number, number]> {
  const out: Array<readonly [number, number]> = [];
  switch (t.kind) {
    case "mesh":
      for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) out.push([a, b]);
      return out;
    case "line":
      for (let a = 0; a + 1 < n; a++) out.push([a, a + 1]);
      return out;
    case "ring":
      for (let a = 0; a + 1 < n; a++) out.push([a, a + 1]);
      // Two nodes: the ring is the line; no edge twice.
      if (n > 2) out.push([0, n - 1]);
      return out;
    case "star":
      for (let b = 1; b < n; b++) out.push([0, b]);
      return out;
    case "sparse":
      return sparseEdges(t.seed, n);
  }
}

function sparseEdges(seed: number, n: number): Array<readonly [number, number]> {
  const prng = new Prng(`topology/sparse/${seed}/${n}`);
  const has = new Set<number>();
  // A random spanning tree: each node after the first joins one node before it.
  for (let b = 1; b < n; b++) has.add(prng.int(0, b - 1) * n + b);
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) if (!has.has(a * n + b) && prng.chance(0.2)) has.add(a * n + b);
  }
  return [...has].sort((x, y) => x - y).map((cell) => [Math.floor(cell / n), cell % n] as const);
}

/** Each node's neighbours (by id, in id order) under `t`. */
export function neighbours(t: Topology, ids: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const [a, b] of topologyEdges(t, ids.length)) {
    out.get(ids[a]!)!.push(ids[b]!);
    out.get(ids[b]!)!.push(ids[a]!);
  }
  for (const list of out.values()) list.sort((x, y) => ids.indexOf(x) - ids.indexOf(y));
  return out;
}

/**
 * Longest shortest path between two of `ids` along edges between them only (a subset of the
 * nodes: the ones judged), or null when they are not connected that way.
 */
export function diameterAmong(t: Topology, all: readonly string[], ids: readonly string[]): number | null {
  const near = neighbours(t, all);
  const inside = new Set(ids);
  let longest = 0;
  for (const from of ids) {
    const hops = new Map<string, number>([[from, 0]]);
    const queue = [from];
    for (let at = 0; at < queue.length; at++) {
      const s = queue[at]!;
      for (const d of near.get(s) ?? []) {
        if (!inside.has(d) || hops.has(d)) continue;
        hops.set(d, hops.get(s)! + 1);
        queue.push(d);
      }
    }
    if (hops.size !== inside.size) return null;
    for (const h of hops.values()) longest = Math.max(longest, h);
  }
  return longest;
}
