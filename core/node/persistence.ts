import type { Directory } from "../directory";
import type { JournalRecord } from "../journal";
import { decodeRecord, encodeRecord } from "../store/record-codec";
import type { ObjectRecord } from "../store/record";
import type { KvBatch } from "../wal/kv-batch";
import type { ReplicationState, RetiredInvocation, UtdEntry } from "../repl/replication-state";
import { emptyReplicationState } from "../repl/replication-state";
import { vectorChange, vectorSerial } from "../repl/vectors";
import { assert } from "../assert";

/**
 * Key layout of the node's durable key-value state. The node meta is split: the small scalar
 * part under `meta/node` (rewritten on every commit: the USN moves), the up-to-dateness vector
 * one entry per key (`meta/utd/<invocation>`; it gains an entry per boot, and a completed pull
 * advances only a few), and the watermarks and retired invocations under one key each; each
 * is rewritten only when it changed. Older data directories hold the whole NodeMeta,
 * replication included, under `meta/node`, or the whole vector under `meta/utd`; loading
 * still accepts both (see `NodeLoader`).
 */
export const keys = {
  node: "meta/node",
  utd: "meta/utd",
  utdEntry: (invocation: string) => `meta/utd/${invocation}`,
  watermarks: "meta/watermarks",
  retired: "meta/retired",
  object: (id: string) => `o/${id}`,
  journal: (seq: number) => `j/${String(seq).padStart(12, "0")}`,
} as const;

const utdEntryPrefix = "meta/utd/";

export interface NodeMeta {
  readonly nodeId: string;
  readonly invocationId: string;
  /** The invocation's epoch (Directory.invocationEpoch; absent before epochs existed: 0). */
  readonly invocationEpoch?: number;
  readonly usn: number;
  readonly rollbackLatched: boolean;
  readonly purgeHorizonMs: number | null;
  readonly replication: ReplicationState;
}

/** What `meta/node` holds; `replication` only in the old single-key layout. */
type StoredNodeMeta = Omit<NodeMeta, "replication"> & { readonly replication?: ReplicationState };

/**
 * The replication parts last handed out in a batch, so that unchanged parts are not written
 * again. The replication state is immutable (every change replaces the changed part, and a
 * vector update replaces only the entries that advanced), so identity tells a changed part or
 * entry. A fresh tracker has persisted nothing: the first batch of a node (and of every booted
 * node, whose boot re-mints the invocation) writes every part and drops the older whole-vector
 * key.
 */
export class PersistedReplication {
  private utd: ReplicationState["utd"] | null = null;
  /** vectorSerial of `utd` (0 while null). */
  private utdSerial = 0;
  /** Entries of `utd` (0 while null). */
  private utdSize = 0;
  private watermarks: ReplicationState["watermarks"] | null = null;
  private retired: ReplicationState["retired"] | null = null;
  /** The `meta/node` text last handed out (null: none yet, so the next batch writes it). */
  private nodeText: string | null = null;

  /**
   * Notes `state` as already on disk (a boot that loaded it from the current key layout), so
   * that the next batch writes only what changed after it. Without this, every boot's first
   * batch wrote the whole vector again (an entry per boot of any node, ~100-300 in the
   * simulator), and every later boot replayed it.
   */
  assumeWritten(state: ReplicationState): void {
    assert(this.utd === null, "assumeWritten comes before the first batch");
    this.utd = state.utd;
    this.utdSerial = vectorSerial(state.utd);
    this.utdSize = Object.keys(state.utd).length;
    this.watermarks = state.watermarks;
    this.retired = state.retired;
  }

  /**
   * Adds the put of the node meta's text unless it is the text last handed out (a received
   * batch that changed nothing, ~10 % of a simulated node's batches, wrote it again alone).
   */
  putNodeMeta(text: string, puts: Array<[string, string]>): void {
    if (text === this.nodeText) return;
    puts.push([keys.node, text]);
    this.nodeText = text;
  }

  /** Adds a put for every part that changed since the last call, and notes it as written. */
  putChanged(state: ReplicationState, puts: Array<[string, string]>, dels: string[]): void {
    if (state.utd !== this.utd) {
      const change = this.utd === null ? undefined : vectorChange(state.utd);
      if (change !== undefined && change.fromSerial === this.utdSerial) this.putMergedEntries(state.utd, change.invocations, puts);
      else this.putChangedEntries(state.utd, puts, dels);
      this.utdSerial = vectorSerial(state.utd);
    }
    if (state.watermarks !== this.watermarks) {
      puts.push([keys.watermarks, JSON.stringify(state.watermarks)]);
    }
    if (state.retired !== this.retired) puts.push([keys.retired, JSON.stringify(state.retired)]);
    this.utd = state.utd;
    this.watermarks = state.watermarks;
    this.retired = state.retired;
  }

