import type { Context } from "koa";
import type { Daemon } from "../daemon/daemon";
import { reply } from "./reply";
import { TransportError } from "./transport-errors";

/**
 * GET /api/path[/{path}]: the URL tail, percent-decoded segment by segment, is the native
 * path. Decoding per segment keeps `%2F` from turning into a separator: it stays part of one
 * segment, which can name nothing because names never contain '/'.
 */
export function resolvePathRoute(ctx: Context, daemon: Daemon, rawTail: string): void {
  const segments = rawTail === "" ? [] : rawTail.slice(1).split("/").map(decodeSegment);
  if (segments.some((s) => s.includes("/"))) {
    reply(ctx, { ok: false, code: "no-such-object", message: "no object has '/' in its name" });
    return;
  }
  const path = "/" + segments.join("/");
  reply(ctx, daemon.read((node, nowMs) => node.resolvePath(path, nowMs)));
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    const message = `malformed percent-encoding in path segment ${segment}`;
    throw new TransportError("bad-request", message);
  }
}
