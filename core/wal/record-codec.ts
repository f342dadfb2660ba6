/**
 * Write-ahead log records. A record is `u32 payloadBytes, u32 crc32(length prefix + payload),
 * payload`, and a payload is `u32 seqLow, u32 seqHigh, encoded KvBatch`. The checksum covers
 * the length prefix too, so a corrupt length is caught rather than trusted.
 *
 * A log is a run of records. Scanning stops at the first record that does not check out (short,
 * bad checksum, undecodable, or out of sequence): everything after it is a torn tail left by a
 * crash mid-append. Scanning never throws on garbage; it returns the valid prefix.
 *
 * Groups: a batch too large for one record (a subtree rewrite with its values) is written as
 * consecutive records, every one but the last ending with a put of `groupContinuesKey`. A
 * reader hands out a group as one record (RecordGroups), or nothing of it when the log ends
 * before its last part: a crash between parts leaves an incomplete group, cut like a torn tail.
 * A record outside a group has no marker and the same bytes as before groups existed.
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
  /** Bytes after the valid prefix (0 for a clean log), an incomplete group's included. */
  readonly tornBytes: number;
  /** Valid parts of a group the log ends inside of, cut with the tail (null: none). */
  readonly cutGroup: CutGroup | null;
}

/** The parts of an incomplete group at the end of a scan: they start at `validBytes`. */
export interface CutGroup {
  readonly bytes: number;
  readonly firstSeq: number;
  readonly lastSeq: number;
}

/**
 * Key of the marker put that ends every part of a group but the last. No store key starts
 * with U+0000 (they are "o/<guid>", "meta/...", "j/..."), and a batch that holds one is refused
 * (splitBatch), so a marker is never a store entry.
 */
export const groupContinuesKey = "\u0000wal/group-continues";

/** A put's share of encodeKvBatchScratch's bound: 3 bytes per UTF-16 unit, two lengths. */
function putBound(key: string, value: string): number {
  return 8 + 3 * (key.length + value.length);
}

const batchHeaderBound = 9;
const markerBound = putBound(groupContinuesKey, "");

/**
 * The records `batch` is written as: itself when its encoding bound fits `partBytes`, else a
 * group of parts each within `partBytes` where it can be (a put larger than that goes alone),
 * puts in order, every delete in the last part, and a marker put ending every other part.
 * Applying the parts in order (puts, then deletes, part after part) is applying the batch:
 * the only deletes come after every put, as in the batch.
 */
export function splitBatch(batch: KvBatch, partBytes: number): KvBatch[] {
  assert(partBytes > 0, `bad record part bound ${partBytes}`);
  const { puts, dels } = batch;
  let total = recordHeaderBytes + seqBytes + batchHeaderBound;
  for (let i = 0; i < puts.length; i++) {
    const key = puts[i]![0];
    assert(key.charCodeAt(0) !== 0, "store keys never start with U+0000 (reserved for the log)");
    total += putBound(key, puts[i]![1]);
  }
  let delsBound = 0;
  for (let i = 0; i < dels.length; i++) {
    assert(dels[i]!.charCodeAt(0) !== 0, "store keys never start with U+0000 (reserved for the log)");
    delsBound += 4 + 3 * dels[i]!.length;
  }
  total += delsBound;
  if (total <= partBytes) return [batch];
  const empty = recordHeaderBytes + seqBytes + batchHeaderBound + markerBound;
  const parts: KvBatch[] = [];
  let current: Array<readonly [string, string]> = [];
  let size = empty;
  const close = (): void => {
    current.push([groupContinuesKey, ""]);
    parts.push({ puts: current, dels: [] });
    current = [];
    size = empty;
  };
  for (let i = 0; i < puts.length; i++) {
    const cost = putBound(puts[i]![0], puts[i]![1]);
    if (current.length > 0 && size + cost > partBytes) close();
    current.push(puts[i]!);
    size += cost;
  }
  // The deletes, too many to join the last puts, make a part of their own.
  if (current.length > 0 && size + delsBound > partBytes) close();
  parts.push({ puts: current, dels });
  let putCount = 0;
  for (const part of parts) putCount += part.puts.length;
  assert(putCount === puts.length + parts.length - 1, "a group holds every put once, plus its markers");
  return parts;
}

