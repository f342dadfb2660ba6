import { assert } from "./assert";
import { limits } from "./limits";

/**
 * Journal kinds. SPEC leaves the set open; these are ours (ARCHITECTURE.md "Journal kinds"
 * says when each is written). Details never carry attribute values (a shredded value must not
 * survive anywhere, the journal included).
 */
export const journalKinds = [
  "domain-created",
  "merge-discarded",
  "record-refused",
  "partner-stale",
  "pull-refused",
  "repair",
  "rollback-detected",
  "rollback-healed",
  "gc",
  "shred",
  "records-cut",
] as const;

export type JournalKind = (typeof journalKinds)[number];

export interface JournalRecord {
  readonly seq: number;
  readonly atMs: number;
  readonly kind: JournalKind;
  readonly detail: string;
}

/** A capped ring of journal records; the node persists additions and evictions. */
export class Journal {
  private records: JournalRecord[] = [];
  private nextSeq = 1;
  private added: JournalRecord[] = [];
  private evicted: number[] = [];

  constructor(private readonly cap: number = limits.journalRecordsMax) {}

  load(records: readonly JournalRecord[]): void {
    this.records = [...records].sort((a, b) => a.seq - b.seq).slice(-this.cap);
    const last = this.records[this.records.length - 1];
    this.nextSeq = last === undefined ? 1 : last.seq + 1;
  }

  add(atMs: number, kind: JournalKind, detail: string): void {
    const record = { seq: this.nextSeq++, atMs, kind, detail };
    this.records.push(record);
    this.added.push(record);
    while (this.records.length > this.cap) {
      const gone = this.records.shift();
      assert(gone !== undefined, "journal ring underflow");
      this.evicted.push(gone.seq);
    }
  }

  list(): readonly JournalRecord[] {
    return this.records;
  }

  takeChanges(): { added: JournalRecord[]; evicted: number[] } {
    const out = { added: this.added, evicted: this.evicted };
    this.added = [];
    this.evicted = [];
    return out;
  }
}
