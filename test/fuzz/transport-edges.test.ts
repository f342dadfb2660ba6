/**
 * Goal: requests that fail below the router still get the JSON error envelope and a 4xx, never
 * a bare status line or a 5xx: a request line beyond Node's header bound (431; no body after
 * HEAD, and none when the server cannot tell the method), bytes that are not HTTP (400), a
 * body that does not match its Content-Encoding (400; a body that does match is accepted),
 * and the daemon goes on serving afterwards. These are the fixed
 * counterexamples the request fuzzer (request-fuzzer.test.ts) found, kept as permanent cases.
 * Method: one real daemon child process; raw TCP for the unparseable request, the keep-alive
 * client for the rest.
 */
import * as net from "node:net";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanup, startDaemon } from "../http/daemon-harness";
import type { RunningDaemon } from "../http/daemon-harness";
import { KeepAliveClient } from "../daemon/keep-alive-client";
import type { RawResponse } from "../daemon/keep-alive-client";

let daemon: RunningDaemon;
let http: KeepAliveClient;

beforeAll(async () => {
  daemon = await startDaemon();
  http = new KeepAliveClient(daemon.url, 2);
});
afterAll(async () => {
  http?.close();
  await daemon?.stop();
  await cleanup();
});

function expectEnvelope(r: RawResponse, status: number, error: string): void {
  expect(r.status).toBe(status);
  expect(r.headers["content-type"]).toMatch(/^application\/json/);
  const body = JSON.parse(r.text);
  expect(body.error).toBe(error);
  expect(typeof body.message).toBe("string");
}

/** Sends raw bytes on a fresh connection and returns everything the server wrote (bounded). */
function rawExchange(bytes: string): Promise<string> {
  const url = new URL(daemon.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let answer = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer to ${JSON.stringify(bytes.slice(0, 40))} within 5 s`));
    }, 5_000);
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (answer += chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(answer);
    });
    socket.end(bytes);
  });
}

describe("compressed request bodies", () => {
  const create = async (encoding: string, body: string | Buffer): Promise<RawResponse> => {
    const root = JSON.parse((await http.request({ method: "GET", path: "/api/root" })).text);
    return http.request({
      method: "POST",
      path: `/api/objects/${root.id}/children`,
      headers: { "content-type": "application/json", "content-encoding": encoding },
      body,
    });
  };

  it("a body that does not decompress is 400 bad-request, not a 500", async () => {
    const json = JSON.stringify({ name: "plain", class: "organizationalUnit" });
    expectEnvelope(await create("gzip", json), 400, "bad-request");
    expectEnvelope(await create("deflate", json), 400, "bad-request");
    expectEnvelope(await create("br", json), 400, "bad-request");
    const truncated = gzipSync(json).subarray(0, 12);
    expectEnvelope(await create("gzip", truncated), 400, "bad-request");
    expect(daemon.output()).not.toMatch(/BUG/);
  });

  it("after a body abandoned half-read, the same connection serves on", async () => {
    // One socket, so that the next request must reuse the connection of the failed one.
    const single = new KeepAliveClient(daemon.url, 1);
    try {
      const root = JSON.parse((await single.request({ method: "GET", path: "/api/root" })).text);
      for (const encoding of ["deflate", "gzip", "br"]) {
        const failed = await single.request({
          method: "PUT",
          path: `/api/objects/${root.id}/attributes/description`,
          headers: { "content-type": "application/json", "content-encoding": encoding },
          body: "x".repeat(1024 * 1024),
        });
        expectEnvelope(failed, 400, "bad-request");
        const next = await single.request({ method: "GET", path: "/api/root" });
        expect(next.status).toBe(200);
      }
      // A small gzip body that inflates beyond the body bound is cut off mid-stream.
      const bomb = gzipSync(Buffer.alloc(9 * 1024 * 1024, 0x20));
      const padding = Buffer.from("x".repeat(512 * 1024));
      const cut = await single.request({
        method: "PUT",
        path: `/api/objects/${root.id}/attributes/description`,
        headers: { "content-type": "application/json", "content-encoding": "gzip" },
        body: Buffer.concat([bomb, padding]),
      });
      expectEnvelope(cut, 413, "payload-too-large");
      expect((await single.request({ method: "GET", path: "/api/root" })).status).toBe(200);
    } finally {
      single.close();
    }
  });

  it("gzip and brotli bodies that decompress are accepted", async () => {
    const gzipped = JSON.stringify({ name: "zipped", class: "organizationalUnit" });
    const r = await create("gzip", gzipSync(gzipped));
    expect(r.status).toBe(201);
    expect(JSON.parse(r.text).name).toBe("zipped");
    const brotli = JSON.stringify({ name: "brotli", class: "organizationalUnit" });
    expect((await create("br", brotliCompressSync(brotli))).status).toBe(201);
  });
});

describe("requests Node's parser rejects", () => {
  it("a request line beyond the header bound is 431 headers-too-large, JSON", async () => {
    // One write, so that the server's failing read starts with the method (see http-server.ts).
    const answer = await rawExchange(`GET /api/path/${"a".repeat(20_000)} HTTP/1.1\r\n\r\n`);
    const [head = "", body = ""] = answer.split("\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1\.1 431 /);
    expect(head).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(body)).toMatchObject({ error: "headers-too-large" });
    const header = { "x-padding": "p".repeat(20_000) };
    const r = await http.request({ method: "GET", path: "/api/root", headers: header });
    expect(r.status).toBe(431);
  });

  it("a HEAD with an overlong request line gets the status and headers, no body", async () => {
    const path = `/api/objects/${"a".repeat(20_000)}`;
    const head = await http.request({ method: "HEAD", path });
    expect(head.status).toBe(431);
    expect(head.text).toBe("");
    const answer = await rawExchange(`HEAD ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 [^]*\r\n\r\n$/);
  });

  it("bytes that are not HTTP get 400 bad-request in the envelope", async () => {
    const answer = await rawExchange("NOT HTTP AT ALL\r\n\r\n");
    const [head = "", body = ""] = answer.split("\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(body)).toMatchObject({ error: "bad-request" });
  });

  it("the daemon serves normally afterwards", async () => {
    const root = await http.request({ method: "GET", path: "/api/root" });
    expect(root.status).toBe(200);
    expect(JSON.parse(root.text).parent).toBeNull();
  });
});
