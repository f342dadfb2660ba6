import type { Result } from "../../core/errors";
import type { DirectoryNode } from "../../core/node/directory-node";
import { defaultTiming } from "../directory/directory-host";
import type { DirectoryHost } from "../directory/directory-host";
import type { DirectoryWorld } from "../directory/directory-world";
import { directoryWorld } from "../directory/directory-world";
import { ResurrectionOracle } from "../directory/resurrection-oracle";
import { Labels } from "../directory/run-script-op";
import { SimFailure } from "../world";
import { workKinds } from "../work-meter";
import type { WorkMeter } from "../work-meter";
import { Probes } from "./expectations";
import { finalViolations, hardenedEver, settled } from "./final-checks";
import { actionText } from "./print-scenario";
import { RoundTracker } from "./round-tracker";
import { neighbours } from "./topology";
import type { Scenario, Step } from "./scenario";
import { eventBudget, nodeIds } from "./scenario";

export interface RunOptions {
  readonly seed: number;
  /** Keep every trace line (for printing or divergence search); costs memory. */
  readonly keepTrace?: boolean;
  readonly traceRingLines?: number;
  /** Hard bound on events (a livelock guard); default: the scenario's, else eventBudget(). */
  readonly maxEvents?: number;
  /** Debugging: called after every event with the world (e.g. to watch one object). */
  afterEvent?(dw: DirectoryWorld): void;
  /** Told the kind of work as the run moves between kinds (where the wall time goes). */
  readonly meter?: WorkMeter;
}

export interface RunReport {
  readonly scenario: string;
  readonly seed: number;
  readonly pass: boolean;
  readonly violations: readonly string[];
  /** Completed pull rounds after the heal when convergence was first seen (null: never). */
  readonly rounds: number | null;
  /** Virtual ms from the heal to convergence (null: never). */
  readonly convergedAfterMs: number | null;
  readonly events: number;
  readonly traceHash: string;
  /** The trace's hash after every `checkpointLines` lines (sim/trace.ts). */
  readonly traceCheckpoints: readonly string[];
  /** The ring of last trace lines, or every line with keepTrace. */
  readonly trace: readonly string[];
  readonly virtualMs: number;
  readonly outcomes: ReadonlyMap<string, number>;
  /**
   * Entries of the largest up-to-dateness vector a running node holds at the end (bounded: the
   * four newest of every node, and a direct source's entries since its floor; vector-bound.ts).
   */
  readonly vectorEntries: number;
}

/** Mutable state of one run, shared by the phases below. */
interface Run {
  readonly s: Scenario;
  readonly seed: number;
  readonly dw: DirectoryWorld;
  readonly judged: readonly string[];
  readonly rounds: RoundTracker;
  readonly oracle: ResurrectionOracle;
  readonly probes: Probes;
  readonly inline: string[];
  readonly stepOf: Map<number, Step>;
  readonly meter: WorkMeter | undefined;
  converged: { rounds: number; atMs: number } | null;
  healMs: number;
}

/**
 * Runs one (scenario, seed): safety phase with the preset's faults, the background workload
 * and the script; heal; liveness phase until the nodes that must converge do, judged at each
 * round boundary; then the oracles and the scenario's expectations. Deterministic: the same
 * commit, scenario and seed give the same trace hash.
 */
export function runScenario(s: Scenario, options: RunOptions): RunReport {
  options.meter?.(workKinds.setup);
  const run = setUp(s, options);
  const { world } = run.dw;
  const violations: string[] = [];
  try {
    world.start();
    scriptPhase(run);
    livenessPhase(run);
    options.meter?.(workKinds.final);
    violations.push(...run.inline, ...finalViolations(run, judgedNodes(run)));
  } catch (error) {
    if (!(error instanceof SimFailure)) throw error;
    // A scripted step that failed before the run broke off stays in the report.
    violations.push(...run.inline, error.reason);
  }
  const trace = options.keepTrace === true ? [...world.trace.lines()] : world.trace.tail();
  return {
    scenario: s.name,
    seed: options.seed,
    pass: violations.length === 0,
    violations,
    rounds: run.converged?.rounds ?? null,
    convergedAfterMs: run.converged === null ? null : run.converged.atMs - run.healMs,
    events: world.events,
    traceHash: world.trace.hashHex(),
    traceCheckpoints: world.trace.checkpoints(),
    trace,
    virtualMs: world.timeMs,
    outcomes: run.dw.ledger.outcomes,
    vectorEntries: largestVector(run.dw),
  };
}

