// Goal: the world's own mechanics, independent of any replicated state: timers (re-arm,
// cancel, staleness across crashes), message delivery and drops, crash/restart lifecycle,
// workload inputs, clocks per node, phases, bounds, failure reporting and PRNG stream
// independence. Method: tiny scripted hosts that record what they see, on fixed seeds.
import { describe, expect, it } from "vitest";
import { defaultEpochMs } from "./clock";
import { presetFaults } from "./faults";
import type { NodeContext, SimNodeHost, WorldOptions } from "./world";
import { SimFailure, World } from "./world";

type Log = string[];

const fixedNetwork = { latency: { kind: "fixed", ms: 10 }, lossP: 0, dupP: 0 } as const;

/** A host whose behaviour is a script of callbacks; every call is logged with the time. */
function scripted(
  id: string,
  log: Log,
  world: () => World<string, string>,
  script: Partial<SimNodeHost<string, string>> = {},
): SimNodeHost<string, string> {
  const at = (): number => world().timeMs;
  return {
    onStart: (ctx) => {
      log.push(`${at()} ${id} start`);
      script.onStart?.(ctx);
    },
    onMessage: (ctx, from, msg) => {
      log.push(`${at()} ${id} msg ${from} ${msg}`);
      script.onMessage?.(ctx, from, msg);
    },
    onTimer: (ctx, name) => {
      log.push(`${at()} ${id} timer ${name}`);
      script.onTimer?.(ctx, name);
    },
    onInput: (ctx, input) => {
      log.push(`${at()} ${id} input ${input}`);
      script.onInput?.(ctx, input);
    },
    onCrash: () => log.push(`${at()} ${id} crash`),
    onRestart: (ctx) => {
      log.push(`${at()} ${id} restart`);
      script.onRestart?.(ctx);
    },
  };
}

function makeWorld(
  scripts: Record<string, Partial<SimNodeHost<string, string>>>,
  extra: Partial<WorldOptions<string, string>> = {},
): { world: World<string, string>; log: Log } {
  const log: Log = [];
  const ids = Object.keys(scripts).sort();
  const world: World<string, string> = new World<string, string>({
    seed: 1,
    nodeIds: ids,
    makeNode: (id) => scripted(id, log, () => world, scripts[id]),
    faults: { ...presetFaults("none"), network: fixedNetwork },
    ...extra,
  });
  return { world, log };
}

describe("World: timers and messages", () => {
  it("re-arming replaces a timer, cancel removes it, ties run in arming order", () => {
    const { world, log } = makeWorld({
      a: {
        onStart: (ctx) => {
          ctx.setTimer("x", 50);
          ctx.setTimer("x", 20);
          ctx.setTimer("y", 20);
          ctx.setTimer("z", 30);
          ctx.cancelTimer("z");
        },
      },
    });
    world.start();
    expect(world.runUntilQuiescent(10_000)).toBe("quiescent");
    expect(log).toEqual(["0 a start", "20 a timer x", "20 a timer y"]);
  });

  it("delivers after the latency and replies flow back", () => {
    const { world, log } = makeWorld({
      a: { onStart: (ctx) => ctx.send("b", "ping") },
      b: { onMessage: (ctx, from) => ctx.send(from, "pong") },
    });
    world.start();
    world.runUntil(1000);
    expect(log).toEqual(["0 a start", "0 b start", "10 b msg a ping", "20 a msg b pong"]);
    expect(world.networkStats).toMatchObject({ sent: 2, delivered: 2, dropped: 0 });
  });

  it("a crash drops timers and messages to the node; restart comes after the down time", () => {
    const { world, log } = makeWorld({
      a: { onStart: (ctx) => ctx.setTimer("t", 100), onRestart: (ctx) => ctx.setTimer("t", 5) },
      b: { onStart: (ctx) => ctx.send("a", "late") },
    });
    world.start();
    world.runUntil(5);
    world.crash("a", { downMs: 50, tornTail: false });
    expect(world.isUp("a")).toBe(false);
    world.runUntil(1000);
    expect(log).toEqual([
      "0 a start",
      "0 b start",
      "5 a crash",
      "55 a restart",
      "60 a timer t",
    ]);
    expect(world.networkStats.droppedDown).toBe(1);
  });

  it("messages in flight when a partition starts are dropped; one-way cuts block one way", () => {
    const { world, log } = makeWorld({
      a: { onStart: (ctx) => ctx.send("b", "1") },
      b: { onStart: (ctx) => ctx.send("a", "2") },
    });
    world.start();
    world.partition([["a"], ["b"]]);
    world.runUntil(100);
    expect(log.filter((l) => l.includes("msg"))).toEqual([]);
    world.healNetwork();
    world.cut("a", "b");
    world.runUntil(100);
    expect(world.network.canReach("b", "a")).toBe(true);
    expect(world.network.canReach("a", "b")).toBe(false);
    expect(world.trace.tail(2)).toEqual(["t=100 node=- heal-network ", "t=100 node=- cut a->b"]);
  });
});

