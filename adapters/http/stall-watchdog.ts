/**
 * Destroys a connection that holds answer bytes and makes no write progress for `stallMs`, so
 * that its buffers are freed (nginx's `send_timeout`): a client that stopped reading would
 * otherwise hold its share of the send budget for as long as it keeps the connection open.
 *
 * Progress is read from the socket's libuv handle (`writeQueueSize`, the bytes libuv has still
 * to write, which falls as the kernel takes partial writes) together with the stream's
 * `writableLength` (whole chunks not yet completed, which falls only when a chunk's last byte
 * is written). `writableLength` alone would call a client that reads a 7 MB answer slowly but
 * steadily stalled. Both are sampled a few times per `stallMs`; any fall is progress, and so is
 * an answer of the connection finishing between two samples (the next can be the same size).
 * A connection that held nothing at a round starts afresh at the next.
 */
import type { Socket } from "node:net";
import { assert } from "../../core/assert";

/** A connection that holds answer bytes, and how many of its answers have ended so far. */
export interface Holder {
  readonly socket: Socket;
  readonly answersEnded: number;
}

interface Sample {
  readonly unsentBytes: number;
  readonly queuedBytes: number;
  readonly answersEnded: number;
  /** When this connection last made progress (or began to hold bytes). */
  readonly sinceMs: number;
}

export class StallWatchdog {
  private timer: ReturnType<typeof setInterval> | null = null;
  private samples = new Map<Socket, Sample>();
  private readonly checkEveryMs: number;

  constructor(
    private readonly stallMs: number,
    private readonly clock: () => number,
    private readonly holders: () => Iterable<Holder>,
  ) {
    assert(Number.isSafeInteger(stallMs) && stallMs > 0, `a stall bound is > 0 ms: ${stallMs}`);
    this.checkEveryMs = Math.max(25, Math.min(1_000, Math.floor(stallMs / 4)));
  }

  /** Starts the rounds (idempotent); the ledger arms it while any connection holds bytes. */
  arm(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => this.round(), this.checkEveryMs);
    // The server keeps the process alive, not this timer.
    this.timer.unref();
  }

  disarm(): void {
    if (this.timer === null) return;
    clearInterval(this.timer);
    this.timer = null;
    this.samples.clear();
  }

  private round(): void {
    const nowMs = this.clock();
    const last = this.samples;
    this.samples = new Map();
    for (const { socket, answersEnded } of this.holders()) {
      if (socket.destroyed) continue;
      const unsentBytes = socket.writableLength;
      const queuedBytes = queueSize(socket) ?? unsentBytes;
      const before = last.get(socket);
      const progressed =
        before === undefined ||
        unsentBytes === 0 ||
        unsentBytes < before.unsentBytes ||
        queuedBytes < before.queuedBytes ||
        answersEnded > before.answersEnded;
      const sinceMs = progressed ? nowMs : before.sinceMs;
      if (nowMs - sinceMs >= this.stallMs) {
        socket.destroy();
        continue;
      }
      // Figures that rose (a new answer was written) are the next reference; the clock runs on.
      this.samples.set(socket, { unsentBytes, queuedBytes, answersEnded, sinceMs });
    }
  }
}

/** libuv's live write queue of the socket, when Node exposes it (an internal property). */
function queueSize(socket: Socket): number | undefined {
  const handle = (socket as Socket & { _handle?: { writeQueueSize?: unknown } | null })._handle;
  const size = handle?.writeQueueSize;
  return typeof size === "number" ? size : undefined;
}
