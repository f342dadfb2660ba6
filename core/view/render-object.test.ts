/**
 * Goal: the read side of SPEC "Resources and their fields" as one node renders it: the object
 * payload (every field, DN with RFC 4514 escaping, native path), back-references
 * (referencedBy), reference values' refPath/refState through alive, deleted, shredded and
 * missing, child summaries in caseless name order, caseless path resolution, the fresh
 * domain's landmarks, and the morgue records.
 * Method: build small trees on one DirectoryNode and compare rendered payloads with what SPEC
 * says a client sees; times are explicit so stamps and morgue times are exact.
 */
import { describe, expect, it } from "vitest";
import { fold } from "../naming";
import {
  attribute,
  freshDomain,
  make,
  outcome,
  secondMs,
  t0Ms,
  unwrap,
  valuesOf,
} from "../testing/node-fixture";

describe("a fresh domain", () => {
  it("has the root, /Configuration, Schema (48 flat), /LostAndFound, /Domain Controllers", () => {
    const d = freshDomain(3, "corp.example");
    const root = unwrap(d.node.root(t0Ms));
    expect(root).toMatchObject({
      parent: null,
      name: "corp.example",
      class: "domainRoot",
      system: true,
      dn: "",
      path: "/",
    });
    expect(unwrap(d.node.children(d.root)).map((c) => [c.name, c.class, c.system])).toEqual([
      ["Configuration", "configuration", true],
      ["Domain Controllers", "organizationalUnit", false],
      ["LostAndFound", "organizationalUnit", true],
    ]);
    const config = unwrap(d.node.object(d.configuration, t0Ms));
    expect(config.dn).toBe("CN=Configuration");
    expect(config.facets).toEqual(["described", "replicationConfig"]);
    expect(attribute(config, "timeUntilShred")?.values.map((v) => v.value)).toEqual([
      String(30 * 24 * 3600),
    ]);
    expect(attribute(config, "maxTimeApart")?.values.map((v) => v.value)).toEqual([
      String(180 * 24 * 3600),
    ]);
    const defs = unwrap(d.node.children(d.schema));
    expect(defs).toHaveLength(48);
    expect(defs.every((c) => c.system && !c.hasChildren)).toBe(true);
    const schema = unwrap(d.node.schema());
    expect([schema.attributes.length, schema.facets.length, schema.classes.length]).toEqual([
      26, 11, 11,
    ]);
    expect(schema.extensions).toEqual([]);
    expect(schema.quarantined).toEqual([]);
    const classDef = unwrap(d.node.resolvePath("/Configuration/Schema/classDefinition", t0Ms));
    expect(classDef.classId).toBe(classDef.id); // an instance of itself
  });

  it("two domains from different seeds share no GUIDs (no well-known GUIDs)", () => {
    const a = freshDomain(1);
    const b = freshDomain(2);
    const ids = (d: typeof a) => unwrap(d.node.children(d.schema)).map((c) => c.id);
    const shared = ids(a).filter((id) => ids(b).includes(id));
    expect(shared).toEqual([]);
    expect(unwrap(a.node.resolvePath("/Configuration/Schema/USER", t0Ms)).name).toBe("user");
  });
});

