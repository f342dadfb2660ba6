/**
 * Goal: SPEC "Rewriting an attribute with an unchanged value does not restamp it" holds for
 * a value whose meta keys are spelled in another case or given in another order (attribute
 * names are caseless): the meta is stored under canonical names in one order, and compared
 * whatever order a stored one has. Spelt in another case, a key reordered the meta and each
 * such no-op won against a concurrent removal of the value (merge audit, twenty-seventh
 * session).
 * Method: one node; a namespaced multi-valued attribute with two legal meta keys; the same
 * value and meta written again in other spellings and orders; its stamp read back.
 */
import { describe, expect, it } from "vitest";
import { freshDomain, make, secondMs, t0Ms, unwrap } from "../testing/node-fixture";

describe("meta keys in another case or order", () => {
  it("leave an unchanged value unstamped", () => {
    const d = freshDomain();
    const n = d.node;
    let t = t0Ms + 10 * secondMs;
    const expiry = unwrap(n.resolvePath("/Configuration/Schema/expiry", t)).id;
    const born = { lifecycle: ["active"], system: ["false"] };
    const string = { ...born, syntax: ["string"], matching: ["caseless"] };
    const ns = make(n, d.schema, "org.audit", "schemaNamespace", t);
    const note = make(n, ns, "note", "attributeDefinition", t, { ...string, singleValued: ["true"] });
    const tag = make(n, ns, "tag", "attributeDefinition", t, { ...string, singleValued: ["false"], legalMeta: [expiry, note] });
    const facet = make(n, ns, "tagged", "facetDefinition", t, { ...born, attributes: [tag] });
    const x = make(n, d.root, "Holder", "organizationalUnit", t, { attachedFacets: [facet] });
    const write = (meta: Record<string, string[]>) => {
      t += secondMs;
      const p = unwrap(n.putAttribute(x, "org.audit-tag", [{ value: "v", meta }], t));
      return p.attributes.find((e) => e.name === "org.audit-tag")?.values[0]?.stamp.version;
    };
    const when = ["2030-01-01T00:00:00Z"];
    expect(write({ expiry: when, "org.audit-note": ["hi"] })).toBe(1);
    expect(write({ "ORG.AUDIT-NOTE": ["hi"], expiry: when })).toBe(1);
    expect(write({ "org.audit-note": ["hi"], EXPIRY: when })).toBe(1);
    expect(write({ "Org.Audit-Note": ["hi"], expiry: when })).toBe(1);
    // A changed meta value still restamps.
    expect(write({ "org.audit-note": ["ho"], expiry: when })).toBe(2);
  });
});
