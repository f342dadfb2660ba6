/**
 * Goal: the schema as stored objects under /Configuration/Schema, per SPEC's naming rules,
 * "Base schema" notes and error table: a namespaced schema round trip (namespace, attribute,
 * facet, class with dnPrefix, instance, wire names usable caselessly), definition-name and
 * namespace-name grammar (invalid-name), invalid-schema-placement, strictly gated originating
 * schema writes (schema-violation with the compiler's reason), add/delete only
 * (schema-definition-immutable), the unused-delete rule (definition-in-use naming the
 * blockers) and facet-has-values on extension delete.
 * Method: one DirectoryNode per test; definitions are created as ordinary objects through the
 * node facade, exactly as a client would POST them; GET /api/schema is read back through
 * `node.schema()`.
 */
import { describe, expect, it } from "vitest";
import type { Guid } from "../guid";
import type { DirectoryNode } from "../node/directory-node";
import {
  freshDomain,
  make,
  outcome,
  refusalMessage,
  t0Ms,
  unwrap,
  valuesOf,
} from "../testing/node-fixture";

const born = { lifecycle: ["active"], system: ["false"] };

function baseDef(node: DirectoryNode, name: string): Guid {
  return unwrap(node.resolvePath(`/Configuration/Schema/${name}`, t0Ms)).id;
}

function attributeDef(
  node: DirectoryNode,
  ns: Guid,
  name: string,
  opts: { syntax?: string; single?: boolean; matching?: string; legalMeta?: Guid[] } = {},
) {
  const attributes: Record<string, string[]> = {
    ...born,
    syntax: [opts.syntax ?? "string"],
    singleValued: [String(opts.single ?? true)],
    matching: [opts.matching ?? "caseless"],
  };
  if (opts.legalMeta !== undefined) attributes["legalMeta"] = opts.legalMeta;
  return node.create({ parent: ns, name, className: "attributeDefinition", attributes }, t0Ms);
}

/** The round-trip schema: com.example with badge, badged, employee (EMP). */
function setup() {
  const d = freshDomain();
  const n = d.node;
  const ns = make(n, d.schema, "com.example", "schemaNamespace");
  const badge = unwrap(attributeDef(n, ns, "badge")).id;
  const badged = make(n, ns, "badged", "facetDefinition", t0Ms, { ...born, attributes: [badge] });
  const employee = make(n, ns, "employee", "classDefinition", t0Ms, {
    ...born,
    facets: [baseDef(n, "described"), badged],
    dnPrefix: ["EMP"],
  });
  return { ...d, ns, badge, badged, employee };
}