  /**
   * A vector mergeVectors made from the one last written: only the entries it replaced or
   * added are written (a merge never drops one). Their puts come in invocation order where
   * putChangedEntries gives the vector's key order; the batch's bytes differ, not what it
   * stores, nor the key order of the map it is replayed into (keys already there keep their
   * place; new ones are the merge's, appended in invocation order either way).
   */
  private putMergedEntries(
    utd: ReplicationState["utd"],
    invocations: readonly string[],
    puts: Array<[string, string]>,
  ): void {
    const before = this.utd ?? {};
    for (const invocation of invocations) {
      const entry = utd[invocation];
      assert(entry !== undefined, "a merged entry is in the merged vector");
      if (before[invocation] === undefined) this.utdSize++;
      puts.push([keys.utdEntry(invocation), JSON.stringify(entry)]);
    }
  }

  /**
   * The vector gains an entry per boot and a batch advances a few, so this runs over ~60
   * entries to write ~5. `for in` in the vector's own key order (what `Object.entries` gives,
   * so the puts keep their order) without allocating the entry pairs, and the entries gone
   * are looked for only when fewer of the old ones were found than the old vector held.
   */
  private putChangedEntries(
    utd: ReplicationState["utd"],
    puts: Array<[string, string]>,
    dels: string[],
  ): void {
    const before = this.utd ?? {};
    let kept = 0;
    let size = 0;
    for (const invocation in utd) {
      const entry = utd[invocation];
      const old = before[invocation];
      size++;
      if (old !== undefined) kept++;
      if (old !== entry) puts.push([keys.utdEntry(invocation), JSON.stringify(entry)]);
    }
    if (kept !== this.utdSize) {
      for (const invocation in before) {
        if (utd[invocation] === undefined) dels.push(keys.utdEntry(invocation));
      }
    }
    if (this.utd === null) dels.push(keys.utd);
    this.utdSize = size;
  }
}

/**
 * Everything written since the last batch, as one transaction for the write-ahead log, or null
 * when nothing changed on disk's terms. The shell persists every batch it takes (or discards
 * the node): `persisted` then matches disk.
 */
export function takeBatch(
  dir: Directory,
  meta: NodeMeta,
  persisted: PersistedReplication = new PersistedReplication(),
): KvBatch | null {
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
  const { replication, ...small } = meta;
  persisted.putChanged(replication, puts, dels);
  persisted.putNodeMeta(JSON.stringify(small satisfies StoredNodeMeta), puts);
  return puts.length === 0 && dels.length === 0 ? null : { puts, dels };
}

export interface LoadedState {
  readonly meta: NodeMeta | null;
  readonly journal: JournalRecord[];
  /**
   * True when `meta.replication` is exactly what the current key layout holds on disk (one key
   * per vector entry, watermarks and retired under theirs): the node's first batch then writes
   * only what changed since (PersistedReplication.assumeWritten). False for the old layouts,
   * whose first batch rewrites every part in the current one.
   */
  readonly replicationAsStored: boolean;
}

/**
 * Decodes one persisted object record; `key` is its store key (`o/<id>`), which a memoising
 * decoder may use to find the previous text of the same record cheaply.
 */
export type RecordDecoder = (text: string, key: string) => ObjectRecord;

/**
 * Parses the JSON text of one persisted non-object entry (journal records, node meta, vector
 * entries, watermarks); `key` is its store key. A memoising parser must return values equal
 * to JSON.parse's and never mutated by anyone (the node treats them as immutable values).
 */
export type EntryParser = (text: string, key: string) => unknown;

function parseJson(text: string): unknown {
  return JSON.parse(text);
}

/**
 * Loads persisted entries into an empty directory one at a time, in any order (a storage
 * layer can stream its snapshot through `put` instead of materialising it), then `finish`
 * returns the node meta and journal. Each key must come at most once, with its final value.
 */
