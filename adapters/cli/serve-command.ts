import * as net from "node:net";
import * as path from "node:path";
import { createApp } from "../http/create-app";
import { listen } from "../http/http-server";
import type { ListeningServer } from "../http/http-server";
import { SendBudget } from "../http/send-budget";
import { defaultSendLimits, mebibyte } from "../http/send-limits";
import type { SendLimits } from "../http/send-limits";
import { Daemon, defaultDomainName } from "../daemon/daemon";
import { defaultInterlink } from "../daemon/enroll-machine";
import { defaultGcEverySeconds } from "../daemon/gc-schedule";
import {
  checkDomainName,
  checkInterlink,
  parseFlags,
  parseMebibytes,
  parseSeconds,
  parseHostPort,
  requireFlag,
  UsageError,
} from "./cli-args";

export const defaultHttp = "127.0.0.1:7390";

const budgetMiB = defaultSendLimits.budgetBytes / mebibyte;
const budgetWaitSeconds = defaultSendLimits.budgetWaitMs / 1000;
const stallSeconds = defaultSendLimits.stallMs / 1000;

export const serveUsage = `usage: canopy serve --data DIR [--http HOST:PORT] [--create-if-missing]
                    [--name NAME] [--interlink HOST:PORT] [--gc-every SECONDS]
                    [--send-budget MIB] [--send-stall SECONDS]

Serves the domain held in DIR over the JSON API (SPEC) until SIGINT or SIGTERM, then stops
accepting, finishes pending commits, closes the store and exits 0.

  --data DIR              data directory
  --http HOST:PORT        API listen address (default ${defaultHttp}; port 0 picks a free one)
  --create-if-missing     mint the domain and enroll this machine when DIR holds none
  --name NAME             domain name when one is created (default ${defaultDomainName})
  --interlink HOST:PORT   interlink endpoint recorded on this machine's object when
                          it is enrolled (default ${defaultInterlink}); this version
                          carries no replication between daemons
  --gc-every SECONDS      local GC (hardening past timeUntilShred, purging past
                          maxTimeApart) at start and then every SECONDS
                          (default ${defaultGcEverySeconds}); 0: only on POST /api/gc
  --send-budget MIB       answer bytes held for clients that read slowly, all connections
                          together (default ${budgetMiB}); past it a request waits up to
                          ${budgetWaitSeconds} s for them to drain, then is refused with 503
  --send-stall SECONDS    a connection holding answer bytes that makes no write progress
                          for SECONDS is closed (default ${stallSeconds})
  --help                  this text`;

export async function serveCommand(args: readonly string[]): Promise<number> {
  const flags = parseFlags(args, {
    data: { type: "string" },
    http: { type: "string" },
    "create-if-missing": { type: "boolean" },
    name: { type: "string" },
    interlink: { type: "string" },
    "gc-every": { type: "string" },
    "send-budget": { type: "string" },
    "send-stall": { type: "string" },
    help: { type: "boolean" },
  });
  if (flags.help === true) {
    console.log(serveUsage);
    return 0;
  }
  const dataDir = requireFlag("--data", flags.data);
  const bind = parseHostPort("--http", flags.http ?? defaultHttp);
  const gcEverySeconds = parseSeconds("--gc-every", flags["gc-every"] ?? String(defaultGcEverySeconds));
  const sendBudget = new SendBudget(sendLimits(flags["send-budget"], flags["send-stall"]));
  // A port in use is found before storage opens: a refused start used to mint the domain (or
  // re-mint the invocation and append a record) and only then fail to listen.
  await probeListen(bind.host, bind.port);
  // Every file the daemon's process makes is the owner's alone, LevelDB's too (it opens its
  // files with the process umask, 0644 under the usual 022; HTTP audit, twenty-seventh
  // session).
  process.umask(0o077);
  const daemon = await Daemon.open({
    dataDir,
    boot: flags["create-if-missing"] === true ? "either" : "existing",
    domainName: checkDomainName(flags.name ?? defaultDomainName),
    interlink: checkInterlink(flags.interlink ?? defaultInterlink),
    gcEveryMs: gcEverySeconds * 1000,
  });
  let server: ListeningServer;
  try {
    server = await listen(createApp(daemon, { sendBudget }), bind.host, bind.port);
  } catch (error) {
    await daemon.close();
    // getaddrinfo ENOTFOUND, EADDRINUSE, EACCES...: say which flag it was about.
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`--http ${bind.host}:${bind.port}: ${message}`);
  }
  const hostText = server.host.includes(":") ? `[${server.host}]` : server.host;
  const url = `http://${hostText}:${server.port}`;
  console.log(`canopy: serving domain ${daemon.domainName} at ${url} (data ${path.resolve(dataDir)})`);
  return waitForSignal(server, daemon);
}

function sendLimits(budget: string | undefined, stall: string | undefined): SendLimits {
  const mib = budget === undefined ? null : parseMebibytes("--send-budget", budget);
  const seconds = stall === undefined ? null : parseSeconds("--send-stall", stall);
  if (seconds === 0) throw new UsageError("--send-stall must be 1 second or more");
  return {
    ...defaultSendLimits,
    ...(mib === null ? {} : { budgetBytes: mib * mebibyte }),
    ...(seconds === null ? {} : { stallMs: seconds * 1000 }),
  };
}

/** Resolves with the exit code once a signal has shut everything down in order. */
function waitForSignal(server: ListeningServer, daemon: Daemon): Promise<number> {
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals): void => {
      if (stopping) {
        // A second signal means "now": skip the orderly path.
        console.error(`canopy: ${signal} again, exiting without a clean shutdown`);
        process.exit(1);
      }
      stopping = true;
      console.error(`canopy: ${signal}, shutting down`);
      void server
        .close()
        .then(() => daemon.close())
        .then(
          () => {
            console.error("canopy: stopped");
            resolve(0);
          },
          (error: unknown) => {
            console.error(`canopy: shutdown failed: ${String(error)}`);
            resolve(1);
          },
        );
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

/**
 * Binds `host:port` and lets it go at once: the listen errors (EADDRINUSE, EACCES, ENOTFOUND)
 * before anything is written to the data directory. The real listen after the boot still
 * reports a port taken in between. Port 0 is any free port: nothing to check.
 */
async function probeListen(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = net.createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once("error", reject);
      probe.listen({ host, port, exclusive: true }, () => resolve());
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`--http ${host}:${port}: ${message}`);
  }
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}