describe("a namespaced schema round trip", () => {
  it("compiles namespace, attribute, facet and class under their wire names", () => {
    const s = setup();
    const schema = unwrap(s.node.schema());
    expect(schema.quarantined).toEqual([]);
    expect(schema.attributes.find((a) => a.id === s.badge)).toEqual({
      id: s.badge,
      name: "com.example-badge",
      syntax: "string",
      singleValued: true,
      matching: "caseless",
      aliases: [],
      legalMeta: [],
    });
    expect(schema.facets.find((f) => f.id === s.badged)).toEqual({
      id: s.badged,
      name: "com.example-badged",
      attributes: [{ name: "com.example-badge", required: false }],
    });
    expect(schema.classes.find((c) => c.id === s.employee)).toEqual({
      id: s.employee,
      name: "com.example-employee",
      dnPrefix: "EMP",
      instantiable: true,
      facets: ["com.example-badged", "described"],
    });
    const names = schema.attributes.map((a) => a.name);
    expect(names).toHaveLength(27);
    expect(schema.classes).toHaveLength(12);
  });

  it("definitions live under their namespace object and render like any object", () => {
    const s = setup();
    const badge = unwrap(s.node.object(s.badge, t0Ms));
    expect(badge.path).toBe("/Configuration/Schema/com.example/badge");
    expect(badge.dn).toBe("CN=badge,OU=com.example,OU=Schema,CN=Configuration");
    expect(badge.class).toBe("attributeDefinition");
    expect(valuesOf(badge, "syntax")).toEqual(["string"]);
  });

  it("instantiates the class; the wire name works caselessly for classes and attributes", () => {
    const s = setup();
    const bob = unwrap(
      s.node.create(
        {
          parent: s.root,
          name: "bob",
          className: "COM.EXAMPLE-Employee",
          attributes: { "Com.Example-BADGE": ["B-1"] },
        },
        t0Ms,
      ),
    );
    expect(bob.class).toBe("com.example-employee");
    expect(bob.dn).toBe("EMP=bob");
    expect(bob.facets).toEqual(["com.example-badged", "described"]);
    expect(valuesOf(bob, "com.example-badge")).toEqual(["B-1"]);
    const updated = unwrap(s.node.putAttribute(bob.id, "com.EXAMPLE-badge", ["B-2"], t0Ms));
    expect(updated.attributes.map((a) => a.name)).toEqual(["com.example-badge"]);
    expect(valuesOf(updated, "com.example-badge")).toEqual(["B-2"]);
    // The bare name is not the wire name of a namespaced definition.
    expect(outcome(s.node.putAttribute(bob.id, "badge", ["B-3"], t0Ms))).toBe("unknown-attribute");
  });

  it("a namespaced attribute is outside other classes' surfaces until a facet brings it", () => {
    const s = setup();
    const ou = make(s.node, s.root, "ou");
    expect(outcome(s.node.putAttribute(ou, "com.example-badge", ["x"], t0Ms))).toBe(
      "attribute-not-permitted",
    );
    unwrap(s.node.putAttribute(ou, "attachedFacets", [s.badged], t0Ms));
    expect(
      valuesOf(
        unwrap(s.node.putAttribute(ou, "com.example-badge", ["x"], t0Ms)),
        "com.example-badge",
      ),
    ).toEqual(["x"]);
  });

  it("an extension adds its facets to every instance of the target class", () => {
    const s = setup();
    const alice = make(s.node, s.root, "alice", "user");
    expect(outcome(s.node.putAttribute(alice, "com.example-badge", ["A"], t0Ms))).toBe(
      "attribute-not-permitted",
    );
    make(s.node, s.ns, "userBadge", "classExtension", t0Ms, {
      ...born,
      targetClass: [baseDef(s.node, "user")],
      facets: [s.badged],
    });
    expect(unwrap(s.node.object(alice, t0Ms)).facets).toContain("com.example-badged");
    expect(outcome(s.node.putAttribute(alice, "com.example-badge", ["A"], t0Ms))).toBe("ok");
    expect(
      unwrap(s.node.schema()).extensions.map((e) => [e.name, e.targetClass, e.facets]),
    ).toEqual([["com.example-userBadge", "user", ["com.example-badged"]]]);
  });

  it("matching rules of a namespaced multi-valued attribute decide duplicates", () => {
    const s = setup();
    const exact = unwrap(
      attributeDef(s.node, s.ns, "tagExact", { single: false, matching: "exact" }),
    ).id;
    const caseless = unwrap(
      attributeDef(s.node, s.ns, "tagCaseless", { single: false, matching: "caseless" }),
    ).id;
    const tags = make(s.node, s.ns, "tagged", "facetDefinition", t0Ms, {
      ...born,
      attributes: [exact, caseless],
    });
    const ou = make(s.node, s.root, "tags", "organizationalUnit", t0Ms, { attachedFacets: [tags] });
    expect(
      valuesOf(
        unwrap(s.node.putAttribute(ou, "com.example-tagExact", ["a", "A"], t0Ms)),
        "com.example-tagExact",
      ),
    ).toEqual(["A", "a"]);
    expect(outcome(s.node.putAttribute(ou, "com.example-tagExact", ["a", "a"], t0Ms))).toBe(
      "duplicate-value",
    );
    expect(outcome(s.node.putAttribute(ou, "com.example-tagCaseless", ["a", "A"], t0Ms))).toBe(
      "duplicate-value",
    );
  });

  it("namespaced syntaxes validate values (integer, boolean, timestamp)", () => {
    const s = setup();
    const ids = ["integer", "boolean", "timestamp"].map(
      (syntax) => unwrap(attributeDef(s.node, s.ns, `${syntax}Field`, { syntax })).id,
    );
    const facet = make(s.node, s.ns, "typed", "facetDefinition", t0Ms, {
      ...born,
      attributes: ids,
    });
    const ou = make(s.node, s.root, "typed", "organizationalUnit", t0Ms, {
      attachedFacets: [facet],
    });
    expect(outcome(s.node.putAttribute(ou, "com.example-integerField", ["12x"], t0Ms))).toBe(
      "syntax-violation",
    );
    expect(outcome(s.node.putAttribute(ou, "com.example-booleanField", ["yes"], t0Ms))).toBe(
      "syntax-violation",
    );
    expect(outcome(s.node.putAttribute(ou, "com.example-timestampField", ["noon"], t0Ms))).toBe(
      "syntax-violation",
    );
    const good = unwrap(
      s.node.putAttribute(ou, "com.example-timestampField", ["2025-02-03T04:05:06Z"], t0Ms),
    );
    expect(valuesOf(good, "com.example-timestampField")).toEqual(["2025-02-03T04:05:06.000Z"]);
  });

  it("a namespaced attribute may serve as meta on another's values", () => {
    const s = setup();
    const since = unwrap(attributeDef(s.node, s.ns, "since", { syntax: "timestamp" })).id;
    const role = unwrap(
      attributeDef(s.node, s.ns, "role", { single: false, legalMeta: [since] }),
    ).id;
    const facet = make(s.node, s.ns, "roles", "facetDefinition", t0Ms, {
      ...born,
      attributes: [role],
    });
    const ou = make(s.node, s.root, "r", "organizationalUnit", t0Ms, { attachedFacets: [facet] });
    const ok = unwrap(
      s.node.putAttribute(
        ou,
        "com.example-role",
        [{ value: "admin", meta: { "COM.EXAMPLE-since": ["2025-01-01T00:00:00Z"] } }],
        t0Ms,
      ),
    );
    expect(ok.attributes.find((a) => a.name === "com.example-role")?.values[0]?.meta).toEqual({
      "com.example-since": ["2025-01-01T00:00:00.000Z"],
    });
    expect(
      outcome(
        s.node.putAttribute(
          ou,
          "com.example-role",
          [{ value: "x", meta: { expiry: ["2025-01-01T00:00:00Z"] } }],
          t0Ms,
        ),
      ),
    ).toBe("illegal-meta-key");
  });
});

