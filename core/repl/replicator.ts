import type { Guid } from "../guid";
import type { DirectoryNode } from "../node/directory-node";
import type { ObjectRecord, Placement } from "../store/record";
import { fold } from "../naming";
import { EffectiveView } from "../view/effective-view";
import { aliveStoredCycle, storedChainBackTo } from "../view/placement-repair";
import { applyBatch } from "./apply-batch";
import { enumerateChanges } from "./enumerate-changes";
import { limits } from "../limits";
import type { PullBatch, PullRefusal, PullRequest, Watermark } from "./messages";
import { recordEvidence, remintInvocation, rollbackEvidence } from "./rollback";
import { mergeVectors, ownVector } from "./vectors";
import { boundVector, completedWatermark } from "./vector-bound";

export const pullObjectsMaxDefault = 100;

/**
 * One node's replication endpoints. The destination asks (`pullRequest`), the source answers
 * (`answer`) with a bounded batch, the destination merges it (`receive`) and either asks for
 * the next batch or completes: only a completed pull advances the vector, records the
 * partner's last success, and lifts a rollback quarantine.
 */

export class Replicator {
  private nextRequestId = 1;
  /** Per partner: the pull cycle under way (request id, filter start, batch bound). */
  private readonly inFlight = new Map<Guid, { requestId: number; propUsn: number; objectsMax: number }>();
  /**
   * Per partner: where an unfinished pull cycle continues (the next batch's request). A cycle
   * whose request or answer was lost is abandoned after a timeout; the next pull resumes it
   * here instead of starting over from the stored watermark. Starting over, a cycle longer
   * than a few batches rarely finished on a lossy network: each attempt re-sent what the last
   * one had delivered, completions (the only thing that advances the vector and so dampens
   * propagation) grew rarer as the backlog grew, and after 40 simulated minutes at 20
   * writes/s three received records in four changed nothing. Resuming is a cycle that paused:
   * records changed since moved to higher USNs, ahead of the resume point, and the cycle's
   * atom filter (`propUsn`) is kept; a source that restarted meanwhile walks again from the
   * cycle's start instead (enumerate-changes.ts `resumePoint`). In memory only: a restart of
   * this node starts over.
   */
  private readonly resumeAt = new Map<Guid, Watermark>();
  private readonly refusedJournaled = new Set<Guid>();
  /** Partners this node refused an answer, and sources that refused this node one, since the pair last got on. */
  private readonly answersRefusedJournaled = new Set<Guid>();
  private readonly refusedBySourceJournaled = new Set<Guid>();
  /** Per partner, the last completed pull a `partner-stale` warning was journaled for. */
  private readonly staleJournaled = new Map<Guid, number>();
  /**
   * Derived repairs journaled this boot and still in force: per object, the repair in force by
   * kind and stored parent (and, for a CNF name, the stored name: a CNF pair made again under
   * another name is a new repair, whether or not this node saw the first one end). Forgotten
   * when the object is judged unrepaired or not alive, or replaced by a repair of another kind:
   * a CNF that ends (its copy deleted or orphaned) and comes back is journaled again.
   */
  private readonly repairsJournaled = new Map<Guid, string>();
  /**
   * Per partner, the records the merges of its pull cycle so far may have repaired, judged
   * when the cycle completes (journalRepairs).
   */
  private readonly repairCandidates = new Map<Guid, Set<Guid>>();
  /** Partners a pull cycle completed with since this node booted. */
  private readonly completedThisBoot = new Set<Guid>();

  /**
   * Bytes a batch this node answers stops at (limits.batchBytesTarget; the simulator lowers
   * it to send objects in parts without megabytes of values).
   */
  batchBytesTarget: number = limits.batchBytesTarget;

  constructor(private readonly node: DirectoryNode) {}

