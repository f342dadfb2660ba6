import { journalKinds } from "../../core/journal";
import type { AttributeArg, DefinitionKind, Ref, ScriptOp, ValueArg } from "../directory/script-op";
import { isErrorCode, parseCount, parseDurationAt } from "./parse-values";
import { faultImageKeyPrefix } from "../faults";
import type {
  ExpectCheck,
  ExpectedStage,
  Expectation,
  OpOutcome,
  Step,
  StepAction,
} from "./scenario";
import { ScenarioSyntaxError, bareStarts, splitAssignment } from "./tokenize";
import type { Token } from "./tokenize";

/**
 * The timed steps (`at <time> ...`) and expectations (`expect ...`) of a scenario file.
 * Grammar in scenarios/README.md.
 */

const definitionKinds: readonly DefinitionKind[] = [
  "namespace",
  "attribute",
  "facet",
  "class",
  "extension",
];
const stages: readonly ExpectedStage[] = ["alive", "deleted", "shredded", "absent"];

class Cursor {
  private index = 0;
  constructor(
    private tokens: readonly Token[],
    readonly line: number,
  ) {}

  fail(message: string): never {
    throw new ScenarioSyntaxError(this.line, message);
  }

  peek(): Token | undefined {
    return this.tokens[this.index];
  }

  next(what: string): Token {
    const t = this.tokens[this.index];
    if (t === undefined) return this.fail(`missing ${what}`);
    this.index++;
    return t;
  }

  word(what: string): string {
    return this.next(what).text;
  }

  done(): boolean {
    return this.index >= this.tokens.length;
  }

  end(): void {
    if (!this.done()) this.fail(`unexpected ${this.peek()?.text ?? ""}`);
  }

  /** Takes the trailing `<keyword> ...` part off the end when present. */
  takeTail(keyword: string): Token[] | null {
    for (let i = this.index; i < this.tokens.length; i++) {
      const t = this.tokens[i]!;
      if (t.text === keyword && t.bareLength === keyword.length) {
        const tail = this.tokens.slice(i + 1);
        this.tokens = this.tokens.slice(0, i);
        return tail;
      }
    }
    return null;
  }
}

export function parseStep(args: readonly Token[], line: number): Step {
  const c = new Cursor(args, line);
  const atMs = parseDurationAt(c.word("time"), line);
  const action = parseAction(c);
  c.end();
  return { atMs, line, action };
}

function parseAction(c: Cursor): StepAction {
  const word = c.word("step");
  switch (word) {
    case "partition":
      return { kind: "partition", groups: parseGroups(c) };
    case "cut": {
      const from = c.word("node");
      if (c.word("->") !== "->") c.fail("expected cut A -> B");
      const to = c.word("node");
      if (to === from) c.fail(`cut ${from} -> ${to}: a cut joins two different nodes`);
      return { kind: "cut", from, to };
    }
    case "heal-network":
      return { kind: "heal-network" };
    case "crash": {
      const node = c.word("node");
      const opts = options(c, ["down", "torn"]);
      return {
        kind: "crash",
        node,
        downMs: durationOption(opts, "down", 1000, c),
        torn: opts.has("torn"),
      };
    }
    case "power-cut": {
      const { armed, opts } = armedDiskFault(c, "power-cut", ["torn", "kept"]);
      if (opts.has("torn") && opts.has("kept")) c.fail("power-cut takes torn or kept, not both");
      const unsynced = opts.has("torn") ? "torn" : opts.has("kept") ? "kept" : "lost";
      return { kind: "power-cut", ...armed, unsynced };
    }
    case "disk-error":
      return { kind: "disk-error", ...armedDiskFault(c, "disk-error", []).armed };
    case "image":
      return { kind: "image", node: c.word("node"), key: scriptedImageKey(c) };
    case "rollback": {
      const node = c.word("node");
      const key = scriptedImageKey(c);
      return {
        kind: "rollback",
        node,
        key,
        downMs: durationOption(options(c, ["down"]), "down", 500, c),
      };
    }
    case "clock": {
      const node = c.word("node");
      const delta = c.word("delta");
      const sign = delta.startsWith("-")
        ? -1
        : delta.startsWith("+")
          ? 1
          : c.fail("clock delta needs + or -");
      return { kind: "clock", node, deltaMs: sign * parseDurationAt(delta.slice(1), c.line) };
    }
    case "pause-pulls":
    case "resume-pulls":
      return { kind: word, node: c.word("node") };
    default:
      if (!/^n\d+$/u.test(word)) c.fail(`unknown step ${word}`);
      return parseOpStep(word, c);
  }
}

