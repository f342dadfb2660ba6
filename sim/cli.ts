/**
 * The simulator's command line (`npm run sim -- ...`); its usage is `usage` below, printed by
 * `--help`. Bad input is refused with exit code 2 and a message, never run as something else:
 * unknown options, an option given twice, --seed with --seeds, two modes at once, an empty seed
 * range, a bad --nodes/--rate/--safety/--node, a preset with partitions on one node, an --out
 * whose folder takes no file (checked before shrinking), options the mode would ignore
 * (--nodes, --rate, --safety outside --preset; --out without --shrink), a scenario file that
 * cannot be read or parsed. Exit code 1 on any failing seed; 3 with the stack for an error of
 * the simulator itself (a bug to report, not a mistake of the command line); 130 when SIGINT
 * stopped a range between seeds (its summary printed, marked INTERRUPTED) or a shrink between
 * variants (the smallest failing one so far printed); 128+N when the simulator process was
 * killed by signal N (runtime-flags.ts). A range of seeds shows its progress on stderr every
 * 10 s, a shrink each variant it keeps. This file is the only one in sim/ that reads the
 * wall clock, and only to print wall milliseconds and progress (performance.now); the
 * simulation never sees it.
 */
import { accessSync, constants, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { isPresetName, presetFaults, presetNames } from "./faults";
import type { PresetName } from "./faults";
import { parseScenario } from "./scenario/parse-scenario";
import { ScenarioSyntaxError } from "./scenario/tokenize";
import { parseDuration } from "./scenario/parse-values";
import { printScenario } from "./scenario/print-scenario";
import { RangeTally, runTwice, summaryLine, timeline, verdictLine } from "./scenario/report";
import type { RunReport } from "./scenario/run-scenario";
import { runScenario } from "./scenario/run-scenario";
import type { Scenario, SeedRange } from "./scenario/scenario";
import { shrinkSteps, type ShrinkResult } from "./scenario/shrink";
import { ShrinkProgress } from "./shrink-progress";
import { presetScenario, swarmScenario } from "./scenario/swarm";
import { exitUnderSimulatorFlags, hasSimulatorFlags, runShapeOfArgs } from "./runtime-flags";
import { SeedProgress } from "./seed-progress";

const usage = `usage: npm run sim -- <mode> [options]

modes:
  --scenario FILE [--seed N | --seeds A..B]   a scenario file (default seeds: the file's, else 1)
  --all [--seeds A..B]                        every scenario under the repository's scenarios/
                                              (regressions too), from any folder,
                                              then one closing line for all of them
  --preset NAME [--nodes N] [--rate W] [--safety 120s] [--seeds A..B]
                                              a generated scenario: NAME is one of
                                              ${presetNames.join(", ")}
                                              (defaults: 5 nodes, 5 writes/s, 120s)
  --swarm [--seeds A..B] [--preset NAME]      VOPR-style: each seed derives its own knobs
                                              (seeds 1..100 when none are given; with
                                              --preset: that preset's fault classes)

options:
  --trace                 print the full trace (one line per event)
  --node ID               show only that node's events in timelines (n1, n2, ...)
  --replay                run each seed twice and compare trace hashes
  --shrink [--out FILE]   shrink the first failing seed of the range to a small scenario file
                          (printed, and written to FILE)
  --print                 print the scenario text (e.g. of a swarm seed)
  --wire                  every message crosses the network in its wire form
  --help                  this text

exit codes: 0 every seed passed; 1 a seed failed; 2 bad command line or scenario file;
3 an error of the simulator itself (printed with its stack: please report it);
130 interrupted by SIGINT (a range stops after the running seed and sums up the seeds run;
    a shrink stops after the running variant and prints the smallest failing one so far;
    a second SIGINT stops at once);
128+N the simulator killed by signal N (said on stderr)`;

/** A mistake of the command line or of a scenario file: exit code 2, the message alone. */
class UsageError extends Error {}

/** A SIGINT ended a range of seeds early (its summary printed): exit code 130. */
class Interrupted extends Error {}

/** Whether a seed failed so far (the exit code when the reader of stdout goes away). */
let anyFailed = false;

/** Set by SIGINT while a range runs; acted on between seeds, so a seed is never cut short. */
let interruptAsked = false;
/** This process's parent at start: a re-run child whose parent went is stopped as interrupted. */
const startParent = process.ppid;
const noteInterrupt = (): void => {
  interruptAsked = true;
};

/**
 * Runs `body` with SIGINT noted instead of killing the process; `between` lets a signal sent
 * while a seed ran arrive (the seeds run synchronously) and says whether one did. The run's
 * events never depend on it: it only decides whether the next seed starts.
 */
async function watchingInterrupts<T>(body: (between: () => Promise<boolean>) => Promise<T>): Promise<T> {
  process.on("SIGINT", noteInterrupt);
  try {
    return await body(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return interruptAsked || process.ppid !== startParent;
    });
  } finally {
    process.off("SIGINT", noteInterrupt);
  }
}