  /**
   * A local write changed records' placement or existence (written after `usnBefore`): the
   * repairs journaled for them, and for their alive namesakes under their stored parent, may
   * have ended (a CNF copy deleted, or the holder of its name), and one that comes back by a
   * later merge is a new repair. Merges judged this themselves; local writes never did, so a
   * CNF ended by a local delete and brought back by a replicated restore was not journaled
   * again (attack on the day's fixes, twenty-eighth session). A record moved away leaves its
   * old parent's namesakes remembered: the write no longer says where it was.
   */
  forgetRepairsOfLocalWrite(usnBefore: number): void {
    if (this.repairsJournaled.size === 0) return;
    const dir = this.node.dir;
    for (const { id } of dir.store.changedAfter(usnBefore, Number.MAX_SAFE_INTEGER)) {
      const record = dir.get(id);
      if (record === undefined) {
        this.repairsJournaled.delete(id);
        continue;
      }
      const { existence, placement } = record;
      if (existence.stamp.localUsn <= usnBefore && placement.stamp.localUsn <= usnBefore) continue;
      this.repairsJournaled.delete(id);
      if (placement.parent === null) continue;
      for (const namesake of dir.store.aliveNamed(placement.parent, fold(placement.name))) {
        this.repairsJournaled.delete(namesake);
      }
    }
  }

  /** A pull request to `partner`, or null when the partner is refused (apart too long). */
  pullRequest(partner: Guid, nowMs: number, objectsMax = pullObjectsMaxDefault): PullRequest | null {
    const dir = this.node.dir;
    const mark = this.node.replication.watermarks[partner];
    const { purgeAfterMs } = dir.replicationConfig();
    const last = mark?.lastSuccessMs ?? null;
    const refusal = this.refusalOf(partner, last, nowMs, purgeAfterMs);
    if (refusal !== null) {
      // A cycle left uncompleted before the refusal (an answer lost) may never complete: what
      // it merged is judged now, as at a source's refusal (diff review, twenty-seventh session).
      this.resumeAt.delete(partner);
      if (this.repairCandidates.has(partner)) {
        this.journalRepairs(partner, nowMs);
        this.node.markChanged();
      }
      if (!this.refusedJournaled.has(partner)) {
        this.refusedJournaled.add(partner);
        dir.journal.add(nowMs, "pull-refused", refusal);
        this.node.markChanged();
      }
      return null;
    }
    this.warnStale(partner, last, nowMs, purgeAfterMs);
    const start =
      this.resumeAt.get(partner) ??
      (mark === undefined ? null : { invocation: mark.invocation, usn: mark.usn, propUsn: mark.usn });
    return this.request(partner, start, objectsMax);
  }

  /**
   * Half way to the refusal, once per completed pull the partner is stale since: an operator
   * can still reconnect the pair before it is refused for good. Asked when this node pulls
   * and when it answers (a node that only answers a partner warns too).
   */
  private warnStale(partner: Guid, last: number | null, nowMs: number, purgeAfterMs: number): void {
    if (last === null || nowMs - last <= purgeAfterMs / 2 || this.staleJournaled.get(partner) === last) return;
    this.staleJournaled.set(partner, last);
    const ago = Math.floor((nowMs - last) / 1000);
    const left = Math.ceil((last + purgeAfterMs - nowMs) / 1000);
    this.node.dir.journal.add(
      nowMs,
      "partner-stale",
      `partner ${partner} last synced ${ago} s ago; refused for good in ${left} s (maxTimeApart) unless a pull completes first`,
    );
    this.node.markChanged();
  }

  /** Why a pull from `partner` is refused (apart longer than maxTimeApart), or null. */
  private refusalOf(partner: Guid, last: number | null, nowMs: number, purgeAfterMs: number): string | null {
    if (last !== null) {
      return nowMs - last > purgeAfterMs ? `partner ${partner} last synced longer than maxTimeApart ago` : null;
    }
    if (!this.apartFromEveryone(nowMs, purgeAfterMs)) return null;
    return `partner ${partner} never synced, and this node completed no pull from any partner within maxTimeApart: it may hold objects the others purged`;
  }

