import type { Directory } from "../directory";
import type { JournalRecord } from "../journal";
import { decodeRecord, encodeRecord } from "../store/record-codec";
import type { KvBatch } from "../wal/kv-batch";
import type { ReplicationState } from "../repl/replication-state";

/** Key layout of the node's durable key-value state. */
export const keys = {
  node: "meta/node",
  object: (id: string) => `o/${id}`,
  journal: (seq: number) => `j/${String(seq).padStart(12, "0")}`,
} as const;

export interface NodeMeta {
  readonly nodeId: string;
  readonly invocationId: string;
  readonly usn: number;
  readonly rollbackLatched: boolean;
  readonly purgeHorizonMs: number | null;
  readonly replication: ReplicationState;
}

/** Everything written since the last batch, as one transaction for the write-ahead log. */
export function takeBatch(dir: Directory, meta: NodeMeta): KvBatch | null {
  const { written, purged } = dir.store.takeDirty();
  const journal = dir.journal.takeChanges();
  const puts: Array<[string, string]> = [];
  const dels: string[] = [];
  for (const id of written) {
    const record = dir.get(id);
    if (record !== undefined) puts.push([keys.object(id), encodeRecord(record)]);
  }
  for (const id of purged) dels.push(keys.object(id));
  const added = new Set(journal.added.map((r) => r.seq));
  const evicted = new Set(journal.evicted);
  for (const r of journal.added) {
    if (!evicted.has(r.seq)) puts.push([keys.journal(r.seq), JSON.stringify(r)]);
  }
  for (const seq of evicted) if (!added.has(seq)) dels.push(keys.journal(seq));
  puts.push([keys.node, JSON.stringify(meta)]);
  return { puts, dels };
}

export interface LoadedState {
  readonly meta: NodeMeta | null;
  readonly journal: JournalRecord[];
}

/** Loads persisted records into an empty directory; returns the node meta and journal. */
export function loadEntries(dir: Directory, entries: ReadonlyMap<string, string>): LoadedState {
  let meta: NodeMeta | null = null;
  const journal: JournalRecord[] = [];
  for (const [key, value] of entries) {
    if (key === keys.node) meta = JSON.parse(value) as NodeMeta;
    else if (key.startsWith("o/")) dir.load(decodeRecord(value));
    else if (key.startsWith("j/")) journal.push(JSON.parse(value) as JournalRecord);
  }
  return { meta, journal };
}
