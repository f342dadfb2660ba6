import type { AttributeArg, ScriptOp } from "../directory/script-op";
import { quoteIfNeeded, refText, valueText } from "../directory/script-op";
import { presetFaults } from "../faults";
import { faultLinesFor } from "./fault-lines";
import { topologyText } from "./topology";
import type { ExpectCheck, Expectation, Scenario, StepAction } from "./scenario";
import {
  defaultLivenessMs,
  defaultRoundsMax,
  formatDuration,
  formatSignedDuration,
} from "./scenario";

const timingNames: Readonly<Record<string, string>> = {
  pullEveryMs: "pullEvery",
  pullJitterMs: "pullJitter",
  hintDelayMs: "hintDelay",
  pullTimeoutMs: "pullTimeout",
  objectsPerBatch: "objectsPerBatch",
};

/** The canonical text of a scenario; parseScenario(printScenario(s)) equals s. */
export function printScenario(s: Scenario): string {
  const out: string[] = s.about.map((line) => (line === "" ? "#" : `# ${line}`));
  // The name is one token (quoted when it holds spaces or syntax); checks and known-bug are
  // free text, written as read.
  out.push(`scenario ${quoteIfNeeded(s.name)}`, `checks ${s.checks}`);
  out.push(`nodes ${s.nodes}`, `faults ${s.preset}`);
  out.push(...faultLinesFor(s.faults, presetFaults(s.preset)));
  out.push(`rate ${s.rate}`);
  if (s.mix !== null) {
    const entries = Object.entries(s.mix).sort(([a], [b]) => (a < b ? -1 : 1));
    out.push(`mix ${entries.map(([k, v]) => `${k}=${v}`).join(" ")}`);
  }
  if (s.contention !== null) out.push(`contention share=${s.contention.share} objects=${s.contention.objects}`);
  if (s.largeValues !== null) {
    const v = s.largeValues;
    out.push(`large-values share=${v.share} bytes=${v.minBytes}..${v.maxBytes}`);
  }
  out.push(`safety ${formatDuration(s.safetyMs)}`);
  if (s.livenessMs !== defaultLivenessMs) out.push(`liveness ${formatDuration(s.livenessMs)}`);
  if (s.roundsMax !== defaultRoundsMax) out.push(`rounds ${s.roundsMax}`);
  if (s.converge !== null) out.push(`converge ${s.converge.join(" ")}`);
  if (s.gcEveryMs !== null) out.push(`gc ${formatDuration(s.gcEveryMs)}`);
  if (s.topology.kind !== "mesh") out.push(`topology ${topologyText(s.topology)}`);
  const timing = Object.entries(s.timing).sort(([a], [b]) => (a < b ? -1 : 1));
  if (timing.length > 0) {
    const parts = timing.map(
      ([k, v]) => `${timingNames[k] ?? k}=${k === "objectsPerBatch" ? v : formatDuration(v)}`,
    );
    out.push(`timing ${parts.join(" ")}`);
  }
  if (s.seeds !== null)
    out.push(
      `seeds ${s.seeds.from === s.seeds.to ? s.seeds.from : `${s.seeds.from}..${s.seeds.to}`}`,
    );
  if (s.maxEvents !== null) out.push(`events ${s.maxEvents}`);
  if (s.batchBytes !== null) out.push(`batch-bytes ${s.batchBytes}`);
  if (s.wire) out.push("wire");
  if (s.knownBug !== null) out.push(`known-bug ${s.knownBug}`);
  if (s.steps.length > 0) out.push("");
  for (const step of s.steps)
    out.push(`at ${formatDuration(step.atMs)} ${actionText(step.action)}`);
  if (s.expects.length > 0) out.push("");
  for (const e of s.expects) out.push(`expect ${expectationText(e)}`);
  return `${out.join("\n")}\n`;
}

