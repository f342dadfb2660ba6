import { assert, assertNever } from "../core/assert";
import type { NetworkConfig } from "./network";
import { quietNetwork } from "./network";
import { walDir } from "../core/wal/generation-names";
import type { Prng } from "./prng";
import type { FsOp } from "./sim-fs";

/**
 * Fault classes and their named presets. STYLE 20: inject only faults the design promises to
 * survive. Each class draws from its own PRNG fork, so enabling one class never shifts the
 * schedule of another.
 */

export interface PartitionFaults {
  /** Mean gap between the end of one partition and the start of the next (exponential). */
  readonly meanGapMs: number;
  readonly minDurationMs: number;
  readonly maxDurationMs: number;
  /** Probability that a partition is a set of one-way cuts instead of a split into groups. */
  readonly oneWayP: number;
}

export interface CrashFaults {
  /** Mean gap between crashes (exponential). */
  readonly meanGapMs: number;
  readonly minDownMs: number;
  readonly maxDownMs: number;
  /** Probability that a crash keeps a torn prefix of the last unsynced append. */
  readonly tornP: number;
  /** At most this many nodes down at once (and always at least one node up). */
  readonly maxDownNodes: number;
  /**
   * Probability that a crash strikes inside the victim's storage writes instead of between
   * events: a power cut armed 1-32 mutating disk calls ahead (World.armPowerCut), so it lands
   * between an append and its sync, or inside a rotation, where unsynced bytes exist to lose
   * or tear (between events every commit has synced); a quarter of them arm a down node
   * instead, to strike inside its boot. Drawn from its own fork
   * (`crashes/in-write`): at 0 the crash schedule is what it was before the knob existed.
   * The presets with crashes take 0.5 (since the fourteenth session; files that pinned a
   * seed under the older presets say `inwrite=0`).
   */
  readonly inWriteP: number;
  /**
   * Of the crashes inside writes, the share whose count skips the calls of log commits
   * (appends, positional writes and syncs of `wal/` files), so that they strike inside what
   * log commits otherwise outnumber about six to one: rotations, snapshot writes, erasures,
   * debt files, boots' repairs. From its own fork (`crashes/in-write-where`), drawn only for
   * crashes inside writes: at 0 the schedules are those of inWriteP alone.
   */
  readonly beyondCommitsP: number;
  /**
   * Of the torn crashes inside writes, the share that keeps every unsynced write of the
   * last-written file instead of a random prefix (SimFs keepUnsynced): the bytes reached the
   * disk though the sync never returned, so the operation cut short is durable yet never
   * acknowledged (a random prefix keeps a whole batch about once in its byte count). From its
   * own fork (`crashes/in-write-kept`), drawn only for torn crashes inside writes.
   */
  readonly keptP: number;
}

export interface ClockFaults {
  /** Initial wall skew per node, uniform in [-maxOffsetMs, maxOffsetMs]. */
  readonly maxOffsetMs: number;
  /** Drift per node, uniform in [-maxDriftPpm, maxDriftPpm]. */
  readonly maxDriftPpm: number;
  /** Mean gap between wall-clock jumps (exponential); each hits one node. */
  readonly meanJumpGapMs: number;
  /** Jump size uniform in [-maxJumpMs, maxJumpMs]. */
  readonly maxJumpMs: number;
}

export interface RollbackFaults {
  /** Mean gap between rollbacks (exponential). */
  readonly meanGapMs: number;
  /** How old the restored image is: the image is taken this long before the rollback. */
  readonly minAgeMs: number;
  readonly maxAgeMs: number;
  readonly minDownMs: number;
  readonly maxDownMs: number;
}

export interface FaultConfig {
  /** The network during the safety phase; the liveness phase keeps its latency only. */
  readonly network: NetworkConfig;
  readonly partitions: PartitionFaults | null;
  readonly crashes: CrashFaults | null;
  readonly clocks: ClockFaults | null;
  readonly rollbacks: RollbackFaults | null;
}

export const presetNames = [
  "none",
  "lossy",
  "partitions",
  "crashes",
  "skew",
  "rollback",
  "chaos",
] as const;
export type PresetName = (typeof presetNames)[number];

