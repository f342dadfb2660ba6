/**
 * The write-ahead log: one append-only file per generation (wal/gen-N.log), checksummed records
 * with consecutive sequence numbers across generations.
 *
 * Durability: `append` only writes; `sync` makes every append since the previous sync durable
 * with one fdatasync (group commit: the caller appends a whole turn's batches, then syncs once).
 * `rotate` seals the active generation (synced, never written again) and opens the next one.
 * A sealed generation is always complete, because it was synced before its successor existed;
 * so only the newest generation can carry a torn tail, which `open` cuts.
 */
import { assert } from "../assert";
import type { FileSystem } from "./fs-port";
import { parseGeneration, walDir, walPath } from "./generation-names";
import type { KvBatch } from "./kv-batch";
import { decodeRecordAt, encodeRecord, scanLog, type LogRecord } from "./record-codec";
import { StorageCorruptError } from "./storage-errors";

export interface DurabilityMarks {
  /** The active generation. */
  readonly generation: number;
  /** Byte offsets in the active generation's log. */
  readonly durableBytes: number;
  readonly appendedBytes: number;
  /** Sequence numbers over all generations; 0 means none yet. */
  readonly durableSeq: number;
  readonly appendedSeq: number;
}

export interface SealedGeneration {
  readonly generation: number;
  readonly bytes: number;
  /** Last sequence number the generation holds (its predecessor's when it holds none). */
  readonly lastSeq: number;
}

/** Where replay starts: just after what the newest complete snapshot covers. */
export interface ReplayStart {
  readonly generation: number;
  readonly seq: number;
}

export interface WalOpenResult {
  readonly wal: WriteAheadLog;
  /** Records of every generation newer than the snapshot, in sequence order. */
  readonly records: LogRecord[];
  readonly tornBytes: number;
  /** Log files at or below the snapshot generation: superseded leftovers of a crash. */
  readonly stalePaths: string[];
}

export class WriteAheadLog {
  private activeGeneration: number;
  private appendedBytes: number;
  private durableBytes: number;
  private appendedSeq: number;
  private durableSeq: number;
  private readonly sealedGenerations: SealedGeneration[];

  private constructor(
    private readonly fs: FileSystem,
    active: { generation: number; bytes: number; lastSeq: number },
    sealed: SealedGeneration[],
  ) {
    this.activeGeneration = active.generation;
    this.appendedBytes = this.durableBytes = active.bytes;
    this.appendedSeq = this.durableSeq = active.lastSeq;
    this.sealedGenerations = sealed;
  }

  /**
   * Replays every generation newer than `start.generation`, cutting (truncate + sync) a torn
   * tail of the newest one. Creates the first generation when there is none.
   */
  static open(fs: FileSystem, start: ReplayStart = { generation: 0, seq: 0 }): WalOpenResult {
    const all = listGenerations(fs);
    const stalePaths = all.filter((g) => g <= start.generation).map(walPath);
    const live = all.filter((g) => g > start.generation);
    const records: LogRecord[] = [];
    const sealed: SealedGeneration[] = [];
    let lastSeq = start.seq;
    let tornBytes = 0;
    for (const [index, generation] of live.entries()) {
      const newest = index === live.length - 1;
      const replay = replayGeneration(fs, generation, lastSeq, newest);
      for (const record of replay.records) records.push(record);
      lastSeq = replay.records.at(-1)?.seq ?? lastSeq;
      tornBytes += replay.tornBytes;
      if (!newest) sealed.push({ generation, bytes: replay.validBytes, lastSeq });
      else {
        const active = { generation, bytes: replay.validBytes, lastSeq };
        return { wal: new WriteAheadLog(fs, active, sealed), records, tornBytes, stalePaths };
      }
    }
    const generation = start.generation + 1;
    fs.write(walPath(generation), new Uint8Array(0));
    fs.sync(walPath(generation));
    fs.syncDir(walDir);
    // A directory created just now is durable only once its parent is synced (POSIX).
    if (live.length === 0) fs.syncDir("");
    const wal = new WriteAheadLog(fs, { generation, bytes: 0, lastSeq }, sealed);
    return { wal, records, tornBytes, stalePaths };
  }