describe("meta values follow the meta attribute's rules", () => {
  it("a multi-valued meta key refuses duplicates under its matching rule", () => {
    const s = setup();
    const tags = unwrap(
      attributeDef(s.node, s.ns, "tags", { single: false, matching: "caseless" }),
    ).id;
    const codes = unwrap(
      attributeDef(s.node, s.ns, "codes", { single: false, matching: "exact" }),
    ).id;
    const role = unwrap(
      attributeDef(s.node, s.ns, "role", { single: false, legalMeta: [tags, codes] }),
    ).id;
    const facet = make(s.node, s.ns, "roles", "facetDefinition", t0Ms, {
      ...born,
      attributes: [role],
    });
    const ou = make(s.node, s.root, "r", "organizationalUnit", t0Ms, { attachedFacets: [facet] });
    const put = (meta: Record<string, string[]>) =>
      s.node.putAttribute(ou, "com.example-role", [{ value: "admin", meta }], t0Ms);
    expect(outcome(put({ "com.example-tags": ["Ops", "OPS"] }))).toBe("duplicate-value");
    expect(outcome(put({ "com.example-codes": ["x", "x"] }))).toBe("duplicate-value");
    const ok = unwrap(put({ "com.example-codes": ["x", "X"], "com.example-tags": ["ops", "dev"] }));
    expect(ok.attributes.find((a) => a.name === "com.example-role")?.values[0]?.meta).toEqual({
      "com.example-codes": ["X", "x"],
      "com.example-tags": ["dev", "ops"],
    });
  });
});

describe("definition and namespace names (invalid-name)", () => {
  it("definition names: a letter then letters or digits; never x", () => {
    const s = setup();
    for (const name of [
      "bad-name",
      "1abc",
      "x",
      "X",
      "has space",
      "ünicode",
      "dot.ted",
      "under_score",
    ]) {
      expect(outcome(attributeDef(s.node, s.ns, name)), name).toBe("invalid-name");
    }
    expect(outcome(attributeDef(s.node, s.ns, "a1"))).toBe("ok");
  });

  it("namespace names: dot-separated segments; gip, dir and x are reserved caselessly", () => {
    const s = setup();
    for (const name of [
      "gip",
      "GIP",
      "dir",
      "Dir",
      "x",
      "X",
      "com-example",
      "1com",
      "com..example",
      ".com",
      "com.",
      "com.1x",
    ]) {
      expect(
        outcome(s.node.create({ parent: s.schema, name, className: "schemaNamespace" }, t0Ms)),
        name,
      ).toBe("invalid-name");
    }
    for (const name of ["org.example", "x.example", "gipsy"]) {
      expect(
        outcome(s.node.create({ parent: s.schema, name, className: "schemaNamespace" }, t0Ms)),
        name,
      ).toBe("ok");
    }
  });

  it("two definitions of one name in a namespace collide caselessly (name-in-use)", () => {
    const s = setup();
    expect(outcome(attributeDef(s.node, s.ns, "BADGE"))).toBe("name-in-use");
    expect(
      outcome(
        s.node.create(
          { parent: s.schema, name: "COM.EXAMPLE", className: "schemaNamespace" },
          t0Ms,
        ),
      ),
    ).toBe("name-in-use");
  });
});