const wan: NetworkConfig["latency"] = {
  kind: "lognormal",
  medianMs: 10,
  sigma: 0.8,
  minMs: 1,
  maxMs: 2000,
};
const lossyNetwork: NetworkConfig = { latency: wan, lossP: 0.05, dupP: 0.02 };
const partitionFaults: PartitionFaults = {
  meanGapMs: 5000,
  minDurationMs: 500,
  maxDurationMs: 20_000,
  oneWayP: 0.3,
};
const crashFaults: CrashFaults = {
  meanGapMs: 8000,
  minDownMs: 50,
  maxDownMs: 10_000,
  tornP: 0.5,
  maxDownNodes: 2,
  inWriteP: 0.5,
  beyondCommitsP: 0.5,
  keptP: 0,
};
const clockFaults: ClockFaults = {
  maxOffsetMs: 120_000,
  maxDriftPpm: 500,
  meanJumpGapMs: 10_000,
  maxJumpMs: 60_000,
};
const rollbackFaults: RollbackFaults = {
  meanGapMs: 10_000,
  minAgeMs: 1000,
  maxAgeMs: 10_000,
  minDownMs: 50,
  maxDownMs: 2000,
};
const none: FaultConfig = {
  network: quietNetwork,
  partitions: null,
  crashes: null,
  clocks: null,
  rollbacks: null,
};

export function presetFaults(name: PresetName): FaultConfig {
  switch (name) {
    case "none":
      return none;
    case "lossy":
      return { ...none, network: lossyNetwork };
    case "partitions":
      return {
        ...none,
        network: { ...lossyNetwork, lossP: 0, dupP: 0 },
        partitions: partitionFaults,
      };
    case "crashes":
      return { ...none, crashes: crashFaults };
    case "skew":
      return { ...none, clocks: clockFaults };
    case "rollback":
      return { ...none, rollbacks: rollbackFaults };
    case "chaos":
      return {
        network: lossyNetwork,
        partitions: partitionFaults,
        crashes: crashFaults,
        clocks: clockFaults,
        rollbacks: rollbackFaults,
      };
    default:
      return assertNever(name, "preset");
  }
}

export function isPresetName(name: string): name is PresetName {
  return (presetNames as readonly string[]).includes(name);
}

/**
 * Swarm testing (VOPR): the seed varies the preset's knobs so that different seeds explore
 * gentle and harsh corners. Rates scale by a power of two in [1/4, 2]; probabilities by
 * [0, 1]; each class keeps its shape. Only enabled classes change, and from `prng` alone.
 */
export function swarmFaults(base: FaultConfig, prng: Prng): FaultConfig {
  const gap = (ms: number): number => Math.round(ms * 2 ** prng.int(-1, 2));
  const p = (x: number): number => (prng.chance(0.2) ? x : x * prng.float());
  const n = base.network;
  return {
    network: { latency: n.latency, lossP: p(n.lossP), dupP: p(n.dupP) },
    partitions: base.partitions && {
      ...base.partitions,
      meanGapMs: gap(base.partitions.meanGapMs),
    },
    crashes: base.crashes && {
      ...base.crashes,
      meanGapMs: gap(base.crashes.meanGapMs),
      tornP: p(base.crashes.tornP),
    },
    clocks: base.clocks && { ...base.clocks, meanJumpGapMs: gap(base.clocks.meanJumpGapMs) },
    rollbacks: base.rollbacks && { ...base.rollbacks, meanGapMs: gap(base.rollbacks.meanGapMs) },
  };
}

