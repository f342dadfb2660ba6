import { assert } from "../assert";
import { isDnPrefix } from "./definition-name";

/** RFC 4514 characters that are escaped wherever they occur. */
const specialAnywhere = new Set(['"', "+", ",", ";", "<", ">", "\\"]);

/**
 * Escapes one attribute value (an object name) for a DN, exactly as SPEC "Naming rules"
 * lists: a backslash before `" + , ; < > \` anywhere, before a leading space or '#', and
 * before a trailing space. Nothing else is escaped (no hex escapes: object names cannot hold
 * NUL or other controls, and non-ASCII characters are legal in RFC 4514 strings as is).
 * A single-space value (not a legal object name, but the function is total) is escaped once,
 * as a leading space, which also satisfies the trailing rule: "\ ".
 */
export function escapeDnValue(name: string): string {
  let out = "";
  const lastIndex = name.length - 1;
  for (let i = 0; i < name.length; i++) {
    const ch = name.charAt(i);
    const leading = i === 0 && (ch === " " || ch === "#");
    const trailing = i === lastIndex && ch === " ";
    if (specialAnywhere.has(ch) || leading || trailing) out += "\\";
    out += ch;
  }
  return out;
}

/**
 * Inverse of escapeDnValue for the escapes it emits, plus RFC 4514's '=' escape; a hex-pair
 * escape or a dangling backslash yields null. Used by round-trip tests and debugging tools.
 */
export function unescapeDnValue(s: string): string | null {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const ch = s.charAt(i);
    if (ch !== "\\") {
      out += ch;
      continue;
    }
    const next = s.charAt(i + 1);
    if (!(specialAnywhere.has(next) || next === " " || next === "#" || next === "=")) return null;
    out += next;
    i++;
  }
  return out;
}

export type DnComponent = { readonly prefix: string; readonly name: string };

/**
 * Composes a DN from components leaf-first (the object itself first, then its parent, ...),
 * `<dnPrefix>=<escaped name>` joined by ",". The caller omits the root, which contributes
 * nothing, so the root's DN is "".
 */
export function composeDn(componentsLeafFirst: ReadonlyArray<DnComponent>): string {
  const parts: string[] = [];
  for (const { prefix, name } of componentsLeafFirst) {
    // Prefixes come from compiled class definitions; a bad one is a schema compiler bug.
    assert(isDnPrefix(prefix), `dnPrefix is an RFC 4512 keystring: ${JSON.stringify(prefix)}`);
    parts.push(`${prefix}=${escapeDnValue(name)}`);
  }
  return parts.join(",");
}