describe("invalid-schema-placement", () => {
  it("only namespaces directly under /Configuration/Schema (unprefixed space reserved)", () => {
    const s = setup();
    expect(outcome(attributeDef(s.node, s.schema, "loose"))).toBe("invalid-schema-placement");
    const outside = s.node.create({ parent: s.root, name: "org.elsewhere", className: "schemaNamespace" }, t0Ms);
    expect(outcome(outside)).toBe("invalid-schema-placement");
    expect(refusalMessage(outside)).toBe("schemaNamespace objects live directly under /Configuration/Schema");
    expect(
      outcome(
        s.node.create({ parent: s.schema, name: "ou", className: "organizationalUnit" }, t0Ms),
      ),
    ).toBe("invalid-schema-placement");
  });

  it("namespaces hold definitions only; definitions have no children", () => {
    const s = setup();
    expect(outcome(s.node.create({ parent: s.ns, name: "u", className: "user" }, t0Ms))).toBe(
      "invalid-schema-placement",
    );
    expect(
      outcome(s.node.create({ parent: s.ns, name: "inner", className: "schemaNamespace" }, t0Ms)),
    ).toBe("invalid-schema-placement");
    expect(
      outcome(
        s.node.create({ parent: s.badge, name: "kid", className: "organizationalUnit" }, t0Ms),
      ),
    ).toBe("invalid-schema-placement");
    expect(
      outcome(
        s.node.create(
          { parent: baseDef(s.node, "user"), name: "kid", className: "organizationalUnit" },
          t0Ms,
        ),
      ),
    ).toBe("invalid-schema-placement");
  });

  it("definitions outside the schema subtree are refused", () => {
    const s = setup();
    expect(outcome(attributeDef(s.node, s.root, "stray"))).toBe("invalid-schema-placement");
    expect(
      outcome(
        s.node.create({ parent: s.root, name: "com.other", className: "schemaNamespace" }, t0Ms),
      ),
    ).toBe("invalid-schema-placement");
  });
});

describe("strictly gated originating schema writes (schema-violation)", () => {
  it("an attribute definition missing its syntax", () => {
    const s = setup();
    const r = s.node.create(
      {
        parent: s.ns,
        name: "nosyntax",
        className: "attributeDefinition",
        attributes: { ...born, singleValued: ["true"], matching: ["caseless"] },
      },
      t0Ms,
    );
    expect(outcome(r)).toBe("schema-violation");
    expect(refusalMessage(r)).toMatch(/syntax/);
    expect(outcome(s.node.resolvePath("/Configuration/Schema/com.example/nosyntax", t0Ms))).toBe(
      "no-such-object",
    );
    expect(unwrap(s.node.schema()).quarantined).toEqual([]);
  });

  it("an unknown syntax or matching, and a definition missing lifecycle", () => {
    const s = setup();
    expect(outcome(attributeDef(s.node, s.ns, "weird", { syntax: "colour" }))).toBe(
      "schema-violation",
    );
    expect(outcome(attributeDef(s.node, s.ns, "weird", { matching: "fuzzy" }))).toBe(
      "schema-violation",
    );
    const r = s.node.create(
      {
        parent: s.ns,
        name: "nolife",
        className: "attributeDefinition",
        attributes: {
          system: ["false"],
          syntax: ["string"],
          singleValued: ["true"],
          matching: ["exact"],
        },
      },
      t0Ms,
    );
    expect(outcome(r)).toBe("schema-violation");
    expect(refusalMessage(r)).toMatch(/lifecycle/);
  });

  it("a facet naming something that is not an attribute definition", () => {
    const s = setup();
    const r = s.node.create(
      {
        parent: s.ns,
        name: "broken",
        className: "facetDefinition",
        attributes: { ...born, attributes: [s.employee] },
      },
      t0Ms,
    );
    expect(outcome(r)).toBe("schema-violation");
    expect(refusalMessage(r)).toContain("com.example-broken");
  });

  it("a facet naming a non-existent attribute is a dangling reference (syntax-violation)", () => {
    const s = setup();
    const r = s.node.create(
      {
        parent: s.ns,
        name: "dangling",
        className: "facetDefinition",
        attributes: { ...born, attributes: ["00000000-0000-4000-8000-000000000123"] },
      },
      t0Ms,
    );
    expect(outcome(r)).toBe("syntax-violation");
  });

  it("an instantiable class without dnPrefix; an extension without facets", () => {
    const s = setup();
    const cls = s.node.create(
      {
        parent: s.ns,
        name: "noprefix",
        className: "classDefinition",
        attributes: { ...born, facets: [s.badged] },
      },
      t0Ms,
    );
    expect(outcome(cls)).toBe("schema-violation");
    expect(refusalMessage(cls)).toMatch(/dnPrefix/);
    const ext = s.node.create(
      {
        parent: s.ns,
        name: "empty",
        className: "classExtension",
        attributes: { ...born, targetClass: [s.employee] },
      },
      t0Ms,
    );
    expect(outcome(ext)).toBe("schema-violation");
  });

  it("a non-instantiable namespaced class compiles but cannot be instantiated", () => {
    const s = setup();
    make(s.node, s.ns, "abstractThing", "classDefinition", t0Ms, {
      ...born,
      facets: [s.badged],
      instantiable: ["false"],
    });
    expect(
      outcome(
        s.node.create({ parent: s.root, name: "t", className: "com.example-abstractThing" }, t0Ms),
      ),
    ).toBe("class-not-instantiable");
  });
});

