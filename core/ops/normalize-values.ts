import type { Directory } from "../directory";
import { ok, refuse } from "../errors";
import type { Result } from "../errors";
import type { AttributeDef } from "../schema";
import type { Meta, ValueAtom } from "../store/record";
import type { Matching } from "../syntax";
import { limits } from "../limits";
import { compareCodePoints, fold } from "../naming";
import { attachedFacetsAttribute } from "../schema";
import { matchKey, parseValue } from "../syntax";

/** One value as a request carries it: a bare string or `{value, meta}`. */
export type ValueInput = unknown;

/**
 * What the attribute holds before a write: its present values, and each value's meta by the
 * value's set-key. References among them pass as held even when their target died since.
 */
export interface HeldValues {
  readonly values: ReadonlySet<string>;
  readonly metaByKey: ReadonlyMap<string, Meta>;
}

export const nothingHeld: HeldValues = { values: new Set(), metaByKey: new Map() };

/** What present atoms hold, for `normalizeValues` (`matching`: the attribute's rule). */
export function heldValues(present: readonly ValueAtom[], matching: Matching): HeldValues {
  return {
    values: new Set(present.flatMap((a) => (a.value === null ? [] : [a.value]))),
    metaByKey: new Map(
      present.flatMap((a) => (a.value === null || a.meta === null ? [] : [[matchKey(matching, a.value), a.meta]])),
    ),
  };
}

export interface NormalizedValue {
  readonly key: string | null;
  readonly value: string;
  readonly meta: Meta | null;
}

/**
 * Validates a wholesale value list for one attribute and returns canonical values in set-key
 * order. Refusal precedence within a list: single-valued, then per value in order
 * (syntax-violation, illegal-meta-key, meta single-valued, meta duplicate-value), then
 * duplicate-value among the values.
 */
export function normalizeValues(
  dir: Directory,
  attr: AttributeDef,
  inputs: readonly ValueInput[],
  held: HeldValues = nothingHeld,
): Result<NormalizedValue[]> {
  if (attr.singleValued && inputs.length > 1) {
    return refuse("single-valued", `${attr.name} is single-valued; ${inputs.length} values given`);
  }
  const out: NormalizedValue[] = [];
  const seen = new Set<string>();
  for (const input of inputs) {
    const one = normalizeOne(dir, attr, input, held);
    if (!one.ok) return one;
    const key = matchKey(attr.matching, one.value.value);
    if (seen.has(key)) {
      return refuse("duplicate-value", `${attr.name} holds a value twice under ${attr.matching} matching`);
    }
    seen.add(key);
    out.push({ ...one.value, key: attr.singleValued ? null : key });
  }
  out.sort((a, b) => ((a.key ?? "") < (b.key ?? "") ? -1 : (a.key ?? "") > (b.key ?? "") ? 1 : 0));
  return ok(out);
}

function normalizeOne(
  dir: Directory,
  attr: AttributeDef,
  input: ValueInput,
  held: HeldValues,
): Result<{ value: string; meta: Meta | null }> {
  let raw: unknown = input;
  let rawMeta: unknown = undefined;
  if (typeof input === "object" && input !== null && !Array.isArray(input)) {
    raw = (input as { value?: unknown }).value;
    rawMeta = (input as { meta?: unknown }).meta;
  }
  const parsed = parseTyped(dir, attr, raw, held.values);
  if (!parsed.ok) return parsed;
  const heldMeta = held.metaByKey.get(matchKey(attr.matching, parsed.value)) ?? null;
  const meta = normalizeMeta(dir, attr, rawMeta, heldMeta);
  if (!meta.ok) return meta;
  return ok({ value: parsed.value, meta: meta.value });
}

/**
 * SPEC's durations (integers in seconds, read from /Configuration by Directory.replicationConfig).
 * A negative one has no meaning, and the reader would fall back to the default without a word,
 * so it is refused when written; so are one above limits.durationMaxS and a maxTimeApart below
 * limits.purgeHorizonMinS.
 */
const durationAttributes: ReadonlySet<string> = new Set(["maxTimeApart", "timeUntilShred"]);

/**
 * A reference must name an alive object when it is written. A reference the object already
 * holds is kept as it is even if its target died since (refState shows it), so a wholesale
 * rewrite of a member list never fails on members that were deleted meanwhile. The same holds
 * for a reference in meta that the same value already holds under the same key.
 */