  /**
   * A first pull from a partner is an initial sync, not judged by that pair's last pull. But a
   * node whose every completed pull is older than the purge horizon (isolated that long, or
   * restored to such an image) may hold objects the others purged, whoever it asks: an
   * initial sync with a partner it never pulled from let it keep them alive for good
   * (adversarial-scenario audit, twenty-third session). A node that never completed any pull
   * (the domain's first node, or a fresh one) is allowed: nothing says how old its state is
   * (restored to an image from before its first pull, it is the open case in ARCHITECTURE).
   */
  private apartFromEveryone(nowMs: number, purgeAfterMs: number): boolean {
    let newest: number | null = null;
    for (const mark of Object.values(this.node.replication.watermarks)) {
      const at = mark.lastSuccessMs;
      if (at !== null && (newest === null || at > newest)) newest = at;
    }
    return newest !== null && nowMs - newest > purgeAfterMs;
  }

  private request(
    partner: Guid,
    watermark: PullRequest["watermark"],
    objectsMax: number,
  ): PullRequest {
    const requestId = this.nextRequestId++;
    this.inFlight.set(partner, {
      requestId,
      propUsn: watermark?.propUsn ?? 0,
      objectsMax,
    });
    return {
      type: "pull",
      requestId,
      from: this.node.dir.nodeId,
      watermark,
      utd: ownVector(this.node.dir, this.node.replication),
      objectsMax,
    };
  }

  isPulling(partner: Guid): boolean {
    return this.inFlight.has(partner);
  }

  /** Whether `batch` answers the request in flight to its source (else receive ignores it). */
  answersInFlight(batch: PullBatch | PullRefusal): boolean {
    return this.inFlight.get(batch.from)?.requestId === batch.requestId;
  }

  /** Forget an in-flight pull (timed out or the partner restarted); its batches are ignored. */
  abandon(partner: Guid): void {
    this.inFlight.delete(partner);
  }

  /**
   * The source side. A vector showing this node's own future reveals a rollback. A partner
   * this node would refuse to pull from is refused an answer too: the pair is apart longer
   * than maxTimeApart on both sides. Judged on the destination alone, a source whose own
   * state was that old (restored to such an image, its pulls stalled, or its partner's
   * horizon lowered) kept serving partners that had pulled from it lately, and a restore made
   * on it brought back objects they had purged, shredded values included (tombstone audit,
   * twenty-sixth session).
   */
  respond(req: PullRequest, nowMs: number): PullBatch | PullRefusal {
    this.checkRollback(req.utd, nowMs);
    const { purgeAfterMs } = this.node.dir.replicationConfig();
    const last = this.node.replication.watermarks[req.from]?.lastSuccessMs ?? null;
    const refusal = this.refusalOf(req.from, last, nowMs, purgeAfterMs);
    if (refusal === null) {
      // Answering again: a later refusal is a new one, journaled again.
      this.answersRefusedJournaled.delete(req.from);
      this.warnStale(req.from, last, nowMs, purgeAfterMs);
      return this.answer(req, nowMs);
    }
    if (!this.answersRefusedJournaled.has(req.from)) {
      this.answersRefusedJournaled.add(req.from);
      this.node.dir.journal.add(nowMs, "pull-refused", `answer refused: ${refusal}`);
      this.node.markChanged();
    }
    // Said from the source's side: the destination journals it as the source's reason.
    const reason =
      last === null
        ? `it never pulled from this node, and completed no pull from any partner within maxTimeApart: it may hold objects the others purged`
        : `it last completed a pull from this node longer than maxTimeApart ago`;
    return { type: "refused", requestId: req.requestId, from: this.node.dir.nodeId, reason };
  }

  /** The batch answering `req`, whoever asks (`respond` refuses a partner apart too long first). */
  answer(req: PullRequest, nowMs: number): PullBatch {
    this.checkRollback(req.utd, nowMs);
    const state = this.node.replication;
    return enumerateChanges(
      this.node.dir,
      req,
      () => ownVector(this.node.dir, state),
      state.retired,
      this.batchBytesTarget,
    );
  }

