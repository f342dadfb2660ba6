import { assert } from "../assert";
import { type Guid, parseGuid } from "../guid";
import type { DefinitionInput } from "./definition-input";

/**
 * The compiler's first step: turn whatever the store handed over into one clean record per id,
 * sorted by id. Compilation must be total and independent of arrival order and repetition, so
 * this step tolerates anything (even values that break the declared types) and decides ties
 * by content alone, never by position in the input.
 */
export type NormalValue = {
  readonly value: string;
  readonly meta: ReadonlyMap<string, readonly string[]>;
};

export type NormalDefinition = {
  /** Canonical lowercase when the input id is a GUID; kept verbatim otherwise. */
  readonly id: Guid;
  readonly className: string;
  readonly name: string;
  readonly namespaceId: Guid | null;
  readonly alive: boolean;
  /** Keyed by attribute wire name, keys sorted; only well-formed values survive. */
  readonly values: ReadonlyMap<string, readonly NormalValue[]>;
  /** Wire names whose stored values were malformed (they make the definition quarantined). */
  readonly malformed: readonly string[];
};

/**
 * One record per id, sorted by id. When one id arrives with different contents (which a
 * correct store never does), a tombstone wins because deletion is absorbing; among live copies
 * the one whose canonical serialization sorts first wins, so the choice depends on content only.
 */
export function normalizeDefinitions(defs: readonly unknown[]): NormalDefinition[] {
  const chosen = new Map<Guid, NormalDefinition>();
  const list: readonly unknown[] = Array.isArray(defs) ? defs : [];
  for (const raw of list) {
    const def = normalizeDefinition(raw);
    if (def === null) continue;
    const prior = chosen.get(def.id);
    if (prior === undefined || prefer(def, prior)) chosen.set(def.id, def);
  }
  const ids = [...chosen.keys()].sort(compareIds);
  return ids.map((id) => {
    const def = chosen.get(id);
    assert(def !== undefined, "chosen id has an entry");
    return def;
  });
}

/** Plain code-unit order; ids are ASCII GUIDs in practice, and any total order is fine. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Serializes only on a clash, which a correct store never produces. */
function prefer(a: NormalDefinition, b: NormalDefinition): boolean {
  if (a.alive !== b.alive) return !a.alive;
  return serialize(a) < serialize(b);
}

function normalizeDefinition(raw: unknown): NormalDefinition | null {
  if (typeof raw !== "object" || raw === null) return null;
  const input = raw as Partial<Record<keyof DefinitionInput, unknown>>;
  if (typeof input.id !== "string") return null;
  const malformed: string[] = [];
  const values = normalizeValues(input.values, malformed);
  const ns = input.namespaceId;
  const namespaceId = typeof ns === "string" ? (parseGuid(ns) ?? ns) : null;
  return {
    id: parseGuid(input.id) ?? input.id,
    className: typeof input.className === "string" ? input.className : "",
    name: typeof input.name === "string" ? input.name : "",
    namespaceId,
    alive: input.alive === true,
    values,
    malformed,
  };
}

function normalizeValues(raw: unknown, malformed: string[]): Map<string, NormalValue[]> {
  const out = new Map<string, NormalValue[]>();
  if (typeof raw !== "object" || raw === null) return out;
  for (const key of Object.keys(raw).sort(compareIds)) {
    const list: unknown = (raw as Record<string, unknown>)[key];
    const values: NormalValue[] = [];
    let bad = !Array.isArray(list);
    for (const item of Array.isArray(list) ? (list as unknown[]) : []) {
      const value = normalizeValue(item);
      if (value === null) bad = true;
      else values.push(value);
    }
    if (bad) malformed.push(key);
    out.set(key, canonicalSet(values));
  }
  return out;
}

function normalizeValue(raw: unknown): NormalValue | null {
  if (typeof raw !== "object" || raw === null) return null;
  const item = raw as { value?: unknown; meta?: unknown };
  if (typeof item.value !== "string") return null;
  const meta = new Map<string, string[]>();
  if (item.meta !== undefined) {
    if (typeof item.meta !== "object" || item.meta === null) return null;
    for (const key of Object.keys(item.meta).sort(compareIds)) {
      const list: unknown = (item.meta as Record<string, unknown>)[key];
      if (!Array.isArray(list) || !list.every((v) => typeof v === "string")) return null;
      // Meta values form a set too: sorted and deduplicated, so their order cannot matter.
      meta.set(key, [...new Set(list as string[])].sort(compareIds));
    }
  }
  return { value: item.value, meta };
}

/**
 * Stored multi-valued attributes are sets, so the order the store listed them in must not
 * matter: sort by canonical text and drop exact repeats.
 */
function canonicalSet(values: NormalValue[]): NormalValue[] {
  if (values.length < 2) return values;
  const byKey = new Map<string, NormalValue>();
  for (const v of values) byKey.set(JSON.stringify([v.value, [...v.meta]]), v);
  return [...byKey.keys()].sort(compareIds).map((k) => {
    const v = byKey.get(k);
    assert(v !== undefined, "key from the map");
    return v;
  });
}

/** A canonical text of a normalized record: maps are already in sorted key order. */
function serialize(def: NormalDefinition): string {
  const values = [...def.values].map(([key, list]) => [
    key,
    list.map((v) => [v.value, [...v.meta]]),
  ]);
  return JSON.stringify([def.className, def.name, def.namespaceId, values, def.malformed]);
}
