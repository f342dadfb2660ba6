/**
 * Goal: the answer bytes the daemon holds for clients that do not read are bounded (concurrency
 * audit: 100 clients that never read their GET of a 7 MB object held 700 MB, for good). Across
 * connections the send budget holds: once it is spent, a new request waits a bounded time and
 * is refused (503, Retry-After); a connection's own pipelined requests are not started while
 * its earlier answer is unsent; a connection that makes no write progress is destroyed; and
 * once the sockets are gone nothing is held. Method: the real Daemon and HTTP server in this
 * process on 127.0.0.1 (so that the ledger can be read), small limits, an object whose answer
 * is about 7 MiB (seven values of 1 MiB, as in the audit), and raw node:net sockets that send
 * GETs and never read (paused). Besides the ledger, the bytes Node itself holds unsent are
 * checked against the same bound: it is the figure that grew without limit. Every wait is
 * bounded (`until`: 5 s).
 */
import * as fs from "node:fs";
import type * as http from "node:http";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DirectoryNode } from "../../core/node/directory-node";
import { Daemon } from "../daemon/daemon";
import { createApp } from "./create-app";
import { listen } from "./http-server";
import type { ListeningServer } from "./http-server";
import { SendBudget } from "./send-budget";
import { mebibyte } from "./send-limits";
import type { SendLimits } from "./send-limits";

/** Three answers spend it (a paused loopback client's kernel buffers take ~4 MB of each). */
const limits: SendLimits = {
  budgetBytes: 20 * mebibyte,
  connectionBytesMax: mebibyte,
  budgetWaitMs: 300,
  stallMs: 60_000,
};

interface Served {
  readonly budget: SendBudget;
  readonly server: ListeningServer;
  /**
   * What Node holds unsent, all connections together: each socket's writableLength, plus the
   * answers queued behind another on their connection (pipelining), which hold their bytes in
   * the response until it gets the socket.
   */
  unsentBytes(): number;
}

let dataDir: string;
let daemon: Daemon;
let big: string;
/** The size of one answer with the object's body (its values, JSON, headers). */
let answerBytes: number;
const served: Served[] = [];
const clients: net.Socket[] = [];