  /**
   * The destination side of a source's refusal: the cycle ends without completing (watermark
   * and vector stay), journaled once per episode (again after a cycle with that source
   * completes); the next pull asks again.
   */
  refusedBy(refusal: PullRefusal, nowMs: number): void {
    const cycle = this.inFlight.get(refusal.from);
    if (cycle === undefined || cycle.requestId !== refusal.requestId) return;
    this.inFlight.delete(refusal.from);
    this.resumeAt.delete(refusal.from);
    // What the cycle merged before the refusal is judged now: a source that refuses may do so
    // for good, and its candidates would wait for ever (keeping every other source's
    // unchanged batches noted; attack on the session's changes).
    this.journalRepairs(refusal.from, nowMs);
    if (!this.refusedBySourceJournaled.has(refusal.from)) {
      this.refusedBySourceJournaled.add(refusal.from);
      this.node.dir.journal.add(nowMs, "pull-refused", `refused by source ${refusal.from}: ${refusal.reason}`);
    }
    this.node.markChanged();
  }

  /** The destination side: merge, then the next request or completion (null). */
  receive(batch: PullBatch, nowMs: number): PullRequest | null {
    const cycle = this.inFlight.get(batch.from);
    if (cycle === undefined || cycle.requestId !== batch.requestId) return null;
    const dir = this.node.dir;
    if (batch.utd !== null) this.checkRollback(batch.utd, nowMs);
    const before = this.placementsBefore(batch);
    const outcome = applyBatch(dir, batch, nowMs);
    // Until this boot completes a cycle with the source, records that change nothing are
    // noted too: a cycle walked again after a restart of this node sends what the lost boot
    // merged and never judged (diff review). So are they while another source's cycle holds
    // candidates not yet judged: this cycle's completion moves the vector past what it
    // resends, and should that other cycle die with a crash, nothing resends it after the
    // restart (diff review, twenty-sixth session). Otherwise a batch that changed nothing made
    // no repair, and most received batches change nothing once replicas keep up.
    if (outcome.applied > 0 || !this.completedThisBoot.has(batch.from) || this.judgingPendingBesides(batch.from)) {
      this.noteRepairCandidates(batch, before);
    }
    this.node.markChanged();
    if (batch.more) {
      // A source that started before the watermark (at zero, or where a forgotten future
      // forked off) enumerated without its atom filter: so do we, to the end of the cycle.
      const propUsn = batch.continued ? cycle.propUsn : 0;
      const next: Watermark = {
        invocation: batch.invocation,
        usn: batch.highUsn,
        propUsn,
        ...(batch.within === undefined ? {} : { within: batch.within }),
      };
      this.resumeAt.set(batch.from, next);
      return this.request(batch.from, next, cycle.objectsMax);
    }
    // Only a completed cycle moves the stored watermark and the vector.
    const state = this.node.replication;
    const previous = state.watermarks[batch.from];
    // The last batch carries the source's vector, and with it the source's epoch.
    const sourceEpoch = batch.utd === null ? (previous?.epoch ?? 0) : batch.utd.own[1].epoch;
    const mark = completedWatermark(previous, batch.invocation, batch.highUsn, nowMs, sourceEpoch);
    this.inFlight.delete(batch.from);
    this.resumeAt.delete(batch.from);
    this.refusedJournaled.delete(batch.from);
    this.refusedBySourceJournaled.delete(batch.from);
    this.journalRepairs(batch.from, nowMs);
    this.completedThisBoot.add(batch.from);
    const watermarks = { ...state.watermarks, [batch.from]: mark };
    this.node.replication = {
      ...state,
      watermarks,
      utd: boundVector(mergeVectors(state.utd, batch.utd, dir.invocationId, nowMs), watermarks),
    };
    if (dir.rollbackLatched) {
      dir.rollbackLatched = false;
      dir.journal.add(nowMs, "rollback-healed", `completed a pull from ${batch.from}`);
    }
    return null;
  }

  private checkRollback(vector: PullRequest["utd"], nowMs: number): void {
    const dir = this.node.dir;
    const evidence = rollbackEvidence(dir, this.node.replication, vector);
    if (evidence.length === 0) return;
    const old = dir.invocationId;
    const seen = evidence.reduce((m, e) => Math.max(m, e.epoch), 0);
    const reminted = remintInvocation(dir, this.node.replication, nowMs, seen);
    this.node.replication = recordEvidence(reminted, evidence);
    dir.rollbackLatched = true;
    dir.journal.add(
      nowMs,
      "rollback-detected",
      `a partner holds changes of this node beyond its state; invocation ${old} retired for ${dir.invocationId}`,
    );
    this.node.markChanged();
  }

