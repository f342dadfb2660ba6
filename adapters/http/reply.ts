import type { Context } from "koa";
import { errorStatus, isErrorCode } from "../../core/errors";
import { parseGuid } from "../../core/guid";
import type { Guid } from "../../core/guid";
import type { DaemonResult } from "../daemon/daemon";
import { transportStatus } from "./transport-errors";

/** Renders a core or driver result: the value with `okStatus`, or `{error, message}`. */
export function reply<T>(ctx: Context, result: DaemonResult<T>, okStatus = 200): void {
  if (result.ok) {
    ctx.status = okStatus;
    if (okStatus !== 204) ctx.body = jsonBody(ctx, result.value);
    return;
  }
  ctx.status = isErrorCode(result.code) ? errorStatus[result.code] : transportStatus[result.code];
  ctx.body = { error: result.code, message: result.message };
}

/** A `{id}` or `{guid}` path segment as a canonical GUID, or a `bad-object-id` reply. */
export function guidParam(ctx: Context, raw: string | undefined): Guid | null {
  const id = raw === undefined ? null : parseGuid(raw);
  if (id === null) {
    reply(ctx, { ok: false, code: "bad-object-id", message: `not an object GUID: ${raw ?? ""}` });
  }
  return id;
}

/**
 * The core shares frozen payloads and listings between readers until the directory changes
 * (core/view/view-cache.ts); a frozen value never changes, so its JSON text is encoded once and
 * reused. Anything else goes to Koa as is (which stringifies it per response).
 */
const encoded = new WeakMap<object, Buffer>();

function jsonBody(ctx: Context, value: unknown): unknown {
  if (typeof value !== "object" || value === null || !Object.isFrozen(value)) return value;
  let bytes = encoded.get(value);
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(value));
    encoded.set(value, bytes);
  }
  // The header Koa sets for an object body.
  ctx.type = "application/json; charset=utf-8";
  return bytes;
}