function parseTyped(
  dir: Directory,
  attr: AttributeDef,
  raw: unknown,
  held: ReadonlySet<string> = new Set(),
): Result<string> {
  const parsed = parseValue(attr.syntax, raw);
  if (!parsed.ok) return refuse("syntax-violation", `${attr.name}: ${parsed.message}`);
  if (durationAttributes.has(attr.name) && parsed.value.startsWith("-")) {
    const least = attr.name === "maxTimeApart" ? `at least ${limits.purgeHorizonMinS}` : "0 or more";
    return refuse("syntax-violation", `${attr.name} is a number of seconds, ${least}; not ${parsed.value}`);
  }
  if (durationAttributes.has(attr.name) && Number(parsed.value) > limits.durationMaxS) {
    return refuse(
      "syntax-violation",
      `${attr.name} is at most ${limits.durationMaxS} seconds (100 years); not ${parsed.value}`,
    );
  }
  if (attr.name === "maxTimeApart" && Number(parsed.value) < limits.purgeHorizonMinS) {
    return refuse(
      "syntax-violation",
      `maxTimeApart is at least ${limits.purgeHorizonMinS} seconds (a partner that completes no pull within it is refused for good); not ${parsed.value}`,
    );
  }
  if (attr.syntax === "reference" && !held.has(parsed.value)) {
    const target = dir.get(parsed.value);
    if (target === undefined || target.existence.stage !== "alive") {
      // SPEC's rule for attachedFacets is the specific one: no alive object is no facet either.
      if (attr.name === attachedFacetsAttribute) {
        return refuse("unknown-facet", `attachedFacets value ${parsed.value} is not a facet definition (no alive object has that GUID)`);
      }
      return refuse("syntax-violation", `${attr.name}: reference ${parsed.value} dangles`);
    }
  }
  return parsed;
}

function normalizeMeta(
  dir: Directory,
  attr: AttributeDef,
  rawMeta: unknown,
  heldMeta: Meta | null,
): Result<Meta | null> {
  if (rawMeta === undefined || rawMeta === null) return ok(null);
  if (typeof rawMeta !== "object" || Array.isArray(rawMeta)) {
    return refuse("illegal-meta-key", `${attr.name}: meta must map meta keys to value lists`);
  }
  const out: Record<string, string[]> = {};
  const entries = Object.entries(rawMeta as Record<string, unknown>).sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  for (const [key, rawValues] of entries) {
    const metaAttr = dir.schema.attribute(key);
    if (metaAttr === undefined || !attr.legalMeta.includes(metaAttr.name)) {
      const kept = heldUnchanged(heldMeta, key, rawValues);
      if (kept !== null) {
        out[kept[0]] = [...kept[1]];
        continue;
      }
      return refuse("illegal-meta-key", `${attr.name}: meta key ${key} is not in its legalMeta`);
    }
    if (out[metaAttr.name] !== undefined) {
      return refuse("illegal-meta-key", `${attr.name}: meta key ${key} given twice`);
    }
    const list = Array.isArray(rawValues) ? rawValues : [rawValues];
    if (metaAttr.singleValued && list.length > 1) {
      return refuse("single-valued", `${attr.name}: meta ${metaAttr.name} is single-valued`);
    }
    const values: string[] = [];
    const keys = new Set<string>();
    for (const raw of list) {
      const parsed = parseTyped(dir, metaAttr, raw, new Set(heldMeta?.[metaAttr.name] ?? []));
      if (!parsed.ok) return parsed;
      const key = matchKey(metaAttr.matching, parsed.value);
      if (keys.has(key)) {
        return refuse("duplicate-value", `${attr.name}: meta ${metaAttr.name} holds a value twice`);
      }
      keys.add(key);
      values.push(parsed.value);
    }
    if (values.length > 0) out[metaAttr.name] = values.sort();
  }
  // Keys in canonical-name order, whatever the spelling given (sorted by the raw keys, a
  // rewrite spelling a key in another case reordered them and restamped an unchanged value:
  // merge audit, twenty-seventh session).
  const names = Object.keys(out).sort(compareCodePoints);
  if (names.length === 0) return ok(null);
  const sorted: Record<string, string[]> = {};
  for (const name of names) sorted[name] = out[name]!;
  return ok(sorted);
}

/**
 * A meta key the value already holds, given back with the values it holds: kept as held even
 * when the key left the attribute's legalMeta (its definition deleted on another node while
 * this value took it). Refusing it made every rewrite of the attribute, which a client does
 * with the values and meta it read, fail `illegal-meta-key`, and a deleted object holding it
 * unrestorable (adversarial-scenario audit, twenty-fourth session;
 * regressions/held-meta-key-outside-legal-meta-scripted). A new key, or new values under it,
 * is still refused.
 */
function heldUnchanged(
  heldMeta: Meta | null,
  key: string,
  rawValues: unknown,
): readonly [string, readonly string[]] | null {
  if (heldMeta === null) return null;
  const name = Object.keys(heldMeta).find((k) => fold(k) === fold(key));
  const held = name === undefined ? undefined : heldMeta[name];
  if (name === undefined || held === undefined) return null;
  const given = Array.isArray(rawValues) ? rawValues : [rawValues];
  if (given.length !== held.length || !given.every((v) => typeof v === "string")) return null;
  const sorted = [...(given as string[])].sort();
  return sorted.every((v, i) => v === held[i]) ? [name, held] : null;
}

export function sameMeta(a: Meta | null, b: Meta | null): boolean {
  if (a === null || b === null) return a === b;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => {
    const x = a[k];
    const y = b[k];
    return x !== undefined && y !== undefined && x.length === y.length && x.every((v, i) => v === y[i]);
  });
}
