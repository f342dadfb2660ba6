import type { Directory } from "../directory";
import type { Guid } from "../guid";
import { definitionClassNames } from "../schema/base-schema";
import type { ObjectRecord } from "../store/record";
import { presentValues } from "../store/record";
import { effectiveStage } from "../view/aging";

/**
 * The tombstoned definitions the purge must keep. SPEC: references to tombstoned definitions
 * compile out, and a facet keeps working minus its dead member. Were the tombstone purged, the
 * compiler could no longer tell it from a definition not yet arrived, and the facet (class,
 * extension, every definition of a namespace) would leave the schema as "waiting for" it,
 * forever, taking attributes off the surface of every object that carries it; an instance of
 * a purged class would be a ghost the schema oracle cannot tell from one whose class is late.
 * So a definition tombstone past the purge horizon stays while a record that still holds its
 * values (alive, or deleted and still restorable: a restore brings its references back)
 * depends on it, as an object's class, a definition's namespace, or a definition's reference
 * (the attributes the compiler resolves). Everything concurrent with the delete has arrived
 * by the horizon (partners apart longer are refused), so the dependents a node sees then are
 * the ones every node sees. Found by the simulator's schema-life workload with GC running
 * (scenarios/regressions/purged-attribute-quarantines-facet.scn).
 */
const schemaReferences = ["legalMeta", "attributes", "facets", "targetClass"];

const definitionClasses: ReadonlySet<string> = new Set(Object.values(definitionClassNames));

export function isDefinitionRecord(record: ObjectRecord): boolean {
  return definitionClasses.has(record.existence.className);
}

/**
 * What the purge must keep: `ids`, and the tombstones `keepsDefinition` adds for definitions
 * that no longer say what they name.
 * A deleted record aged past its restore window here may still come back: a restore made on
 * another node inside the window (by its clock) can arrive after this node's GC judged the
 * window over (adversarial-scenario audit, twenty-third session: the GC purged an attribute a
 * facet restored elsewhere named, and the facet stayed quarantined on this node for good while
 * the other node compiled it). The window in effect is at most half the purge horizon
 * (core/directory.ts `replicationConfig`), so such a restore arrives before the record's own
 * purge: until then the record keeps what it names. Once hardened it no longer says which
 * definitions it names (its values are gone), nor does one that arrived hardened at its
 * source (a skeleton without values: the flag is local, and a receiver whose clock is behind
 * still sees it inside its window; second scenario audit). Such a definition can only name a
 * definition whose delete its creator had not yet received when it created it (a node that
 * knows a definition is deleted refuses to name it), and a delete reaches every partner within
 * the horizon (partners apart longer are refused). Definitions are never moved or renamed,
 * so their placement stamp is their creation (a restore leaves it): a definition tombstone deleted at T may be named
 * by one created before T + horizon. It stays while such a definition, hardened or a skeleton,
 * is within its own horizon; a schema deleting definitions all the time still purges every
 * tombstone (keeping them all, regardless of creation, kept them for ever: review of the
 * first version).
 */
export interface DefinitionsInUse {
  readonly ids: ReadonlySet<Guid>;
  /**
   * The earliest creation (placement stamp) of a deleted definition within its horizon that
   * no longer says what it names, or null: every definition tombstone deleted after this
   * minus the horizon stays.
   */
  readonly unknownNamesFromMs: number | null;
}

/** Whether the purge must keep the definition tombstone `record` (see above). */
export function keepsDefinition(inUse: DefinitionsInUse, record: ObjectRecord, purgeAfterMs: number): boolean {
  if (inUse.ids.has(record.id)) return true;
  const from = inUse.unknownNamesFromMs;
  return from !== null && isDefinitionRecord(record) && from < record.existence.stamp.atMs + purgeAfterMs;
}

/** The definitions records still holding values, or still restorable elsewhere, depend on (see above); one walk of the store. */
export function definitionsInUse(dir: Directory, nowMs: number, purgeHorizonMs: number): DefinitionsInUse {
  const ids = new Set<Guid>();
  let unknownNamesFromMs: number | null = null;
  for (const record of dir.store.all()) {
    // Alive, or deleted within the restore window; a shredded record holds nothing. An aged
    // delete holds until its own purge horizon (a restore may be on its way).
    const restorable = record.existence.stage === "deleted" && record.existence.stamp.atMs >= purgeHorizonMs;
    if (!restorable && effectiveStage(dir, record, nowMs) === "shredded") continue;
    // A deleted definition hardened here, or arrived as a skeleton (hardened at its source:
    // values gone, the flag is local, and this node's clock may still see it in its window):
    // either way it no longer says what it names.
    if (restorable && isDefinitionRecord(record) && (record.hardened || !holdsValues(record))) {
      const created = record.placement.stamp.atMs;
      if (unknownNamesFromMs === null || created < unknownNamesFromMs) unknownNamesFromMs = created;
    }
    ids.add(record.existence.classId);
    if (!isDefinitionRecord(record)) continue;
    if (record.placement.parent !== null) ids.add(record.placement.parent);
    for (const name of schemaReferences) {
      for (const atom of presentValues(record, name)) if (atom.value !== null) ids.add(atom.value as Guid);
    }
  }
  return { ids, unknownNamesFromMs };
}

/** Whether any attribute of the record holds a present value. */
function holdsValues(record: ObjectRecord): boolean {
  for (const atoms of record.attrs.values()) for (const atom of atoms.values()) if (atom.present) return true;
  return false;
}
