import { assert, AssertionError, assertNever } from "../assert";
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
 *     (they are siblings in the tree); a name goes to the lowest id among the definitions
 *     of that name whose references join, the others wait as duplicates;
 *  5. references: the greatest set of candidates whose live references all point at joined
 *     definitions of the right kind, found by removing failures (worklist seeded in id order)
 *     until nothing changes. The greatest fixpoint is unique, so the result does not depend
 *     on the removal order, and cycles of legalMeta references join. References to
 *     tombstones compile out, except an extension's targetClass and a definition's
 *     namespace, without which the definition is meaningless.
 *  Steps 4 and 5 run as one fixpoint (`electAndJoin`): the lowest running id per name holds
 *  it, the holders are joined with the namespaces, and a holder that can never join leaves
 *  its name's election, so the next id of that name runs in the next round; holders that
 *  fail only on one another's runners-up give way highest id first. Electing once before
 *  joining left a name to nobody when its lowest id could not join (schema audit).
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
  const graph = referenceGraph(byId, bodies, wire, quarantine);
  const joined = electAndJoin(graph, namespaceIds, quarantine);
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
 * deterministic rule available here: creation order is not knowable from the inputs. Step 3
 * (namespaces, which reference nothing) only; wire names are elected by `electAndJoin`.
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

/** What steps 4 and 5 look at: ids, caseless wire names and references; built once. */
type ReferenceGraph = {
  readonly byId: ReadonlyMap<Guid, NormalDefinition>;
  /** Step 4's entrants (parsed, wire-named, not namespaces) in id order, to folded names. */
  readonly keys: ReadonlyMap<Guid, string>;
  /** The entrants' references; namespaces have none. */
  readonly refs: ReadonlyMap<Guid, readonly Reference[]>;
};

function referenceGraph(
  byId: ReadonlyMap<Guid, NormalDefinition>,
  bodies: ReadonlyMap<Guid, DefinitionBody>,
  wire: ReadonlyMap<Guid, string>,
  quarantine: ReadonlyMap<Guid, string>,
): ReferenceGraph {
  const keys = new Map<Guid, string>();
  const refs = new Map<Guid, readonly Reference[]>();
  for (const id of byId.keys()) {
    const body = bodies.get(id);
    const name = wire.get(id);
    if (body === undefined || name === undefined || quarantine.has(id)) continue;
    if (body.kind === "namespace") continue;
    keys.set(id, fold(name));
    refs.set(id, referencesOf(body));
  }
  return { byId, keys, refs };
}

/** One round of the election: the lowest running id per name holds it; holders are joined. */
type Round = {
  readonly holders: ReadonlyMap<string, Guid>;
  readonly joined: Set<Guid>;
  /** Holders whose references do not join, in id order. */
  readonly failed: readonly Guid[];
};

/**
 * Steps 4 and 5 as one fixpoint. Every entrant runs at first; each round elects the lowest
 * running id per name and joins the holders with the namespaces (`greatestJoin`); failed
 * holders that can never join leave the election, or one gives way (`leavers`), so the next id
 * of their name runs. The rounds end when every holder joins, and they end: each round takes
 * one entrant out at least. Everything is decided by ids and set operations, so the result
 * depends on the set of definitions only and every node holding it compiles the same schema.
 */
function electAndJoin(
  graph: ReferenceGraph,
  namespaceIds: ReadonlySet<Guid>,
  quarantine: Map<Guid, string>,
): Set<Guid> {
  let outcome = electionRounds(graph, namespaceIds, new Set(graph.keys.keys()));
  // A give-way is a guess: the holder that gave way may find its references joined once the
  // rounds are over, its name left to nobody (every other entrant of it left too). Those that
  // left a name nobody holds run again beside the outcome; its joined holders keep their names
  // (nothing re-entering is of their names, and the joined set only grows), so each pass that
  // changes anything joins more, and the passes end (property test of the twenty-eighth
  // session: a self-referring attribute gave way, and its name went to nobody).
  // Bounded: each pass but the last joins one entrant more at least.
  for (let pass = 0; pass <= graph.keys.size; pass++) {
    const { running, round } = outcome;
    const unheld = [...graph.keys].filter(([id, key]) => !running.has(id) && !round.holders.has(key));
    if (unheld.length === 0) break;
    const next = electionRounds(graph, namespaceIds, new Set([...running, ...unheld.map(([id]) => id)]));
    assert([...round.joined].every((id) => next.round.joined.has(id)), "a pass keeps what joined");
    if (next.round.joined.size === round.joined.size) break;
    outcome = next;
  }
  quarantineTheRest(graph, outcome.running, outcome.round, quarantine);
  return outcome.round.joined;
}

/** Rounds until every holder joins; returns who is still running and the last round. */
function electionRounds(
  graph: ReferenceGraph,
  namespaceIds: ReadonlySet<Guid>,
  running: Set<Guid>,
): { readonly running: ReadonlySet<Guid>; readonly round: Round } {
  // Bounded: each round but the last takes one entrant out at least.
  for (let rounds = 0; rounds <= graph.keys.size; rounds++) {
    const round = electionRound(graph, namespaceIds, running);
    if (round.failed.length === 0) return { running, round };
    for (const id of leavers(graph, namespaceIds, running, round)) running.delete(id);
  }
  throw new AssertionError("election rounds end: each takes one entrant out at least");
}

