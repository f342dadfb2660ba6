/**
 * The unit the storage layer persists: one transaction's key puts and deletes. Storage is
 * generic over content; the node decides what keys and (JSON text) values mean.
 *
 * Binary layout (little endian): u8 format, u32 putCount, u32 delCount, then per put
 * `u32 keyBytes, key, u32 valueBytes, value`, then per delete `u32 keyBytes, key`. Strings are
 * UTF-8 and must be well-formed UTF-16 in memory (JSON.stringify output always is).
 */
import { assert } from "../assert";
import { decodeUtf8Range } from "./utf8-range";
import { writeUtf8 } from "./utf8-write";
import { walLimits } from "./wal-limits";

export interface KvBatch {
  readonly puts: ReadonlyArray<readonly [key: string, value: string]>;
  readonly dels: readonly string[];
}

const formatV1 = 1;
const headerBytes = 9;

/**
 * Encodes a batch. Replay applies a batch's puts in order, then its deletes, so a key both put
 * and deleted in one batch ends up deleted (the node may purge an object it also rewrote).
 */
export function encodeKvBatch(batch: KvBatch): Uint8Array {
  return encodeKvBatchScratch(batch, 0).slice();
}

/**
 * Encodes a batch into the shared scratch buffer after `headroom` bytes the caller fills (a
 * log record's header), and returns the scratch's used part: valid only until the next
 * encoding, so the caller copies it out or hands it to a write that copies it.
 *
 * Strings are encoded straight into the scratch buffer (`writeUtf8`, its length prefix
 * written after): `encode` per string allocated a buffer for each and copied it again, 3-4x
 * slower (every WAL append and snapshot rebuild encodes). The bytes are the same: both
 * encoders turn a string into the same UTF-8.
 */
export function encodeKvBatchScratch(batch: KvBatch, headroom: number): Uint8Array {
  // UTF-8 takes at most 3 bytes per UTF-16 code unit (a surrogate pair: 4 bytes for 2 units).
  let bound = headroom + headerBytes;
  for (const [key, value] of batch.puts) bound += 8 + 3 * (key.length + value.length);
  for (const key of batch.dels) bound += 4 + 3 * key.length;
  const out = scratchOf(bound);
  const view = scratchView(out);
  out[headroom] = formatV1;
  view.setUint32(headroom + 1, batch.puts.length, true);
  view.setUint32(headroom + 5, batch.dels.length, true);
  let at = headroom + headerBytes;
  for (const [key, value] of batch.puts) {
    at = putString(out, view, at, key, true);
    at = putString(out, view, at, value, false);
  }
  for (const key of batch.dels) at = putString(out, view, at, key, true);
  assert(at <= bound, "kv batch encoding stays inside its bound");
  return out.subarray(0, at);
}

/**
 * Writes `text` length-prefixed at `at`; returns the offset after it. A module function, not a
 * closure per batch: tsx's keepNames names every closure it creates, which costs.
 */
function putString(out: Uint8Array, view: DataView, at: number, text: string, isKey: boolean): number {
  const written = writeUtf8(text, out, at + 4);
  if (isKey) assert(written > 0 && written <= walLimits.keyBytesMax, `bad key length ${text.length}`);
  view.setUint32(at, written, true);
  return at + 4 + written;
}

/** Scratch space kept between calls, unless a batch is larger than this. */
const scratchKeptBytes = 1 << 22;
let scratch = new Uint8Array(1 << 16);

let scratchDataView = new DataView(scratch.buffer);

/** A buffer of at least `bytes` for one encoding; its content is overwritten. */
function scratchOf(bytes: number): Uint8Array {
  if (bytes <= scratch.length) return scratch;
  if (bytes > scratchKeptBytes) return new Uint8Array(bytes);
  let size = scratch.length;
  while (size < bytes) size *= 2;
  scratch = new Uint8Array(size);
  scratchDataView = new DataView(scratch.buffer);
  return scratch;
}

