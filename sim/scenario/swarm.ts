import { limits } from "../../core/limits";
import type { DirectoryOpKind } from "../directory/directory-op";
import { defaultTiming, type ReplicationTiming } from "../directory/directory-host";
import type { Contention, LargeValues, OpMix } from "../directory/workload";
import { defaultMix, schemaLifeKinds } from "../directory/workload";
import type { ClockFaults, FaultConfig, PresetName } from "../faults";
import { presetFaults, swarmFaults } from "../faults";
import { Prng } from "../prng";
import type { Scenario, Step } from "./scenario";
import { defaultLivenessMs, nodeIds, scenarioOptionDefaults } from "./scenario";
import { diameterAmong, mesh, type Topology } from "./topology";

/**
 * Scenarios without a file. A preset run: the given preset at fixed size. A swarm seed (VOPR):
 * the seed alone derives node count (3-7; 8-16 on one seed in eight, fork `large`), which
 * fault classes are on and their rates (inside the presets' envelope, via swarmFaults), the
 * write rate, the op mix and the safety length,
 * from its own stream (`swarm/<seed>`), so the world's streams are untouched; and, from a fork
 * of that stream (`gc`) so the knobs above stay what they were before it existed, whether
 * tombstones age in the run: on half the seeds GC runs every 1-10 s with a restore window
 * (timeUntilShred) of 10-60 s, set by n1 at 0 s, so hardening races restores, shreds and
 * partners under the seed's faults. On half of those with true or mild clocks a purge horizon
 * (maxTimeApart) of 90-150 s purges tombstones and drops residue within the run too (chaos
 * clocks sit up to 2 minutes apart, and a horizon that short refuses partners by design; and
 * not where the replication graph may take longer than it to cross, skew counted:
 * withinCrossing). From the fork `mild-clocks`: on half the seeds with clocks, offsets of
 * seconds instead of minutes, so that purges also run on skewed clocks. From the fork
 * `disk-errors`: on a quarter of the seeds, transient disk errors.
 * From the fork `in-write`: on half the seeds with crashes, crashes inside disk writes (with
 * `in-write-where` and `in-write-kept`: beyond log commits, whole writes kept). From
 * the fork `topology`: on half the seeds of 4 nodes or more, a ring, line, star or sparse
 * random graph instead of the full mesh (the liveness cap grows with its diameter). From the
 * fork `pace`: on half the seeds another pull period, jitter and hint delay. From the fork
 * `contention`: on half the seeds a share of ops aimed at a few objects.
 * It found three oracle bugs and a pull cycle starving under loss (scenarios/regressions:
 * residue-floor-covers-younger-value, purges-remembered-across-rollback,
 * refused-pair-holds-rounds-open, pull-cycle-starves-under-loss), and with crashes inside
 * writes the erasure debt raised after its overwrite (erasure-debt-raised-before-commit);
 * with topologies and pace, a purge horizon shorter than a wide graph's crossing (seed 8726:
 * see withinCrossing) and a crash drawn at 0 ms, before the set-up steps
 * (crash-at-time-zero-before-setup); with disk errors, a boot that built on a log whose name a
 * failed directory sync had left unsynced (boot-builds-on-unsynced-log, --preset crashes seed
 * 1430).
 */

export interface PresetRun {
  readonly preset: PresetName;
  readonly nodes: number;
  readonly rate: number;
  readonly safetyMs: number;
}



export function presetScenario(p: PresetRun): Scenario {
  return {
    ...scenarioOptionDefaults(),
    name: `preset-${p.preset}`,
    checks: `DESIGN "Oracles" 1-7 under the ${p.preset} preset`,
    nodes: p.nodes,
    preset: p.preset,
    faults: presetFaults(p.preset),
    rate: p.rate,
    safetyMs: p.safetyMs,
  };
}

const kinds: readonly DirectoryOpKind[] = Object.keys(defaultMix).sort() as DirectoryOpKind[];

/**
 * The swarm scenario of `seed`. With `base`, the fault classes are that preset's (knobs
 * still varied per seed); without, each class is on with probability 1/2.
 */