/** The summary of the seeds a SIGINT let run, marked, then the Interrupted exit. */
function interrupted(name: string, range: SeedRange, last: number, tally: RangeTally, started: number): never {
  const line = summaryLine(name, `${range.from}..${last}`, tally.summary(), performance.now() - started);
  console.log(`INTERRUPTED after seed ${last} of ${range.from}..${range.to}: ${line}`);
  throw new Interrupted();
}

interface Args {
  readonly flags: Set<string>;
  readonly values: Map<string, string>;
}

const valued = new Set([
  "--node",
  "--scenario",
  "--seed",
  "--seeds",
  "--preset",
  "--nodes",
  "--rate",
  "--safety",
  "--out",
]);

/** Options without a value; anything else starting with `--` is a typo, not a no-op. */
const switches = new Set(["--all", "--swarm", "--trace", "--replay", "--shrink", "--print", "--wire", "--help"]);

/** The scenario as the command line asks for it: `--wire` turns its `wire` line on. */
function asAsked(s: Scenario, args: Args): Scenario {
  return args.flags.has("--wire") && !s.wire ? { ...s, wire: true } : s;
}

function parseArgs(argv: readonly string[]): Args {
  const flags = new Set<string>();
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (valued.has(a)) {
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`${a} needs a value`);
      // Which of two values would win is nobody's guess to make: refuse the second.
      if (values.has(a)) throw new UsageError(`${a} given twice (${values.get(a)} and ${v})`);
      values.set(a, v);
    } else if (switches.has(a)) {
      flags.add(a);
    } else if (a.startsWith("--")) {
      throw new UsageError(`unknown option ${a} (--help prints the usage)`);
    } else {
      throw new UsageError(`unexpected argument ${a}`);
    }
  }
  return { flags, values };
}

function seedRange(text: string | undefined, fallback: SeedRange): SeedRange {
  if (text === undefined) return fallback;
  const m = /^(\d+)(?:\.\.(\d+))?$/u.exec(text);
  if (m === null) throw new UsageError(`bad seeds ${text} (N or A..B)`);
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to)) throw new UsageError(`bad seeds ${text} (too large)`);
  // A range that runs nothing would pass: a battery with a typo must not look green.
  if (from > to) throw new UsageError(`empty seed range ${text} (the first seed is after the last)`);
  return { from, to };
}

/** `--nodes`, `--rate`, `--safety` of a preset run, checked (the defaults: 5 nodes, 5 writes/s, 120s). */
function presetShape(args: Args): { nodes: number; rate: number; safetyMs: number } {
  const nodesText = args.values.get("--nodes") ?? "5";
  // Digits only: Number() would take 2.0, 0x3 or 3e0 as well.
  const nodes = /^[1-9][0-9]*$/u.test(nodesText) ? Number(nodesText) : NaN;
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > 64) {
    throw new UsageError(`bad --nodes ${nodesText} (an integer in 1..64)`);
  }
  const rateText = args.values.get("--rate") ?? "5";
  const rate = /^[0-9]+(\.[0-9]+)?$/u.test(rateText) ? Number(rateText) : NaN;
  if (!Number.isFinite(rate) || rate < 0) {
    throw new UsageError(`bad --rate ${rateText} (writes per simulated second, a number >= 0)`);
  }
  const safetyText = args.values.get("--safety") ?? "120s";
  const safetyMs = parseDuration(safetyText);
  if (safetyMs === null || safetyMs <= 0) {
    throw new UsageError(`bad --safety ${safetyText} (a duration such as 90s, 10m or 1h)`);
  }
  return { nodes, rate, safetyMs };
}

