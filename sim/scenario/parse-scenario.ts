import { limits } from "../../core/limits";
import type { ReplicationTiming } from "../directory/directory-host";
import type { DirectoryOpKind } from "../directory/directory-op";
import { memberMetaKinds, schemaLifeKinds, typedValueKinds, windowKinds, type Contention, type LargeValues, type OpMix } from "../directory/workload";
import type { FaultConfig, PresetName } from "../faults";
import { isPresetName, presetFaults } from "../faults";
import { applyFaultLine, isFaultClass, type FaultClass } from "./fault-lines";
import { checkScript, parseExpectation, parseStep } from "./parse-lines";
import { parseCount, parseDurationAt, parseNonNegative } from "./parse-values";
import type { Scenario, SeedRange } from "./scenario";
import { formatDuration, scenarioOptionDefaults, type ScenarioOptions } from "./scenario";
import { ScenarioSyntaxError, tokenizeLine, withoutComment } from "./tokenize";
import { diameterAmong, isTopologyKind, type Topology } from "./topology";
import type { Token } from "./tokenize";

const opKinds: readonly DirectoryOpKind[] = [
  "create",
  "rename",
  "move",
  "describe",
  "displayName",
  "member",
  "delete",
  "restore",
  "shred",
  "schema",
  ...schemaLifeKinds,
  ...memberMetaKinds,
  ...windowKinds,
  ...typedValueKinds,
];
/**
 * Directives a file gives at most once: a second one would silently replace the first. Not
 * `timing` (its lines add up, key by key), fault class lines (they refine the preset), `at`, `expect`.
 */
const onceOnly = new Set([
  "scenario",
  "checks",
  "known-bug",
  "nodes",
  "faults",
  "rate",
  "mix",
  "contention",
  "large-values",
  "batch-bytes",
  "safety",
  "liveness",
  "rounds",
  "converge",
  "gc",
  "topology",
  "events",
  "seeds",
  "wire",
]);

const timingKeys: Readonly<Record<string, keyof ReplicationTiming>> = {
  pullEvery: "pullEveryMs",
  pullJitter: "pullJitterMs",
  hintDelay: "hintDelayMs",
  pullTimeout: "pullTimeoutMs",
  objectsPerBatch: "objectsPerBatch",
};

interface Draft extends ScenarioOptions {
  name: string | null;
  checks: string | null;
  nodes: number | null;
  preset: PresetName;
  faults: FaultConfig;
  rate: number;
  safetyMs: number | null;
  /** Where the directives checked across fields stand, for the messages. */
  at: { converge: number; nodes: number; classes: Map<FaultClass, number> };
  /** The line of each once-only directive given so far. */
  given: Map<string, number>;
}