describe("definitions are add/delete only (schema-definition-immutable)", () => {
  it("renaming or moving a namespaced definition or namespace is refused", () => {
    const s = setup();
    expect(outcome(s.node.move(s.badge, { name: "badge2" }, t0Ms))).toBe(
      "schema-definition-immutable",
    );
    expect(outcome(s.node.move(s.ns, { name: "com.other" }, t0Ms))).toBe(
      "schema-definition-immutable",
    );
    const other = make(s.node, s.schema, "org.example", "schemaNamespace");
    expect(outcome(s.node.move(s.badge, { parent: other }, t0Ms))).toBe(
      "schema-definition-immutable",
    );
  });

  it("attribute writes on a definition are refused", () => {
    const s = setup();
    expect(outcome(s.node.putAttribute(s.badge, "singleValued", ["false"], t0Ms))).toBe(
      "schema-definition-immutable",
    );
    expect(outcome(s.node.putAttribute(s.employee, "description", ["people"], t0Ms))).toBe(
      "schema-definition-immutable",
    );
  });

  it("base definitions are system objects: renames refused before immutability", () => {
    const s = setup();
    expect(outcome(s.node.move(baseDef(s.node, "person"), { name: "human" }, t0Ms))).toBe(
      "system-object-protected",
    );
    expect(outcome(s.node.delete(baseDef(s.node, "person"), t0Ms))).toBe("system-object-protected");
  });
});

describe("the unused-delete rule (definition-in-use names the blockers)", () => {
  it("an attribute used by a facet cannot be deleted", () => {
    const s = setup();
    const r = s.node.delete(s.badge, t0Ms);
    expect(outcome(r)).toBe("definition-in-use");
    expect(refusalMessage(r)).toContain("com.example-badged");
    expect(refusalMessage(r)).toContain(s.badged);
  });

  it("a facet named by a class and attached to an object names each blocker once", () => {
    const s = setup();
    const ou = make(s.node, s.root, "holder", "organizationalUnit", t0Ms, { attachedFacets: [s.badged] });
    const r = s.node.delete(s.badged, t0Ms);
    expect(outcome(r)).toBe("definition-in-use");
    // The class was named twice, as a definition and again as an object via facets (HTTP audit).
    expect(refusalMessage(r)).toBe(
      `still used by: definition com.example-employee (${s.employee}), object holder (${ou}) via attachedFacets`,
    );
  });

  it("an attribute holding values on an object cannot be deleted", () => {
    const s = setup();
    const ou = make(s.node, s.root, "holder", "organizationalUnit", t0Ms, {
      attachedFacets: [s.badged],
    });
    unwrap(s.node.putAttribute(ou, "com.example-badge", ["v"], t0Ms));
    const r = s.node.delete(s.badge, t0Ms);
    expect(refusalMessage(r)).toContain("holder");
  });

  it("a class with instances cannot be deleted; without them it can", () => {
    const s = setup();
    const bob = make(s.node, s.root, "bob", "com.example-employee");
    const r = s.node.delete(s.employee, t0Ms);
    expect(outcome(r)).toBe("definition-in-use");
    expect(refusalMessage(r)).toContain("bob");
    expect(refusalMessage(r)).toContain(bob);
    unwrap(s.node.delete(bob, t0Ms));
    expect(outcome(s.node.delete(s.employee, t0Ms))).toBe("ok");
    expect(unwrap(s.node.schema()).classes.map((c) => c.name)).not.toContain(
      "com.example-employee",
    );
    expect(
      outcome(
        s.node.create({ parent: s.root, name: "b2", className: "com.example-employee" }, t0Ms),
      ),
    ).toBe("unknown-class");
  });

  it("an instance of a deleted class restores once its class definition is restored", () => {
    const s = setup();
    const bob = make(s.node, s.root, "bob", "com.example-employee");
    unwrap(s.node.delete(bob, t0Ms));
    unwrap(s.node.delete(s.employee, t0Ms));
    const r = s.node.restore(bob, t0Ms);
    expect(outcome(r)).toBe("not-restorable");
    expect(refusalMessage(r)).toContain(`restore its definition (${s.employee}) first`);
    unwrap(s.node.restore(s.employee, t0Ms));
    expect(outcome(s.node.restore(bob, t0Ms))).toBe("ok");
    expect(unwrap(s.node.object(bob, t0Ms))).toMatchObject({ ghost: false, class: "com.example-employee" });
  });

  it("a facet attached to an instance cannot be deleted", () => {
    const s = setup();
    unwrap(s.node.delete(s.employee, t0Ms));
    make(s.node, s.root, "holder", "organizationalUnit", t0Ms, { attachedFacets: [s.badged] });
    const r = s.node.delete(s.badged, t0Ms);
    expect(outcome(r)).toBe("definition-in-use");
    expect(refusalMessage(r)).toContain("holder");
  });

  it("a whole namespace deletes when nothing outside it uses its definitions", () => {
    const s = setup();
    unwrap(s.node.delete(s.ns, t0Ms));
    const schema = unwrap(s.node.schema());
    expect(schema.attributes.map((a) => a.name).filter((n) => n.startsWith("com.example"))).toEqual(
      [],
    );
    expect(schema.quarantined).toEqual([]);
    // The namespace name is free again.
    expect(
      outcome(
        s.node.create(
          { parent: s.schema, name: "com.example", className: "schemaNamespace" },
          t0Ms,
        ),
      ),
    ).toBe("ok");
  });

  it("a namespace whose class has instances cannot be deleted", () => {
    const s = setup();
    make(s.node, s.root, "bob", "com.example-employee");
    expect(outcome(s.node.delete(s.ns, t0Ms))).toBe("definition-in-use");
  });
});

