/**
 * Admission by the send budget (send-limits.ts), as Koa middleware placed just before the
 * routes, after a read's wait for the group commit, so that nothing awaits between the decision
 * and the answer being built:
 * - one connection: while it holds more than `connectionBytesMax`, its next request (HTTP/1.1
 *   pipelining) waits, in arrival order, until the bytes drain; the stall watchdog bounds a
 *   client that stopped reading;
 * - all connections: while `budgetBytes` or more is held, a request waits up to `budgetWaitMs`
 *   for bytes to drain, then is refused: 503 with `Retry-After`, the connection kept.
 * An answer is charged to the ledger as soon as it exists: a read's route builds it
 * synchronously inside `next()`, so the charge lands before any other request is admitted and
 * reads never take the total past the budget by more than one answer; a write's answer is
 * built after its commit and charged then (writes admitted together can overshoot by their
 * answers, each bounded by the request and value limits).
 *
 * The refusal's code: SPEC's error table has none for an overloaded server, and its two 503
 * codes (`no-root`, `no-fabric`) name states a client would act on wrongly; `shutting-down`
 * would tell a client the daemon is going away. So it is a transport code of its own,
 * `overloaded` (503, with Retry-After): retry later.
 */
import type { Socket } from "node:net";
import { Stream } from "node:stream";
import type { Context, Middleware } from "koa";
import { assert } from "../../core/assert";
import type { SendBudget } from "./send-budget";
import { sendTransportError } from "./transport-errors";
import type { TransportCode } from "./transport-errors";

export const overBudgetCode: TransportCode = "overloaded";
const retryAfterSeconds = 1;

type Verdict = "go" | "gone" | "wait-connection" | "wait-budget";

export function sendGate(budget: SendBudget): Middleware {
  // The request of each connection that was last to reach the gate: the next waits for it.
  const turns = new WeakMap<Socket, Promise<void>>();
  return async (ctx, next) => {
    const socket = ctx.req.socket;
    budget.track(ctx.res, socket);
    const previous = turns.get(socket);
    let endTurn = (): void => undefined;
    turns.set(socket, new Promise<void>((resolve) => (endTurn = resolve)));
    await previous;
    let deadlineMs: number | null = null;
    // The verdict that admits is taken in the same synchronous run as the build and charge
    // below: requests woken together decide one after the other, each seeing the last charge.
    let verdict = admit(budget, socket);
    while (verdict === "wait-connection" || verdict === "wait-budget") {
      if (verdict === "wait-budget") {
        deadlineMs ??= Date.now() + budget.limits.budgetWaitMs;
        const leftMs = deadlineMs - Date.now();
        if (leftMs <= 0) break;
        await budget.released(leftMs);
      } else {
        await budget.released();
      }
      verdict = admit(budget, socket);
    }
    if (verdict === "go") {
      const running = next();
      charge(budget, ctx);
      endTurn();
      await running;
      charge(budget, ctx);
      return;
    }
    if (verdict === "wait-budget") {
      refuse(ctx, budget);
      charge(budget, ctx);
    }
    endTurn();
  };
}

/**
 * The connection's own backpressure first (no deadline: the stall watchdog bounds a client
 * that stopped reading), then the budget shared by all (the caller bounds that wait).
 */
function admit(budget: SendBudget, socket: Socket): Verdict {
  if (socket.destroyed) return "gone";
  if (budget.heldBy(socket) > budget.limits.connectionBytesMax) return "wait-connection";
  return budget.heldBytes < budget.limits.budgetBytes ? "go" : "wait-budget";
}

function refuse(ctx: Context, budget: SendBudget): void {
  const heldMiB = (budget.heldBytes / 1048576).toFixed(1);
  const budgetMiB = (budget.limits.budgetBytes / 1048576).toFixed(1);
  const message =
    `overloaded: answers not yet read by their clients hold ${heldMiB} MiB, ` +
    `over the send budget of ${budgetMiB} MiB; retry in ${retryAfterSeconds} s`;
  sendTransportError(ctx, overBudgetCode, message);
  ctx.set("Retry-After", String(retryAfterSeconds));
}

/** Charges the answer as it stands; a later charge of the same response replaces it. */
function charge(budget: SendBudget, ctx: Context): void {
  budget.charge(ctx.res, ctx.method === "HEAD" ? 0 : bodyBytes(ctx));
}

function bodyBytes(ctx: Context): number {
  const body: unknown = ctx.body;
  if (body === null || body === undefined) return 0;
  if (Buffer.isBuffer(body)) return body.length;
  if (typeof body === "string") return Buffer.byteLength(body);
  assert(!(body instanceof Stream), "answers are built in memory, never streamed");
  // An object, which Koa would stringify as it responds: done here, its size is known.
  const bytes = Buffer.from(JSON.stringify(body));
  ctx.body = bytes;
  return bytes.length;
}