  /** Derived repairs are views, not writes; the journal notes each one once. */
  /**
   * Where the alive records a batch's placement or existence deltas name stood before the
   * merge (a chain walked after it takes them as they were): a record the
   * merge moves leaves its same-named neighbours there (a CNF it made ends, so that a later
   * one is journaled again) and the members of a stored cycle it was in (the breaker goes back
   * home, maybe beside a same-named child; naming audit, twenty-seventh session: journaled
   * nowhere before). A placement is kept by reference: no walk here, most merges move nothing.
   */
  private placementsBefore(batch: PullBatch): Map<Guid, Placement> {
    const dir = this.node.dir;
    const out = new Map<Guid, Placement>();
    for (const delta of batch.deltas) {
      if (delta.placement === null && delta.existence === null) continue;
      const record = dir.get(delta.id);
      if (record !== undefined && record.existence.stage === "alive") out.set(record.id, record.placement);
    }
    return out;
  }

  /**
   * The records a batch's merges may have repaired: each record whose placement or existence
   * arrived, and the held records the arrival may repair without arriving themselves: the
   * alive children of a record that died (orphans now), its same-named stored siblings (a
   * CNF name, when the arrival's claim is earlier), and the members of a stored cycle it
   * closed. Judged once the cycle completes: records arrive in the source's USN order, so
   * mid-cycle a child may precede its parent and a rename the rename that freed its name, and
   * repairs judged per batch were journaled that the cycle's end undid (journal audit,
   * twenty-fifth session), while repairs of held records were never journaled.
   */
  private noteRepairCandidates(batch: PullBatch, before: ReadonlyMap<Guid, Placement>): void {
    const dir = this.node.dir;
    let candidates = this.repairCandidates.get(batch.from);
    if (candidates === undefined) {
      candidates = new Set();
      this.repairCandidates.set(batch.from, candidates);
    }
    const noted = candidates;
    const lostAndFound = dir.landmarks()?.lostAndFound ?? null;
    // The objects a record of this name under `parent` may make CNF, or may have: the stored
    // siblings of that name, and those shown in /LostAndFound (the repaired arrivals of that
    // name and the objects stored there).
    const noteNamesakes = (parent: Guid, folded: string): void => {
      for (const sibling of dir.store.aliveNamed(parent, folded)) noted.add(sibling);
      for (const suspect of dir.suspectsNamed(folded)) noted.add(suspect);
      if (lostAndFound !== null && lostAndFound !== parent) {
        for (const stored of dir.store.aliveNamed(lostAndFound, folded)) noted.add(stored);
      }
    };
    for (const delta of batch.deltas) {
      // Only a placement or existence atom can make a repair; a delta of values alone changes
      // no name, parent or life.
      if (delta.placement === null && delta.existence === null) continue;
      const record = dir.get(delta.id);
      if (record === undefined) continue;
      candidates.add(record.id);
      const was = before.get(record.id);
      // Moved, renamed, or died (a member of a cycle that dies ends the cycle as a move out
      // does: attack on the session's last fixes).
      const left = record.existence.stage !== "alive" || was?.parent !== record.placement.parent || was?.name !== record.placement.name;
      if (was !== undefined && left) {
        if (was.parent !== null) noteNamesakes(was.parent, fold(was.name));
        // A cycle it was in (its old parent's chain, walked as the batch found it, led back to
        // it) is dissolved or broken elsewhere: each member back under its stored parent,
        // beside that parent's children of its name.
        for (const member of storedChainBackTo(dir, was.parent, record.id, before) ?? []) {
          candidates.add(member);
          const m = dir.get(member);
          if (m !== undefined && m.placement.parent !== null) noteNamesakes(m.placement.parent, fold(m.placement.name));
        }
      }
      // The children of a record that died are orphans now; those of one whose existence
      // arrived alive (a restore, an arrival above its children) are back under it, beside
      // each other (a CNF pair made there was journaled nowhere; diff review, twenty-sixth
      // session).
      if (record.existence.stage !== "alive" || delta.existence !== null) {
        for (const child of dir.store.childIds(record.id)) {
          candidates.add(child);
          // Brought back under it from /LostAndFound, an orphan leaves its namesakes there
          // (a CNF it made there ends; attack on the session's fixes).
          if (delta.existence === null || lostAndFound === null) continue;
          const c = dir.get(child);
          if (c !== undefined && c.existence.stage === "alive") noteNamesakes(lostAndFound, fold(c.placement.name));
        }
      }
      const parent = record.placement.parent;
      if (parent === null) continue;
      const folded = fold(record.placement.name);
      // A record that died ends the CNF it made among its namesakes, as a move away does (the
      // attack on the session's changes: a CNF back later was not journaled again).
      noteNamesakes(parent, folded);
      if (record.existence.stage !== "alive") continue;
      // The cycle's members, and their namesakes at home: a member made the breaker without
      // moving (its placement came back the same, with a later claim) sends the old breaker
      // home beside them (diff review, twenty-eighth session).
      for (const member of aliveStoredCycle(dir, record) ?? []) {
        candidates.add(member);
        const held = dir.get(member);
        if (held?.placement.parent != null) noteNamesakes(held.placement.parent, fold(held.placement.name));
      }
    }
  }

