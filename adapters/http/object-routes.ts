/** Directory endpoints: objects, children, attributes, paths, root, morgue, schema. */
import type Router from "@koa/router";
import type { Context } from "koa";
import type { Daemon } from "../daemon/daemon";
import { readJsonBody } from "./json-body";
import { guidParam, reply } from "./reply";
import { CreateBody, MoveBody, PutAttributeBody } from "./request-codecs";
import { resolvePathRoute } from "./path-route";

export function registerObjectRoutes(router: Router, daemon: Daemon): void {
  router.get("/api/root", (ctx) => reply(ctx, daemon.read((node, nowMs) => node.root(nowMs))));
  router.get("/api/morgue", (ctx) => reply(ctx, daemon.read((node, nowMs) => node.morgue(nowMs))));
  router.get("/api/schema", (ctx) => reply(ctx, daemon.read((node) => node.schema())));
  // One route for the bare root path and every tail; the raw (still encoded) tail is decoded
  // by resolvePathRoute, segment by segment.
  router.get("/api/path{/*rest}", (ctx) => {
    resolvePathRoute(ctx, daemon, ctx.path.slice("/api/path".length));
  });
  router.get("/api/objects/:id", (ctx) => {
    const id = idParam(ctx);
    if (id !== null) reply(ctx, daemon.read((node, nowMs) => node.object(id, nowMs)));
  });
  router.get("/api/objects/:id/children", (ctx) => {
    const id = idParam(ctx);
    if (id !== null) reply(ctx, daemon.read((node) => node.children(id)));
  });
  registerObjectWrites(router, daemon);
}

function registerObjectWrites(router: Router, daemon: Daemon): void {
  router.post("/api/objects/:id/children", async (ctx) => {
    const id = idParam(ctx);
    if (id === null) return;
    const body = await readJsonBody(ctx, CreateBody);
    const req = { parent: id, name: body.name, className: body.class, attributes: body.attributes };
    reply(ctx, await daemon.write((node, nowMs) => node.create(req, nowMs)), 201);
  });
  router.patch("/api/objects/:id", async (ctx) => {
    const id = idParam(ctx);
    if (id === null) return;
    const body = await readJsonBody(ctx, MoveBody);
    reply(ctx, await daemon.write((node, nowMs) => node.move(id, body, nowMs)));
  });
  router.put("/api/objects/:id/attributes/:name", async (ctx) => {
    const id = idParam(ctx);
    if (id === null) return;
    const name = ctx.params["name"] ?? "";
    const body = await readJsonBody(ctx, PutAttributeBody);
    const values = body.values;
    reply(ctx, await daemon.write((node, nowMs) => node.putAttribute(id, name, values, nowMs)));
  });
  router.delete("/api/objects/:id", async (ctx) => {
    const id = idParam(ctx);
    if (id !== null) reply(ctx, await daemon.write((node, nowMs) => node.delete(id, nowMs)), 204);
  });
  router.post("/api/objects/:id/restore", async (ctx) => {
    const id = idParam(ctx);
    if (id !== null) reply(ctx, await daemon.write((node, nowMs) => node.restore(id, nowMs)));
  });
  router.post("/api/objects/:id/shred", async (ctx) => {
    const id = idParam(ctx);
    if (id !== null) reply(ctx, await daemon.write((node, nowMs) => node.shred(id, nowMs)));
  });
}

function idParam(ctx: Context & { params: Record<string, string> }): string | null {
  return guidParam(ctx, ctx.params["id"]);
}