/** What a fault source may do to the world; the world implements it. */
export interface FaultTarget {
  readonly nodeIds: readonly string[];
  isUp(id: string): boolean;
  downCount(): number;
  partition(groups: string[][]): void;
  cut(from: string, to: string): void;
  healNetwork(): void;
  /** Crashes an up node; the world restarts it after downMs. */
  crash(id: string, options: { readonly downMs: number; readonly tornTail: boolean }): void;
  /** Arms a crash inside the node's coming disk writes, its next boot's if down (World.armPowerCut). */
  armPowerCut(id: string, options: PowerCutOptions): void;
  powerCutArmed(id: string): boolean;
  jumpClock(id: string, deltaMs: number): void;
  /** Records the node's durable disk image under `key`. */
  takeImage(id: string, key: string): void;
  /** Crashes the node, restores image `key` onto its disk, restarts it after downMs. */
  rollback(id: string, key: string, downMs: number): void;
}

/**
 * A fault class as a tiny state machine: the world calls `fire` when the previous delay ends;
 * `fire` acts on the target and returns the delay until its next firing, or null to stop.
 */
export interface FaultSource {
  readonly name: string;
  /** Delay before the first firing. */
  firstDelayMs(): number;
  fire(target: FaultTarget): number | null;
}

export function faultSources(config: FaultConfig, prng: Prng): FaultSource[] {
  const sources: FaultSource[] = [];
  if (config.partitions) sources.push(partitionSource(config.partitions, prng.fork("partitions")));
  if (config.crashes) sources.push(crashSource(config.crashes, prng.fork("crashes")));
  if (config.clocks) sources.push(clockJumpSource(config.clocks, prng.fork("clocks")));
  if (config.rollbacks) sources.push(rollbackSource(config.rollbacks, prng.fork("rollbacks")));
  return sources;
}

function partitionSource(c: PartitionFaults, prng: Prng): FaultSource {
  let split = false;
  return {
    name: "partitions",
    firstDelayMs: () => Math.round(prng.exponential(c.meanGapMs)),
    fire(target) {
      if (split) {
        target.healNetwork();
        split = false;
        return Math.round(prng.exponential(c.meanGapMs));
      }
      const ids = [...target.nodeIds];
      if (prng.chance(c.oneWayP)) {
        const cuts = prng.int(1, Math.max(1, ids.length - 1));
        for (let i = 0; i < cuts; i++) {
          const [from, to] = prng.shuffle([...ids]);
          if (from !== undefined && to !== undefined) target.cut(from, to);
        }
      } else {
        target.partition(randomGroups(ids, prng));
      }
      split = true;
      return prng.int(c.minDurationMs, c.maxDurationMs);
    },
  };
}

/** A random split of the nodes into 2..n non-empty groups (ids must number at least 2). */
export function randomGroups(ids: readonly string[], prng: Prng): string[][] {
  assert(ids.length >= 2, "a partition needs two nodes");
  const shuffled = prng.shuffle([...ids]);
  const groupCount = prng.chance(0.7) ? 2 : prng.int(2, shuffled.length);
  const groups: string[][] = [];
  for (let g = 0; g < groupCount; g++) groups.push([]);
  shuffled.forEach((id, i) => {
    // The first groupCount nodes seed one group each so no group is empty.
    const g = i < groupCount ? i : prng.int(0, groupCount - 1);
    groups[g]?.push(id);
  });
  return groups;
}

/** A crash inside the victim's writes lands this many mutating disk calls ahead, at most. */
export const maxWritesBeforeCut = 32;

export interface PowerCutOptions {
  readonly afterWrites: number;
  readonly downMs: number;
  readonly tornTail: boolean;
  /** Count only calls beyond log commits (isLogCommitCall) towards afterWrites. */
  readonly beyondCommits: boolean;
  /** With tornTail: keep every unsynced write of the last-written file (SimFs CrashOptions). */
  readonly keepUnsynced?: boolean;
}

/** A call of a log commit: an append or positional write into, or a sync of, a `wal/` file. */
export function isLogCommitCall(op: FsOp, path: string): boolean {
  return (op === "append" || op === "writeAt" || op === "sync") && path.startsWith(`${walDir}/`);
}

