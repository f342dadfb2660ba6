import type { FaultConfig } from "../faults";
import { presetFaults } from "../faults";
import type { LatencyModel } from "../network";
import { formatDuration } from "./scenario";

/**
 * Fault class lines of a scenario file: each overrides one class of the preset, either `off`
 * or with knobs (`crashes gap=2s max=5s`); knobs not named keep the preset's value, or the
 * chaos preset's when the preset lacks the class. Printing writes every knob, so a printed
 * configuration (a swarm seed's, a shrunk one) reads back exactly.
 */

export const faultClasses = ["network", "partitions", "crashes", "clocks", "rollbacks"] as const;
export type FaultClass = (typeof faultClasses)[number];

type Knob = { readonly key: string; readonly field: string; readonly kind: "ms" | "number" };

const knobs: Readonly<Record<Exclude<FaultClass, "network">, readonly Knob[]>> = {
  partitions: [
    { key: "gap", field: "meanGapMs", kind: "ms" },
    { key: "min", field: "minDurationMs", kind: "ms" },
    { key: "max", field: "maxDurationMs", kind: "ms" },
    { key: "oneway", field: "oneWayP", kind: "number" },
  ],
  crashes: [
    { key: "gap", field: "meanGapMs", kind: "ms" },
    { key: "min", field: "minDownMs", kind: "ms" },
    { key: "max", field: "maxDownMs", kind: "ms" },
    { key: "torn", field: "tornP", kind: "number" },
    { key: "maxdown", field: "maxDownNodes", kind: "number" },
    { key: "inwrite", field: "inWriteP", kind: "number" },
    { key: "beyond", field: "beyondCommitsP", kind: "number" },
    { key: "kept", field: "keptP", kind: "number" },
  ],
  clocks: [
    { key: "offset", field: "maxOffsetMs", kind: "ms" },
    { key: "drift", field: "maxDriftPpm", kind: "number" },
    { key: "jumpgap", field: "meanJumpGapMs", kind: "ms" },
    { key: "jump", field: "maxJumpMs", kind: "ms" },
  ],
  rollbacks: [
    { key: "gap", field: "meanGapMs", kind: "ms" },
    { key: "minage", field: "minAgeMs", kind: "ms" },
    { key: "maxage", field: "maxAgeMs", kind: "ms" },
    { key: "min", field: "minDownMs", kind: "ms" },
    { key: "max", field: "maxDownMs", kind: "ms" },
  ],
};

export function isFaultClass(word: string): word is FaultClass {
  return (faultClasses as readonly string[]).includes(word);
}

/** Applies one class line (`args` after the class word) to `config`; throws on bad input. */
export function applyFaultLine(
  config: FaultConfig,
  cls: FaultClass,
  args: readonly string[],
  parseMs: (text: string) => number,
): FaultConfig {
  if (cls === "network") return { ...config, network: parseNetwork(config, args) };
  if (args.length === 1 && args[0] === "off") return { ...config, [cls]: null };
  const chaos = presetFaults("chaos");
  const base: Record<string, number> = { ...(config[cls] ?? chaos[cls]) } as unknown as Record<
    string,
    number
  >;
  for (const arg of args) {
    const [key, value] = splitKnob(arg);
    const knob = knobs[cls].find((k) => k.key === key);
    if (knob === undefined) throw new Error(`${cls}: unknown knob ${key}`);
    base[knob.field] = knob.kind === "ms" ? parseMs(value) : parseNumber(value);
  }
  return { ...config, [cls]: base };
}

function parseNetwork(config: FaultConfig, args: readonly string[]): FaultConfig["network"] {
  let network = config.network;
  for (const arg of args) {
    const [key, value] = splitKnob(arg);
    if (key === "loss") network = { ...network, lossP: parseNumber(value) };
    else if (key === "dup") network = { ...network, dupP: parseNumber(value) };
    else if (key === "latency") network = { ...network, latency: parseLatency(value) };
    else throw new Error(`network: unknown knob ${key}`);
  }
  return network;
}

function parseLatency(text: string): LatencyModel {
  const [kind, ...rest] = text.split(":");
  const bad = (): Error =>
    new Error(
      `bad latency ${text} (plain milliseconds: fixed:MS, uniform:MIN:MAX, lognormal:MEDIAN:SIGMA:MIN:MAX)`,
    );
  const n = rest.map((part) => {
    const v = Number(part);
    if (part.trim() === "" || !Number.isFinite(v)) throw bad();
    return v;
  });
  if (kind === "fixed" && n.length === 1) return { kind, ms: n[0]! };
  if (kind === "uniform" && n.length === 2) return { kind, minMs: n[0]!, maxMs: n[1]! };
  if (kind === "lognormal" && n.length === 4) {
    return { kind, medianMs: n[0]!, sigma: n[1]!, minMs: n[2]!, maxMs: n[3]! };
  }
  throw bad();
}

function splitKnob(arg: string): [string, string] {
  const eq = arg.indexOf("=");
  if (eq <= 0) throw new Error(`expected key=value, got ${arg}`);
  return [arg.slice(0, eq), arg.slice(eq + 1)];
}

function parseNumber(text: string): number {
  const n = Number(text);
  if (text.trim() === "" || !Number.isFinite(n)) throw new Error(`not a number: ${text}`);
  return n;
}

/** Lines for every class of `config` that differs from the preset's (empty when none). */
export function faultLinesFor(config: FaultConfig, preset: FaultConfig): string[] {
  const out: string[] = [];
  for (const cls of faultClasses) {
    if (JSON.stringify(config[cls]) === JSON.stringify(preset[cls])) continue;
    out.push(faultLine(config, cls));
  }
  return out;
}

export function faultLine(config: FaultConfig, cls: FaultClass): string {
  if (cls === "network") {
    const n = config.network;
    return `network latency=${latencyText(n.latency)} loss=${n.lossP} dup=${n.dupP}`;
  }
  const c = config[cls] as unknown as Record<string, number> | null;
  if (c === null) return `${cls} off`;
  const parts = knobs[cls].map((k) => {
    const v = c[k.field] ?? 0;
    return `${k.key}=${k.kind === "ms" ? formatDuration(Math.round(v)) : String(v)}`;
  });
  return `${cls} ${parts.join(" ")}`;
}

function latencyText(l: LatencyModel): string {
  switch (l.kind) {
    case "fixed":
      return `fixed:${l.ms}`;
    case "uniform":
      return `uniform:${l.minMs}:${l.maxMs}`;
    case "lognormal":
      return `lognormal:${l.medianMs}:${l.sigma}:${l.minMs}:${l.maxMs}`;
  }
}
