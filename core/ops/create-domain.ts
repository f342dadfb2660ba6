import { assert } from "../assert";
import type { Directory } from "../directory";
import type { Guid } from "../guid";
import { limits } from "../limits";
import { baseAttributes, baseDefinitionObjects } from "../schema";
import type { DefinitionValue } from "../schema";
import { matchKey } from "../syntax";
import type { NormalizedValue } from "./normalize-values";
import { writeNewObject } from "./write-new-object";

export interface DomainLandmarkIds {
  readonly root: Guid;
  readonly configuration: Guid;
  readonly schema: Guid;
  readonly lostAndFound: Guid;
  readonly domainControllers: Guid;
}

/**
 * Mints a fresh domain as ordinary originating writes of the first node: the root, the
 * configuration object with SPEC's defaults, the schema container with the 48 base
 * definitions flat inside it, /LostAndFound (system) and /Domain Controllers.
 * The root's bare name is the domain name; it never shows in paths or DNs.
 */
export function createDomain(dir: Directory, domainName: string, atMs: number): DomainLandmarkIds {
  assert(dir.store.size === 0, "a domain is created in an empty store");
  const defs = baseDefinitionObjects(() => dir.mintGuid());
  const classIds = new Map<string, Guid>();
  for (const d of defs) if (d.className === "classDefinition") classIds.set(d.name, d.id);
  const classId = (name: string): Guid => {
    const id = classIds.get(name);
    assert(id !== undefined, `base class ${name}`);
    return id;
  };
  const ids: DomainLandmarkIds = {
    root: dir.mintGuid(),
    configuration: dir.mintGuid(),
    schema: dir.mintGuid(),
    lostAndFound: dir.mintGuid(),
    domainControllers: dir.mintGuid(),
  };
  const put = (
    id: Guid,
    parent: Guid | null,
    name: string,
    className: string,
    system: boolean,
    attributes: ReadonlyArray<readonly [string, readonly NormalizedValue[]]> = [],
  ): void => {
    writeNewObject(dir, { id, parent, name, classId: classId(className), className, system, attributes }, atMs);
  };
  put(ids.root, null, domainName, "domainRoot", true);
  put(ids.configuration, ids.root, "Configuration", "configuration", true, [
    ["maxTimeApart", [single(String(limits.purgeHorizonDefaultS))]],
    ["timeUntilShred", [single(String(limits.restoreWindowDefaultS))]],
  ]);
  put(ids.schema, ids.configuration, "Schema", "organizationalUnit", true);
  for (const d of defs) {
    put(d.id, ids.schema, d.name, d.className, true, normalizeBase(d.values));
  }
  put(ids.lostAndFound, ids.root, "LostAndFound", "organizationalUnit", true);
  put(ids.domainControllers, ids.root, "Domain Controllers", "organizationalUnit", false);
  dir.refreshSchema();
  assert(dir.schema.quarantined.length === 0, "the base schema compiles clean");
  dir.journal.add(atMs, "domain-created", `domain ${domainName} created by node ${dir.nodeId}`);
  return ids;
}

function single(value: string): NormalizedValue {
  return { key: null, value, meta: null };
}

function normalizeBase(
  values: Readonly<Record<string, readonly DefinitionValue[]>>,
): Array<readonly [string, NormalizedValue[]]> {
  const out: Array<readonly [string, NormalizedValue[]]> = [];
  for (const name of Object.keys(values).sort()) {
    const attr = baseAttributes.find((a) => a.name === name);
    assert(attr !== undefined, `base value of unknown attribute ${name}`);
    const list = (values[name] ?? []).map((v) => ({
      key: attr.singleValued ? null : matchKey(attr.matching, v.value),
      value: v.value,
      meta: v.meta === undefined ? null : copyMeta(v.meta),
    }));
    out.push([name, list]);
  }
  return out;
}

function copyMeta(meta: Readonly<Record<string, readonly string[]>>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(meta)) out[k] = [...v];
  return out;
}
