/**
 * The HTTP API of SPEC "Endpoints" as a Koa app. Glue only: decode the request, call the
 * daemon (which calls the core), render the result. Reads answer from memory once the writes
 * applied before them are durable (the current turn's group commit); writes answer after
 * their batch is durable. Answers held for slow readers are bounded by the send budget
 * (send-gate.ts), admitted just before the routes build them.
 */
import Router from "@koa/router";
import Koa from "koa";
import type { Daemon } from "../daemon/daemon";
import { registerNodeRoutes } from "./node-routes";
import { registerObjectRoutes } from "./object-routes";
import { SendBudget } from "./send-budget";
import { sendGate } from "./send-gate";
import { errorEnvelope } from "./transport-errors";

export interface AppOptions {
  readonly log?: (line: string) => void;
  /** The ledger of answer bytes held for clients; one with the default limits if absent. */
  readonly sendBudget?: SendBudget;
}

export function createApp(daemon: Daemon, options: AppOptions = {}): Koa {
  const log = options.log ?? ((line: string) => console.error(line));
  const app = new Koa();
  // Errors are rendered (and bugs logged) by errorEnvelope; Koa's own printer would only
  // repeat them.
  app.silent = true;
  const router = new Router();
  registerNodeRoutes(router, daemon);
  registerObjectRoutes(router, daemon);
  app.use(errorEnvelope(log));
  app.use(async (ctx, next) => {
    if (ctx.method === "GET" || ctx.method === "HEAD") await daemon.committed();
    await next();
  });
  app.use(sendGate(options.sendBudget ?? new SendBudget()));
  // OPTIONS lists a route's methods in Allow and has nothing to say besides: 204, no body
  // (the router answered 200 with an empty text/plain body; HTTP audit, twenty-seventh session).
  app.use(async (ctx, next) => {
    await next();
    if (ctx.method === "OPTIONS" && ctx.status === 200 && (ctx.body === undefined || ctx.body === null || ctx.body === "")) {
      ctx.status = 204;
    }
  });
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
