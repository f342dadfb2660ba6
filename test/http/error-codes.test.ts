/**
 * Goal: every error code of SPEC's table that a single fabric-less node can produce reaches a
 * client over HTTP as `{error, message}` with the table's status, and a refused write changes
 * nothing. Codes that need replication state cannot be provoked here: no-root (a joining node
 * before its first sync), ghost-object (a class not yet replicated), rollback-quarantine (a
 * restored disk image), unknown-recipient (needs a fabric to resolve against; without one,
 * send answers no-fabric). Method: one real daemon child process; each case sets up what it
 * needs through the API, sends the offending request, and checks status, code and message.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorStatus } from "../../core/errors";
import type { ErrorCode } from "../../core/errors";
import { cleanup, client, outcome, startDaemon } from "./daemon-harness";
import type { ApiResponse, Client, RunningDaemon } from "./daemon-harness";

let daemon: RunningDaemon;
let api: Client;
let root: string;
let people: string;
let alice: string;

const absentId = "00000000-0000-4000-8000-000000000001";

beforeAll(async () => {
  daemon = await startDaemon();
  api = client(daemon.url);
  root = await api.idAt("/");
  people = (await api.create(root, "People", "organizationalUnit")).id;
  alice = (await api.create(people, "alice", "user")).id;
});
afterAll(async () => {
  await daemon?.stop();
  await cleanup();
});

/** Asserts a SPEC refusal: the code, the table's status, a human message. */
function expectRefusal(r: ApiResponse, code: ErrorCode): void {
  expect(outcome(r)).toEqual({ status: errorStatus[code], error: code });
  expect(typeof r.body.message).toBe("string");
  expect(r.body.message.length).toBeGreaterThan(0);
  expect(r.headers.get("content-type")).toMatch(/^application\/json/);
}

/** Runs a write that must be refused and checks that the node's USN did not move. */
async function expectRefusedWrite(run: () => Promise<ApiResponse>, code: ErrorCode): Promise<void> {
  const before = (await api.get("/api/node")).body.usn;
  expectRefusal(await run(), code);
  expect((await api.get("/api/node")).body.usn).toBe(before);
}

const activeDefinition = { lifecycle: ["active"], system: ["false"] };

/** A namespace under /Configuration/Schema for this suite's own definitions. */
async function namespace(name: string): Promise<string> {
  return (await api.create(await api.idAt("/Configuration/Schema"), name, "schemaNamespace")).id;
}

describe("identity and lookup", () => {
  it("bad-object-id on every {id} route and on a PATCH parent", async () => {
    expectRefusal(await api.get("/api/objects/not-a-guid"), "bad-object-id");
    expectRefusal(await api.get("/api/objects/not-a-guid/children"), "bad-object-id");
    expectRefusal(
      await api.post("/api/objects/1234/children", { name: "x", class: "user" }),
      "bad-object-id",
    );
    expectRefusal(await api.patch("/api/objects/zz", { name: "x" }), "bad-object-id");
    expectRefusal(
      await api.put("/api/objects/zz/attributes/description", { values: [] }),
      "bad-object-id",
    );
    expectRefusal(await api.del("/api/objects/zz"), "bad-object-id");
    expectRefusal(await api.post("/api/objects/zz/restore"), "bad-object-id");
    expectRefusal(await api.post("/api/objects/zz/shred"), "bad-object-id");
    expectRefusal(await api.post("/api/fabric/redial/zz"), "bad-object-id");
    await expectRefusedWrite(
      () => api.patch(`/api/objects/${alice}`, { parent: "nope" }),
      "bad-object-id",
    );
  });

  it("no-such-object for an id, a parent, a path and a move target", async () => {
    expectRefusal(await api.get(`/api/objects/${absentId}`), "no-such-object");
    expectRefusal(await api.get(`/api/objects/${absentId}/children`), "no-such-object");
    expectRefusal(await api.get("/api/path/People/nobody"), "no-such-object");
    await expectRefusedWrite(
      () => api.post(`/api/objects/${absentId}/children`, { name: "x", class: "user" }),
      "no-such-object",
    );
    await expectRefusedWrite(
      () => api.patch(`/api/objects/${alice}`, { parent: absentId }),
      "no-such-object",
    );
  });
});

