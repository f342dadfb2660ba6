/**
 * Node-level endpoints: the node view, journal, storage, GC, and the fabric and machine-talk
 * endpoints of a node that has no fabric yet.
 */
import type Router from "@koa/router";
import { limits } from "../../core/limits";
import { utf8ByteLength } from "../../core/naming";
import { msToTimestamp } from "../../core/syntax";
import type { Daemon } from "../daemon/daemon";
import { readJsonBody } from "./json-body";
import { guidParam, reply } from "./reply";
import { SendBody } from "./request-codecs";

const noFabric = {
  ok: false,
  code: "no-fabric",
  message: "this node runs without a fabric (no interlink transport in this version)",
} as const;

export function registerNodeRoutes(router: Router, daemon: Daemon): void {
  router.get("/api/node", (ctx) => {
    ctx.body = daemon.nodeView();
  });
  router.get("/api/journal", (ctx) => {
    const records = daemon.read((node) => node.journal());
    ctx.body = records.map((r) => ({ at: msToTimestamp(r.atMs), kind: r.kind, detail: r.detail }));
  });
  router.get("/api/storage", (ctx) => {
    ctx.body = daemon.storageView();
  });
  router.post("/api/storage/rotate", (ctx) => reply(ctx, daemon.rotate()));
  router.post("/api/storage/rebuild", (ctx) => reply(ctx, daemon.rebuild()));
  router.post("/api/gc", async (ctx) => {
    reply(ctx, await daemon.write((node, nowMs) => node.gc(nowMs)));
  });
  registerFabricRoutes(router, daemon);
}

/**
 * Without a fabric the views say so and the actions refuse with `no-fabric`. The identity is
 * still shown: it exists from enrollment on, whether or not a transport uses it.
 */
function registerFabricRoutes(router: Router, daemon: Daemon): void {
  router.get("/api/fabric", (ctx) => {
    ctx.body = {
      enabled: false,
      identity: { machine: daemon.machine.object, machineKey: daemon.machine.machineKey },
      bind: null,
      peers: [],
      inbound: [],
      channels: [],
      recentChannels: [],
      supervisor: null,
      events: [],
    };
  });
  router.post("/api/fabric/redial/:guid", (ctx) => {
    if (guidParam(ctx, ctx.params["guid"]) === null) return;
    reply(ctx, noFabric);
  });
  router.get("/api/msgs", (ctx) => {
    ctx.body = { enabled: false };
  });
  router.post("/api/msgs/send", async (ctx) => {
    const body = await readJsonBody(ctx, SendBody);
    const bytes = utf8ByteLength(body.text);
    // Request problems come before the missing fabric, as they would with one (SPEC lists
    // both as request problems of this endpoint).
    if (bytes < limits.msgTextBytesMin || bytes > limits.msgTextBytesMax) {
      const range = `${limits.msgTextBytesMin}-${limits.msgTextBytesMax}`;
      const message = `text is ${bytes} UTF-8 bytes; must be ${range}`;
      reply(ctx, { ok: false, code: "bad-text", message });
      return;
    }
    reply(ctx, noFabric);
  });
}
