/**
 * A small HTTP client for load and fuzz runs against the real daemon: node:http over a
 * keep-alive Agent with a fixed number of sockets, raw control of method, path, headers and
 * body (fetch would normalise some of them), and a wall-clock bound per request so that a
 * hung request surfaces as a RequestTimeout instead of a stuck test. Used by test/daemon,
 * test/fuzz and bench/.
 */
import * as http from "node:http";

export interface RawRequest {
  readonly method: string;
  /** Path and query, sent as given (the caller encodes it). */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  /** Wall-clock bound for the whole exchange; default 10 s. */
  readonly timeoutMs?: number;
}

export interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
}

/**
 * A request failed at the transport level. `previous` names the request that used the same
 * keep-alive connection before it (or null on a fresh one): when a server breaks a connection,
 * the request before is usually the culprit.
 */
export class TransportFailure extends Error {
  override readonly name = "TransportFailure";
  constructor(
    message: string,
    readonly previous: string | null,
  ) {
    super(message);
  }
}

/** The request got no complete response within its bound. */
export class RequestTimeout extends Error {
  override readonly name = "RequestTimeout";
}

const defaultTimeoutMs = 10_000;

export class KeepAliveClient {
  private readonly agent: http.Agent;
  private readonly lastOnConnection = new WeakMap<object, string>();
  private readonly host: string;
  private readonly port: number;

  /** `sockets` bounds the connections; each carries one request at a time. */
  constructor(baseUrl: string, sockets: number) {
    const url = new URL(baseUrl);
    this.host = url.hostname;
    this.port = Number(url.port);
    this.agent = new http.Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });
  }

  request(req: RawRequest): Promise<RawResponse> {
    const timeoutMs = req.timeoutMs ?? defaultTimeoutMs;
    return new Promise<RawResponse>((resolve, reject) => {
      let settled = false;
      const finish = (error: Error | null, response?: RawResponse): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error !== null) reject(error);
        else if (response !== undefined) resolve(response);
      };
      const headers: Record<string, string | number> = { ...(req.headers ?? {}) };
      if (req.body !== undefined) headers["content-length"] = Buffer.byteLength(req.body);
      const target = { agent: this.agent, host: this.host, port: this.port };
      const outgoing = http.request(
        { ...target, method: req.method, path: req.path, headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("error", (error) => finish(error));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            finish(null, { status: res.statusCode ?? 0, headers: res.headers, text });
          });
        },
      );
      const timer = setTimeout(() => {
        const error = new RequestTimeout(`${req.method} ${req.path} took over ${timeoutMs} ms`);
        finish(error);
        outgoing.destroy(error);
      }, timeoutMs);
      let previous: string | null = null;
      outgoing.on("socket", (socket) => {
        previous = this.lastOnConnection.get(socket) ?? null;
        const body = req.body === undefined ? "" : ` (${Buffer.byteLength(req.body)} bytes)`;
        const headers = JSON.stringify(req.headers ?? {});
        const line = `${req.method} ${req.path.slice(0, 200)} ${headers}${body}`;
        this.lastOnConnection.set(socket, line);
      });
      outgoing.on("error", (error) => finish(new TransportFailure(error.message, previous)));
      outgoing.end(req.body);
    });
  }

  /** A JSON call: the body (if any) is serialised, the answer parsed (null when empty). */
  async json(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: any; text: string }> {
    const r = await this.request({
      method,
      path,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
    return { status: r.status, body: r.text === "" ? null : JSON.parse(r.text), text: r.text };
  }

  /** Drops every socket (the server may be gone). */
  close(): void {
    this.agent.destroy();
  }
}
