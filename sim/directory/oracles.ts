import type { DirectoryNode } from "../../core/node/directory-node";
import { fold } from "../../core/naming";
import type { ObjectRecord, ValueAtom } from "../../core/store/record";
import { atomLife, lifeOf, residueFloorKey } from "../../core/store/record";
import { compareStamps } from "../../core/store/stamp";
import type { Stamp } from "../../core/store/stamp";
import { EffectiveView } from "../../core/view/effective-view";
import { isGhost } from "../../core/ops/gates";
import { rollbackEvidence } from "../../core/repl/rollback";
import { ownVector } from "../../core/repl/vectors";
import type { AckedAtom, Ledger } from "./ledger";

const st = (s: Stamp): string => `${s.version}/${s.atMs}/${s.origin.slice(0, 8)}`;

/**
 * Every atom a node holds, stamp triples only (cert and localUsn are node-private here).
 * Hardening is local GC on each node's own clock: the value atoms of a tombstone that any
 * node hardened (now, or ever: a disk rollback can bring the unhardened record back) are left
 * out, since the nodes that have not hardened it yet will once their clocks pass the window.
 */
export function atomDigest(
  node: DirectoryNode,
  hardenedSomewhere: ReadonlySet<string> = new Set(),
  residueHorizonMs: number | null = null,
): string {
  const lines: string[] = [];
  const ids = [...node.dir.store.ids()].sort();
  for (const id of ids) {
    const r = node.dir.get(id);
    if (r === undefined) continue;
    // A tombstone older than the latest purge horizon may already be purged elsewhere.
    const purgeable =
      residueHorizonMs !== null && r.existence.stage !== "alive" && r.existence.stamp.atMs < residueHorizonMs;
    if (purgeable) continue;
    const skipAttrs = r.existence.stage === "deleted" && hardenedSomewhere.has(id);
    lines.push(recordLine(skipAttrs ? { ...r, attrs: new Map() } : withoutGcResidue(r, residueHorizonMs)));
  }
  return lines.join("\n");
}

/**
 * GC drops absence residue older than its purge horizon, each node on its own clock, and
 * keeps a local floor atom: floors, and residue older than the latest horizon any node
 * reached, are left out of the comparison (as are tombstones that old, above: each node
 * purges them on its own clock too).
 */
function withoutGcResidue(r: ObjectRecord, horizonMs: number | null): ObjectRecord {
  let touched = false;
  for (const atoms of r.attrs.values()) {
    if (atoms.has(residueFloorKey)) touched = true;
    if (horizonMs !== null) for (const a of atoms.values()) if (!a.present && a.stamp.atMs < horizonMs) touched = true;
  }
  if (!touched) return r;
  const attrs = new Map<string, Map<string, ValueAtom>>();
  for (const [name, atoms] of r.attrs) {
    const kept = new Map(
      [...atoms].filter(
        ([key, a]) => key !== residueFloorKey && (a.present || horizonMs === null || a.stamp.atMs >= horizonMs),
      ),
    );
    if (kept.size > 0) attrs.set(name, kept);
  }
  return { ...r, attrs };
}

function latestPurgeHorizon(nodes: ReadonlyMap<string, DirectoryNode>): number | null {
  let out: number | null = null;
  for (const node of nodes.values()) {
    const h = node.purgeHorizonMs;
    if (h !== null && (out === null || h > out)) out = h;
  }
  return out;
}

function hardenedTombstones(
  nodes: ReadonlyMap<string, DirectoryNode>,
  hardenedEver: ReadonlySet<string>,
): Set<string> {
  const out = new Set<string>(hardenedEver);
  for (const node of nodes.values()) {
    for (const r of node.dir.store.all()) if (r.hardened && r.existence.stage === "deleted") out.add(r.id);
  }
  return out;
}

