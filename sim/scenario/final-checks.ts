import type { DirectoryNode } from "../../core/node/directory-node";
import type { DirectoryWorld } from "../directory/directory-world";
import { EffectiveView } from "../../core/view/effective-view";
import {
  convergenceViolations,
  durabilityViolations,
  rollbackViolations,
  schemaViolations,
  treeViolations,
} from "../directory/oracles";
import { bootViolations } from "../directory/boot-oracle";
import { erasureViolations } from "../directory/erasure-oracle";
import type { ResurrectionOracle } from "../directory/resurrection-oracle";
import type { Probes } from "./expectations";
import { checkExpectation } from "./expectations";
import type { RoundTracker } from "./round-tracker";
import type { Scenario } from "./scenario";
import { formatDuration } from "./scenario";

const perOracleMax = 12;
/** The boot-equivalence oracle judges one node of every `bootEvery`-th seed. */
const bootEvery = 4;

export interface FinishedRun {
  readonly s: Scenario;
  readonly seed: number;
  readonly dw: DirectoryWorld;
  readonly judged: readonly string[];
  readonly rounds: RoundTracker;
  readonly oracle: ResurrectionOracle;
  readonly probes: Probes;
  readonly converged: { rounds: number; atMs: number } | null;
  readonly healMs: number;
}

/**
 * What the liveness phase waits for: the judged nodes agree (oracle 1, quickConverged) and have
 * healed from every disk rollback a partner could expose (oracle 6: nothing latched, no vector
 * holding evidence its node has not acted upon). Agreement alone can come first: a node rolled
 * back to an image taken while it was down, restarted in between, loses no atom but an
 * invocation its partners hold (scenarios/regressions/rollback-evidence-after-agreement.scn).
 */
export function settled(
  nodes: ReadonlyMap<string, DirectoryNode>,
  hardenedEver: ReadonlySet<string> = new Set(),
  pullsFrom?: (dest: string, source: string) => boolean,
): boolean {
  return quickConverged(nodes, hardenedEver) && rollbackViolations(nodes, pullsFrom).length === 0;
}

/**
 * Oracle 1 as a predicate, cheapest test first: every judged node holds the same number of
 * records and the same USN-independent atom digest before the views are compared.
 */
export function quickConverged(
  nodes: ReadonlyMap<string, DirectoryNode>,
  hardenedEver: ReadonlySet<string> = new Set(),
): boolean {
  // Equal sizes are a cheap first test, unless GC ran: each node purges on its own clock.
  const gcRan = [...nodes.values()].some((node) => node.purgeHorizonMs !== null);
  let size = -1;
  for (const node of gcRan ? [] : nodes.values()) {
    const n = node.dir.store.size;
    if (size >= 0 && n !== size) return false;
    size = n;
  }
  return convergenceViolations(nodes, new Map(), hardenedEver).length === 0;
}

/** Every oracle at the end of a run, then the scenario's expectations. */
export function finalViolations(
  run: FinishedRun,
  judged: ReadonlyMap<string, DirectoryNode>,
): string[] {
  const out: string[] = [];
  const add = (oracle: string, list: readonly string[]): void => {
    for (const v of list.slice(0, perOracleMax)) out.push(`${oracle}: ${v}`);
    if (list.length > perOracleMax) out.push(`${oracle}: ... ${list.length - perOracleMax} more`);
  };
  const all = run.dw.nodes();
  // One view per node, shared by the convergence and tree oracles (facts are cached per view).
  const views = new Map<string, EffectiveView>();
  for (const [simId, node] of all) views.set(simId, new EffectiveView(node.dir));
  if (run.converged === null) {
    const rounds = run.rounds.completed;
    const elapsed = formatDuration(run.dw.world.timeMs - run.healMs);
    const refused = run.rounds.refusals;
    const excused = refused.length === 0 ? "" : `; pulls refused for good: ${refused.join(" ")}`;
    add("liveness", [
      `no convergence within ${run.rounds.bound(run.s.roundsMax)} rounds (${rounds} completed, ${elapsed} after the heal${excused})`,
    ]);
    add("convergence", convergenceViolations(judged, views, hardenedEver(run.dw)));
  }
  for (const [simId, node] of all) add("tree", treeViolations(simId, node, views.get(simId)));
  const ackedBy = new Set(run.judged);
  add(
    "durability",
    durabilityViolations(run.dw.ledger, judged, {
      ackedBy,
      purged: (n, id) => run.oracle.wasPurged(n, id) || run.oracle.purgedElsewhereUnseen(n, id),
    }),
  );
  const resurrection: string[] = [];
  for (const [simId, node] of all) run.oracle.check(simId, node, resurrection);
  add("no-resurrection", resurrection);
  for (const [simId, node] of judged) add("schema", schemaViolations(simId, node));
  add("rollback", rollbackViolations(judged, run.dw.pullsFrom));
  const erasure: string[] = [];
  for (const [simId, node] of all) {
    const state = run.dw.hosts.get(simId)?.erasure ?? null;
    if (state !== null) {
      const fs = run.dw.world.node(simId).fs;
      erasure.push(...erasureViolations(simId, node, fs, state, run.oracle.purgedBy(simId)));
    }
  }
  add("erasure", erasure);
  // One node every fourth seed, chosen by the seed: restarting all five nodes of every run
  // cost ~3 % of a standard seed, one node per run ~2 %. A battery still judges every node.
  const up = [...all.keys()].sort();
  if (run.seed % bootEvery === 0 && up.length > 0) {
    const restarted = up[(run.seed / bootEvery) % up.length]!;
    add("boot", bootViolations(restarted, all.get(restarted)!, run.dw.world.node(restarted).fs));
  }
  const ctx = {
    nodes: all,
    hosts: run.dw.hosts,
    judged: run.judged,
    labels: run.dw.labels,
    probes: run.probes,
  };
  for (const e of run.s.expects) add("expect", checkExpectation(e, ctx));
  return out;
}

/** Tombstones any node's GC ever hardened (see DirectoryHost.hardenedIds). */
export function hardenedEver(dw: DirectoryWorld): Set<string> {
  const out = new Set<string>();
  for (const host of dw.hosts.values()) for (const id of host.hardenedIds) out.add(id);
  return out;
}
