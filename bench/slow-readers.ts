/**
 * Slow readers (concurrency audit): N clients each GET a large object (7 values of 1 MiB, an
 * answer of 7 MiB) on a raw socket and never read the answer, with a write between GETs so
 * that every answer is a payload of its own; then the sockets are destroyed. Prints, at each
 * step, the daemon's memory (RSS and its peak, V8 heap, external and ArrayBuffer memory), the
 * bytes its sockets have not handed to the kernel (now and at peak) and the send budget's
 * ledger, before and after a full GC, and the statuses of the writes between GETs (a 503 is
 * the send budget's refusal). The daemon runs in a child process (slow-readers-daemon.ts) with
 * the default send limits.
 * Usage: npx tsx bench/slow-readers.ts [--clients 100] [--values 7] [--read] [--no-writes]
 * (--read: the clients read their answers; --no-writes: no write between GETs)
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import * as readline from "node:readline";
import { parseArgs } from "node:util";
import { repoRoot } from "../test/http/daemon-harness";

const { values: flags } = parseArgs({
  options: {
    clients: { type: "string" },
    values: { type: "string" },
    read: { type: "boolean" },
    "no-writes": { type: "boolean" },
  },
});
const clients = Number(flags.clients ?? 100);
const valueCount = Number(flags.values ?? 7);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "canopy-slow-"));
const daemonScript = path.join(repoRoot, "bench/slow-readers-daemon.ts");
const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", daemonScript, dataDir], {
  cwd: repoRoot,
  stdio: ["pipe", "pipe", "inherit"],
});
const replies = readline.createInterface({ input: child.stdout });
const pending: Array<(line: string) => void> = [];
replies.on("line", (line) => pending.shift()?.(line));
const nextLine = (): Promise<string> => new Promise((resolve) => pending.push(resolve));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function report(step: string, command: string): Promise<void> {
  const line = nextLine();
  child.stdin.write(`${command}\n`);
  console.log(step.padEnd(12), await line);
}

const { port } = JSON.parse(await nextLine()) as { port: number };
const base = `http://127.0.0.1:${port}`;
const root = ((await (await fetch(`${base}/api/path`)).json()) as { id: string }).id;
const values = Array.from({ length: valueCount }, (_, i) => `${i}`.padEnd(1024 * 1024, "x"));
const created = await fetch(`${base}/api/objects/${root}/children`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ name: "big", class: "user", attributes: { description: values } }),
});
const big = ((await created.json()) as { id: string }).id;
await report("start", "mem");

const sockets: net.Socket[] = [];
const writeStatuses = new Map<number, number>();
const startedMs = Date.now();
for (let i = 0; i < clients; i++) {
  const socket = net.connect(port, "127.0.0.1");
  if (flags.read === true) socket.resume();
  else socket.pause();
  socket.on("error", () => undefined);
  socket.write(`GET /api/objects/${big} HTTP/1.1\r\nHost: x\r\n\r\n`);
  sockets.push(socket);
  if (flags["no-writes"] === true) continue;
  const put = await fetch(`${base}/api/objects/${big}/attributes/displayName`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ values: [`v${i}`] }),
  });
  await put.arrayBuffer();
  writeStatuses.set(put.status, (writeStatuses.get(put.status) ?? 0) + 1);
}
await sleep(1000);
const seconds = ((Date.now() - startedMs) / 1000).toFixed(1);
console.log("writes".padEnd(12), JSON.stringify(Object.fromEntries(writeStatuses)), `${seconds} s`);
await report("held", "mem");
for (const socket of sockets) socket.destroy();
await sleep(2000);
await report("closed", "mem");
await report("closed+gc", "gc");
await report("idle+gc", "idle");
await sleep(5000);
await report("idle+5s+gc", "gc");
child.stdin.write("exit\n");
await new Promise((resolve) => child.once("exit", resolve));
fs.rmSync(dataDir, { recursive: true, force: true });