function parseGroups(c: Cursor): string[][] {
  const groups: string[][] = [[]];
  for (let guard = 0; !c.done() && guard < 1000; guard++) {
    const t = c.word("node");
    if (t === "|") groups.push([]);
    else groups[groups.length - 1]!.push(...t.split(",").filter((s) => s !== ""));
  }
  if (groups.length < 2 || groups.some((g) => g.length === 0))
    c.fail("partition needs groups: A B | C");
  const seen = new Set<string>();
  for (const id of groups.flat()) {
    if (seen.has(id)) c.fail(`partition names ${id} twice (a node is in one group only)`);
    seen.add(id);
  }
  return groups;
}

/** What `power-cut` and `disk-error` share: the node, which disk call, the down time. */
function armedDiskFault(
  c: Cursor,
  step: string,
  extra: readonly string[],
): {
  armed: { node: string; afterWrites: number; beyondCommits: boolean; downMs: number };
  opts: Map<string, string>;
} {
  const node = c.word("node");
  const opts = options(c, ["after", "beyond-commits", "down", ...extra]);
  const after = opts.get("after");
  if (after === undefined) c.fail(`${step} needs after=N (the N-th disk call from now)`);
  const armed = {
    node,
    afterWrites: parseCount(after!, 1, 1_000_000, c.line),
    beyondCommits: opts.has("beyond-commits"),
    downMs: durationOption(opts, "down", 1000, c),
  };
  return { armed, opts };
}

function options(c: Cursor, allowed: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let guard = 0; !c.done() && guard < 100; guard++) {
    const t = c.next("option");
    const a = splitAssignment(t);
    const key = a?.key ?? t.text;
    if (!allowed.includes(key)) c.fail(`unknown option ${t.text}`);
    out.set(key, a?.value.text ?? "");
  }
  return out;
}

function durationOption(
  opts: Map<string, string>,
  key: string,
  fallback: number,
  c: Cursor,
): number {
  const text = opts.get(key);
  return text === undefined ? fallback : parseDurationAt(text, c.line);
}

function parseOpStep(node: string, c: Cursor): StepAction {
  const tail = c.takeTail("->");
  let outcome: OpOutcome = "ok";
  if (tail !== null) {
    const word = tail.length === 1 ? tail[0]!.text : c.fail("expected `-> ok|any|<error-code>`");
    if (word !== "ok" && word !== "any" && !isErrorCode(word)) c.fail(`unknown outcome ${word}`);
    outcome = word as OpOutcome;
  }
  return { kind: "op", node, op: parseOp(c), outcome };
}

