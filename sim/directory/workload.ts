import { matchings, syntaxes } from "../../core/syntax";
import type { Prng } from "../prng";
import type { Workload } from "../world";
import type { DirectoryOp, DirectoryOpKind } from "./directory-op";

/** Relative weights of op kinds; a scenario may override any of them. */
export type OpMix = Readonly<Partial<Record<DirectoryOpKind, number>>>;

export const defaultMix: OpMix = {
  create: 30,
  rename: 8,
  move: 8,
  describe: 15,
  displayName: 10,
  member: 12,
  delete: 6,
  restore: 4,
  shred: 2,
  schema: 1,
};

/**
 * Schema life: the op kinds that define facets, classes and extensions, instantiate namespaced
 * classes, attach namespaced facets, write namespaced attributes, delete (or shred) namespaced
 * definitions and restore deleted ones (sim/directory/run-schema-op.ts). Not in `defaultMix` (a scenario names them in its `mix`; swarm seeds draw them
 * from their own stream), so that a run without them is what it was.
 */
export const schemaLifeKinds = [
  "facet",
  "class",
  "extension",
  "instance",
  "attach",
  "custom",
  "undefine",
  "redefine",
] as const;

/**
 * Member meta: `expiry` sets or clears the expiry meta (SPEC: `member` has legalMeta `expiry`)
 * of one value of a group's members, the only meta the base schema permits, so that concurrent
 * meta changes of one value merge. Not in `defaultMix`, as schema life.
 */
export const memberMetaKinds = ["expiry"] as const;

/**
 * Window changes: `window` sets the restore window (timeUntilShred) to 5 s, 15 s, 30 s or a
 * day from whichever node the op lands on, so nodes age and harden tombstones under different
 * windows until the last write wins everywhere, while restores race them. Not in `defaultMix`.
 */
export const windowKinds = ["window"] as const;

const windowSeconds = [5, 15, 30, 86_400];

/**
 * Typed values: `typedAttribute` defines namespaced attributes of every syntax, single- or
 * multi-valued, caseless or exact, some with legalMeta; `typedWrite` writes their values with
 * meta (sim/directory/run-typed-op.ts). Names are shared with each other and with the `schema`
 * kind's string attributes, so nodes define one name with different bodies concurrently. Not
 * in `defaultMix`.
 */
export const typedValueKinds = ["typedAttribute", "typedWrite"] as const;

/** Namespaces and definition names drawn from small sets, so that nodes define the same ones. */
const namespaces = ["com.example", "org.acme"];

const names = [
  "Sales",
  "sales",
  "SALES",
  "Eng",
  "Ops",
  "Straße",
  "STRASSE",
  "Café",
  "Cafe\u0301",
  "Admins",
  "Bob",
  "Alice",
];
const classes = ["organizationalUnit", "user", "group"] as const;

/**
 * Contention: that share of ops aims at one of the first `objects` entries of the node's pick
 * lists (its oldest objects of the class, which every node holds early) instead of anywhere,
 * so concurrent renames, moves (cycles among a few containers), member edits, deletes,
 * restores and shreds meet on the same objects across nodes. Drawn from its own stream (the
 * workload stream's fork `hot`), so without it every op is what it was.
 */
export interface Contention {
  readonly share: number;
  readonly objects: number;
}

/**
 * Large values: that share of `describe` ops writes values of `minBytes`-`maxBytes` (drawn
 * log-uniformly, SPEC's largest is 1 MiB) instead of a few bytes, so that whole records of
 * megabytes go through logs that rotate at 4 MiB, snapshots, erasures, and pull batches bounded
 * in bytes (limits.batchBytesTarget). Drawn from its own stream (the workload stream's fork
 * `large`), so without it every op is what it was.
 */
export interface LargeValues {
  readonly share: number;
  readonly minBytes: number;
  readonly maxBytes: number;
}

