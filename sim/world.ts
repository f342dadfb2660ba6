import { assert, assertNever } from "../core/assert";
import { NodeClock, defaultEpochMs } from "./clock";
import { EventQueue } from "./event-queue";
import type { FaultConfig, FaultSource, FaultTarget, PowerCutOptions } from "./faults";
import { faultSources, isLogCommitCall, presetFaults, skewedClock } from "./faults";
import { Network } from "./network";
import type { NetworkStats } from "./network";
import { Prng } from "./prng";
import { SimFs } from "./sim-fs";
import type { CrashReport, FsOp, SimFsImage, SimFsOptions } from "./sim-fs";
import { Trace, defaultTraceOptions } from "./trace";
import type { TraceOptions } from "./trace";
import { timerKind, workKinds } from "./work-meter";
import type { WorkMeter } from "./work-meter";
import type {
  LifecycleEvent,
  NodeContext,
  SimNodeHost,
  Workload,
  WorkloadArrival,
} from "./node-host";

export type { LifecycleEvent, NodeContext, SimNodeHost, Workload, WorkloadArrival };

export interface WorldOptions<Msg, Input = never> {
  readonly seed: number | string;
  readonly nodeIds: readonly string[];
  makeNode(id: string): SimNodeHost<Msg, Input>;
  /** Defaults to the `none` preset. */
  readonly faults?: FaultConfig;
  readonly workload?: Workload<Input>;
  /** True wall time at virtual time 0; defaults to 2026-01-01T00:00:00Z. */
  readonly epochMs?: number;
  /** Hard bound on processed events over the world's life. */
  readonly maxEvents?: number;
  readonly trace?: TraceOptions;
  /** Renders a message for the trace; without it a delivery traces only its sender. */
  describeMsg?(msg: Msg): string;
  /** Told of every crash, rollback, restart and the heal, after the world acted; for oracles. */
  observe?(event: LifecycleEvent): void;
  /** Whole-state checkers run after every event; any violation fails the seed. */
  invariants?(): readonly string[];
  /** Disk model of every node; defaults to strict POSIX directory durability. */
  readonly disk?: SimFsOptions;
  /** At heal, step every clock to true time and stop drift (default true). */
  readonly resyncClocksAtHeal?: boolean;
  /** Told the kind of work before each event and before the invariants (bench/sim-speed). */
  readonly meter?: WorkMeter;
  /**
   * When set, every message crosses the network as text: encoded once when sent, decoded
   * afresh at each delivery, so sender and receivers share nothing (as on a real link).
   */
  readonly wire?: WireCodec<Msg>;
}

/** A message's text form and back (core/repl/wire.ts for replication messages). */
export interface WireCodec<Msg> {
  encode(msg: Msg): string;
  decode(text: string): Msg;
}

export type RunStop = "time" | "predicate" | "quiescent" | "event-bound";

export interface ScenarioOptions {
  readonly safetyMs: number;
  readonly livenessMs: number;
  converged(): boolean;
  /** How often (virtual ms) convergence is checked in the liveness phase. */
  readonly checkEveryMs?: number;
}

export interface ScenarioResult {
  readonly converged: boolean;
  /** Virtual time at which convergence was first seen, or null. */
  readonly convergedAtMs: number | null;
  readonly stop: RunStop;
  readonly events: number;
  readonly traceHash: string;
}

/** A failed seed: the cause plus everything needed to reproduce and read it. */
export class SimFailure extends Error {
  override readonly name = "SimFailure";
  constructor(
    readonly seed: string,
    readonly timeMs: number,
    readonly reason: string,
    readonly traceTail: readonly string[],
    options?: { cause: unknown },
  ) {
    super(`seed ${seed} failed at t=${timeMs}: ${reason}`, options);
  }
}

type Event<Msg> =
  | {
      readonly kind: "deliver";
      readonly from: number;
      readonly to: number;
      /** The message itself, or null when it travels as `text` (WorldOptions `wire`). */
      readonly msg: Msg | null;
      readonly text: string | null;
    }
  | { readonly kind: "timer"; readonly node: number; readonly name: string; readonly gen: number }
  | { readonly kind: "restart"; readonly node: number; readonly incarnation: number }
  | { readonly kind: "fault"; readonly source: number }
  | { readonly kind: "workload" };

