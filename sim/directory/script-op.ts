/**
 * Scripted client operations: what a scenario file asks one node to do at one instant.
 * Unlike workload ops (abstract picks), these name their targets: by a label that an earlier
 * scripted create bound to the new object's GUID (`@A`), or by a native path resolved on the
 * receiving node's own effective view at the moment the op runs (`/Configuration`).
 */

export type Ref = { readonly label: string } | { readonly path: string };

/** A value to write: a literal string, or the GUID a reference names (for reference syntax). */
export type ValueArg = { readonly literal: string } | { readonly ref: Ref };

export interface AttributeArg {
  readonly name: string;
  readonly values: readonly ValueArg[];
}

/** Kinds of schema definition the `define` shorthand creates (born active, not system). */
export type DefinitionKind = "namespace" | "attribute" | "facet" | "class" | "extension";

export type ScriptOp =
  | {
      readonly verb: "create";
      readonly parent: Ref;
      readonly name: string;
      readonly className: string;
      readonly attributes: readonly AttributeArg[];
      readonly label: string | null;
    }
  | {
      readonly verb: "define";
      readonly kind: DefinitionKind;
      readonly parent: Ref;
      readonly name: string;
      readonly attributes: readonly AttributeArg[];
      readonly label: string | null;
    }
  | { readonly verb: "rename"; readonly target: Ref; readonly name: string }
  | { readonly verb: "move"; readonly target: Ref; readonly parent: Ref }
  | {
      readonly verb: "put";
      readonly target: Ref;
      readonly attribute: string;
      readonly values: readonly ValueArg[];
    }
  /** Read-modify-write of a multi-valued attribute on the node's current values. */
  | {
      readonly verb: "add" | "remove";
      readonly target: Ref;
      readonly attribute: string;
      readonly value: ValueArg;
    }
  /**
   * Read-modify-write of one value's meta: sets meta `key` of `value` to `metaValues` (none:
   * clears the key), adding the value if the attribute does not hold it; the other values and
   * their meta stay as they are.
   */
  | {
      readonly verb: "meta";
      readonly target: Ref;
      readonly attribute: string;
      readonly value: ValueArg;
      readonly key: string;
      readonly metaValues: readonly ValueArg[];
    }
  | { readonly verb: "delete" | "restore" | "shred"; readonly target: Ref }
  /** Writes an integer (seconds) on /Configuration: maxTimeApart or timeUntilShred. */
  | {
      readonly verb: "config";
      readonly attribute: "maxTimeApart" | "timeUntilShred";
      readonly seconds: number;
    }
  | { readonly verb: "gc" };

export type ScriptVerb = ScriptOp["verb"];

export function refText(ref: Ref): string {
  return "label" in ref ? `@${ref.label}` : quoteIfNeeded(ref.path);
}

/** A value: literals as text, references as `@label` or `@/path`. */
export function valueText(value: ValueArg): string {
  if (!("ref" in value)) return quoteIfNeeded(value.literal);
  return "label" in value.ref ? `@${value.ref.label}` : `@${quoteIfNeeded(value.ref.path)}`;
}

const reserved = new Set(["as", "on", "->", "|"]);

/** Bare tokens stay bare; anything the tokenizer would split or misread is JSON-quoted. */
export function quoteIfNeeded(text: string): string {
  const bare = /^[^\s"#|=@]+$/u.test(text) && !reserved.has(text);
  return bare ? text : JSON.stringify(text);
}