describe("World: inputs, clocks, phases", () => {
  it("workload inputs reach up nodes and are refused by down nodes", () => {
    let n = 0;
    const { world, log } = makeWorld(
      { a: {}, b: {} },
      {
        workload: {
          next: (_prng, nowMs) =>
            nowMs >= 40 ? null : { afterMs: 10, node: "a", input: `w${n++}` },
        },
      },
    );
    world.start();
    world.runUntil(25);
    world.crash("a", { downMs: 100, tornTail: false });
    world.runUntil(1000);
    expect(log.filter((l) => l.includes("input"))).toEqual(["10 a input w0", "20 a input w1"]);
    expect(world.trace.tail().filter((l) => l.includes("input-refused")).length).toBe(2);
  });

  it("each node reads its own skewed clock; heal resyncs wall clocks", () => {
    const seen: Record<string, number> = {};
    const { world } = makeWorld({ a: {}, b: {} }, { faults: presetFaults("skew") });
    world.start();
    world.runUntil(1000);
    for (const id of ["a", "b"]) seen[id] = world.node(id).wallMs() - (defaultEpochMs + 1000);
    expect(seen["a"]).not.toBe(seen["b"]);
    expect(Math.abs(seen["a"] ?? 0)).toBeLessThanOrEqual(120_000 + 1000);
    const monoBefore = world.node("a").monoMs();
    world.heal();
    expect(world.node("a").wallMs()).toBe(defaultEpochMs + 1000);
    world.runUntil(2000);
    expect(world.node("a").monoMs()).toBeGreaterThan(monoBefore);
  });

  it("runScenario runs the safety phase, heals, and stops at convergence", () => {
    let delivered = false;
    const { world } = makeWorld({
      a: { onStart: (ctx) => ctx.setTimer("go", 100), onTimer: (ctx) => ctx.send("b", "x") },
      b: { onMessage: () => (delivered = true) },
    });
    const converged = (): boolean => delivered;
    const result = world.runScenario({ safetyMs: 50, livenessMs: 1000, converged });
    expect(result.converged).toBe(true);
    expect(result.convergedAtMs).toBe(110);
    expect(world.isHealed).toBe(true);
  });

  it("heal restarts down nodes at once and stops faults; crashes trace their disk damage", () => {
    const { world, log } = makeWorld({
      a: { onStart: (ctx) => ctx.fs.append("log", new Uint8Array([1, 2, 3])) },
      b: {},
    });
    world.start();
    world.crash("a", { downMs: 1_000_000, tornTail: false });
    expect(world.trace.tail(1)[0]).toBe("t=0 node=a crash torn=- lostDirs=-");
    world.runUntil(10);
    world.heal();
    expect(world.isUp("a")).toBe(true);
    expect(log.at(-1)).toBe("10 a restart");
    // The unsynced bytes are gone; this seed kept the root's new entry (lostDirs=-).
    expect(world.node("a").fs.read("log")).toEqual(new Uint8Array(0));
    world.runUntil(2_000_000);
    expect(log.filter((l) => l.includes("restart"))).toEqual(["10 a restart"]);
  });

  it("a power cut strikes inside the node's writes: what follows in the callback never happens", () => {
    const seen: string[] = [];
    const enc = (t: string): Uint8Array => new TextEncoder().encode(t);
    /** A commit per timer tick: append and sync, then a send, a timer and a trace. */
    const tick = (ctx: NodeContext<string>, n: number): void => {
      ctx.fs.append("log", enc(String(n)));
      ctx.fs.sync("log");
      ctx.send("b", `acked ${n}`);
      ctx.trace("committed", String(n));
      ctx.setTimer("t", 10);
    };
    let n = 0;
    const { world, log } = makeWorld(
      {
        a: {
          onStart: (ctx) => {
            ctx.fs.syncDir("");
            ctx.setTimer("t", 10);
          },
          onTimer: (ctx) => tick(ctx, ++n),
          onRestart: (ctx) => seen.push(new TextDecoder().decode(ctx.fs.read("log") ?? new Uint8Array())),
        },
        b: {},
      },
      { observe: (e) => seen.push(`${e.kind} ${e.node} ${e.timeMs}`), trace: { ringLines: 200, keepAll: true } },
    );
    world.start();
    world.runUntil(15); // tick 1 committed at 10
    // Call 1 is tick 2's append; the cut strikes before call 2, its sync.
    world.armPowerCut("a", { afterWrites: 2, downMs: 100, tornTail: false, beyondCommits: false });
    expect(world.powerCutArmed("a")).toBe(true);
    expect(world.downCount()).toBe(1);
    world.runUntil(1000);
    expect(log.filter((l) => l.startsWith("20 ") || l.includes("crash") || l.includes("restart"))).toEqual([
      "20 b msg a acked 1",
      "20 a timer t",
      "20 a crash",
      "120 a restart",
    ]);
    // b got tick 1's message only; tick 2's send, trace and timer died with the process.
    expect(log.filter((l) => l.includes("acked"))).toEqual(["20 b msg a acked 1"]);
    const lines = world.trace.lines().filter((l) => l.includes("node=a"));
    expect(lines).toContain("t=10 node=a committed 1");
    expect(lines.some((l) => l.includes("committed 2"))).toBe(false);
    expect(lines).toContain("t=20 node=a crash in=sync:log torn=- lostDirs=-");
    // The unsynced append was lost; the restart saw the disk as tick 1 left it.
    expect(seen).toEqual(["crash a 20", "1", "restart a 120"]);
    expect(world.powerCutArmed("a")).toBe(false);
  });

  it("a power cut armed on a down node strikes inside its boot; the heal disarms the rest", () => {
    const seen: string[] = [];
    const { world, log } = makeWorld(
      {
        a: {
          onStart: (ctx) => ctx.fs.syncDir(""),
          onRestart: (ctx) => {
            ctx.fs.append("log", new Uint8Array([1]));
            ctx.fs.sync("log");
            ctx.trace("booted", "");
          },
        },
        b: {},
      },
      { observe: (e) => seen.push(`${e.kind} ${e.node} ${e.timeMs}`), trace: { ringLines: 200, keepAll: true } },
    );
    world.start();
    world.crash("a", { downMs: 10, tornTail: false });
    world.armPowerCut("a", { afterWrites: 2, downMs: 30, tornTail: false, beyondCommits: false });
    world.armPowerCut("b", { afterWrites: 1, downMs: 10, tornTail: false, beyondCommits: false });
    world.runUntil(100);
    // The first boot died at its sync; the second, 30 ms later, ran to the end.
    expect(log.filter((l) => l.includes(" a "))).toEqual(["0 a start", "0 a crash", "10 a restart", "10 a crash", "40 a restart"]);
    expect(seen).toEqual(["crash a 0", "crash a 10", "restart a 40"]);
    const lines = world.trace.lines();
    expect(lines).toContain("t=10 node=a crash in=sync:log torn=- lostDirs=-");
    expect(lines.filter((l) => l.includes("booted"))).toEqual(["t=40 node=a booted "]);
    // b never wrote: its cut is still armed until the heal.
    expect(world.powerCutArmed("b")).toBe(true);
    world.heal();
    expect(world.powerCutArmed("b")).toBe(false);
    expect(world.trace.lines()).toContain("t=100 node=b power-cut-disarmed ");
  });

  it("the event bound stops a runaway world", () => {
    const { world } = makeWorld(
      { a: { onStart: (ctx) => ctx.setTimer("t", 0), onTimer: (ctx) => ctx.setTimer("t", 0) } },
      { maxEvents: 1000 },
    );
    world.start();
    expect(world.runUntil(10)).toBe("event-bound");
    expect(world.events).toBe(1000);
  });
});

