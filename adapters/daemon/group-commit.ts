/**
 * Group commit (DESIGN "Durability"): every write applied during one event-loop turn shares
 * one flush. The first waiter of a turn schedules the flush with setImmediate, which runs
 * right after the current I/O callbacks: concurrent requests that arrived in the same turn
 * are already applied by then, and a lone write waits for no timer.
 */
export class GroupCommit {
  private pending: Promise<void> | null = null;

  /** `flush` persists everything applied so far, synchronously; it throws when it cannot. */
  constructor(private readonly flush: () => void) {}

  /** Resolves once everything applied before this call is durable; rejects if the flush failed. */
  whenDurable(): Promise<void> {
    if (this.pending === null) {
      this.pending = new Promise<void>((resolve, reject) => {
        setImmediate(() => {
          // Cleared before flushing: writes applied after this point belong to the next flush.
          this.pending = null;
          try {
            this.flush();
            resolve();
          } catch (error) {
            reject(error);
          }
        });
      });
    }
    return this.pending;
  }

  /** Whether writes applied so far wait for a flush that has not run yet. */
  get hasPending(): boolean {
    return this.pending !== null;
  }

  /** Waits for a scheduled flush, whatever its outcome (shutdown, reads). */
  async drain(): Promise<void> {
    const pending = this.pending;
    if (pending !== null) await pending.catch(() => undefined);
  }
}
