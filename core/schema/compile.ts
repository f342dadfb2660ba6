import { assert, assertNever } from "../assert";
import type { Guid } from "../guid";
import { fold, wireName } from "../naming";
import {
  type AttributeDef,
  type ClassDef,
  type CompiledSchema,
  type ExtensionDef,
  type FacetDef,
  makeCompiledSchema,
  sortByName,
  sortCaseless,
  type NamespaceDef,
  type Quarantined,
} from "./compiled-schema";
import { definitionClassNames } from "./base-schema";
import { definitionDisplayName } from "./definition-display-name";
import type { DefinitionInput } from "./definition-input";
import { compareIds, type NormalDefinition, normalizeDefinitions } from "./normalize-definitions";
import {
  type DefinitionBody,
  type DefinitionKind,
  kindOfClassName,
  parseDefinition,
} from "./parse-definition";

/**
 * SPEC "Schema compilation is total: it never fails." The compiler turns the definition
 * objects a node holds into a compiled schema plus a quarantine, in five steps:
 *  1. normalize: one record per id, sorted by id (input order and repeats cannot matter);
 *  2. parse: each live definition is checked on its own (names, completeness, values);
 *  3. namespaces: caseless duplicates are resolved, lowest id wins; namespaced definitions
 *     get their wire name `<Namespace>-<name>` or wait for their namespace;
 *  4. wire names: one caseless universe across attributes, facets, classes and extensions
 *     (they are siblings in the tree); on a duplicate the lowest id wins, the rest wait;
 *  5. references: the greatest set of candidates whose live references all point at joined
 *     definitions of the right kind, found by removing failures (worklist seeded in id order)
 *     until nothing changes. The greatest fixpoint is unique, so the result does not depend
 *     on the removal order, and cycles of legalMeta references join. References to
 *     tombstones compile out, except an extension's targetClass and a definition's
 *     namespace, without which the definition is meaningless.
 * Tombstoned definitions compile out silently; everything else that does not join is
 * quarantined with a reason and joins by itself once the input changes to allow it.
 */
export function compileSchema(defs: readonly DefinitionInput[]): CompiledSchema {
  const all = normalizeDefinitions(defs);
  const byId = new Map<Guid, NormalDefinition>(all.map((d) => [d.id, d]));
  const quarantine = new Map<Guid, string>();
  const bodies = new Map<Guid, DefinitionBody>();
  for (const def of all) {
    if (!def.alive) continue;
    const parsed = parseDefinition(def);
    if (parsed.ok) bodies.set(def.id, parsed.body);
    else quarantine.set(def.id, parsed.problems.join("; "));
  }
  const namespaceIds = elect(all, bodies, quarantine, (d, b) =>
    b.kind === "namespace" ? fold(d.name) : null,
  );
  const wire = new Map<Guid, string>();
  for (const id of namespaceIds) wire.set(id, nameOf(byId, id));
  for (const def of all) {
    const body = bodies.get(def.id);
    if (body === undefined || body.kind === "namespace" || quarantine.has(def.id)) continue;
    if (def.namespaceId === null) wire.set(def.id, def.name);
    else if (namespaceIds.has(def.namespaceId)) {
      wire.set(def.id, wireName(nameOf(byId, def.namespaceId), def.name));
    } else quarantine.set(def.id, namespaceProblem(byId, def.namespaceId));
  }
  const candidates = elect(all, bodies, quarantine, (d, b) => {
    const w = wire.get(d.id);
    return b.kind === "namespace" || w === undefined ? null : fold(w);
  });
  // Namespaces reference nothing, so they pass step 5 unchanged; they join with the rest.
  const entrants = new Set([...namespaceIds, ...candidates]);
  const joined = joinReferences(byId, bodies, entrants, quarantine);
  return build(all, byId, bodies, joined, wire, quarantine);
}

function nameOf(byId: ReadonlyMap<Guid, NormalDefinition>, id: Guid): string {
  const def = byId.get(id);
  assert(def !== undefined, `definition ${id} is present`);
  return def.name;
}

