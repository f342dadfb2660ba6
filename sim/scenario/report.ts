import { divergentWindow, firstDivergence } from "../trace";
import type { RunReport } from "./run-scenario";
import { runScenario } from "./run-scenario";
import type { Scenario } from "./scenario";

/**
 * Verdict lines, readable timelines and the replay check shared by the CLI and the battery.
 */

/** One line: PASS/FAIL, seed, scenario, rounds and virtual seconds to convergence, events, hash. */
export function verdictLine(r: RunReport, wallMs: number | null): string {
  const converge =
    r.convergedAfterMs === null ? "never" : `${(r.convergedAfterMs / 1000).toFixed(1)}s`;
  const rounds = r.rounds === null ? "-" : String(r.rounds);
  const wall = wallMs === null ? "" : ` wall=${Math.round(wallMs)}ms`;
  return `${r.pass ? "PASS" : "FAIL"} seed=${r.seed} scenario=${r.scenario} rounds=${rounds} converge=${converge} events=${r.events} trace=${r.traceHash}${wall}`;
}

/**
 * The trace as a per-node timeline: one line per event, virtual seconds, node, event, detail,
 * aligned in columns (the trace's own line format is `t=<ms> node=<id> <event> <detail>`).
 */
export function timeline(lines: readonly string[]): string[] {
  return lines.map((line) => {
    const m = /^t=(\d+) node=(\S+) (\S+) ?(.*)$/u.exec(line);
    if (m === null) return line;
    const seconds = (Number(m[1]) / 1000).toFixed(3).padStart(10);
    return `${seconds}s  ${(m[2] ?? "").padEnd(3)}  ${(m[3] ?? "").padEnd(13)} ${m[4] ?? ""}`;
  });
}

export interface ReplayCheck {
  readonly report: RunReport;
  /** Null when both runs hashed alike; otherwise where they first differ. */
  readonly divergence: string | null;
}

/**
 * Runs a seed twice and compares trace hashes (bit-for-bit replay). Traces are kept only on a
 * mismatch: both runs are repeated with every line kept to name the first divergent event.
 */
export function runTwice(s: Scenario, seed: number): ReplayCheck {
  const first = runScenario(s, { seed });
  const second = runScenario(s, { seed });
  if (first.traceHash === second.traceHash) return { report: first, divergence: null };
  const rerun = (): RunReport => runScenario(s, { seed, keepTrace: true });
  return { report: first, divergence: `seed ${seed} does not replay: ${divergenceOf(first, second, rerun)}` };
}

/**
 * Where two runs of one seed differ. Their checkpoints bound the lines; two more runs keep
 * every line. When those two differ, their first differing line is shown. When they agree,
 * what differed depended on the process's state, not the seed (say, a first run in a process
 * behaving unlike the later ones): the window and which first run the re-runs agree with say
 * where to look (determinism audit, twenty-seventh session: "hashes differ but kept traces
 * agree" named no event).
 */
export function divergenceOf(first: RunReport, second: RunReport, rerun: () => RunReport): string {
  const w = divergentWindow(first.traceCheckpoints, second.traceCheckpoints);
  const window = w.to === null ? `after line ${w.from}` : `within lines ${w.from}..${w.to - 1}`;
  const a = rerun();
  const b = rerun();
  const d = firstDivergence(a.trace, b.trace);
  if (d !== null) return `line ${d.index}: ${d.a ?? "<end>"} | ${d.b ?? "<end>"} (runs 1 and 2 differ ${window})`;
  const like = (r: RunReport): string =>
    r.traceHash === first.traceHash ? "run 1" : r.traceHash === second.traceHash ? "run 2" : "neither";
  const at = a.trace[w.from];
  return (
    `runs 1 and 2 differ ${window}; two more runs agree with each other and with ${like(a)}, so the ` +
    `difference depends on the process's state, not the seed` +
    (at === undefined ? "" : `; line ${w.from} of the re-runs: ${at}`)
  );
}

export interface RangeSummary {
  readonly runs: number;
  readonly failed: readonly number[];
  /** Seeds that converged; the rounds and converge figures are over these alone. */
  readonly converged: number;
  readonly roundsMax: number;
  readonly roundsMean: number;
  readonly convergeMeanMs: number;
  readonly convergeMaxMs: number;
  readonly eventsMean: number;
  /** The largest vector any seed ended with (RunReport.vectorEntries). */
  readonly vectorEntriesMax: number;
}

/**
 * A range's summary built seed by seed: a long range or swarm keeps these figures, not its
 * reports (each holds its trace's tail, ~50 KB: 75,000 seeds filled a 4 GB heap and the
 * summary was lost to the crash; determinism audit, twenty-seventh session).
 */
export class RangeTally {
  private runs = 0;
  private readonly failed: number[] = [];
  private converged = 0;
  private roundsMax = 0;
  private roundsSum = 0;
  private convergeSumMs = 0;
  private convergeMaxMs = 0;
  private eventsSum = 0;
  private vectorEntriesMax = 0;

  add(r: RunReport): void {
    this.runs++;
    if (!r.pass) this.failed.push(r.seed);
    this.eventsSum += r.events;
    this.vectorEntriesMax = Math.max(this.vectorEntriesMax, r.vectorEntries);
    if (r.rounds === null) return;
    this.converged++;
    this.roundsMax = Math.max(this.roundsMax, r.rounds);
    this.roundsSum += r.rounds;
    const ms = r.convergedAfterMs ?? 0;
    this.convergeSumMs += ms;
    this.convergeMaxMs = Math.max(this.convergeMaxMs, ms);
  }

  summary(): RangeSummary {
    const mean = (sum: number, n: number): number => (n === 0 ? 0 : sum / n);
    return {
      runs: this.runs,
      failed: [...this.failed],
      converged: this.converged,
      roundsMax: this.roundsMax,
      roundsMean: mean(this.roundsSum, this.converged),
      convergeMeanMs: mean(this.convergeSumMs, this.converged),
      convergeMaxMs: this.convergeMaxMs,
      eventsMean: mean(this.eventsSum, this.runs),
      vectorEntriesMax: this.vectorEntriesMax,
    };
  }
}

export function summaryLine(
  name: string,
  seeds: string,
  s: RangeSummary,
  wallMs: number | null,
): string {
  const verdict = s.failed.length === 0 ? "PASS" : "FAIL";
  const failed =
    s.failed.length === 0
      ? ""
      : ` failed=${s.failed.slice(0, 20).join(",")}${s.failed.length > 20 ? ",..." : ""}`;
  const wall =
    wallMs === null
      ? ""
      : ` wall=${Math.round(wallMs)}ms (${(wallMs / Math.max(1, s.runs)).toFixed(1)}ms/seed)`;
  // With no seed converged, zeros would read as convergence at once.
  const convergence =
    s.converged === 0
      ? " rounds(none) converge(none)"
      : ` rounds(max=${s.roundsMax} mean=${s.roundsMean.toFixed(2)})` +
        ` converge(mean=${(s.convergeMeanMs / 1000).toFixed(1)}s max=${(s.convergeMaxMs / 1000).toFixed(1)}s)`;
  return (
    `${verdict} scenario=${name} seeds=${seeds} runs=${s.runs} pass=${s.runs - s.failed.length}${failed}` +
    convergence +
    ` events(mean=${Math.round(s.eventsMean)}) vectors(max=${s.vectorEntriesMax})${wall}`
  );
}
