import type { Directory } from "../directory";
import { ok, refuse } from "../errors";
import type { Result } from "../errors";
import type { Guid } from "../guid";
import { fold } from "../naming";
import type { AttributeDef } from "../schema";
import { heldValues, normalizeValues } from "./normalize-values";
import type { ObjectRecord, ValueAtom } from "../store/record";
import { atomLife, lifeOf, lifeOfVersion } from "../store/record";
import { effectiveStage } from "../view/aging";
import { EffectiveView } from "../view/effective-view";
import { effectiveParentWith } from "../view/placement-repair";
import { classDeletedHere, requireKnownClass, requireObject } from "./gates";
import { subtree } from "./subtree";
import { writeStage } from "./write-stage";
import { trialRevive } from "./trial-compile";

/**
 * Restores a soft-deleted object and the subtree its delete took, top-down. Refusals:
 * rollback-quarantine; no-such-object; not-restorable when its class definition is deleted
 * here (classDeletedHere); ghost-object; not-restorable (not deleted, restore
 * window elapsed or hardened, parent not alive and not lifted by this very restore, which
 * refuses a descendant of a delete rather than its root, a conflict with the schema, see
 * checkRevivable); name-in-use when an alive sibling took the name meanwhile (see
 * tookNameMeanwhile); schema-violation when a restored definition would not compile (restore
 * is an originating schema write, gated like a create).
 */
export function restoreObject(dir: Directory, id: Guid, atMs: number): Result<null> {
  if (dir.rollbackLatched) {
    return refuse("rollback-quarantine", "originating writes wait for a completed pull");
  }
  const found = requireObject(dir, id);
  if (!found.ok) return found;
  const deletedClass = classDeletedHereRefusal(dir, found.value);
  if (deletedClass !== null) return deletedClass;
  const known = requireKnownClass(dir, found.value);
  if (!known.ok) return known;
  const record = found.value;
  const stage = effectiveStage(dir, record, atMs);
  if (record.existence.stage !== "deleted") {
    return refuse("not-restorable", `object ${id} is ${record.existence.stage}, not deleted`);
  }
  if (stage !== "deleted") {
    return refuse("not-restorable", `the restore window of object ${id} has elapsed`);
  }
  // The parent must be alive once the restore is done. In a stored move cycle the parent lies
  // in the object's own subtree, so the delete took it and this restore lifts it again; a
  // cycle whose members separate deletes took comes back whole (deadCycleOf).
  const roots = [record, ...deadCycleOf(dir, record, atMs)];
  const lifted = roots.flatMap((root) => liftedBy(dir, root));
  const parentId = record.placement.parent;
  const parent = parentId === null ? undefined : dir.get(parentId);
  const parentLifted = parent !== undefined && lifted.some((r) => r.id === parent.id);
  if (parent === undefined || (parent.existence.stage !== "alive" && !parentLifted)) {
    return refuse("not-restorable", `the parent of object ${id} is not alive`);
  }
  const taken = nameTakenMeanwhile(dir, roots, lifted);
  if (taken !== null) {
    return refuse("name-in-use", `an alive sibling now holds the name ${taken.placement.name}`);
  }
  const revivable = checkRevivable(dir, lifted);
  if (!revivable.ok) return revivable;
  const schemaOk = trialRevive(dir, new Set(lifted.map((r) => r.id)));
  if (!schemaOk.ok) return schemaOk;
  for (const r of lifted) {
    const attrs = (usn: number) => restampValues(dir, r, atMs, usn);
    writeStage(dir, r, { stage: "alive", deleteRoot: null, atMs, attrs });
  }
  dir.refreshSchema();
  return ok(null);
}

/** The records the delete that took `root` took below it (`root` included), top-down. */
function liftedBy(dir: Directory, root: ObjectRecord): ObjectRecord[] {
  const deleteRoot = root.existence.deleteRoot ?? root.id;
  return subtree(dir, root.id, (r) => r.existence.deleteRoot === deleteRoot).filter(
    (r) => r.existence.stage === "deleted" && r.existence.deleteRoot === deleteRoot,
  );
}

/**
 * The other members of a stored move cycle of tombstones through `record`, when separate
 * deletes took them, each still restorable in its window; else none. Deleting a cycle member
 * shown beneath another takes it alone (subtree.ts `shownSubtree`), leaving the other an alive
 * orphan, whose own delete then takes it alone: each member's stored parent is then the other's
 * tombstone, and a restore of either was refused for good as "parent not alive" (adversarial-
 * scenario audit, twenty-fourth session; regressions/dead-cycle-restores-whole-scripted). The
 * restore of one lifts them all, the cycle as it stood before the deletes (the view breaks it
 * again). The walk up from `record`'s stored parent goes through tombstones only; an alive
 * record on the way, an aged one, or the root ends it with none.
 */
