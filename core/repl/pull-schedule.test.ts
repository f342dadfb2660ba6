/**
 * Goal: the replication schedule every shell runs behaves as DESIGN and ARCHITECTURE say:
 * nothing goes out before the node's changes are persisted; a pull cycle runs to completion
 * over several batches; an answer four smoothed round trips overdue (at least 1 s) is asked
 * again from the continuation and the late answer is dropped as stale; a hint brings the pull
 * forward and never postpones it; a paused schedule starts no pull; a write hints every partner.
 * Method: two real DirectoryNodes (a founded domain and a joining node) whose schedules run
 * over a recording shell with a hand-moved mono clock and no jitter; the test carries the
 * messages between them and fires the timers itself.
 */
import { describe, expect, it } from "vitest";
import { DirectoryNode } from "../node/directory-node";
import { freshDomain, t0Ms } from "../testing/node-fixture";
import { seededRandom } from "../testing/seeded-random";
import type { ReplicationMessage } from "./messages";
import { PullSchedule, defaultReplicationTiming, type ReplicationTiming, type ScheduleShell } from "./pull-schedule";

interface Sent {
  readonly to: string;
  readonly msg: ReplicationMessage;
}

/** A shell that records what the schedule asked, in order, over a clock the test moves. */
class RecordingShell implements ScheduleShell {
  mono = 0;
  readonly log: string[] = [];
  readonly sent: Sent[] = [];
  readonly timers = new Map<string, number>();
  constructor(private readonly ids: Map<string, string>) {}
  monoMs(): number {
    return this.mono;
  }
  wallMs(): number {
    return t0Ms + this.mono;
  }
  jitterMs(): number {
    return 0;
  }
  setTimer(name: string, afterMs: number): void {
    this.timers.set(name, this.mono + afterMs);
    this.log.push(`set ${name} +${afterMs}`);
  }
  cancelTimer(name: string): void {
    this.timers.delete(name);
    this.log.push(`cancel ${name}`);
  }
  send(to: string, msg: ReplicationMessage): void {
    this.sent.push({ to, msg });
    this.log.push(`send ${to} ${msg.type}`);
  }
  persist(): void {
    this.log.push("persist");
  }
  afterReceive(): void {
    this.log.push("after-receive");
  }
  trace(event: string, detail: string): void {
    this.log.push(`trace ${event} ${detail}`);
  }
  nodeIdOf(partner: string): string | undefined {
    return this.ids.get(partner);
  }
  /** The messages sent since the last call. */
  take(): Sent[] {
    return this.sent.splice(0);
  }
}

const timing: ReplicationTiming = { ...defaultReplicationTiming, objectsPerBatch: 4 };

function pair() {
  const a = freshDomain(1).node;
  const b = DirectoryNode.joining(seededRandom(2));
  const ids = new Map([
    ["a", a.dir.nodeId],
    ["b", b.dir.nodeId],
  ]);
  const shellA = new RecordingShell(ids);
  const shellB = new RecordingShell(ids);
  const events: string[] = [];
  const schedA = new PullSchedule(a, ["b"], timing, shellA);
  const schedB = new PullSchedule(b, ["a"], timing, shellB, {
    cycleStarted: (p) => events.push(`started ${p}`),
    cycleCompleted: (p) => events.push(`completed ${p}`),
    pullRefused: (p) => events.push(`refused ${p}`),
  });
  return { a, b, shellA, shellB, schedA, schedB, events };
}

/** Carries B's request to A and A's answer back until B sends nothing more; returns the rounds. */
function runCycle(p: ReturnType<typeof pair>): number {
  let rounds = 0;
  for (let out = p.shellB.take(); out.length > 0 && rounds < 100; out = p.shellB.take(), rounds++) {
    for (const { msg } of out) p.schedA.onMessage("b", msg);
    for (const { msg } of p.shellA.take()) p.schedB.onMessage("a", msg);
  }
  return rounds;
}

