/**
 * Goal: surfaces are class facets + facets of extensions targeting the class + attached
 * facets, `attachedFacets` is always permitted, and the provider/loss helpers let callers
 * detect attributes exclusively provided by a facet or an extension. Method: the base schema
 * plus one namespace with an extension and an attachable facet, inspected directly.
 */
import { describe, expect, test } from "vitest";
import { compileSchema } from "./compile";
import { attributeProviders, surfaceLoss, surfaceOf } from "./surface";
import {
  attributeDef,
  baseInput,
  extensionDef,
  facetDef,
  gid,
  namespaceDef,
  tombstone,
} from "./test-fixtures";

const base = baseInput();
const ns = gid(1);
const badge = attributeDef(gid(10), ns, "badge");
const badged = facetDef(gid(20), ns, "badged", [{ id: gid(10) }, { id: base.idOf("description") }]);
const extension = extensionDef(gid(40), ns, "userBadge", base.idOf("user"), [gid(20)]);
const defs = [...base.defs, namespaceDef(ns, "com.example"), badge, badged];
const plain = compileSchema(defs);
const extended = compileSchema([...defs, extension]);

describe("surfaceOf", () => {
  test("class facets give the class surface, plus attachedFacets", () => {
    const s = surfaceOf(plain, "user", []);
    expect(s.facets).toEqual(["described", "person", "securityPrincipal"]);
    expect([...s.attributes].sort()).toEqual(
      ["attachedFacets", "description", "displayName", "email", "givenName", "sid", "surname"],
    );
  });

  test("an extension adds its facets to its target class's surface only", () => {
    expect(surfaceOf(extended, "user", []).facets).toEqual([
      "com.example-badged", "described", "person", "securityPrincipal",
    ]);
    expect(surfaceOf(extended, "User", []).attributes.has("com.example-badge")).toBe(true);
    expect(surfaceOf(extended, "group", []).attributes.has("com.example-badge")).toBe(false);
  });

  test("attached facets join the surface; unknown or dead ids contribute nothing", () => {
    const s = surfaceOf(plain, "organizationalUnit", [gid(20), gid(99), base.idOf("user")]);
    expect(s.facets).toEqual(["com.example-badged", "described"]);
    expect(s.attributes.has("com.example-badge")).toBe(true);
    const dead = compileSchema([...base.defs, namespaceDef(ns, "com.example"), badge,
      tombstone(badged)]);
    expect(surfaceOf(dead, "organizationalUnit", [gid(20)]).facets).toEqual(["described"]);
  });

  test("an unknown class (a ghost) still permits attached facets and attachedFacets", () => {
    const s = surfaceOf(plain, "noSuchClass", [base.idOf("machine")]);
    expect(s.facets).toEqual(["machine"]);
    expect([...s.attributes].sort()).toEqual(["attachedFacets", "machineKey", "networkAddress"]);
  });

  test("a facet reached by several routes is listed once", () => {
    const s = surfaceOf(extended, "user", [gid(20), base.idOf("person")]);
    expect(s.facets).toEqual(["com.example-badged", "described", "person", "securityPrincipal"]);
  });
});

describe("attributeProviders and surfaceLoss", () => {
  test("providers name every effective facet carrying an attribute", () => {
    const p = attributeProviders(extended, "user", []);
    expect(p.get("description")).toEqual(["com.example-badged", "described"]);
    expect(p.get("com.example-badge")).toEqual(["com.example-badged"]);
    expect(p.has("attachedFacets")).toBe(false);
  });

  test("detaching a facet loses exactly the attributes only it provided", () => {
    const loss = surfaceLoss(
      { schema: plain, attachedFacetIds: [gid(20)] },
      { schema: plain, attachedFacetIds: [] },
      "user",
    );
    expect(loss).toEqual(["com.example-badge"]);
  });

  test("detaching a facet that the class also reaches loses nothing", () => {
    const loss = surfaceLoss(
      { schema: extended, attachedFacetIds: [gid(20)] },
      { schema: extended, attachedFacetIds: [] },
      "user",
    );
    expect(loss).toEqual([]);
  });

  test("deleting an extension loses its exclusively provided attributes", () => {
    const trial = compileSchema([...defs, tombstone(extension)]);
    const loss = surfaceLoss(
      { schema: extended, attachedFacetIds: [] },
      { schema: trial, attachedFacetIds: [] },
      "user",
    );
    expect(loss).toEqual(["com.example-badge"]);
  });
});
