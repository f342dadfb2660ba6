/**
 * fast-check arbitraries for HTTP requests against the daemon's API: methods, paths (valid and
 * random ids, garbage, percent-encodings, path endpoint segments, very long paths), headers
 * (content-type and content-encoding variants, missing) and bodies (random JSON, wrong types,
 * huge strings, deep nesting, valid-looking create/PUT/PATCH/send bodies with random values).
 *
 * Generation is pure, so a seed reproduces the request list. Ids of objects that exist only at
 * run time are drawn as `{ $known: n }` markers (in bodies) or `KnownId` parts (in paths) and
 * resolved against the run's pool of ids when the request is sent.
 */
import fc from "fast-check";

/**
 * A draw from the run-time pool of ids, optionally upper-cased. Odd draws pick among the
 * newest ids, even ones uniformly (see poolId in request-fuzzer.test.ts).
 */
export interface KnownId {
  readonly known: number;
  readonly upper: boolean;
}

export type PathPart = string | KnownId;

export type BodySpec =
  | { readonly kind: "json"; readonly value: unknown }
  | { readonly kind: "raw"; readonly text: string }
  /** Generated at send time so that the request list stays small. */
  | { readonly kind: "huge"; readonly shape: "value" | "name" | "raw"; readonly bytes: number }
  | { readonly kind: "deep"; readonly shape: "array" | "object" | "value"; readonly depth: number };

export interface RequestSpec {
  readonly method: string;
  readonly path: readonly PathPart[];
  readonly headers: Readonly<Record<string, string>>;
  readonly body: BodySpec | null;
}

export const knownMarker = "$known";

const baseAttributes = [
  "description", "displayName", "givenName", "surname", "email", "sid", "member", "expiry",
  "syntax", "singleValued", "matching", "legalMeta", "aliases", "lifecycle", "system",
  "attributes", "required", "facets", "attachedFacets", "dnPrefix", "targetClass",
  "instantiable", "maxTimeApart", "timeUntilShred", "networkAddress", "machineKey",
];
const baseClasses = [
  "domainRoot", "organizationalUnit", "user", "group", "attributeDefinition",
  "facetDefinition", "classDefinition", "schemaNamespace", "classExtension", "configuration",
  "computer",
];
/**
 * Methods tried on endpoints that do not take them. DELETE is left out: on object paths it
 * would be the commonest write of the run and leave the final walk an empty tree; it has its
 * own endpoints below (the proper one and a wrong path).
 */
const methods = ["GET", "POST", "PUT", "PATCH", "HEAD", "OPTIONS", "TRACE", "PROPFIND"];

/** Ids are accepted in any case (DESIGN): one in ten is sent upper-cased. */
const knownId: fc.Arbitrary<KnownId> = fc.record({
  known: fc.nat({ max: 10_000 }),
  upper: fc.nat({ max: 9 }).map((n) => n === 0),
});

/** Random text that may hold anything, including lone surrogates and control characters. */
const anyText = fc.oneof(
  fc.string({ maxLength: 24 }),
  fc.string({ unit: "grapheme", maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 12 }),
);