function electionRound(
  graph: ReferenceGraph,
  namespaceIds: ReadonlySet<Guid>,
  running: ReadonlySet<Guid>,
): Round {
  const holders = new Map<string, Guid>();
  for (const [id, key] of graph.keys) {
    if (running.has(id) && !holders.has(key)) holders.set(key, id);
  }
  const joined = greatestJoin(graph, [...namespaceIds, ...holders.values()]);
  const failed = [...holders.values()].filter((id) => !joined.has(id)).sort(compareIds);
  return { holders, joined, failed };
}

/**
 * Who leaves the election after a round in which holders failed. First the hopeless: failed
 * holders that no later round can join. `hopeful` joins every running entrant but the settled
 * runners-up, those whose name's holder joined: the joined set only grows from round to round
 * (only entrants outside it leave), so such a holder keeps its name for good, and a later
 * joined set lies within `hopeful`. A failed holder that is hopeful stays: it failed for want
 * of a runner-up of another name whose holder failed too, and may join once that runner-up
 * holds its name (taking it out at once could leave its own name to nobody). When every
 * failed holder is hopeful, some failed holder refers to a running runner-up (otherwise the
 * hopeful holders would have joined in this round); the names of those runners-up are held by
 * failed holders, and the highest id among those holders gives way, lower ids keeping their
 * precedence as in the election itself.
 */
function leavers(
  graph: ReferenceGraph,
  namespaceIds: ReadonlySet<Guid>,
  running: ReadonlySet<Guid>,
  round: Round,
): Guid[] {
  const { holders, joined, failed } = round;
  const holderOf = (id: Guid): Guid | undefined => {
    const key = graph.keys.get(id);
    return key === undefined ? undefined : holders.get(key);
  };
  const settled = (id: Guid): boolean => {
    const holder = holderOf(id);
    return holder !== undefined && holder !== id && joined.has(holder);
  };
  const unsettled = [...running].filter((id) => !settled(id));
  const hopeful = greatestJoin(graph, [...namespaceIds, ...unsettled]);
  const hopeless = failed.filter((id) => !hopeful.has(id));
  if (hopeless.length > 0) return hopeless;
  const blocking = new Set<Guid>();
  for (const id of failed) {
    for (const ref of refsOf(graph, id)) {
      const holder = running.has(ref.id) ? holderOf(ref.id) : undefined;
      if (holder !== undefined && holder !== ref.id) blocking.add(holder);
    }
  }
  const highest = [...blocking].sort(compareIds).pop();
  assert(highest !== undefined, "hopeful failed holders wait on a runner-up");
  return [highest];
}

/**
 * Reasons once the rounds are over, against the last round's holders and joined set only, so
 * they say how things stand, not how the rounds went. A running entrant that did not join is a
 * runner-up to a joined holder. One that left says what its references lack; a hopeless one
 * always lacks something (the final joined set lies within the `hopeful` set it missed). One
 * that gave way among hopeful holders may find its references joined in the end (the runner-up
 * it waited for took its name once that name's holder left too): it says it gave way.
 */
function quarantineTheRest(
  graph: ReferenceGraph,
  running: ReadonlySet<Guid>,
  round: Round,
  quarantine: Map<Guid, string>,
): void {
  for (const [id, key] of graph.keys) {
    const holder = round.holders.get(key);
    // A reference to itself (a legalMeta naming its own attribute) is not what it lacks.
    const problems = brokenReferences(graph, round.joined, id, id);
    if (round.joined.has(id)) {
      assert(problems.length === 0, "the joined set is closed");
    } else if (running.has(id)) {
      assert(holder !== undefined && holder !== id, "a running entrant not joined is a runner-up");
      quarantine.set(id, `duplicate name: ${holder} holds it`);
    } else if (problems.length > 0) {
      quarantine.set(id, problems.join("; "));
    } else {
      const gaveWay = "gave way in its name's election while its references waited on a duplicate";
      const held = holder === undefined ? "" : `duplicate name: ${holder} holds it; `;
      quarantine.set(id, `${held}${gaveWay}`);
    }
  }
}

/**
 * Step 5 within `base`: the greatest fixpoint of "every live reference resolves". A worklist
 * seeded in id order re-examines only the definitions that refer to one just removed, so a
 * long chain costs linear time, not a pass per link.
 */
function greatestJoin(graph: ReferenceGraph, base: readonly Guid[]): Set<Guid> {
  const order = [...base].sort(compareIds);
  const referrers = new Map<Guid, Guid[]>();
  for (const id of order) {
    for (const r of refsOf(graph, id)) {
      const list = referrers.get(r.id);
      if (list === undefined) referrers.set(r.id, [id]);
      else list.push(id);
    }
  }
  const joined = new Set(order);
  const work = [...order].reverse();
  for (let id = work.pop(); id !== undefined; id = work.pop()) {
    if (!joined.has(id) || brokenReferences(graph, joined, id).length === 0) continue;
    joined.delete(id);
    for (const referrer of referrers.get(id) ?? []) if (joined.has(referrer)) work.push(referrer);
  }
  return joined;
}

function refsOf(graph: ReferenceGraph, id: Guid): readonly Reference[] {
  return graph.refs.get(id) ?? [];
}

/** What `id`'s references lack against `joined` (but for one to `except`); empty when none. */
function brokenReferences(graph: ReferenceGraph, joined: ReadonlySet<Guid>, id: Guid, except?: Guid): string[] {
  return refsOf(graph, id).flatMap((r) => (r.id === except ? [] : (referenceProblem(graph.byId, joined, r) ?? [])));
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