/** The repository's scenarios/ folder, wherever the command runs from (`--all`). */
const scenariosFolder = path.resolve(import.meta.dirname, "..", "scenarios");

function scenarioFiles(root: string): string[] {
  const out: string[] = [];
  for (const dir of [root, path.join(root, "regressions")]) {
    for (const f of readdirSync(dir).sort()) if (f.endsWith(".scn")) out.push(path.join(dir, f));
  }
  return out;
}

/** Runs one seed, prints its verdict and, on failure, the timeline and the violations. */
function runOne(s: Scenario, seed: number, args: Args, single: boolean): RunReport {
  const started = performance.now();
  const keepTrace = args.flags.has("--trace");
  let report: RunReport;
  let divergence: string | null = null;
  if (args.flags.has("--replay")) {
    const checked = runTwice(s, seed);
    report = checked.report;
    divergence = checked.divergence;
  } else {
    report = runScenario(s, { seed, keepTrace });
  }
  const wall = performance.now() - started;
  const failed = !report.pass || divergence !== null;
  if (failed) anyFailed = true;
  // A run that replayed differently fails, whatever its oracles said.
  if (failed || single) console.log(verdictLine(divergence === null ? report : { ...report, pass: false }, wall));
  if (failed || (keepTrace && single)) {
    // runTwice keeps only the trace's tail: a full trace asked for with --replay is a third run.
    const traced = keepTrace && !args.flags.has("--replay");
    const full = traced ? report : runScenario(s, { seed, keepTrace: true });
    const only = args.values.get("--node");
    const mine =
      only === undefined ? full.trace : full.trace.filter((l) => l.includes(` node=${only} `));
    // A swarm seed draws its own node count: say so rather than print nothing.
    if (only !== undefined && Number(only.slice(1)) > s.nodes) console.log(`-- --node ${only}: this seed has nodes n1..n${s.nodes}`);
    // The timeline is a run of its own: it must be the run the verdict is about.
    if (full.traceHash !== report.traceHash) {
      console.log(`-- this timeline's run hashed ${full.traceHash}, the verdict's ${report.traceHash}: the seed does not replay (try --replay)`);
    }
    const lines = keepTrace ? mine : mine.slice(-200);
    console.log(
      `-- timeline (${keepTrace ? "full trace" : "last 200 events"}; virtual time, node, event, detail)`,
    );
    for (const line of timeline(lines)) console.log(line);
  }
  if (failed) {
    console.log("-- violations");
    for (const v of report.violations) console.log(`  ${v}`);
    if (divergence !== null) console.log(`  replay: ${divergence}`);
  }
  return divergence === null ? report : { ...report, pass: false };
}

/** Progress lines on stderr for a range of more than one seed (see SeedProgress). */
function progressOf(label: string, range: SeedRange): SeedProgress | null {
  const total = range.to - range.from + 1;
  return total > 1 ? new SeedProgress(label, total, () => performance.now(), process.stderr) : null;
}

/**
 * `--node` must name a node of the scenario, or with --all of one of the files, before any
 * seed runs (an unknown one printed an empty timeline; checked per file, it stopped --all
 * part-way). A file with fewer nodes says so in its timelines.
 */
function checkNode(scenarios: readonly Scenario[], args: Args): void {
  const node = args.values.get("--node");
  const most = Math.max(...scenarios.map((s) => s.nodes));
  if (node !== undefined && Number(node.slice(1)) > most) {
    const which = scenarios.length === 1 ? "the scenario has" : "the largest scenario has";
    throw new UsageError(`--node ${node}: ${which} nodes n1..n${most}`);
  }
}