describe("names and classes", () => {
  it("name-in-use: caseless sibling clash, on create and on rename", async () => {
    await expectRefusedWrite(
      () => api.post(`/api/objects/${people}/children`, { name: "ALICE", class: "group" }),
      "name-in-use",
    );
    const bob = (await api.create(people, "bob", "user")).id;
    await expectRefusedWrite(
      () => api.patch(`/api/objects/${bob}`, { name: "Alice" }),
      "name-in-use",
    );
  });

  it("invalid-name: '/', control characters, edge whitespace, empty, non-string", async () => {
    for (const name of ["a/b", "tab\there", " lead", "trail ", "", 42]) {
      await expectRefusedWrite(
        () => api.post(`/api/objects/${people}/children`, { name, class: "user" }),
        "invalid-name",
      );
    }
    await expectRefusedWrite(
      () => api.patch(`/api/objects/${alice}`, { name: "x/y" }),
      "invalid-name",
    );
  });

  it("unknown-class and class-not-instantiable", async () => {
    await expectRefusedWrite(
      () => api.post(`/api/objects/${people}/children`, { name: "x", class: "wizard" }),
      "unknown-class",
    );
    for (const cls of ["domainRoot", "configuration"]) {
      await expectRefusedWrite(
        () => api.post(`/api/objects/${people}/children`, { name: "x", class: cls }),
        "class-not-instantiable",
      );
    }
  });
});

describe("attributes and values", () => {
  const put = (id: string, name: string, values: unknown[]) =>
    api.put(`/api/objects/${id}/attributes/${name}`, { values });

  it("unknown-attribute and attribute-not-permitted", async () => {
    await expectRefusedWrite(() => put(alice, "shoeSize", ["42"]), "unknown-attribute");
    await expectRefusedWrite(() => put(people, "sid", ["S-1-5-21"]), "attribute-not-permitted");
    await expectRefusedWrite(
      () =>
        api.post(`/api/objects/${people}/children`, {
          name: "c",
          class: "user",
          attributes: { member: [] },
        }),
      "attribute-not-permitted",
    );
  });

  it("single-valued, syntax-violation, illegal-meta-key, duplicate-value", async () => {
    await expectRefusedWrite(() => put(alice, "displayName", ["A", "B"]), "single-valued");
    const config = await api.idAt("/Configuration");
    await expectRefusedWrite(() => put(config, "maxTimeApart", ["soon"]), "syntax-violation");
    await expectRefusedWrite(() => put(config, "maxTimeApart", ["0"]), "syntax-violation");
    await expectRefusedWrite(() => put(config, "timeUntilShred", ["1000000000000000"]), "syntax-violation");
    await expectRefusedWrite(() => put(alice, "description", [""]), "syntax-violation");
    await expectRefusedWrite(() => put(alice, "description", [7]), "syntax-violation");
    await expectRefusedWrite(
      () => put(alice, "description", [{ value: "x", meta: { expiry: ["2030-01-01T00:00:00Z"] } }]),
      "illegal-meta-key",
    );
    await expectRefusedWrite(
      () => put(alice, "email", ["a@x.test", "A@X.TEST"]),
      "duplicate-value",
    );
  });

  it("unknown-facet and facet-has-values (attachedFacets)", async () => {
    await expectRefusedWrite(() => put(people, "attachedFacets", [root]), "unknown-facet");
    await expectRefusedWrite(() => put(people, "attachedFacets", ["00000000-0000-4000-8000-000000000001"]), "unknown-facet");
    const person = await api.idAt("/Configuration/Schema/person");
    expect((await put(people, "attachedFacets", [person])).status).toBe(200);
    expect((await put(people, "givenName", ["P"])).status).toBe(200);
    await expectRefusedWrite(() => put(people, "attachedFacets", []), "facet-has-values");
  });
});

