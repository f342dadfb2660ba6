/**
 * Goal: no request, however malformed, breaks the daemon or its data. Over thousands of
 * generated requests (random methods, ids, garbage and percent-encoded paths, very long
 * paths, content-type and content-encoding variants, random and valid-looking bodies with
 * random values, huge and deeply nested bodies) the daemon never answers 5xx, every error is
 * JSON `{error, message}`, no request hangs, and the daemon is alive at the end; then the
 * directory it leaves behind is still a consistent tree (tree-consistency.ts: parents and
 * children agree, caseless-unique sibling names, paths resolve to the same ids, references
 * and referencedBy agree), it shuts down cleanly, and a restart brings back the same tree.
 * Method: fast-check generates the request list from a seed (request-arbitraries.ts); one real
 * daemon serves it over keep-alive connections with bounded concurrency and a per-request
 * time bound. Ids that exist only at run time (the seeded tree, created objects) are drawn by
 * index from a pool, so replay (CANOPY_FUZZ_SEED=<seed>) sends the same requests, give or
 * take ids whose pool order depended on response timing. CANOPY_FUZZ_REQUESTS overrides the
 * request count for longer runs.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanup, startDaemon } from "../http/daemon-harness";
import type { RunningDaemon } from "../http/daemon-harness";
import { KeepAliveClient, RequestTimeout, TransportFailure } from "../daemon/keep-alive-client";
import type { RawRequest, RawResponse } from "../daemon/keep-alive-client";
import { seedFromEnv } from "../daemon/seeded";
import { knownMarker, requestArb } from "./request-arbitraries";
import type { BodySpec, PathPart, RequestSpec } from "./request-arbitraries";
import { checkTreeConsistency } from "./tree-consistency";

const seed = seedFromEnv("CANOPY_FUZZ_SEED");
const requestCount = Number(process.env["CANOPY_FUZZ_REQUESTS"] ?? 10_000);
const concurrency = 8;
/** Generous: a 9 MiB body takes a while on a loaded machine; a hang never ends. */
const requestTimeoutMs = 20_000;
const poolMax = 5_000;
const treeObjectsMax = 20_000;

let daemon: RunningDaemon;
let http: KeepAliveClient;
/** Ids requests can name: the seeded tree, some landmarks and definitions, then creations. */
const pool: string[] = [];

afterAll(async () => {
  http?.close();
  await cleanup();
});

async function must(method: string, path: string, body?: unknown): Promise<any> {
  const r = await http.json(method, path, body);
  if (r.status >= 300) throw new Error(`setup ${method} ${path}: ${r.status} ${r.text}`);
  return r.body;
}

/** A small tree with every kind of object and some references, plus landmarks in the pool. */
async function seedTree(): Promise<void> {
  const id = async (path: string): Promise<string> => (await must("GET", `/api/path${path}`)).id;
  const create = async (parent: string, body: unknown): Promise<string> =>
    (await must("POST", `/api/objects/${parent}/children`, body)).id;
  const root = await id("");
  const fuzz = await create(root, { name: "fuzz", class: "organizationalUnit" });
  const a = await create(fuzz, { name: "a", class: "organizationalUnit" });
  const b = await create(a, { name: "b", class: "organizationalUnit" });
  const users: string[] = [];
  const people = [[fuzz, "ann"], [a, "bob"], [b, "Straße"], [fuzz, "dan"]] as const;
  for (const [parent, name] of people) {
    const attributes = { email: [`${name}@fuzz.test`], givenName: [name], sid: [`S-1-${name}`] };
    users.push(await create(parent, { name, class: "user", attributes }));
  }
  const group = await create(fuzz, {
    name: "staff",
    class: "group",
    attributes: { member: users.slice(0, 3), description: ["staff"] },
  });
  const machine = await create(a, {
    name: "box",
    class: "computer",
    attributes: { networkAddress: ["box.fuzz.test:5390"] },
  });
  pool.push(fuzz, a, b, ...users, group, machine);
  // Top-level OUs too, so that one early DELETE of "fuzz" does not leave creates nowhere to go.
  for (let i = 0; i < 8; i++) {
    pool.push(await create(root, { name: `top ${i}`, class: "organizationalUnit" }));
  }
  for (const path of ["", "/Configuration", "/Configuration/Schema", "/LostAndFound"]) {
    pool.push(await id(path));
  }
  pool.push(await id("/Domain%20Controllers"));
  for (const def of ["description", "member", "user", "group", "person", "organizationalUnit"]) {
    pool.push(await id(`/Configuration/Schema/${def}`));
  }
}

/** Ids a recent-biased draw chooses among: the newest ones are the likeliest to be alive. */
const recentIds = 32;

