import * as http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type Koa from "koa";
import { transportStatus } from "./transport-errors";
import type { TransportCode } from "./transport-errors";

/** Bounded wait for in-flight requests at shutdown before connections are cut. */
const closeGraceMs = 5_000;
/**
 * At shutdown, open connections are left this long (at most) before the listener closes: a
 * request that arrives on one meanwhile is answered `503 shutting-down` and its connection
 * closed, as long as any connection is open (see `idleGrace`).
 */
const idleGraceMs = 2_000;
const idleGracePollMs = 20;

export interface ListeningServer {
  readonly server: http.Server;
  /** The bound address; the port is the real one when 0 was asked for. */
  readonly host: string;
  readonly port: number;
  /** Stops accepting, lets in-flight requests finish (bounded), then resolves. */
  close(): Promise<void>;
}

export async function listen(app: Koa, host: string, port: number): Promise<ListeningServer> {
  const drain = new Drain(app.callback());
  const server = http.createServer((req, res) => drain.handle(req, res));
  server.on("clientError", answerClientError);
  // An Expect other than 100-continue: Node answered a bare 417 without a body.
  server.on("checkExpectation", refuseExpectation);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    server,
    host,
    port: address.port,
    close: async () => {
      drain.start();
      await idleGrace(server);
      return closeServer(server);
    },
  };
}

/**
 * Shutdown stops accepting requests on open keep-alive connections too, not only new
 * connections (server.close() alone does that much): a busy client kept writing, and getting
 * answers, until the grace period cut its connection mid-request (concurrency audit,
 * twenty-third session). Once draining, a request that arrives is answered `503
 * shutting-down`, and every answer, those of requests in flight included, closes its
 * connection, so close() completes as soon as the requests in flight are answered.
 */
class Drain {
  private draining = false;
  private readonly inFlight = new Set<http.ServerResponse>();

  constructor(private readonly handler: http.RequestListener) {}

  handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (this.draining) {
      // The body is read (and dropped) first: closing a connection with unread bytes in it
      // resets it, and the client could lose the answer. The grace period bounds a slow one.
      req.once("end", () => refuseShuttingDown(res));
      req.once("error", () => res.destroy());
      req.resume();
      return;
    }
    this.inFlight.add(res);
    res.once("close", () => this.inFlight.delete(res));
    void this.handler(req, res);
  }

  start(): void {
    this.draining = true;
    for (const res of this.inFlight) if (!res.headersSent) res.setHeader("Connection", "close");
  }
}

function refuseShuttingDown(res: http.ServerResponse): void {
  if (res.headersSent || res.destroyed) return;
  answerAndClose(res, "shutting-down", "the daemon is shutting down");
}

/** A transport refusal in the JSON envelope, outside Koa; the connection closes after it. */
function answerAndClose(res: http.ServerResponse, code: TransportCode, message: string): void {
  const body = JSON.stringify({ error: code, message });
  res.writeHead(transportStatus[code], {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(body),
    Connection: "close",
  });
  res.end(body);
}

/**
 * Waits, at most `idleGraceMs`, until no connection is open. `server.close()` (Node 19 on)
 * destroys every keep-alive connection between requests at once, and a client whose next
 * request was already on its way, in the socket but not yet read, got a reset: its request
 * was not applied, but it could not know that (ten of sixteen busy clients did; operator
 * audit, twenty-fourth session). Meanwhile the drain answers such a request `503
 * shutting-down` and closes its connection, so busy clients end the grace quickly; idle ones
 * (a browser's spare connection) are closed after it.
 */
async function idleGrace(server: http.Server): Promise<void> {
  for (let waited = 0; waited < idleGraceMs; waited += idleGracePollMs) {
    const open = await new Promise<number>((resolve) => server.getConnections((error, count) => resolve(error ? 0 : count)));
    if (open === 0) return;
    await new Promise((resolve) => setTimeout(resolve, idleGracePollMs));
  }
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    const cut = setTimeout(() => server.closeAllConnections(), closeGraceMs);
    server.close(() => {
      clearTimeout(cut);
      resolve();
    });
    // Idle keep-alive connections would otherwise hold close() open until they time out.
    server.closeIdleConnections();
  });
}

/**
 * A request Node's parser rejects (a request line or headers beyond the header bound, bytes
 * that are not HTTP, a header timeout) never reaches Koa, and Node's own answer is a bare
 * status line. This gives it the same `{error, message}` JSON envelope as every other non-2xx
 * answer, then closes the connection, as Node does. Like Node, it writes nothing when the
 * socket is gone or a response on it has already started.
 *
 * An answer to HEAD must have no body (a client would read it as the start of a next
 * response). The parser fails before it reports the method, so the method is read from the
 * start of the chunk it failed in; when that chunk is not the start of the request (a long
 * request line can arrive in several reads) the method is unknown and the answer, like
 * Node's, has no body.
 */
function answerClientError(
  error: Error & { code?: string; rawPacket?: Buffer },
  socket: Socket,
): void {
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || inFlight?.headersSent === true || error.code === "ECONNRESET") {
    socket.destroy();
    return;
  }
  const code: TransportCode =
    error.code === "HPE_HEADER_OVERFLOW"
      ? "headers-too-large"
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? "request-timeout"
        : "bad-request";
  const status = transportStatus[code];
  const method = /^([A-Z]+) /.exec(error.rawPacket?.subarray(0, 16).toString("latin1") ?? "");
  const body =
    method === null || method[1] === "HEAD"
      ? ""
      : JSON.stringify({ error: code, message: `unparseable HTTP request (${error.code})` });
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ""}\r\n` +
      (body === "" ? "" : "Content-Type: application/json; charset=utf-8\r\n") +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      "Connection: close\r\n\r\n" +
      body,
  );
}

/** 417 in the JSON envelope, as every non-2xx answer (HTTP audit, twenty-seventh session). */
function refuseExpectation(req: http.IncomingMessage, res: http.ServerResponse): void {
  answerAndClose(res, "expectation-failed", "only Expect: 100-continue is supported");
  req.resume();
}
