/**
 * A lean HTTP/1.1 load client for the benches: `connections` keep-alive TCP connections, each
 * with exactly one request in flight (send, read the whole answer, send the next), for a fixed
 * time. It writes requests as prebuilt strings and parses answers just enough (status line,
 * Content-Length) so that on a 2-core machine the client takes as little CPU from the daemon
 * as possible. No pipelining: every figure is requests a client saw answered.
 */
import * as net from "node:net";

export interface LoadRequest {
  readonly method: string;
  readonly path: string;
  /** JSON text; sent with content-type application/json. */
  readonly body?: string;
}

export interface LoadOptions {
  readonly url: string;
  readonly connections: number;
  readonly durationMs: number;
  /** The request a connection sends next; `n` counts that connection's requests from 0. */
  readonly next: (connection: number, n: number) => LoadRequest;
  /** Answers with another status count as errors (the run goes on). */
  readonly expectStatus: number;
}

export interface LoadResult {
  readonly connections: number;
  readonly requests: number;
  readonly errors: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** The first unexpected answer, for the report. */
  readonly firstError: string | null;
  /** CPU this client process used during the run, in cores (it shares the machine). */
  readonly clientCores: number;
}

/** Bound on one answer: a bench that stalls this long is broken, not slow. */
const answerTimeoutMs = 30_000;

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { hostname, port } = new URL(options.url);
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | null = null;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const deadline = started + options.durationMs;
  const loops = Array.from({ length: options.connections }, async (_, connection) => {
    const socket = await connect(hostname, Number(port));
    const reader = new AnswerReader(socket);
    try {
      for (let n = 0; performance.now() < deadline; n++) {
        const request = options.next(connection, n);
        const sent = performance.now();
        socket.write(serialize(request, hostname));
        const answer = await reader.next();
        latencies.push(performance.now() - sent);
        if (answer.status !== options.expectStatus) {
          errors += 1;
          const text = answer.body.subarray(0, 300).toString("utf8");
          firstError ??= `${request.method} ${request.path} -> ${answer.status} ${text}`;
        }
      }
    } finally {
      socket.destroy();
    }
  });
  await Promise.all(loops);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  latencies.sort((a, b) => a - b);
  const at = (q: number): number =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    connections: options.connections,
    requests: latencies.length,
    errors,
    seconds,
    perSecond: latencies.length / seconds,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    firstError,
    clientCores: (cpu.user + cpu.system) / 1e6 / seconds,
  };
}

function serialize(request: LoadRequest, host: string): string {
  const head = `${request.method} ${request.path} HTTP/1.1\r\nHost: ${host}\r\n`;
  if (request.body === undefined) return `${head}\r\n`;
  const length = Buffer.byteLength(request.body);
  const type = "Content-Type: application/json\r\n";
  return `${head}${type}Content-Length: ${length}\r\n\r\n${request.body}`;
}

function connect(host: string, port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port, noDelay: true }, () => resolve(socket));
    socket.once("error", reject);
  });
}

interface Answer {
  readonly status: number;
  /** Raw bytes: decoding every answer would cost the client CPU the daemon needs. */
  readonly body: Buffer;
}

/** Splits the byte stream of one connection into answers (Content-Length framing only). */
class AnswerReader {
  private buffer: Buffer = Buffer.alloc(0);
  private waiting: ((answer: Answer) => void) | null = null;
  private failed: Error | null = null;
  private onFail: ((error: Error) => void) | null = null;

  constructor(socket: net.Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      this.deliver();
    });
    const fail = (error: Error): void => {
      this.failed = error;
      this.onFail?.(error);
    };
    socket.on("error", fail);
    socket.on("close", () => fail(new Error("connection closed by the server")));
  }

  next(): Promise<Answer> {
    return new Promise((resolve, reject) => {
      if (this.failed !== null) {
        reject(this.failed);
        return;
      }
      const timer = setTimeout(() => reject(new Error("no answer within 30 s")), answerTimeoutMs);
      this.waiting = (answer) => {
        clearTimeout(timer);
        resolve(answer);
      };
      this.onFail = (error) => {
        clearTimeout(timer);
        reject(error);
      };
      this.deliver();
    });
  }

  private deliver(): void {
    if (this.waiting === null) return;
    const end = this.buffer.indexOf("\r\n\r\n");
    if (end < 0) return;
    const head = this.buffer.subarray(0, end).toString("latin1");
    const status = Number(head.slice(9, 12));
    const match = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (match === null && /\r\ntransfer-encoding:/i.test(head)) {
      this.failed = new Error("chunked answers are not supported by the bench client");
      this.onFail?.(this.failed);
      return;
    }
    const length = match === null ? 0 : Number(match[1]);
    if (this.buffer.length < end + 4 + length) return;
    const body = this.buffer.subarray(end + 4, end + 4 + length);
    this.buffer = this.buffer.subarray(end + 4 + length);
    const resolve = this.waiting;
    this.waiting = null;
    resolve({ status, body });
  }
}
