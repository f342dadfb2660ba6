/**
 * Goal: every read endpoint of SPEC "Endpoints" answers with the documented shape on a fresh
 * domain served by the real daemon: node view (with storage, boot, machine, utd, watermarks),
 * journal, storage, fabric and msgs of a fabric-less node, root, paths (bare, caseless,
 * percent-decoded), objects, children, morgue and schema. Method: one `canopy serve
 * --create-if-missing` child process on a temp dir and loopback port; plain fetch calls.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanup, client, startDaemon, valuesOf } from "./daemon-harness";
import type { Client, RunningDaemon } from "./daemon-harness";

const guid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

let daemon: RunningDaemon;
let api: Client;

beforeAll(async () => {
  daemon = await startDaemon();
  api = client(daemon.url);
});
afterAll(async () => {
  await daemon?.stop();
  await cleanup();
});

describe("GET /api/node", () => {
  it("has every documented field", async () => {
    const r = await api.get("/api/node");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    const n = r.body;
    expect(Object.keys(n).sort()).toEqual(
      [
        "nodeId", "invocationId", "usn", "hasRoot", "purgeHorizon", "morgueSize", "rollbackLatched",
        "erasureDebt", "storage", "boot", "machine", "utd", "watermarks",
      ].sort(),
    );
    expect(n.nodeId).toMatch(guid);
    expect(n.invocationId).toMatch(guid);
    expect(Number.isInteger(n.usn) && n.usn > 0).toBe(true);
    expect(n).toMatchObject({ hasRoot: true, morgueSize: 0 });
    // The GC the daemon runs at start set the purge horizon: maxTimeApart (180 days) ago.
    const horizonAgoDays = (Date.now() - Date.parse(n.purgeHorizon)) / 86_400_000;
    expect(horizonAgoDays).toBeGreaterThan(179.9);
    expect(horizonAgoDays).toBeLessThan(180.1);
    expect(n.rollbackLatched).toBe(false);
    expect(n.erasureDebt).toBe(0);
    expect(typeof n.utd).toBe("object");
    expect(typeof n.watermarks).toBe("object");
  });

  it("storage holds durability marks and the dead flag; boot is the boot report", async () => {
    const { storage, boot, usn } = (await api.get("/api/node")).body;
    expect(storage).toMatchObject({ dead: false, deadReason: null });
    expect([storage.durableUsn, storage.appendedUsn]).toEqual([usn, usn]);
    for (const k of ["generation", "durableBytes", "appendedBytes", "durableSeq", "appendedSeq"]) {
      expect(Number.isInteger(storage[k])).toBe(true);
    }
    expect(storage.durableBytes).toBe(storage.appendedBytes);
    expect(boot).toMatchObject({ mode: "created", recordsReplayed: 0, tornBytesCut: 0 });
    expect(boot.at).toMatch(iso);
  });

  it("machine is the enrolled computer object and its x25519 key", async () => {
    const { machine } = (await api.get("/api/node")).body;
    expect(machine.object).toMatch(guid);
    expect(machine.machineKey).toMatch(/^x25519:[0-9a-f]{64}$/);
    const computer = (await api.get(`/api/objects/${machine.object}`)).body;
    expect(computer.class).toBe("computer");
    expect(computer.parent).toBe(await api.idAt("/Domain Controllers"));
    expect(valuesOf(computer, "networkAddress")).toEqual(["127.0.0.1:5390"]);
    expect(valuesOf(computer, "machineKey")).toEqual([machine.machineKey]);
  });
});

describe("GET /api/root, /api/path, /api/objects/{id}", () => {
  it("the root: class domainRoot, no parent, path '/', empty DN", async () => {
    const r = await api.get("/api/root");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ class: "domainRoot", parent: null, path: "/", dn: "" });
    expect(r.body.system).toBe(true);
    expect(r.body.name).toBe(daemon.domainName);
    for (const k of [
      "id", "classId", "facets", "hasChildren", "stage", "effectiveStage", "ghost", "existence",
      "placement", "usnChanged", "referencedBy", "attributes",
    ]) {
      expect(r.body).toHaveProperty(k);
    }
    expect(r.body.existence.at).toMatch(iso);
    expect(r.body.existence.cert).toHaveProperty("invocation");
  });

  it("bare /api/path and /api/path/ are the root", async () => {
    const root = (await api.get("/api/root")).body.id;
    expect((await api.get("/api/path")).body.id).toBe(root);
    expect((await api.get("/api/path/")).body.id).toBe(root);
  });

  it("paths resolve caselessly and percent-decoded", async () => {
    const schema = await api.get("/api/path/Configuration/Schema");
    expect(schema.status).toBe(200);
    expect(schema.body.path).toBe("/Configuration/Schema");
    expect(schema.body.dn).toBe("OU=Schema,CN=Configuration");
    expect((await api.get("/api/path/cONFIGURATION/schema")).body.id).toBe(schema.body.id);
    expect((await api.get("/api/path/Domain%20Controllers")).body.name).toBe("Domain Controllers");
    const people = await api.create(await api.idAt("/"), "People", "organizationalUnit");
    const bob = await api.create(people.id, "Bob, Jr.", "user");
    const found = await api.get("/api/path/People/Bob%2C%20Jr.");
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ id: bob.id, path: "/People/Bob, Jr." });
    expect(found.body.dn).toBe("CN=Bob\\, Jr.,OU=People");
    expect((await api.get("/api/path/people/BOB%2c%20JR.")).body.id).toBe(bob.id);
  });

  it("an unknown path is no-such-object; an encoded '/' never separates", async () => {
    const r = await api.get("/api/path/Configuration/Nope");
    expect(r.status).toBe(404);
    expect(r.body.error).toBe("no-such-object");
    expect((await api.get("/api/path/Configuration%2FSchema")).body.error).toBe("no-such-object");
  });

  it("ids are accepted in any case and rendered lowercase", async () => {
    const id = await api.idAt("/Configuration");
    const r = await api.get(`/api/objects/${id.toUpperCase()}`);
    expect(r.status).toBe(200);
    expect(r.body.id).toBe(id);
    expect(r.body.class).toBe("configuration");
  });
});

describe("GET /api/objects/{id}/children", () => {
  it("lists child summaries in caseless name order", async () => {
    const r = await api.get(`/api/objects/${await api.idAt("/")}/children`);
    expect(r.status).toBe(200);
    const names = r.body.map((c: { name: string }) => c.name);
    expect(names).toEqual(["Configuration", "Domain Controllers", "LostAndFound", "People"]);
    const flags = ["ghost", "conflicted", "orphaned", "cycleBroken"];
    const fields = ["id", "name", "class", "system", "hasChildren", ...flags];
    expect(Object.keys(r.body[0]).sort()).toEqual(fields.sort());
  });
});

describe("GET /api/schema", () => {
  it("has the 48 base definitions, sorted by name, nothing quarantined", async () => {
    const r = await api.get("/api/schema");
    expect(r.status).toBe(200);
    const { attributes, facets, classes, extensions, quarantined } = r.body;
    expect([attributes.length, facets.length, classes.length]).toEqual([26, 11, 11]);
    expect(extensions).toEqual([]);
    expect(quarantined).toEqual([]);
    for (const list of [attributes, facets, classes]) {
      const names = list.map((d: { name: string }) => d.name);
      const folded = (a: string, b: string) => a.toLowerCase().localeCompare(b.toLowerCase());
      expect(names).toEqual([...names].sort(folded));
    }
    expect(attributes.find((a: { name: string }) => a.name === "member")).toMatchObject({
      syntax: "reference", singleValued: false, matching: "exact", legalMeta: ["expiry"],
    });
    expect(classes.find((c: { name: string }) => c.name === "user")).toMatchObject({
      dnPrefix: "CN", instantiable: true,
    });
  });
});

describe("GET /api/journal, /api/storage, /api/morgue", () => {
  it("journal: {at, kind, detail} records, newest last, from the domain creation", async () => {
    const r = await api.get("/api/journal");
    expect(r.status).toBe(200);
    expect(r.body.length).toBeGreaterThan(0);
    expect(r.body[0]).toMatchObject({ kind: "domain-created" });
    for (const record of r.body) {
      expect(Object.keys(record).sort()).toEqual(["at", "detail", "kind"]);
      expect(record.at).toMatch(iso);
    }
  });

  it("storage: files, marks, rotation threshold, erasure debt, rebuild status", async () => {
    const r = await api.get("/api/storage");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ erasureDebt: 0, dead: false });
    const activeLog = r.body.files.find((f: { kind: string; active: boolean }) => f.active);
    expect(activeLog?.kind).toBe("wal");
    expect(r.body.rotateBytes).toBeGreaterThan(0);
    expect(r.body.rebuild).toHaveProperty("running");
    expect(r.body.rebuild).toHaveProperty("lastOutcome");
    expect(r.body.marks).toHaveProperty("durableSeq");
  });

  it("morgue: empty on a fresh domain", async () => {
    const r = await api.get("/api/morgue");
    expect(r.status).toBe(200);
    expect(r.body).toEqual([]);
  });
});

describe("fabric-less node: GET /api/fabric and /api/msgs", () => {
  it("fabric: disabled, with this machine's identity and empty rings", async () => {
    const { machine } = (await api.get("/api/node")).body;
    const r = await api.get("/api/fabric");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      enabled: false,
      identity: { machine: machine.object, machineKey: machine.machineKey },
      bind: null,
      peers: [],
      inbound: [],
      channels: [],
      recentChannels: [],
      supervisor: null,
      events: [],
    });
  });

  it("msgs: {enabled: false}", async () => {
    const r = await api.get("/api/msgs");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ enabled: false });
  });
});
