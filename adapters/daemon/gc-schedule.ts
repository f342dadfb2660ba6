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

/**
 * The longest delay a Node timer holds: a longer one fires after 1 ms (with a warning), so a
 * GC period of a month (`--gc-every 2592000`) ran GC every millisecond. Longer periods are
 * waited for in steps of at most this.
 */
const maxTimerDelayMs = 2 ** 31 - 1;

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
  let timer: ReturnType<typeof setTimeout> | null = null;
  // Waits `remainingMs` in steps a timer can hold, then runs and waits a whole period again.
  const wait = (remainingMs: number): void => {
    const step = Math.min(remainingMs, maxTimerDelayMs);
    timer = setTimeout(() => {
      if (stopped) return;
      if (remainingMs > step) {
        wait(remainingMs - step);
        return;
      }
      tick();
      wait(everyMs);
    }, step);
    // No timer keeps the process alive: the HTTP server (or the caller) does.
    timer.unref();
  };
  const first = setImmediate(tick);
  wait(everyMs);
  return {
    stop(): void {
      stopped = true;
      clearImmediate(first);
      if (timer !== null) clearTimeout(timer);
    },
  };
}