  /** Whether a pull cycle with a source other than `from` holds repair candidates not yet judged. */
  private judgingPendingBesides(from: Guid): boolean {
    for (const [source, candidates] of this.repairCandidates) if (source !== from && candidates.size > 0) return true;
    return false;
  }

  /**
   * Journals the derived repairs a completed cycle left on its candidates, once per object and
   * kind per boot (the placement repair first: an orphan or cycle member needs no CNF check,
   * which under /LostAndFound compares it with every same-named orphan).
   */
  private journalRepairs(from: Guid, nowMs: number): void {
    const candidates = this.repairCandidates.get(from);
    if (candidates === undefined) return;
    this.repairCandidates.delete(from);
    const dir = this.node.dir;
    const view = new EffectiveView(dir);
    const lostAndFound = dir.landmarks()?.lostAndFound ?? null;
    // A candidate shown in /LostAndFound may make a CNF of a same-named object there that
    // no merge touched: judged as well, after the candidates (diff review, twenty-sixth
    // session: an orphan or a broken cycle's member turned a held object there into a CNF).
    const rivals = new Set<Guid>();
    const judge = (record: ObjectRecord): void => {
      const repair = view.placement(record);
      let kind = repair.cycleBroken ? "cycle broken" : repair.orphaned ? "orphaned" : null;
      if (kind !== null && lostAndFound !== null) {
        for (const r of view.holdersOf(lostAndFound, fold(record.placement.name), record.id)) {
          if (!candidates.has(r.id)) rivals.add(r.id);
        }
      }
      if (kind === null && view.of(record).conflicted) kind = "CNF name";
      if (kind === null) {
        // Repaired no more: a later repair of it is a new one (once per repair, not per boot).
        this.repairsJournaled.delete(record.id);
        return;
      }
      // Once per repair: a rename keeps an orphan's or a broken cycle's, not a CNF name's; a
      // move to another parent that ends in the same kind of repair is a new one.
      const what =
        kind === "CNF name"
          ? `${kind}:${record.placement.parent}:${fold(record.placement.name)}`
          : `${kind}:${record.placement.parent}`;
      if (this.repairsJournaled.get(record.id) === what) return;
      this.repairsJournaled.set(record.id, what);
      dir.journal.add(nowMs, "repair", `${record.id}: ${kind}, shown as ${view.path(record)}`);
    };
    for (const ids of [candidates, rivals]) {
      for (const id of ids) {
        const record = dir.get(id);
        if (record !== undefined && record.existence.stage === "alive") judge(record);
        else this.repairsJournaled.delete(id); // ended: its return is a new repair
      }
    }
  }

}