async function serve(sendLimits: SendLimits): Promise<Served> {
  const budget = new SendBudget(sendLimits);
  const server = await listen(createApp(daemon, { sendBudget: budget }), "127.0.0.1", 0);
  const sockets = new Set<net.Socket>();
  const responses = new Set<http.ServerResponse>();
  server.server.on("connection", (socket: net.Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.server.on("request", (_req: http.IncomingMessage, res: http.ServerResponse) => {
    responses.add(res);
    res.once("close", () => responses.delete(res));
  });
  const unsentBytes = (): number => {
    let sum = 0;
    for (const socket of sockets) sum += socket.writableLength;
    for (const res of responses) if (res.socket === null) sum += res.writableLength;
    return sum;
  };
  const out = { budget, server, unsentBytes };
  served.push(out);
  return out;
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-send-budget-"));
  daemon = await Daemon.open({ dataDir, boot: "either", log: () => undefined });
  const root = daemon.read((node, nowMs) => node.root(nowMs));
  if (!root.ok) throw new Error(root.message);
  const values = [..."abcdefg"].map((v) => v.padEnd(mebibyte, "x"));
  const attributes = { description: values };
  const req = { parent: root.value.id, name: "big", className: "user", attributes };
  const created = await daemon.write((node, nowMs) => node.create(req, nowMs));
  if (!created.ok) throw new Error(created.message);
  big = created.value.id;
});

afterAll(async () => {
  for (const socket of clients) socket.destroy();
  for (const { server } of served) await server.close();
  await daemon?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** A client that sends `requests` GETs of the big object at once and never reads. */
function slowReader(port: number, requests = 1): net.Socket {
  const socket = net.connect(port, "127.0.0.1");
  socket.pause();
  socket.on("error", () => undefined);
  socket.write(`GET /api/objects/${big} HTTP/1.1\r\nHost: t\r\n\r\n`.repeat(requests));
  clients.push(socket);
  return socket;
}

/** A different payload for every GET after it, as the audit's writes between GETs made. */
async function touch(i: number): Promise<void> {
  const put = (node: DirectoryNode, nowMs: number) =>
    node.putAttribute(big, "displayName", [`v${i}`], nowMs);
  const done = await daemon.write(put);
  if (!done.ok) throw new Error(done.message);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls (bounded: 200 polls of 25 ms) until `probe` holds. */
async function until(what: string, probe: () => boolean): Promise<void> {
  for (let poll = 0; poll < 200; poll++) {
    if (probe()) return;
    await sleep(25);
  }
  throw new Error(`never within 5 s: ${what}`);
}

async function getBig(port: number): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}/api/objects/${big}`);
}

describe("the send budget", () => {
  it("holds across connections, refuses past it, frees all when clients go", async () => {
    const { budget, server, unsentBytes } = await serve({ ...limits, budgetWaitMs: 1_500 });
    const first = await getBig(server.port);
    expect(first.status).toBe(200);
    answerBytes = (await first.arrayBuffer()).byteLength + 1024;
    expect(answerBytes).toBeGreaterThan(7 * mebibyte);
    const bound = limits.budgetBytes + answerBytes;
    let heldMax = 0;
    let unsentMax = 0;
    const sample = (): void => {
      heldMax = Math.max(heldMax, budget.heldBytes);
      unsentMax = Math.max(unsentMax, unsentBytes());
    };
    const sampler = setInterval(sample, 5);
    try {
      // Three answers spend the budget, each a payload of its own (a write between GETs).
      const holding: net.Socket[] = [];
      for (let i = 1; i <= 3; i++) {
        await touch(i);
        holding.push(slowReader(server.port));
        await until(`answer ${i} unsent`, () => unsentBytes() >= i * 7 * mebibyte);
      }
      expect(unsentBytes()).toBeGreaterThanOrEqual(limits.budgetBytes);
      const spent = unsentBytes();
      // Six more wait for the budget; two clients leave, and all six wake at once: only the two
      // that fit are admitted (each charged before the next decides).
      for (let i = 0; i < 6; i++) slowReader(server.port);
      await sleep(100);
      expect(unsentBytes()).toBe(spent);
      expect(budget.heldBytes).toBeGreaterThanOrEqual(limits.budgetBytes);
      for (const socket of holding.slice(0, 2)) socket.destroy();
      await sleep(200);
      sample();
      expect(unsentBytes()).toBeGreaterThanOrEqual(limits.budgetBytes);
      // A client that does read is refused once its bounded wait is over.
      const refused = await getBig(server.port);
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("1");
      const body = (await refused.json()) as { error: string; message: string };
      expect(body.error).toBe("overloaded");
      expect(body.message).toMatch(/over the send budget/);
    } finally {
      clearInterval(sampler);
    }
    expect(heldMax).toBeLessThanOrEqual(bound);
    expect(unsentMax).toBeLessThanOrEqual(bound);
    for (const socket of clients.splice(0)) socket.destroy();
    await until("nothing held once the clients are gone", () => budget.heldBytes === 0);
    expect(unsentBytes()).toBe(0);
    expect((await getBig(server.port)).status).toBe(200);
  });

  it("does not start a connection's pipelined requests while its answer is unsent", async () => {
    const { budget, server, unsentBytes } = await serve(limits);
    const socket = slowReader(server.port, 4);
    await until("the first answer is unsent", () => unsentBytes() > 0);
    await sleep(200);
    // One answer built; the three behind it wait for the client to read.
    expect(unsentBytes()).toBeLessThanOrEqual(answerBytes);
    expect(budget.heldBytes).toBeLessThanOrEqual(answerBytes);
    const chunks: Buffer[] = [];
    let received = 0;
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
    });
    socket.resume();
    await until("four answers read", () => received >= 4 * (answerBytes - 1024));
    await until("nothing held once read", () => budget.heldBytes === 0);
    const statusLines = Buffer.concat(chunks).toString("latin1").match(/HTTP\/1\.1 200 OK\r\n/g);
    expect(statusLines?.length).toBe(4);
    socket.destroy();
    expect(unsentBytes()).toBe(0);
  });

  it("destroys a connection that makes no write progress", async () => {
    const { budget, server, unsentBytes } = await serve({ ...limits, stallMs: 400 });
    const startMs = Date.now();
    const socket = slowReader(server.port);
    await until("the answer is unsent", () => unsentBytes() > 0);
    await until("the stalled connection destroyed", () => unsentBytes() === 0);
    expect(Date.now() - startMs).toBeGreaterThanOrEqual(400);
    expect(budget.heldBytes).toBe(0);
    // A paused client learns of it once it reads again.
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.resume();
    await closed;
  });
});
