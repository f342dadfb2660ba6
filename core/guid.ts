import { assert } from "./assert";
import type { Random } from "./ports";

/** GUIDs render as lowercase 8-4-4-4-12 hex (DESIGN.md); they are accepted in any case. */
export type Guid = string;

const guidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Parses a GUID in any case to its canonical lowercase form, or null when it is not one. */
export function parseGuid(text: string): Guid | null {
  return guidPattern.test(text) ? text.toLowerCase() : null;
}

export function isGuid(text: string): boolean {
  return guidPattern.test(text) && text === text.toLowerCase();
}

/** Mints a version-4 style GUID from the node's seeded generator. */
export function mintGuid(random: Random): Guid {
  const words = [random.nextUint32(), random.nextUint32(), random.nextUint32(), random.nextUint32()];
  const hex = words.map((w) => (w >>> 0).toString(16).padStart(8, "0")).join("");
  const chars = hex.split("");
  chars[12] = "4";
  chars[16] = "89ab"[parseInt(chars[16] ?? "0", 16) & 3] ?? "8";
  const h = chars.join("");
  const guid = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  assert(isGuid(guid), "minted GUID is canonical");
  return guid;
}