/**
 * What a record is to a group: a part that continues one (marker last, no deletes), a lone
 * record or a group's last part (no marker), or null: a marker elsewhere, which this log
 * never writes (a scan stops there, as at an undecodable record).
 */
function groupRole(
  putKeys: readonly string[] | null,
  puts: KvBatch["puts"] | null,
  dels: readonly string[],
): GroupRole | null {
  const count = putKeys !== null ? putKeys.length : puts!.length;
  let markers = 0;
  for (let i = 0; i < count; i++) {
    const key = putKeys !== null ? putKeys[i]! : puts![i]![0];
    if (key.charCodeAt(0) === 0 && key === groupContinuesKey) markers += 1;
  }
  for (let i = 0; i < dels.length; i++) if (dels[i] === groupContinuesKey) return null;
  if (markers === 0) return "ends";
  const lastKey = putKeys !== null ? putKeys[count - 1] : puts![count - 1]![0];
  return markers === 1 && lastKey === groupContinuesKey && dels.length === 0 ? "continues" : null;
}

type GroupRole = "continues" | "ends";

/** groupRole of a decoded batch. */
export function groupRoleOfBatch(batch: KvBatch): GroupRole | null {
  return groupRole(null, batch.puts, batch.dels);
}

/**
 * Assembles groups from the valid records of a scan, in order: the one place that decides
 * what a group is, so every reader agrees. Parts are held until their group's last part.
 */
export class RecordGroups<T extends { readonly seq: number; readonly offset: number; readonly bytes: number }> {
  /** The group read so far: parts that continue it, none of its last. */
  private parts: T[] = [];

  /** The parts of the group `part` completes ([part] for a lone record), or null while it continues. */
  add(part: T, role: GroupRole): T[] | null {
    const last = this.parts.at(-1);
    const follows = last === undefined || (part.seq === last.seq + 1 && part.offset === last.offset + last.bytes);
    assert(follows, "a group's parts are consecutive");
    if (role === "continues") {
      this.parts.push(part);
      return null;
    }
    if (last === undefined) return [part];
    const group = this.parts;
    group.push(part);
    this.parts = [];
    return group;
  }

  /** Where the valid prefix ends when the scan stopped at `offset`: before an incomplete group. */
  validEnd(offset: number): number {
    return this.parts[0]?.offset ?? offset;
  }

  /** The incomplete group a scan that stopped here leaves, or null. */
  cut(): CutGroup | null {
    const first = this.parts[0];
    const last = this.parts.at(-1);
    if (first === undefined || last === undefined) return null;
    return { bytes: last.offset + last.bytes - first.offset, firstSeq: first.seq, lastSeq: last.seq };
  }
}