function crashSource(c: CrashFaults, prng: Prng): FaultSource {
  const inWrite = prng.fork("in-write");
  const where = prng.fork("in-write-where");
  const kept = prng.fork("in-write-kept");
  return {
    name: "crashes",
    // Not at 0 ms: the nodes boot then, and a scenario's steps at 0 s (set-up, such as the
    // swarm's ageing config on n1) run after the world's events of that instant, so a crash
    // drawn at 0 left them nothing to run on (swarm --preset chaos seed 6536).
    firstDelayMs: () => Math.max(1, Math.round(prng.exponential(c.meanGapMs))),
    fire(target) {
      const ids = target.nodeIds;
      const up = ids.filter((id) => target.isUp(id) && !target.powerCutArmed(id));
      const maxDown = Math.min(c.maxDownNodes, ids.length - 1);
      // Draw the same number of values whether or not the crash happens, so the stream's
      // position does not depend on the world's state.
      const victim = up.length > 0 ? prng.pick(up) : null;
      const downMs = prng.int(c.minDownMs, c.maxDownMs);
      const tornTail = prng.chance(c.tornP);
      let afterWrites = 0;
      let beyondCommits = false;
      let keepUnsynced = false;
      let inBoot: string | null = null;
      if (c.inWriteP > 0 && inWrite.chance(c.inWriteP)) {
        afterWrites = inWrite.int(1, maxWritesBeforeCut);
        beyondCommits = c.beyondCommitsP > 0 && where.chance(c.beyondCommitsP);
        keepUnsynced = tornTail && c.keptP > 0 && kept.chance(c.keptP);
        // A quarter of them strike inside the boot of a node that is down (recovery's own
        // writes: cutting a torn tail, the boot's commit), when one is.
        const bootCut = inWrite.chance(0.25);
        const pickAt = inWrite.int(0, ids.length - 1);
        const down = ids.filter((id) => !target.isUp(id) && !target.powerCutArmed(id));
        if (bootCut && down.length > 0) inBoot = down[pickAt % down.length] ?? null;
      }
      const cut = { afterWrites, downMs, tornTail, beyondCommits, ...(keepUnsynced ? { keepUnsynced } : {}) };
      if (inBoot !== null) {
        target.armPowerCut(inBoot, cut);
      } else if (victim !== null && target.downCount() < maxDown) {
        if (afterWrites > 0) target.armPowerCut(victim, cut);
        else target.crash(victim, { downMs, tornTail });
      }
      return Math.round(prng.exponential(c.meanGapMs));
    },
  };
}

function clockJumpSource(c: ClockFaults, prng: Prng): FaultSource {
  return {
    name: "clocks",
    firstDelayMs: () => Math.round(prng.exponential(c.meanJumpGapMs)),
    fire(target) {
      target.jumpClock(prng.pick(target.nodeIds), prng.int(-c.maxJumpMs, c.maxJumpMs));
      return Math.round(prng.exponential(c.meanJumpGapMs));
    },
  };
}

/** The rollback fault source's image keys begin so; a scenario's own image keys may not. */
export const faultImageKeyPrefix = "fault-img";

function rollbackSource(c: RollbackFaults, prng: Prng): FaultSource {
  let pending: { readonly id: string; readonly key: string } | null = null;
  let count = 0;
  return {
    name: "rollbacks",
    firstDelayMs: () => Math.round(prng.exponential(c.meanGapMs)),
    fire(target) {
      if (pending === null) {
        const id = prng.pick(target.nodeIds);
        const key = `${faultImageKeyPrefix}${count++}`;
        target.takeImage(id, key);
        pending = { id, key };
        return prng.int(c.minAgeMs, c.maxAgeMs);
      }
      const downMs = prng.int(c.minDownMs, c.maxDownMs);
      // A node that is down (crashed by another class) keeps its disk; the image waits.
      if (target.isUp(pending.id)) target.rollback(pending.id, pending.key, downMs);
      pending = null;
      return Math.round(prng.exponential(c.meanGapMs));
    },
  };
}

/** Initial clock parameters of one node under clock faults, from the node's own fork. */
export function skewedClock(c: ClockFaults, prng: Prng): { offsetMs: number; driftPpm: number } {
  return {
    offsetMs: prng.int(-c.maxOffsetMs, c.maxOffsetMs),
    driftPpm: prng.range(-c.maxDriftPpm, c.maxDriftPpm),
  };
}
