/**
 * Enrollment (SPEC "What the service does"): one `computer` object for the machine the daemon
 * runs on, under /Domain Controllers (the default home by convention), carrying the machine's
 * interlink endpoint and public key. All domain rules (name validity, syntaxes, placement)
 * stay in the core: this only chooses the inputs and calls `node.create`.
 */
import * as os from "node:os";
import type { Result } from "../../core/errors";
import type { Guid } from "../../core/guid";
import { validateObjectName } from "../../core/naming";
import type { DirectoryNode } from "../../core/node/directory-node";
import { machineKeyValue } from "./machine-key";
import type { MachineKey } from "./machine-key";

/** SPEC: the interlink endpoint a machine advertises when none is configured. */
export const defaultInterlink = "127.0.0.1:5390";

/** Where machine objects live by default (SPEC, by convention only). */
const machineHomePath = "/Domain Controllers";

/** Used when the host name cannot be made into a valid object name. */
const fallbackMachineName = "localhost";

export interface EnrollRequest {
  readonly key: MachineKey;
  readonly interlink: string;
  readonly hostName?: string;
}

export function enrollMachine(
  node: DirectoryNode,
  req: EnrollRequest,
  nowMs: number,
): Result<Guid> {
  const home = node.resolvePath(machineHomePath, nowMs);
  if (!home.ok) return home;
  const created = node.create(
    {
      parent: home.value.id,
      name: machineName(req.hostName ?? os.hostname()),
      className: "computer",
      attributes: {
        networkAddress: [req.interlink],
        machineKey: [machineKeyValue(req.key)],
      },
    },
    nowMs,
  );
  if (!created.ok) return created;
  return { ok: true, value: created.value.id };
}

/**
 * The host name made into a valid object name: characters a name may not hold (controls and
 * '/') become '-', surrounding whitespace goes. The core's validator has the last word.
 */
export function machineName(hostName: string): string {
  // eslint-disable-next-line no-control-regex
  const cleaned = hostName.replace(/[\u0000-\u001f\u007f-\u009f/]/g, "-").trim();
  const valid = validateObjectName(cleaned);
  return valid.ok ? valid.value : fallbackMachineName;
}
