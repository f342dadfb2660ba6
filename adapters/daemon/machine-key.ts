/**
 * The machine's x25519 identity (DESIGN "Fabric"): a tweetnacl box key pair whose public half
 * is the `machineKey` of this machine's computer object. The secret half never leaves
 * DATA/machine.key (mode 0600). The file also remembers the computer object's GUID, because
 * nothing in the directory says which computer object is "this" machine.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import nacl from "tweetnacl";
import { parseGuid } from "../../core/guid";
import type { Guid } from "../../core/guid";

export const machineKeyFile = "machine.key";

export interface MachineKey {
  /** 64 lowercase hex characters (32 bytes). */
  readonly publicKey: string;
  readonly secretKey: string;
  /** The computer object enrolled for this machine; null until enrollment minted it. */
  readonly object: Guid | null;
}

const hexKeyPattern = /^[0-9a-f]{64}$/;

export function generateMachineKey(): MachineKey {
  const pair = nacl.box.keyPair();
  return { publicKey: toHex(pair.publicKey), secretKey: toHex(pair.secretKey), object: null };
}

/** The `publicKey` syntax rendering of the key, as stored in `machineKey`. */
export function machineKeyValue(key: MachineKey): string {
  return `x25519:${key.publicKey}`;
}

/** Reads DATA/machine.key; null when absent. A malformed file is an error, never ignored. */
export function readMachineKey(dataDir: string): MachineKey | null {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dataDir, machineKeyFile), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // The parser's message would quote the file, secret key included.
    throw new Error(`${machineKeyFile} is not valid JSON (damaged? restore it from a backup)`);
  }
  if (typeof parsed !== "object" || parsed === null) {
    throw new Error(`${machineKeyFile} is not a JSON object (damaged? restore it from a backup)`);
  }
  const { publicKey, secretKey, object } = parsed as Partial<Record<keyof MachineKey, unknown>>;
  if (typeof publicKey !== "string" || !hexKeyPattern.test(publicKey)) {
    throw new Error(`${machineKeyFile}: publicKey is not 64 lowercase hex characters`);
  }
  if (typeof secretKey !== "string" || !hexKeyPattern.test(secretKey)) {
    throw new Error(`${machineKeyFile}: secretKey is not 64 lowercase hex characters`);
  }
  const derived = toHex(nacl.box.keyPair.fromSecretKey(fromHex(secretKey)).publicKey);
  if (derived !== publicKey) {
    throw new Error(`${machineKeyFile}: publicKey does not match secretKey`);
  }
  const guid = typeof object === "string" ? parseGuid(object) : null;
  return { publicKey, secretKey, object: guid };
}

/**
 * Writes DATA/machine.key durably (temp file, fsync, rename, directory fsync), created with
 * mode 0600 so the secret is never readable by others, not even for an instant.
 */
export function writeMachineKey(dataDir: string, key: MachineKey): void {
  const target = path.join(dataDir, machineKeyFile);
  const temp = `${target}.tmp`;
  fs.rmSync(temp, { force: true });
  const fd = fs.openSync(temp, "wx", 0o600);
  try {
    fs.writeFileSync(fd, JSON.stringify(key, null, 2) + "\n");
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, target);
  const dirFd = fs.openSync(dataDir, "r");
  try {
    fs.fsyncSync(dirFd);
  } finally {
    fs.closeSync(dirFd);
  }
}

function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex");
}

function fromHex(hex: string): Uint8Array {
  return new Uint8Array(Buffer.from(hex, "hex"));
}