/** The kind of work an event is, for a `WorkMeter`. */
function workKindOf(event: Event<unknown>): string {
  switch (event.kind) {
    case "deliver":
      return workKinds.message;
    case "timer":
      return timerKind(event.name);
    case "restart":
      return workKinds.boot;
    case "fault":
      return workKinds.fault;
    case "workload":
      return workKinds.write;
    default:
      return assertNever(event, "event");
  }
}

const defaultMaxEvents = 50_000_000;

/**
 * The deterministic world: nodes, clocks, disks and network on one virtual timeline.
 *
 * Determinism: one seed; every random choice comes from a fork of it named after its use
 * (`net`, `workload`, `faults/<class>`, `node/<id>`, `disk/<id>`, `clock/<id>`); events pop
 * in (time, insertion) order; nodes are iterated in sorted id order. Nothing reads real time.
 *
 * Phases: the safety phase runs the workload and the fault sources; `heal()` ends it (network
 * healed and quiet, down nodes restarted, clocks resynced, workload and faults stopped);
 * the liveness phase then runs until the caller's convergence predicate holds.
 */
export class World<Msg, Input = never> implements FaultTarget {
  readonly seed: string;
  readonly nodeIds: readonly string[];
  readonly network: Network;
  readonly trace: Trace;
  readonly faults: FaultConfig;
  private readonly slots: NodeSlot<Msg, Input>[];
  private readonly queue = new EventQueue<Event<Msg>>();
  private readonly sources: FaultSource[];
  private readonly images = new Map<string, SimFsImage>();
  private readonly imageTimes = new Map<string, number>();
  private readonly workloadPrng: Prng;
  private readonly delays: number[] = [0, 0];
  /** "from=<id>" per node index, built once: delivery traces allocate no prefix string. */
  private readonly fromDetail: readonly string[];
  private readonly maxEvents: number;
  private nowMs = 0;
  private eventCount = 0;
  private started = false;
  private healed = false;
  private active: NodeSlot<Msg, Input> | null = null;
  private timerGen = 0;
  /** The one workload arrival scheduled and not yet run. */
  private pendingArrival: WorkloadArrival<Input> | null = null;

  constructor(private readonly options: WorldOptions<Msg, Input>) {
    const root = new Prng(options.seed);
    this.seed = root.seedText;
    this.faults = options.faults ?? presetFaults("none");
    this.network = new Network(options.nodeIds, root.fork("net"), this.faults.network);
    this.nodeIds = this.network.ids;
    this.fromDetail = this.nodeIds.map((id) => `from=${id}`);
    assert(this.nodeIds.length >= 1, "a world has nodes");
    this.trace = new Trace(options.trace ?? defaultTraceOptions);
    this.maxEvents = options.maxEvents ?? defaultMaxEvents;
    this.workloadPrng = root.fork("workload");
    this.sources = faultSources(this.faults, root.fork("faults"));
    const epochMs = options.epochMs ?? defaultEpochMs;
    this.slots = this.nodeIds.map((id, index) => {
      const clockPrng = root.fork(`clock/${id}`);
      const monoBaseMs = clockPrng.int(0, 1_000_000_000);
      const skew = this.faults.clocks ? skewedClock(this.faults.clocks, clockPrng) : null;
      const clock = new NodeClock({
        epochMs,
        offsetMs: skew?.offsetMs ?? 0,
        driftPpm: skew?.driftPpm ?? 0,
        monoBaseMs,
      });
      const host = options.makeNode(id);
      const fs = new SimFs(options.disk ?? { strictDirs: true });
      return new NodeSlot<Msg, Input>(this, { id, index, host, clock, fs, root });
    });
  }

  /** Virtual (true) time in ms. */
  get timeMs(): number {
    return this.nowMs;
  }

  get events(): number {
    return this.eventCount;
  }

  get isHealed(): boolean {
    return this.healed;
  }

  get networkStats(): Readonly<NetworkStats> {
    return this.network.stats;
  }

  node(id: string): NodeContext<Msg> {
    return this.slot(id);
  }

  host(id: string): SimNodeHost<Msg, Input> {
    return this.slot(id).host;
  }

  clock(id: string): NodeClock {
    return this.slot(id).clock;
  }

  isUp(id: string): boolean {
    return this.slot(id).up;
  }

