#!/usr/bin/env -S npx tsx
/**
 * The canopy command: `create-domain` mints a domain and enrolls this machine, `serve` runs
 * the daemon. Exit codes: 0 success, 1 failure at run time (no domain, port taken, storage),
 * 2 bad command-line use.
 */
import { readFile } from "node:fs/promises";
import { DaemonBootError } from "../daemon/daemon";
import { UsageError, exitFailure, exitUsage } from "./cli-args";
import { createDomainCommand } from "./create-domain-command";
import { serveCommand } from "./serve-command";

const programUsage = `usage: canopy <command> [flags]

Canopy, a replicated directory service.

commands:
  version         print the version (also --version)
  create-domain   mint a new domain in a data directory and enroll this machine
  serve           serve a domain's JSON API over HTTP

Run "canopy <command> --help" for a command's flags.`;

const commands: Record<string, (args: readonly string[]) => Promise<number>> = {
  "create-domain": createDomainCommand,
  serve: serveCommand,
};

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "--help" || command === "-h" || command === "help") {
    console.log(programUsage);
    return 0;
  }
  if (command === "--version" || command === "-v" || command === "version") {
    console.log(`canopy ${await packageVersion()}`);
    return 0;
  }
  const run = command === undefined ? undefined : commands[command];
  if (run === undefined) {
    const given = `unknown command ${JSON.stringify(command)}`;
    throw new UsageError(command === undefined ? "no command given" : given);
  }
  return run(rest);
}

/** The version in package.json, read from beside this file. */
async function packageVersion(): Promise<string> {
  const file = new URL("../../package.json", import.meta.url);
  const text = await readFile(file, "utf8");
  const version: unknown = (JSON.parse(text) as { version?: unknown }).version;
  return typeof version === "string" ? version : "unknown";
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`canopy: ${error.message}\n(run "canopy --help" for usage)`);
      process.exit(exitUsage);
    }
    if (error instanceof DaemonBootError) {
      console.error(`canopy: ${error.message}`);
      process.exit(exitFailure);
    }
    const detail = error instanceof Error ? error.message : String(error);
    console.error(`canopy: ${detail}`);
    process.exit(exitFailure);
  },
);