async function runRange(s: Scenario, range: SeedRange, args: Args): Promise<boolean> {
  const started = performance.now();
  const tally = new RangeTally();
  const single = range.from === range.to;
  const progress = progressOf(s.name, range);
  const seeds = async (between: () => Promise<boolean>): Promise<void> => {
    for (let seed = range.from; seed <= range.to; seed++) {
      const report = runOne(s, seed, args, single);
      tally.add(report);
      progress?.note(report.pass);
      if (await between()) {
        progress?.end();
        interrupted(s.name, range, seed, tally, started);
      }
    }
  };
  // One seed keeps SIGINT's default: it stops at once.
  await (single ? seeds(async () => false) : watchingInterrupts(seeds));
  progress?.end();
  const summary = tally.summary();
  if (!single) {
    const seeds = `${range.from}..${range.to}`;
    console.log(summaryLine(s.name, seeds, summary, performance.now() - started));
  }
  return summary.failed.length === 0;
}

async function runSwarm(range: SeedRange, args: Args): Promise<boolean> {
  const preset = args.values.get("--preset") ?? null;
  if (preset !== null && !isPresetName(preset)) throw new UsageError(`unknown preset ${preset}`);
  if (args.flags.has("--shrink")) {
    return await shrinkFirstFailing("swarm", range, (seed) => asAsked(swarmScenario(seed, preset as PresetName | null), args), args);
  }
  const started = performance.now();
  const tally = new RangeTally();
  const progress = progressOf("swarm", range);
  const single = range.from === range.to;
  const seeds = async (between: () => Promise<boolean>): Promise<void> => {
    for (let seed = range.from; seed <= range.to; seed++) {
      const s = asAsked(swarmScenario(seed, preset as PresetName | null), args);
      // Printed with its seed, so that running the file runs this seed.
      if (args.flags.has("--print")) console.log(printScenario({ ...s, seeds: { from: seed, to: seed } }));
      const report = runOne(s, seed, args, single);
      tally.add(report);
      if (!report.pass) {
        const presetArg = preset === null ? "" : ` --preset ${preset}`;
        const wire = args.flags.has("--wire") ? " --wire" : "";
        console.log(`reproduce: npm run sim -- --swarm${presetArg} --seed ${seed}${wire} (--print shows its scenario, --shrink a small one)`);
      }
      progress?.note(report.pass);
      if (await between()) {
        progress?.end();
        interrupted("swarm", range, seed, tally, started);
      }
    }
  };
  await (single ? seeds(async () => false) : watchingInterrupts(seeds));
  progress?.end();
  const summary = tally.summary();
  console.log(
    summaryLine("swarm", `${range.from}..${range.to}`, summary, performance.now() - started),
  );
  return summary.failed.length === 0;
}

/**
 * `--shrink` over a range: the seeds in turn until one fails, which is shrunk; a range that
 * passes prints that there is nothing to shrink. A swarm seed is its own scenario (`scenarioOf`
 * gives the failing seed's); a file or preset is one scenario on every seed. Shrinking runs up
 * to 200 variants: it says on stderr how far it got every 10 s, and SIGINT (even on one seed)
 * stops it after the running variant with the smallest failing scenario found so far printed
 * and written, marked INTERRUPTED (exit 130).
 */
async function shrinkFirstFailing(
  label: string,
  range: SeedRange,
  scenarioOf: (seed: number) => Scenario,
  args: Args,
): Promise<boolean> {
  const out = args.values.get("--out");
  const single = range.from === range.to;
  const progress = progressOf(label, range);
  return watchingInterrupts(async (between) => {
    for (let seed = range.from; seed <= range.to; seed++) {
      const passed = await runShrink(scenarioOf(seed), seed, out, between, single);
      progress?.note(passed);
      if (!passed) {
        progress?.end();
        return false;
      }
      if (await between()) {
        progress?.end();
        console.log(`INTERRUPTED after seed ${seed} of ${range.from}..${range.to}: scenario=${label}: no seed failed so far, nothing shrunk`);
        throw new Interrupted();
      }
    }
    progress?.end();
    if (!single) console.log(`PASS scenario=${label} seeds=${range.from}..${range.to}: no seed fails, nothing to shrink`);
    return true;
  });
}

