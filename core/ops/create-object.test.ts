/**
 * Goal: POST /api/objects/{id}/children as the core sees it: SPEC naming rules, "Additional
 * rules" 1 and 4, and the create refusals (no-such-object, already-deleted, invalid-name,
 * unknown-class, class-not-instantiable, unknown-attribute, attribute-not-permitted,
 * name-in-use), with attributes applied atomically with the create.
 * Method: a fresh domain on one DirectoryNode; create through the node facade as a client
 * would, then read back payloads, children and paths; every refusal also checks that nothing
 * was written (no new child, no USN spent, no durable batch).
 */
import { describe, expect, it } from "vitest";
import { freshDomain, make, outcome, t0Ms, unwrap, valuesOf } from "../testing/node-fixture";

function setup() {
  const d = freshDomain();
  const people = make(d.node, d.root, "People");
  d.node.ready();
  return { ...d, people };
}

/** Asserts the request was refused with `code` and left no trace. */
function expectRefusedCleanly(
  s: ReturnType<typeof setup>,
  parent: string,
  req: { name: unknown; className: unknown; attributes?: Record<string, readonly unknown[]> },
  code: string,
): void {
  const usn = s.node.dir.usn;
  const before = unwrap(s.node.children(parent));
  expect(outcome(s.node.create({ parent, ...req }, t0Ms))).toBe(code);
  expect(s.node.dir.usn).toBe(usn);
  expect(unwrap(s.node.children(parent))).toEqual(before);
  expect(s.node.ready()).toBeNull();
}

describe("create: the happy path", () => {
  it("creates a child with its attributes and renders the SPEC payload", () => {
    const s = setup();
    const created = unwrap(
      s.node.create(
        {
          parent: s.people,
          name: "Alice Liddell",
          className: "user",
          attributes: { givenName: ["Alice"], email: ["alice@example.test", "a@example.test"] },
        },
        t0Ms,
      ),
    );
    expect(created.parent).toBe(s.people);
    expect(created.name).toBe("Alice Liddell");
    expect(created.class).toBe("user");
    expect(created.system).toBe(false);
    expect(created.stage).toBe("alive");
    expect(created.effectiveStage).toBe("alive");
    expect(created.ghost).toBe(false);
    expect(created.facets).toEqual(["described", "person", "securityPrincipal"]);
    expect(created.path).toBe("/People/Alice Liddell");
    expect(created.dn).toBe("CN=Alice Liddell,OU=People");
    expect(created.hasChildren).toBe(false);
    expect(valuesOf(created, "givenName")).toEqual(["Alice"]);
    expect(valuesOf(created, "email").sort()).toEqual(["a@example.test", "alice@example.test"]);
    expect(created.existence.version).toBe(1);
    expect(created.existence.at).toBe("2025-01-01T00:00:00.000Z");
    expect(created.existence.origin).toBe(s.node.dir.invocationId);
    expect(created.usnChanged).toBe(s.node.dir.usn);
    expect(unwrap(s.node.object(s.people, t0Ms)).hasChildren).toBe(true);
    const batch = s.node.ready();
    expect(batch?.batch.puts.map(([k]) => k)).toContain(`o/${created.id}`);
  });

  it("resolves the class name caselessly and stores the canonical spelling", () => {
    const s = setup();
    const created = unwrap(
      s.node.create({ parent: s.people, name: "Bob", className: "USER" }, t0Ms),
    );
    expect(created.class).toBe("user");
  });

  it("accepts a name of exactly 255 UTF-8 bytes and any non-control character", () => {
    const s = setup();
    expect(
      outcome(
        s.node.create({ parent: s.people, name: "é".repeat(127) + "a", className: "user" }, t0Ms),
      ),
    ).toBe("ok");
    const names = ["a,b+c", "#hash", "tab-free name", "日本語", "emoji 👩‍💻", "x\u200dy"];
    for (const name of names) {
      expect(
        outcome(s.node.create({ parent: s.people, name, className: "organizationalUnit" }, t0Ms)),
        name,
      ).toBe("ok");
    }
  });

  it("multi-valued attributes render in canonical set-key order", () => {
    const s = setup();
    const id = make(s.node, s.people, "carol", "user", t0Ms, {
      email: ["zed@x.test", "Amy@x.test", "bob@x.test"],
    });
    expect(valuesOf(unwrap(s.node.object(id, t0Ms)), "email")).toEqual([
      "Amy@x.test",
      "bob@x.test",
      "zed@x.test",
    ]);
  });
});

describe("create: invalid-name (SPEC naming rules)", () => {
  const bad: Array<[string, unknown]> = [
    ["empty", ""],
    ["256 bytes", "a".repeat(256)],
    ["256 bytes of two-byte characters", "é".repeat(128)],
    ["a control character", "bad\u0007name"],
    ["a newline", "two\nlines"],
    ["DEL", "del\u007f"],
    ["a slash", "a/b"],
    ["a leading space", " lead"],
    ["a trailing space", "trail "],
    ["a trailing no-break space", "trail\u00a0"],
    ["an unpaired surrogate", "bad\ud800"],
    ["not a string", 42],
  ];
  for (const [label, name] of bad) {
    it(`refuses ${label}`, () => {
      const s = setup();
      expectRefusedCleanly(s, s.people, { name, className: "user" }, "invalid-name");
    });
  }
});

