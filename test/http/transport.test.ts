/**
 * Goal: the HTTP layer never answers bad input with a 5xx or a non-JSON body, and the body
 * limit admits exactly what SPEC's value limit needs: bad JSON and envelope errors are
 * 400 bad-request, a non-JSON content type 415, a body beyond the bound 413, unknown routes
 * 404 not-found, a wrong method 405 (with Allow); a 1 MiB value (inclusive) is accepted even
 * in its worst JSON escaping, and 1 MiB + 1 byte is refused by the core (syntax-violation).
 * Method: one real daemon child process; raw fetch calls with hand-made bodies and headers.
 */
import * as http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { limits } from "../../core/limits";
import { call, cleanup, client, outcome, startDaemon, valuesOf } from "./daemon-harness";
import type { ApiResponse, Client, RunningDaemon } from "./daemon-harness";

let daemon: RunningDaemon;
let api: Client;
let alice: string;

beforeAll(async () => {
  daemon = await startDaemon();
  api = client(daemon.url);
  alice = (await api.create(await api.idAt("/"), "alice", "user")).id;
});
afterAll(async () => {
  await daemon?.stop();
  await cleanup();
});

function expectTransport(r: ApiResponse, status: number, error: string): void {
  expect(outcome(r)).toEqual({ status, error });
  expect(typeof r.body.message).toBe("string");
  expect(r.headers.get("content-type")).toMatch(/^application\/json/);
}

const raw = (method: string, path: string, body: string, type = "application/json") =>
  call(daemon.url, method, path, body, { "content-type": type });

describe("request bodies", () => {
  it("bad JSON is 400 bad-request", async () => {
    expectTransport(
      await raw("POST", `/api/objects/${alice}/children`, '{"name": "x",'),
      400,
      "bad-request",
    );
    expectTransport(
      await raw("PUT", `/api/objects/${alice}/attributes/description`, "nope"),
      400,
      "bad-request",
    );
  });

  it("envelope errors are 400 bad-request: missing or unknown fields, wrong shapes", async () => {
    const create = `/api/objects/${alice}/children`;
    expectTransport(await api.post(create, { name: "x" }), 400, "bad-request");
    const klass = await api.post(create, { name: "x", klass: "user" });
    expectTransport(klass, 400, "bad-request");
    expect(klass.body.message).toMatch(/class/);
    expectTransport(
      await api.post(create, { name: "x", class: "user", extra: 1 }),
      400,
      "bad-request",
    );
    expectTransport(
      await api.post(create, { name: "x", class: "user", attributes: { email: "a@x" } }),
      400,
      "bad-request",
    );
    expectTransport(await api.post(create, [1, 2]), 400, "bad-request");
    expectTransport(await raw("POST", create, '"just a string"'), 400, "bad-request");
    const put = `/api/objects/${alice}/attributes/description`;
    expectTransport(await api.put(put, { values: "x" }), 400, "bad-request");
    expectTransport(await api.put(put, { values: [], more: true }), 400, "bad-request");
    expectTransport(await api.put(put, { values: [["nested"]] }), 400, "bad-request");
    expectTransport(
      await api.put(put, { values: [{ value: "x", metadata: {} }] }),
      400,
      "bad-request",
    );
    expectTransport(await api.patch(`/api/objects/${alice}`, { rename: "x" }), 400, "bad-request");
    expectTransport(await api.post("/api/msgs/send", { to: "x" }), 400, "bad-request");
    expectTransport(await api.post("/api/msgs/send", { to: "x", text: 5 }), 400, "bad-request");
  });

  it("a body route without a body is 400; with a non-JSON type 415", async () => {
    expectTransport(await call(daemon.url, "PATCH", `/api/objects/${alice}`), 400, "bad-request");
    expectTransport(
      await raw("PATCH", `/api/objects/${alice}`, "name=x", "application/x-www-form-urlencoded"),
      415,
      "unsupported-media-type",
    );
    expectTransport(
      await raw("POST", "/api/msgs/send", "hello", "text/plain"),
      415,
      "unsupported-media-type",
    );
  });

  it("a body that is not valid UTF-8 is 400 bad-request and writes nothing; valid UTF-8 is kept byte for byte", async () => {
    const create = `/api/objects/${alice}/children`;
    const before = (await api.get(`/api/objects/${alice}/children`)).body as unknown[];
    const bad = (text: string, bytes: number[]) => {
      const [head, tail] = text.split("#") as [string, string];
      return new Uint8Array([...Buffer.from(head, "utf8"), ...bytes, ...Buffer.from(tail, "utf8")]);
    };
    // A lone 0xFF, a truncated 4-byte sequence (one U+FFFD of the same length), an encoded surrogate.
    for (const bytes of [[0xff], [0xf0, 0x9f, 0x98], [0xed, 0xa0, 0x80]]) {
      const body = bad('{"name":"bad#name","class":"organizationalUnit"}', bytes);
      const r = await call(daemon.url, "POST", create, body, { "content-type": "application/json" });
      expectTransport(r, 400, "bad-request");
      expect(r.body.message).toMatch(/UTF-8/);
    }
    expect(((await api.get(`/api/objects/${alice}/children`)).body as unknown[]).length).toBe(before.length);
    // Multi-byte characters and a literal U+FFFD sent as valid UTF-8 are stored as sent.
    const name = "Caf\u00e9 \u00df \ud83d\ude00 \ufffd";
    const made = await raw("POST", create, `{"name":"${name}","class":"organizationalUnit"}`);
    expect(made.status).toBe(201);
    expect((made.body as { name: string }).name).toBe("Caf\u00e9 \u00df \u{1F600} \ufffd");
    const direct = new Uint8Array(Buffer.from('{"name":"Straße ✓","class":"organizationalUnit"}', "utf8"));
    const kept = await call(daemon.url, "POST", create, direct, { "content-type": "application/json" });
    expect((kept.body as { name: string }).name).toBe("Straße ✓");
  });

  it("application/json with a charset parameter is JSON", async () => {
    const r = await raw("PATCH", `/api/objects/${alice}`, "{}", "application/json; charset=utf-8");
    expect(r.status).toBe(200);
  });

  it("any application/*+json type is read as JSON", async () => {
    const create = `/api/objects/${alice}/children`;
    for (const type of ["application/merge-patch+json", "application/vnd.canopy+json"]) {
      const body = JSON.stringify({ name: type.replace("/", "-"), class: "organizationalUnit" });
      const r = await raw("POST", create, body, type);
      expect({ type, status: r.status }).toEqual({ type, status: 201 });
    }
    expectTransport(await raw("POST", create, '{"name":', "application/merge-patch+json"), 400, "bad-request");
  });

  it("a body beyond the request bound is 413 JSON", async () => {
    const body = JSON.stringify({ values: ["x".repeat(limits.requestBodyBytesMax)] });
    expectTransport(
      await raw("PUT", `/api/objects/${alice}/attributes/description`, body),
      413,
      "payload-too-large",
    );
  });
});