describe("facet-has-values on extension delete", () => {
  it("refuses while instances hold values only the extension provides", () => {
    const s = setup();
    const ext = make(s.node, s.ns, "userBadge", "classExtension", t0Ms, {
      ...born,
      targetClass: [baseDef(s.node, "user")],
      facets: [s.badged],
    });
    const alice = make(s.node, s.root, "alice", "user", t0Ms, { "com.example-badge": ["A-1"] });
    const r = s.node.delete(ext, t0Ms);
    expect(outcome(r)).toBe("facet-has-values");
    expect(refusalMessage(r)).toMatch(/^deleting com\.example-userBadge strands com\.example-badge values/u);
    expect(unwrap(s.node.object(alice, t0Ms)).facets).toContain("com.example-badged");
    unwrap(s.node.putAttribute(alice, "com.example-badge", [], t0Ms));
    expect(outcome(s.node.delete(ext, t0Ms))).toBe("ok");
    expect(unwrap(s.node.object(alice, t0Ms)).facets).not.toContain("com.example-badged");
  });

  it("values also reachable through an attached facet do not block the delete", () => {
    const s = setup();
    const ext = make(s.node, s.ns, "userBadge", "classExtension", t0Ms, {
      ...born,
      targetClass: [baseDef(s.node, "user")],
      facets: [s.badged],
    });
    make(s.node, s.root, "alice", "user", t0Ms, {
      attachedFacets: [s.badged],
      "com.example-badge": ["A-1"],
    });
    expect(outcome(s.node.delete(ext, t0Ms))).toBe("ok");
  });
});