function parseOp(c: Cursor): ScriptOp {
  const verb = c.word("verb");
  switch (verb) {
    case "create":
    case "define":
      return parseCreate(verb, c);
    case "rename":
      return { verb, target: ref(c), name: c.word("name") };
    case "move":
      return { verb, target: ref(c), parent: ref(c) };
    case "put": {
      const target = ref(c);
      const attribute = c.word("attribute");
      const values: ValueArg[] = [];
      for (let guard = 0; !c.done() && guard < 1000; guard++)
        values.push(valueArg(c.next("value")));
      return { verb, target, attribute, values };
    }
    case "add":
    case "remove":
      return {
        verb,
        target: ref(c),
        attribute: c.word("attribute"),
        value: valueArg(c.next("value")),
      };
    case "meta": {
      const target = ref(c);
      const attribute = c.word("attribute");
      const value = valueArg(c.next("value"));
      const key = c.word("meta key");
      const metaValues: ValueArg[] = [];
      for (let guard = 0; !c.done() && guard < 1000; guard++)
        metaValues.push(valueArg(c.next("meta value")));
      return { verb, target, attribute, value, key, metaValues };
    }
    case "delete":
    case "restore":
    case "shred":
      return { verb, target: ref(c) };
    case "config": {
      const attribute = c.word("attribute");
      if (attribute !== "maxTimeApart" && attribute !== "timeUntilShred")
        c.fail(`config sets maxTimeApart or timeUntilShred`);
      const ms = parseDurationAt(c.word("duration"), c.line);
      if (ms % 1000 !== 0) c.fail("config durations are whole seconds");
      return {
        verb,
        attribute: attribute as "maxTimeApart" | "timeUntilShred",
        seconds: ms / 1000,
      };
    }
    case "gc":
      return { verb };
    default:
      return c.fail(`unknown op ${verb}`);
  }
}

function parseCreate(verb: "create" | "define", c: Cursor): ScriptOp {
  const labelTail = c.takeTail("as");
  let label: string | null = null;
  if (labelTail !== null) {
    const t = labelTail.length === 1 ? labelTail[0]! : c.fail("expected `as @label`");
    if (!bareStarts(t, "@") || t.text.length < 2) c.fail("labels look like @name");
    label = t.text.slice(1);
  }
  let kind: DefinitionKind | null = null;
  if (verb === "define") {
    const k = c.word("definition kind");
    kind = definitionKinds.find((d) => d === k) ?? c.fail(`define ${definitionKinds.join("|")}`);
  }
  const parent = ref(c);
  const name = c.word("name");
  const className = verb === "create" ? c.word("class") : "";
  const attributes: AttributeArg[] = [];
  for (let guard = 0; !c.done() && guard < 1000; guard++) {
    const t = c.next("attribute");
    const a = splitAssignment(t) ?? c.fail(`expected attribute=value, got ${t.text}`);
    const held = attributes.find((x) => x.name === a.key);
    if (held === undefined) attributes.push({ name: a.key, values: [valueArg(a.value)] });
    else
      attributes[attributes.indexOf(held)] = {
        name: a.key,
        values: [...held.values, valueArg(a.value)],
      };
  }
  if (kind !== null) return { verb: "define", kind, parent, name, attributes, label };
  return { verb: "create", parent, name, className, attributes, label };
}

function ref(c: Cursor): Ref {
  return refOf(c.next("object (@label or /path)"), c);
}

function refOf(t: Token, c: Cursor): Ref {
  if (bareStarts(t, "@") && t.text.length > 1) return { label: t.text.slice(1) };
  if (t.text.startsWith("/")) return { path: t.text };
  return c.fail(`expected @label or /path, got ${t.text}`);
}

function valueArg(t: Token): ValueArg {
  if (!bareStarts(t, "@") || t.text.length < 2) return { literal: t.text };
  const rest = t.text.slice(1);
  return { ref: rest.startsWith("/") ? { path: rest } : { label: rest } };
}

export function parseExpectation(args: readonly Token[], line: number): Expectation {
  const c = new Cursor(args, line);
  const onTail = c.takeTail("on");
  const on = onTail === null ? null : onTail.map((t) => t.text);
  if (on !== null && on.length === 0) c.fail("`on` needs nodes");
  const check = parseCheck(c);
  c.end();
  return { line, on, check };
}

