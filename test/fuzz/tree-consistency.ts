/**
 * A whole-tree consistency check over the API alone, for use after a fuzz run: walks the
 * effective tree from GET /api/root through the children listings (bounded) and checks what a
 * client can cross-check without knowing the implementation:
 * - every listed child is alive, names the listing's parent as its (effective) parent, carries
 *   the listing's (effective) name, and appears once in the whole walk (a tree);
 * - siblings' names are distinct under the caseless fold, listed in caseless order, and
 *   `hasChildren` agrees with the listing;
 * - `path` is the parent's path plus the name, and GET /api/path resolves it to the same id;
 * - references and back-references agree: an alive reference names a walked object whose
 *   `referencedBy` lists the source, its refPath is that object's path; a dangling one names
 *   no walked object and has refPath null; every `referencedBy` entry names a walked source
 *   that holds the reference.
 */
import { compareCaseless, fold } from "../../core/naming";
import type { KeepAliveClient } from "../daemon/keep-alive-client";

export interface ConsistencyReport {
  readonly objects: number;
  /** Every walked object as `id path`, sorted: two walks of the same tree compare equal. */
  readonly listing: string[];
  readonly references: number;
  readonly pathsResolved: number;
  /** Paths too long for one request line (they cannot be asked for): not resolved. */
  readonly pathsSkipped: number;
  readonly truncated: boolean;
  readonly violations: string[];
}

/** Stay below Node's 16 KiB request-line bound. */
const requestPathCharsMax = 15_000;

interface Pending {
  readonly id: string;
  readonly parent: string | null;
  readonly name: string | null;
  readonly path: string;
}

function pathUrl(path: string): string | null {
  const segments = path === "/" ? [] : path.slice(1).split("/");
  try {
    const url = "/api/path" + segments.map((s) => `/${encodeURIComponent(s)}`).join("");
    return url.length > requestPathCharsMax ? null : url;
  } catch {
    return null; // a lone surrogate cannot be percent-encoded: reported by the walk
  }
}

export async function checkTreeConsistency(
  http: KeepAliveClient,
  objectsMax: number,
): Promise<ConsistencyReport> {
  const violations: string[] = [];
  const fail = (where: string, problem: string): void => {
    if (violations.length < 200) violations.push(`${where}: ${problem}`);
  };
  const root = await http.json("GET", "/api/root");
  if (root.status !== 200) {
    return report(new Map(), 0, 0, 0, false, [`GET /api/root: ${root.status}`]);
  }
  const payloads = new Map<string, any>();
  const queue: Pending[] = [{ id: root.body.id, parent: null, name: null, path: "/" }];
  const seen = new Set<string>([root.body.id]);
  let resolved = 0;
  let skipped = 0;
  for (let i = 0; i < queue.length && i < objectsMax; i++) {
    const pending = queue[i];
    if (pending === undefined) break;
    const where = `${pending.path} (${pending.id})`;
    const got = await http.json("GET", `/api/objects/${pending.id}`);
    if (got.status !== 200) {
      fail(where, `GET object -> ${got.status}`);
      continue;
    }
    const object = got.body;
    payloads.set(pending.id, object);
    checkObject(object, pending, (problem) => fail(where, problem));
    const kids = await http.json("GET", `/api/objects/${pending.id}/children`);
    if (kids.status !== 200) {
      fail(where, `GET children -> ${kids.status}`);
      continue;
    }
    const children = kids.body as any[];
    if (object.hasChildren !== children.length > 0) {
      fail(where, `hasChildren ${object.hasChildren} but ${children.length} children listed`);
    }
    checkSiblings(children, (problem) => fail(where, problem));
    for (const child of children) {
      if (seen.has(child.id)) {
        fail(where, `child ${child.id} appears twice in the tree`);
        continue;
      }
      seen.add(child.id);
      const base = pending.path === "/" ? "" : pending.path;
      const path = `${base}/${child.name}`;
      queue.push({ id: child.id, parent: pending.id, name: child.name, path });
    }
    const url = pathUrl(object.path);
    if (url === null) {
      skipped += 1;
    } else {
      const byPath = await http.json("GET", url);
      if (byPath.status !== 200 || byPath.body.id !== pending.id) {
        fail(where, `GET ${url.slice(0, 200)} -> ${byPath.status} ${byPath.body?.id ?? ""}`);
      }
      resolved += 1;
    }
  }
  const references = checkReferences(payloads, fail);
  const truncated = queue.length > objectsMax;
  return report(payloads, references, resolved, skipped, truncated, violations);
}

