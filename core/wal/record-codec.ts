/**
 * Write-ahead log records. A record is `u32 payloadBytes, u32 crc32(length prefix + payload),
 * payload`, and a payload is `u32 seqLow, u32 seqHigh, encoded KvBatch`. The checksum covers
 * the length prefix too, so a corrupt length is caught rather than trusted.
 *
 * A log is a run of records. Scanning stops at the first record that does not check out (short,
 * bad checksum, undecodable, or out of sequence): everything after it is a torn tail left by a
 * crash mid-append. Scanning never throws on garbage; it returns the valid prefix.
 */
import { assert } from "../assert";
import { crc32 } from "./crc32";
import { decodeKvBatch, decodeKvBatchShape, encodeKvBatchScratch, type KvBatch, type KvBatchShape } from "./kv-batch";
import { decodeUtf8Range } from "./utf8-range";
import { walLimits } from "./wal-limits";

export const recordHeaderBytes = 8;
const seqBytes = 8;
const twoPow32 = 2 ** 32;

export interface LogRecord {
  readonly seq: number;
  readonly batch: KvBatch;
  /** Offset of the record's first byte in the log. */
  readonly offset: number;
  /** Whole record size, header included. */
  readonly bytes: number;
}

export interface LogScan {
  readonly records: LogRecord[];
  /** Length of the valid prefix: where the next record goes once the tail is cut. */
  readonly validBytes: number;
  /** Bytes after the valid prefix (0 for a clean log). */
  readonly tornBytes: number;
}

export function encodeRecord(seq: number, batch: KvBatch): Uint8Array {
  return encodeRecordScratch(seq, batch).slice();
}

/**
 * The record's bytes in the batch encoder's scratch buffer, valid only until the next
 * encoding: for a caller that hands them straight to a write that copies them (the WAL's
 * append), so a record is built in place once and copied once, into the file. (It was encoded
 * into the scratch, copied out, and copied again into a record buffer before its write.)
 */
export function encodeRecordScratch(seq: number, batch: KvBatch): Uint8Array {
  assert(Number.isSafeInteger(seq) && seq >= 1 && seq <= walLimits.seqMax, `bad seq ${seq}`);
  const out = encodeKvBatchScratch(batch, recordHeaderBytes + seqBytes);
  const payloadBytes = out.length - recordHeaderBytes;
  assert(payloadBytes <= walLimits.recordPayloadBytesMax, `record too large: ${payloadBytes}`);
  const view = new DataView(out.buffer, out.byteOffset, recordHeaderBytes + seqBytes);
  view.setUint32(0, payloadBytes, true);
  view.setUint32(8, seq % twoPow32, true);
  view.setUint32(12, Math.floor(seq / twoPow32), true);
  view.setUint32(4, crc32(out, recordHeaderBytes, out.length, crc32(out, 0, 4)), true);
  return out;
}

/**
 * Incremental scanner, so a caller on an event loop can decode a large sealed log a slice at a
 * time and yield in between. `expectSeq`, when given, is the sequence number the first record
 * must carry; after the first record each one must be its predecessor plus one.
 */
export class LogScanner {
  private offset = 0;
  private nextSeq: number | null;
  private stopped = false;

  constructor(
    private readonly log: Uint8Array,
    expectSeq: number | null = null,
  ) {
    this.nextSeq = expectSeq;
  }

  get done(): boolean {
    return this.stopped;
  }

  get validBytes(): number {
    return this.offset;
  }

  /**
   * Decodes more records, stopping after `maxRecords` or once `maxBytes` were consumed (always
   * at least one record, so a step makes progress); returns [] once the valid prefix is done.
   */
  step(
    maxRecords: number = walLimits.scanStepRecords,
    maxBytes: number = walLimits.scanStepBytes,
  ): LogRecord[] {
    assert(maxRecords > 0 && maxBytes > 0, "a scan step takes at least one record");
    const out: LogRecord[] = [];
    const startOffset = this.offset;
    while (!this.stopped && out.length < maxRecords && this.offset - startOffset < maxBytes) {
      const record = decodeRecordAt(this.log, this.offset);
      if (record === null || (this.nextSeq !== null && record.seq !== this.nextSeq)) {
        this.stopped = true;
        break;
      }
      out.push(record);
      this.offset += record.bytes;
      this.nextSeq = record.seq + 1;
    }
    assert(this.offset <= this.log.length, "scan stays inside the log");
    return out;
  }
}

