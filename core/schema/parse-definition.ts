import { assertNever } from "../assert";
import { type Guid, parseGuid } from "../guid";
import {
  fold,
  isDefinitionName,
  isDnPrefix,
  isNamespaceName,
  isReservedDefinitionName,
  isReservedNamespaceName,
} from "../naming";
import { type Matching, matchings, type Syntax, syntaxes } from "../syntax";
import {
  activeLifecycle,
  baseAttributes,
  baseClasses,
  baseFacets,
  definitionClassNames,
} from "./base-schema";
import { compareIds, type NormalDefinition, type NormalValue } from "./normalize-definitions";

/**
 * The intrinsic check of one live definition: everything that can be judged from the
 * definition alone (names, completeness, value grammar). A definition that fails here is
 * quarantined with every problem listed; one that passes yields a body whose references are
 * still raw GUIDs, resolved later by the compiler's fixpoint.
 */
export type DefinitionKind = "attribute" | "facet" | "class" | "extension" | "namespace";

export type FacetMemberRef = { readonly id: Guid; readonly required: boolean };

export type DefinitionBody =
  | {
      readonly kind: "attribute";
      readonly syntax: Syntax;
      readonly singleValued: boolean;
      readonly matching: Matching;
      readonly aliases: readonly string[];
      readonly legalMeta: readonly Guid[];
    }
  | { readonly kind: "facet"; readonly members: readonly FacetMemberRef[] }
  | {
      readonly kind: "class";
      readonly dnPrefix: string | null;
      readonly instantiable: boolean;
      readonly facets: readonly Guid[];
    }
  | { readonly kind: "extension"; readonly targetClass: Guid; readonly facets: readonly Guid[] }
  | { readonly kind: "namespace" };

export type ParseOutcome =
  | { readonly ok: true; readonly body: DefinitionBody }
  | { readonly ok: false; readonly problems: readonly string[] };

const kindByClassName: ReadonlyMap<string, DefinitionKind> = new Map(
  (Object.keys(definitionClassNames) as DefinitionKind[]).map((k) => [definitionClassNames[k], k]),
);

/** The definition kind of an object class; class names are exact (the store's canonical). */
export function kindOfClassName(className: string): DefinitionKind | null {
  return kindByClassName.get(className) ?? null;
}

/** Folded base names per kind: SPEC reserves the unprefixed space for them forever. */
const baseNames: Readonly<Record<DefinitionKind, ReadonlySet<string>>> = {
  attribute: new Set(baseAttributes.map((a) => fold(a.name))),
  facet: new Set(baseFacets.map((f) => fold(f.name))),
  class: new Set(baseClasses.map((c) => fold(c.name))),
  extension: new Set<string>(),
  namespace: new Set<string>(),
};

export function parseDefinition(def: NormalDefinition): ParseOutcome {
  const kind = kindOfClassName(def.className);
  if (kind === null) return { ok: false, problems: [`not a definition class: ${def.className}`] };
  const problems: string[] = def.malformed.map((k) => `malformed values in ${k}`);
  const r = new FieldReader(def.values, problems);
  checkName(def, kind, problems);
  if (kind !== "namespace") {
    // schemaDefinition's required members: definitions must be born complete.
    const lifecycle = r.required("lifecycle");
    if (lifecycle !== undefined && fold(lifecycle) !== activeLifecycle) {
      problems.push(`unknown lifecycle "${lifecycle}"`);
    }
    const system = r.bool("system", "required");
    // SPEC's system definitions are the 48 base ones the engine mints (unprefixed); a
    // namespaced definition claiming `system: true` was taken and ignored (its payload said
    // system false, and it could be deleted).
    if (system === true && def.namespaceId !== null) {
      problems.push("system is true only on base definitions; a namespaced definition has system false");
    }
    // And only they are unprefixed: one of another's name would stand for the base definition.
    if (system === false && def.namespaceId === null && baseNames[kind].has(fold(def.name))) {
      problems.push(`unprefixed space is reserved: "${def.name}" is a base ${kind} name, held by the base definition`);
    }
  }
  const body = parseBody(kind, r);
  if (problems.length > 0 || body === undefined) return { ok: false, problems };
  return { ok: true, body };
}

function checkName(def: NormalDefinition, kind: DefinitionKind, problems: string[]): void {
  if (kind === "namespace") {
    if (!isNamespaceName(def.name)) problems.push(`invalid namespace name "${def.name}"`);
    else if (isReservedNamespaceName(def.name) || fold(def.name) === "x") {
      problems.push(`namespace name "${def.name}" is reserved`);
    }
    if (def.namespaceId !== null) problems.push("a namespace cannot live inside a namespace");
    return;
  }
  if (!isDefinitionName(def.name)) problems.push(`invalid definition name "${def.name}"`);
  else if (isReservedDefinitionName(def.name) || fold(def.name) === "x") {
    problems.push(`definition name "${def.name}" is reserved`);
  } else if (def.namespaceId === null && !baseNames[kind].has(fold(def.name))) {
    problems.push(`unprefixed space is reserved: "${def.name}" is not a base ${kind} name`);
  }
}