/** Percent-encodes every byte of a string's UTF-8 form, valid or not. */
const percentEncoded = fc
  .uint8Array({ minLength: 1, maxLength: 8 })
  .map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, "0")}`).join(""));

const malformedPercent = fc.constantFrom(
  "%", "%z", "%zz", "%C0%80", "%ED%A0%80", "%FF", "%2", "%%",
);

/** One path segment as sent on the wire (already encoded or deliberately broken). */
const segment: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: anyText.map(encodeURIComponent) },
  { weight: 2, arbitrary: percentEncoded },
  { weight: 1, arbitrary: malformedPercent },
  { weight: 1, arbitrary: fc.constantFrom("", ".", "..", "%2F", "%2e%2e", "a%2Fb", "%00") },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "Configuration", "Schema", "LostAndFound", "Domain%20Controllers", "fuzz", "CONFIGURATION",
      "user", "description", "Stra%C3%9Fe", "Strasse",
    ),
  },
);

/** An `{id}` path segment: mostly a live id, else a random GUID or garbage. */
const idPart: fc.Arbitrary<PathPart> = fc.oneof(
  { weight: 8, arbitrary: knownId },
  { weight: 1, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: fc.uuid().map((u) => u.toUpperCase().replace(/-/g, "")) },
  { weight: 1, arbitrary: segment },
);

/**
 * DELETE and shred mostly aim at new objects: uniform ones soon take out the seeded subtrees
 * and leave the final consistency walk little to check.
 */
const deleteIdPart: fc.Arbitrary<PathPart> = fc.oneof(
  { weight: 3, arbitrary: knownId.map((k) => ({ ...k, known: k.known | 1 })) },
  { weight: 1, arbitrary: idPart },
);

const attributeName: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...baseAttributes) },
  { weight: 1, arbitrary: fc.constantFrom(...baseAttributes).map((a) => a.toUpperCase()) },
  { weight: 1, arbitrary: fc.constantFrom("sn", "mail", "objectSid", "x", "fuzz-thing", "ns-a") },
  { weight: 1, arbitrary: anyText },
);

const className: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("user", "group", "organizationalUnit", "computer") },
  { weight: 2, arbitrary: fc.constantFrom(...baseClasses) },
  { weight: 1, arbitrary: fc.constantFrom("USER", "OrganizationalUnit", "nope", "") },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.constant(null), fc.boolean(), anyText) },
);

const objectName: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ,+=#;<>"\\.-]{0,20}$/) },
  { weight: 2, arbitrary: anyText },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "", " lead", "trail ", "a/b", "\u0001ctl", "Straße", "STRASSE", "e\u0301", "\u00e9",
      "n".repeat(255), "n".repeat(256), "ü".repeat(128), "#hash", "CNF:x",
    ),
  },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.constant(null), fc.array(fc.string())) },
);

/** Attribute values of every syntax, valid and not. */
const scalarValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: anyText },
  { weight: 2, arbitrary: fc.record({ [knownMarker]: fc.nat({ max: 10_000 }) }) },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.constantFrom("true", "false", "TRUE", "0", "1", "-0", "1e3") },
  { weight: 1, arbitrary: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "host.example:5390", "10.0.0.1", "[::1]:80", "01.2.3.4", "[fe80::1%eth0]", "a..b", "h:0",
      `x25519:${"ab".repeat(32)}`, `x25519:${"AB".repeat(32)}`, "x25519:00",
    ),
  },
  { weight: 1, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null)) },
);

const metaMap: fc.Arbitrary<unknown> = fc.oneof(
  fc.dictionary(
    fc.oneof(fc.constantFrom("expiry", "required", "EXPIRY", "bogus"), anyText),
    fc.oneof(fc.array(scalarValue, { maxLength: 3 }), scalarValue),
    { maxKeys: 3 },
  ),
  fc.jsonValue({ maxDepth: 2 }),
);

const valueEntry: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: scalarValue },
  {
    weight: 2,
    arbitrary: fc.record({ value: scalarValue, meta: metaMap }, { requiredKeys: ["value"] }),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

const valueList: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.array(valueEntry, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

const knownRef = fc.record({ [knownMarker]: fc.nat({ max: 10_000 }) });
/** A reference to one of the newest objects (odd draws), the likeliest to be alive. */
const recentRef = fc.record({ [knownMarker]: fc.nat({ max: 5_000 }).map((n) => 2 * n + 1) });
const plainName = fc.oneof(
  fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ._-]{0,15}[A-Za-z0-9]$/),
  fc.constantFrom("Müller", "ÉQUIPE", "équipe", "Straße", "STRASSE", "日本", "a,b+c", "#1"),
);
const plainText = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 @.,-]{0,30}$/);
const expiry = fc.date({ noInvalidDate: true }).map((d) => d.toISOString());

/** Values that fit their attribute's syntax. */
const plausibleValues = {
  description: fc.array(plainText, { minLength: 1, maxLength: 3 }),
  displayName: plainText.map((t) => [t]),
  givenName: plainText.map((t) => [t]),
  email: fc.array(
    plainText.map((t) => `${t.replace(/[^A-Za-z0-9]/g, "")}x@fuzz.test`),
    { maxLength: 2 },
  ),
  member: fc.array(
    fc.oneof(
      recentRef,
      fc.record({ value: recentRef, meta: fc.record({ expiry: expiry.map((e) => [e]) }) }),
    ),
    { maxLength: 3 },
  ),
  networkAddress: fc.array(fc.constantFrom("a.fuzz.test", "10.1.2.3:80", "[::1]:5390"), {
    maxLength: 2,
  }),
} as const;
type PlausibleAttribute = keyof typeof plausibleValues;

/** Each class with the attributes of its surface (SPEC base schema). */
const surfaces: ReadonlyArray<readonly [string, readonly PlausibleAttribute[]]> = [
  ["organizationalUnit", ["description", "displayName"]],
  ["user", ["description", "displayName", "givenName", "email"]],
  ["group", ["description", "displayName", "member"]],
  ["computer", ["description", "networkAddress"]],
];

function someOf(attributes: readonly PlausibleAttribute[]): fc.Arbitrary<Record<string, unknown>> {
  const entries = attributes.map((a) => [a, plausibleValues[a]] as const);
  return fc.record(Object.fromEntries(entries), { requiredKeys: [] });
}

/** A create that fits the schema: most succeed, so the tree grows as the run goes on. */
const plausibleCreate = fc
  .constantFrom(...surfaces, surfaces[0] ?? ["organizationalUnit", []])
  .chain(([cls, attributes]) =>
    fc.record({ name: plainName, class: fc.constant(cls), attributes: someOf(attributes) }),
  );

/** A PUT body that fits some attribute (not always the one in the path). */
const plausiblePut = fc
  .constantFrom(...(Object.keys(plausibleValues) as PlausibleAttribute[]))
  .chain((a) => plausibleValues[a].map((values) => ({ values })));

const createBody = fc.oneof(
  { weight: 3, arbitrary: plausibleCreate },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        name: objectName,
        class: className,
        attributes: fc.oneof(
          fc.dictionary(attributeName, valueList, { maxKeys: 4 }),
          fc.jsonValue({ maxDepth: 2 }),
        ),
      },
      { requiredKeys: [] },
    ),
  },
);
const putBody = fc.oneof(
  { weight: 3, arbitrary: plausiblePut },
  { weight: 3, arbitrary: fc.record({ values: valueList }) },
  { weight: 1, arbitrary: fc.record({ values: valueList, extra: fc.jsonValue() }) },
);
const patchBody = fc.oneof(
  { weight: 2, arbitrary: fc.record({ name: plainName }) },
  { weight: 2, arbitrary: fc.record({ parent: knownRef }) },
  {
    weight: 2,
    arbitrary: fc.record(
      { name: objectName, parent: fc.oneof(knownRef, fc.uuid(), fc.jsonValue({ maxDepth: 1 })) },
      { requiredKeys: [] },
    ),
  },
);
const sendBody = fc.record(
  { to: fc.oneof(fc.uuid(), anyText, fc.integer()), text: fc.oneof(anyText, fc.integer()) },
  { requiredKeys: [] },
);

function json(arb: fc.Arbitrary<unknown>): fc.Arbitrary<BodySpec> {
  return arb.map((value) => ({ kind: "json", value }) as const);
}

function raw(text: string): BodySpec {
  return { kind: "raw", text };
}

/** Bodies that do not fit any endpoint: random JSON, wrong types, junk, huge, deep. */
const strayBody: fc.Arbitrary<BodySpec> = fc.oneof(
  { weight: 4, arbitrary: json(fc.jsonValue({ maxDepth: 4 })) },
  { weight: 2, arbitrary: anyText.map(raw) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('{"name":', "{'a':1}", "[1,]", "nul", "\u0000", "{}{}", "1e999")
      .map(raw),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("huge" as const),
      shape: fc.constantFrom("value" as const, "name" as const, "raw" as const),
      bytes: fc.constantFrom(70_000, 1024 * 1024, 1024 * 1024 + 1, 9 * 1024 * 1024),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("deep" as const),
      shape: fc.constantFrom("array" as const, "object" as const, "value" as const),
      depth: fc.constantFrom(50, 1_000, 20_000),
    }),
  },
);

const contentTypes = [
  "application/json", "application/json; charset=utf-8", "APPLICATION/JSON",
  "application/merge-patch+json", "application/json; charset=latin1",
  "application/json; charset=utf-16", "text/plain", "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x", "", "json", "application/",
];

/** A header that is usually absent: undefined drops it. */
const rarely = (values: readonly string[]): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom(...values) },
  );

const headers: fc.Arbitrary<Record<string, string>> = fc
  .record({
    "content-type": fc.oneof(
      { weight: 12, arbitrary: fc.constant("application/json") },
      { weight: 3, arbitrary: fc.constantFrom(...contentTypes) },
      { weight: 1, arbitrary: fc.constant(undefined) },
    ),
    "content-encoding": rarely(["gzip", "deflate", "br", "identity", "bogus"]),
    accept: rarely(["application/json", "text/html", "*/*", ""]),
    "x-junk": fc.oneof(
      fc.constant(undefined),
      fc.string({ maxLength: 30 }).map((s) => s.replace(/[^\x20-\x7e]/g, "?")),
    ),
  })
  .map((h) => {
    const present = Object.entries(h).filter((e): e is [string, string] => e[1] !== undefined);
    return Object.fromEntries(present);
  });

/** An endpoint with its proper method and body, or a wrong method and a stray body. */
interface Endpoint {
  readonly path: fc.Arbitrary<PathPart[]>;
  readonly method: string;
  readonly body: fc.Arbitrary<BodySpec> | null;
  /**
   * Never a body: the server refuses these request lines (431) before any body, and closes
   * the connection, so a client still sending a large body may see a reset instead of the
   * answer (a race in any HTTP client, not a daemon fault).
   */
  readonly bodyless?: true;
}

const fixed = (path: string, method: string): Endpoint => ({
  path: fc.constant([path]),
  method,
  body: null,
});

const objectPath = (...tail: string[]) => idPart.map((id) => ["/api/objects/", id, ...tail]);
const deletePath = (...tail: string[]) =>
  deleteIdPart.map((id) => ["/api/objects/", id, ...tail]);
const attributePath = fc
  .tuple(idPart, attributeName)
  .map(([id, a]) => ["/api/objects/", id, "/attributes/", encodeURIComponent(a)]);
const nativePath = fc
  .array(segment, { maxLength: 4 })
  .map((s) => ["/api/path", ...s.map((x) => `/${x}`)]);
const longNativePath = fc
  .integer({ min: 1_000, max: 15_000 })
  .map((n) => ["/api/path/", "segment/".repeat(Math.ceil(n / 8))]);
const longObjectPath = fc
  .integer({ min: 256, max: 40_000 })
  .map((n) => ["/api/objects/", "a".repeat(n)]);
const garbagePath = fc
  .array(segment, { minLength: 0, maxLength: 4 })
  .chain((s) =>
    fc
      .constantFrom("/", "/api/", "/api", "/api/objects/", "//api/root/", "/API/ROOT/")
      .map((prefix) => [prefix + s.join("/")]),
  );

const endpoints: ReadonlyArray<readonly [number, Endpoint]> = [
  [6, { path: objectPath(), method: "GET", body: null }],
  [3, { path: objectPath("/children"), method: "GET", body: null }],
  [20, { path: objectPath("/children"), method: "POST", body: json(createBody) }],
  [10, { path: attributePath, method: "PUT", body: json(putBody) }],
  [4, { path: objectPath(), method: "PATCH", body: json(patchBody) }],
  [1, { path: deletePath(), method: "DELETE", body: null }],
  [2, { path: objectPath("/restore"), method: "POST", body: null }],
  [0.4, { path: deletePath("/shred"), method: "POST", body: null }],
  [1, { path: objectPath("/children"), method: "DELETE", body: null }],
  [5, { path: nativePath, method: "GET", body: null }],
  [1, { path: longNativePath, method: "GET", body: null, bodyless: true }],
  [1, { path: longObjectPath, method: "GET", body: null, bodyless: true }],
  [1, fixed("/api/root", "GET")],
  [1, fixed("/api/morgue", "GET")],
  [1, fixed("/api/schema", "GET")],
  [1, fixed("/api/node", "GET")],
  [1, fixed("/api/journal", "GET")],
  [1, fixed("/api/storage", "GET")],
  [1, fixed("/api/fabric", "GET")],
  [1, fixed("/api/msgs", "GET")],
  [1, fixed("/api/gc", "POST")],
  [0.2, fixed("/api/storage/rotate", "POST")],
  [0.2, fixed("/api/storage/rebuild", "POST")],
  [1, { path: fc.constant(["/api/msgs/send"]), method: "POST", body: json(sendBody) }],
  [1, { path: idPart.map((id) => ["/api/fabric/redial/", id]), method: "POST", body: null }],
  [2, { path: garbagePath, method: "GET", body: null }],
];

/** A PUT whose body fits the attribute in its path (most succeed on a live object). */
const plausiblePutRequest: fc.Arbitrary<RequestSpec> = fc
  .tuple(idPart, fc.constantFrom(...(Object.keys(plausibleValues) as PlausibleAttribute[])))
  .chain(([id, attribute]) =>
    fc.record({
      method: fc.constant("PUT"),
      path: fc.constant(["/api/objects/", id, `/attributes/${attribute}`]),
      headers: fc.constant({ "content-type": "application/json" }),
      body: json(plausibleValues[attribute].map((values) => ({ values }))),
    }),
  );

/** One request: an endpoint; 75 % its own method and body, otherwise random ones. */
const endpointRequest: fc.Arbitrary<RequestSpec> = fc
  .oneof(
    // Weights in fifths, so that the debug rotations can be rarer than anything else.
    ...endpoints.map(([weight, endpoint]) => ({
      weight: Math.round(weight * 5),
      arbitrary: fc.constant(endpoint),
    })),
  )
  .chain((endpoint) =>
    fc
      .record({
        path: endpoint.path,
        query: fc.constantFrom("", "", "", "?x=1", "?limit=-1&x[]=2", "#f"),
        proper: fc.nat({ max: 99 }).map((n) => n < 75),
        method: fc.constantFrom(...methods),
        ownBody: endpoint.body ?? fc.constant(null),
        stray: fc.option(strayBody, { nil: null, freq: 3 }),
        headers,
      })
      .map((r) => ({
        method: r.proper ? endpoint.method : r.method,
        path: [...r.path, r.query],
        headers: r.headers,
        body:
          endpoint.bodyless === true
            ? null
            : r.proper && endpoint.body !== null
              ? r.ownBody
              : r.stray,
      })),
  );

export const requestArb: fc.Arbitrary<RequestSpec> = fc.oneof(
  { weight: 12, arbitrary: endpointRequest },
  { weight: 1, arbitrary: plausiblePutRequest },
);