describe("restore is an originating schema write too", () => {
  it("restoring an extension whose target class is deleted is refused (quarantine)", () => {
    const s = setup();
    const ext = make(s.node, s.ns, "employeeExtra", "classExtension", t0Ms, {
      ...born,
      targetClass: [s.employee],
      facets: [s.badged],
    });
    unwrap(s.node.delete(ext, t0Ms));
    unwrap(s.node.delete(s.employee, t0Ms));
    const r = s.node.restore(ext, t0Ms);
    expect(outcome(r)).toBe("schema-violation");
    expect(refusalMessage(r)).toContain("com.example-employeeExtra");
    expect(unwrap(s.node.object(ext, t0Ms)).stage).toBe("deleted");
    expect(unwrap(s.node.schema()).quarantined).toEqual([]);
    // Once the target is back, the extension restores cleanly.
    unwrap(s.node.restore(s.employee, t0Ms));
    expect(outcome(s.node.restore(ext, t0Ms))).toBe("ok");
    expect(unwrap(s.node.schema()).extensions.map((e) => e.name)).toEqual([
      "com.example-employeeExtra",
    ]);
  });

  it("restoring a facet whose member attribute is gone compiles it minus the dead member", () => {
    const s = setup();
    unwrap(s.node.delete(s.employee, t0Ms));
    unwrap(s.node.delete(s.badged, t0Ms));
    unwrap(s.node.delete(s.badge, t0Ms));
    expect(outcome(s.node.restore(s.badged, t0Ms))).toBe("ok");
    expect(unwrap(s.node.schema()).facets.find((f) => f.id === s.badged)?.attributes).toEqual([]);
    expect(unwrap(s.node.schema()).quarantined).toEqual([]);
  });

  it("a tombstone whose class was deleted here can still be shredded, and says when it cannot come back", () => {
    const s = setup();
    const bob = make(s.node, s.root, "bob", "com.example-employee", t0Ms, { description: ["secret"] });
    unwrap(s.node.delete(bob, t0Ms));
    unwrap(s.node.delete(s.employee, t0Ms));
    unwrap(s.node.shred(s.employee, t0Ms));
    const r = s.node.restore(bob, t0Ms);
    expect(outcome(r)).toBe("not-restorable");
    expect(refusalMessage(r)).toContain("is shredded; the object cannot come back");
    // It answered ghost-object, whose sync never comes, and the values stayed until aging.
    expect(outcome(s.node.shred(bob, t0Ms))).toBe("ok");
    const after = unwrap(s.node.object(bob, t0Ms));
    expect(after.stage).toBe("shredded");
    expect(after.attributes).toEqual([]);
  });

  it("a subtree whose class was deleted meanwhile is not restored as alive ghosts", () => {
    const s = setup();
    const team = make(s.node, s.root, "team");
    const bob = make(s.node, team, "bob", "com.example-employee", t0Ms, {
      "com.example-badge": ["B1"],
    });
    unwrap(s.node.delete(team, t0Ms));
    unwrap(s.node.delete(s.employee, t0Ms)); // its only instance is a tombstone now
    const r = s.node.restore(team, t0Ms);
    expect(outcome(r)).toBe("not-restorable");
    expect(refusalMessage(r)).toContain(bob);
    expect(unwrap(s.node.object(team, t0Ms)).stage).toBe("deleted");
    expect(unwrap(s.node.object(bob, t0Ms)).stage).toBe("deleted");
    // With the class back, the subtree restores.
    unwrap(s.node.restore(s.employee, t0Ms));
    expect(outcome(s.node.restore(team, t0Ms))).toBe("ok");
    expect(unwrap(s.node.object(bob, t0Ms)).ghost).toBe(false);
  });

  it("a tombstone holding values of a since-deleted attribute is not restorable", () => {
    const s = setup();
    unwrap(s.node.delete(s.employee, t0Ms));
    const carol = make(s.node, s.root, "carol", "user", t0Ms, {
      attachedFacets: [s.badged],
      "com.example-badge": ["C1"],
    });
    unwrap(s.node.delete(carol, t0Ms));
    unwrap(s.node.delete(s.badged, t0Ms));
    unwrap(s.node.delete(s.badge, t0Ms));
    const r = s.node.restore(carol, t0Ms);
    expect(outcome(r)).toBe("not-restorable");
    expect(refusalMessage(r)).toContain("com.example-badge");
    expect(unwrap(s.node.object(carol, t0Ms)).stage).toBe("deleted");
  });

  it("a deleted namespace restores with all its definitions, which compile again", () => {
    const s = setup();
    unwrap(s.node.delete(s.ns, t0Ms));
    expect(unwrap(s.node.schema()).classes.map((c) => c.name)).not.toContain(
      "com.example-employee",
    );
    unwrap(s.node.restore(s.ns, t0Ms));
    const schema = unwrap(s.node.schema());
    expect(schema.classes.map((c) => c.name)).toContain("com.example-employee");
    expect(schema.facets.find((f) => f.id === s.badged)?.attributes).toEqual([
      { name: "com.example-badge", required: false },
    ]);
    expect(schema.quarantined).toEqual([]);
    expect(
      outcome(
        s.node.create({ parent: s.root, name: "eve", className: "com.example-employee" }, t0Ms),
      ),
    ).toBe("ok");
  });
});

describe("meta references held before their target died", () => {
  it("a wholesale rewrite keeps a value whose reference meta names a deleted object, but cannot add one", () => {
    const d = freshDomain();
    const n = d.node;
    const ns = make(n, d.schema, "com.example", "schemaNamespace");
    const owner = unwrap(attributeDef(n, ns, "owner", { syntax: "reference" })).id;
    const badge = unwrap(attributeDef(n, ns, "badge", { single: false, legalMeta: [owner] })).id;
    const badged = make(n, ns, "badged", "facetDefinition", t0Ms, { ...born, attributes: [badge] });
    const people = make(n, d.root, "People");
    const bob = make(n, people, "bob", "user");
    const carol = make(n, people, "carol", "user");
    unwrap(n.putAttribute(people, "attachedFacets", [badged], t0Ms));
    const at = t0Ms + 10_000;
    unwrap(n.putAttribute(people, "com.example-badge", [{ value: "red", meta: { "com.example-owner": [bob] } }], at));
    unwrap(n.delete(bob, at + 1000));
    // Adding a value while keeping the held one with its meta: allowed (as held references are).
    const kept = [{ value: "red", meta: { "com.example-owner": [bob] } }];
    const written = n.putAttribute(people, "com.example-badge", [...kept, { value: "blue" }], at + 2000);
    expect(outcome(written)).toBe("ok");
    expect(valuesOf(unwrap(written), "com.example-badge")).toEqual(["blue", "red"]);
    // A dead reference the value did not hold as meta is still refused.
    unwrap(n.delete(carol, at + 3000));
    const moved = [{ value: "blue", meta: { "com.example-owner": [bob] } }, { value: "red" }];
    expect(outcome(n.putAttribute(people, "com.example-badge", moved, at + 4000))).toBe("syntax-violation");
    const dead = [...kept, { value: "blue", meta: { "com.example-owner": [carol] } }];
    expect(outcome(n.putAttribute(people, "com.example-badge", dead, at + 5000))).toBe("syntax-violation");
  });
});