  /** Nodes down, or up with a power cut armed (they are as good as down for fault budgets). */
  downCount(): number {
    return this.slots.filter((s) => !s.up || s.fs.powerCutArmed).length;
  }

  powerCutArmed(id: string): boolean {
    return this.slot(id).fs.powerCutArmed;
  }

  /** Starts every node (sorted order) and arms the workload and the fault sources. */
  start(): void {
    assert(!this.started, "a world starts once");
    this.started = true;
    for (const slot of this.slots) {
      this.trace.record(this.nowMs, slot.id, "start", "");
      this.call(slot, () => slot.host.onStart(slot));
    }
    this.sources.forEach((source, index) => {
      this.queue.push(this.nowMs + source.firstDelayMs(), { kind: "fault", source: index });
    });
    if (this.options.workload) this.scheduleWorkload();
  }

  /**
   * Processes events due at or before untilMs, then sets the time to untilMs. Stops early
   * when `stop` holds (checked every checkEveryMs of virtual time, 0 = after every event),
   * or at the event bound.
   */
  runUntil(untilMs: number, stop?: () => boolean, checkEveryMs = 0): RunStop {
    assert(this.started, "start() before run");
    assert(Number.isSafeInteger(untilMs), "virtual times are whole milliseconds");
    assert(untilMs >= this.nowMs, "time only moves forward");
    let nextCheckMs = this.nowMs;
    for (;;) {
      if (stop !== undefined && this.nowMs >= nextCheckMs) {
        if (stop()) return "predicate";
        nextCheckMs = this.nowMs + checkEveryMs;
      }
      const due = this.queue.peekTimeMs();
      if (due === null || due > untilMs) break;
      if (this.eventCount >= this.maxEvents) return "event-bound";
      this.step();
    }
    this.nowMs = untilMs;
    return "time";
  }

  /** Runs until no event is left (or maxMs). Worlds with periodic timers never get there. */
  runUntilQuiescent(maxMs: number): RunStop {
    assert(this.started, "start() before run");
    for (;;) {
      const due = this.queue.peekTimeMs();
      if (due === null) return "quiescent";
      if (due > maxMs) return "time";
      if (this.eventCount >= this.maxEvents) return "event-bound";
      this.step();
    }
  }

  /** Safety phase with faults, heal, then a quiet liveness phase until convergence. */
  runScenario(scenario: ScenarioOptions): ScenarioResult {
    if (!this.started) this.start();
    const safetyEnd = this.nowMs + scenario.safetyMs;
    let stop = this.runUntil(safetyEnd);
    let convergedAtMs: number | null = null;
    if (stop === "time") {
      this.heal();
      const converged = (): boolean => {
        const ok = scenario.converged();
        if (ok) convergedAtMs = this.nowMs;
        return ok;
      };
      stop = this.runUntil(safetyEnd + scenario.livenessMs, converged, scenario.checkEveryMs ?? 0);
      if (stop === "time" && converged()) stop = "predicate";
    }
    return {
      converged: convergedAtMs !== null,
      convergedAtMs,
      stop,
      events: this.eventCount,
      traceHash: this.trace.hashHex(),
    };
  }

  /** Ends the safety phase: see the class comment. Idempotent. */
  heal(): void {
    if (this.healed) return;
    this.healed = true;
    this.network.heal();
    this.network.setConfig({ ...this.network.getConfig(), lossP: 0, dupP: 0 });
    this.trace.record(this.nowMs, "-", "heal", "");
    if (this.options.resyncClocksAtHeal ?? true) {
      for (const slot of this.slots) slot.clock.resync(this.nowMs);
    }
    for (const slot of this.slots) {
      if (slot.fs.errorArmed) {
        slot.fs.disarmError();
        this.trace.record(this.nowMs, slot.id, "disk-error-disarmed", "");
      }
      if (!slot.fs.powerCutArmed) continue;
      slot.fs.clearPowerCut();
      this.trace.record(this.nowMs, slot.id, "power-cut-disarmed", "");
    }
    for (const slot of this.slots) {
      if (!slot.up) this.restart(slot);
    }
    this.options.observe?.({ kind: "heal", node: null, timeMs: this.nowMs });
  }