describe("the replication schedule", () => {
  it("persists before anything goes out and runs a pull cycle over several batches to completion", () => {
    const p = pair();
    p.schedB.start();
    expect(p.shellB.timers.get("pull:a")).toBe(0);
    p.schedB.onTimer("pull:a");
    // The pull timer keeps its period; the request goes out after the persist, with its answer wait.
    expect(p.shellB.log).toEqual(["set pull:a +0", "set pull:a +5000", "persist", "send a pull", "set answer:a +10000"]);
    expect(p.events).toEqual(["started a"]);
    p.shellB.log.length = 0;
    const rounds = runCycle(p);
    // A fresh domain holds far more than 4 objects: the cycle took several batches.
    expect(rounds).toBeGreaterThan(3);
    expect(p.shellA.log.slice(0, 3)).toEqual(["persist", "after-receive", "send b batch"]);
    // The first answer measured a round trip (0 here): from then on the wait is the 1 s floor.
    expect(p.shellB.log.slice(0, 4)).toEqual(["persist", "after-receive", "send a pull", "set answer:a +1000"]);
    expect(p.shellB.log.slice(-4)).toEqual(["persist", "after-receive", "cancel answer:a", `trace pull-done a usn=${p.b.dir.usn}`]);
    expect(p.events).toEqual(["started a", "completed a"]);
    expect(p.b.root(t0Ms).ok).toBe(true);
  });

  it("asks again once an answer is four round trips overdue (at least 1 s), and drops the late answer as stale", () => {
    const p = pair();
    p.schedB.start();
    p.schedB.onTimer("pull:a");
    runCycle(p); // every answer came back at once: round trip 0, so the wait is the 1 s floor
    p.shellB.mono = 5_000;
    p.schedB.onTimer("pull:a");
    const [first] = p.shellB.take();
    expect(first?.msg.type).toBe("pull");
    expect(p.shellB.timers.get("answer:a")).toBe(6_000);
    // Not yet overdue: the pull timer firing meanwhile (or an early answer timer) changes nothing.
    p.shellB.mono = 5_900;
    p.schedB.onTimer("answer:a");
    expect(p.shellB.take()).toEqual([]);
    p.shellB.mono = 6_000;
    p.shellB.log.length = 0;
    p.schedB.onTimer("answer:a");
    expect(p.shellB.log).toEqual(["trace pull-timeout a", "persist", "send a pull", "set answer:a +1000"]);
    const [again] = p.shellB.take();
    expect(again?.msg.type).toBe("pull");
    // The first request's answer arrives late: stale, dropped; the second one's is received.
    p.schedA.onMessage("b", first!.msg);
    const [late] = p.shellA.take();
    p.shellB.log.length = 0;
    p.schedB.onMessage("a", late!.msg);
    expect(p.shellB.log).toEqual(["trace stale-batch a"]);
    p.schedA.onMessage("b", again!.msg);
    for (const { msg } of p.shellA.take()) p.schedB.onMessage("a", msg);
    expect(p.shellB.log.at(-1)).toBe(`trace pull-done a usn=${p.b.dir.usn}`);
  });

  it("brings the pull forward on a hint, and never postpones it on a later one", () => {
    const p = pair();
    p.schedB.start();
    p.schedB.onTimer("pull:a"); // re-armed for 5,000
    p.shellB.mono = 100;
    p.schedB.onMessage("a", { type: "hint", from: p.a.dir.nodeId });
    expect(p.shellB.timers.get("pull:a")).toBe(300);
    p.shellB.log.length = 0;
    p.shellB.mono = 250;
    p.schedB.onMessage("a", { type: "hint", from: p.a.dir.nodeId });
    expect(p.shellB.log).toEqual([]);
    expect(p.shellB.timers.get("pull:a")).toBe(300);
  });

  it("starts no pull while paused, yet keeps its timer; a partner not yet known is not pulled", () => {
    const p = pair();
    p.schedB.start();
    p.schedB.paused = true;
    p.schedB.onTimer("pull:a");
    expect(p.shellB.take()).toEqual([]);
    expect(p.shellB.timers.get("pull:a")).toBe(5_000);
    p.schedB.paused = false;
    const unknown = new PullSchedule(p.b, ["c"], timing, p.shellB);
    unknown.onTimer("pull:c");
    expect(p.shellB.take()).toEqual([]);
    expect(unknown.onTimer("gc")).toBe(false);
  });

  it("sends nothing when persisting fails: a node with dead storage neither answers nor pulls", () => {
    const p = pair();
    p.shellA.persist = () => {
      throw new Error("storage dead");
    };
    p.schedB.start();
    p.schedB.onTimer("pull:a");
    const [req] = p.shellB.take();
    expect(() => p.schedA.onMessage("b", req!.msg)).toThrow("storage dead");
    expect(p.shellA.take()).toEqual([]);
    const pulls = new PullSchedule(p.a, ["b"], timing, p.shellA);
    expect(() => pulls.onTimer("pull:b")).toThrow("storage dead");
    expect(p.shellA.take()).toEqual([]);
  });

  it("hints every partner after a write", () => {
    const p = pair();
    const three = new PullSchedule(p.a, ["b", "c", "d"], timing, p.shellA);
    three.hintPartners();
    expect(p.shellA.take()).toEqual(
      ["b", "c", "d"].map((to) => ({ to, msg: { type: "hint", from: p.a.dir.nodeId } })),
    );
  });
});