/** A view of `buffer` (the scratch's is made once, not per encoding). */
function scratchView(buffer: Uint8Array): DataView {
  return buffer === scratch ? scratchDataView : new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/**
 * Decodes a batch, or returns null when the bytes are not one. Total over any input: the
 * record codec calls it on bytes whose checksum matched, but a fuzzer may not be so kind.
 */
export function decodeKvBatch(bytes: Uint8Array): KvBatch | null {
  const header = headerOf(bytes);
  if (header === null) return null;
  const { view, putCount, delCount } = header;
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

/**
 * A batch with its keys decoded and its values only located: put i's value is the UTF-8 of
 * `bytes[valueRanges[2i], valueRanges[2i + 1])`, decoded by `valueOf` when wanted. Null exactly
 * when decodeKvBatch gives null (decoding a value never fails: a bad sequence is U+FFFD).
 */
export interface KvBatchShape {
  readonly putKeys: readonly string[];
  readonly valueRanges: readonly number[];
  readonly dels: readonly string[];
}

export function decodeKvBatchShape(bytes: Uint8Array): KvBatchShape | null {
  const header = headerOf(bytes);
  if (header === null) return null;
  const { view, putCount, delCount } = header;
  const cursor = { at: headerBytes };
  const putKeys: string[] = [];
  const valueRanges: number[] = [];
  for (let i = 0; i < putCount; i++) {
    const key = readString(bytes, view, cursor);
    const valueStart = key === null ? -1 : skipString(bytes, view, cursor);
    if (key === null || valueStart < 0) return null;
    putKeys.push(key);
    valueRanges.push(valueStart, cursor.at);
  }
  const dels: string[] = [];
  for (let i = 0; i < delCount; i++) {
    const key = readString(bytes, view, cursor);
    if (key === null) return null;
    dels.push(key);
  }
  return cursor.at === bytes.length ? { putKeys, valueRanges, dels } : null;
}

/** A batch's format byte and counts, or null when they cannot be a batch of `bytes`. */
function headerOf(bytes: Uint8Array): { view: DataView; putCount: number; delCount: number } | null {
  if (bytes.length < headerBytes) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint8(0) !== formatV1) return null;
  const putCount = view.getUint32(1, true);
  const delCount = view.getUint32(5, true);
  // Every string costs at least its 4-byte length, which bounds the counts before allocating.
  if ((putCount * 2 + delCount) * 4 > bytes.length - headerBytes) return null;
  return { view, putCount, delCount };
}

/** Moves the cursor past one length-prefixed string; returns where its bytes start, or -1. */
function skipString(bytes: Uint8Array, view: DataView, cursor: { at: number }): number {
  if (cursor.at + 4 > bytes.length) return -1;
  const length = view.getUint32(cursor.at, true);
  const start = cursor.at + 4;
  if (start + length > bytes.length) return -1;
  cursor.at = start + length;
  return start;
}

function readString(bytes: Uint8Array, view: DataView, cursor: { at: number }): string | null {
  if (cursor.at + 4 > bytes.length) return null;
  const length = view.getUint32(cursor.at, true);
  const start = cursor.at + 4;
  if (start + length > bytes.length) return null;
  cursor.at = start + length;
  return decodeUtf8Range(bytes, start, start + length);
}

/**
 * Applies a batch to a key-value map in place: its puts in order, then its deletes. Indexed
 * loops, not `for (const [key, value] of ...)`: destructuring runs the iterator protocol per
 * put, and on the frozen puts of VerifiedRecords it left V8's fast path (every boot applies
 * every snapshot and log record through here).
 */
export function applyKvBatch(map: Map<string, string>, batch: KvBatch): void {
  const { puts, dels } = batch;
  for (let i = 0; i < puts.length; i++) {
    const put = puts[i]!;
    map.set(put[0], put[1]);
  }
  for (let i = 0; i < dels.length; i++) map.delete(dels[i]!);
}
