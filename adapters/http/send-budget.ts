/**
 * The ledger of answer bytes held for clients (send-limits.ts): per connection and in total,
 * each answer charged with its size from the moment it is built until its response finishes
 * (its last byte handed to the kernel) or closes (the connection is gone). A buffer shared by
 * several answers (reply.ts encodes a cached payload once) is charged to each: the figure is
 * what the sockets would hold were each answer its own copy, an upper bound of the memory.
 *
 * It also arms the stall watchdog while any connection holds bytes, and wakes the requests
 * that wait for bytes to drain (send-gate.ts).
 */
import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { assert } from "../../core/assert";
import { checkSendLimits, defaultSendLimits } from "./send-limits";
import type { SendLimits } from "./send-limits";
import { StallWatchdog } from "./stall-watchdog";
import type { Holder } from "./stall-watchdog";

interface Connection {
  readonly socket: Socket;
  heldBytes: number;
  /** Answers of this connection that finished or closed (the watchdog's sign of progress). */
  answersEnded: number;
  readonly answers: Set<Answer>;
}

interface Answer {
  readonly connection: Connection | null;
  bytes: number;
  done: boolean;
}

/** An answer on a connection that closed before it was tracked: never charged. */
const goneAnswer = (): Answer => ({ connection: null, bytes: 0, done: true });

export class SendBudget {
  readonly limits: SendLimits;
  private heldTotal = 0;
  private readonly connections = new Map<Socket, Connection>();
  /** The connections whose `heldBytes` is above 0: the watchdog's rounds visit only these. */
  private readonly holding = new Set<Connection>();
  private readonly answers = new WeakMap<ServerResponse, Answer>();
  private readonly wakers = new Set<() => void>();
  private readonly watchdog: StallWatchdog;

  constructor(limits: SendLimits = defaultSendLimits, clock: () => number = Date.now) {
    this.limits = checkSendLimits(limits);
    this.watchdog = new StallWatchdog(limits.stallMs, clock, () => this.holders());
  }

  /** Bytes held for every connection together. */
  get heldBytes(): number {
    return this.heldTotal;
  }

  heldBy(socket: Socket): number {
    return this.connections.get(socket)?.heldBytes ?? 0;
  }

  /** Connections that hold bytes (the watchdog's round). */
  *holders(): IterableIterator<Holder> {
    for (const { socket, answersEnded } of this.holding) yield { socket, answersEnded };
  }

  /** Starts the ledger of one response; its charge ends when it finishes or closes. */
  track(res: ServerResponse, socket: Socket): void {
    assert(!this.answers.has(res), "a response is tracked once");
    if (socket.destroyed || res.destroyed) {
      this.answers.set(res, goneAnswer());
      return;
    }
    const connection = this.connection(socket);
    const answer: Answer = { connection, bytes: 0, done: false };
    connection.answers.add(answer);
    this.answers.set(res, answer);
    const end = (): void => this.end(answer);
    res.once("finish", end);
    res.once("close", end);
  }

  /** Sets what a tracked response holds: its answer's size (the last charge stands). */
  charge(res: ServerResponse, bytes: number): void {
    assert(Number.isSafeInteger(bytes) && bytes >= 0, `a charge is a byte count: ${bytes}`);
    const answer = this.answers.get(res);
    assert(answer !== undefined, "only a tracked response is charged");
    if (answer.done || answer.connection === null) return;
    const delta = bytes - answer.bytes;
    answer.bytes = bytes;
    answer.connection.heldBytes += delta;
    this.heldTotal += delta;
    this.checkTotals(answer.connection);
    if (delta < 0) this.wake();
    if (this.heldTotal > 0) this.watchdog.arm();
  }

  /**
   * Resolves at the next release of held bytes (or a closed connection), or after `timeoutMs`
   * when one is given; a wait that timed out leaves nothing behind.
   */
  released(timeoutMs: number | null = null): Promise<void> {
    return new Promise<void>((resolve) => {
      if (timeoutMs === null) {
        this.wakers.add(resolve);
        return;
      }
      const wake = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.wakers.delete(wake);
        resolve();
      }, Math.max(0, timeoutMs));
      this.wakers.add(wake);
    });
  }

  private connection(socket: Socket): Connection {
    const known = this.connections.get(socket);
    if (known !== undefined) return known;
    const connection: Connection = { socket, heldBytes: 0, answersEnded: 0, answers: new Set() };
    this.connections.set(socket, connection);
    // Whatever became of its responses, a closed connection holds nothing (a pipelined
    // response still queued behind another may never be told that its socket is gone).
    socket.once("close", () => {
      for (const answer of [...connection.answers]) this.end(answer);
      assert(connection.heldBytes === 0, "a closed connection holds no bytes");
      this.connections.delete(socket);
      this.wake();
    });
    return connection;
  }

  private end(answer: Answer): void {
    if (answer.done) return;
    answer.done = true;
    const connection = answer.connection;
    assert(connection !== null, "an open answer has a connection");
    connection.answers.delete(answer);
    connection.answersEnded += 1;
    connection.heldBytes -= answer.bytes;
    this.heldTotal -= answer.bytes;
    this.checkTotals(connection);
    if (answer.bytes > 0) this.wake();
    if (this.heldTotal === 0) this.watchdog.disarm();
  }

  /** After a connection's figure changed: the invariants, and the set of holders. */
  private checkTotals(connection: Connection): void {
    assert(connection.heldBytes >= 0, `a connection holds ${connection.heldBytes} bytes`);
    assert(this.heldTotal >= connection.heldBytes, "the total covers each connection");
    if (connection.heldBytes > 0) this.holding.add(connection);
    else this.holding.delete(connection);
    assert((this.heldTotal === 0) === (this.holding.size === 0), "bytes held iff a holder");
  }

  private wake(): void {
    const wakers = [...this.wakers];
    this.wakers.clear();
    for (const wake of wakers) wake();
  }
}