function report(
  payloads: ReadonlyMap<string, any>,
  references: number,
  pathsResolved: number,
  pathsSkipped: number,
  truncated: boolean,
  violations: string[],
): ConsistencyReport {
  const listing = [...payloads.values()].map((p) => `${p.id} ${p.path}`).sort();
  const objects = payloads.size;
  return { objects, listing, references, pathsResolved, pathsSkipped, truncated, violations };
}

function checkObject(object: any, pending: Pending, fail: (problem: string) => void): void {
  if (object.id !== pending.id) fail(`GET returned id ${object.id}`);
  if (object.stage !== "alive" || object.effectiveStage !== "alive") {
    fail(`listed but stage ${object.stage} / effectiveStage ${object.effectiveStage}`);
  }
  const parent = object.effectiveParent ?? object.parent;
  if (parent !== pending.parent) fail(`parent ${parent}, listed under ${pending.parent}`);
  const name = object.effectiveName ?? object.name;
  if (pending.name !== null && name !== pending.name) {
    fail(`name ${JSON.stringify(name)}, listed as ${JSON.stringify(pending.name)}`);
  }
  if (object.path !== pending.path) {
    fail(`path ${JSON.stringify(object.path)}, expected ${JSON.stringify(pending.path)}`);
  }
}

function checkSiblings(children: readonly any[], fail: (problem: string) => void): void {
  const folded = new Map<string, string>();
  let previous: string | null = null;
  for (const child of children) {
    const name = String(child.name);
    const key = fold(name);
    const clash = folded.get(key);
    if (clash !== undefined) {
      fail(`siblings ${JSON.stringify(clash)} and ${JSON.stringify(name)} fold equal`);
    }
    folded.set(key, name);
    if (previous !== null && compareCaseless(previous, name) > 0) {
      const pair = `${JSON.stringify(previous)} before ${JSON.stringify(name)}`;
      fail(`children out of caseless order: ${pair}`);
    }
    previous = name;
  }
}

/** Cross-checks reference values against referencedBy; returns the references seen. */
function checkReferences(
  payloads: ReadonlyMap<string, any>,
  fail: (where: string, problem: string) => void,
): number {
  let references = 0;
  for (const source of payloads.values()) {
    for (const attribute of source.attributes as any[]) {
      for (const value of attribute.values as any[]) {
        if (!("refState" in value)) continue;
        references += 1;
        const where = `${source.path}.${attribute.name} -> ${value.value}`;
        const target = payloads.get(String(value.value));
        if (value.refState === "alive") {
          if (target === undefined) {
            fail(where, "refState alive but the target is not in the tree");
            continue;
          }
          if (value.refPath !== target.path) {
            fail(where, `refPath ${value.refPath} != ${target.path}`);
          }
          const back = (target.referencedBy as any[]).some(
            (r) => r.id === source.id && r.attribute === attribute.name && r.path === source.path,
          );
          if (!back) fail(where, "target's referencedBy does not list this reference");
        } else {
          if (target !== undefined) {
            fail(where, `refState ${value.refState} but the target is alive`);
          }
          if (value.refPath !== null) {
            fail(where, `dangling reference with refPath ${value.refPath}`);
          }
        }
      }
    }
  }
  for (const target of payloads.values()) {
    for (const entry of target.referencedBy as any[]) {
      const where = `${target.path} referencedBy ${entry.id}.${entry.attribute}`;
      const source = payloads.get(String(entry.id));
      if (source === undefined) {
        fail(where, "the source is not in the tree");
        continue;
      }
      if (entry.path !== source.path) fail(where, `path ${entry.path} != ${source.path}`);
      const holds = (source.attributes as any[]).some(
        (a) =>
          a.name === entry.attribute && (a.values as any[]).some((v) => v.value === target.id),
      );
      if (!holds) fail(where, "the source holds no such reference");
    }
  }
  return references;
}
