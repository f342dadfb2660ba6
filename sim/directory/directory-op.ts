import type { ScriptOp } from "./script-op";

/**
 * Client operations the simulated workload sends to a node. Targets are abstract `pick`
 * numbers that the receiving node resolves against its own current view (sorted ids), so the
 * workload needs no global knowledge and stays deterministic. A `script` op is a scenario
 * step instead: it names its targets and reports its outcome back to the script runner.
 */
export type DirectoryOp =
  | {
      readonly kind: "create";
      readonly pick: number;
      readonly name: string;
      readonly className: "organizationalUnit" | "user" | "group";
    }
  | { readonly kind: "rename"; readonly pick: number; readonly name: string }
  | { readonly kind: "move"; readonly pick: number; readonly parentPick: number }
  | { readonly kind: "describe"; readonly pick: number; readonly values: readonly string[] }
  | { readonly kind: "displayName"; readonly pick: number; readonly value: string | null }
  | {
      readonly kind: "member";
      readonly pick: number;
      readonly memberPick: number;
      readonly add: boolean;
    }
  | { readonly kind: "delete"; readonly pick: number }
  | { readonly kind: "restore"; readonly pick: number }
  | { readonly kind: "shred"; readonly pick: number }
  | { readonly kind: "schema"; readonly namespace: string; readonly attribute: string }
  | { readonly kind: "script"; readonly op: ScriptOp; readonly index: number };

export type DirectoryOpKind = Exclude<DirectoryOp["kind"], "script">;