describe("restoring values of a wire name defined anew", () => {
  /** org.demo-level held by an OU, then the namespace deleted and defined again as `body`. */
  function redefined(body: { syntax: string; single: boolean; matching: string }, values: string[]) {
    const d = freshDomain();
    const n = d.node;
    const ns = make(n, d.schema, "org.demo", "schemaNamespace");
    const level = unwrap(attributeDef(n, ns, "level", { single: false })).id;
    const lf = make(n, ns, "lf", "facetDefinition", t0Ms, { ...born, attributes: [level] });
    const o = make(n, d.root, "o", "organizationalUnit", t0Ms, { attachedFacets: [lf], "org.demo-level": values });
    unwrap(n.delete(o, t0Ms + 1000));
    unwrap(n.delete(ns, t0Ms + 2000));
    const ns2 = make(n, d.schema, "org.demo", "schemaNamespace", t0Ms + 3000);
    const level2 = unwrap(attributeDef(n, ns2, "level", body)).id;
    const lf2 = make(n, ns2, "lf2", "facetDefinition", t0Ms + 3000, { ...born, attributes: [level2] });
    make(n, ns2, "ouext", "classExtension", t0Ms + 3000, {
      ...born,
      targetClass: [baseDef(n, "organizationalUnit")],
      facets: [lf2],
    });
    return { n, o };
  }

  it("refuses values the new definition would refuse (not-restorable), naming them", () => {
    const single = redefined({ syntax: "string", single: true, matching: "caseless" }, ["high", "low"]);
    const twoValues = single.n.restore(single.o, t0Ms + 4000);
    expect(outcome(twoValues)).toBe("not-restorable");
    expect(refusalMessage(twoValues)).toMatch(/org\.demo-level values its definition refuses now: single-valued/u);
    const integer = redefined({ syntax: "integer", single: false, matching: "exact" }, ["high"]);
    expect(outcome(integer.n.restore(integer.o, t0Ms + 4000))).toBe("not-restorable");
    const reference = redefined({ syntax: "reference", single: false, matching: "exact" }, ["not-a-guid"]);
    expect(outcome(reference.n.restore(reference.o, t0Ms + 4000))).toBe("not-restorable");
    // Same values under another matching: stored set-keys differ from what a write would store.
    const exact = redefined({ syntax: "string", single: false, matching: "exact" }, ["High"]);
    expect(outcome(exact.n.restore(exact.o, t0Ms + 4000))).toBe("not-restorable");
  });

  it("restores values the new definition takes as they are", () => {
    const same = redefined({ syntax: "string", single: false, matching: "caseless" }, ["high", "low"]);
    expect(outcome(same.n.restore(same.o, t0Ms + 4000))).toBe("ok");
    expect(valuesOf(unwrap(same.n.object(same.o, t0Ms + 4000)), "org.demo-level")).toEqual(["high", "low"]);
  });
});

describe("endpoint attributes", () => {
  it("refuses an exact endpoint attribute (schema-violation): SPEC's endpoints compare caselessly", () => {
    const d = freshDomain();
    const ns = make(d.node, d.schema, "org.test", "schemaNamespace");
    const exact = attributeDef(d.node, ns, "epx", { syntax: "endpoint", single: false, matching: "exact" });
    expect(outcome(exact)).toBe("schema-violation");
    expect(refusalMessage(exact)).toMatch(/endpoint values compare caselessly/u);
    expect(outcome(attributeDef(d.node, ns, "ep", { syntax: "endpoint", single: false }))).toBe("ok");
  });
});

describe("system on namespaced definitions", () => {
  it("refuses a namespaced definition claiming system true (schema-violation); base ones stay system", () => {
    const d = freshDomain();
    const ns = make(d.node, d.schema, "org.test", "schemaNamespace");
    const attributes = { lifecycle: ["active"], system: ["true"], syntax: ["string"], singleValued: ["true"], matching: ["exact"] };
    const claimed = d.node.create({ parent: ns, name: "sys1", className: "attributeDefinition", attributes }, t0Ms);
    expect(outcome(claimed)).toBe("schema-violation");
    expect(refusalMessage(claimed)).toMatch(/system is true only on base definitions/u);
    expect(unwrap(d.node.schema()).quarantined).toEqual([]);
    expect(unwrap(d.node.object(baseDef(d.node, "description"), t0Ms)).system).toBe(true);
  });
});