function largestVector(dw: DirectoryWorld): number {
  let most = 0;
  for (const node of dw.nodes().values()) most = Math.max(most, Object.keys(node.replication.utd).length);
  return most;
}

function setUp(s: Scenario, options: RunOptions): Run {
  const ids = nodeIds(s.nodes);
  const judged = s.converge ?? ids;
  const labels = new Labels();
  const inline: string[] = [];
  const stepOf = new Map<number, Step>();
  let dw: DirectoryWorld | null = null;
  const near = neighbours(s.topology, ids);
  const rounds = new RoundTracker(judged, (dest, source) => near.get(dest)?.includes(source) ?? false);
  const probes = new Probes(s.expects, labels);
  const oracles: { oracle: ResurrectionOracle | null } = { oracle: null };
  const hosts = (): DirectoryWorld["hosts"] => (dw === null ? new Map() : dw.hosts);
  const rollbacks = new Map<string, number>();
  const invariants = (): readonly string[] => {
    const out: string[] = [];
    for (const [id, host] of hosts()) {
      if (host.node === null) continue;
      oracles.oracle?.check(id, host.node, out);
      remintGuard(id, host, rollbacks.get(id) ?? 0, s.nodes, out);
    }
    if (!probes.idle) probes.observe(hosts());
    if (options.afterEvent !== undefined && dw !== null) options.afterEvent(dw);
    return out;
  };
  dw = directoryWorld({
    seed: options.seed,
    nodeCount: s.nodes,
    faults: s.faults,
    writesPerSecond: s.rate,
    ...(s.mix !== null ? { mix: s.mix } : {}),
    contention: s.contention,
    largeValues: s.largeValues,
    timing: { ...defaultTiming, ...s.timing },
    keepTrace: options.keepTrace ?? false,
    traceRingLines: options.traceRingLines ?? 200,
    gcEveryMs: s.gcEveryMs,
    topology: s.topology,
    labels,
    maxEvents: options.maxEvents ?? s.maxEvents ?? eventBudget(s),
    ...(options.meter ? { meter: options.meter } : {}),
    wire: s.wire,
    batchBytes: s.batchBytes,
    invariants,
    observe: (event) => {
      if (event.kind !== "rollback" || event.node === null) return;
      oracles.oracle?.rolledBack(event.node);
      rollbacks.set(event.node, (rollbacks.get(event.node) ?? 0) + 1);
    },
    hooks: {
      onPullDone: (dest, source, startedMs) =>
        rounds.pullDone(dest, source, startedMs, dw?.world.timeMs ?? 0),
      onPullRefused: (dest, source) => rounds.excuse(dest, source, dw?.world.timeMs ?? 0),
      onPurged: (simId, ids) => oracles.oracle?.notePurged(simId, ids),
      onViolation: (text) => inline.push(text),
      onScriptResult: (index, simId, result) =>
        judgeScriptResult(stepOf.get(index), simId, result, inline),
    },
  });
  const oracle = new ResurrectionOracle(dw.ledger);
  oracles.oracle = oracle;
  return {
    s,
    seed: options.seed,
    dw,
    judged,
    rounds,
    oracle,
    probes,
    inline,
    stepOf,
    meter: options.meter,
    converged: null,
    healMs: 0,
  };
}

/**
 * Oracle 6, continuously (and a livelock guard): a node re-mints its invocation once per boot
 * and once per new piece of rollback evidence. Evidence comes from partners that pulled what
 * a rollback erased, so per injected rollback a node can meet a few pieces per partner; more
 * re-mints than that means it acts on the same evidence again and again.
 */
function remintGuard(
  id: string,
  host: DirectoryHost,
  rollbacks: number,
  nodes: number,
  out: string[],
): void {
  const node = host.node;
  if (node === null) return;
  const evidenceRemints = node.replication.retired.length - host.recoveredBoots;
  const allowed = 4 * nodes * rollbacks + 2;
  if (evidenceRemints > allowed) {
    out.push(
      `${id} re-minted its invocation ${evidenceRemints} times on rollback evidence (${rollbacks} rollbacks; at most ${allowed})`,
    );
  }
}

function judgeScriptResult(
  step: Step | undefined,
  simId: string,
  result: Result<unknown>,
  out: string[],
): void {
  if (step === undefined || step.action.kind !== "op") return;
  const want = step.action.outcome;
  const got = result.ok ? "ok" : result.code;
  if (want === "any" || want === got) return;
  const why = result.ok ? "" : ` (${result.message})`;
  out.push(
    `line ${step.line}: ${simId} ${actionText(step.action).slice(simId.length + 1)} gave ${got}${why}, expected ${want}`,
  );
}