describe("the 1 MiB value limit is inclusive", () => {
  const put = (values: string[]) =>
    api.put(`/api/objects/${alice}/attributes/description`, { values });

  it("accepts exactly 1 MiB and refuses 1 MiB + 1 byte", async () => {
    const ok = await put(["a".repeat(limits.valueBytesMax)]);
    expect(ok.status).toBe(200);
    expect(valuesOf(ok.body, "description")?.[0]?.length).toBe(limits.valueBytesMax);
    const refused = await put(["a".repeat(limits.valueBytesMax + 1)]);
    expect(outcome(refused)).toEqual({ status: 422, error: "syntax-violation" });
  });

  it("counts UTF-8 bytes, and fits the worst JSON escaping (six bytes per byte)", async () => {
    expect((await put(["é".repeat(limits.valueBytesMax / 2)])).status).toBe(200);
    const over = await put(["é".repeat(limits.valueBytesMax / 2) + "a"]);
    expect(over.body.error).toBe("syntax-violation");
    const escaped = "\u0001".repeat(limits.valueBytesMax);
    expect(JSON.stringify(escaped).length).toBeGreaterThan(6 * limits.valueBytesMax);
    expect((await put([escaped])).status).toBe(200);
  });
});

describe("routes and methods", () => {
  it("unknown routes are 404 not-found JSON", async () => {
    expectTransport(await api.get("/api/nope"), 404, "not-found");
    expectTransport(await api.get("/"), 404, "not-found");
    expectTransport(await api.get(`/api/objects/${alice}/bogus`), 404, "not-found");
    expectTransport(await api.post("/api/nope", { a: 1 }), 404, "not-found");
  });

  it("a wrong method on a known route is 405 JSON with Allow", async () => {
    const r = await api.del("/api/root");
    expectTransport(r, 405, "method-not-allowed");
    expect(r.headers.get("allow")).toMatch(/GET/);
    expectTransport(await api.put("/api/node", {}), 405, "method-not-allowed");
    expectTransport(await api.get("/api/gc"), 405, "method-not-allowed");
    expectTransport(await call(daemon.url, "PROPFIND", "/api/node"), 405, "method-not-allowed");
  });

  it("OPTIONS lists the methods in Allow with 204 and no body; an unmet Expect is 417 JSON", async () => {
    // 200 text/plain with an empty body, and Node's bare 417 (HTTP audit, twenty-seventh session).
    const options = await call(daemon.url, "OPTIONS", "/api/root");
    expect(options.status).toBe(204);
    expect(options.text).toBe("");
    expect(options.headers.get("allow")).toMatch(/GET/);
    const { port, hostname } = new URL(daemon.url);
    const expectation = await new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
      const req = http.request({ host: hostname, port, method: "GET", path: "/api/node", headers: { expect: "something" } }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"]), body }));
      });
      req.on("error", reject);
      req.end();
    });
    expect(expectation.status).toBe(417);
    expect(expectation.type).toMatch(/application\/json/);
    expect(JSON.parse(expectation.body)).toMatchObject({ error: "expectation-failed" });
  });

  it("malformed percent-encoding in a path is 400", async () => {
    expectTransport(await api.get("/api/path/%E0%A4%A"), 400, "bad-request");
  });

  it("HEAD on a read answers without a body", async () => {
    const r = await fetch(`${daemon.url}/api/node`, { method: "HEAD" });
    expect(r.status).toBe(200);
    expect(await r.text()).toBe("");
  });
});