export function actionText(a: StepAction): string {
  switch (a.kind) {
    case "partition":
      return `partition ${a.groups.map((g) => g.join(" ")).join(" | ")}`;
    case "cut":
      return `cut ${a.from} -> ${a.to}`;
    case "heal-network":
      return "heal-network";
    case "crash":
      return `crash ${a.node} down=${formatDuration(a.downMs)}${a.torn ? " torn" : ""}`;
    case "power-cut":
      return (
        `power-cut ${a.node} after=${a.afterWrites}${a.beyondCommits ? " beyond-commits" : ""}` +
        ` down=${formatDuration(a.downMs)}${a.unsynced === "lost" ? "" : ` ${a.unsynced}`}`
      );
    case "disk-error":
      return (
        `disk-error ${a.node} after=${a.afterWrites}${a.beyondCommits ? " beyond-commits" : ""}` +
        ` down=${formatDuration(a.downMs)}`
      );
    case "image":
      return `image ${a.node} ${a.key}`;
    case "rollback":
      return `rollback ${a.node} ${a.key} down=${formatDuration(a.downMs)}`;
    case "clock":
      return `clock ${a.node} ${formatSignedDuration(a.deltaMs)}`;
    case "pause-pulls":
    case "resume-pulls":
      return `${a.kind} ${a.node}`;
    case "op":
      return `${a.node} ${opText(a.op)}${a.outcome === "ok" ? "" : ` -> ${a.outcome}`}`;
  }
}

export function opText(op: ScriptOp): string {
  const attrs = (list: readonly AttributeArg[]): string =>
    list.flatMap((a) => a.values.map((v) => ` ${a.name}=${valueText(v)}`)).join("");
  const label = (l: string | null): string => (l === null ? "" : ` as @${l}`);
  switch (op.verb) {
    case "create":
      return `create ${refText(op.parent)} ${quoteIfNeeded(op.name)} ${op.className}${attrs(op.attributes)}${label(op.label)}`;
    case "define":
      return `define ${op.kind} ${refText(op.parent)} ${quoteIfNeeded(op.name)}${attrs(op.attributes)}${label(op.label)}`;
    case "rename":
      return `rename ${refText(op.target)} ${quoteIfNeeded(op.name)}`;
    case "move":
      return `move ${refText(op.target)} ${refText(op.parent)}`;
    case "put":
      return `put ${refText(op.target)} ${op.attribute}${op.values.map((v) => ` ${valueText(v)}`).join("")}`;
    case "add":
    case "remove":
      return `${op.verb} ${refText(op.target)} ${op.attribute} ${valueText(op.value)}`;
    case "meta":
      return `meta ${refText(op.target)} ${op.attribute} ${valueText(op.value)} ${op.key}${op.metaValues.map((v) => ` ${valueText(v)}`).join("")}`;
    case "delete":
    case "restore":
    case "shred":
      return `${op.verb} ${refText(op.target)}`;
    case "config":
      return `config ${op.attribute} ${formatDuration(op.seconds * 1000)}`;
    case "gc":
      return "gc";
  }
}

export function expectationText(e: Expectation): string {
  const on = e.on === null ? "" : ` on ${e.on.join(" ")}`;
  return `${checkText(e.check)}${on}`;
}

function checkText(c: ExpectCheck): string {
  switch (c.kind) {
    case "cnf":
    case "cycle-broken":
      return `${c.kind} ${c.refs.map(refText).join(" ")}`;
    case "orphaned":
      return `orphaned ${refText(c.ref)}`;
    case "values":
      return `values ${refText(c.ref)} ${c.attribute}${c.values.map((v) => ` ${valueText(v)}`).join("")}`;
    case "stage":
      return `stage ${refText(c.ref)} ${c.stage}`;
    case "path":
      return `path ${refText(c.ref)} ${quoteIfNeeded(c.path)}`;
    case "journal":
    case "no-journal":
      return `${c.kind} ${c.node} ${c.journalKind}`;
    case "latched-then-healed":
    case "quarantine-seen":
      return `${c.kind} ${c.node}`;
    case "refused":
      return `refused ${c.node} ${c.source}`;
    case "ghost-seen":
      return `ghost-seen ${c.node} ${refText(c.ref)}`;
  }
}