describe("World: failures and determinism", () => {
  it("a throwing node fails the seed with time, reason and trace tail", () => {
    const { world } = makeWorld({
      a: {
        onStart: (ctx) => ctx.setTimer("boom", 7),
        onTimer: () => {
          throw new Error("bad state");
        },
      },
    });
    world.start();
    try {
      world.runUntil(100);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SimFailure);
      const failure = error as SimFailure;
      expect(failure.seed).toBe("1");
      expect(failure.timeMs).toBe(7);
      expect(failure.reason).toContain("bad state");
      expect(failure.traceTail.at(-1)).toBe("t=7 node=a timer boom");
    }
  });

  it("an invariant violation fails the seed", () => {
    let broken = false;
    const { world } = makeWorld(
      { a: { onStart: (ctx) => ctx.setTimer("t", 5), onTimer: () => (broken = true) } },
      { invariants: () => (broken ? ["broken"] : []) },
    );
    world.start();
    expect(() => world.runUntil(100)).toThrow(/invariant: broken/);
  });

  it("acting outside one's own callback is a bug", () => {
    let saved: NodeContext<string> | null = null;
    const { world } = makeWorld({ a: { onStart: (ctx) => (saved = ctx) }, b: {} });
    world.start();
    expect(() => (saved as NodeContext<string> | null)?.send("b", "x")).toThrow(/outside/);
  });

  it("fault classes draw from their own streams: node streams do not move with the preset", () => {
    const firstDraws = (preset: "none" | "chaos"): number[] => {
      const { world } = makeWorld({ a: {}, b: {} }, { faults: presetFaults(preset) });
      return [world.node("a").prng.uint32(), world.node("b").prng.uint32()];
    };
    expect(firstDraws("chaos")).toEqual(firstDraws("none"));
  });
});
