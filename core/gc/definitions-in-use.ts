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
 * What the purge must keep: `ids`, or every definition tombstone when `all`.
 * A deleted record aged past its restore window here may still come back: a restore made on
 * another node inside the window (by its clock) can arrive after this node's GC judged the
 * window over (adversarial-scenario audit, twenty-third session: the GC purged an attribute a
 * facet restored elsewhere named, and the facet stayed quarantined on this node for good while
 * the other node compiled it). The window in effect is at most half the purge horizon
 * (core/directory.ts `replicationConfig`), so such a restore arrives before the record's own
 * purge: until then the record keeps what it names. Once hardened it no longer says which
 * definitions it names (its values are gone), so a hardened definition keeps them all; so does
 * one that arrived hardened at its source (a skeleton without values: the flag is local, and
 * a receiver whose clock is behind still sees it inside its window; second scenario audit).
 */
export interface DefinitionsInUse {
  readonly ids: ReadonlySet<Guid>;
  readonly all: boolean;
}

/** The definitions records still holding values, or still restorable elsewhere, depend on (see above); one walk of the store. */
export function definitionsInUse(dir: Directory, nowMs: number, purgeHorizonMs: number): DefinitionsInUse {
  const ids = new Set<Guid>();
  let all = false;
  for (const record of dir.store.all()) {
    // Alive, or deleted within the restore window; a shredded record holds nothing. An aged
    // delete holds until its own purge horizon (a restore may be on its way).
    const restorable = record.existence.stage === "deleted" && record.existence.stamp.atMs >= purgeHorizonMs;
    if (!restorable && effectiveStage(dir, record, nowMs) === "shredded") continue;
    // A deleted definition hardened here, or arrived as a skeleton (hardened at its source:
    // values gone, the flag is local, and this node's clock may still see it in its window):
    // either way it no longer says what it names.
    if (restorable && isDefinitionRecord(record) && (record.hardened || !holdsValues(record))) all = true;
    ids.add(record.existence.classId);
    if (!isDefinitionRecord(record)) continue;
    if (record.placement.parent !== null) ids.add(record.placement.parent);
    for (const name of schemaReferences) {
      for (const atom of presentValues(record, name)) if (atom.value !== null) ids.add(atom.value as Guid);
    }
  }
  return { ids, all };
}

/** Whether any attribute of the record holds a present value. */
function holdsValues(record: ObjectRecord): boolean {
  for (const atoms of record.attrs.values()) for (const atom of atoms.values()) if (atom.present) return true;
  return false;
}