export class NodeLoader {
  private meta: StoredNodeMeta | null = null;
  private utd: Record<string, Legacy<UtdEntry>> | undefined;
  private readonly utdEntries: Record<string, ReplicationState["utd"][string]> = {};
  private watermarks: ReplicationState["watermarks"] | undefined;
  private retired: ReadonlyArray<Legacy<RetiredInvocation>> | undefined;
  private readonly journal: JournalRecord[] = [];

  /**
   * `decode` defaults to decodeRecord; a shell that boots the same records again and again (the
   * simulator restarts nodes all the time) may hand in a memoised one: records are immutable.
   */
  constructor(
    private readonly dir: Directory,
    private readonly decode: RecordDecoder = decodeRecord,
    private readonly parse: EntryParser = parseJson,
  ) {
    dir.store.beginLoad();
  }

  put(key: string, value: string): void {
    if (key.startsWith("o/")) this.dir.load(this.decode(value, key));
    else if (key.startsWith("j/")) this.journal.push(this.parse(value, key) as JournalRecord);
    else if (key === keys.node) this.meta = this.parse(value, key) as StoredNodeMeta;
    else if (key.startsWith(utdEntryPrefix)) {
      const entry = this.parse(value, key) as Legacy<ReplicationState["utd"][string]>;
      this.utdEntries[key.slice(utdEntryPrefix.length)] = withEpoch(entry);
    } else if (key === keys.utd) this.utd = this.parse(value, key) as Record<string, Legacy<UtdEntry>>;
    else if (key === keys.watermarks) {
      this.watermarks = this.parse(value, key) as ReplicationState["watermarks"];
    } else if (key === keys.retired) {
      this.retired = this.parse(value, key) as ReadonlyArray<Legacy<RetiredInvocation>>;
    }
  }

  finish(): LoadedState {
    this.dir.store.endLoad();
    this.dir.endLoad();
    if (this.meta === null) return { meta: null, journal: this.journal, replicationAsStored: false };
    const { replication: single, ...small } = this.meta;
    // Old layout: the whole state under meta/node. New code never writes `replication` there,
    // so when present it is also newer than any split keys (written by a later downgrade).
    const empty = emptyReplicationState();
    const stored = single ?? {
      // The whole-vector key is dropped by the first batch that writes entries; should both
      // be present (a crash cannot cause it: both change in one batch), entries win.
      utd: { ...(this.utd ?? empty.utd), ...this.utdEntries },
      watermarks: this.watermarks ?? empty.watermarks,
      retired: this.retired ?? empty.retired,
    };
    const replication = withEpochs(stored);
    const replicationAsStored = single === undefined && this.utd === undefined;
    return { meta: { ...small, replication }, journal: this.journal, replicationAsStored };
  }
}

/** A persisted part as layouts before epochs (VectorEntry.epoch) wrote it, or as now. */
type Legacy<T extends { readonly epoch: number }> = Omit<T, "epoch"> & { readonly epoch?: number };

/** An entry or retired invocation persisted before epochs existed counts as epoch 0, the oldest. */
function withEpoch<T extends { readonly epoch: number }>(part: Legacy<T>): T {
  return (part.epoch === undefined ? { ...part, epoch: 0 } : part) as T;
}

/** The old layouts' parts read with epochs (the single-key layout's vector and retired list). */
function withEpochs(state: {
  readonly utd: Readonly<Record<string, Legacy<UtdEntry>>>;
  readonly watermarks: ReplicationState["watermarks"];
  readonly retired: ReadonlyArray<Legacy<RetiredInvocation>>;
}): ReplicationState {
  let utd = state.utd as ReplicationState["utd"];
  for (const invocation in state.utd) {
    if (state.utd[invocation]!.epoch !== undefined) continue;
    const out: Record<string, UtdEntry> = {};
    for (const inv in state.utd) out[inv] = withEpoch<UtdEntry>(state.utd[inv]!);
    utd = out;
    break;
  }
  const retired = state.retired.some((r) => r.epoch === undefined)
    ? state.retired.map((r) => withEpoch<RetiredInvocation>(r))
    : (state.retired as ReplicationState["retired"]);
  return { utd, watermarks: state.watermarks, retired };
}

/** Loads persisted records into an empty directory; returns the node meta and journal. */
export function loadEntries(
  dir: Directory,
  entries: Iterable<readonly [string, string]>,
): LoadedState {
  const loader = new NodeLoader(dir);
  for (const [key, value] of entries) loader.put(key, value);
  return loader.finish();
}