  /**
   * Hands an input to an up node now, as the workload would; for tests and scripted
   * scenarios that drive clients by hand.
   */
  inject(id: string, input: Input): void {
    const slot = this.slot(id);
    const onInput = slot.host.onInput;
    assert(onInput !== undefined, "the node implements onInput");
    assert(slot.up, `inject into an up node (${id})`);
    this.trace.record(this.nowMs, slot.id, "input", "");
    this.call(slot, () => onInput.call(slot.host, slot, input));
  }

  /** Fails the seed with context (trace tail, time) when a checker finds a violation. */
  fail(reason: string, cause?: unknown): never {
    const tail = this.trace.tail();
    const options = cause === undefined ? undefined : { cause };
    throw new SimFailure(this.seed, this.nowMs, reason, tail, options);
  }

  // ---- FaultTarget: also usable directly by tests and scenarios. ----

  partition(groups: string[][]): void {
    this.network.partition(groups);
    this.trace.record(this.nowMs, "-", "partition", groups.map((g) => g.join(",")).join(" | "));
  }

  cut(from: string, to: string): void {
    this.network.cut(from, to);
    this.trace.record(this.nowMs, "-", "cut", `${from}->${to}`);
  }

  healNetwork(): void {
    this.network.heal();
    this.trace.record(this.nowMs, "-", "heal-network", "");
  }

  crash(id: string, options: { readonly downMs: number; readonly tornTail: boolean }): void {
    const slot = this.slot(id);
    assert(slot.up, `crash of an up node (${id})`);
    this.kill(slot);
    const report = slot.fs.crash(slot.diskPrng, { tornTail: options.tornTail });
    this.trace.record(this.nowMs, id, "crash", diskDamage(report));
    this.options.observe?.({ kind: "crash", node: id, timeMs: this.nowMs });
    this.scheduleRestart(slot, options.downMs);
  }

  /**
   * Arms a power cut inside the node's coming storage writes (SimFs.armPowerCut): the node
   * crashes just before its `afterWrites`-th mutating disk call from now, whatever it is
   * doing, with unsynced bytes lost or torn; nothing it would do after that in the same
   * callback (sends, timers, traces) happens. The world restarts it after downMs. Armed on
   * a down node, it strikes inside the node's next boot. A crash, rollback or the heal before
   * it strikes disarms it.
   */
  armPowerCut(id: string, options: PowerCutOptions): void {
    const slot = this.slot(id);
    assert(!slot.fs.powerCutArmed, `one power cut armed at a time (${id})`);
    slot.cutDownMs = options.downMs;
    const { afterWrites, tornTail, beyondCommits, keepUnsynced } = options;
    const counts = countedCalls(beyondCommits);
    slot.fs.armPowerCut({
      afterWrites,
      tornTail,
      prng: slot.diskPrng,
      ...(counts ? { counts } : {}),
      ...(keepUnsynced ? { keepUnsynced } : {}),
    });
    const detail = `after=${afterWrites}${beyondCommits ? " beyond-commits" : ""}${keepUnsynced ? " kept" : ""}`;
    this.trace.record(this.nowMs, id, "power-cut-armed", detail);
  }

  /**
   * Arms one transient I/O error on the node's disk (SimFs.armError): its `afterWrites`-th
   * mutating call from now fails with EIO and no effect; later calls work. What the node makes
   * of it is the node's: a store that caught it (a failed background rebuild) goes on; one that
   * threw it out of the callback (storage dead) is restarted by its operator after `downMs`,
   * the process only: the disk keeps every write, synced or not, as the page cache would. The
   * heal disarms one that has not struck.
   */
  armDiskError(id: string, options: { readonly afterWrites: number; readonly beyondCommits: boolean; readonly downMs: number }): void {
    const slot = this.slot(id);
    slot.errorDownMs = options.downMs;
    const counts = countedCalls(options.beyondCommits);
    slot.fs.armError({ afterWrites: options.afterWrites, ...(counts ? { counts } : {}) });
    const detail = `after=${options.afterWrites}${options.beyondCommits ? " beyond-commits" : ""}`;
    this.trace.record(this.nowMs, id, "disk-error-armed", detail);
  }

  jumpClock(id: string, deltaMs: number): void {
    this.slot(id).clock.jump(this.nowMs, deltaMs);
    this.trace.record(this.nowMs, id, "clock-jump", String(deltaMs));
  }

  takeImage(id: string, key: string): void {
    this.images.set(`${id}/${key}`, this.slot(id).fs.image());
    this.imageTimes.set(`${id}/${key}`, this.nowMs);
    this.trace.record(this.nowMs, id, "disk-image", key);
  }

