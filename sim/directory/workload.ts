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

/** Random client ops at a mean rate across the given nodes (exponential gaps). */
export function directoryWorkload(options: {
  readonly nodes: readonly string[];
  readonly writesPerSecond: number;
  readonly mix?: OpMix;
  readonly contention?: Contention | null;
}): Workload<DirectoryOp> {
  const mix = options.mix ?? defaultMix;
  const kinds = (Object.keys(mix) as DirectoryOpKind[]).sort().filter((k) => (mix[k] ?? 0) > 0);
  const total = kinds.reduce((s, k) => s + (mix[k] ?? 0), 0);
  const meanGapMs = 1000 / Math.max(options.writesPerSecond, 1e-6);
  const contention = options.contention ?? null;
  let hot: Prng | null = null;
  return {
    next(prng: Prng) {
      const arrival = nextArrival(prng);
      if (contention === null) return arrival;
      hot ??= prng.fork("hot");
      if (!hot.chance(contention.share)) return arrival;
      return { ...arrival, input: aimAtHot(arrival.input, hot, contention.objects) };
    },
  };

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
    case "delete":
    case "restore":
    case "shred":
      return { kind, pick };
    case "schema":
      return {
        kind,
        namespace: prng.pick(["com.example", "org.acme"]),
        attribute: `attr${prng.int(0, 3)}`,
      };
  }
}