/** The safety phase: scripted steps at their times (file order breaks ties). */
function scriptPhase(run: Run): void {
  const { world } = run.dw;
  const steps = run.s.steps
    .map((step, index) => ({ step, index }))
    .sort((a, b) => a.step.atMs - b.step.atMs || a.index - b.index);
  for (const { step, index } of steps) {
    if (world.runUntil(step.atMs) === "event-bound")
      return world.fail("event bound hit in the safety phase");
    run.stepOf.set(index, step);
    applyStep(run, step, index);
  }
  if (world.runUntil(run.s.safetyMs) === "event-bound")
    world.fail("event bound hit in the safety phase");
}

function applyStep(run: Run, step: Step, index: number): void {
  const { world, hosts } = run.dw;
  const a = step.action;
  switch (a.kind) {
    case "partition":
      return world.partition(a.groups.map((g) => [...g]));
    case "cut":
      return world.cut(a.from, a.to);
    case "heal-network":
      return world.healNetwork();
    case "crash":
      if (world.isUp(a.node)) world.crash(a.node, { downMs: a.downMs, tornTail: a.torn });
      return;
    case "power-cut":
      // One cut armed at a time per node: a step arming a second while one waits is ignored.
      if (!world.powerCutArmed(a.node)) {
        world.armPowerCut(a.node, {
          afterWrites: a.afterWrites,
          downMs: a.downMs,
          tornTail: a.unsynced !== "lost",
          beyondCommits: a.beyondCommits,
          ...(a.unsynced === "kept" ? { keepUnsynced: true } : {}),
        });
      }
      return;
    case "disk-error":
      return world.armDiskError(a.node, { afterWrites: a.afterWrites, beyondCommits: a.beyondCommits, downMs: a.downMs });
    case "image":
      return world.takeImage(a.node, a.key);
    case "rollback":
      return world.rollback(a.node, a.key, a.downMs);
    case "clock":
      return world.jumpClock(a.node, a.deltaMs);
    case "pause-pulls":
    case "resume-pulls": {
      const host = hosts.get(a.node);
      if (host !== undefined) host.pullsPaused = a.kind === "pause-pulls";
      return;
    }
    case "op":
      if (world.isUp(a.node)) {
        world.inject(a.node, { kind: "script", op: a.op, index });
        // A power cut inside the op's writes (crashes inwrite=): it reported no outcome.
        if (!world.isUp(a.node) && a.outcome !== "any")
          run.inline.push(`line ${step.line}: ${a.node} crashed inside the op, its outcome is unknown`);
        return;
      }
      if (a.outcome !== "any")
        run.inline.push(`line ${step.line}: ${a.node} is down, the op did not run`);
      return;
  }
}

/** Heal, then run until the judged nodes converge at a round boundary or the bound passes. */
function livenessPhase(run: Run): void {
  const { world, hosts } = run.dw;
  const meter = run.meter;
  for (const host of hosts.values()) host.pullsPaused = false;
  meter?.(workKinds.heal);
  world.heal();
  run.healMs = world.timeMs;
  run.rounds.begin(world.timeMs);
  meter?.(workKinds.convergence);
  if (isConverged(run)) {
    run.converged = { rounds: 0, atMs: world.timeMs };
    return;
  }
  const stop = (): boolean => {
    if (!run.rounds.boundaryPending) return false;
    run.rounds.boundaryPending = false;
    meter?.(workKinds.convergence);
    if (isConverged(run)) {
      run.converged = { rounds: run.rounds.completed, atMs: world.timeMs };
      return true;
    }
    return run.rounds.completed >= run.rounds.bound(run.s.roundsMax);
  };
  const end = run.healMs + run.s.livenessMs;
  if (world.runUntil(end, stop, 0) === "event-bound")
    world.fail("event bound hit in the liveness phase");
}

export function judgedNodes(run: {
  dw: DirectoryWorld;
  judged: readonly string[];
}): Map<string, DirectoryNode> {
  const all = run.dw.nodes();
  const out = new Map<string, DirectoryNode>();
  for (const id of run.judged) {
    const node = all.get(id);
    if (node !== undefined) out.set(id, node);
  }
  return out;
}

function isConverged(run: Run): boolean {
  const nodes = judgedNodes(run);
  if (nodes.size !== run.judged.length) return false;
  return settled(nodes, hardenedEver(run.dw), run.dw.pullsFrom);
}