function parseCheck(c: Cursor): ExpectCheck {
  const kind = c.word("expectation");
  const refs = (min: number): Ref[] => {
    const out: Ref[] = [];
    for (let guard = 0; !c.done() && guard < 100; guard++) out.push(ref(c));
    if (out.length < min) c.fail(`${kind} needs at least ${min} objects`);
    // One object named twice makes `cnf @A @A` hold of a single object: a vacuous pass.
    const names = out.map((r) => ("label" in r ? `@${r.label}` : r.path));
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice !== undefined) c.fail(`${kind} names ${twice} twice`);
    return out;
  };
  switch (kind) {
    case "cnf":
      return { kind, refs: refs(2) };
    case "cycle-broken":
      return { kind, refs: refs(2) };
    case "orphaned":
      return { kind, ref: ref(c) };
    case "values": {
      const target = ref(c);
      const attribute = c.word("attribute");
      const values: ValueArg[] = [];
      for (let guard = 0; !c.done() && guard < 1000; guard++)
        values.push(valueArg(c.next("value")));
      return { kind, ref: target, attribute, values };
    }
    case "stage": {
      const target = ref(c);
      const s = c.word("stage");
      return {
        kind,
        ref: target,
        stage: stages.find((x) => x === s) ?? c.fail(`stage is ${stages.join("|")}`),
      };
    }
    case "path":
      return { kind, ref: ref(c), path: c.word("path") };
    case "journal":
    case "no-journal": {
      const node = c.word("node");
      const journalKind = c.word("journal kind");
      // A misspelt kind is never in the journal: `no-journal` of it would hold vacuously.
      if (!(journalKinds as readonly string[]).includes(journalKind))
        c.fail(`unknown journal kind ${journalKind} (one of ${journalKinds.join(" ")})`);
      return { kind, node, journalKind };
    }
    case "latched-then-healed":
    case "quarantine-seen":
      return { kind, node: c.word("node") };
    case "refused": {
      const node = c.word("node");
      const source = c.word("source node");
      if (source === node) c.fail(`refused ${node} ${source}: a node never pulls from itself`);
      return { kind, node, source };
    }
    case "ghost-seen":
      return { kind, node: c.word("node"), ref: ref(c) };
    default:
      return c.fail(`unknown expectation ${kind}`);
  }
}

/**
 * An image key a script may use: not one of the rollback fault source's (`faultImageKeyPrefix`),
 * which shares the world's image store, so a scripted image and a fault's never replace each other.
 */
function scriptedImageKey(c: Cursor): string {
  const key = c.word("image key");
  if (key.startsWith(faultImageKeyPrefix)) {
    c.fail(`image key ${key}: keys starting ${faultImageKeyPrefix} are the rollback faults' own`);
  }
  return key;
}

/**
 * Checks across the script, as it will run (steps in time order, file order breaking ties):
 * each label is bound by one create or define; every label an op or expectation names is bound
 * by some step, for an op by a step that runs before it (an expectation on a misspelt label
 * would judge nothing: `stage @Orin absent` holds of a label that resolves to nothing); every
 * rollback restores an image its node took before it and that no earlier rollback restored
 * (the world asserts the image exists, and a rollback uses its image up).
 */
export function checkScript(steps: readonly Step[], expects: readonly Expectation[]): void {
  const boundAt = new Map<string, number>();
  for (const step of steps) {
    const a = step.action;
    if (a.kind !== "op" || (a.op.verb !== "create" && a.op.verb !== "define")) continue;
    const label = a.op.label;
    if (label === null) continue;
    const earlier = boundAt.get(label);
    if (earlier !== undefined) {
      const message = `label @${label} is already bound at line ${earlier}`;
      throw new ScenarioSyntaxError(step.line, message);
    }
    boundAt.set(label, step.line);
  }
  const bound = (labels: readonly string[], line: number, before: Set<string> | null): void => {
    const unbound = labels.find((l) => !boundAt.has(l));
    if (unbound !== undefined) {
      const message = `label @${unbound} is bound by no step (\`as @${unbound}\`)`;
      throw new ScenarioSyntaxError(line, message);
    }
    const later = before === null ? undefined : labels.find((l) => !before.has(l));
    if (later !== undefined) {
      const at = boundAt.get(later)!;
      const message = `label @${later} is bound only after this step runs (line ${at})`;
      throw new ScenarioSyntaxError(line, message);
    }
  };
  // An op resolves its labels when it runs: the create that binds one must run before it.
  const boundBefore = new Set<string>();
  for (const step of inRunOrder(steps)) {
    const a = step.action;
    if (a.kind !== "op") continue;
    bound(opLabels(a.op), step.line, boundBefore);
    if ((a.op.verb === "create" || a.op.verb === "define") && a.op.label !== null)
      boundBefore.add(a.op.label);
  }
  // Expectations are judged at the end of the run, after every step.
  for (const e of expects) bound(checkLabels(e.check), e.line, null);
  checkImages(steps);
}