/** Shrinks a failing seed and prints the result; false when it failed (`sayPass`: say so when it passes). */
async function runShrink(
  s: Scenario,
  seed: number,
  out: string | undefined,
  between: () => Promise<boolean>,
  sayPass = true,
): Promise<boolean> {
  const steps = shrinkSteps(s, seed);
  const progress = new ShrinkProgress(`shrinking ${s.name} seed ${seed}`, () => performance.now(), process.stderr);
  let result: ShrinkResult | null = null;
  let stopped = false;
  for (;;) {
    const next = steps.next();
    if (next.done === true) {
      result = next.value;
      break;
    }
    result = next.value;
    progress.note(result.attempts, result.steps);
    if (await between()) {
      stopped = true;
      break;
    }
  }
  progress.end();
  if (result === null) {
    if (sayPass) console.log(`PASS seed=${seed} scenario=${s.name}: nothing to shrink`);
    return true;
  }
  const first = result.report.violations[0] ?? "";
  const how = stopped ? `interrupted after ${result.attempts} runs` : `in ${result.attempts} runs`;
  const about = [
    `Shrunk from ${s.name} seed ${seed} ${how} (${result.steps.join("; ") || "no smaller variant"}).`,
    `Fails with: ${first.slice(0, 200)}`,
    ...s.about,
  ];
  const shrunk: Scenario = {
    ...result.scenario,
    name: `${s.name}-s${result.seed}`,
    about,
    seeds: { from: result.seed, to: result.seed },
  };
  const text = printScenario(shrunk);
  // Printed first: a write that fails after minutes of shrinking must not lose the result.
  console.log(text);
  if (out !== undefined) writeFileSync(out, text);
  // The verdict names the shrunk scenario, as a run of the printed file will.
  console.log(verdictLine({ ...result.report, scenario: shrunk.name }, null));
  if (stopped) {
    console.log(
      `INTERRUPTED shrinking ${s.name} seed ${seed} after ${result.attempts} runs: the smallest failing variant so far is printed above` +
        (out === undefined ? "" : ` and written to ${out}`),
    );
    throw new Interrupted();
  }
  return false;
}

/** A scenario file, parsed; a syntax error names the file as well as the line (`--all` reads many). */
function scenarioOf(file: string): Scenario {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    throw new UsageError(`${file}: cannot read the scenario file (${code || String(error)})`);
  }
  try {
    return parseScenario(text);
  } catch (error) {
    if (error instanceof ScenarioSyntaxError) throw new UsageError(`${file}: ${error.message}`);
    throw error;
  }
}

/**
 * One mode, and no option it would ignore: a run that silently dropped `--scenario` or
 * `--nodes` would answer a question the engineer did not ask.
 */
function checkApplicable(args: Args): void {
  const swarm = args.flags.has("--swarm");
  // With --swarm, --preset picks the seeds' fault classes; on its own it is a mode.
  const modes = [
    swarm ? "--swarm" : null,
    !swarm && args.values.has("--preset") ? "--preset" : null,
    args.flags.has("--all") ? "--all" : null,
    args.values.has("--scenario") ? "--scenario" : null,
  ].filter((m): m is string => m !== null);
  if (modes.length > 1) throw new UsageError(`give one of --scenario, --all, --preset, --swarm (not ${modes.join(" and ")})`);
  const mode = modes[0] ?? "--scenario";
  for (const option of ["--nodes", "--rate", "--safety"]) {
    if (args.values.has(option) && mode !== "--preset") {
      const shapeFrom = mode === "--swarm" ? "the seed, --preset only its fault classes" : "the file";
      throw new UsageError(`${option} applies to a --preset run without --swarm (${mode} takes its shape from ${shapeFrom})`);
    }
  }
  if (args.values.has("--out") && !args.flags.has("--shrink")) throw new UsageError("--out applies to --shrink only");
  if (args.values.has("--seed") && args.values.has("--seeds")) throw new UsageError("give --seed N or --seeds A..B, not both");
  const node = args.values.get("--node");
  if (node !== undefined && !/^n[1-9][0-9]*$/u.test(node)) throw new UsageError(`bad --node ${node} (a node id such as n1)`);
}

