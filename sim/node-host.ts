import type { Prng } from "./prng";
import type { SimFs } from "./sim-fs";

/**
 * The contract between the world and a simulated node: the node is driven through
 * SimNodeHost callbacks and acts only through the NodeContext it is handed.
 */

/**
 * What a node sees of the world during a callback. The node acts through it and only during
 * the callback that handed it over: sends, timers and traces outside one are bugs.
 */
export interface NodeContext<Msg> {
  readonly id: string;
  /** The node's wall clock (skewed, drifting, jumping): what Date.now() would say. */
  wallMs(): number;
  /** The node's monotonic clock: drifts, never goes back, meaningless across nodes. */
  monoMs(): number;
  /** The node's own stream; survives crashes (it stands for the machine's entropy). */
  readonly prng: Prng;
  /** The node's disk; survives crashes as the disk model says. */
  readonly fs: SimFs;
  send(to: string, msg: Msg): void;
  /** (Re)arms the timer `name` to fire after afterMs of the node's mono time (rounded up). */
  setTimer(name: string, afterMs: number): void;
  cancelTimer(name: string): void;
  trace(event: string, detail: string): void;
}

/**
 * A node as the world drives it. Every input arrives through one of these calls; the node
 * answers by acting on the context. Volatile state dies in onCrash; onRestart recovers from
 * ctx.fs. Timers do not survive a crash.
 */
export interface SimNodeHost<Msg, Input = never> {
  onStart(ctx: NodeContext<Msg>): void;
  onMessage(ctx: NodeContext<Msg>, from: string, msg: Msg): void;
  onTimer(ctx: NodeContext<Msg>, name: string): void;
  /** A client request from the workload (only when the world has one). */
  onInput?(ctx: NodeContext<Msg>, input: Input): void;
  onCrash(): void;
  onRestart(ctx: NodeContext<Msg>): void;
}

/** Client load: called lazily, one arrival at a time, during the safety phase only. */
export interface Workload<Input> {
  next(prng: Prng, nowMs: number): WorkloadArrival<Input> | null;
}

export interface WorkloadArrival<Input> {
  readonly afterMs: number;
  readonly node: string;
  readonly input: Input;
}

export interface LifecycleEvent {
  readonly kind: "crash" | "rollback" | "restart" | "heal";
  /** The node concerned; null for the heal. */
  readonly node: string | null;
  readonly timeMs: number;
  /** For a rollback: the virtual time the restored disk image was taken. */
  readonly imageTimeMs?: number;
}
