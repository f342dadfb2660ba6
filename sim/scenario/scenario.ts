import type { ErrorCode } from "../../core/errors";
import type { ReplicationTiming } from "../directory/directory-host";
import type { Ref, ScriptOp, ValueArg } from "../directory/script-op";
import type { Contention, LargeValues, OpMix } from "../directory/workload";
import type { FaultConfig, PresetName } from "../faults";
import { mesh, type Topology } from "./topology";

/**
 * A scenario as data (scenarios/*.scn, format in scenarios/README.md): a correctness workload,
 * composable faults, a timed script, durations, and expectations beyond the seven oracles.
 */
export interface Scenario {
  readonly name: string;
  /** The SPEC or DESIGN section the scenario checks (free text, required). */
  readonly checks: string;
  /** Leading comment lines: why the scenario exists. */
  readonly about: readonly string[];
  readonly nodes: number;
  readonly preset: PresetName;
  /** The preset's classes after per-class overrides (`network`, `crashes off`, ...). */
  readonly faults: FaultConfig;
  /** Class lines that overrode the preset, kept for printing. */
  readonly faultLines: readonly string[];
  /** Background workload, writes per second over all nodes (0: scripted ops only). */
  readonly rate: number;
  readonly mix: OpMix | null;
  /** Ops aimed at a few objects (sim/directory/workload.ts); null: none. */
  readonly contention: Contention | null;
  /** A share of `describe` ops writes large values (workload.ts `LargeValues`); null: none. */
  readonly largeValues: LargeValues | null;
  /**
   * Bytes a pull batch stops at (limits.batchBytesTarget when null): lowered, objects of a few
   * large values already go in parts (core/repl/split-delta.ts). Line `batch-bytes N`.
   */
  readonly batchBytes: number | null;
  readonly safetyMs: number;
  /** Virtual-time cap of the liveness phase (the round bound usually decides first). */
  readonly livenessMs: number;
  /** Oracle 7: convergence within this many completed pull rounds after the heal. */
  readonly roundsMax: number;
  /** Nodes that must converge (default: all). */
  readonly converge: readonly string[] | null;
  readonly gcEveryMs: number | null;
  /** Who pulls from whom (sim/scenario/topology.ts). */
  readonly topology: Topology;
  readonly timing: Partial<ReplicationTiming>;
  /** Seeds CI runs (regressions pin theirs); null: the battery's default range. */
  readonly seeds: SeedRange | null;
  /**
   * An open bug this scenario reproduces (regressions only): CI expects every seed to fail
   * and fails once one passes, so the line is removed together with the fix.
   */
  readonly knownBug: string | null;
  /** Livelock guard: the run fails past this many events (null: eventBudget()). */
  readonly maxEvents: number | null;
  /**
   * Every message crosses the simulated network in its wire form (core/repl/wire.ts), decoded
   * afresh at each delivery: the run proves its messages complete and unshared. Line `wire`.
   */
  readonly wire: boolean;
  readonly steps: readonly Step[];
  readonly expects: readonly Expectation[];
}

export interface SeedRange {
  readonly from: number;
  readonly to: number;
}

export type OpOutcome = "ok" | "any" | ErrorCode;

export type StepAction =
  | { readonly kind: "partition"; readonly groups: readonly (readonly string[])[] }
  | { readonly kind: "cut"; readonly from: string; readonly to: string }
  | { readonly kind: "heal-network" }
  | {
      readonly kind: "crash";
      readonly node: string;
      readonly downMs: number;
      readonly torn: boolean;
    }
  | {
      /** A power cut just before the node's `afterWrites`-th mutating disk call from now. */
      readonly kind: "power-cut";
      readonly node: string;
      readonly afterWrites: number;
      /** Count only calls beyond log commits (appends and syncs of wal/ files). */
      readonly beyondCommits: boolean;
      readonly downMs: number;
      /**
       * The last-written file's unsynced writes: lost, torn (a random prefix kept), or kept
       * whole (they reached the disk though their sync never returned).
       */
      readonly unsynced: "lost" | "torn" | "kept";
    }
  | {
      /**
       * A transient I/O error at the node's `afterWrites`-th mutating disk call from now: the
       * call fails without effect; a store that dies of it has its process restarted after
       * `downMs` (World.armDiskError).
       */
      readonly kind: "disk-error";
      readonly node: string;
      readonly afterWrites: number;
      readonly beyondCommits: boolean;
      readonly downMs: number;
    }
  | { readonly kind: "image"; readonly node: string; readonly key: string }
  | {
      readonly kind: "rollback";
      readonly node: string;
      readonly key: string;
      readonly downMs: number;
    }
  | { readonly kind: "clock"; readonly node: string; readonly deltaMs: number }
  | { readonly kind: "pause-pulls" | "resume-pulls"; readonly node: string }
  | {
      readonly kind: "op";
      readonly node: string;
      readonly op: ScriptOp;
      readonly outcome: OpOutcome;
    };