/** `--out`'s folder must exist and take a file before any shrinking starts. */
function checkOut(out: string | undefined): void {
  if (out === undefined) return;
  // A folder would fail the write (EISDIR) only after the minutes of shrinking.
  if (isDirectory(out)) throw new UsageError(`--out ${out} is a folder: give a file name (such as ${path.join(out, "shrunk.scn")})`);
  const dir = path.dirname(path.resolve(out));
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    throw new UsageError(`--out ${out}: cannot write a file in ${dir}`);
  }
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

async function main(argv: readonly string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(usage);
    return 0;
  }
  const args = parseArgs(argv);
  checkApplicable(args);
  checkOut(args.values.get("--out"));
  const seedText = args.values.get("--seeds") ?? args.values.get("--seed");
  if (args.flags.has("--swarm"))
    return (await runSwarm(seedRange(seedText, { from: 1, to: 100 }), args)) ? 0 : 1;
  const preset = args.values.get("--preset");
  let scenarios: Scenario[];
  if (preset !== undefined) {
    if (!isPresetName(preset)) throw new UsageError(`unknown preset ${preset}`);
    const shape = presetShape(args);
    if (shape.nodes < 2 && presetFaults(preset).partitions !== null) {
      throw new UsageError(`--nodes ${shape.nodes}: the ${preset} preset partitions the network, which takes 2 nodes or more`);
    }
    scenarios = [presetScenario({ preset, ...shape })];
  } else if (args.flags.has("--all")) {
    scenarios = scenarioFiles(scenariosFolder).map((f) => scenarioOf(f));
  } else {
    const file = args.values.get("--scenario");
    if (file === undefined)
      throw new UsageError("give --scenario FILE, --all, --preset NAME or --swarm");
    scenarios = [scenarioOf(file)];
  }
  checkNode(scenarios, args);
  const failing: string[] = [];
  for (const s of scenarios.map((one) => asAsked(one, args))) {
    if (args.flags.has("--print")) console.log(printScenario(s));
    const range = seedRange(seedText, s.seeds ?? { from: 1, to: 1 });
    const passed = args.flags.has("--shrink") ? await shrinkFirstFailing(s.name, range, () => s, args) : await runRange(s, range, args);
    if (!passed) failing.push(s.name);
  }
  // Many files' lines scroll by: one closing line says how the whole run went.
  if (args.flags.has("--all")) {
    const verdict = failing.length === 0 ? "PASS" : "FAIL";
    const names = failing.length === 0 ? "" : ` failed=${failing.join(",")}`;
    console.log(`${verdict} all files=${scenarios.length} pass=${scenarios.length - failing.length}${names}`);
  }
  return failing.length === 0 ? 0 : 1;
}

/**
 * A reader that stopped reading (`| head`) is no error of the simulator: stop quietly, with the
 * exit code of the seeds run so far (1 when one failed, else 0), not a stack trace.
 */
function quietOnBrokenPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") throw error;
      process.exit(anyFailed ? 1 : 0);
    });
  }
}

async function runHere(): Promise<void> {
  quietOnBrokenPipe();
  try {
    process.exitCode = await main(process.argv.slice(2));
  } catch (error) {
    failed(error);
  }
}

function failed(error: unknown): void {
  if (error instanceof Interrupted) {
    process.exitCode = 130;
  } else if (error instanceof UsageError) {
    console.error(error.message);
    process.exitCode = 2;
  } else {
    // Not the command line's fault: the whole story, for the bug report.
    console.error("canopy sim: internal error (please report it with the command line):");
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 3;
  }
}

// Heap sizes are fixed at start: without the simulator's flags, a child process with them does
// the work, and this one passes signals on to it and exits as it exits.
const shape = runShapeOfArgs(process.argv.slice(2));
if (hasSimulatorFlags(shape)) void runHere();
else exitUnderSimulatorFlags(shape, "canopy sim");