describe("lifecycle and protection", () => {
  it("already-deleted and not-restorable", async () => {
    const temp = (await api.create(people, "temp", "user")).id;
    expect((await api.post(`/api/objects/${temp}/restore`)).body.error).toBe("not-restorable");
    expectRefusal(await api.post(`/api/objects/${temp}/restore`), "not-restorable");
    expect((await api.del(`/api/objects/${temp}`)).status).toBe(204);
    await expectRefusedWrite(
      () => api.patch(`/api/objects/${temp}`, { name: "again" }),
      "already-deleted",
    );
    await expectRefusedWrite(() => api.del(`/api/objects/${temp}`), "already-deleted");
    await expectRefusedWrite(
      () => api.put(`/api/objects/${temp}/attributes/description`, { values: ["x"] }),
      "already-deleted",
    );
  });

  it("root-is-protected and system-object-protected", async () => {
    await expectRefusedWrite(() => api.del(`/api/objects/${root}`), "root-is-protected");
    await expectRefusedWrite(
      () => api.patch(`/api/objects/${root}`, { name: "renamed" }),
      "root-is-protected",
    );
    const lostAndFound = await api.idAt("/LostAndFound");
    await expectRefusedWrite(
      () => api.del(`/api/objects/${lostAndFound}`),
      "system-object-protected",
    );
    await expectRefusedWrite(
      () => api.patch(`/api/objects/${lostAndFound}`, { parent: people }),
      "system-object-protected",
    );
  });

  it("would-create-cycle: a move under itself or a descendant", async () => {
    const outer = (await api.create(people, "outer", "organizationalUnit")).id;
    const inner = (await api.create(outer, "inner", "organizationalUnit")).id;
    await expectRefusedWrite(
      () => api.patch(`/api/objects/${outer}`, { parent: inner }),
      "would-create-cycle",
    );
    await expectRefusedWrite(
      () => api.patch(`/api/objects/${outer}`, { parent: outer }),
      "would-create-cycle",
    );
  });
});

describe("schema writes", () => {
  it("invalid-schema-placement: plain objects in the schema, definitions outside", async () => {
    const schema = await api.idAt("/Configuration/Schema");
    await expectRefusedWrite(
      () => api.post(`/api/objects/${schema}/children`, { name: "x", class: "user" }),
      "invalid-schema-placement",
    );
    await expectRefusedWrite(
      () => api.post(`/api/objects/${people}/children`, { name: "x", class: "facetDefinition" }),
      "invalid-schema-placement",
    );
  });

  it("schema-definition-immutable: definitions are add/delete only", async () => {
    const person = await api.idAt("/Configuration/Schema/person");
    await expectRefusedWrite(
      () => api.put(`/api/objects/${person}/attributes/description`, { values: ["people"] }),
      "schema-definition-immutable",
    );
  });

  it("schema-violation: a definition that would not compile is refused", async () => {
    const ns = await namespace("com.example.bad");
    await expectRefusedWrite(
      () =>
        api.post(`/api/objects/${ns}/children`, {
          name: "shoeSize",
          class: "attributeDefinition",
          attributes: {
            ...activeDefinition,
            syntax: ["colour"],
            singleValued: ["true"],
            matching: ["exact"],
          },
        }),
      "schema-violation",
    );
  });

  it("definition-in-use: deleting an attribute a live facet still lists", async () => {
    const ns = await namespace("com.example.used");
    const attr = await api.create(ns, "shoeSize", "attributeDefinition", {
      ...activeDefinition, syntax: ["integer"], singleValued: ["true"], matching: ["exact"],
    });
    await api.create(
      ns,
      "fitting",
      "facetDefinition",
      { ...activeDefinition, attributes: [attr.id] },
    );
    const r = await api.del(`/api/objects/${attr.id}`);
    expectRefusal(r, "definition-in-use");
    expect(r.body.message).toContain("fitting");
    const schema = (await api.get("/api/schema")).body;
    const names = schema.attributes.map((a: { name: string }) => a.name);
    expect(names).toContain("com.example.used-shoeSize");
  });
});

describe("machine talk without a fabric", () => {
  it("bad-text for text outside 1-16384 UTF-8 bytes, checked before no-fabric", async () => {
    expectRefusal(await api.post("/api/msgs/send", { to: "peer", text: "" }), "bad-text");
    expectRefusal(
      await api.post("/api/msgs/send", { to: "peer", text: "x".repeat(16385) }),
      "bad-text",
    );
    // 5462 three-byte characters are 16386 bytes though only 5462 UTF-16 units.
    expectRefusal(
      await api.post("/api/msgs/send", { to: "peer", text: "€".repeat(5462) }),
      "bad-text",
    );
  });

  it("no-fabric for a well-formed send and for redial", async () => {
    expectRefusal(
      await api.post("/api/msgs/send", { to: "peer", text: "x".repeat(16384) }),
      "no-fabric",
    );
    expectRefusal(await api.post("/api/msgs/send", { to: absentId, text: "hello" }), "no-fabric");
    expectRefusal(await api.post(`/api/fabric/redial/${absentId}`), "no-fabric");
  });
});