/** Decodes the record starting at `offset`, or null when none valid starts there. */
export function decodeRecordAt(log: Uint8Array, offset: number): LogRecord | null {
  const frame = frameAt(log, offset);
  if (frame === null) return null;
  const batch = decodeKvBatch(log.subarray(frame.payloadStart, frame.end));
  if (batch === null) return null;
  return { seq: frame.seq, batch, offset, bytes: frame.end - offset };
}

/**
 * Whole, checksummed records that lie between `from` and `to` with sequence numbers after
 * `afterSeq`, each after the one before: what a cut there would drop besides garbage. A scan of
 * garbage costs one read per byte (a candidate's sequence number must be the next few) and a
 * checksum only rarely.
 */
export function wholeRecordsBetween(
  log: Uint8Array,
  from: number,
  to: number,
  afterSeq: number,
): { readonly count: number; readonly firstSeq: number; readonly lastSeq: number } | null {
  const view = new DataView(log.buffer, log.byteOffset, log.byteLength);
  const window = 1_000_000;
  let count = 0;
  let firstSeq = 0;
  let seqSoFar = afterSeq;
  let offset = from;
  const end = Math.min(to, log.length);
  while (offset + recordHeaderBytes + seqBytes <= end) {
    const seq = view.getUint32(offset + 12, true) * twoPow32 + view.getUint32(offset + 8, true);
    const record = seq > seqSoFar && seq <= seqSoFar + window ? decodeRecordAt(log, offset) : null;
    if (record === null || offset + record.bytes > end) {
      offset += 1;
      continue;
    }
    if (count === 0) firstSeq = record.seq;
    count += 1;
    seqSoFar = record.seq;
    offset += record.bytes;
  }
  return count === 0 ? null : { count, firstSeq, lastSeq: seqSoFar };
}

/** A checksummed record's sequence number and where its batch lies, or null (see decodeRecordAt). */
function frameAt(log: Uint8Array, offset: number): { seq: number; payloadStart: number; end: number } | null {
  if (offset + recordHeaderBytes > log.length) return null;
  const view = new DataView(log.buffer, log.byteOffset, log.byteLength);
  const payloadBytes = view.getUint32(offset, true);
  if (payloadBytes < seqBytes || payloadBytes > walLimits.recordPayloadBytesMax) return null;
  const end = offset + recordHeaderBytes + payloadBytes;
  if (end > log.length) return null;
  const expected = crc32(log, offset + recordHeaderBytes, end, crc32(log, offset, offset + 4));
  if (view.getUint32(offset + 4, true) !== expected) return null;
  const low = view.getUint32(offset + 8, true);
  const high = view.getUint32(offset + 12, true);
  const seq = high * twoPow32 + low;
  if (seq < 1 || seq > walLimits.seqMax) return null;
  return { seq, payloadStart: offset + recordHeaderBytes + seqBytes, end };
}

/**
 * The value a replayed put carries when a later put or delete of the same scan sets its key
 * again (scanLogFinalValues): never the final value of any key.
 */
export const supersededValue = "";

/**
 * scanLog for a replay that applies its records in order: the same records, valid prefix and
 * torn bytes, but a put whose key a later put or delete in the scan sets again carries
 * `supersededValue` instead of its decoded value. Applying the records in order (puts, then
 * deletes, record after record) gives the same final values, and the same key order in a Map,
 * as scanLog's records do. A boot's replay left ~46 % of the value bytes it decoded in the
 * simulator to be overwritten later in the same replay.
 */
