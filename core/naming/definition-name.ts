import { type Result, ok, refuse } from "../errors";
import { limits } from "../limits";
import { fold } from "./fold";

/**
 * Definition and namespace names (SPEC "Naming rules"). "Letter" and "digit" mean ASCII
 * A-Z/a-z and 0-9: these names become wire names in URLs, JSON keys and DN prefixes, where
 * non-ASCII would invite confusable spellings and normalization trouble. They are also object
 * names of schema objects, so they share the 255-byte object name limit.
 */
const definitionNamePattern = /^[A-Za-z][A-Za-z0-9]*$/;
const namespaceNamePattern = /^[A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z][A-Za-z0-9]*)*$/;
/** RFC 4512 keystring: leadkeychar *keychar (ALPHA, then ALPHA / DIGIT / HYPHEN). */
const dnPrefixPattern = /^[A-Za-z][A-Za-z0-9-]*$/;

export function isDefinitionName(s: string): boolean {
  return s.length <= limits.nameBytesMax && definitionNamePattern.test(s);
}

export function isNamespaceName(s: string): boolean {
  return s.length <= limits.nameBytesMax && namespaceNamePattern.test(s);
}

export function isDnPrefix(s: string): boolean {
  return dnPrefixPattern.test(s);
}

/** `x` (caselessly) can never be defined as an attribute, facet, class or extension name. */
export function isReservedDefinitionName(s: string): boolean {
  return fold(s) === "x";
}

const reservedServiceNamespaces = new Set(["gip", "dir"]);

/**
 * `gip`, `dir` and `x` are reserved namespace names (caselessly). A namespace whose FIRST
 * segment is `gip` or `dir` (e.g. `gip.relay`, `Dir.Drs`) is reserved too: the service names
 * `gip/relay` and `dir/drs` share the namespace universe, and under the reverse-DNS convention
 * whoever owns a first segment owns everything under it. `x` is reserved only as a whole
 * name, as SPEC words it; `x.example` is an ordinary namespace.
 */
export function isReservedNamespaceName(s: string): boolean {
  const folded = fold(s);
  if (folded === "x") return true;
  const first = folded.split(".")[0] ?? "";
  return reservedServiceNamespaces.has(first);
}

/** `<Namespace>-<name>` for a namespaced definition, the bare name for a base definition. */
export function wireName(namespace: string | null, name: string): string {
  return namespace === null ? name : `${namespace}-${name}`;
}

/**
 * Splits a wire name into namespace and name. Unambiguous because neither definition names
 * nor namespace names contain '-'. Returns null when the text is not a well-formed wire name
 * (reservation is not checked here: base names are looked up, not defined, through this).
 */
export function parseWireName(s: string): { namespace: string | null; name: string } | null {
  const dash = s.indexOf("-");
  if (dash < 0) return isDefinitionName(s) ? { namespace: null, name: s } : null;
  const namespace = s.slice(0, dash);
  const name = s.slice(dash + 1);
  if (!isNamespaceName(namespace) || !isDefinitionName(name)) return null;
  return { namespace, name };
}

export function validateDefinitionName(s: unknown): Result<string> {
  if (typeof s !== "string") return refuse("invalid-name", "definition name must be a string");
  if (s.length === 0) return refuse("invalid-name", "definition name must not be empty");
  if (s.length > limits.nameBytesMax) {
    return refuse("invalid-name", `definition name is longer than ${limits.nameBytesMax} bytes`);
  }
  if (!definitionNamePattern.test(s)) {
    return refuse(
      "invalid-name",
      "definition name must be an ASCII letter followed by ASCII letters or digits",
    );
  }
  if (isReservedDefinitionName(s)) {
    return refuse("invalid-name", `definition name ${JSON.stringify(s)} is reserved`);
  }
  return ok(s);
}

export function validateNamespaceName(s: unknown): Result<string> {
  if (typeof s !== "string") return refuse("invalid-name", "namespace name must be a string");
  if (s.length === 0) return refuse("invalid-name", "namespace name must not be empty");
  if (s.length > limits.nameBytesMax) {
    return refuse("invalid-name", `namespace name is longer than ${limits.nameBytesMax} bytes`);
  }
  if (!namespaceNamePattern.test(s)) {
    return refuse(
      "invalid-name",
      "namespace name must be dot-separated segments, " +
        "each an ASCII letter followed by ASCII letters or digits",
    );
  }
  if (isReservedNamespaceName(s)) {
    return refuse("invalid-name", `namespace name ${JSON.stringify(s)} is reserved`);
  }
  return ok(s);
}

export function validateDnPrefix(s: unknown): Result<string> {
  if (typeof s !== "string" || !isDnPrefix(s)) {
    return refuse(
      "invalid-name",
      "dnPrefix must be an ASCII letter followed by ASCII letters, digits or hyphens",
    );
  }
  return ok(s);
}