/**
 * Among live, parsed, not yet quarantined definitions that `keyOf` gives a key, keeps the
 * lowest id per key and quarantines the others. Returns the kept ids. Lowest id is the only
 * deterministic rule available here: creation order is not knowable from the inputs.
 */
function elect(
  all: readonly NormalDefinition[],
  bodies: ReadonlyMap<Guid, DefinitionBody>,
  quarantine: Map<Guid, string>,
  keyOf: (def: NormalDefinition, body: DefinitionBody) => string | null,
): Set<Guid> {
  const holder = new Map<string, Guid>();
  const kept = new Set<Guid>();
  for (const def of all) {
    const body = bodies.get(def.id);
    if (body === undefined || quarantine.has(def.id)) continue;
    const key = keyOf(def, body);
    if (key === null) continue;
    const prior = holder.get(key);
    if (prior === undefined) {
      holder.set(key, def.id);
      kept.add(def.id);
    } else {
      assert(compareIds(prior, def.id) < 0, "ids arrive sorted");
      quarantine.set(def.id, `duplicate name: ${prior} holds it`);
    }
  }
  return kept;
}

function namespaceProblem(byId: ReadonlyMap<Guid, NormalDefinition>, nsId: Guid): string {
  const ns = byId.get(nsId);
  if (ns === undefined) return `waiting for namespace ${nsId}`;
  if (kindOfClassName(ns.className) !== "namespace") {
    return `parent ${nsId} is of class ${ns.className}, expected schemaNamespace`;
  }
  if (!ns.alive) return `namespace ${nsId} is deleted`;
  return `waiting for namespace ${nsId}, which is quarantined`;
}

type Reference = { readonly id: Guid; readonly kind: DefinitionKind; readonly mustLive: boolean };

function referencesOf(body: DefinitionBody): Reference[] {
  const to = (kind: DefinitionKind, mustLive = false) => (id: Guid) => ({ id, kind, mustLive });
  switch (body.kind) {
    case "attribute":
      return body.legalMeta.map(to("attribute"));
    case "facet":
      return body.members.map((m) => to("attribute")(m.id));
    case "class":
      return body.facets.map(to("facet"));
    case "extension":
      return [to("class", true)(body.targetClass), ...body.facets.map(to("facet"))];
    case "namespace":
      return [];
    default:
      return assertNever(body, "definition body");
  }
}

/** Why a reference does not resolve against the joined set, or null when it does. */
function referenceProblem(
  byId: ReadonlyMap<Guid, NormalDefinition>,
  joined: ReadonlySet<Guid>,
  ref: Reference,
): string | null {
  const target = byId.get(ref.id);
  if (target === undefined) return `waiting for ${ref.kind} ${ref.id}`;
  if (!target.alive) return ref.mustLive ? `${ref.kind} ${ref.id} is deleted` : null;
  if (kindOfClassName(target.className) !== ref.kind) {
    const expected = definitionClassNames[ref.kind];
    return `reference ${ref.id} is of class ${target.className}, expected ${expected}`;
  }
  return joined.has(ref.id) ? null : `waiting for ${ref.kind} ${ref.id}, which is quarantined`;
}

/**
 * Step 5: the greatest fixpoint of "every live reference resolves", then reasons. A worklist
 * seeded in id order re-examines only the definitions that refer to one just removed, so a
 * long chain costs linear time, not a pass per link.
 */
