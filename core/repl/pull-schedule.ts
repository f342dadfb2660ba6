/**
 * When a node pulls from each of its partners, and what it does with what arrives: the
 * replication schedule every shell runs unchanged (the simulator's host now, the fabric later),
 * so the simulator checks the very schedule a daemon keeps. Pure: the shell gives it its mono
 * clock, its wall clock and random jitter through `ScheduleShell`, and carries out what it
 * asks (timers, sends, persisting) in the order asked.
 *
 * - Each partner has a pull timer, re-armed with its period (plus jitter) every time it fires.
 *   A change hint brings it forward to the hint delay, never later: were a hint to re-arm a
 *   later time, a steady stream of hints would postpone the pull indefinitely.
 * - A pull cycle sends a request and waits for its answer four smoothed round trips (at least
 *   1 s, at most the pull timeout; answer-wait.ts). An overdue answer is asked again from the
 *   cycle's continuation (the replicator abandons the request and keeps the continuation); a
 *   late answer to a request asked again is stale and dropped. The pull timer fires on its
 *   period whatever happens to a cycle.
 * - Whatever the node changed is persisted before anything goes out (`persist`), as always.
 * - After an originating write, every partner gets a hint.
 *
 * Partners are named by the shell's own keys (sim ids, fabric endpoints); `nodeIdOf` turns a
 * key into the partner's node GUID once it is known (a partner not yet known is not pulled).
 */
import { assert } from "../assert";
import type { Guid } from "../guid";
import type { DirectoryNode } from "../node/directory-node";
import { answerWaitMs, smoothRoundTrip } from "./answer-wait";
import type { PullBatch, PullRefusal, PullRequest, ReplicationMessage } from "./messages";

/** Replication timing (ms of the node's mono clock) and the batch size a node asks for. */
export interface ReplicationTiming {
  readonly pullEveryMs: number;
  readonly pullJitterMs: number;
  readonly hintDelayMs: number;
  readonly pullTimeoutMs: number;
  readonly objectsPerBatch: number;
}

/**
 * The defaults: a pull from every partner every 5 s (plus up to 1 s of jitter), 200 ms after
 * a partner's hint, a request given up after 10 s when no round trip is known yet, 50 objects
 * a batch. (AD's intra-site defaults notify the first partner 15 s after a change.)
 */
export const defaultReplicationTiming: ReplicationTiming = {
  pullEveryMs: 5_000,
  pullJitterMs: 1_000,
  hintDelayMs: 200,
  pullTimeoutMs: 10_000,
  objectsPerBatch: 50,
};

/**
 * What the schedule asks of its shell, in order. The simulator's host carries out each call at
 * once (its disk syncs inside `persist`). A shell whose commits complete later (the daemon's
 * group commit) may make `persist` cut a batch and return, and hold every later `send` until
 * that batch is durable, dropping them if its commit fails: what counts is that nothing goes
 * out before what it depends on is on disk.
 */
export interface ScheduleShell {
  monoMs(): number;
  wallMs(): number;
  /** A uniformly drawn whole number of ms in [0, maxMs]. */
  jitterMs(maxMs: number): number;
  /** (Re)arms the named timer; the shell calls `onTimer(name)` when it fires. */
  setTimer(name: string, afterMs: number): void;
  cancelTimer(name: string): void;
  send(partner: string, msg: ReplicationMessage): void;
  /**
   * Makes the node's changes durable; called before anything that depends on them goes out.
   * Must throw when the node's storage is dead, even with nothing to persist: the schedule then
   * sends nothing, so a node that cannot persist neither answers, pulls nor hints until its
   * restart (its memory may hold a write whose commit failed, an outcome nobody knows).
   */
  persist(): void;
  /** After persisting what a partner's message changed: the node may have latched or healed a rollback. */
  afterReceive?(): void;
  trace(event: string, detail: string): void;
  /** The node GUID behind a partner key, once known. */
  nodeIdOf(partner: string): Guid | undefined;
}

/** What the schedule tells whoever watches it (the simulator's round tracker). */
export interface ScheduleEvents {
  cycleStarted?(partner: string): void;
  cycleCompleted?(partner: string): void;
  /** The node refused to pull from `partner`, or `partner` refused to answer (apart longer than maxTimeApart). */
  pullRefused?(partner: string): void;
}

const pullTimer = "pull:";
const answerTimer = "answer:";

export class PullSchedule {
  /** While true, timers fire but no pull starts (an operator's or a script's pause). */
  paused = false;
  /** Mono time at which the request in flight to each partner was sent. */
  private readonly requestSentMono = new Map<string, number>();
  /** Smoothed round trip of a pull request to each partner (mono ms). */
  private readonly roundTripMono = new Map<string, number>();
  /** Mono time at which each partner's pull timer is due. */
  private readonly pullDueMono = new Map<string, number>();

  constructor(
    private readonly node: DirectoryNode,
    private readonly partners: readonly string[],
    private readonly timing: ReplicationTiming,
    private readonly shell: ScheduleShell,
    private readonly events: ScheduleEvents = {},
  ) {}

