import type { FaultConfig } from "../faults";
import type { RunReport } from "./run-scenario";
import { checkScript } from "./parse-lines";
import { runScenario } from "./run-scenario";
import { ScenarioSyntaxError } from "./tokenize";
import { mesh } from "./topology";
import type { Scenario, Step } from "./scenario";

/**
 * Seed shrinking: from a failing (scenario, seed), greedily try smaller variants (half the
 * nodes, one node fewer, a shorter safety phase, a lower write rate, the full mesh for a sparser topology, no
 * contention, no large values, messages passed as objects rather than on the wire, the default
 * replication timing, one fault class fewer, one scripted step fewer)
 * and keep any that still fails the same way (same oracle). A variant's schedule is a
 * different draw, so each variant is tried on the failing seed and then on `seedsPerVariant`
 * seeds from 1: shrinking searches, it does not bisect. Bounded by `attemptsMax` runs.
 */

/** The runs a shrink makes at most, unless told otherwise. */
export const shrinkRunsMax = 200;

export interface ShrinkResult {
  readonly scenario: Scenario;
  /** The failing seed of the smallest variant. */
  readonly seed: number;
  readonly report: RunReport;
  readonly attempts: number;
  readonly steps: readonly string[];
}

/** The oracle a failure belongs to: the text before the first colon of the first violation. */
export function failureKind(r: RunReport): string {
  const first = r.violations[0] ?? "";
  const colon = first.indexOf(":");
  return colon < 0 ? first : first.slice(0, colon);
}

export function shrink(
  s: Scenario,
  seed: number,
  attemptsMax = shrinkRunsMax,
  seedsPerVariant = 6,
): ShrinkResult | null {
  const steps = shrinkSteps(s, seed, attemptsMax, seedsPerVariant);
  for (;;) {
    const next = steps.next();
    if (next.done === true) return next.value;
  }
}

/**
 * `shrink` one run at a time: yields the smallest failing variant so far after every run
 * following the first (failing) one, and returns what `shrink` returns. A caller that stops
 * early (the command line on SIGINT) still holds a failing scenario, smaller or not.
 */
export function* shrinkSteps(
  s: Scenario,
  seed: number,
  attemptsMax = shrinkRunsMax,
  seedsPerVariant = 6,
): Generator<ShrinkResult, ShrinkResult | null, void> {
  let report = runScenario(s, { seed });
  if (report.pass) return null;
  const kind = failureKind(report);
  let current = s;
  let failing = seed;
  let attempts = 1;
  const log: string[] = [];
  const result = (): ShrinkResult => ({ scenario: current, seed: failing, report, attempts, steps: [...log] });
  const seedsFor = (): number[] => [
    failing,
    ...Array.from({ length: seedsPerVariant }, (_, i) => i + 1),
  ];
  for (let progress = true; progress && attempts < attemptsMax;) {
    progress = false;
    for (const { what, candidate } of candidates(current)) {
      for (const tryingSeed of [...new Set(seedsFor())]) {
        if (attempts >= attemptsMax) break;
        attempts++;
        const r = runScenario(candidate, { seed: tryingSeed });
        if (!r.pass && failureKind(r) === kind) {
          current = candidate;
          failing = tryingSeed;
          report = r;
          log.push(`${what} (seed ${tryingSeed})`);
          progress = true;
        }
        yield result();
        if (progress) break;
      }
      if (progress) break;
    }
  }
  return result();
}

interface Candidate {
  readonly what: string;
  readonly candidate: Scenario;
}

function candidates(s: Scenario): Candidate[] {
  const out: Candidate[] = [];
  const lastStepMs = s.steps.reduce((m, st) => Math.max(m, st.atMs), 0);
  // Half the nodes first (a 16-node swarm seed would take 14 single steps), then one fewer.
  const half = Math.max(2, Math.ceil(s.nodes / 2));
  const above = Array.from({ length: s.nodes - half }, (_, i) => `n${half + i + 1}`);
  if (s.nodes > 4 && !above.some((node) => mentions(s, node)))
    out.push({ what: `nodes ${half}`, candidate: { ...s, nodes: half } });
  if (s.nodes > 2 && !mentions(s, `n${s.nodes}`))
    out.push({ what: `nodes ${s.nodes - 1}`, candidate: { ...s, nodes: s.nodes - 1 } });
  const shorter = Math.max(lastStepMs + 1000, Math.round(s.safetyMs / 2 / 1000) * 1000);
  if (shorter < s.safetyMs)
    out.push({ what: `safety ${shorter}ms`, candidate: { ...s, safetyMs: shorter } });
  if (s.rate > 0) {
    const rate = s.rate < 0.5 ? 0 : Math.round((s.rate / 2) * 10) / 10;
    out.push({ what: `rate ${rate}`, candidate: { ...s, rate } });
  }
  // The full mesh is the simplest topology: every node hears every write first-hand.
  if (s.topology.kind !== "mesh" && s.converge === null)
    out.push({ what: "topology mesh", candidate: { ...s, topology: mesh } });
  if (s.contention !== null) out.push({ what: "contention off", candidate: { ...s, contention: null } });
  if (s.largeValues !== null) out.push({ what: "large values off", candidate: { ...s, largeValues: null } });
  // Messages passed as objects: a failure that needs the wire form is a bug of the wire form.
  if (s.wire) out.push({ what: "wire off", candidate: { ...s, wire: false } });
  if (s.batchBytes !== null) out.push({ what: "default batch bytes", candidate: { ...s, batchBytes: null } });
  if (Object.keys(s.timing).length > 0) out.push({ what: "default timing", candidate: { ...s, timing: {} } });
  for (const [what, faults] of fewerFaults(s.faults))
    out.push({ what, candidate: { ...s, faults } });
  s.steps.forEach((step, i) => {
    if (definesLabel(step)) return;
    const steps = s.steps.filter((_, j) => j !== i);
    // Only a script a file could hold: an image step a later rollback restores stays.
    if (!scriptHolds(steps, s.expects)) return;
    out.push({ what: `drop step at line ${step.line}`, candidate: { ...s, steps } });
  });
  return out;
}

/** Whether the parser would take these steps and expectations (labels and images bound). */
function scriptHolds(steps: readonly Step[], expects: Scenario["expects"]): boolean {
  try {
    checkScript(steps, expects);
    return true;
  } catch (error) {
    if (error instanceof ScenarioSyntaxError) return false;
    throw error;
  }
}

function fewerFaults(f: FaultConfig): Array<[string, FaultConfig]> {
  const out: Array<[string, FaultConfig]> = [];
  if (f.partitions) out.push(["partitions off", { ...f, partitions: null }]);
  if (f.crashes) out.push(["crashes off", { ...f, crashes: null }]);
  if (f.clocks) out.push(["clocks off", { ...f, clocks: null }]);
  if (f.rollbacks) out.push(["rollbacks off", { ...f, rollbacks: null }]);
  if (f.network.lossP > 0 || f.network.dupP > 0) {
    out.push(["no loss or duplication", { ...f, network: { ...f.network, lossP: 0, dupP: 0 } }]);
  }
  return out;
}

function definesLabel(step: Step): boolean {
  const a = step.action;
  return (
    a.kind === "op" && (a.op.verb === "create" || a.op.verb === "define") && a.op.label !== null
  );
}

/** Whether any step, expectation or converge list names the node. */
function mentions(s: Scenario, node: string): boolean {
  const text = JSON.stringify([s.steps, s.expects, s.converge]);
  return text.includes(`"${node}"`);
}