/**
 * Odd draws pick among the newest ids (fresh objects, usually alive, grow deep subtrees);
 * even draws pick uniformly (landmarks, definitions, old and deleted objects).
 */
function poolId(part: { known: number; upper: boolean }): string {
  const n = part.known >> 1;
  const index =
    part.known % 2 === 1
      ? pool.length - 1 - (n % Math.min(pool.length, recentIds))
      : n % pool.length;
  const id = pool[index] ?? "";
  return part.upper ? id.toUpperCase() : id;
}

/** Replaces `{ $known: n }` markers by pool ids (own properties kept, `__proto__` included). */
function resolveMarkers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolveMarkers);
  if (typeof value !== "object" || value === null) return value;
  const keys = Object.keys(value);
  const marker = (value as Record<string, unknown>)[knownMarker];
  if (keys.length === 1 && keys[0] === knownMarker && typeof marker === "number") {
    return poolId({ known: marker, upper: false });
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveMarkers(v)]));
}

function renderBody(body: BodySpec): string {
  switch (body.kind) {
    case "json":
      return JSON.stringify(resolveMarkers(body.value)) ?? "null";
    case "raw":
      return body.text;
    case "huge":
      if (body.shape === "value") return JSON.stringify({ values: ["v".repeat(body.bytes)] });
      if (body.shape === "name") {
        return JSON.stringify({ name: "n".repeat(body.bytes), class: "user" });
      }
      return "r".repeat(body.bytes);
    case "deep":
      if (body.shape === "array") return "[".repeat(body.depth) + "]".repeat(body.depth);
      if (body.shape === "object") {
        return '{"a":'.repeat(body.depth) + "1" + "}".repeat(body.depth);
      }
      return `{"values":[${'{"value":'.repeat(body.depth)}"x"${"}".repeat(body.depth)}]}`;
  }
}

function renderRequest(spec: RequestSpec): RawRequest {
  const path = spec.path.map((p: PathPart) => (typeof p === "string" ? p : poolId(p))).join("");
  const base = { method: spec.method, path, headers: spec.headers, timeoutMs: requestTimeoutMs };
  return spec.body === null ? base : { ...base, body: renderBody(spec.body) };
}

function describeRequest(r: RawRequest): string {
  const body =
    r.body === undefined ? "" : ` body(${r.body.length}) ${String(r.body).slice(0, 300)}`;
  return `${r.method} ${r.path.slice(0, 300)} headers ${JSON.stringify(r.headers)}${body}`;
}

/** SPEC's own 5xx: a node without a fabric refuses machine-talk with 503 no-fabric. */
function specServerError(r: RawResponse): boolean {
  return r.status === 503 && /"error":"no-fabric"/.test(r.text);
}

/**
 * A request line too long for the parser, answered before the server could read the method:
 * status and headers only, since the request might have been a HEAD (adapters/http/
 * http-server.ts). Only possible when the line arrived in several reads.
 */
function unknownMethodOverflow(r: RawResponse): boolean {
  return r.status === 431 && r.text === "" && r.headers["content-length"] === "0";
}

/** What is wrong with an answer, or null. */
function judge(method: string, r: RawResponse): string | null {
  if (r.status >= 500 && !specServerError(r)) return `status ${r.status}: ${r.text.slice(0, 300)}`;
  const bodyless =
    method === "HEAD" || r.status === 204 || r.status === 304 || unknownMethodOverflow(r);
  if (r.status >= 400 && !bodyless) {
    if (!/^application\/json/.test(r.headers["content-type"] ?? "")) {
      const type = r.headers["content-type"];
      return `status ${r.status} with content-type ${type}: ${r.text.slice(0, 200)}`;
    }
    let parsed: any;
    try {
      parsed = JSON.parse(r.text);
    } catch {
      return `status ${r.status} with a body that is not JSON: ${r.text.slice(0, 200)}`;
    }
    if (typeof parsed?.error !== "string" || typeof parsed?.message !== "string") {
      return `status ${r.status} without {error, message}: ${r.text.slice(0, 200)}`;
    }
  }
  if (r.status < 300 && !bodyless && method !== "OPTIONS") {
    try {
      JSON.parse(r.text);
    } catch {
      return `status ${r.status} with a body that is not JSON: ${r.text.slice(0, 200)}`;
    }
  }
  return null;
}

interface RunStats {
  /** The slowest requests, slowest first (a stall shows up here before it becomes a hang). */
  readonly slowest: Array<{ ms: number; what: string }>;
  readonly statuses: Map<number, number>;
  readonly codes: Map<string, number>;
  created: number;
}

const slowestKept = 5;