  /** Arms every partner's first pull, spread over one jitter interval. */
  start(): void {
    for (const partner of this.partners) {
      this.armPull(partner, this.shell.jitterMs(this.timing.pullJitterMs));
    }
  }

  /** Handles the schedule's own timers; false for a timer that is not one of them. */
  onTimer(name: string): boolean {
    const answer = name.startsWith(answerTimer);
    if (!answer && !name.startsWith(pullTimer)) return false;
    const partner = name.slice(answer ? answerTimer.length : pullTimer.length);
    // The pull timer keeps its period; an overdue answer only asks again (answer-wait.ts).
    if (!answer) this.armPull(partner, this.timing.pullEveryMs);
    const partnerId = this.shell.nodeIdOf(partner);
    if (partnerId === undefined || this.paused) return true;
    const replicator = this.node.replicator;
    if (replicator.isPulling(partnerId)) {
      const sent = this.requestSentMono.get(partner);
      if (sent !== undefined && this.shell.monoMs() - sent < this.answerWaitMs(partner)) return true;
      replicator.abandon(partnerId);
      this.shell.trace("pull-timeout", partner);
    } else if (answer) {
      return true;
    }
    const req = replicator.pullRequest(partnerId, this.shell.wallMs(), this.timing.objectsPerBatch);
    this.shell.persist();
    if (req === null) {
      this.shell.trace("pull-refused", partner);
      this.events.pullRefused?.(partner);
      return true;
    }
    this.requestSentMono.set(partner, this.shell.monoMs());
    this.events.cycleStarted?.(partner);
    this.shell.send(partner, req);
    this.shell.setTimer(answerTimer + partner, this.answerWaitMs(partner));
    return true;
  }

  /** A partner's message: a request is answered, a batch merged, a hint brings the pull forward. */
  onMessage(from: string, msg: ReplicationMessage): void {
    switch (msg.type) {
      case "pull":
        return this.onPull(from, msg);
      case "batch":
        return this.onBatch(from, msg);
      case "refused":
        return this.onRefused(from, msg);
      case "hint":
        return this.armPull(from, this.timing.hintDelayMs, true);
    }
  }

  /** After an originating write is durable: every partner hears that there is news. */
  hintPartners(): void {
    for (const partner of this.partners) this.shell.send(partner, { type: "hint", from: this.node.dir.nodeId });
  }

  private onPull(from: string, msg: PullRequest): void {
    const batch = this.node.replicator.respond(msg, this.shell.wallMs());
    this.shell.persist();
    this.shell.afterReceive?.();
    this.shell.send(from, batch);
  }

  private onBatch(from: string, msg: PullBatch): void {
    const replicator = this.node.replicator;
    // The answer to a request asked again, or to a cycle abandoned: receive would ignore it.
    if (!replicator.answersInFlight(msg)) return this.shell.trace("stale-batch", from);
    const sent = this.requestSentMono.get(from);
    if (sent !== undefined) {
      this.roundTripMono.set(from, smoothRoundTrip(this.roundTripMono.get(from), this.shell.monoMs() - sent));
    }
    const next = replicator.receive(msg, this.shell.wallMs());
    this.shell.persist();
    this.shell.afterReceive?.();
    if (next !== null) {
      this.requestSentMono.set(from, this.shell.monoMs());
      this.shell.send(from, next);
      this.shell.setTimer(answerTimer + from, this.answerWaitMs(from));
      return;
    }
    this.shell.cancelTimer(answerTimer + from);
    assert(!replicator.isPulling(msg.from), "an answer with no next request completed its cycle");
    this.shell.trace("pull-done", `${from} usn=${this.node.dir.usn}`);
    this.events.cycleCompleted?.(from);
  }

  /** A source refused the pull: the cycle ends uncompleted; the next pull is due as usual. */
  private onRefused(from: string, msg: PullRefusal): void {
    const replicator = this.node.replicator;
    if (!replicator.answersInFlight(msg)) return this.shell.trace("stale-refusal", from);
    replicator.refusedBy(msg, this.shell.wallMs());
    this.shell.persist();
    this.shell.cancelTimer(answerTimer + from);
    this.shell.trace("pull-refused", `${from} by source`);
    this.events.pullRefused?.(from);
  }

  /** How long a request to `partner` waits for its answer (answer-wait.ts). */
  private answerWaitMs(partner: string): number {
    return answerWaitMs(this.roundTripMono.get(partner), this.timing.pullTimeoutMs);
  }

  /** (Re)arms the pull timer of `partner` (a hint only ever brings it forward). */
  private armPull(partner: string, afterMs: number, hint = false): void {
    const jitter = this.shell.jitterMs(this.timing.pullJitterMs);
    const dueMs = this.shell.monoMs() + afterMs + jitter;
    const armed = this.pullDueMono.get(partner);
    if (hint && armed !== undefined && armed <= dueMs) return;
    this.pullDueMono.set(partner, dueMs);
    this.shell.setTimer(pullTimer + partner, afterMs + jitter);
  }
}
