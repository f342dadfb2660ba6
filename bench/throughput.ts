/**
 * Throughput of the real daemon over loopback HTTP, each figure with keep-alive connections
 * that carry one request at a time (bench/load-client.ts): durable creates/s with 1 and 32
 * clients, attribute writes/s with 32, GET object/s with 32, and listings/s of a 1,000-child
 * OU with 32. One daemon (the real `canopy serve` child process) on a data directory on the
 * machine's disk (os.tmpdir(), ext4 here); every write is acknowledged only after its
 * fdatasync, so the write figures are durable writes.
 *
 * Usage: npx tsx bench/throughput.ts [--quick] [--only PHASE] [--profile DIR]
 * --quick: 2 s per figure instead of 10 s. --profile DIR: the daemon runs with --cpu-prof and
 * writes its profile to DIR when it exits (open it in Chrome DevTools, or summarise it with
 * bench/profile-summary.ts). --only creates1|creates32|writes|reads|listings: one figure.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { KeepAliveClient } from "../test/daemon/keep-alive-client";
import type { Figure } from "./figures";
import { isMain, printFigures, quickFlag } from "./figures";
import { fsyncRate } from "./disk";
import { runLoad } from "./load-client";
import type { LoadRequest, LoadResult } from "./load-client";
import { serve } from "./serve";

export interface ThroughputOptions {
  readonly quick: boolean;
  readonly profileDir?: string;
  /** Measure one figure only (profiling one workload at a time). */
  readonly only?: Phase;
}

const manyClients = 32;
/** Objects the attribute writes and GETs spread over, and the children of the listed OU. */
const targetCount = 1_000;
const listedChildren = 1_000;

interface Setup {
  readonly createOus: string[];
  readonly targets: string[];
  readonly listed: string;
}

/**
 * Parents for creates (one OU per connection), write/read targets, the 1,000-child OU. Only
 * what the measured figures need is made, so that a profile of one figure is not dominated
 * by the setup's creates.
 */
async function setUp(url: string, needs: { targets: boolean; listed: boolean }): Promise<Setup> {
  const http = new KeepAliveClient(url, 8);
  const create = async (parent: string, body: unknown): Promise<string> => {
    const r = await http.json("POST", `/api/objects/${parent}/children`, body);
    if (r.status !== 201) throw new Error(`setup create: ${r.status} ${r.text}`);
    return String(r.body.id);
  };
  const root = String((await http.json("GET", "/api/root")).body.id);
  const bench = await create(root, { name: "bench", class: "organizationalUnit" });
  const createOus: string[] = [];
  for (let i = 0; i < manyClients; i++) {
    createOus.push(await create(bench, { name: `creates ${i}`, class: "organizationalUnit" }));
  }
  const people = await create(bench, { name: "targets", class: "organizationalUnit" });
  const listed = await create(bench, { name: "listed", class: "organizationalUnit" });
  const targets: string[] = [];
  const targetsMade = needs.targets ? targetCount : 0;
  const childrenMade = needs.listed ? listedChildren : 0;
  // Eight at a time: setup is not measured, but need not be slow either.
  for (let i = 0; i < Math.max(targetsMade, childrenMade); i += 8) {
    const batch = Array.from({ length: 8 }, async (_, k) => {
      const n = i + k;
      if (n < targetsMade) targets.push(await create(people, user(`target ${n}`, n)));
      if (n < childrenMade) await create(listed, user(`child ${n}`, n));
    });
    await Promise.all(batch);
  }
  http.close();
  return { createOus, targets, listed };
}

function user(name: string, n: number): unknown {
  return {
    name,
    class: "user",
    attributes: {
      givenName: [`Given${n}`],
      surname: [`Surname${n}`],
      email: [`user${n}@bench.test`],
      description: [`bench user ${n}`],
    },
  };
}

async function measure(
  url: string,
  options: ThroughputOptions,
  connections: number,
  expectStatus: number,
  next: (connection: number, n: number) => LoadRequest,
): Promise<LoadResult & { diskSyncsPerSecond: number }> {
  const durationMs = options.quick ? 2_000 : 10_000;
  // A short warm-up (JIT, connection setup) whose figures are dropped.
  await runLoad({ url, connections, durationMs: durationMs / 5, expectStatus, next });
  // The disk of a shared VM varies by an order of magnitude from minute to minute: each
  // figure carries the fdatasync rate measured just before it.
  const disk = fsyncRate(500).perSecond;
  const result = await runLoad({ url, connections, durationMs, expectStatus, next });
  if (result.errors > 0) {
    throw new Error(`${result.errors} unexpected answers: ${result.firstError}`);
  }
  return { ...result, diskSyncsPerSecond: disk };
}

