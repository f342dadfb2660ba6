import type { DirectoryNode } from "../../core/node/directory-node";
import type { AtomCursor, ReplicationMessage } from "../../core/repl/messages";
import { decodeMessage, encodeMessage } from "../../core/repl/wire";
import type { FaultConfig } from "../faults";
import { World } from "../world";
import type { LifecycleEvent } from "../world";
import type { WorkMeter } from "../work-meter";
import type { DirectoryOp } from "./directory-op";
import { DirectoryHost, Registry, defaultTiming } from "./directory-host";
import type { HostHooks, ReplicationTiming } from "./directory-host";
import { Ledger } from "./ledger";
import { holdsAcked } from "./oracles";
import { Labels } from "./run-script-op";
import type { Contention, LargeValues, OpMix } from "./workload";
import { directoryWorkload } from "./workload";
import { mesh, neighbours, type Topology } from "../scenario/topology";

export interface DirectoryWorldOptions {
  readonly seed: number | string;
  readonly nodeCount: number;
  readonly faults?: FaultConfig;
  readonly writesPerSecond: number;
  readonly mix?: OpMix;
  /** Ops aimed at a few objects (workload.ts `Contention`); default none. */
  readonly contention?: Contention | null;
  /** A share of `describe` ops writes large values (workload.ts `LargeValues`); default none. */
  readonly largeValues?: LargeValues | null;
  readonly timing?: ReplicationTiming;
  readonly keepTrace?: boolean;
  readonly traceRingLines?: number;
  /** Who pulls from whom (default: every node from every other). */
  readonly topology?: Topology;
  /** Local GC on every node every this many ms of its mono clock (default: never). */
  readonly gcEveryMs?: number | null;
  /** Bytes a pull batch stops at (default limits.batchBytesTarget; Scenario `batchBytes`). */
  readonly batchBytes?: number | null;
  /** Scenario labels shared by every host (scripted ops bind and resolve them). */
  readonly labels?: Labels;
  readonly hooks?: HostHooks;
  /** Cheap whole-state checkers run after every event (World `invariants`). */
  invariants?(): readonly string[];
  /** Told of every lifecycle event after the ledger saw it. */
  observe?(event: LifecycleEvent): void;
  readonly maxEvents?: number;
  /** Told the kind of work as the run moves between kinds (World `meter`). */
  readonly meter?: WorkMeter;
  /** Messages cross the network in their wire form (core/repl/wire.ts; World `wire`). */
  readonly wire?: boolean;
}

export interface DirectoryWorld {
  readonly world: World<ReplicationMessage, DirectoryOp>;
  readonly hosts: ReadonlyMap<string, DirectoryHost>;
  readonly ledger: Ledger;
  readonly registry: Registry;
  readonly labels: Labels;
  /** The running nodes (a crashed node is absent until it restarts). */
  nodes(): Map<string, DirectoryNode>;
  /** Whether `dest` pulls from `source` (the topology's edges; each edge both ways). */
  pullsFrom(dest: string, source: string): boolean;
}

/** A world of directory nodes: n1 founds the domain, the others join and pull. */
export function directoryWorld(options: DirectoryWorldOptions): DirectoryWorld {
  const ids = Array.from({ length: options.nodeCount }, (_, i) => `n${i + 1}`);
  const ledger = new Ledger();
  const registry = new Registry();
  const labels = options.labels ?? new Labels();
  const hosts = new Map<string, DirectoryHost>();
  const peersOf = neighbours(options.topology ?? mesh, ids);
  const world = new World<ReplicationMessage, DirectoryOp>({
    seed: options.seed,
    nodeIds: ids,
    makeNode: (id) => {
      const host = new DirectoryHost({
        simId: id,
        founder: id === ids[0],
        peers: peersOf.get(id) ?? [],
        registry,
        ledger,
        timing: options.timing ?? defaultTiming,
        domainName: "sim.example",
        trueMs: () => world.timeMs,
        gcEveryMs: options.gcEveryMs ?? null,
        batchBytes: options.batchBytes ?? null,
        labels,
        ...(options.hooks ? { hooks: options.hooks } : {}),
      });
      hosts.set(id, host);
      return host;
    },
    ...(options.faults ? { faults: options.faults } : {}),
    ...(options.writesPerSecond > 0
      ? {
          workload: directoryWorkload({
            nodes: ids,
            writesPerSecond: options.writesPerSecond,
            ...(options.mix ? { mix: options.mix } : {}),
            contention: options.contention ?? null,
            largeValues: options.largeValues ?? null,
          }),
        }
      : {}),
    trace: { ringLines: options.traceRingLines ?? 200, keepAll: options.keepTrace ?? false },
    describeMsg: describe,
    observe: (event) => {
      if (event.kind === "rollback" && event.node !== null && event.imageTimeMs !== undefined) {
        const running = [...hosts].flatMap(([id, h]) => (h.node === null ? [] : [[id, h.node] as const]));
        ledger.forgiveRolledBack(event.node, event.imageTimeMs, event.timeMs, (ack, last) => {
          const hinted = last === null ? undefined : hosts.get(last)?.node;
          if (hinted != null && holdsAcked(hinted, ack)) return last;
          // Crashed, not rolled back: its disk still holds the copy (its own rollback re-asks).
          if (last !== null && hinted === null && last !== event.node) return last;
          return running.find(([id, n]) => id !== last && holdsAcked(n, ack))?.[0] ?? null;
        });
      }
      options.observe?.(event);
    },
    ...(options.invariants ? { invariants: options.invariants } : {}),
    ...(options.maxEvents !== undefined ? { maxEvents: options.maxEvents } : {}),
    ...(options.meter ? { meter: options.meter } : {}),
    ...(options.wire === true ? { wire: { encode: encodeMessage, decode: decodeMessage } } : {}),
  });
  return {
    world,
    hosts,
    ledger,
    registry,
    labels,
    nodes() {
      const out = new Map<string, DirectoryNode>();
      for (const [id, host] of hosts) if (host.node !== null) out.set(id, host.node);
      return out;
    },
    pullsFrom: (dest, source) => peersOf.get(dest)?.includes(source) ?? false,
  };
}

/** An object a batch stopped inside: its USN, and the attribute its next part begins in. */
function inside(cursor: AtomCursor | undefined): string {
  if (cursor === undefined) return "";
  return ` inside=${cursor.usn}:${cursor.next[0]}`;
}

function describe(msg: ReplicationMessage): string {
  switch (msg.type) {
    case "pull":
      return `pull#${msg.requestId} wm=${msg.watermark?.usn ?? 0}${inside(msg.watermark?.within)}`;
    case "batch":
      return `batch#${msg.requestId} n=${msg.deltas.length} high=${msg.highUsn}${msg.more ? " more" : ""}${inside(msg.within)}`;
    case "hint":
      return "hint";
    case "refused":
      return `refused#${msg.requestId}`;
  }
}
