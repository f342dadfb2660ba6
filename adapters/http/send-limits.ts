/**
 * Bounds on answer bytes the daemon holds for clients that read slowly (concurrency audit: 100
 * clients that never read their GETs of a 7 MB object held 700 MB in socket write buffers,
 * without limit). An answer's bytes are "held" from the moment the answer is built until the
 * socket has handed its last byte to the kernel, or the connection is gone: Node keeps a
 * written buffer whole until its last byte is sent.
 */
import { assert } from "../../core/assert";

export interface SendLimits {
  /**
   * All connections together. A request that arrives while more than this is held waits
   * (`budgetWaitMs`) for it to drain, then is refused with 503.
   */
  readonly budgetBytes: number;
  /** One connection: while it holds more, its next (pipelined) request is not started. */
  readonly connectionBytesMax: number;
  /** The longest a request waits for the budget before it is refused. */
  readonly budgetWaitMs: number;
  /** A connection that holds bytes and makes no write progress this long is destroyed. */
  readonly stallMs: number;
}

export const mebibyte = 1024 * 1024;

/**
 * 256 MiB: about a hundredth of the machine's 24 GiB on top of a daemon of ~160 MB, room for
 * 35 slow readers of a 7 MB object (several 1 MiB values) or thousands of ordinary answers.
 * 1 MiB per connection: sixty-four times the socket's 16 KiB high-water mark, so pipelined small
 * answers flow, while a big unsent answer holds back the next. 2 s: a burst held by readers
 * that do read drains in that time (256 MiB at 1 Gbit/s). 60 s: nginx's `send_timeout`.
 */
export const defaultSendLimits: SendLimits = {
  budgetBytes: 256 * mebibyte,
  connectionBytesMax: mebibyte,
  budgetWaitMs: 2_000,
  stallMs: 60_000,
};

export function checkSendLimits(limits: SendLimits): SendLimits {
  for (const [name, value] of Object.entries(limits)) {
    assert(Number.isSafeInteger(value) && value > 0, `send limit ${name} must be > 0: ${value}`);
  }
  assert(limits.connectionBytesMax <= limits.budgetBytes, "a connection's share fits the budget");
  return limits;
}