function deadCycleOf(dir: Directory, record: ObjectRecord, atMs: number): ObjectRecord[] {
  const members: ObjectRecord[] = [];
  const seen = new Set<Guid>([record.id]);
  let cursor = record.placement.parent;
  while (cursor !== null && cursor !== record.id) {
    const member = dir.get(cursor);
    if (member === undefined || seen.has(cursor)) return [];
    if (member.existence.stage !== "deleted" || effectiveStage(dir, member, atMs) !== "deleted") return [];
    seen.add(cursor);
    members.push(member);
    cursor = member.placement.parent;
  }
  if (cursor === null) return [];
  // A member the same delete took is lifted with `record` already.
  const own = record.existence.deleteRoot ?? record.id;
  return members.filter((m) => (m.existence.deleteRoot ?? m.id) !== own);
}

/**
 * A tombstone whose class definition this node holds deleted (the unused-delete rule lets a
 * class go once its instances are all tombstones) is not a ghost waiting for sync: its class
 * will not arrive. Refused as not-restorable, naming the way back; a class this node has never
 * seen stays ghost-object.
 */
function classDeletedHereRefusal(dir: Directory, record: ObjectRecord): Result<null> | null {
  if (!classDeletedHere(dir, record)) return null;
  if (dir.get(record.existence.classId)?.existence.stage === "shredded") {
    const className = record.existence.className;
    return refuse("not-restorable", `the class ${className} of object ${record.id} is shredded; the object cannot come back`);
  }
  return refuse(
    "not-restorable",
    `the class ${record.existence.className} of object ${record.id} is deleted; restore its definition (${record.existence.classId}) first`,
  );
}

/**
 * The first lifted record whose name an alive sibling took meanwhile, or null. Every lifted
 * record is judged under the parent it will show under once the restore is done
 * (placement-repair.ts `effectiveParentWith`, the lifted tombstones taken for alive: a
 * restored cycle's breaker under /LostAndFound, a child under its lifted parent among the
 * orphans stored there), and a root under its stored parent too. A restore is one local
 * write, and name-in-use is judged among the siblings a client sees, as for create and move
 * (diff reviews, twenty-fifth session; regressions/restore-beside-shown-orphan-scripted,
 * restore-cycle-beside-lost-and-found-name-scripted, restore-name-judged-after-scripted).
 */
function nameTakenMeanwhile(
  dir: Directory,
  roots: readonly ObjectRecord[],
  lifted: readonly ObjectRecord[],
): ObjectRecord | null {
  const view = new EffectiveView(dir);
  const liftedIds = new Set(lifted.map((r) => r.id));
  const acyclic = new Set<Guid>();
  const after = (r: ObjectRecord): Guid | null => effectiveParentWith(dir, r, liftedIds, acyclic);
  const rootIds = new Set(roots.map((r) => r.id));
  for (const r of lifted) {
    const judged = new Set<Guid>();
    const shown = after(r);
    if (shown !== null) judged.add(shown);
    if (rootIds.has(r.id) && r.placement.parent !== null) judged.add(r.placement.parent);
    for (const parent of judged) if (tookNameMeanwhile(view, parent, r, after)) return r;
  }
  return null;
}

/**
 * Whether an alive sibling under `parentId` took the deleted record's name meanwhile (SPEC):
 * it claimed the name, or came back alive, after the record's delete, by either of two
 * readings, and a restore that either says made a CNF pair is refused:
 * - the stamps' times: the claim stamped at or after the delete. They are other nodes' clocks:
 *   a claim made after the delete on a node 2 s behind read "before" (tombstone audit,
 *   twenty-eighth session);
 * - this node's own order of events (local USNs): the claim reached this node after the delete
 *   did. The delete's local USN is that of the winning delete atom, which a concurrent delete
 *   merged later re-indexes after a claim made in between (review of the day's changes): so
 *   not this reading alone.
 * A sibling that already held the name alive before (replicas created the two concurrently: a
 * CNF pair) does not block the restore, which gives the pair back as it was; refusing it made
 * deleting either copy of a CNF pair impossible to undo. Left open: with the other copy's
 * clock ahead of the delete by more than the time between the two, its claim reads "after"
 * and that undo is refused (`name-in-use`; renaming either copy first lets it through). An
 * orphan shown there now that the restore brings back under its lifted parent is no sibling.
 * Another object's CNF display name is not judged: the deleted record may have vacated it (its
 * rival showed with a " (2)" while both were alive), and its undo must go through
 * (view-repairs property).
 */
