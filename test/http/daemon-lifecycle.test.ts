/**
 * Goal: the daemon process and its CLI behave as an operator expects: acknowledged writes
 * survive a clean restart (SIGTERM, SIGINT: exit 0) and a crash (SIGKILL), the machine's
 * identity is stable across restarts, create-domain enrolls the machine (machine.key with
 * mode 0600) and refuses a directory that holds a domain, serve refuses a directory without
 * one unless --create-if-missing, --help works for the program and each command, and bad
 * flags exit 2; `--send-budget` bounds what clients that do not read hold; at SIGTERM, busy
 * keep-alive clients are told `shutting-down` and nothing acknowledged is lost. Method: real
 * child processes (`node --import tsx adapters/cli/canopy.ts`) on temp dirs and loopback
 * ports; state read back over HTTP and from the data directory.
 */
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { KeepAliveClient } from "../daemon/keep-alive-client";
import {
  cleanup,
  client,
  eventually,
  makeTempDir,
  runCli,
  sleep,
  startDaemon,
  valuesOf,
} from "./daemon-harness";

afterAll(async () => {
  await cleanup();
});

/** A loopback port that was free a moment ago (the OS picks it). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Waits (bounded, 5 s) until `done` holds: output a child wrote just before it exited. */
async function settled(done: () => boolean): Promise<void> {
  for (let waited = 0; waited < 5_000 && !done(); waited += 25) await sleep(25);
}