function joinReferences(
  byId: ReadonlyMap<Guid, NormalDefinition>,
  bodies: ReadonlyMap<Guid, DefinitionBody>,
  candidates: ReadonlySet<Guid>,
  quarantine: Map<Guid, string>,
): Set<Guid> {
  const order = [...candidates].sort(compareIds);
  const refs = new Map(order.map((id) => [id, referencesOf(bodyOf(bodies, id))]));
  const referrers = new Map<Guid, Guid[]>();
  for (const id of order) {
    for (const r of refs.get(id) ?? []) {
      const list = referrers.get(r.id);
      if (list === undefined) referrers.set(r.id, [id]);
      else list.push(id);
    }
  }
  const joined = new Set(order);
  const broken = (id: Guid): string[] =>
    (refs.get(id) ?? []).flatMap((r) => referenceProblem(byId, joined, r) ?? []);
  const work = [...order].reverse();
  for (let id = work.pop(); id !== undefined; id = work.pop()) {
    if (!joined.has(id) || broken(id).length === 0) continue;
    joined.delete(id);
    for (const referrer of referrers.get(id) ?? []) if (joined.has(referrer)) work.push(referrer);
  }
  // Reasons are computed against the final set only, so they do not depend on the path taken.
  for (const id of order) {
    if (joined.has(id)) {
      assert(broken(id).length === 0, "the joined set is closed");
      continue;
    }
    const problems = broken(id);
    assert(problems.length > 0, "a removed candidate has a broken reference");
    quarantine.set(id, problems.join("; "));
  }
  return joined;
}

function bodyOf(bodies: ReadonlyMap<Guid, DefinitionBody>, id: Guid): DefinitionBody {
  const body = bodies.get(id);
  assert(body !== undefined, `candidate ${id} was parsed`);
  return body;
}

type Built = {
  attributes: AttributeDef[];
  facets: FacetDef[];
  classes: ClassDef[];
  extensions: ExtensionDef[];
  namespaces: NamespaceDef[];
};

/** Renders joined definitions with references by wire name; dead references drop out here. */
function build(
  all: readonly NormalDefinition[],
  byId: ReadonlyMap<Guid, NormalDefinition>,
  bodies: ReadonlyMap<Guid, DefinitionBody>,
  joined: ReadonlySet<Guid>,
  wire: ReadonlyMap<Guid, string>,
  quarantine: ReadonlyMap<Guid, string>,
): CompiledSchema {
  const out: Built = { attributes: [], facets: [], classes: [], extensions: [], namespaces: [] };
  const nameIn = (id: Guid): string[] => {
    const name = wire.get(id);
    return joined.has(id) && name !== undefined ? [name] : [];
  };
  const names = (ids: readonly Guid[]): string[] => sortCaseless(ids.flatMap(nameIn));
  for (const def of all) {
    const body = bodies.get(def.id);
    const name = wire.get(def.id);
    if (body === undefined || name === undefined || !joined.has(def.id)) continue;
    assert(!quarantine.has(def.id), "a joined definition is not quarantined");
    addBuilt(out, { id: def.id, name }, body, names, nameIn);
  }
  const quarantined: Quarantined[] = [...quarantine].map(([id, reason]) => {
    const def = byId.get(id);
    assert(def !== undefined, "quarantined definitions are present");
    return { id, name: definitionDisplayName(byId, def), reason };
  });
  return makeCompiledSchema({ ...out, quarantined });
}

function addBuilt(
  out: Built,
  def: { id: Guid; name: string },
  body: DefinitionBody,
  names: (ids: readonly Guid[]) => string[],
  nameIn: (id: Guid) => string[],
): void {
  switch (body.kind) {
    case "attribute": {
      const aliases = sortCaseless([...new Set(body.aliases)]);
      const { syntax, singleValued, matching } = body;
      const legalMeta = names(body.legalMeta);
      out.attributes.push({ ...def, syntax, singleValued, matching, aliases, legalMeta });
      return;
    }
    case "facet": {
      const members = body.members.flatMap((m) =>
        nameIn(m.id).map((name) => ({ id: m.id, name, required: m.required })),
      );
      const attributes = sortByName(members).map(({ name, required }) => ({ name, required }));
      out.facets.push({ ...def, attributes });
      return;
    }
    case "class": {
      const { dnPrefix, instantiable } = body;
      out.classes.push({ ...def, dnPrefix, instantiable, facets: names(body.facets) });
      return;
    }
    case "extension": {
      const [targetClass] = nameIn(body.targetClass);
      assert(targetClass !== undefined, "a joined extension's target class is joined");
      out.extensions.push({ ...def, targetClass, facets: names(body.facets) });
      return;
    }
    case "namespace":
      out.namespaces.push(def);
      return;
    default:
      assertNever(body, "definition body");
  }
}