/** Random client ops at a mean rate across the given nodes (exponential gaps). */
export function directoryWorkload(options: {
  readonly nodes: readonly string[];
  readonly writesPerSecond: number;
  readonly mix?: OpMix;
  readonly contention?: Contention | null;
  readonly largeValues?: LargeValues | null;
}): Workload<DirectoryOp> {
  const mix = options.mix ?? defaultMix;
  const kinds = (Object.keys(mix) as DirectoryOpKind[]).sort().filter((k) => (mix[k] ?? 0) > 0);
  const total = kinds.reduce((s, k) => s + (mix[k] ?? 0), 0);
  const meanGapMs = 1000 / Math.max(options.writesPerSecond, 1e-6);
  const contention = options.contention ?? null;
  const large = options.largeValues ?? null;
  let hot: Prng | null = null;
  let big: Prng | null = null;
  return {
    next(prng: Prng) {
      const arrival = withLargeValues(nextArrival(prng), prng);
      if (contention === null) return arrival;
      hot ??= prng.fork("hot");
      if (!hot.chance(contention.share)) return arrival;
      return { ...arrival, input: aimAtHot(arrival.input, hot, contention.objects) };
    },
  };

  function withLargeValues<A extends { readonly input: DirectoryOp }>(arrival: A, prng: Prng): A {
    const op = arrival.input;
    if (large === null || op.kind !== "describe" || op.values.length === 0) return arrival;
    big ??= prng.fork("large");
    if (!big.chance(large.share)) return arrival;
    const stream = big;
    const bytes = (): number =>
      Math.round(Math.exp(stream.range(Math.log(large.minBytes), Math.log(large.maxBytes))));
    // Lowercase filler: the caseless key of a value is the value itself.
    const values = op.values.map((v) => `${v}-`.padEnd(Math.max(bytes(), v.length + 1), "abcdefghij"));
    return { ...arrival, input: { ...op, values } };
  }

  function nextArrival(prng: Prng): { afterMs: number; node: string; input: DirectoryOp } {
    let roll = prng.float() * total;
    let kind: DirectoryOpKind = kinds[0] ?? "create";
    for (const k of kinds) {
      roll -= mix[k] ?? 0;
      if (roll < 0) {
        kind = k;
        break;
      }
    }
    return {
      afterMs: Math.max(1, Math.round(prng.exponential(meanGapMs))),
      node: prng.pick(options.nodes),
      input: makeOp(prng, kind),
    };
  }
}

/** The op with its picks among the first `objects` entries of the lists they index. */
function aimAtHot(op: DirectoryOp, hot: Prng, objects: number): DirectoryOp {
  if (!("pick" in op)) return op;
  const aim = (): number => hot.int(0, objects - 1);
  switch (op.kind) {
    case "move":
      return { ...op, pick: aim(), parentPick: aim() };
    case "member":
      return { ...op, pick: aim(), memberPick: aim() };
    default:
      return { ...op, pick: aim() };
  }
}

export function makeOp(prng: Prng, kind: DirectoryOpKind): DirectoryOp {
  const pick = prng.uint32();
  const name = `${prng.pick(names)}${prng.chance(0.5) ? "" : ` ${prng.int(1, 20)}`}`;
  switch (kind) {
    case "create":
      return { kind, pick, name, className: prng.pick(classes) };
    case "rename":
      return { kind, pick, name };
    case "move":
      return { kind, pick, parentPick: prng.uint32() };
    case "describe":
      return {
        kind,
        pick,
        values: Array.from({ length: prng.int(0, 3) }, () => `d${prng.int(0, 5)}`),
      };
    case "displayName":
      return { kind, pick, value: prng.chance(0.2) ? null : `Name ${prng.int(0, 9)}` };
    case "member":
      return { kind, pick, memberPick: prng.uint32(), add: prng.chance(0.6) };
    case "expiry":
      return { kind, pick, memberPick: prng.uint32(), days: prng.chance(0.25) ? null : prng.int(0, 3) };
    case "window":
      return { kind, seconds: prng.pick(windowSeconds) };
    case "delete":
    case "restore":
    case "shred":
      return { kind, pick };
    case "schema":
      return {
        kind,
        namespace: prng.pick(namespaces),
        attribute: `attr${prng.int(0, 3)}`,
      };
    case "facet":
      return {
        kind,
        namespace: prng.pick(namespaces),
        name: `facet${prng.int(0, 2)}`,
        attributePicks: Array.from({ length: prng.int(1, 2) }, () => prng.uint32()),
      };
    case "class":
      return {
        kind,
        namespace: prng.pick(namespaces),
        name: `class${prng.int(0, 2)}`,
        facetPick: prng.chance(0.3) ? null : prng.uint32(),
      };
    case "extension":
      return {
        kind,
        namespace: prng.pick(namespaces),
        name: `ext${prng.int(0, 1)}`,
        targetPick: prng.uint32(),
        facetPick: prng.uint32(),
      };
    case "instance":
      return { kind, pick, classPick: prng.uint32(), name };
    case "attach":
      return { kind, pick, facetPick: prng.uint32(), add: prng.chance(0.7) };
    case "custom":
      return { kind, pick, attributePick: prng.uint32(), value: `v${prng.int(0, 9)}` };
    case "undefine":
      return { kind, pick, shred: prng.chance(0.3) };
    case "typedAttribute":
      return {
        kind,
        namespace: prng.pick(namespaces),
        name: prng.chance(0.3) ? `attr${prng.int(0, 3)}` : `typed${prng.int(0, 2)}`,
        syntax: prng.pick(syntaxes),
        singleValued: prng.chance(0.4),
        matching: prng.pick(matchings),
        metaPicks: Array.from({ length: prng.int(0, 2) }, () => prng.uint32()),
      };
    case "typedWrite":
      return {
        kind,
        pick,
        attributePick: prng.uint32(),
        valuePick: prng.uint32(),
        metaPick: prng.chance(0.4) ? prng.uint32() : null,
        metaValuePick: prng.uint32(),
        remove: prng.chance(0.3),
      };
    case "redefine":
      return { kind, pick };
  }
}