describe("restart persistence", () => {
  it("acknowledged writes and the node identity survive SIGTERM and a restart", async () => {
    const port = await freePort();
    const first = await startDaemon({ http: `127.0.0.1:${port}` });
    expect(first.url).toBe(`http://127.0.0.1:${port}`);
    const api = client(first.url);
    const people = await api.create(await api.idAt("/"), "People", "organizationalUnit");
    const bob = await api.create(people.id, "Bob, Jr.", "user", { email: ["bob@x.test"] });
    await api.put(`/api/objects/${bob.id}/attributes/givenName`, { values: ["Bob"] });
    const before = (await api.get("/api/node")).body;
    expect(first.output()).toMatch(/canopy: created domain canopy in \//);
    expect(await first.stop("SIGTERM")).toBe(0);
    expect(first.output()).toMatch(/SIGTERM, shutting down/);
    await settled(() => /canopy: stopped/.test(first.output()));
    expect(first.output()).toMatch(/canopy: stopped/);

    const second = await startDaemon({ dataDir: first.dataDir });
    expect(second.output()).toMatch(/canopy: booted domain canopy from \/.*\(no snapshot, \d+ log records replayed, \d+ entries/);
    expect(second.output()).not.toMatch(/did not shut down cleanly/);
    const again = client(second.url);
    const found = (await again.get("/api/path/People/Bob%2C%20Jr.")).body;
    expect(found.id).toBe(bob.id);
    expect(valuesOf(found, "email")).toEqual(["bob@x.test"]);
    expect(valuesOf(found, "givenName")).toEqual(["Bob"]);
    const after = (await again.get("/api/node")).body;
    expect(after.nodeId).toBe(before.nodeId);
    expect(after.machine).toEqual(before.machine);
    expect(after.usn).toBeGreaterThanOrEqual(before.usn);
    expect(after.boot).toMatchObject({ mode: "booted" });
    expect(after.boot.recordsReplayed + after.boot.snapshotEntries).toBeGreaterThan(0);
    expect(await second.stop("SIGINT")).toBe(0);
  });

  it("SIGTERM stops busy keep-alive clients at once (shutting-down or closed); every acknowledged write survives", async () => {
    const first = await startDaemon();
    const api = client(first.url);
    const lanes = 4;
    const ids: string[] = [];
    for (let lane = 0; lane < lanes; lane++) ids.push((await api.create(await api.idAt("/"), `lane${lane}`, "organizationalUnit")).id);
    const keepAlive = new KeepAliveClient(first.url, lanes);
    const acked = new Map<string, number>();
    const endings: string[] = [];
    const total = (): number => [...acked.values()].reduce((a, b) => a + b, 0);
    const lane = async (id: string): Promise<void> => {
      // Bounded: the daemon stops answering within its grace period after the signal.
      for (let n = 1; n <= 20_000; n++) {
        try {
          const r = await keepAlive.json("PUT", `/api/objects/${id}/attributes/description`, { values: [{ value: `v${n}` }] });
          if (r.status === 200) {
            acked.set(id, n);
            continue;
          }
          endings.push(`${r.status} ${r.body?.error}`);
        } catch (error) {
          endings.push(`transport ${(error as Error).message}`);
        }
        return;
      }
    };
    const running = ids.map(lane);
    for (let i = 0; i < 400 && total() < 200; i++) await new Promise((r) => setTimeout(r, 10));
    const ackedBefore = total();
    first.child.kill("SIGTERM");
    await Promise.all(running);
    keepAlive.close();
    expect(await first.exit(), first.output()).toBe(0);
    // Requests in flight when the signal lands are answered; after that each lane is told no
    // (503 shutting-down on its open connection, or its connection is closed and no new one
    // is accepted). Without draining, the lanes went on writing for the whole 5 s grace period
    // (thousands of acks) and were then cut mid-request.
    expect(total() - ackedBefore).toBeLessThan(100);
    // Never a reset: a request that reached an open connection was read and answered (a
    // connection closed between requests used to reset the request already on its way).
    for (const e of endings) expect(e).toMatch(/^(503 shutting-down|transport connect ECONNREFUSED)/u);
    const second = await startDaemon({ dataDir: first.dataDir });
    const again = client(second.url);
    for (const [id, n] of acked) {
      const values = valuesOf((await again.get(`/api/objects/${id}`)).body, "description") ?? [];
      expect(Number((values[0] ?? "v0").slice(1)), `lane ${id}`).toBeGreaterThanOrEqual(n);
    }
    expect(await second.stop("SIGTERM")).toBe(0);
  });

  it("an acknowledged write survives SIGKILL (ack after durable)", async () => {
    const first = await startDaemon();
    const api = client(first.url);
    const created = await api.create(await api.idAt("/"), "survivor", "organizationalUnit");
    expect(await first.stop("SIGKILL")).toBeNull();
    const second = await startDaemon({ dataDir: first.dataDir });
    expect(second.output()).toMatch(/the previous run \(process \d+\) did not shut down cleanly; its lock was taken over/);
    expect((await client(second.url).get("/api/path/survivor")).body.id).toBe(created.id);
    expect(await second.stop()).toBe(0);
  });

  it("a port in use is refused before anything is written to the data directory", async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as net.AddressInfo).port;
    const dir = path.join(makeTempDir(), "never");
    const run = await runCli(["serve", "--data", dir, "--create-if-missing", "--http", `127.0.0.1:${port}`]);
    await new Promise<void>((resolve) => taken.close(() => resolve()));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`--http 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
    expect(fs.existsSync(dir)).toBe(false);
  });

  it("keeps the data files its user's alone, and warns of a directory others can read", async () => {
    const dir = makeTempDir();
    fs.chmodSync(dir, 0o755);
    expect((await runCli(["create-domain", "--data", dir])).code).toBe(0);
    const daemon = await startDaemon({ dataDir: dir });
    expect(daemon.output()).toMatch(/WARNING: other users may read .*; the data directory holds every value in plain text/);
    const rotated = await fetch(`${daemon.url}/api/storage/rotate`, { method: "POST" });
    expect(rotated.status).toBe(200);
    await settled(() => fs.existsSync(path.join(dir, "snap")) && fs.readdirSync(path.join(dir, "snap")).some((n) => n.endsWith(".done")));
    for (const sub of ["wal", "snap"]) expect(fs.statSync(path.join(dir, sub)).mode & 0o777, sub).toBe(0o700);
    for (const name of fs.readdirSync(path.join(dir, "wal"))) {
      expect(fs.statSync(path.join(dir, "wal", name)).mode & 0o077, name).toBe(0);
    }
    expect(await daemon.stop()).toBe(0);
    fs.chmodSync(dir, 0o700);
    const quiet = await startDaemon({ dataDir: dir });
    expect(quiet.output()).not.toMatch(/WARNING/);
    expect(await quiet.stop()).toBe(0);
  });

  it("warns at start when this machine's own object was deleted", async () => {
    const first = await startDaemon();
    expect(first.output()).not.toMatch(/this machine's object/);
    const machine = (await client(first.url).get("/api/node")).body.machine.object as string;
    expect((await fetch(`${first.url}/api/objects/${machine}`, { method: "DELETE" })).status).toBe(204);
    expect(await first.stop()).toBe(0);
    const second = await startDaemon({ dataDir: first.dataDir });
    expect(second.output()).toMatch(new RegExp(`WARNING: this machine's object ${machine} is deleted; restore it`));
    expect(await second.stop(), second.output()).toBe(0);
  });

  it("a second daemon on the same data directory is refused", async () => {
    const first = await startDaemon();
    const run = await runCli(["serve", "--data", first.dataDir, "--http", "127.0.0.1:0"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/canopy: /);
    expect(await first.stop()).toBe(0);
  });
});

describe("create-domain", () => {
  it("mints a named domain, enrolls the machine, and refuses to run twice", async () => {
    const dir = path.join(makeTempDir(), "fresh");
    const flags = ["--name", "example.test", "--interlink", "[::1]:6000"];
    const made = await runCli(["create-domain", "--data", dir, ...flags]);
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/created domain example.test/);
    const keyFile = path.join(dir, "machine.key");
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    const key = JSON.parse(fs.readFileSync(keyFile, "utf8"));
    expect(key.publicKey).toMatch(/^[0-9a-f]{64}$/);
    expect(key.secretKey).toMatch(/^[0-9a-f]{64}$/);

    const again = await runCli(["create-domain", "--data", dir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already holds a domain/);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    // A damaged key file is named, and its content (the secret key) is not echoed.
    const good = fs.readFileSync(keyFile);
    fs.writeFileSync(keyFile, Buffer.concat([good.subarray(0, 40), Buffer.from([0xff, 0x00])]));
    const damaged = await runCli(["serve", "--data", dir, "--http", "127.0.0.1:0"]);
    expect(damaged.code).toBe(1);
    expect(damaged.stderr).toMatch(/machine\.key is not valid JSON/);
    expect(damaged.stderr).not.toContain(good.subarray(0, 40).toString("utf8").slice(2, 30));
    fs.writeFileSync(keyFile, good);

    const daemon = await startDaemon({ dataDir: dir });
    expect(daemon.domainName).toBe("example.test");
    const api = client(daemon.url);
    const node = (await api.get("/api/node")).body;
    expect(node.machine).toEqual({ object: key.object, machineKey: `x25519:${key.publicKey}` });
    const computer = (await api.get(`/api/objects/${key.object}`)).body;
    expect(valuesOf(computer, "networkAddress")).toEqual(["[::1]:6000"]);
    expect(computer.path.startsWith("/Domain Controllers/")).toBe(true);
    expect(await daemon.stop()).toBe(0);
  });

  it("a damaged first log record with whole records behind it is refused, never replaced by a new domain", async () => {
    const dir = path.join(makeTempDir(), "damaged");
    expect((await runCli(["create-domain", "--data", dir])).code).toBe(0);
    // A boot re-mints the invocation and commits it: a second record behind the creation batch.
    const daemon = await startDaemon({ dataDir: dir });
    expect(await daemon.stop()).toBe(0);
    const log = path.join(dir, "wal", fs.readdirSync(path.join(dir, "wal")).find((n) => n.endsWith(".log"))!);
    const bytes = fs.readFileSync(log);
    bytes[100] = (bytes[100] ?? 0) ^ 0xff;
    fs.writeFileSync(log, bytes);
    const run = await runCli(["serve", "--data", dir, "--create-if-missing", "--http", "127.0.0.1:0"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/damaged in its first record \(byte 0\).*whole, checksummed records follow it/);
    expect(run.stdout).not.toMatch(/serving domain/);
    // Left as it was: the records behind the damage can still be recovered from the file.
    expect(fs.readFileSync(log).equals(bytes)).toBe(true);
  });

  it("whole records cut behind a damaged log record are journaled, and the journal keeps saying so after a restart", async () => {
    // Before (storage audit, twenty-eighth session) only that boot's report and one log line
    // said acknowledged writes may be lost; a restart forgot it.
    const first = await startDaemon();
    const api = client(first.url);
    const root = await api.idAt("/");
    for (let i = 0; i < 8; i++) await api.create(root, `unit-${i}`, "organizationalUnit");
    expect(await first.stop()).toBe(0);
    const log = path.join(first.dataDir, "wal", "gen-000001.log");
    const bytes = fs.readFileSync(log);
    const at = bytes.indexOf("unit-3");
    expect(at).toBeGreaterThan(0);
    bytes[at] = bytes[at]! ^ 0xff;
    fs.writeFileSync(log, bytes);
    const cutLines = async (url: string) =>
      ((await client(url).get("/api/journal")).body as Array<{ kind: string; detail: string }>).filter(
        (r) => r.kind === "records-cut",
      );
    const second = await startDaemon({ dataDir: first.dataDir });
    expect(second.output()).toMatch(/WARNING: wal\/gen-000001\.log was damaged/);
    const lines = await cutLines(second.url);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.detail).toMatch(/^wal\/gen-000001\.log damaged at byte \d+: \d+ whole record\(s\) behind it cut \(seq \d+-\d+\)$/);
    expect((await client(second.url).get("/api/path/unit-7")).status).toBe(404);
    expect(await second.stop()).toBe(0);
    const third = await startDaemon({ dataDir: first.dataDir });
    expect(third.output()).not.toMatch(/WARNING/);
    expect(await cutLines(third.url)).toEqual(lines);
    expect(await third.stop()).toBe(0);
  });

  it("serve without --create-if-missing refuses a directory without a domain", async () => {
    const missing = await runCli(["serve", "--data", path.join(makeTempDir(), "absent")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/create-domain/);
    const foreign = makeTempDir();
    fs.writeFileSync(path.join(foreign, "notes.txt"), "someone else's");
    const empty = await runCli(["serve", "--data", foreign, "--http", "127.0.0.1:0"]);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/holds no domain/);
    // Refused before storage opened: nothing was written into a directory that is not Canopy's.
    expect(fs.readdirSync(foreign)).toEqual(["notes.txt"]);
    const file = path.join(foreign, "notes.txt");
    const notDir = await runCli(["serve", "--data", file, "--create-if-missing", "--http", "127.0.0.1:0"]);
    expect(notDir.code).toBe(1);
    expect(notDir.stderr).toMatch(/is not a directory/);
  });
});

describe("command line", () => {
  it("--help for the program and each command exits 0 with usage", async () => {
    for (const args of [["--help"], ["serve", "--help"], ["create-domain", "--help"]]) {
      const run = await runCli(args);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^usage: canopy/);
    }
  });

  it("bad flags exit 2 with a clear message", async () => {
    const cases: Array<[string[], RegExp]> = [
      [[], /no command/],
      [["frobnicate"], /unknown command/],
      [["serve"], /--data is required/],
      [["serve", "--data", "x", "--bogus"], /bogus/],
      [["serve", "--data", "x", "--http", "localhost"], /--http must be HOST:PORT/],
      [["serve", "--data", "x", "--http", "127.0.0.1:70000"], /--http/],
      [["serve", "--data", "x", "--gc-every", "1h"], /--gc-every must be a whole number of seconds/],
      [["serve", "--data", "x", "--gc-every", "-1"], /--gc-every/],
      [["serve", "--data", "x", "--send-budget", "0"], /--send-budget must be a whole number/],
      [["serve", "--data", "x", "--send-stall", "0"], /--send-stall must be 1 second or more/],
      [["create-domain", "--data", "x", "--interlink", "http://host"], /--interlink/],
      [["create-domain", "--data", "x", "--name", " padded"], /--name/],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(args);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toMatch(message);
    }
  });

  it("--send-budget bounds the answers held for clients that do not read", async () => {
    const daemon = await startDaemon({ extraArgs: ["--send-budget", "8"] });
    const api = client(daemon.url);
    const values = [..."abcdefg"].map((v) => v.padEnd(1024 * 1024, "x"));
    const big = await api.create(await api.idAt("/"), "big", "user", { description: values });
    const port = Number(new URL(daemon.url).port);
    const readers: net.Socket[] = [];
    try {
      // Two answers of 7 MiB that nobody reads spend a budget of 8 MiB.
      for (let i = 0; i < 2; i++) {
        const socket = net.connect(port, "127.0.0.1");
        socket.pause();
        socket.on("error", () => undefined);
        socket.write(`GET /api/objects/${big.id} HTTP/1.1\r\nHost: t\r\n\r\n`);
        readers.push(socket);
      }
      const refused = await eventually("a refusal once the budget is spent", async () => {
        const r = await api.get(`/api/objects/${big.id}`);
        return r.status === 503 ? r : null;
      });
      expect(refused.body.error).toBe("overloaded");
      expect(refused.body.message).toMatch(/over the send budget of 8\.0 MiB/);
    } finally {
      for (const socket of readers) socket.destroy();
    }
    expect((await api.get(`/api/objects/${big.id}`)).status).toBe(200);
    expect(await daemon.stop()).toBe(0);
  });
});