function tookNameMeanwhile(
  view: EffectiveView,
  parentId: Guid,
  record: ObjectRecord,
  after: (r: ObjectRecord) => Guid | null,
): boolean {
  const deleted = record.existence.stamp;
  for (const sibling of view.holdersOf(parentId, fold(record.placement.name), record.id)) {
    if (sibling.placement.parent !== parentId && after(sibling) !== parentId) continue;
    const [placed, existed] = [sibling.placement.stamp, sibling.existence.stamp];
    if (Math.max(placed.atMs, existed.atMs) >= deleted.atMs) return true;
    if (Math.max(placed.localUsn, existed.localUsn) > deleted.localUsn) return true;
  }
  return false;
}

/**
 * A conflict SPEC's restore condition rules out: the schema moved on while the subtree lay in
 * the morgue. A record whose class was deleted meanwhile would come back as an alive ghost,
 * and values of an attribute no longer defined would come back outside the schema; either
 * refuses the whole restore as not-restorable. Values of a defined attribute that left the
 * record's surface (its facet detached or deleted) come back held, and can be cleared.
 */
function checkRevivable(dir: Directory, lifted: readonly ObjectRecord[]): Result<null> {
  for (const r of lifted) {
    const who = `${r.placement.name} (${r.id})`;
    const cls = dir.schema.classById(r.existence.classId);
    if (cls === undefined) {
      const className = r.existence.className;
      return refuse("not-restorable", `the class ${className} of ${who} no longer exists`);
    }
    for (const [attr, atoms] of r.attrs) {
      const held = [...atoms.values()].some((a) => a.present);
      const def = dir.schema.attribute(attr);
      // Values of an alive attribute outside the surface come back held, and a write can clear
      // them (prepare-attributes.ts onlyHeld): replication racing a detach leaves them on an
      // alive object too, and refusing made its delete impossible to undo (multi-valued
      // audit, twenty-fifth session). Values of an attribute no longer defined still refuse.
      if (held && def === undefined) {
        return refuse("not-restorable", `${who} holds ${attr} values, an attribute no longer defined`);
      }
      // Atoms of an ended life do not come back (restampValues), so they are not judged.
      const life = lifeOf(r.existence);
      const coming = [...atoms.values()].filter((a) => atomLife(a) >= life);
      const problem = def === undefined || !held ? null : valuesProblem(dir, def, coming);
      if (problem !== null) {
        return refuse("not-restorable", `${who} holds ${def!.name} values its definition refuses now: ${problem}`);
      }
    }
  }
  return ok(null);
}

/**
 * Whether the held values of one attribute are what a write of them would store under the
 * attribute's definition now, or why not. Attributes are known by wire name, and a wire name
 * can be defined anew (namespace or definition deleted, then created again) with another
 * syntax, valuedness or matching while a record that holds values of the old one lies in the
 * morgue; restored, they would be alive values the schema refuses (a second value of a
 * single-valued attribute, a non-GUID reference). References whose targets died since are
 * held, so they pass, as in a rewrite.
 */
function valuesProblem(dir: Directory, def: AttributeDef, atoms: readonly ValueAtom[]): string | null {
  const present = atoms.filter((a) => a.present && a.value !== null);
  const inputs = present.map((a) => (a.meta === null ? { value: a.value } : { value: a.value, meta: a.meta }));
  const written = normalizeValues(dir, def, inputs, heldValues(present, def.matching));
  if (!written.ok) return `${written.code}: ${written.message}`;
  const stored = new Set(present.map((a) => `${a.key}\u0000${a.value}`));
  for (const v of written.value) {
    if (!stored.has(`${v.key}\u0000${v.value}`)) return `${JSON.stringify(v.value)} was stored under another syntax or matching`;
  }
  return null;
}

/**
 * A restore begins a new life of the object (its existence version after this write) and
 * re-originates the values and absence residue it brings back into that life. Atoms of the
 * ended life that this node never saw (a value written concurrently with the delete on a
 * node that still saw the object alive) are superseded on every node by the same rule
 * (core/merge/merge-record.ts), so a partner that hardened the tombstone, dropping its atoms,
 * and one that did not end up holding the same atoms
 * (scenarios/regressions/restore-races-hardening.scn, hardening-drops-stale-write.scn).
 */
function restampValues(dir: Directory, r: ObjectRecord, atMs: number, usn: number): ObjectRecord["attrs"] {
  const life = lifeOfVersion(r.existence.stamp.version + 1);
  const ended = lifeOf(r.existence);
  const out = new Map<string, Map<string, ValueAtom>>();
  for (const [name, atoms] of r.attrs) {
    const next = new Map<string, ValueAtom>();
    for (const [key, atom] of atoms) {
      if (atomLife(atom) < ended) continue;
      next.set(key, { ...atom, stamp: dir.stamp(atom.stamp, atMs, usn), life });
    }
    if (next.size > 0) out.set(name, next);
  }
  return out;
}
