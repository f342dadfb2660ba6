/**
 * Local GC on a period. SPEC has tombstones harden past `timeUntilShred` and purge past
 * `maxTimeApart` by local GC, and `POST /api/gc` run it "on demand", that is besides a
 * schedule of the node's own: without one, a daemon nobody calls GC on kept the plaintext of
 * every deleted object in its files for ever (apply-time aging only hides it) and never purged a
 * tombstone. Like Active Directory's garbage collection (every 12 hours), this one runs at start
 * (a daemon that was down for weeks catches up at once) and then every `everyMs`.
 *
 * Runs never overlap: a run still waiting for its commit when the next is due skips that one.
 */
export const defaultGcEverySeconds = 3600;

export interface GcSchedule {
  stop(): void;
}

export function scheduleGc(everyMs: number, run: () => Promise<void>): GcSchedule {
  if (!Number.isSafeInteger(everyMs) || everyMs <= 0) {
    throw new RangeError(`a GC period is a positive number of ms, not ${everyMs}`);
  }
  let running = false;
  let stopped = false;
  const tick = (): void => {
    if (running || stopped) return;
    running = true;
    void run().finally(() => {
      running = false;
    });
  };
  // Neither timer keeps the process alive: the HTTP server (or the caller) does.
  const first = setImmediate(tick);
  const every = setInterval(tick, everyMs);
  every.unref();
  return {
    stop(): void {
      stopped = true;
      clearImmediate(first);
      clearInterval(every);
    },
  };
}