/** Parses a scenario file; throws ScenarioSyntaxError naming the line. */
export function parseScenario(text: string): Scenario {
  const draft: Draft = {
    ...scenarioOptionDefaults(),
    name: null,
    checks: null,
    nodes: null,
    preset: "none",
    faults: presetFaults("none"),
    rate: 0,
    safetyMs: null,
    at: { converge: 0, nodes: 0, classes: new Map() },
    given: new Map(),
  };
  const lines = text.split(/\r?\n/u);
  lines.forEach((source, index) => {
    const line = index + 1;
    const trimmed = source.trim();
    if (draft.name === null && trimmed.startsWith("#")) {
      draft.about.push(trimmed.replace(/^#\s?/u, ""));
      return;
    }
    const tokens = tokenizeLine(source, line);
    const head = tokens[0];
    if (head === undefined) return;
    if (onceOnly.has(head.text)) {
      const first = draft.given.get(head.text);
      if (first !== undefined) throw new ScenarioSyntaxError(line, `${head.text} given twice (first at line ${first})`);
      draft.given.set(head.text, line);
    }
    if (head.text === "checks" || head.text === "known-bug") {
      // Free text, quotes kept as written; `#` starts a comment here as on every line.
      const rest = withoutComment(trimmed, line).slice(head.text.length).trim();
      if (rest === "") {
        const what = head.text === "checks" ? "the SPEC/DESIGN section(s) checked" : "the bug";
        throw new ScenarioSyntaxError(line, `${head.text} needs text: ${what}`);
      }
      if (head.text === "checks") draft.checks = rest;
      else draft.knownBug = rest;
      return;
    }
    directive(draft, head.text, tokens.slice(1), line);
  });
  return finish(draft);
}

function directive(d: Draft, word: string, args: Token[], line: number): void {
  const fail = (message: string): never => {
    throw new ScenarioSyntaxError(line, message);
  };
  const one = (): string =>
    args.length === 1 ? args[0]!.text : fail(`${word} takes one argument`);
  const wrap = <T>(run: () => T): T => {
    try {
      return run();
    } catch (error) {
      if (error instanceof ScenarioSyntaxError) throw error;
      return fail(error instanceof Error ? error.message : String(error));
    }
  };
  if (isFaultClass(word)) {
    d.faults = wrap(() =>
      applyFaultLine(
        d.faults,
        word,
        args.map((t) => t.text),
        (s) => parseDurationAt(s, line),
      ),
    );
    d.faultLines.push([word, ...args.map((t) => t.text)].join(" "));
    d.at.classes.set(word, line);
    return;
  }
  switch (word) {
    case "scenario":
      d.name = one();
      return;
    case "nodes":
      d.nodes = parseCount(one(), 1, 64, line);
      d.at.nodes = line;
      return;
    case "faults": {
      const preset = one();
      if (!isPresetName(preset)) fail(`unknown preset ${preset}`);
      if (d.faultLines.length > 0) fail("faults comes before class lines");
      d.preset = preset as PresetName;
      d.faults = presetFaults(d.preset);
      return;
    }
    case "rate":
      d.rate = parseNonNegative(one(), line);
      return;
    case "mix":
      d.mix = parseMix(args, line);
      return;
    case "contention":
      d.contention = parseContention(args, line);
      return;
    case "large-values":
      d.largeValues = parseLargeValues(args, line);
      return;
    case "batch-bytes":
      d.batchBytes = parseCount(one(), 256, limits.batchBytesTarget, line);
      return;
    case "safety":
      d.safetyMs = parseDurationAt(one(), line);
      return;
    case "liveness":
      d.livenessMs = parseDurationAt(one(), line);
      return;
    case "rounds":
      d.roundsMax = parseCount(one(), 1, 100, line);
      return;
    case "converge":
      // No nodes would judge nothing: every expectation and the convergence oracles would hold.
      if (args.length === 0) fail("converge needs nodes (without the line every node converges)");
      d.converge = args.map((t) => t.text);
      // A node named twice is counted twice among the judged nodes: rounds and convergence
      // wait for a copy that never answers, and every seed fails liveness.
      for (const [i, id] of d.converge.entries()) {
        if (d.converge.indexOf(id) !== i) fail(`converge names ${id} twice`);
      }
      d.at.converge = line;
      return;
    case "gc":
      d.gcEveryMs = parseDurationAt(one(), line);
      // A zero period re-arms the GC timer at the same instant for ever (the event bound).
      if (d.gcEveryMs === 0) fail("gc needs a period > 0 (without the line GC never runs)");
      return;
    case "topology":
      d.topology = parseTopology(args, line);
      return;
    case "timing":
      d.timing = { ...d.timing, ...parseTiming(args, line) };
      return;
    case "events":
      d.maxEvents = parseCount(one(), 1000, 1_000_000_000, line);
      return;
    case "seeds":
      d.seeds = parseSeedRange(one(), line);
      return;
    case "wire":
      if (args.length > 0) fail("wire takes no arguments");
      d.wire = true;
      return;
    case "at":
      d.steps.push(parseStep(args, line));
      return;
    case "expect":
      d.expects.push(parseExpectation(args, line));
      return;
    default:
      fail(`unknown directive ${word}`);
  }
}

/** A required directive no line holds: the message names no line, since none is wrong. */
function missing(directive: string): never {
  throw new ScenarioSyntaxError(null, `missing \`${directive}\` (a required directive)`);
}

function finish(d: Draft): Scenario {
  if (d.name === null) return missing("scenario <name>");
  if (d.checks === null) return missing("checks <SPEC/DESIGN section>");
  if (d.nodes === null) return missing("nodes <count>");
  if (d.safetyMs === null) return missing("safety <duration>");
  const scenario: Scenario = {
    name: d.name,
    checks: d.checks,
    about: trimBlank(d.about),
    nodes: d.nodes,
    preset: d.preset,
    faults: d.faults,
    faultLines: d.faultLines,
    rate: d.rate,
    mix: d.mix,
    contention: d.contention,
    largeValues: d.largeValues,
    batchBytes: d.batchBytes,
    safetyMs: d.safetyMs,
    livenessMs: d.livenessMs,
    roundsMax: d.roundsMax,
    converge: d.converge,
    gcEveryMs: d.gcEveryMs,
    topology: d.topology,
    timing: d.timing,
    seeds: d.seeds,
    knownBug: d.knownBug,
    maxEvents: d.maxEvents,
    wire: d.wire,
    steps: d.steps,
    expects: d.expects,
  };
  validate(scenario, d.at);
  return scenario;
}

function trimBlank(lines: string[]): string[] {
  const out = [...lines];
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  return out;
}

/**
 * Cross-field checks: nodes named exist, steps lie inside the safety phase, fault knobs hold
 * what the fault sources assert, labels and images are bound where used (parse-lines.ts).
 */
function validate(s: Scenario, at: Draft["at"]): void {
  const known = (id: string, line: number): void => {
    const n = /^n(\d+)$/u.exec(id);
    if (n === null || Number(n[1]) < 1 || Number(n[1]) > s.nodes) {
      throw new ScenarioSyntaxError(line, `unknown node ${id} (nodes are n1..n${s.nodes})`);
    }
  };
  for (const id of s.converge ?? []) known(id, at.converge);
  // Rounds count the judged nodes' pulls among themselves: data between them must not need a
  // node outside the set (its pulls would hold no round open, and no bound would hold).
  if (s.converge !== null && s.topology.kind !== "mesh") {
    const ids = Array.from({ length: s.nodes }, (_, i) => `n${i + 1}`);
    if (diameterAmong(s.topology, ids, s.converge) === null) {
      throw new ScenarioSyntaxError(
        at.converge,
        `converge ${s.converge.join(" ")}: those nodes are not connected among themselves in topology ${s.topology.kind}`,
      );
    }
  }
  // The partition source splits the nodes in two groups (sim/faults.ts asserts two nodes).
  if (s.nodes < 2 && s.faults.partitions !== null) {
    throw new ScenarioSyntaxError(at.nodes, `nodes ${s.nodes}: partitions (of the faults) take 2 nodes or more`);
  }
  for (const [cls, line] of at.classes) {
    const problem = faultKnobProblem(s.faults, cls);
    if (problem !== null) throw new ScenarioSyntaxError(line, problem);
  }
  for (const step of s.steps) {
    if (step.atMs > s.safetyMs)
      throw new ScenarioSyntaxError(step.line, "step after the safety phase");
    const a = step.action;
    if (a.kind === "partition") a.groups.flat().forEach((id) => known(id, step.line));
    else if (a.kind === "cut") [a.from, a.to].forEach((id) => known(id, step.line));
    else if (a.kind !== "heal-network") known(a.node, step.line);
  }
  for (const e of s.expects) {
    for (const id of e.on ?? []) known(id, e.line);
    if ("node" in e.check) known(e.check.node, e.line);
    if ("source" in e.check) known(e.check.source, e.line);
  }
  checkScript(s.steps, s.expects);
}

/**
 * What would fail an assertion of the fault sources or the network mid-run (sim/prng.ts,
 * sim/faults.ts, sim/network.ts, sim/clock.ts), as a message naming the knob; null when the
 * class is sound. Checked on the whole class as the file leaves it (knobs not named keep the
 * preset's value), so `rollbacks minage=20s` alone is refused against the preset's maxage=10s.
 */
export function faultKnobProblem(config: FaultConfig, cls: FaultClass): string | null {
  if (cls === "network") return networkProblem(config.network);
  const ms = (v: number): string => (Number.isSafeInteger(v) ? formatDuration(v) : String(v));
  // Prng.exponential(mean) asserts mean > 0.
  const gap = (key: string, v: number): string | null =>
    v > 0 ? null : `${cls} ${key} must be > 0 (a mean gap), got ${ms(v)}`;
  // Prng.chance(p) asserts p in [0, 1].
  const chance = (key: string, v: number): string | null =>
    v >= 0 && v <= 1 ? null : `${cls} ${key} is a probability in [0, 1], got ${v}`;
  // Prng.int(lo, hi) asserts whole bounds, lo <= hi and at most 2^32 values.
  const span = (loKey: string, lo: number, hiKey: string, hi: number): string | null => {
    if (lo > hi) return `${cls} ${loKey}=${ms(lo)} exceeds ${hiKey}=${ms(hi)}`;
    if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || hi - lo + 1 > 2 ** 32)
      return `${cls} ${loKey}..${hiKey} spans more than 2^32 ms`;
    return null;
  };
  const symmetric = (key: string, v: number): string | null =>
    span(key, -v, key, v) === null ? null : `${cls} ${key} must be at most ${2 ** 31 - 1}ms`;
  const first = (...problems: Array<string | null>): string | null =>
    problems.find((p) => p !== null) ?? null;
  switch (cls) {
    case "partitions": {
      const c = config.partitions;
      if (c === null) return null;
      return first(
        gap("gap", c.meanGapMs),
        span("min", c.minDurationMs, "max", c.maxDurationMs),
        chance("oneway", c.oneWayP),
      );
    }
    case "crashes": {
      const c = config.crashes;
      if (c === null) return null;
      return first(
        gap("gap", c.meanGapMs),
        span("min", c.minDownMs, "max", c.maxDownMs),
        chance("torn", c.tornP),
        chance("inwrite", c.inWriteP),
        chance("beyond", c.beyondCommitsP),
        chance("kept", c.keptP),
      );
    }
    case "clocks": {
      const c = config.clocks;
      if (c === null) return null;
      // Each node drifts by a draw of [-drift, drift) ppm; SimClock asserts |drift| < 1e6.
      const drift =
        c.maxDriftPpm >= 0 && c.maxDriftPpm < 1e6
          ? null
          : `clocks drift must be in [0, 1000000) (ppm, either way), got ${c.maxDriftPpm}`;
      return first(
        symmetric("offset", c.maxOffsetMs),
        drift,
        gap("jumpgap", c.meanJumpGapMs),
        symmetric("jump", c.maxJumpMs),
      );
    }
    case "rollbacks": {
      const c = config.rollbacks;
      if (c === null) return null;
      return first(
        gap("gap", c.meanGapMs),
        span("minage", c.minAgeMs, "maxage", c.maxAgeMs),
        span("min", c.minDownMs, "max", c.maxDownMs),
      );
    }
  }
}

/** The network's own checks (sim/network.ts checkConfig; uniform latency draws Prng.int). */
function networkProblem(n: FaultConfig["network"]): string | null {
  if (!(n.lossP >= 0 && n.lossP < 1)) return `network loss must be in [0, 1), got ${n.lossP}`;
  if (!(n.dupP >= 0 && n.dupP < 1)) return `network dup must be in [0, 1), got ${n.dupP}`;
  const m = n.latency;
  const whole = (v: number): boolean => Number.isSafeInteger(v) && v >= 0;
  if (m.kind === "fixed" && !whole(m.ms))
    return `network latency=fixed:${m.ms}: MS must be a whole number >= 0`;
  if (m.kind === "uniform") {
    const text = `network latency=uniform:${m.minMs}:${m.maxMs}`;
    if (!whole(m.minMs) || !whole(m.maxMs))
      return `${text}: MIN and MAX must be whole numbers >= 0`;
    if (m.minMs > m.maxMs) return `${text}: MIN must not exceed MAX`;
  }
  if (m.kind === "lognormal") {
    const text = `network latency=lognormal:${m.medianMs}:${m.sigma}:${m.minMs}:${m.maxMs}`;
    if (!(m.medianMs > 0)) return `${text}: MEDIAN must be > 0`;
    if (!(m.sigma >= 0)) return `${text}: SIGMA must be >= 0`;
    if (!(m.minMs >= 0 && m.minMs <= m.maxMs)) return `${text}: need 0 <= MIN <= MAX`;
  }
  return null;
}

function parseTopology(args: readonly Token[], line: number): Topology {
  const kind = args[0]?.text ?? "";
  if (!isTopologyKind(kind)) {
    throw new ScenarioSyntaxError(line, `topology takes mesh, ring, line, star or sparse <seed>, not ${kind || "nothing"}`);
  }
  if (kind !== "sparse") {
    if (args.length !== 1) throw new ScenarioSyntaxError(line, `topology ${kind} takes no argument`);
    return { kind };
  }
  if (args.length !== 2) throw new ScenarioSyntaxError(line, "topology sparse takes a seed (a whole number)");
  return { kind, seed: parseCount(args[1]!.text, 0, Number.MAX_SAFE_INTEGER, line) };
}

function parseContention(args: readonly Token[], line: number): Contention {
  const fields = new Map<string, string>();
  for (const t of args) {
    const [key, value] = t.text.split("=");
    if ((key !== "share" && key !== "objects") || value === undefined || fields.has(key))
      throw new ScenarioSyntaxError(line, `bad contention entry ${t.text} (contention share=P objects=N)`);
    fields.set(key, value);
  }
  const share = fields.get("share");
  const objects = fields.get("objects");
  if (share === undefined || objects === undefined)
    throw new ScenarioSyntaxError(line, "contention takes share=P objects=N");
  const p = parseNonNegative(share, line);
  if (p > 1) throw new ScenarioSyntaxError(line, `contention share is a probability, not ${share}`);
  return { share: p, objects: parseCount(objects, 1, 1000, line) };
}

function parseLargeValues(args: readonly Token[], line: number): LargeValues {
  const usage = "large-values share=P bytes=MIN..MAX (bytes up to 1048576)";
  const fields = new Map<string, string>();
  for (const t of args) {
    const [key, value] = t.text.split("=");
    if ((key !== "share" && key !== "bytes") || value === undefined || fields.has(key))
      throw new ScenarioSyntaxError(line, `bad large-values entry ${t.text} (${usage})`);
    fields.set(key, value);
  }
  const share = fields.get("share");
  const bytes = /^(\d+)\.\.(\d+)$/u.exec(fields.get("bytes") ?? "");
  if (share === undefined || bytes === null) throw new ScenarioSyntaxError(line, usage);
  const p = parseNonNegative(share, line);
  if (p > 1) throw new ScenarioSyntaxError(line, `large-values share is a probability, not ${share}`);
  const minBytes = parseCount(bytes[1]!, 1, limits.valueBytesMax, line);
  const maxBytes = parseCount(bytes[2]!, minBytes, limits.valueBytesMax, line);
  return { share: p, minBytes, maxBytes };
}

function parseMix(args: readonly Token[], line: number): OpMix {
  const mix: Partial<Record<DirectoryOpKind, number>> = {};
  for (const t of args) {
    const [key, value] = t.text.split("=");
    const kind = opKinds.find((k) => k === key);
    if (kind === undefined || value === undefined)
      throw new ScenarioSyntaxError(line, `bad mix entry ${t.text}`);
    mix[kind] = parseNonNegative(value, line);
  }
  // The workload draws kinds by weight; with no weight above 0 it fell back to creates only.
  if (!Object.values(mix).some((w) => w > 0))
    throw new ScenarioSyntaxError(line, "mix needs a kind with a weight > 0 (e.g. mix create=1)");
  return mix;
}

function parseTiming(
  args: readonly Token[],
  line: number,
): Partial<Record<keyof ReplicationTiming, number>> {
  const out: Partial<Record<keyof ReplicationTiming, number>> = {};
  for (const t of args) {
    const [key, value] = t.text.split("=");
    const field = key === undefined ? undefined : timingKeys[key];
    if (field === undefined || value === undefined)
      throw new ScenarioSyntaxError(line, `bad timing entry ${t.text}`);
    out[field] =
      field === "objectsPerBatch"
        ? parseCount(value, 1, 10_000, line)
        : parseDurationAt(value, line);
    // A zero wait for an answer times every request out at once, asked again at the same
    // instant for ever (the event bound); a zero period or jitter only pulls often.
    if (field === "pullTimeoutMs" && out[field] === 0)
      throw new ScenarioSyntaxError(line, "timing pullTimeout must be > 0");
  }
  return out;
}

function parseSeedRange(text: string, line: number): SeedRange {
  const m = /^(\d+)(?:\.\.(\d+))?$/u.exec(text);
  if (m === null) throw new ScenarioSyntaxError(line, `bad seed range ${text} (N or A..B)`);
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  // Past 2^53 a seed reads as its neighbour and the range never ends (determinism audit).
  if (!Number.isSafeInteger(to)) throw new ScenarioSyntaxError(line, `seed ${text} is beyond ${Number.MAX_SAFE_INTEGER}`);
  if (to < from) throw new ScenarioSyntaxError(line, `empty seed range ${text}`);
  return { from, to };
}
