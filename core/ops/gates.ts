import type { Directory } from "../directory";
import { ok, refuse } from "../errors";
import type { Result } from "../errors";
import type { Guid } from "../guid";
import type { ObjectRecord } from "../store/record";

/** No root yet: a node that joined a domain and has not received its first sync. */
export function requireRoot(dir: Directory): Result<Guid> {
  const landmarks = dir.landmarks();
  if (landmarks === null) return refuse("no-root", "this node has not received its first sync");
  return ok(landmarks.root);
}

export function requireObject(dir: Directory, id: Guid): Result<ObjectRecord> {
  const record = dir.get(id);
  if (record === undefined) return refuse("no-such-object", `no object ${id}`);
  return ok(record);
}

/**
 * The originating-write gate: latches first, then existence, then tombstones, then ghosts. A
 * delete (`removal`) lets through a ghost whose class this node holds deleted
 * (classDeletedHere): removing it validates nothing against the class, and ghost-object's
 * "until sync converges" never comes for it (a class deleted on one node while another
 * instantiated it left the instance a ghost, undeletable, for good; twenty-fifth session).
 */
export function requireWritable(dir: Directory, id: Guid, removal = false): Result<ObjectRecord> {
  if (dir.rollbackLatched) {
    return refuse(
      "rollback-quarantine",
      "this node runs rolled-back state; originating writes wait for a completed pull",
    );
  }
  const found = requireObject(dir, id);
  if (!found.ok) return found;
  const record = found.value;
  if (record.existence.stage !== "alive") {
    return refuse("already-deleted", `object ${id} is a tombstone (${record.existence.stage})`);
  }
  if (removal && classDeletedHere(dir, record)) return ok(record);
  return requireKnownClass(dir, record);
}

/** SPEC rule 4: originating writes to an object whose class this node lacks wait for sync. */
export function requireKnownClass(dir: Directory, record: ObjectRecord): Result<ObjectRecord> {
  if (isGhost(dir, record)) {
    return refuse(
      "ghost-object",
      `class ${record.existence.className} of object ${record.id} is not yet in this node's schema`,
    );
  }
  return ok(record);
}

/**
 * A ghost whose class definition this node holds as a tombstone: its class will not arrive by
 * sync (the unused-delete rule lets a class go once its instances are all tombstones), so
 * `ghost-object`'s "until sync converges" never comes.
 */
export function classDeletedHere(dir: Directory, record: ObjectRecord): boolean {
  if (!isGhost(dir, record)) return false;
  const definition = dir.get(record.existence.classId);
  return definition !== undefined && definition.existence.stage !== "alive";
}

export function isGhost(dir: Directory, record: ObjectRecord): boolean {
  return dir.schema.classById(record.existence.classId) === undefined;
}

export function isRoot(dir: Directory, id: Guid): boolean {
  return dir.landmarks()?.root === id;
}