describe("the object payload", () => {
  it("carries every SPEC field with the right types", () => {
    const d = freshDomain();
    const ou = make(d.node, d.root, "Sales");
    const p = unwrap(d.node.object(ou, t0Ms));
    expect(Object.keys(p).sort()).toEqual(
      [
        "attributes",
        "class",
        "classId",
        "dn",
        "effectiveStage",
        "existence",
        "facets",
        "ghost",
        "hasChildren",
        "id",
        "name",
        "parent",
        "path",
        "placement",
        "referencedBy",
        "stage",
        "system",
        "usnChanged",
      ].sort(),
    );
    expect(p.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(Object.keys(p.existence).sort()).toEqual([
      "at",
      "cert",
      "localUsn",
      "origin",
      "version",
    ]);
    expect(p.existence.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(p.existence.cert).toEqual({
      invocation: d.node.dir.invocationId,
      usn: p.existence.localUsn,
    });
  });

  it("escapes DN values per RFC 4514 and composes leaf-first", () => {
    const d = freshDomain();
    const weird = make(d.node, d.root, 'a,b+c"d\\e;f<g>h');
    expect(unwrap(d.node.object(weird, t0Ms)).dn).toBe('OU=a\\,b\\+c\\"d\\\\e\\;f\\<g\\>h');
    const hash = make(d.node, weird, "#1 team");
    expect(unwrap(d.node.object(hash, t0Ms)).dn).toBe(
      'OU=\\#1 team,OU=a\\,b\\+c\\"d\\\\e\\;f\\<g\\>h',
    );
    const mid = make(d.node, d.root, "a#b=c", "user");
    expect(unwrap(d.node.object(mid, t0Ms)).dn).toBe("CN=a#b=c");
    expect(unwrap(d.node.object(hash, t0Ms)).path).toBe('/a,b+c"d\\e;f<g>h/#1 team');
  });

  it("referencedBy lists alive objects whose attribute points here", () => {
    const d = freshDomain();
    const alice = make(d.node, d.root, "alice", "user");
    const staff = make(d.node, d.root, "staff", "group", t0Ms, { member: [alice] });
    const admins = make(d.node, d.root, "admins", "group", t0Ms, { member: [alice] });
    const refs = unwrap(d.node.object(alice, t0Ms)).referencedBy;
    expect(refs.map((r) => r.id).sort()).toEqual([admins, staff].sort());
    expect(refs.find((r) => r.id === staff)).toEqual({
      id: staff,
      path: "/staff",
      attribute: "member",
    });
    unwrap(d.node.delete(admins, t0Ms));
    expect(unwrap(d.node.object(alice, t0Ms)).referencedBy.map((r) => r.id)).toEqual([staff]);
    unwrap(d.node.putAttribute(staff, "member", [], t0Ms));
    expect(unwrap(d.node.object(alice, t0Ms)).referencedBy).toEqual([]);
  });

  it("refPath follows the target; refState walks alive -> deleted -> shredded -> missing", () => {
    const d = freshDomain();
    unwrap(d.node.putAttribute(d.configuration, "maxTimeApart", ["3600"], t0Ms));
    const ou = make(d.node, d.root, "People");
    const alice = make(d.node, ou, "alice", "user");
    const staff = make(d.node, d.root, "staff", "group", t0Ms, { member: [alice] });
    const member = (nowMs = t0Ms) =>
      attribute(unwrap(d.node.object(staff, nowMs)), "member")?.values[0];
    expect(member()).toMatchObject({ value: alice, refPath: "/People/alice", refState: "alive" });
    unwrap(d.node.move(ou, { name: "Crew" }, t0Ms));
    expect(member()?.refPath).toBe("/Crew/alice");
    unwrap(d.node.delete(alice, t0Ms));
    expect(member()).toMatchObject({ refPath: null, refState: "deleted" });
    unwrap(d.node.shred(alice, t0Ms));
    expect(member()).toMatchObject({ refPath: null, refState: "shredded" });
    unwrap(d.node.gc(t0Ms + 3601 * secondMs));
    expect(member(t0Ms + 3601 * secondMs)).toMatchObject({
      value: alice,
      refPath: null,
      refState: "missing",
    });
  });

  it("non-reference values carry neither refPath nor refState; meta only when present", () => {
    const d = freshDomain();
    const u = make(d.node, d.root, "u", "user", t0Ms, { description: ["plain"] });
    const v = attribute(unwrap(d.node.object(u, t0Ms)), "description")?.values[0];
    expect(v).toBeDefined();
    expect(Object.keys(v ?? {}).sort()).toEqual(["stamp", "value"]);
  });

  it("attributes render sorted caselessly by name; absent only when there is residue", () => {
    const d = freshDomain();
    const u = make(d.node, d.root, "u", "user", t0Ms, {
      surname: ["S"],
      description: ["d"],
      Email: ["e@x"],
    });
    const p = unwrap(d.node.object(u, t0Ms));
    expect(p.attributes.map((a) => a.name)).toEqual(["description", "email", "surname"]);
    expect(p.attributes.every((a) => !("absent" in a))).toBe(true);
  });

  it("hasChildren counts alive children only", () => {
    const d = freshDomain();
    const ou = make(d.node, d.root, "ou");
    const kid = make(d.node, ou, "kid");
    expect(unwrap(d.node.object(ou, t0Ms)).hasChildren).toBe(true);
    unwrap(d.node.delete(kid, t0Ms));
    expect(unwrap(d.node.object(ou, t0Ms)).hasChildren).toBe(false);
    expect(unwrap(d.node.children(ou))).toEqual([]);
  });
});

describe("child summaries", () => {
  it("are in caseless name order with the SPEC fields", () => {
    const d = freshDomain();
    const ou = make(d.node, d.root, "ou");
    for (const name of ["delta", "Charlie", "bravo", "Alpha", "Äpfel", "zulu", "Émile", "echo"])
      make(d.node, ou, name);
    make(d.node, make(d.node, ou, "parent"), "kid");
    const kids = unwrap(d.node.children(ou));
    const names = kids.map((c) => c.name);
    expect(names).toEqual(
      [...names].sort((a, b) => (fold(a) < fold(b) ? -1 : fold(a) > fold(b) ? 1 : 0)),
    );
    expect(names.slice(0, 4)).toEqual(["Alpha", "Äpfel", "bravo", "Charlie"]);
    expect(kids.find((c) => c.name === "parent")).toMatchObject({
      hasChildren: true,
      class: "organizationalUnit",
    });
    expect(Object.keys(kids[0] ?? {}).sort()).toEqual([
      "class",
      "conflicted",
      "cycleBroken",
      "ghost",
      "hasChildren",
      "id",
      "name",
      "orphaned",
      "system",
    ]);
    expect(kids.every((c) => !c.conflicted && !c.orphaned && !c.cycleBroken && !c.ghost)).toBe(
      true,
    );
  });
});

describe("path resolution", () => {
  it("is caseless (full folding, canonical equivalence); one trailing slash is fine", () => {
    const d = freshDomain();
    const street = make(d.node, d.root, "Straße");
    const cafe = make(d.node, street, "caf\u00e9", "user");
    const spellings = ["/Straße/café", "/STRASSE/CAFÉ", "/strasse/cafe\u0301", "/straße/Café/"];
    for (const path of spellings) {
      expect(unwrap(d.node.resolvePath(path, t0Ms)).id, path).toBe(cafe);
    }
    expect(unwrap(d.node.resolvePath("/", t0Ms)).id).toBe(d.root);
    expect(unwrap(d.node.resolvePath("/configuration/SCHEMA", t0Ms)).id).toBe(d.schema);
    expect(unwrap(d.node.object(cafe, t0Ms)).path).toBe("/Straße/café");
  });

  it("does not resolve tombstones", () => {
    const d = freshDomain();
    const gone = make(d.node, d.root, "gone");
    unwrap(d.node.delete(gone, t0Ms));
    expect(outcome(d.node.resolvePath("/gone", t0Ms))).toBe("no-such-object");
  });
});

describe("the morgue", () => {
  it("lists every tombstone, most recently deleted first, with its last path", () => {
    const d = freshDomain();
    const ou = make(d.node, d.root, "Old");
    const kid = make(d.node, ou, "kid", "user");
    const solo = make(d.node, d.root, "solo");
    unwrap(d.node.delete(solo, t0Ms + secondMs));
    unwrap(d.node.delete(ou, t0Ms + 2 * secondMs));
    const morgue = unwrap(d.node.morgue(t0Ms + 3 * secondMs));
    expect(morgue).toEqual([
      {
        id: kid,
        name: "kid",
        class: "user",
        stage: "deleted",
        effectiveStage: "deleted",
        at: "2025-01-01T00:00:02.000Z",
        lastPath: "/Old/kid",
      },
      {
        id: ou,
        name: "Old",
        class: "organizationalUnit",
        stage: "deleted",
        effectiveStage: "deleted",
        at: "2025-01-01T00:00:02.000Z",
        lastPath: "/Old",
      },
      {
        id: solo,
        name: "solo",
        class: "organizationalUnit",
        stage: "deleted",
        effectiveStage: "deleted",
        at: "2025-01-01T00:00:01.000Z",
        lastPath: "/solo",
      },
    ]);
    unwrap(d.node.restore(ou, t0Ms + 4 * secondMs));
    expect(unwrap(d.node.morgue(t0Ms)).map((m) => m.id)).toEqual([solo]);
  });
});

describe("a tombstone past its restore window", () => {
  it("shows as the skeleton GC hardens it to, whether or not GC ran", () => {
    const d = freshDomain();
    unwrap(d.node.putAttribute(d.configuration, "timeUntilShred", ["60"], t0Ms));
    const alice = make(d.node, d.root, "alice", "user", t0Ms, {
      givenName: ["Alice"],
      email: ["alice@aging.test"],
    });
    unwrap(d.node.delete(alice, t0Ms + secondMs));
    const within = unwrap(d.node.object(alice, t0Ms + 30 * secondMs));
    expect(within.effectiveStage).toBe("deleted");
    expect(valuesOf(within, "email")).toEqual(["alice@aging.test"]);
    // The same cached payload is not served once the window has passed.
    const aged = unwrap(d.node.object(alice, t0Ms + 62 * secondMs));
    expect(aged).toMatchObject({ stage: "deleted", effectiveStage: "shredded", attributes: [] });
    expect(unwrap(d.node.gc(t0Ms + 62 * secondMs)).hardened).toBe(1);
    const hardened = unwrap(d.node.object(alice, t0Ms + 62 * secondMs));
    expect({ ...hardened, usnChanged: 0 }).toEqual({ ...aged, usnChanged: 0 });
  });
});