  /**
   * Restores a disk image taken earlier (the node's disk restored to an older state). An up
   * node is stopped first and restarts after `downMs`; a down node's disk is restored where it
   * lies, and the node restarts when its crash said (the usual way a disk is restored: the
   * machine stopped; a scripted rollback of a down node was skipped without a word).
   */
  rollback(id: string, key: string, downMs: number): void {
    const slot = this.slot(id);
    const image = this.images.get(`${id}/${key}`);
    assert(image !== undefined, `image ${key} of ${id} exists`);
    const wasUp = slot.up;
    if (wasUp) this.kill(slot);
    this.images.delete(`${id}/${key}`);
    slot.fs.restore(image);
    const imageTimeMs = this.imageTimes.get(`${id}/${key}`) ?? this.nowMs;
    this.imageTimes.delete(`${id}/${key}`);
    this.trace.record(this.nowMs, id, "rollback", wasUp ? key : `${key} (down)`);
    this.options.observe?.({ kind: "rollback", node: id, timeMs: this.nowMs, imageTimeMs });
    if (wasUp) this.scheduleRestart(slot, downMs);
  }

  // ---- Internals used by NodeSlot. ----

  /** @internal */
  sendFrom(slot: NodeSlot<Msg, Input>, to: string, msg: Msg): void {
    this.assertActive(slot, "send");
    if (slot.fs.powerCut !== null) return; // the process died before it sent
    const toIndex = this.network.indexOf(to);
    const copies = this.network.send(slot.index, toIndex, this.delays);
    if (copies === 0) {
      this.trace.record(this.nowMs, slot.id, "lost", `to=${to}`);
      return;
    }
    const wire = this.options.wire;
    const text = wire === undefined ? null : wire.encode(msg);
    const carried = text === null ? msg : null;
    for (let i = 0; i < copies; i++) {
      const delay = this.delays[i] as number;
      this.queue.push(this.nowMs + delay, { kind: "deliver", from: slot.index, to: toIndex, msg: carried, text });
    }
  }

  /** @internal */
  setTimerFor(slot: NodeSlot<Msg, Input>, name: string, afterMs: number): void {
    this.assertActive(slot, "setTimer");
    if (slot.fs.powerCut !== null) return;
    const gen = ++this.timerGen;
    slot.timers.set(name, gen);
    const delay = slot.clock.trueDelayMs(afterMs);
    this.queue.push(this.nowMs + delay, { kind: "timer", node: slot.index, name, gen });
  }

  /** @internal */
  cancelTimerFor(slot: NodeSlot<Msg, Input>, name: string): void {
    this.assertActive(slot, "cancelTimer");
    slot.timers.delete(name);
  }

  /** @internal */
  traceFor(slot: NodeSlot<Msg, Input>, event: string, detail: string): void {
    this.assertActive(slot, "trace");
    if (slot.fs.powerCut !== null) return;
    this.trace.record(this.nowMs, slot.id, event, detail);
  }

  private step(): void {
    const due = this.queue.peekTimeMs();
    const event = this.queue.pop();
    assert(due !== null && event !== undefined, "step has an event");
    assert(due >= this.nowMs, "events never run in the past");
    this.nowMs = due;
    this.eventCount++;
    const meter = this.options.meter;
    if (meter !== undefined) meter(workKindOf(event));
    this.dispatch(event);
    const check = this.options.invariants;
    if (check !== undefined) {
      if (meter !== undefined) meter(workKinds.oracles);
      const violations = check();
      if (violations.length > 0) this.fail(`invariant: ${violations.join("; ")}`);
    }
  }

  private dispatch(event: Event<Msg>): void {
    switch (event.kind) {
      case "deliver":
        return this.deliver(event.from, event.to, event.msg, event.text);
      case "timer":
        return this.fireTimer(event.node, event.name, event.gen);
      case "restart": {
        const slot = this.slots[event.node];
        assert(slot !== undefined, "restart of a known node");
        if (!slot.up && slot.incarnation === event.incarnation) this.restart(slot);
        return;
      }
      case "fault":
        return this.fireFault(event.source);
      case "workload":
        return this.runWorkload();
      default:
        return assertNever(event, "event");
    }
  }