function noteSlow(stats: RunStats, ms: number, index: number, request: RawRequest): void {
  const last = stats.slowest.at(-1);
  if (stats.slowest.length >= slowestKept && last !== undefined && last.ms >= ms) return;
  const what = `#${index} ${describeRequest(request).slice(0, 200)}`;
  stats.slowest.push({ ms: Math.round(ms), what });
  stats.slowest.sort((a, b) => b.ms - a.ms);
  stats.slowest.length = Math.min(stats.slowest.length, slowestKept);
}

function count<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

async function send(spec: RequestSpec, index: number, stats: RunStats, violations: string[]) {
  const request = renderRequest(spec);
  let response: RawResponse;
  const started = performance.now();
  try {
    response = await http.request(request);
    noteSlow(stats, performance.now() - started, index, request);
  } catch (error) {
    const after = error instanceof TransportFailure ? `, after ${error.previous}` : "";
    const what = error instanceof RequestTimeout ? "hang" : `transport error ${error}${after}`;
    violations.push(`#${index} ${what}: ${describeRequest(request)}`);
    return;
  }
  count(stats.statuses, response.status);
  const problem = judge(request.method, response);
  if (problem !== null) {
    violations.push(`#${index} ${problem}\n    request: ${describeRequest(request)}`);
    return;
  }
  if (response.status >= 400 && response.text !== "") {
    count(stats.codes, String(JSON.parse(response.text).error));
  }
  if (response.status === 201 && pool.length < poolMax) {
    const id = JSON.parse(response.text).id;
    if (typeof id === "string") {
      pool.push(id);
      stats.created += 1;
    }
  }
}

beforeAll(async () => {
  daemon = await startDaemon();
  http = new KeepAliveClient(daemon.url, concurrency);
  await seedTree();
});

describe("request fuzzer against one real daemon", () => {
  it("never 5xx, always the JSON envelope, no hang; the tree stays consistent", async () => {
    console.log(`request-fuzzer: seed ${seed} (replay: CANOPY_FUZZ_SEED=${seed})`);
    const specs = fc.sample(requestArb, { seed, numRuns: requestCount });
    const stats: RunStats = { slowest: [], statuses: new Map(), codes: new Map(), created: 0 };
    const violations: string[] = [];
    let next = 0;
    const started = performance.now();
    const workers = Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < specs.length; i = next++) {
        const spec = specs[i];
        if (spec !== undefined) await send(spec, i, stats, violations);
      }
    });
    await Promise.all(workers);
    const seconds = (performance.now() - started) / 1000;
    const statuses = [...stats.statuses].sort((x, y) => x[0] - y[0]);
    const codes = [...stats.codes].sort((x, y) => y[1] - x[1]);
    console.log(
      `request-fuzzer: seed ${seed}: ${specs.length} requests in ${seconds.toFixed(1)} s, ` +
        `${stats.created} objects created` +
        `\n  statuses ${JSON.stringify(Object.fromEntries(statuses))}` +
        `\n  error codes ${JSON.stringify(Object.fromEntries(codes))}` +
        `\n  slowest ${stats.slowest.map((x) => `${x.ms} ms ${x.what}`).join("\n          ")}`,
    );
    const shown = violations.slice(0, 20).join("\n");
    expect(violations.length, `seed ${seed}: ${violations.length} bad answers:\n${shown}`).toBe(0);

    // The daemon is alive, logged no bug, and its data is a consistent tree.
    expect(daemon.child.exitCode).toBeNull();
    expect(daemon.child.signalCode).toBeNull();
    expect((await http.json("GET", "/api/node")).status).toBe(200);
    expect(daemon.output()).not.toMatch(/BUG/);
    const tree = await checkTreeConsistency(http, treeObjectsMax);
    console.log(
      `request-fuzzer: tree: ${tree.objects} objects, ${tree.references} references, ` +
        `${tree.pathsResolved} paths resolved, ${tree.pathsSkipped} too long to ask for`,
    );
    const problems = tree.violations.slice(0, 30).join("\n");
    expect(tree.violations.length, `seed ${seed}: inconsistent tree:\n${problems}`).toBe(0);
    expect(tree.truncated).toBe(false);

    // It shuts down cleanly, and the same tree comes back from disk.
    http.close();
    expect(await daemon.stop("SIGTERM")).toBe(0);
    daemon = await startDaemon({ dataDir: daemon.dataDir });
    http = new KeepAliveClient(daemon.url, concurrency);
    const reloaded = await checkTreeConsistency(http, treeObjectsMax);
    expect(reloaded.violations).toEqual([]);
    expect(reloaded.listing).toEqual(tree.listing);
    expect(await daemon.stop("SIGTERM")).toBe(0);
  }, 180_000);
});
