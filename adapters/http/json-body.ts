import type { Context, Next } from "koa";
import bodyParser from "koa-bodyparser";
import type * as t from "io-ts";
import { isLeft } from "fp-ts/lib/Either";
import { limits } from "../../core/limits";
import { describeErrors } from "./request-codecs";
import { TransportError } from "./transport-errors";

/**
 * Sized so that one attribute value of 1 MiB (inclusive) fits even when every byte is
 * JSON-escaped (`\u0001` is six bytes), plus the envelope. Larger bodies get 413.
 */
// `encoding` is a documented koa-bodyparser option (handed to co-body) its types leave out.
const parserOptions: bodyParser.Options & { readonly encoding: string } = {
  enableTypes: ["json"],
  // Every type the check below lets through as JSON (`application/*+json`, such as
  // merge-patch+json), not only koa-bodyparser's own list: a body it skipped reached the
  // decoder as `{}` and was refused for fields it did carry.
  extendTypes: { json: ["+json"] },
  jsonLimit: `${limits.requestBodyBytesMax}b`,
  strict: true,
  // One character per byte (latin1 is lossless), so that the bytes can be read back and
  // decoded strictly below: with utf-8 here, invalid bytes became U+FFFD and were stored as
  // names and values the client never sent. koa-bodyparser keeps the limits, the
  // Content-Encoding and the strict check; its parse of the latin1 text is replaced.
  encoding: "latin1",
};
const parseJson = bodyParser(parserOptions);

/** RFC 8259: JSON exchanged between systems is UTF-8. `fatal` refuses invalid bytes. */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads and decodes the JSON body of a request that must carry one. Body-less endpoints do not
 * use it, so a stray body on them is ignored rather than parsed.
 */
export async function readJsonBody<A>(ctx: Context, codec: t.Decoder<unknown, A>): Promise<A> {
  const kind = ctx.is("application/json", "+json");
  // No body at all (or an empty one) is a missing body whatever its declared type.
  if (kind === null || ctx.request.length === 0) {
    throw new TransportError("bad-request", "a JSON request body is required");
  }
  if (kind === false) {
    throw new TransportError(
      "unsupported-media-type",
      `request body must be application/json, not ${ctx.get("content-type") || "untyped"}`,
    );
  }
  try {
    await parseJson(ctx, noop);
  } catch (error) {
    // A body abandoned half-read (its decoder failed, or it inflated past the bound) is left
    // unread, and Node does not drain a request that was being consumed: the keep-alive
    // connection would stall until its idle timeout and close with a reset. Discard the rest
    // so the connection serves the next request.
    if (!ctx.req.complete) {
      ctx.req.unpipe();
      ctx.req.resume();
    }
    // The decoder's errors (zlib's Z_*, brotli's) carry no HTTP status, so a body that does
    // not match its Content-Encoding would otherwise reach the envelope as a bug (500); it is
    // the client's mistake.
    if (isDecompressionError(ctx, error)) {
      const message = `body does not decode as ${ctx.get("content-encoding")}: ${error.message}`;
      throw new TransportError("bad-request", message);
    }
    throw error;
  }
  const decoded = codec.decode(bodyAsUtf8Json(ctx));
  if (isLeft(decoded)) throw new TransportError("bad-request", describeErrors(decoded.left));
  return decoded.right;
}

/** The body parsed again from its bytes decoded as strict UTF-8 (see `encoding` above). */
function bodyAsUtf8Json(ctx: Context): unknown {
  const raw: unknown = (ctx.request as { rawBody?: unknown }).rawBody;
  if (typeof raw !== "string") return ctx.request.body;
  let text: string;
  try {
    text = strictUtf8.decode(Buffer.from(raw, "latin1"));
  } catch {
    throw new TransportError("bad-request", "request body is not valid UTF-8 (RFC 8259: JSON is UTF-8)");
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new TransportError("bad-request", `request body is not JSON: ${(error as Error).message}`);
  }
}

/** An error of the stream that decodes a Content-Encoding: no HTTP status, a numeric errno. */
function isDecompressionError(ctx: Context, error: unknown): error is Error {
  const encoded = (ctx.get("content-encoding") || "identity").toLowerCase() !== "identity";
  const { errno, status } = (error ?? {}) as { errno?: unknown; status?: unknown };
  return encoded && error instanceof Error && typeof errno === "number" && status === undefined;
}

async function noop(_next?: Next): Promise<void> {
  return undefined;
}
