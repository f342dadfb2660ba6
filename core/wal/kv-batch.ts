/**
 * The unit the storage layer persists: one transaction's key puts and deletes. Storage is
 * generic over content; the node decides what keys and (JSON text) values mean.
 *
 * Binary layout (little endian): u8 format, u32 putCount, u32 delCount, then per put
 * `u32 keyBytes, key, u32 valueBytes, value`, then per delete `u32 keyBytes, key`. Strings are
 * UTF-8 and must be well-formed UTF-16 in memory (JSON.stringify output always is).
 */
import { assert } from "../assert";
import { walLimits } from "./wal-limits";

export interface KvBatch {
  readonly puts: ReadonlyArray<readonly [key: string, value: string]>;
  readonly dels: readonly string[];
}

const formatV1 = 1;
const headerBytes = 9;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Encodes a batch. Replay applies a batch's puts in order, then its deletes, so a key both put
 * and deleted in one batch ends up deleted (the node may purge an object it also rewrote).
 */
export function encodeKvBatch(batch: KvBatch): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const [key, value] of batch.puts) parts.push(encodeKey(key), encoder.encode(value));
  for (const key of batch.dels) parts.push(encodeKey(key));
  let total = headerBytes;
  for (const part of parts) total += 4 + part.length;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint8(0, formatV1);
  view.setUint32(1, batch.puts.length, true);
  view.setUint32(5, batch.dels.length, true);
  let at = headerBytes;
  for (const part of parts) {
    view.setUint32(at, part.length, true);
    out.set(part, at + 4);
    at += 4 + part.length;
  }
  assert(at === total, "kv batch encoding fills its buffer exactly");
  return out;
}

function encodeKey(key: string): Uint8Array {
  const bytes = encoder.encode(key);
  assert(bytes.length > 0 && bytes.length <= walLimits.keyBytesMax, `bad key length ${key.length}`);
  return bytes;
}

/**
 * Decodes a batch, or returns null when the bytes are not one. Total over any input: the
 * record codec calls it on bytes whose checksum matched, but a fuzzer may not be so kind.
 */
export function decodeKvBatch(bytes: Uint8Array): KvBatch | null {
  if (bytes.length < headerBytes) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint8(0) !== formatV1) return null;
  const putCount = view.getUint32(1, true);
  const delCount = view.getUint32(5, true);
  // Every string costs at least its 4-byte length, which bounds the counts before allocating.
  if ((putCount * 2 + delCount) * 4 > bytes.length - headerBytes) return null;
  const cursor = { at: headerBytes };
  const puts: Array<[string, string]> = [];
  for (let i = 0; i < putCount; i++) {
    const key = readString(bytes, view, cursor);
    const value = key === null ? null : readString(bytes, view, cursor);
    if (key === null || value === null) return null;
    puts.push([key, value]);
  }
  const dels: string[] = [];
  for (let i = 0; i < delCount; i++) {
    const key = readString(bytes, view, cursor);
    if (key === null) return null;
    dels.push(key);
  }
  return cursor.at === bytes.length ? { puts, dels } : null;
}

function readString(bytes: Uint8Array, view: DataView, cursor: { at: number }): string | null {
  if (cursor.at + 4 > bytes.length) return null;
  const length = view.getUint32(cursor.at, true);
  const start = cursor.at + 4;
  if (start + length > bytes.length) return null;
  cursor.at = start + length;
  return decoder.decode(bytes.subarray(start, start + length));
}

/** Applies a batch to a key-value map in place: its puts in order, then its deletes. */
export function applyKvBatch(map: Map<string, string>, batch: KvBatch): void {
  for (const [key, value] of batch.puts) map.set(key, value);
  for (const key of batch.dels) map.delete(key);
}