  get activePath(): string {
    return walPath(this.activeGeneration);
  }

  /** Appends one batch to the active log. Not durable until the next `sync`. */
  append(batch: KvBatch): { seq: number; bytes: number } {
    const seq = this.appendedSeq + 1;
    const record = encodeRecord(seq, batch);
    this.fs.append(this.activePath, record);
    // Marks move only after the write returned, so a throwing write leaves them truthful.
    this.appendedSeq = seq;
    this.appendedBytes += record.length;
    return { seq, bytes: record.length };
  }

  /** One fdatasync covering every append since the previous sync (a no-op when none). */
  sync(): void {
    if (this.durableSeq === this.appendedSeq && this.durableBytes === this.appendedBytes) return;
    this.fs.sync(this.activePath);
    this.durableSeq = this.appendedSeq;
    this.durableBytes = this.appendedBytes;
  }

  /** Seals the active generation and opens the next. Returns the generation just sealed. */
  rotate(): number {
    this.sync();
    const sealed = this.activeGeneration;
    const next = sealed + 1;
    this.fs.write(walPath(next), new Uint8Array(0));
    this.fs.sync(walPath(next));
    this.fs.syncDir(walDir);
    const bytes = this.durableBytes;
    this.sealedGenerations.push({ generation: sealed, bytes, lastSeq: this.durableSeq });
    this.activeGeneration = next;
    this.appendedBytes = this.durableBytes = 0;
    assert(this.durableSeq === this.appendedSeq, "rotation leaves nothing unsynced");
    return sealed;
  }

  marks(): DurabilityMarks {
    return {
      generation: this.activeGeneration,
      durableBytes: this.durableBytes,
      appendedBytes: this.appendedBytes,
      durableSeq: this.durableSeq,
      appendedSeq: this.appendedSeq,
    };
  }

  /** Sealed generations still on disk, oldest first. */
  sealed(): readonly SealedGeneration[] {
    return this.sealedGenerations;
  }

  /**
   * Drops the bookkeeping of sealed generations up to `generation` (a snapshot now covers them)
   * and returns their paths; the caller erases the files, synchronously or in the background.
   */
  forget(generation: number): string[] {
    assert(generation < this.activeGeneration, "the active generation is never superseded");
    const gone: string[] = [];
    for (let i = 0; i < this.sealedGenerations.length; ) {
      const sealed = this.sealedGenerations[i];
      assert(sealed !== undefined, "index in range");
      if (sealed.generation <= generation) {
        gone.push(walPath(sealed.generation));
        this.sealedGenerations.splice(i, 1);
      } else i++;
    }
    return gone;
  }
}

function listGenerations(fs: FileSystem): number[] {
  const generations: number[] = [];
  for (const name of fs.list(walDir)) {
    const generation = parseGeneration(name, ".log");
    if (generation !== null) generations.push(generation);
  }
  return generations.sort((a, b) => a - b);
}

interface GenerationReplay {
  readonly records: LogRecord[];
  readonly validBytes: number;
  readonly tornBytes: number;
}

function replayGeneration(
  fs: FileSystem,
  generation: number,
  lastSeq: number,
  newest: boolean,
): GenerationReplay {
  const path = walPath(generation);
  const bytes = fs.read(path) ?? new Uint8Array(0);
  const scan = scanLog(bytes, lastSeq + 1);
  if (scan.tornBytes === 0) return scan;
  if (!newest) {
    throw new StorageCorruptError(`sealed log ${path} is torn at byte ${scan.validBytes}`);
  }
  const stray = decodeRecordAt(bytes, scan.validBytes);
  if (stray !== null) {
    // A whole, checksummed record out of sequence is not what a crash mid-append leaves.
    const expected = (scan.records.at(-1)?.seq ?? lastSeq) + 1;
    throw new StorageCorruptError(`log ${path} holds seq ${stray.seq} where ${expected} belongs`);
  }
  fs.truncate(path, scan.validBytes);
  fs.sync(path);
  return scan;
}