/** Steps in the order they run: time order, file order breaking ties (a stable sort). */
function inRunOrder(steps: readonly Step[]): Step[] {
  return [...steps].sort((a, b) => a.atMs - b.atMs);
}

function checkImages(steps: readonly Step[]): void {
  const taken = new Set<string>();
  const usedAt = new Map<string, number>();
  for (const step of inRunOrder(steps)) {
    const a = step.action;
    if (a.kind === "image") {
      taken.add(`${a.node} ${a.key}`);
      usedAt.delete(`${a.node} ${a.key}`);
    }
    if (a.kind !== "rollback") continue;
    const image = `${a.node} ${a.key}`;
    const used = usedAt.get(image);
    if (used !== undefined) {
      const why = `the rollback at line ${used} restored that image already`;
      throw new ScenarioSyntaxError(
        step.line,
        `rollback ${image}: ${why} (take it again: image ${image})`,
      );
    }
    if (!taken.delete(image)) {
      const why = `${a.node} takes no image ${a.key} before it`;
      throw new ScenarioSyntaxError(step.line, `rollback ${image}: ${why} (image ${image})`);
    }
    usedAt.set(image, step.line);
  }
}

/** Labels a `{@label}` in a name or path names. */
function embedded(text: string): string[] {
  return [...text.matchAll(/\{@([^{}\s]+)\}/gu)].map((m) => m[1]!);
}

function refLabels(ref: Ref): string[] {
  return "label" in ref ? [ref.label] : embedded(ref.path);
}

function valueLabels(v: ValueArg): string[] {
  return "ref" in v ? refLabels(v.ref) : [];
}

function opLabels(op: ScriptOp): string[] {
  switch (op.verb) {
    case "create":
    case "define":
      return [
        ...refLabels(op.parent),
        ...embedded(op.name),
        ...op.attributes.flatMap((a) => a.values.flatMap(valueLabels)),
      ];
    case "rename":
      return [...refLabels(op.target), ...embedded(op.name)];
    case "move":
      return [...refLabels(op.target), ...refLabels(op.parent)];
    case "put":
      return [...refLabels(op.target), ...op.values.flatMap(valueLabels)];
    case "add":
    case "remove":
      return [...refLabels(op.target), ...valueLabels(op.value)];
    case "meta":
      return [...refLabels(op.target), ...valueLabels(op.value), ...op.metaValues.flatMap(valueLabels)];
    case "delete":
    case "restore":
    case "shred":
      return refLabels(op.target);
    case "config":
    case "gc":
      return [];
  }
}

function checkLabels(check: ExpectCheck): string[] {
  switch (check.kind) {
    case "cnf":
    case "cycle-broken":
      return check.refs.flatMap(refLabels);
    case "orphaned":
    case "stage":
    case "ghost-seen":
      return refLabels(check.ref);
    case "values":
      return [...refLabels(check.ref), ...check.values.flatMap(valueLabels)];
    case "path":
      return [...refLabels(check.ref), ...embedded(check.path)];
    case "journal":
    case "no-journal":
    case "latched-then-healed":
    case "quarantine-seen":
    case "refused":
      return [];
  }
}