function recordLine(r: ObjectRecord): string {
  const attrs = [...r.attrs.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(
      ([n, m]) =>
        `${n}{${[...m.values()]
          .map(
            (a) =>
              `${a.key ?? "∅"}=${a.present ? JSON.stringify([a.value, a.meta]) : "absent"}@${st(a.stamp)}L${atomLife(a)}`,
          )
          .sort()
          .join(",")}}`,
    );
  // Every field of the existence atom: deleteRoot decides what a restore brings back, and
  // class and system what the object is (liveness audit, twenty-eighth session: a merge that
  // dropped deleteRoot, or an atom's life, was judged converged).
  const e = r.existence;
  const existence = `${e.stage}@${st(e.stamp)} ${e.classId}:${e.className}${e.system ? ":system" : ""} root=${e.deleteRoot ?? "-"}`;
  return `${r.id} ${existence} ${r.placement.parent ?? "-"}/${JSON.stringify(r.placement.name)}@${st(r.placement.stamp)} ${attrs.join(" ")}`;
}

/** The effective view a user sees: paths, names, flags and stages of alive objects. */
export function viewDigest(node: DirectoryNode, view = new EffectiveView(node.dir)): string {
  const lines: string[] = [];
  for (const id of [...node.dir.store.ids()].sort()) {
    const r = node.dir.get(id);
    if (r === undefined || r.existence.stage !== "alive") continue;
    const f = view.of(r);
    lines.push(
      `${id} ${f.effectiveParent ?? "-"} ${JSON.stringify(f.effectiveName)} ${f.orphaned ? "O" : ""}${f.cycleBroken ? "C" : ""}${f.conflicted ? "N" : ""}`,
    );
  }
  return lines.join("\n");
}

export function schemaDigest(node: DirectoryNode): string {
  const s = node.dir.schema;
  return JSON.stringify([
    s.attributes.map((a) => a.id),
    s.facets.map((f) => f.id),
    s.classes.map((c) => c.id),
    s.extensions.map((e) => e.id),
    s.quarantined.map((q) => q.id),
  ]);
}

/**
 * Oracle 1 (and the schema half of 5): same atoms, same effective view, same schema. Each
 * digest is computed once per node; views only where the atoms already agree. `views` lets a
 * caller share each node's EffectiveView (its facts are cached) with the tree oracle.
 */
export function convergenceViolations(
  nodes: ReadonlyMap<string, DirectoryNode>,
  views: ReadonlyMap<string, EffectiveView> = new Map(),
  hardenedEver: ReadonlySet<string> = new Set(),
): string[] {
  const out: string[] = [];
  const entries = [...nodes.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  const first = entries[0];
  if (first === undefined) return out;
  const [refId, ref] = first;
  const hardened = hardenedTombstones(nodes, hardenedEver);
  const residueHorizon = latestPurgeHorizon(nodes);
  const refAtoms = atomDigest(ref, hardened, residueHorizon);
  const refSchema = schemaDigest(ref);
  let refView: string | null = null;
  for (const [id, node] of entries.slice(1)) {
    const atoms = atomDigest(node, hardened, residueHorizon);
    if (atoms !== refAtoms) {
      out.push(`atoms of ${id} differ from ${refId}: ${firstDiff(atoms, refAtoms, id, refId)}`);
    } else {
      refView ??= viewDigest(ref, views.get(refId));
      const view = viewDigest(node, views.get(id));
      if (view !== refView)
        out.push(
          `effective view of ${id} differs from ${refId}: ${firstDiff(view, refView, id, refId)}`,
        );
    }
    if (schemaDigest(node) !== refSchema) out.push(`schema of ${id} differs from ${refId}`);
  }
  return out;
}

/** The first difference between two digests (one line per object, led by its id). */
function firstDiff(a: string, b: string, nameA: string, nameB: string): string {
  const byId = (digest: string): Map<string, string> => {
    const out = new Map<string, string>();
    for (const line of digest.split("\n")) out.set(line.slice(0, line.indexOf(" ")), line);
    return out;
  };
  const x = byId(a);
  const y = byId(b);
  for (const [id, line] of x) {
    const other = y.get(id);
    if (other === undefined) return readable(`only ${nameA} holds ${line}`);
    if (other !== line) return readable(`${line} vs ${other}`);
  }
  for (const [id, line] of y) if (!x.has(id)) return readable(`only ${nameB} holds ${line}`);
  return "same";
}

/**
 * A digest line as a report prints it: value keys are stored raw (a residue floor's key starts
 * with a lone surrogate, a user's value may hold any control character), and a raw NUL made a
 * failing seed's report a binary file: control characters and lone surrogates are written as
 * JSON escapes.
 */
function readable(line: string): string {
  return line.replace(/[\u0000-\u001f\u007f\ud800-\udfff]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * Oracle 4: the effective parent graph is a tree at the root; alive sibling names unique;
 * listings agree with effective parents: /LostAndFound's names exactly the objects under it,
 * elsewhere an effective parent is the stored one (whose stored children the listing is).
 */
export function treeViolations(
  simId: string,
  node: DirectoryNode,
  view = new EffectiveView(node.dir),
): string[] {
  const out: string[] = [];
  const landmarks = node.dir.landmarks();
  if (landmarks === null) return out;
  const names = new Map<string, string>();
  const underLostAndFound = new Set<string>();
  for (const r of node.dir.store.all()) {
    if (r.existence.stage !== "alive") continue;
    const chain = view.chain(r);
    const top = chain[0];
    if (
      r.id !== landmarks.root &&
      (top === undefined || view.of(top).effectiveParent !== landmarks.root)
    ) {
      out.push(`${simId}: ${r.id} is not connected to the root`);
    }
    const f = view.of(r);
    if (f.effectiveParent === null) continue;
    const parent = node.dir.get(f.effectiveParent);
    if (parent === undefined || parent.existence.stage !== "alive")
      out.push(`${simId}: ${r.id} has a dead effective parent`);
    const key = `${f.effectiveParent}/${fold(f.effectiveName)}`;
    const other = names.get(key);
    if (other !== undefined)
      out.push(`${simId}: ${r.id} and ${other} share the effective name ${f.effectiveName}`);
    names.set(key, r.id);
    if (f.effectiveParent === landmarks.lostAndFound) underLostAndFound.add(r.id);
    // Repairs only ever move an object to /LostAndFound: anywhere else the listing is the
    // stored children, so an effective parent elsewhere must be the stored one.
    else if (f.effectiveParent !== r.placement.parent) {
      out.push(`${simId}: ${r.id} has effective parent ${f.effectiveParent}, neither its stored parent nor /LostAndFound`);
    }
  }
  // Repairs land under /LostAndFound: its listing names exactly the objects whose effective
  // parent it is (a repair the listing misses once hid a cycle breaker; see
  // scenarios/regressions/cycle-closed-by-arriving-record.scn).
  if (landmarks.lostAndFound !== null) {
    const listing = node.children(landmarks.lostAndFound);
    const listed = new Set(listing.ok ? listing.value.map((c) => c.id) : []);
    for (const id of underLostAndFound) {
      if (!listed.has(id)) out.push(`${simId}: ${id} is under /LostAndFound but not in its listing`);
    }
    for (const id of listed) {
      if (!underLostAndFound.has(id)) out.push(`${simId}: ${id} is listed under /LostAndFound but not there`);
    }
    // ...and its stored parent, when that is alive (a broken cycle), no longer lists it.
    const storedParents = new Map<string, string[]>();
    for (const id of underLostAndFound) {
      const parent = node.dir.get(id)?.placement.parent ?? null;
      if (parent === null || parent === landmarks.lostAndFound) continue;
      if (node.dir.get(parent)?.existence.stage !== "alive") continue;
      storedParents.set(parent, [...(storedParents.get(parent) ?? []), id]);
    }
    for (const [parent, ids] of storedParents) {
      const there = node.children(parent);
      const names = new Set(there.ok ? there.value.map((c) => c.id) : []);
      for (const id of ids) if (names.has(id)) out.push(`${simId}: ${id} is under /LostAndFound but listed under ${parent}`);
    }
  }
  return out;
}

export interface DurabilityScope {
  /** Whether `simId`'s GC purged the object (then its absence is legitimate). */
  purged?(simId: string, objectId: string): boolean;
  /** Only acks made by these nodes are judged (null: all). */
  readonly ackedBy?: ReadonlySet<string> | null;
}

/**
 * Oracle 2: every acknowledged atom is on every node with its stamp or a higher one; its
 * object may be missing only when that node purged a tombstone, or never held it while
 * another node purged it (known exactly when the scope says what each node purged, else
 * whenever the node ever ran GC). A value atom is judged only
 * while its object is alive in the life the atom was written in: on a tombstone it is hidden
 * (and hardening erases it), and a restore that began a later life superseded it.
 */
export function durabilityViolations(
  ledger: Ledger,
  nodes: ReadonlyMap<string, DirectoryNode>,
  scope: DurabilityScope = {},
): string[] {
  const out: string[] = [];
  for (const ack of ledger.acked) {
    if (scope.ackedBy != null && !scope.ackedBy.has(ack.node)) continue;
    for (const [simId, node] of nodes) {
      const v = ackViolation(simId, node, ack, scope);
      if (v !== null) out.push(v);
    }
  }
  // Each atom of a missing object gives the same `lacks` line: say it once.
  return [...new Set(out)];
}

/**
 * Whether `node` holds `ack` as oracle 2 judges it at the end of a run, strictly: a missing
 * object counts as not held, purged or not. A disk rollback asks it of the other nodes (see
 * Ledger.forgiveRolledBack): an ack one of them holds was carried away before the rollback
 * and must survive it.
 */
export function holdsAcked(node: DirectoryNode, ack: AckedAtom): boolean {
  // A value atom's copy is its life's or a later one: a tombstone of an earlier life (this
  // node missed the restore the atom was written after) holds nothing of it, though the end
  // of a run skips atoms on tombstones (every node then holds the same existence).
  const r = node.dir.get(ack.objectId);
  if (r === undefined) return false;
  if (ack.life !== undefined && r.existence.stamp.version < ack.life) return false;
  // An excuse is no copy: an atom absent from an alive record passes the end's judgement when
  // this node's GC horizon or residue floor covers its stamp, but this node never had to hold
  // it, and the nodes without such a horizon are blamed at the end (attack on the
  // twenty-seventh session's changes: a clock behind dated the ack before a partner's horizon).
  if (r.existence.stage === "alive" && heldStamp(r, ack.atom) === null) return false;
  return ackViolation("", node, ack, { purged: () => false }) === null;
}

/** Why `node` fails to hold `ack` (oracle 2), or null when it holds it. */
function ackViolation(simId: string, node: DirectoryNode, ack: AckedAtom, scope: DurabilityScope): string | null {
  const r = node.dir.get(ack.objectId);
  if (r === undefined) {
    const excused = scope.purged ? scope.purged(simId, ack.objectId) : node.purgeHorizonMs !== null;
    return excused ? null : `${simId} lacks ${ack.objectId} acked by ${ack.node}`;
  }
  // A value atom on a tombstone is hidden and hardening erases it on each node's own
  // clock; should a restore come, it begins a new life that supersedes the atom anyway
  // (a value atom of an ended life is superseded by the restore that ended it).
  if (ack.life !== undefined && (r.existence.stage !== "alive" || lifeOf(r.existence) > ack.life)) return null;
  const held = heldStamp(r, ack.atom);
  // GC drops absence residue older than its purge horizon (collectGarbage): an atom that
  // old may be gone, here or on the partner this node had the record from. One superseded
  // by dropped residue may be younger (a higher version can carry an earlier time: swarm
  // seed 569, a value written at 34 s lost by version to a removal of 26 s that aged out);
  // the attribute's floor, the highest stamp this node dropped, covers it.
  const gcDropped = node.purgeHorizonMs !== null && ack.stamp.atMs < node.purgeHorizonMs;
  const superseded = gcDropped || underFloor(r, ack.atom, ack.stamp);
  if (held === null && superseded && ack.atom.startsWith("attr")) return null;
  if (held === null) {
    return r.existence.stage === "alive" && !r.hardened
      ? `${simId} lost ${readableAtom(ack.atom)} of ${ack.objectId} acked by ${ack.node}`
      : null;
  }
  // Shredded is absorbing: a shred supersedes any existence claim, whatever its stamp.
  const absorbed = ack.atom === "existence" && r.existence.stage === "shredded";
  return !absorbed && compareStamps(held, ack.stamp) < 0
    ? `${simId} holds ${readableAtom(ack.atom)} of ${ack.objectId} older than acked`
    : null;
}

/** An atom key as a person reads it: its parts are NUL-separated (`attr\0name\0value`). */
function readableAtom(atom: string): string {
  return atom.replaceAll("\u0000", "/");
}

/** Whether the attribute of `atom` has a residue floor at or above `stamp`. */
function underFloor(r: ObjectRecord, atom: string, stamp: Stamp): boolean {
  const [, name] = atom.split("\u0000");
  const floor = r.attrs.get(name ?? "")?.get(residueFloorKey);
  return floor !== undefined && compareStamps(floor.stamp, stamp) >= 0;
}

function heldStamp(r: ObjectRecord, atom: string): Stamp | null {
  if (atom === "existence") return r.existence.stamp;
  if (atom === "placement") return r.placement.stamp;
  const [, name, key] = atom.split("\u0000");
  const a = r.attrs.get(name ?? "")?.get(key ?? "");
  return a?.stamp ?? null;
}

/**
 * Oracle 5 (per node, at the end): no definition is quarantined for want of a dependency, and
 * no alive object is a ghost of a class the node lacks. Quarantine that no delivery can lift
 * stays legitimate: a caseless duplicate name (two nodes defined the same namespace or
 * definition concurrently; the lowest id wins, the rest wait), a deleted namespace, and what
 * waits on those. So do ghosts of a deleted class: a node deleted the class (unused there)
 * while another created an instance of it; the merge keeps both, and the instance stays a
 * ghost on every node (swarm seed 37 with schema life).
 */
export function schemaViolations(simId: string, node: DirectoryNode): string[] {
  const out: string[] = [];
  const quarantined = new Set(node.dir.schema.quarantined.map((q) => q.id));
  for (const q of node.dir.schema.quarantined) {
    if (waitsForDelivery(q.reason)) out.push(`${simId}: ${q.name} (${q.id}) still quarantined: ${q.reason}`);
  }
  if (node.dir.landmarks() === null) return out;
  for (const r of node.dir.store.all()) {
    if (
      r.existence.stage !== "alive" ||
      !isGhost(node.dir, r) ||
      quarantined.has(r.existence.classId) ||
      (node.dir.get(r.existence.classId)?.existence.stage ?? "alive") !== "alive"
    )
      continue;
    out.push(`${simId}: ${r.id} is still a ghost (${r.existence.className})`);
  }
  return out;
}

/**
 * Whether a quarantine reason names a dependency not delivered: one of its problems (the
 * compiler joins several with "; ") is "waiting for <kind> <id>" alone. Until the twenty-eighth
 * session only a reason of that one problem counted, and a definition waiting for two missing
 * dependencies passed (schema audit).
 */
export function waitsForDelivery(reason: string): boolean {
  return reason.split("; ").some((problem) => /^waiting for \S+ \S+$/u.test(problem));
}

/**
 * Oracle 6 (at the end, after the heal): no node is still latched, and no node's vector still
 * holds evidence against a node it pulls from that that node has not acted upon (a rolled-back
 * node that a partner could expose was detected). Only a node's direct partners can show it
 * evidence: a vector reaches a node only in the requests of the nodes that pull from it, and
 * vectors keep a farther node's entries only to dampen (core/repl/vector-bound.ts), so a
 * farther node may still hold entries of a lost future the node never saw, once the node
 * learned of its rollback from a direct partner (swarm --preset rollback seed 6026, star).
 */
export function rollbackViolations(
  nodes: ReadonlyMap<string, DirectoryNode>,
  pullsFrom: (dest: string, source: string) => boolean = () => true,
): string[] {
  const out: string[] = [];
  const entries = [...nodes.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  for (const [simId, node] of entries) {
    if (node.dir.rollbackLatched) out.push(`${simId} is still rollback-latched after the heal`);
    for (const [otherId, other] of entries) {
      if (otherId === simId || !pullsFrom(otherId, simId)) continue;
      const evidence = rollbackEvidence(
        node.dir,
        node.replication,
        ownVector(other.dir, other.replication),
      );
      if (evidence.length > 0)
        out.push(`${otherId} holds evidence that ${simId} was rolled back, not acted upon`);
    }
  }
  return out;
}