export function swarmScenario(seed: number, base: PresetName | null = null): Scenario {
  const prng = new Prng(`swarm/${seed}`);
  // Drawn on every seed, so a large seed's other knobs are what they were before it existed.
  const usualNodes = prng.int(3, 7);
  const nodes = swarmLarge(prng.fork("large")) ?? usualNodes;
  const faults = swarmMildClocks(
    swarmInWrite(
      swarmFaultConfig(prng, base),
      prng.fork("in-write"),
      prng.fork("in-write-where"),
      prng.fork("in-write-kept"),
    ),
    prng.fork("mild-clocks"),
  );
  const rate = Math.round(2 ** prng.range(0, Math.log2(20)) * 10) / 10;
  const mix: Partial<Record<DirectoryOpKind, number>> = {};
  for (const k of kinds) mix[k] = prng.chance(0.2) ? 0 : prng.int(1, 30);
  mix.create = Math.max(mix.create ?? 0, 5);
  Object.assign(mix, swarmSchemaLife(prng.fork("schema-life")));
  Object.assign(mix, swarmMemberMeta(prng.fork("member-meta"), mix.member ?? 0));
  Object.assign(mix, swarmTypedValues(prng.fork("typed-values"), mix));
  const safetyMs = prng.int(3, 12) * 10_000;
  const timing = { ...swarmTiming(prng.fork("timing")), ...swarmPace(prng.fork("pace")) };
  const ageing = swarmAgeing(prng.fork("gc"), faults.clocks === null || isMild(faults.clocks));
  if (ageing !== null) Object.assign(mix, swarmWindowChanges(prng.fork("window-changes")));
  const topology = swarmTopology(prng.fork("topology"), nodes);
  const contention = swarmContention(prng.fork("contention"));
  const largeValues = swarmLargeValues(prng.fork("large-values"));
  const ids = nodeIds(nodes);
  const diameter = diameterAmong(topology, ids, ids) ?? nodes - 1;
  const pace = { ...defaultTiming, ...timing };
  return {
    ...scenarioOptionDefaults(),
    name: base === null ? `swarm-${seed}` : `swarm-${base}-${seed}`,
    checks: `DESIGN "Oracles" 1-7 on a swarm seed (STYLE 19)`,
    about: [`Swarm seed ${seed}: knobs derived from the seed (sim/scenario/swarm.ts).`],
    nodes,
    preset: "none",
    faults,
    rate,
    mix: mix as OpMix,
    contention,
    safetyMs,
    gcEveryMs: ageing?.gcEveryMs ?? null,
    steps: [
      ...(ageing === null ? [] : withinCrossing(ageing.steps, diameter, pace, faults, safetyMs)),
      ...swarmDiskErrors(prng.fork("disk-errors"), nodes, safetyMs),
    ],
    timing,
    topology,
    livenessMs: livenessFor(diameter, pace),
    wire: swarmWire(prng.fork("wire")),
    largeValues,
    batchBytes: largeValues === null ? null : swarmBatchBytes(prng.fork("batch-bytes"), largeValues),
  };
}

/**
 * On one seed in eight, a share of the describe ops writes values of up to SPEC's 1 MiB:
 * records of megabytes in logs that rotate at 4 MiB, in snapshots, in erasures, and in pull
 * batches bounded in bytes.
 */
function swarmLargeValues(prng: Prng): LargeValues | null {
  if (!prng.chance(1 / 8)) return null;
  const maxBytes = prng.pick([16 * 1024, 128 * 1024, 1024 * 1024]);
  return { share: prng.pick([0.02, 0.05, 0.2]), minBytes: 100, maxBytes };
}

/**
 * On half of the large-value seeds, pull batches stop at a quarter of, once or four times the
 * largest value (at least 1 KiB) instead of 4 MiB, so objects of a few large values go in
 * parts (core/repl/split-delta.ts) and cycles end inside objects, under every fault the seed
 * draws (a single value above the target goes alone in its part).
 */
function swarmBatchBytes(prng: Prng, largeValues: LargeValues): number | null {
  if (!prng.chance(1 / 2)) return null;
  const target = largeValues.maxBytes * prng.pick([0.25, 1, 4]);
  return Math.min(limits.batchBytesTarget, Math.max(1024, target));
}

/**
 * On one seed in eight, every message crosses the network in its wire form (core/repl/wire.ts):
 * the codec meets every kind of delta the swarm makes, and a receiver sharing a sender's
 * objects would show. It changes no trace (sim/directory/wire-run.test.ts compares them), and
 * costs such a seed about 40 % more wall time.
 */
function swarmWire(prng: Prng): boolean {
  return prng.chance(1 / 8);
}

/**
 * On one seed in eight, a larger domain of 8-16 nodes (item 1's "any number of nodes"): vectors
 * with more entries, rollback evidence and atoms crossing more third nodes, wider sparse
 * graphs, lines and rings. Null: the seed's usual 3-7.
 */
function swarmLarge(prng: Prng): number | null {
  return prng.chance(1 / 8) ? prng.int(8, 16) : null;
}