  private deliver(from: number, to: number, carried: Msg | null, text: string | null): void {
    const slot = this.slots[to];
    const sender = this.network.ids[from];
    const fromDetail = this.fromDetail[from];
    assert(slot !== undefined && sender !== undefined && fromDetail !== undefined, "known nodes");
    if (!this.network.arrive(from, to, slot.up)) {
      this.trace.record(this.nowMs, slot.id, "drop", fromDetail);
      return;
    }
    const wire = this.options.wire;
    let msg: Msg;
    if (text === null) {
      assert(carried !== null, "a message travels as itself or as text");
      msg = carried;
    } else {
      assert(wire !== undefined, "text travels only with a wire codec");
      msg = wire.decode(text);
    }
    const describe = this.options.describeMsg;
    const detail = describe ? `${fromDetail} ${describe(msg)}` : fromDetail;
    this.trace.record(this.nowMs, slot.id, "recv", detail);
    this.call(slot, () => slot.host.onMessage(slot, sender, msg));
  }

  private fireTimer(node: number, name: string, gen: number): void {
    const slot = this.slots[node];
    assert(slot !== undefined, "timer of a known node");
    // A re-armed, cancelled or crashed-away timer is stale: its generation moved on.
    if (!slot.up || slot.timers.get(name) !== gen) return;
    slot.timers.delete(name);
    this.trace.record(this.nowMs, slot.id, "timer", name);
    this.call(slot, () => slot.host.onTimer(slot, name));
  }

  private fireFault(index: number): void {
    const source = this.sources[index];
    assert(source !== undefined, "fault source exists");
    if (this.healed) return;
    const nextMs = source.fire(this);
    if (nextMs !== null) {
      assert(nextMs >= 0, "fault delays are >= 0");
      this.queue.push(this.nowMs + nextMs, { kind: "fault", source: index });
    }
  }

  private scheduleWorkload(): void {
    const workload = this.options.workload;
    assert(workload !== undefined, "a workload is configured");
    const arrival = workload.next(this.workloadPrng, this.nowMs);
    if (arrival === null) return;
    assert(arrival.afterMs >= 0 && Number.isInteger(arrival.afterMs), "arrival delay");
    this.pendingArrival = arrival;
    this.queue.push(this.nowMs + arrival.afterMs, { kind: "workload" });
  }

  private runWorkload(): void {
    const arrival = this.pendingArrival;
    assert(arrival !== null, "a workload event has its arrival");
    this.pendingArrival = null;
    if (this.healed) return;
    if (this.slot(arrival.node).up) this.inject(arrival.node, arrival.input);
    else this.trace.record(this.nowMs, arrival.node, "input-refused", "down");
    this.scheduleWorkload();
  }

  private kill(slot: NodeSlot<Msg, Input>): void {
    slot.fs.clearPowerCut();
    slot.up = false;
    slot.incarnation++;
    slot.timers.clear();
    slot.host.onCrash();
  }

  private scheduleRestart(slot: NodeSlot<Msg, Input>, downMs: number): void {
    assert(downMs >= 0 && Number.isInteger(downMs), "down time is a whole ms count");
    const event = { kind: "restart", node: slot.index, incarnation: slot.incarnation } as const;
    this.queue.push(this.nowMs + downMs, event);
  }

  private restart(slot: NodeSlot<Msg, Input>): void {
    assert(!slot.up, "restart of a down node");
    slot.up = true;
    this.trace.record(this.nowMs, slot.id, "restart", "");
    // A power cut inside the boot crashed it again: the restart never completed.
    if (this.call(slot, () => slot.host.onRestart(slot))) {
      this.options.observe?.({ kind: "restart", node: slot.id, timeMs: this.nowMs });
    }
  }