export function scanLogFinalValues(log: Uint8Array, expectSeq: number | null = null): LogScan {
  const frames: Array<{ seq: number; offset: number; end: number; shape: KvBatchShape }> = [];
  let offset = 0;
  let nextSeq = expectSeq;
  // Bounded: each pass consumes a record of at least 16 bytes or stops.
  for (let passes = 0; passes <= log.length; passes++) {
    const frame = frameAt(log, offset);
    if (frame === null || (nextSeq !== null && frame.seq !== nextSeq)) break;
    const shape = decodeKvBatchShape(log.subarray(frame.payloadStart, frame.end));
    if (shape === null) break;
    frames.push({ seq: frame.seq, offset, end: frame.end, shape });
    offset = frame.end;
    nextSeq = frame.seq + 1;
  }
  // Newest first: a key is final where it is last put and not deleted after.
  const setLater = new Set<string>();
  const finals: boolean[][] = new Array<boolean[]>(frames.length);
  for (let i = frames.length - 1; i >= 0; i--) {
    const { putKeys, dels } = frames[i]!.shape;
    for (let j = 0; j < dels.length; j++) setLater.add(dels[j]!);
    const final = new Array<boolean>(putKeys.length);
    for (let j = putKeys.length - 1; j >= 0; j--) {
      const key = putKeys[j]!;
      final[j] = !setLater.has(key);
      setLater.add(key);
    }
    finals[i] = final;
  }
  const records: LogRecord[] = [];
  for (let i = 0; i < frames.length; i++) {
    const { seq, offset: at, end, shape } = frames[i]!;
    const { putKeys, valueRanges, dels } = shape;
    const final = finals[i]!;
    // The shape's ranges are relative to the batch, which starts after the record's header.
    const base = at + recordHeaderBytes + seqBytes;
    const puts: Array<readonly [string, string]> = [];
    for (let j = 0; j < putKeys.length; j++) {
      const value = final[j]
        ? decodeUtf8Range(log, base + valueRanges[2 * j]!, base + valueRanges[2 * j + 1]!)
        : supersededValue;
      puts.push([putKeys[j]!, value]);
    }
    records.push({ seq, batch: { puts, dels }, offset: at, bytes: end - at });
  }
  assert(offset <= log.length, "scan stays inside the log");
  return { records, validBytes: offset, tornBytes: log.length - offset };
}

/**
 * Every put of a log's valid records, in log order, with its value as a byte range of `log`
 * instead of a string: for checks that read a few values of many (the simulator's erasure
 * oracle decodes only those of the keys it judges). Stops where scanLog stops.
 */
export function forEachPutRange(
  log: Uint8Array,
  visit: (seq: number, key: string, valueStart: number, valueEnd: number) => void,
): void {
  let offset = 0;
  // Bounded: each pass consumes a record of at least 16 bytes or stops.
  for (let passes = 0; passes <= log.length; passes++) {
    const frame = frameAt(log, offset);
    if (frame === null) return;
    const shape = decodeKvBatchShape(log.subarray(frame.payloadStart, frame.end));
    if (shape === null) return;
    const { putKeys, valueRanges } = shape;
    for (let j = 0; j < putKeys.length; j++) {
      const start = frame.payloadStart + valueRanges[2 * j]!;
      visit(frame.seq, putKeys[j]!, start, frame.payloadStart + valueRanges[2 * j + 1]!);
    }
    offset = frame.end;
  }
}

/** Scans a whole log in one go (see LogScanner for the rules). */
export function scanLog(log: Uint8Array, expectSeq: number | null = null): LogScan {
  const scanner = new LogScanner(log, expectSeq);
  const records: LogRecord[] = [];
  // Each step consumes at least one record or stops, and a record is at least 16 bytes long.
  for (let steps = 0; !scanner.done && steps <= log.length; steps++) {
    for (const record of scanner.step()) records.push(record);
  }
  assert(scanner.done, "scan of a finite log terminates");
  return { records, validBytes: scanner.validBytes, tornBytes: log.length - scanner.validBytes };
}
