/**
 * Decoded log records by their exact bytes, for a shell that reads the same records again and
 * again: the simulator's nodes boot every few seconds and each boot checksummed and decoded the
 * whole snapshot file, nearly always the bytes it had read or written just before.
 *
 * An entry states a fact about bytes, never about the disk: "these bytes are a valid record
 * with this seq and batch". A lookup compares the bytes just read from the file with the
 * entry's bytes in full, so a hit is exactly what decoding those bytes returns (decoding is a
 * pure function of them), and crashes, torn writes and disk rollbacks are seen as before: the
 * scan still reads the file, and any changed byte is a miss decoded (and checked) as usual.
 *
 * Retention: the records of the newest snapshot seen (`beginPass`/`endPass` around a load or
 * a write drop the rest), within `maxBytes`.
 */
import { assert } from "../assert";
import type { KvBatch } from "./kv-batch";
import {
  decodeRecordAt,
  groupRoleOfBatch,
  joinGroup,
  recordHeaderBytes,
  RecordGroups,
  type LogRecord,
  type LogScan,
} from "./record-codec";

/** A record as the writer encoded it: `bytes` is encodeRecord(seq, batch). */
export interface EncodedRecord {
  readonly seq: number;
  readonly batch: KvBatch;
  readonly bytes: Uint8Array;
}

interface Entry extends EncodedRecord {
  pass: number;
}

/** Byte equality in plain code (a shell may hand in a native compare). */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * True when the batch decoder gives `text` back from its UTF-8: well-formed UTF-16 (a lone
 * surrogate encodes as U+FFFD). A leading U+FEFF comes back too (the decoder keeps it). A
 * string without any surrogate is well-formed; pairs are checked only when one appears.
 */
export function utf8RoundTrips(text: string): boolean {
  if (!anySurrogate.test(text)) return true;
  return !loneSurrogate.test(text);
}

const anySurrogate = /[\ud800-\udfff]/;
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export class VerifiedRecords {
  /** Entries by the checksum field of their header (any u32 spreads them well enough). */
  private readonly byChecksum = new Map<number, Entry[]>();
  private pass = 0;
  private heldBytes = 0;

  constructor(
    private readonly equal: (a: Uint8Array, b: Uint8Array) => boolean = equalBytes,
    private readonly maxBytes = 256 * 1024 * 1024,
  ) {}

  get bytes(): number {
    return this.heldBytes;
  }

  /** Starts noting which entries the snapshot being read or written uses. */
  beginPass(): void {
    this.pass += 1;
  }

  /** Drops every entry the pass since `beginPass` did not use. */
  endPass(): void {
    for (const [checksum, entries] of this.byChecksum) {
      const kept = entries.filter((e) => e.pass === this.pass);
      for (const e of entries) if (e.pass !== this.pass) this.heldBytes -= e.bytes.length;
      if (kept.length === 0) this.byChecksum.delete(checksum);
      else if (kept.length !== entries.length) this.byChecksum.set(checksum, kept);
    }
    assert(this.heldBytes >= 0, "held bytes are counted exactly");
  }

  /**
   * The record starting at `offset` of `log` when its bytes are exactly an entry's, else null.
   * Reads only the header before comparing, so it never trusts an unverified length: the
   * comparison covers every byte of the entry.
   */
  find(log: Uint8Array, offset: number): LogRecord | null {
    if (offset + recordHeaderBytes > log.length) return null;
    const view = new DataView(log.buffer, log.byteOffset, log.byteLength);
    const entries = this.byChecksum.get(view.getUint32(offset + 4, true));
    if (entries === undefined) return null;
    for (const entry of entries) {
      const end = offset + entry.bytes.length;
      if (end > log.length || !this.equal(log.subarray(offset, end), entry.bytes)) continue;
      entry.pass = this.pass;
      return { seq: entry.seq, batch: entry.batch, offset, bytes: entry.bytes.length };
    }
    return null;
  }

  /** Notes a record decodeRecordAt returned from `log` (its bytes are copied). */
  noteDecoded(log: Uint8Array, record: LogRecord): void {
    const bytes = log.slice(record.offset, record.offset + record.bytes);
    this.add({ seq: record.seq, batch: record.batch, bytes, pass: this.pass });
  }

  /**
   * Notes a record the caller encoded (`bytes` = encodeRecord(seq, batch), never mutated
   * after). Decoding those bytes returns `batch` again only when every string survives UTF-8
   * (see utf8RoundTrips); a batch with one that does not is not noted.
   */
  noteEncoded(record: EncodedRecord): void {
    for (const [key, value] of record.batch.puts) {
      if (!utf8RoundTrips(key) || !utf8RoundTrips(value)) return;
    }
    for (const key of record.batch.dels) if (!utf8RoundTrips(key)) return;
    this.add({ ...record, pass: this.pass });
  }

  private add(entry: Entry): void {
    if (entry.bytes.length < recordHeaderBytes) return;
    if (this.heldBytes + entry.bytes.length > this.maxBytes) return;
    // Every later hit hands out this very batch: frozen, so no reader can change it for others.
    for (const put of entry.batch.puts) Object.freeze(put);
    Object.freeze(entry.batch.puts);
    Object.freeze(entry.batch.dels);
    Object.freeze(entry.batch);
    const view = new DataView(entry.bytes.buffer, entry.bytes.byteOffset, entry.bytes.byteLength);
    const checksum = view.getUint32(4, true);
    const entries = this.byChecksum.get(checksum) ?? [];
    for (const held of entries) {
      if (this.equal(held.bytes, entry.bytes)) {
        held.pass = this.pass;
        return;
      }
    }
    entries.push(entry);
    this.byChecksum.set(checksum, entries);
    this.heldBytes += entry.bytes.length;
  }
}

/**
 * scanLog (record-codec.ts) with known records taken from `verified` instead of being
 * checksummed and decoded again; the records, valid prefix and torn tail are scanLog's (groups
 * joined by the same RecordGroups). Records decoded afresh are noted in `verified`, a group's
 * parts one by one.
 */
export function scanLogVerified(
  log: Uint8Array,
  expectSeq: number | null,
  verified: VerifiedRecords,
): LogScan {
  const records: LogRecord[] = [];
  const groups = new RecordGroups<LogRecord>();
  let offset = 0;
  let nextSeq = expectSeq;
  for (;;) {
    let record = verified.find(log, offset);
    if (record === null) {
      record = decodeRecordAt(log, offset);
      if (record !== null) verified.noteDecoded(log, record);
    }
    const role = record === null ? null : groupRoleOfBatch(record.batch);
    if (record === null || role === null || (nextSeq !== null && record.seq !== nextSeq)) break;
    offset += record.bytes;
    nextSeq = record.seq + 1;
    const group = groups.add(record, role);
    if (group !== null) records.push(joinGroup(group));
  }
  assert(offset <= log.length, "scan stays inside the log");
  const validBytes = groups.validEnd(offset);
  return { records, validBytes, tornBytes: log.length - validBytes, cutGroup: groups.cut() };
}