/**
 * On half the seeds of 4 nodes or more, a topology other than the full mesh: ring, line, star
 * or a sparse random graph, where atoms, vector entries and rollback evidence reach most
 * nodes only through third nodes, and the liveness bound is 2 x diameter + 1 > 3.
 */
function swarmTopology(prng: Prng, nodes: number): Topology {
  if (nodes < 4 || !prng.chance(0.5)) return mesh;
  const kind = prng.pick(["ring", "line", "star", "sparse"] as const);
  return kind === "sparse" ? { kind, seed: prng.int(1, 1_000_000) } : { kind };
}

/**
 * The ageing steps without the purge horizon when an atom may take longer than it to cross the
 * replication graph (swarm seed 8726: a line of 6 pulling every 20-40 s, where a shredded
 * object's tombstone aged past a 110 s horizon and was purged upstream before it ever reached
 * the far end). maxTimeApart must exceed the end-to-end replication latency, as AD's tombstone
 * lifetime must (ARCHITECTURE.md): refusing partners apart for longer only guards one hop. In
 * the mesh every node also pulls from the node that deleted the object, within the horizon or
 * refused, so the rule is for wider graphs. A
 * hop's bound: a pull period with its jitter, the hint delay, a timed-out answer, the longest
 * partition and crash of the seed, and 2 s of network; with clocks, also how far apart two
 * nodes' clocks can get (skewBoundMs), since a node ahead purges early by that much.
 */
function withinCrossing(
  steps: Step[],
  diameter: number,
  t: ReplicationTiming,
  faults: FaultConfig,
  safetyMs: number,
): Step[] {
  // Clocks apart shorten the horizon: a node ahead purges early by what it is ahead.
  const skewMs = faults.clocks === null ? 0 : skewBoundMs(faults.clocks, safetyMs);
  if (diameter <= 1 && skewMs === 0) return steps;
  const hopMs =
    t.pullEveryMs +
    t.pullJitterMs +
    t.hintDelayMs +
    t.pullTimeoutMs +
    (faults.partitions?.maxDurationMs ?? 0) +
    (faults.crashes?.maxDownMs ?? 0) +
    2000;
  return steps.filter((step) => {
    const a = step.action;
    const horizon = a.kind === "op" && a.op.verb === "config" && a.op.attribute === "maxTimeApart" ? a.op.seconds : null;
    return horizon === null || diameter * hopMs + skewMs <= horizon * 1000;
  });
}

/**
 * The liveness phase's cap: the default, or room for 2 x diameter + 1 rounds, each a pull
 * period with its jitter and a timed-out answer (~15 s at the default timing).
 */
function livenessFor(diameter: number, t: ReplicationTiming): number {
  const roundMs = Math.max(15_000, t.pullEveryMs + t.pullJitterMs + t.pullTimeoutMs);
  return Math.max(defaultLivenessMs, (2 * diameter + 1) * roundMs);
}

/**
 * On a third of the seeds: schema life (workload.ts `schemaLifeKinds`), each of its op kinds
 * weighted 1-8 or (one in five) left out: facets, classes and extensions defined, namespaced
 * classes instantiated (ghosts where the class has not arrived), facets attached, namespaced
 * attributes written and definitions deleted while other nodes use them. Drawn from its own
 * stream, so a seed without it is what it was.
 */
function swarmSchemaLife(prng: Prng): Partial<Record<DirectoryOpKind, number>> {
  const out: Partial<Record<DirectoryOpKind, number>> = {};
  if (!prng.chance(1 / 3)) return out;
  for (const k of schemaLifeKinds) out[k] = prng.chance(0.2) ? 0 : prng.int(1, 8);
  // Definitions to build on: namespaced attributes, as the base mix's `schema` kind defines.
  out.schema = prng.int(2, 8);
  return out;
}

/**
 * On a quarter of the seeds: member meta (workload.ts `memberMetaKinds`), the expiry of member
 * values set and cleared (weight 2-12), with member edits to hold values (weight at least 5).
 * Drawn from its own stream, so a seed without it is what it was.
 */
function swarmMemberMeta(prng: Prng, member: number): Partial<Record<DirectoryOpKind, number>> {
  if (!prng.chance(1 / 4)) return {};
  return { expiry: prng.int(2, 12), member: Math.max(member, 5) };
}

/**
 * On a quarter of the seeds: typed values (workload.ts `typedValueKinds`), namespaced
 * attributes of every syntax defined (weight 1-6) and their values written with meta (weight
 * 2-16), with facets and attaches (weight at least 2 and 3) to put them on objects' surfaces.
 * Drawn from its own stream, so a seed without it is what it was.
 */
