import type { Directory } from "../directory";
import type { Guid } from "../guid";
import type { CompiledSchema } from "../schema";
import type { ObjectRecord, Stage } from "../store/record";
import type { ChildSummary, ObjectPayload } from "./payload-types";
import type { EffectiveFacts } from "./effective-view";

/** A time-dependent input of a rendered payload: the effective stage it showed for a record. */
export interface StageObservation {
  readonly record: ObjectRecord;
  readonly stage: Stage;
}

export interface CachedPayload {
  readonly record: ObjectRecord;
  readonly payload: ObjectPayload;
  /** Every effectiveStage the payload shows that depends on the clock (tombstones only). */
  readonly observed: readonly StageObservation[];
}

/**
 * Bounds of the cache (per node). A map that reaches its bound is cleared: a miss costs one
 * recomputation, never a wrong answer. Facts are ~100 bytes; a payload ~1-2 KB; a child
 * summary ~150 bytes (the JSON the HTTP adapter keeps beside them about doubles that).
 */
const factsEntriesMax = 200_000;
const payloadEntriesMax = 10_000;
const listingChildrenHeldMax = 50_000;

/**
 * Derived view state kept across requests while the directory is unchanged: effective facts
 * (placement repairs, CNF names), whether an object has alive children, child listings and
 * object payloads. It holds only what is a function of the stored atoms, so every node still
 * renders the same view from the same atoms; the clock's part (apply-time aging) is checked
 * again on every payload hit.
 *
 * Validity token: `dir.usn`, `dir.store.size` and the compiled schema's identity. Every write
 * that stores a changed record allocates a fresh USN (originating writes, replication merges);
 * a purge changes the store's size; a schema refresh replaces `dir.schema`. The one rewrite
 * without a USN is GC hardening of a tombstone, which changes neither its stage nor its
 * placement (the only record inputs of facts and listings); payloads, which show that record's
 * attributes and stage, check the identity of the records they depend on instead.
 */
export class ViewCache {
  private usn = -1;
  private size = -1;
  private schema: CompiledSchema | null = null;
  private facts = new Map<Guid, FactsEntry>();
  private aliveChildren = new Map<Guid, boolean>();
  /** Alive records whose walk up the stored parents ends without a cycle (placement-repair). */
  acyclic = new Set<Guid>();
  private listings = new Map<Guid, ChildSummary[]>();
  private listingChildrenHeld = 0;
  private payloads = new Map<Guid, CachedPayload>();
  /** The earliest claim by effective parent and folded stored name (CNF naming). */
  private earliestByName = new Map<string, ObjectRecord | null>();

  /** Drops everything when the directory changed since the last use. Cheap: three compares. */
  validate(dir: Directory): this {
    if (dir.usn === this.usn && dir.store.size === this.size && dir.schema === this.schema) {
      return this;
    }
    this.usn = dir.usn;
    this.size = dir.store.size;
    this.schema = dir.schema;
    this.facts = new Map();
    this.aliveChildren = new Map();
    this.acyclic = new Set();
    this.listings = new Map();
    this.listingChildrenHeld = 0;
    this.payloads = new Map();
    this.earliestByName = new Map();
    return this;
  }

  factsOf(record: ObjectRecord): EffectiveFacts | undefined {
    const entry = this.facts.get(record.id);
    return entry !== undefined && entry.record === record ? entry.facts : undefined;
  }

  rememberFacts(record: ObjectRecord, facts: EffectiveFacts): void {
    if (this.facts.size >= factsEntriesMax) {
      this.facts.clear();
      this.acyclic.clear();
    }
    this.facts.set(record.id, { record, facts });
  }

  hasAliveChildren(parent: Guid): boolean | undefined {
    return this.aliveChildren.get(parent);
  }

  rememberHasAliveChildren(parent: Guid, has: boolean): void {
    if (this.aliveChildren.size >= factsEntriesMax) this.aliveChildren.clear();
    this.aliveChildren.set(parent, has);
  }

  listing(parent: Guid): ChildSummary[] | undefined {
    return this.listings.get(parent);
  }

  rememberListing(parent: Guid, children: ChildSummary[]): void {
    if (children.length > listingChildrenHeldMax) return;
    if (this.listingChildrenHeld + children.length > listingChildrenHeldMax) {
      this.listings.clear();
      this.listingChildrenHeld = 0;
    }
    this.listings.set(parent, children);
    this.listingChildrenHeld += children.length;
  }

  earliestNamed(key: string): ObjectRecord | null | undefined {
    return this.earliestByName.get(key);
  }

  rememberEarliestNamed(key: string, earliest: ObjectRecord | null): void {
    if (this.earliestByName.size >= factsEntriesMax) this.earliestByName.clear();
    this.earliestByName.set(key, earliest);
  }

  payload(id: Guid): CachedPayload | undefined {
    return this.payloads.get(id);
  }

  rememberPayload(entry: CachedPayload): void {
    if (this.payloads.size >= payloadEntriesMax) this.payloads.clear();
    this.payloads.set(entry.record.id, entry);
  }
}

interface FactsEntry {
  readonly record: ObjectRecord;
  readonly facts: EffectiveFacts;
}

const caches = new WeakMap<Directory, ViewCache>();

/** The cache of one directory (one node), validated against its current state. */
export function viewCacheOf(dir: Directory): ViewCache {
  let cache = caches.get(dir);
  if (cache === undefined) caches.set(dir, (cache = new ViewCache()));
  return cache.validate(dir);
}

/** Freezes a rendered value all the way down; cached values are shared by every reader. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  if (Array.isArray(value)) {
    for (const item of value) if (typeof item === "object" && item !== null) deepFreeze(item);
  } else {
    const fields = value as Record<string, unknown>;
    for (const key in fields) {
      const field = fields[key];
      if (typeof field === "object" && field !== null) deepFreeze(field);
    }
  }
  return Object.freeze(value);
}