describe("create: classes", () => {
  it("refuses an unknown class with unknown-class", () => {
    const s = setup();
    expectRefusedCleanly(s, s.people, { name: "n", className: "unicorn" }, "unknown-class");
    expectRefusedCleanly(s, s.people, { name: "n", className: 7 }, "unknown-class");
  });

  it("aliases are not class names either: wire names only", () => {
    const s = setup();
    expectRefusedCleanly(s, s.people, { name: "n", className: "ou" }, "unknown-class");
  });

  it("refuses domainRoot and configuration with class-not-instantiable", () => {
    const s = setup();
    expectRefusedCleanly(
      s,
      s.people,
      { name: "n", className: "domainRoot" },
      "class-not-instantiable",
    );
    expectRefusedCleanly(
      s,
      s.people,
      { name: "n", className: "Configuration" },
      "class-not-instantiable",
    );
  });
});

describe("create: name-in-use (caseless, blind to kind)", () => {
  const pairs: Array<[string, string, string]> = [
    ["ß vs SS", "ß", "SS"],
    ["ß vs ss", "Straße", "STRASSE"],
    ["composed vs decomposed", "caf\u00e9", "cafe\u0301"],
    ["ASCII case", "Alice", "aLICE"],
    ["Greek final sigma", "ΟΔΟΣ", "οδος"],
  ];
  for (const [label, first, second] of pairs) {
    it(`${label}`, () => {
      const s = setup();
      make(s.node, s.people, first, "user");
      s.node.ready();
      expectRefusedCleanly(
        s,
        s.people,
        { name: second, className: "organizationalUnit" },
        "name-in-use",
      );
    });
  }

  it("the same name under different parents is fine", () => {
    const s = setup();
    make(s.node, s.people, "dup");
    expect(outcome(s.node.create({ parent: s.root, name: "DUP", className: "user" }, t0Ms))).toBe(
      "ok",
    );
  });

  it("a soft-deleted sibling does not hold its name", () => {
    const s = setup();
    const old = make(s.node, s.people, "reused");
    unwrap(s.node.delete(old, t0Ms));
    expect(
      outcome(s.node.create({ parent: s.people, name: "REUSED", className: "user" }, t0Ms)),
    ).toBe("ok");
  });

  it("stored spellings are preserved", () => {
    const s = setup();
    const id = make(s.node, s.people, "Straße");
    expect(unwrap(s.node.object(id, t0Ms)).name).toBe("Straße");
    expect(unwrap(s.node.resolvePath("/people/STRASSE", t0Ms)).id).toBe(id);
  });
});

describe("create: the parent gate", () => {
  it("an unknown parent gives no-such-object", () => {
    const s = setup();
    const ghostParent = "00000000-0000-4000-8000-000000000000";
    expect(
      outcome(s.node.create({ parent: ghostParent, name: "n", className: "user" }, t0Ms)),
    ).toBe("no-such-object");
  });

  it("a soft-deleted parent gives already-deleted", () => {
    const s = setup();
    const gone = make(s.node, s.people, "gone");
    unwrap(s.node.delete(gone, t0Ms));
    s.node.ready();
    expectRefusedCleanly(s, gone, { name: "n", className: "user" }, "already-deleted");
  });
});

describe("create: attributes are validated and applied atomically", () => {
  it("an unknown attribute refuses the whole create", () => {
    const s = setup();
    expectRefusedCleanly(
      s,
      s.people,
      { name: "n", className: "user", attributes: { givenName: ["N"], shoeSize: ["42"] } },
      "unknown-attribute",
    );
  });

  it("an alias is not a lookup name (sn is not surname)", () => {
    const s = setup();
    expectRefusedCleanly(
      s,
      s.people,
      { name: "n", className: "user", attributes: { sn: ["X"] } },
      "unknown-attribute",
    );
    expectRefusedCleanly(
      s,
      s.people,
      { name: "n", className: "user", attributes: { mail: ["x@y"] } },
      "unknown-attribute",
    );
  });

  it("an attribute outside the class surface gives attribute-not-permitted", () => {
    const s = setup();
    expectRefusedCleanly(
      s,
      s.people,
      {
        name: "n",
        className: "organizationalUnit",
        attributes: { description: ["ok"], sid: ["S-1"] },
      },
      "attribute-not-permitted",
    );
  });

  it("a bad value anywhere refuses the create (nothing half-written)", () => {
    const s = setup();
    expectRefusedCleanly(
      s,
      s.people,
      { name: "n", className: "user", attributes: { givenName: ["N"], surname: ["a", "b"] } },
      "single-valued",
    );
  });

  it("attribute names in a body are caseless and rendered canonically", () => {
    const s = setup();
    const id = make(s.node, s.people, "dora", "user", t0Ms, {
      GIVENNAME: ["Dora"],
      SurName: ["Explorer"],
    });
    const payload = unwrap(s.node.object(id, t0Ms));
    expect(payload.attributes.map((a) => a.name)).toEqual(["givenName", "surname"]);
  });

  it("the same attribute twice under different spellings is refused", () => {
    const s = setup();
    expectRefusedCleanly(
      s,
      s.people,
      { name: "n", className: "user", attributes: { givenName: ["A"], GivenName: ["B"] } },
      "duplicate-value",
    );
  });

  it("a create may attach a facet and fill it in the same request", () => {
    const s = setup();
    const person = unwrap(s.node.resolvePath("/Configuration/Schema/person", t0Ms)).id;
    const id = make(s.node, s.people, "team", "organizationalUnit", t0Ms, {
      attachedFacets: [person],
      givenName: ["Team"],
    });
    const payload = unwrap(s.node.object(id, t0Ms));
    expect(payload.facets).toEqual(["described", "person"]);
    expect(valuesOf(payload, "givenName")).toEqual(["Team"]);
  });
});