/** A group's parts as one record: their puts without markers, the last part's deletes. */
export function joinGroup(parts: readonly LogRecord[]): LogRecord {
  const first = parts[0];
  const last = parts.at(-1);
  assert(first !== undefined && last !== undefined, "a group has parts");
  // A lone record is handed out as decoded (the simulator's VerifiedRecords share them).
  if (parts.length === 1) return first;
  const puts: Array<readonly [string, string]> = [];
  for (let p = 0; p < parts.length; p++) {
    const partPuts = parts[p]!.batch.puts;
    const end = p < parts.length - 1 ? partPuts.length - 1 : partPuts.length;
    for (let i = 0; i < end; i++) puts.push(partPuts[i]!);
  }
  const bytes = last.offset + last.bytes - first.offset;
  return { seq: last.seq, batch: { puts, dels: last.batch.dels }, offset: first.offset, bytes };
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
  private readonly groups = new RecordGroups<LogRecord>();

  constructor(
    private readonly log: Uint8Array,
    expectSeq: number | null = null,
  ) {
    this.nextSeq = expectSeq;
  }

  get done(): boolean {
    return this.stopped;
  }

  /** The valid prefix, once done: an incomplete group at the end is not part of it. */
  get validBytes(): number {
    return this.groups.validEnd(this.offset);
  }

  /** The incomplete group the valid prefix stops before, once done (null: none). */
  get cutGroup(): CutGroup | null {
    return this.groups.cut();
  }

  /**
   * Decodes more records, stopping after `maxRecords` or once `maxBytes` were consumed (always
   * at least one record, so a step makes progress); returns [] once the valid prefix is done.
   * A group is one record, returned by the step that reads its last part (a step that reads
   * only parts of one returns []: check `done`).
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
      const role = record === null ? null : groupRoleOfBatch(record.batch);
      if (record === null || role === null || (this.nextSeq !== null && record.seq !== this.nextSeq)) {
        this.stopped = true;
        break;
      }
      this.offset += record.bytes;
      this.nextSeq = record.seq + 1;
      const group = this.groups.add(record, role);
      if (group !== null) out.push(joinGroup(group));
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
 * `afterSeq`, each after the one before: what a cut there would drop besides garbage (a group's
 * parts count one each: the count is for an operator, not a replay). A scan of
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
  type Frame = { seq: number; offset: number; bytes: number; shape: KvBatchShape; endsGroup: boolean };
  const groups = new RecordGroups<Frame>();
  // Frames of complete groups only: an incomplete group's puts and deletes supersede nothing.
  const frames: Frame[] = [];
  let offset = 0;
  let nextSeq = expectSeq;
  // Bounded: each pass consumes a record of at least 16 bytes or stops.
  for (let passes = 0; passes <= log.length; passes++) {
    const frame = frameAt(log, offset);
    if (frame === null || (nextSeq !== null && frame.seq !== nextSeq)) break;
    const shape = decodeKvBatchShape(log.subarray(frame.payloadStart, frame.end));
    const role = shape === null ? null : groupRole(shape.putKeys, null, shape.dels);
    if (shape === null || role === null) break;
    const part = { seq: frame.seq, offset, bytes: frame.end - offset, shape, endsGroup: role === "ends" };
    const group = groups.add(part, role);
    if (group !== null) for (const done of group) frames.push(done);
    offset = frame.end;
    nextSeq = frame.seq + 1;
  }
  // Newest first: a key is final where it is last put and not deleted after. A group's parts
  // count as records applied in order: its only deletes are in its last part.
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
  let puts: Array<readonly [string, string]> = [];
  let groupStart = 0;
  for (let i = 0; i < frames.length; i++) {
    const { seq, offset: at, bytes, shape, endsGroup } = frames[i]!;
    const { putKeys, valueRanges, dels } = shape;
    const final = finals[i]!;
    // The shape's ranges are relative to the batch, which starts after the record's header.
    const base = at + recordHeaderBytes + seqBytes;
    // A part that continues its group ends with the marker, which is no entry.
    const count = endsGroup ? putKeys.length : putKeys.length - 1;
    for (let j = 0; j < count; j++) {
      const value = final[j]
        ? decodeUtf8Range(log, base + valueRanges[2 * j]!, base + valueRanges[2 * j + 1]!)
        : supersededValue;
      puts.push([putKeys[j]!, value]);
    }
    if (!endsGroup) continue;
    records.push({ seq, batch: { puts, dels }, offset: groupStart, bytes: at + bytes - groupStart });
    puts = [];
    groupStart = at + bytes;
  }
  assert(groupStart === groups.validEnd(offset), "the records end where the valid prefix does");
  assert(offset <= log.length, "scan stays inside the log");
  const validBytes = groups.validEnd(offset);
  return { records, validBytes, tornBytes: log.length - validBytes, cutGroup: groups.cut() };
}

/**
 * Every put of a log's valid records, in log order, with its value as a byte range of `log`
 * instead of a string: for checks that read a few values of many (the simulator's erasure
 * oracle decodes only those of the keys it judges). Stops where a record does not check out;
 * the parts of a group are visited as they lie on disk, complete or not, markers skipped.
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
      if (putKeys[j] === groupContinuesKey) continue;
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
  const validBytes = scanner.validBytes;
  return { records, validBytes, tornBytes: log.length - validBytes, cutGroup: scanner.cutGroup };
}