function swarmTypedValues(
  prng: Prng,
  mix: Partial<Record<DirectoryOpKind, number>>,
): Partial<Record<DirectoryOpKind, number>> {
  if (!prng.chance(1 / 4)) return {};
  return {
    typedAttribute: prng.int(1, 6),
    typedWrite: prng.int(2, 16),
    facet: Math.max(mix.facet ?? 0, 2),
    attach: Math.max(mix.attach ?? 0, 3),
  };
}

/**
 * On a third of the seeds that age tombstones: window changes (workload.ts `windowKinds`), the
 * restore window set anew (weight 1-4) from any node while GC hardens and restores race.
 * Drawn from its own stream, so a seed without it is what it was.
 */
function swarmWindowChanges(prng: Prng): Partial<Record<DirectoryOpKind, number>> {
  return prng.chance(1 / 3) ? { window: prng.int(1, 4) } : {};
}

/**
 * On half the seeds: contention, a share of ops (a fifth, half, nine in ten) aimed at a node's
 * 2, 5 or 20 oldest objects of the class they pick, so concurrent writes meet on them.
 */
function swarmContention(prng: Prng): Contention | null {
  if (!prng.chance(0.5)) return null;
  return { share: prng.pick([0.2, 0.5, 0.9]), objects: prng.pick([2, 5, 20]) };
}

/**
 * On half the seeds: another replication pace. The pull period (1-20 s), its jitter (none:
 * every node's pulls fire in step after a boot; up to a whole period), and the hint delay (0
 * to 5 s: at 0 every write sends its partners pulling at once) decide which messages cross
 * which crashes, and how many pull cycles overlap.
 */
function swarmPace(prng: Prng): Partial<ReplicationTiming> {
  if (!prng.chance(0.5)) return {};
  const pullEveryMs = prng.pick([1, 2, 5, 10, 20]) * 1000;
  const pullJitterMs = prng.pick([0, pullEveryMs / 5, pullEveryMs]);
  return { pullEveryMs, pullJitterMs, hintDelayMs: prng.pick([0, 50, 200, 1000, 5000]) };
}

/**
 * On half the seeds: small pull batches (1-20 objects), so answers run to many continuations
 * (where watermarks, filters and rollbacks met before: scenarios/regressions), and a pull
 * timeout of 2-10 s.
 */
function swarmTiming(prng: Prng): Partial<ReplicationTiming> {
  if (!prng.chance(0.5)) return {};
  const objectsPerBatch = prng.pick([1, 2, 3, 5, 10, 20]);
  return { objectsPerBatch, pullTimeoutMs: prng.int(2, 10) * 1000 };
}

/**
 * On half the seeds: how often GC runs, and the steps that shorten the restore window and,
 * where clocks are true or mild (`horizonFits`), on half of those the purge horizon.
 */
function swarmAgeing(prng: Prng, horizonFits: boolean): { gcEveryMs: number; steps: Step[] } | null {
  if (!prng.chance(0.5)) return null;
  const gcEveryMs = prng.int(1, 10) * 1000;
  const seconds = prng.int(1, 6) * 10;
  const config = (attribute: "timeUntilShred" | "maxTimeApart", seconds: number): Step => ({
    atMs: 0,
    line: 0,
    action: { kind: "op", node: "n1", op: { verb: "config", attribute, seconds }, outcome: "ok" },
  });
  const steps = [config("timeUntilShred", seconds)];
  const horizon = prng.int(9, 15) * 10;
  if (horizonFits && prng.chance(0.5)) steps.push(config("maxTimeApart", horizon));
  return { gcEveryMs, steps };
}

/**
 * With clocks on, on half the seeds mild clocks instead of the preset's (offsets of 0.5-5 s,
 * drift up to 500 ppm, jumps of up to 3 s every 30 s or none), so that a purge horizon can be
 * set on skewed clocks too (swarmAgeing): chaos clocks sit up to two minutes apart and jump by
 * a minute, more than a 90-150 s horizon can hold, which kept every purge of the swarm on true
 * clocks. GC ages tombstones and residue by the node's own clock against stamps written by
 * other clocks, and refusals judge a partner by the local clock: mild skew checks both inside
 * the envelope (withinCrossing counts the skew against the horizon).
 */
function swarmMildClocks(faults: FaultConfig, prng: Prng): FaultConfig {
  if (faults.clocks === null || !prng.chance(0.5)) return faults;
  const maxJumpMs = prng.pick([0, 1000, 3000]);
  const clocks: ClockFaults = {
    maxOffsetMs: prng.pick([500, 2000, 5000]),
    maxDriftPpm: prng.pick([0, 100, 500]),
    meanJumpGapMs: mildJumpGapMs,
    maxJumpMs,
  };
  return { ...faults, clocks };
}

