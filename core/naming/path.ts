import { assert } from "../assert";
import { type Result, ok, refuse } from "../errors";

/**
 * Native paths (SPEC "Naming rules"): "/" then bare names joined by "/", root-first. Names
 * never contain '/', so splitting is unambiguous. Segments are not validated as object names
 * here: a derived CNF display name (`<name> CNF:<guid>`) resolves in paths and may exceed the
 * stored-name limit, and an impossible name simply resolves to nothing. One trailing slash is
 * tolerated ("/a/b/" is "/a/b") because shells and browsers add it; a missing leading slash or
 * an empty segment ("//") is a malformed path, which SPEC routes to no-such-object.
 */
export function splitPath(path: string): Result<string[]> {
  if (!path.startsWith("/")) return refuse("no-such-object", "malformed path: must start with '/'");
  if (path === "/") return ok([]);
  const body = path.endsWith("/") ? path.slice(1, -1) : path.slice(1);
  const names = body.split("/");
  if (names.some((n) => n.length === 0)) {
    return refuse("no-such-object", "malformed path: empty segment");
  }
  return ok(names);
}

/** The native path of the names root-first (the root itself contributes no name). */
export function joinPath(namesRootFirst: readonly string[]): string {
  for (const n of namesRootFirst) {
    assert(n.length > 0 && !n.includes("/"), `path segment is a bare name: ${JSON.stringify(n)}`);
  }
  return "/" + namesRootFirst.join("/");
}
