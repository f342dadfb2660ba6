/**
 * Boot time and memory of a large directory. The data directory is built fast, in process:
 * the real Daemon driver (core node + group commit + DurableStore) takes creates in large
 * batches (thousands of writes applied in one turn share one commit), as a busy daemon would,
 * so the WAL, its rotations and the background snapshots are the daemon's own. Then
 * `canopy serve` is started on it as a child process and timed from spawn to its serving
 * line; its RSS (VmHWM peak, VmRSS now) is read from /proc/<pid>/status.
 *
 * Shape: OUs of 1,000 users each under /bench (users with givenName, surname, email and
 * description), so N objects is N/1,000 OUs.
 *
 * Usage: npx tsx bench/boot.ts [--quick] [--objects N] [--profile DIR]
 * Without --objects: 100,000 and 1,000,000 (--quick: 100,000 only). To iterate on one
 * directory: `--build DIR --objects N` builds and keeps it, `--data DIR` only boots it.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Daemon } from "../adapters/daemon/daemon";
import type { Figure } from "./figures";
import { isMain, printFigures, quickFlag } from "./figures";
import { serve } from "./serve";

const usersPerOu = 1_000;
/** Writes applied per turn (one group commit each) while building. */
const buildBatch = 5_000;
const serveTimeoutMs = 600_000;

export interface BuildReport {
  readonly objects: number;
  readonly seconds: number;
  readonly bytesOnDisk: number;
}

/** Creates `objects` objects (OUs and users) in a new domain at `dataDir`. */
export async function buildDirectory(dataDir: string, objects: number): Promise<BuildReport> {
  const started = performance.now();
  const daemon = await Daemon.open({ dataDir, boot: "create", log: () => undefined });
  const root = daemon.read((node, nowMs) => node.root(nowMs));
  if (!root.ok) throw new Error(`no root: ${root.message}`);
  const bench = await daemon.write((node, nowMs) =>
    node.create({ parent: root.value.id, name: "bench", className: "organizationalUnit" }, nowMs),
  );
  if (!bench.ok) throw new Error(`create /bench: ${bench.message}`);
  let made = 0;
  let ou = "";
  let inOu = usersPerOu;
  while (made < objects) {
    const pending: Array<Promise<{ ok: boolean; message?: string }>> = [];
    for (let i = 0; i < buildBatch && made < objects; i++, made++) {
      if (inOu >= usersPerOu) {
        // Daemon.write applies the create synchronously, so the OU's id is known at once and
        // its users can follow in the same turn.
        const name = `ou ${made}`;
        pending.push(
          daemon.write((node, nowMs) => {
            const created = node.create(
              { parent: bench.value.id, name, className: "organizationalUnit" },
              nowMs,
            );
            if (created.ok) ou = created.value.id;
            return created;
          }),
        );
        inOu = 0;
        continue;
      }
      const parent = ou;
      const n = made;
      pending.push(daemon.write((node, nowMs) => node.create(userRequest(parent, n), nowMs)));
      inOu += 1;
    }
    for (const result of await Promise.all(pending)) {
      if (!result.ok) throw new Error(`build failed: ${result.message}`);
    }
  }
  await daemon.whenStorageIdle();
  await daemon.close();
  const seconds = (performance.now() - started) / 1000;
  return { objects: made, seconds, bytesOnDisk: bytesUnder(dataDir) };
}

function userRequest(parent: string, n: number) {
  return {
    parent,
    name: `user ${n}`,
    className: "user",
    attributes: {
      givenName: [`Given${n}`],
      surname: [`Surname${n}`],
      email: [`user${n}@bench.test`],
      description: [`bench user number ${n}`],
    },
  };
}

function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return total;
}

export interface BootReport {
  readonly seconds: number;
  readonly peakRssMiB: number;
  readonly rssMiB: number;
  readonly boot: Record<string, unknown>;
}

/** Starts `canopy serve` on `dataDir`, times it to its serving line, reads RSS, stops it. */
export async function bootDaemon(dataDir: string, profileDir?: string): Promise<BootReport> {
  const daemon = await serve({
    dataDir,
    startTimeoutMs: serveTimeoutMs,
    ...(profileDir === undefined ? {} : { profileDir }),
  });
  try {
    const { peakMiB, nowMiB } = daemon.memory();
    const answer = await fetch(`${daemon.url}/api/node`);
    const node = (await answer.json()) as { boot: Record<string, unknown> };
    return { seconds: daemon.startSeconds, peakRssMiB: peakMiB, rssMiB: nowMiB, boot: node.boot };
  } finally {
    await daemon.stop();
  }
}

export async function benchBoot(options: {
  readonly quick: boolean;
  readonly sizes?: readonly number[];
  readonly profileDir?: string;
}): Promise<Figure[]> {
  const sizes = options.sizes ?? (options.quick ? [100_000] : [100_000, 1_000_000]);
  const figures: Figure[] = [];
  for (const objects of sizes) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-boot-"));
    try {
      const built = await buildDirectory(dataDir, objects);
      const mib = (built.bytesOnDisk / 2 ** 20).toFixed(0);
      const took = `${built.seconds.toFixed(1)} s (${mib} MiB on disk)`;
      console.error(`boot: built ${built.objects} objects in ${took}`);
      const booted = await bootDaemon(dataDir, options.profileDir);
      const big = objects >= 1_000_000;
      const report = booted.boot;
      const detail =
        `storage load ${report["totalMs"]} ms (snapshot ${report["snapshotEntries"]} entries, ` +
        `${report["recordsReplayed"]} WAL records replayed), ${mib} MiB on disk`;
      figures.push({
        name: `boot, ${objects.toLocaleString("en-US")} objects (spawn to serving)`,
        value: booted.seconds,
        unit: "s",
        target: big ? "< 30 s" : "",
        met: big ? booted.seconds < 30 : null,
        detail,
      });
      figures.push({
        name: `RSS after boot, ${objects.toLocaleString("en-US")} objects (peak / now)`,
        value: booted.peakRssMiB,
        unit: "MiB",
        target: big ? "≤ 2,048 MiB" : "",
        met: big ? booted.peakRssMiB <= 2048 : null,
        detail: `VmHWM ${booted.peakRssMiB.toFixed(0)} MiB, VmRSS ${booted.rssMiB.toFixed(0)} MiB`,
      });
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return figures;
}

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

if (isMain(import.meta.url)) {
  const objects = flag("--objects");
  const profileDir = flag("--profile");
  const buildInto = flag("--build");
  const bootFrom = flag("--data");
  if (buildInto !== undefined) {
    // Build only, into a directory that is kept (to boot it again and again with --data).
    const built = await buildDirectory(buildInto, Number(objects ?? 100_000));
    console.log(`built ${built.objects} objects in ${built.seconds.toFixed(1)} s at ${buildInto}`);
  } else if (bootFrom !== undefined) {
    const booted = await bootDaemon(bootFrom, profileDir);
    console.log(JSON.stringify(booted, null, 2));
  } else {
    const figures = await benchBoot({
      quick: quickFlag(process.argv),
      ...(objects === undefined ? {} : { sizes: [Number(objects)] }),
      ...(profileDir === undefined ? {} : { profileDir }),
    });
    printFigures(figures);
  }
}