const mildJumpGapMs = 30_000;

function isMild(c: ClockFaults): boolean {
  return c.meanJumpGapMs === mildJumpGapMs && c.maxOffsetMs <= 5000 && c.maxJumpMs <= 3000;
}

/**
 * How far apart two nodes' clocks can drift within a run: both offsets, both drifts over the
 * run, and jumps adding up (the jumps a run can draw, each hitting one node: the mean count
 * over the safety phase, tripled, at their largest).
 */
function skewBoundMs(c: ClockFaults, safetyMs: number): number {
  const runMs = safetyMs + 600_000;
  const jumps = Math.ceil((3 * safetyMs) / c.meanJumpGapMs);
  return 2 * c.maxOffsetMs + (2 * c.maxDriftPpm * runMs) / 1e6 + jumps * c.maxJumpMs;
}

/**
 * On a quarter of the seeds, one to five transient disk errors (`disk-error` steps): a node's
 * 1st-16th disk call from a random time fails with EIO and no effect, counting every call or
 * (half the time) only those beyond log commits, so the error lands in a commit, a debt file,
 * a rotation or a rebuild. A store that dies of it has its process restarted after 0.1-3 s
 * with the disk as it was (unsynced writes kept, as the page cache keeps them); a rebuild that
 * catches it leaves the debt owed and the rotation armed again.
 */
function swarmDiskErrors(prng: Prng, nodes: number, safetyMs: number): Step[] {
  if (!prng.chance(0.25)) return [];
  const count = prng.int(1, 5);
  const steps: Step[] = [];
  for (let i = 0; i < count; i++) {
    steps.push({
      atMs: prng.int(1, Math.floor(safetyMs / 1000) - 1) * 1000,
      line: 0,
      action: {
        kind: "disk-error",
        node: `n${prng.int(1, nodes)}`,
        afterWrites: prng.int(1, 16),
        beyondCommits: prng.chance(0.5),
        downMs: prng.int(1, 30) * 100,
      },
    });
  }
  return steps.sort((a, b) => a.atMs - b.atMs);
}

/**
 * With crashes on, on half the seeds some crashes strike inside a node's disk writes (a power
 * cut: CrashFaults.inWriteP), where unsynced bytes are lost or torn and a rotation or a boot
 * may stop half done; between events every commit has synced, so plain crashes never tear.
 * From a second fork (`where`), how many of those skip log commits' calls (beyondCommitsP);
 * from a third (`kept`), how many torn ones keep the whole cut-short write (keptP).
 */
function swarmInWrite(faults: FaultConfig, prng: Prng, where: Prng, kept: Prng): FaultConfig {
  const crashes = faults.crashes;
  if (crashes === null || !prng.chance(0.5)) return faults;
  const inWriteP = prng.pick([0.1, 0.25, 0.5, 1]);
  const beyondCommitsP = where.pick([0, 0.5, 1]);
  return { ...faults, crashes: { ...crashes, inWriteP, beyondCommitsP, keptP: kept.pick([0, 0.25, 0.5]) } };
}

/** Each class on with probability 1/2 at its preset shape (or the preset's), then the knobs. */
function swarmFaultConfig(prng: Prng, preset: PresetName | null): FaultConfig {
  const chaos = presetFaults("chaos");
  const none = presetFaults("none");
  // Crashes between events only: swarmInWrite decides about crashes inside writes per seed.
  const betweenEvents = chaos.crashes && { ...chaos.crashes, inWriteP: 0, beyondCommitsP: 0 };
  const coin: FaultConfig = {
    network: prng.chance(0.5) ? chaos.network : none.network,
    partitions: prng.chance(0.5) ? chaos.partitions : null,
    crashes: prng.chance(0.5) ? betweenEvents : null,
    clocks: prng.chance(0.5) ? chaos.clocks : null,
    rollbacks: prng.chance(0.5) ? chaos.rollbacks : null,
  };
  const base = preset === null ? coin : presetFaults(preset);
  return roundKnobs(swarmFaults(base, prng.fork("knobs")));
}

/** Probabilities to 3 decimals so a printed swarm scenario reads back to the same config. */
function roundKnobs(c: FaultConfig): FaultConfig {
  const r = (x: number): number => Math.round(x * 1000) / 1000;
  return {
    ...c,
    network: { ...c.network, lossP: r(c.network.lossP), dupP: r(c.network.dupP) },
    crashes: c.crashes && { ...c.crashes, tornP: r(c.crashes.tornP) },
  };
}
