import type { Directory } from "../directory";
import { ok, refuse } from "../errors";
import type { Result } from "../errors";
import type { Guid } from "../guid";
import type { ObjectRecord } from "../store/record";
import { checkDefinitionsRemovable } from "./definition-use";
import { isRoot, requireWritable } from "./gates";
import { shownSubtree } from "./subtree";
import { writeStage } from "./write-stage";

/**
 * Soft-deletes an object and its whole alive subtree, as the view shows it (subtree.ts
 * `shownSubtree`: in a stored cycle, not the member shown as its ancestor): each record's existence atom turns
 * `deleted` with `deleteRoot` naming this object. Subtrees already deleted by an earlier delete
 * keep their own deleteRoot. Precedence: target gate, root-is-protected,
 * system-object-protected (anywhere in the subtree), definition-in-use / facet-has-values.
 */
export function deleteObject(dir: Directory, id: Guid, atMs: number): Result<null> {
  const target = requireWritable(dir, id, true);
  if (!target.ok) return target;
  const guarded = guardRemoval(dir, id);
  if (!guarded.ok) return guarded;
  const doomed = shownSubtree(dir, id, (r) => r.existence.stage === "alive").filter(
    (r) => r.existence.stage === "alive",
  );
  const removable = checkProtectedAndUsed(dir, doomed);
  if (!removable.ok) return removable;
  for (const record of doomed) writeStage(dir, record, { stage: "deleted", deleteRoot: id, atMs });
  dir.refreshSchema();
  return ok(null);
}

export function guardRemoval(dir: Directory, id: Guid): Result<null> {
  if (isRoot(dir, id)) return refuse("root-is-protected", "the root cannot be deleted");
  return ok(null);
}

export function checkProtectedAndUsed(dir: Directory, doomed: readonly ObjectRecord[]): Result<null> {
  const system = doomed.find((r) => r.existence.system);
  if (system !== undefined) {
    return refuse(
      "system-object-protected",
      `system object ${system.placement.name} (${system.id}) cannot be deleted`,
    );
  }
  return checkDefinitionsRemovable(dir, doomed);
}