export interface Step {
  readonly atMs: number;
  /** Source line (1-based) for messages; 0 when built in code. */
  readonly line: number;
  readonly action: StepAction;
}

export type ExpectedStage = "alive" | "deleted" | "shredded" | "absent";

export type ExpectCheck =
  | { readonly kind: "cnf"; readonly refs: readonly Ref[] }
  | { readonly kind: "orphaned"; readonly ref: Ref }
  | { readonly kind: "cycle-broken"; readonly refs: readonly Ref[] }
  | {
      readonly kind: "values";
      readonly ref: Ref;
      readonly attribute: string;
      readonly values: readonly ValueArg[];
    }
  | { readonly kind: "stage"; readonly ref: Ref; readonly stage: ExpectedStage }
  | { readonly kind: "path"; readonly ref: Ref; readonly path: string }
  | { readonly kind: "journal" | "no-journal"; readonly node: string; readonly journalKind: string }
  | { readonly kind: "latched-then-healed"; readonly node: string }
  | { readonly kind: "refused"; readonly node: string; readonly source: string }
  | { readonly kind: "quarantine-seen"; readonly node: string }
  | { readonly kind: "ghost-seen"; readonly node: string; readonly ref: Ref };

export interface Expectation {
  readonly line: number;
  /** Nodes the check applies to (null: every node that must converge). */
  readonly on: readonly string[] | null;
  readonly check: ExpectCheck;
}

export const defaultRoundsMax = 3;
export const defaultLivenessMs = 120_000;

/** The optional directives of a scenario, as a parser fills them in. */
export interface ScenarioOptions {
  about: string[];
  faultLines: string[];
  mix: OpMix | null;
  contention: Contention | null;
  largeValues: LargeValues | null;
  batchBytes: number | null;
  livenessMs: number;
  roundsMax: number;
  converge: string[] | null;
  gcEveryMs: number | null;
  /** Who replicates with whom (sim/scenario/topology.ts); `mesh` by default. */
  topology: Topology;
  timing: Partial<Record<keyof ReplicationTiming, number>>;
  seeds: SeedRange | null;
  knownBug: string | null;
  maxEvents: number | null;
  wire: boolean;
  steps: Step[];
  expects: Expectation[];
}

/**
 * The optional directives at their defaults, fresh on every call (a parser fills the arrays
 * in place). Shared by the file parser and the preset and swarm scenarios.
 */
export function scenarioOptionDefaults(): ScenarioOptions {
  return {
    about: [],
    faultLines: [],
    mix: null,
    contention: null,
    largeValues: null,
    batchBytes: null,
    livenessMs: defaultLivenessMs,
    roundsMax: defaultRoundsMax,
    converge: null,
    gcEveryMs: null,
    topology: mesh,
    timing: {},
    seeds: null,
    knownBug: null,
    maxEvents: null,
    wire: false,
    steps: [],
    expects: [],
  };
}

/**
 * The default event budget: about fifty times what a healthy run of this size needs (pull
 * traffic grows with nodes squared, hints with writes times nodes), so a livelock fails the
 * seed in seconds instead of grinding through millions of events.
 */
export function eventBudget(
  s: Pick<Scenario, "nodes" | "rate" | "safetyMs" | "livenessMs">,
): number {
  const seconds = (s.safetyMs + s.livenessMs) / 1000;
  return Math.round(100_000 + 50 * s.nodes * s.nodes * seconds + 20 * s.rate * s.nodes * seconds);
}

/** Node ids of a scenario: n1..nN (n1 founds the domain). */
export function nodeIds(nodes: number): string[] {
  return Array.from({ length: nodes }, (_, i) => `n${i + 1}`);
}

/** Shortest exact rendering: 250ms, 3s, 2m, 1h. */
export function formatDuration(ms: number): string {
  if (ms !== 0 && ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms !== 0 && ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms !== 0 && ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

export function formatSignedDuration(ms: number): string {
  return ms < 0 ? `-${formatDuration(-ms)}` : `+${formatDuration(ms)}`;
}
