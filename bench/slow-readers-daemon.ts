/**
 * The daemon half of bench/slow-readers.ts: the real Daemon and HTTP server in this process
 * (started with --expose-gc), answering the bench's commands on stdin with one JSON line of
 * figures on stdout: `mem` as it is, `gc` after a full collection, `idle` once background
 * snapshot rebuilds are done and after a full collection, `exit` to stop.
 */
import * as fs from "node:fs";
import type { Socket } from "node:net";
import * as readline from "node:readline";
import { Daemon } from "../adapters/daemon/daemon";
import { createApp } from "../adapters/http/create-app";
import { listen } from "../adapters/http/http-server";
import { SendBudget } from "../adapters/http/send-budget";

const dataDir = process.argv[2] ?? "";
const daemon = await Daemon.open({ dataDir, boot: "either", log: () => undefined });
const sendBudget = new SendBudget();
const server = await listen(createApp(daemon, { sendBudget }), "127.0.0.1", 0);
console.log(JSON.stringify({ port: server.port }));
const sockets = new Set<Socket>();
server.server.on("connection", (socket: Socket) => {
  sockets.add(socket);
  socket.once("close", () => sockets.delete(socket));
});

/** Bytes Node's server sockets have not yet handed to the kernel, all together. */
function unsentBytes(): number {
  let sum = 0;
  for (const socket of sockets) sum += socket.writableLength;
  return sum;
}

let unsentPeak = 0;
const sampler = setInterval(() => (unsentPeak = Math.max(unsentPeak, unsentBytes())), 10);

const mib = (n: number): number => Math.round((n / 1048576) * 10) / 10;

function figures(): Record<string, number> {
  const m = process.memoryUsage();
  const status = fs.readFileSync("/proc/self/status", "utf8");
  const peakRssKb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
  return {
    rssMiB: mib(m.rss),
    peakRssMiB: Math.round(peakRssKb / 102.4) / 10,
    heapUsedMiB: mib(m.heapUsed),
    heapTotalMiB: mib(m.heapTotal),
    externalMiB: mib(m.external),
    arrayBuffersMiB: mib(m.arrayBuffers),
    unsentMiB: mib(unsentBytes()),
    unsentPeakMiB: mib(unsentPeak),
    heldMiB: mib(sendBudget.heldBytes),
    sockets: sockets.size,
  };
}

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (line === "exit") {
    clearInterval(sampler);
    void server.close().then(() => daemon.close()).then(() => process.exit(0));
    return;
  }
  if (line === "idle") {
    // Background snapshot rebuilds (the writes rotated the log) hold buffers while they run.
    void daemon.whenStorageIdle().then(() => {
      gc();
      console.log(JSON.stringify(figures()));
    });
    return;
  }
  if (line === "gc") gc();
  console.log(JSON.stringify(figures()));
});
