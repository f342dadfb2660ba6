import { Daemon, defaultDomainName } from "../daemon/daemon";
import { defaultInterlink } from "../daemon/enroll-machine";
import { checkDomainName, checkInterlink, parseFlags, requireFlag } from "./cli-args";

export const createDomainUsage = `usage: canopy create-domain --data DIR [--name NAME]
                            [--interlink HOST:PORT]

Mints a new domain in DIR and enrolls this machine: an x25519 key pair in DIR/machine.key
(mode 0600) and one computer object under /Domain Controllers. Refuses if DIR already holds
a domain.

  --data DIR              data directory (created if missing)
  --name NAME             domain name, the root's bare name (default ${defaultDomainName})
  --interlink HOST:PORT   this machine's interlink endpoint (default ${defaultInterlink})
  --help                  this text`;

export async function createDomainCommand(args: readonly string[]): Promise<number> {
  const flags = parseFlags(args, {
    data: { type: "string" },
    name: { type: "string" },
    interlink: { type: "string" },
    help: { type: "boolean" },
  });
  if (flags.help === true) {
    console.log(createDomainUsage);
    return 0;
  }
  const dataDir = requireFlag("--data", flags.data);
  const daemon = await Daemon.open({
    dataDir,
    boot: "create",
    domainName: checkDomainName(flags.name ?? defaultDomainName),
    interlink: checkInterlink(flags.interlink ?? defaultInterlink),
  });
  const name = daemon.domainName;
  const machine = daemon.machine;
  await daemon.close();
  console.log(`canopy: created domain ${name} in ${dataDir} (machine object ${machine.object})`);
  return 0;
}
