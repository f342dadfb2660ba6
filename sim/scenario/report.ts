import { firstDivergence } from "../trace";
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
  const a = runScenario(s, { seed, keepTrace: true });
  const b = runScenario(s, { seed, keepTrace: true });
  const d = firstDivergence(a.trace, b.trace);
  const where =
    d === null
      ? "hashes differ but kept traces agree"
      : `line ${d.index}: ${d.a ?? "<end>"} | ${d.b ?? "<end>"}`;
  return { report: first, divergence: `seed ${seed} does not replay: ${where}` };
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

export function summarize(reports: readonly RunReport[]): RangeSummary {
  const converged = reports.filter((r) => r.rounds !== null);
  const mean = (xs: readonly number[]): number =>
    xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
  const rounds = converged.map((r) => r.rounds ?? 0);
  const times = converged.map((r) => r.convergedAfterMs ?? 0);
  return {
    runs: reports.length,
    failed: reports.filter((r) => !r.pass).map((r) => r.seed),
    converged: converged.length,
    roundsMax: rounds.reduce((a, b) => Math.max(a, b), 0),
    roundsMean: mean(rounds),
    convergeMeanMs: mean(times),
    convergeMaxMs: times.reduce((a, b) => Math.max(a, b), 0),
    eventsMean: mean(reports.map((r) => r.events)),
    vectorEntriesMax: reports.reduce((m, r) => Math.max(m, r.vectorEntries), 0),
  };
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
