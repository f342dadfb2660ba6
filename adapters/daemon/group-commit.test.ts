/**
 * Goal: GroupCommit's contract: every waiter of one event-loop turn shares one flush, a lone
 * waiter is flushed on the next check phase (no timer), waiters arriving during or after a
 * flush get the next one, and a failed flush rejects exactly the waiters it covered.
 * Method: a counting flush function; turns are separated with setImmediate, never timers.
 */
import { describe, expect, it } from "vitest";
import { GroupCommit } from "./group-commit";

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("GroupCommit", () => {
  it("one flush for every waiter of a turn", async () => {
    let flushes = 0;
    const commits = new GroupCommit(() => flushes++);
    const waiters = Array.from({ length: 25 }, () => commits.whenDurable());
    expect(flushes).toBe(0);
    await Promise.all(waiters);
    expect(flushes).toBe(1);
  });

  it("a lone waiter is flushed on the next check phase, without a timer", async () => {
    let flushes = 0;
    const commits = new GroupCommit(() => flushes++);
    let done = false;
    void commits.whenDurable().then(() => (done = true));
    await nextTurn();
    expect(flushes).toBe(1);
    expect(done).toBe(true);
  });

  it("waiters of a later turn get a later flush", async () => {
    const order: string[] = [];
    const commits = new GroupCommit(() => order.push("flush"));
    const first = commits.whenDurable().then(() => order.push("first"));
    await first;
    const second = commits.whenDurable().then(() => order.push("second"));
    await second;
    expect(order).toEqual(["flush", "first", "flush", "second"]);
  });

  it("a failed flush rejects its waiters; the next turn flushes again", async () => {
    let fail = true;
    let flushes = 0;
    const commits = new GroupCommit(() => {
      flushes++;
      if (fail) throw new Error("disk gone");
    });
    const outcomes = await Promise.allSettled([commits.whenDurable(), commits.whenDurable()]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
    fail = false;
    await commits.whenDurable();
    expect(flushes).toBe(2);
  });

  it("drain waits for a scheduled flush and swallows its failure", async () => {
    let flushes = 0;
    const commits = new GroupCommit(() => {
      flushes++;
      throw new Error("disk gone");
    });
    const waiter = commits.whenDurable().catch(() => "rejected");
    await commits.drain();
    expect(flushes).toBe(1);
    expect(await waiter).toBe("rejected");
    await commits.drain();
  });
});
