/**
 * The HTTP API of SPEC "Endpoints" as a Koa app. Glue only: decode the request, call the
 * daemon (which calls the core), render the result. Reads answer from memory once the writes
 * applied before them are durable (the current turn's group commit); writes answer after
 * their batch is durable.
 */
import Router from "@koa/router";
import Koa from "koa";
import type { Daemon } from "../daemon/daemon";
import { registerNodeRoutes } from "./node-routes";
import { registerObjectRoutes } from "./object-routes";
import { errorEnvelope } from "./transport-errors";

export interface AppOptions {
  readonly log?: (line: string) => void;
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
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
