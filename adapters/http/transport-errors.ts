import { AssertionError } from "../../core/assert";
/**
 * Transport-level failures: problems with the HTTP request itself or the driver, not refusals
 * of the directory. SPEC's table has no codes for them, so these are ours, in the same
 * `{error, message}` envelope so that every non-2xx answer is JSON.
 */
import type { Context, Middleware } from "koa";

export const transportStatus = {
  "bad-request": 400,
  "not-found": 404,
  "method-not-allowed": 405,
  "request-timeout": 408,
  "payload-too-large": 413,
  "unsupported-media-type": 415,
  "expectation-failed": 417,
  "headers-too-large": 431,
  internal: 500,
  "storage-dead": 503,
  "shutting-down": 503,
  overloaded: 503,
} as const;

export type TransportCode = keyof typeof transportStatus;

/** Thrown inside handlers for a transport-level refusal; the envelope renders it. */
export class TransportError extends Error {
  constructor(
    readonly code: TransportCode,
    message: string,
  ) {
    super(message);
  }
}

export function sendTransportError(ctx: Context, code: TransportCode, message: string): void {
  ctx.status = transportStatus[code];
  ctx.body = { error: code, message };
}

/**
 * The outermost middleware: renders thrown client errors (body parser, TransportError) as
 * JSON, turns empty 404/405/501 answers of the router into JSON, and answers anything else
 * thrown with a logged 500, because an exception that is not a client error is a bug.
 */
export function errorEnvelope(log: (line: string) => void): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      renderThrown(ctx, error, log);
      return;
    }
    if (ctx.body !== undefined && ctx.body !== null) return;
    if (ctx.status === 404) {
      sendTransportError(ctx, "not-found", `no route for ${ctx.method} ${ctx.path}`);
    }
    // 501 is the router's answer to a method it knows nothing about; for a client that is
    // the same mistake as a wrong method on a known route, and bad input never earns a 5xx.
    if (ctx.status === 405 || ctx.status === 501) {
      sendTransportError(ctx, "method-not-allowed", `${ctx.method} is not allowed on ${ctx.path}`);
    }
  };
}

function renderThrown(ctx: Context, error: unknown, log: (line: string) => void): void {
  if (error instanceof TransportError) {
    sendTransportError(ctx, error.code, error.message);
    return;
  }
  const status = clientStatus(error);
  if (status !== null) {
    const message = error instanceof Error ? error.message : "bad request";
    sendTransportError(ctx, codeForStatus(status), message);
    if (status !== transportStatus[codeForStatus(status)]) ctx.status = status;
    return;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  log(`canopy: BUG: unexpected exception on ${ctx.method} ${ctx.path}: ${detail}`);
  sendTransportError(ctx, "internal", "internal error (a bug; logged by the daemon)");
  if (error instanceof AssertionError) {
    // A failed core invariant may have left the node's memory half-changed. Nothing
    // unacknowledged is on disk, so the safe course is to stop and reboot from the log
    // (STYLE: bugs crash the node), after this response has gone out.
    log("canopy: FATAL: a core invariant failed; exiting so the node reboots from its log");
    setImmediate(() => process.exit(70));
  }
}

/** The 4xx status carried by an http-errors style exception (body parser, raw-body), if any. */
function clientStatus(error: unknown): number | null {
  if (typeof error !== "object" || error === null) return null;
  const { status, statusCode } = error as { status?: unknown; statusCode?: unknown };
  const value = typeof status === "number" ? status : statusCode;
  return typeof value === "number" && value >= 400 && value <= 499 ? value : null;
}

function codeForStatus(status: number): TransportCode {
  switch (status) {
    case 404:
      return "not-found";
    case 405:
      return "method-not-allowed";
    case 413:
      return "payload-too-large";
    case 415:
      return "unsupported-media-type";
    default:
      return "bad-request";
  }
}