function figure(
  name: string,
  r: LoadResult & { diskSyncsPerSecond: number },
  target: number,
): Figure {
  const load = os.loadavg()[0]?.toFixed(1) ?? "?";
  const disk = Math.round(r.diskSyncsPerSecond);
  const detail =
    `${r.connections} conn, ${r.requests} req in ${r.seconds.toFixed(1)} s, ` +
    `p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms; ` +
    `disk ${disk} fdatasync/s, load avg ${load}, client ${r.clientCores.toFixed(2)} cores`;
  return {
    name,
    value: r.perSecond,
    unit: "/s",
    target: `≥ ${target.toLocaleString("en-US")}/s`,
    met: r.perSecond >= target,
    detail,
  };
}

/** The figures, by the name `--only` takes. */
const phases = ["creates1", "creates32", "writes", "reads", "listings"] as const;
export type Phase = (typeof phases)[number];

export async function benchThroughput(options: ThroughputOptions): Promise<Figure[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-bench-"));
  const daemon = await serve({
    dataDir,
    createIfMissing: true,
    ...(options.profileDir === undefined ? {} : { profileDir: options.profileDir }),
  });
  try {
    const wanted = (phase: Phase): boolean => options.only === undefined || options.only === phase;
    const setup = await setUp(daemon.url, {
      targets: wanted("writes") || wanted("reads"),
      listed: wanted("listings"),
    });
    const url = daemon.url;
    const figures: Figure[] = [];
    // Names must be unique across warm-ups and runs: one counter for all creates.
    let created = 0;
    const createIn = (connection: number, n: number): LoadRequest => ({
      method: "POST",
      path: `/api/objects/${setup.createOus[connection]}/children`,
      body: JSON.stringify(user(`u${created++}`, n)),
    });
    if (wanted("creates1")) {
      const one = await measure(url, options, 1, 201, createIn);
      figures.push(figure("durable creates, 1 client", one, 2_000));
    }
    if (wanted("creates32")) {
      const many = await measure(url, options, manyClients, 201, createIn);
      figures.push(figure("durable creates, 32 clients", many, 5_000));
    }
    const target = (connection: number, n: number): string =>
      `/api/objects/${setup.targets[(connection * 31 + n) % targetCount]}`;
    if (wanted("writes")) {
      // Values unique per write: an unchanged value would be a no-op without an fsync. The
      // attribute is single-valued (an LDAP modify-replace): rewriting a multi-valued one
      // leaves one absence residue per replaced value, and the record grows with every write.
      let written = 0;
      const writes = await measure(url, options, manyClients, 200, (connection, n) => ({
        method: "PUT",
        path: `${target(connection, n)}/attributes/displayName`,
        body: JSON.stringify({ values: [`w ${written++}`] }),
      }));
      figures.push(figure("attribute writes, 32 clients", writes, 5_000));
    }
    if (wanted("reads")) {
      const reads = await measure(url, options, manyClients, 200, (connection, n) => ({
        method: "GET",
        path: target(connection, n),
      }));
      figures.push(figure("GET object, 32 clients", reads, 12_000));
    }
    if (wanted("listings")) {
      const listings = await measure(url, options, manyClients, 200, () => ({
        method: "GET",
        path: `/api/objects/${setup.listed}/children`,
      }));
      figures.push(figure("listings of a 1,000-child OU, 32 clients", listings, 300));
    }
    const objects = 70 + setup.targets.length + created;
    const peak = daemon.memory().peakMiB.toFixed(0);
    console.error(`throughput: daemon peak RSS ${peak} MiB after ~${objects} objects`);
    return figures;
  } finally {
    await daemon.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  const flag = (name: string): string | undefined => {
    const at = process.argv.indexOf(name);
    return at >= 0 ? process.argv[at + 1] : undefined;
  };
  const profileDir = flag("--profile");
  const only = flag("--only");
  if (only !== undefined && !(phases as readonly string[]).includes(only)) {
    throw new Error(`--only takes one of ${phases.join(", ")}`);
  }
  const figures = await benchThroughput({
    quick: quickFlag(process.argv),
    ...(profileDir === undefined ? {} : { profileDir }),
    ...(only === undefined ? {} : { only: only as Phase }),
  });
  printFigures(figures);
}