function parseBody(kind: DefinitionKind, r: FieldReader): DefinitionBody | undefined {
  switch (kind) {
    case "attribute": {
      const syntaxText = r.required("syntax");
      const singleValued = r.bool("singleValued", "required");
      const matchingText = r.required("matching");
      const syntax = syntaxText === undefined ? undefined : caseless(syntaxes, syntaxText);
      const matching = matchingText === undefined ? undefined : caseless(matchings, matchingText);
      if (syntaxText !== undefined && syntax === undefined) {
        r.problem(`unknown syntax "${syntaxText}"`);
      }
      if (matchingText !== undefined && matching === undefined) {
        r.problem(`unknown matching "${matchingText}"`);
      }
      // SPEC's endpoint syntax fixes its comparison ("values differing only in case are the
      // same set member"); an exact endpoint attribute kept Host.Example and host.example apart.
      if (syntax === "endpoint" && matching === "exact") {
        r.problem("endpoint values compare caselessly: matching must be caseless");
      }
      const aliases = r.strings("aliases");
      const legalMeta = r.refs("legalMeta");
      if (syntax === undefined || singleValued === undefined || matching === undefined) {
        return undefined;
      }
      return { kind, syntax, singleValued, matching, aliases, legalMeta };
    }
    case "facet":
      return { kind, members: r.members("attributes") };
    case "class": {
      const dnPrefix = r.single("dnPrefix") ?? null;
      // SPEC: "instantiable: unset means true", and an instantiable class needs a dnPrefix.
      const instantiable = r.bool("instantiable", true) ?? true;
      if (dnPrefix !== null && !isDnPrefix(dnPrefix)) r.problem(`invalid dnPrefix "${dnPrefix}"`);
      const unset = r.list("dnPrefix").length === 0;
      if (unset && instantiable) r.problem("instantiable class without dnPrefix");
      return { kind, dnPrefix, instantiable, facets: r.refs("facets") };
    }
    case "extension": {
      const targetClass = r.ref("targetClass");
      const facets = r.refs("facets");
      // extensionSchema requires facets: an extension is born adding at least one.
      if (r.list("facets").length === 0) r.problem("incomplete: missing facets");
      if (targetClass === undefined) return undefined;
      return { kind, targetClass, facets };
    }
    case "namespace":
      return { kind };
    default:
      return assertNever(kind, "definition kind");
  }
}

/**
 * `syntax` and `matching` are caseless-matched attributes in the base schema, so their values
 * are recognised caselessly and compile to the SPEC's spelling.
 */
function caseless<T extends string>(choices: readonly T[], text: string): T | undefined {
  const key = fold(text);
  return choices.find((c) => fold(c) === key);
}

/**
 * Reads canonical stored values, noting every problem in a shared list so that one
 * quarantine reason can name them all.
 */
class FieldReader {
  constructor(
    private readonly values: ReadonlyMap<string, readonly NormalValue[]>,
    private readonly problems: string[],
  ) {}

  problem(text: string): void {
    this.problems.push(text);
  }

  list(key: string): readonly NormalValue[] {
    return this.values.get(key) ?? [];
  }

  /** A single-valued attribute: undefined when unset; several values are a problem. */
  single(key: string): string | undefined {
    const list = this.list(key);
    if (list.length > 1) this.problem(`several values for single-valued ${key}`);
    return list.length === 1 ? list[0]?.value : undefined;
  }

  required(key: string): string | undefined {
    const value = this.single(key);
    if (value === undefined && this.list(key).length === 0) {
      this.problem(`incomplete: missing ${key}`);
    }
    return value;
  }

  bool(key: string, unset: boolean | "required"): boolean | undefined {
    const text = unset === "required" ? this.required(key) : this.single(key);
    if (text === undefined) return unset === "required" ? undefined : unset;
    if (text === "true" || text === "false") return text === "true";
    this.problem(`${key} is not a boolean: "${text}"`);
    return undefined;
  }

  strings(key: string): string[] {
    return this.list(key).map((v) => v.value);
  }

  ref(key: string): Guid | undefined {
    const text = this.required(key);
    if (text === undefined) return undefined;
    const id = parseGuid(text);
    if (id === null) this.problem(`${key} is not a GUID: "${text}"`);
    return id ?? undefined;
  }

  refs(key: string): Guid[] {
    const ids = new Set<Guid>();
    for (const v of this.list(key)) {
      const id = parseGuid(v.value);
      if (id === null) this.problem(`${key} holds a non-GUID: "${v.value}"`);
      else ids.add(id);
    }
    return [...ids].sort(compareIds);
  }

  /** Facet members: a repeated member is required when any copy says so. */
  members(key: string): FacetMemberRef[] {
    const required = new Map<Guid, boolean>();
    for (const v of this.list(key)) {
      const id = parseGuid(v.value);
      if (id === null) {
        this.problem(`${key} holds a non-GUID: "${v.value}"`);
        continue;
      }
      const flag = v.meta.get("required");
      const isRequired = flag !== undefined && flag.length === 1 && flag[0] === "true";
      const isOptional = flag === undefined || (flag.length === 1 && flag[0] === "false");
      if (!isRequired && !isOptional) this.problem(`bad required meta on ${key} ${id}`);
      required.set(id, (required.get(id) ?? false) || isRequired);
    }
    const ids = [...required.keys()].sort(compareIds);
    return ids.map((id) => ({ id, required: required.get(id) === true }));
  }
}
