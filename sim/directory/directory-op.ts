import type { Matching, Syntax } from "../../core/syntax";
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
  | {
      // Sets (days from a fixed date) or clears the `expiry` meta of one member value.
      readonly kind: "expiry";
      readonly pick: number;
      readonly memberPick: number;
      readonly days: number | null;
    }
  // Sets timeUntilShred on /Configuration (the restore window) while the run goes on.
  | { readonly kind: "window"; readonly seconds: number }
  | { readonly kind: "delete"; readonly pick: number }
  | { readonly kind: "restore"; readonly pick: number }
  | { readonly kind: "shred"; readonly pick: number }
  | { readonly kind: "schema"; readonly namespace: string; readonly attribute: string }
  // Schema life beyond attribute definitions (workload.ts, "Schema life"): picks among the
  // node's own namespaced definitions, by their place in its compiled schema's lists.
  | {
      readonly kind: "facet";
      readonly namespace: string;
      readonly name: string;
      readonly attributePicks: readonly number[];
    }
  | {
      readonly kind: "class";
      readonly namespace: string;
      readonly name: string;
      readonly facetPick: number | null;
    }
  | {
      readonly kind: "extension";
      readonly namespace: string;
      readonly name: string;
      readonly targetPick: number;
      readonly facetPick: number;
    }
  | { readonly kind: "instance"; readonly pick: number; readonly classPick: number; readonly name: string }
  | { readonly kind: "attach"; readonly pick: number; readonly facetPick: number; readonly add: boolean }
  | { readonly kind: "custom"; readonly pick: number; readonly attributePick: number; readonly value: string }
  | { readonly kind: "undefine"; readonly pick: number; readonly shred: boolean }
  | { readonly kind: "redefine"; readonly pick: number }
  // Typed values (workload.ts `typedValueKinds`): namespaced attributes of every syntax,
  // single- or multi-valued, with legalMeta picked among the node's compiled attributes; and
  // writes of their values (added to or taken from a multi-valued set) with meta.
  | {
      readonly kind: "typedAttribute";
      readonly namespace: string;
      readonly name: string;
      readonly syntax: Syntax;
      readonly singleValued: boolean;
      readonly matching: Matching;
      readonly metaPicks: readonly number[];
    }
  | {
      readonly kind: "typedWrite";
      readonly pick: number;
      readonly attributePick: number;
      readonly valuePick: number;
      readonly metaPick: number | null;
      readonly metaValuePick: number;
      readonly remove: boolean;
    }
  | { readonly kind: "script"; readonly op: ScriptOp; readonly index: number };

export type DirectoryOpKind = Exclude<DirectoryOp["kind"], "script">;