  /**
   * Runs a node callback with the node active; any throw fails the seed with context, unless
   * a power cut struck inside it (the process died there: what it threw afterwards is moot).
   * Returns whether the node is still up.
   */
  private call(slot: NodeSlot<Msg, Input>, run: () => void): boolean {
    assert(this.active === null, "node callbacks do not nest");
    this.active = slot;
    try {
      run();
    } catch (error) {
      if (error instanceof SimFailure) throw error;
      const diskError = slot.fs.takeDiskError();
      if (diskError !== null && slot.fs.powerCut === null) {
        // Storage died of the injected error: the operator restarts the process.
        this.down(slot, "storage-dead", `in=${diskError.op}:${diskError.path} exit`, slot.errorDownMs);
        return false;
      }
      if (slot.fs.powerCut === null) {
        const message = error instanceof Error ? error.message : String(error);
        this.fail(`node ${slot.id} threw: ${message}`, error);
      }
    } finally {
      this.active = null;
    }
    // An injected error the node caught (a failed background rebuild): it goes on.
    const caught = slot.fs.takeDiskError();
    if (caught !== null) this.trace.record(this.nowMs, slot.id, "disk-error", `in=${caught.op}:${caught.path} caught`);
    const cut = slot.fs.powerCut;
    if (cut === null) return true;
    this.down(slot, "crash", `in=${cut.op}:${cut.path} ${diskDamage(cut)}`, slot.cutDownMs);
    return false;
  }

  /** A node that died inside its callback: killed, traced, restarted after `downMs`. */
  private down(slot: NodeSlot<Msg, Input>, event: string, detail: string, downMs: number): void {
    this.kill(slot);
    this.trace.record(this.nowMs, slot.id, event, detail);
    this.options.observe?.({ kind: "crash", node: slot.id, timeMs: this.nowMs });
    this.scheduleRestart(slot, downMs);
  }

  private assertActive(slot: NodeSlot<Msg, Input>, what: string): void {
    assert(this.active === slot, `${slot.id}: ${what} outside its own callback`);
  }

  private slot(id: string): NodeSlot<Msg, Input> {
    const slot = this.slots[this.network.indexOf(id)];
    assert(slot !== undefined, `known node ${id}`);
    return slot;
  }
}

/** Which disk calls an armed fault counts: all of them, or only those beyond log commits. */
function countedCalls(beyondCommits: boolean): ((op: FsOp, path: string) => boolean) | undefined {
  return beyondCommits ? (op, path) => !isLogCommitCall(op, path) : undefined;
}

/** A crash's damage for the trace: the torn tail kept, if any, and directories that lost entries. */
function diskDamage(report: CrashReport): string {
  const torn = report.torn ? `${report.torn.path}+${report.torn.keptBytes}` : "-";
  const lost = report.lostDirs.length === 0 ? "-" : report.lostDirs.join(",");
  return `torn=${torn} lostDirs=${lost}`;
}

interface SlotParts<Msg, Input> {
  readonly id: string;
  readonly index: number;
  readonly host: SimNodeHost<Msg, Input>;
  readonly clock: NodeClock;
  readonly fs: SimFs;
  readonly root: Prng;
}

/** One node's place in the world; it is also the node's context object (no per-call alloc). */
class NodeSlot<Msg, Input> implements NodeContext<Msg> {
  up = true;
  incarnation = 0;
  /** Down time of the armed power cut (World.armPowerCut). */
  cutDownMs = 0;
  /** Down time after storage dies of an armed disk error (World.armDiskError). */
  errorDownMs = 0;
  /** Live generation per armed timer name. */
  readonly timers = new Map<string, number>();
  readonly id: string;
  readonly index: number;
  readonly host: SimNodeHost<Msg, Input>;
  readonly clock: NodeClock;
  readonly fs: SimFs;
  readonly prng: Prng;
  readonly diskPrng: Prng;

  constructor(private readonly world: World<Msg, Input>, parts: SlotParts<Msg, Input>) {
    this.id = parts.id;
    this.index = parts.index;
    this.host = parts.host;
    this.clock = parts.clock;
    this.fs = parts.fs;
    this.prng = parts.root.fork(`node/${parts.id}`);
    this.diskPrng = parts.root.fork(`disk/${parts.id}`);
  }

  wallMs(): number {
    return this.clock.wallMs(this.worldTimeMs());
  }

  monoMs(): number {
    return this.clock.monoMs(this.worldTimeMs());
  }

  send(to: string, msg: Msg): void {
    this.world.sendFrom(this, to, msg);
  }

  setTimer(name: string, afterMs: number): void {
    this.world.setTimerFor(this, name, afterMs);
  }

  cancelTimer(name: string): void {
    this.world.cancelTimerFor(this, name);
  }

  trace(event: string, detail: string): void {
    this.world.traceFor(this, event, detail);
  }

  private worldTimeMs(): number {
    return this.world.timeMs;
  }
}
