/**
 * A peer's replication message at the fabric's boundary: bytes -> UTF-8 text -> JSON ->
 * checked against the wire form of core/repl/wire.ts (io-ts) -> `fromWire`. Whatever a peer
 * sends, the answer is a message or a refusal with a reason, never an exception: a malformed
 * message is the peer's fault (a bug or a version skew on its side), to be journaled and
 * dropped, and must not trip one of the core's assertions.
 *
 * What is checked: the version; the fields of each message type, exactly (an unknown field is
 * refused, so a peer speaking another version of the form is not half understood); GUIDs in
 * their canonical lowercase form; USNs, versions, request ids and batch sizes as non-negative
 * safe integers; stamps' wall times as instants a timestamp can show; the tuples of existence, placement, stamps, atoms and cursors with their
 * lengths; a vector holding each invocation once and its sender's own entry, with a node
 * table naming each node once that every entry points into. What is not: the meaning of
 * names, classes and values. They were validated where they were written, and replication
 * carries atoms, not requests (a peer is an enrolled machine; the fabric authenticates it).
 */
import * as t from "io-ts";
import { isLeft } from "fp-ts/lib/Either";
import { isGuid } from "../../core/guid";
import type { ReplicationMessage } from "../../core/repl/messages";
import { fromWire, wireVersion } from "../../core/repl/wire";
import type { WireCursor, WireDelta, WireMessage, WireVectorEntry } from "../../core/repl/wire";
import type { AtomTuple, ExistenceTuple, PlacementTuple, StampTuple } from "../../core/store/record-codec";
import { timestampMsMax, timestampMsMin } from "../../core/syntax/timestamp-syntax";

/** The largest message accepted, in bytes (a batch of 100 objects with large values fits). */
export const maxPeerMessageBytes = 64 * 1024 * 1024;

export type PeerMessage =
  | { readonly ok: true; readonly message: ReplicationMessage }
  | { readonly ok: false; readonly reason: string };

const Guid = new t.Type<string, string, unknown>(
  "GUID",
  (u): u is string => typeof u === "string" && isGuid(u),
  (u, c) => (typeof u === "string" && isGuid(u) ? t.success(u) : t.failure(u, c)),
  t.identity,
);

const Count = new t.Type<number, number, unknown>(
  "non-negative safe integer",
  (u): u is number => Number.isSafeInteger(u) && (u as number) >= 0,
  (u, c) => (Number.isSafeInteger(u) && (u as number) >= 0 ? t.success(u as number) : t.failure(u, c)),
  t.identity,
);

/**
 * A stamp's wall time: an instant a timestamp can show (years 0-9999). Any other safe integer
 * would be stored, and trip the timestamp assertion wherever the record is rendered (GET,
 * the morgue) on every node it reached.
 */
const isInstant = (u: unknown): u is number =>
  Number.isSafeInteger(u) && (u as number) >= timestampMsMin && (u as number) <= timestampMsMax;

const Instant = new t.Type<number, number, unknown>(
  "instant within the years 0-9999 (ms)",
  isInstant,
  (u, c) => (isInstant(u) ? t.success(u) : t.failure(u, c)),
  t.identity,
);

const Flag = t.union([t.literal(0), t.literal(1)]);

/** An object with exactly these fields. */
function exact<P extends t.Props, O extends t.Props = {}>(name: string, props: P, optional?: O) {
  const required = t.type(props);
  const partial = t.partial(optional ?? ({} as O));
  const allowed = new Set([...Object.keys(props), ...Object.keys(optional ?? {})]);
  type Decoded = t.TypeOf<typeof required> & t.TypeOf<typeof partial>;
  return new t.Type<Decoded, Decoded, unknown>(
    name,
    (u): u is Decoded => required.is(u) && partial.is(u),
    (u, c) => {
      if (typeof u !== "object" || u === null || Array.isArray(u)) return t.failure(u, c, `${name} must be an object`);
      const extra = Object.keys(u).filter((k) => !allowed.has(k));
      if (extra.length > 0) return t.failure(u, c, `${name} has unknown field(s) ${extra.join(", ")}`);
      const errors: t.Errors = [];
      for (const r of [required.validate(u, c), partial.validate(u, c)]) if (isLeft(r)) errors.push(...r.left);
      return errors.length > 0 ? t.failures(errors) : t.success(u as Decoded);
    },
    t.identity,
  );
}

/**
 * A JSON array of exactly these elements (io-ts's own `tuple` stops at five; a stamp has six).
 * The elements are plain JSON values, so the array itself is the decoded value.
 */
function tupleOf<T extends unknown[]>(name: string, parts: readonly t.Mixed[]): t.Type<T, T, unknown> {
  const is = (u: unknown): u is T => Array.isArray(u) && u.length === parts.length && parts.every((p, i) => p.is(u[i]));
  return new t.Type<T, T, unknown>(
    name,
    is,
    (u, c) => {
      if (!Array.isArray(u) || u.length !== parts.length) {
        return t.failure(u, c, `${name} must be an array of ${parts.length}`);
      }
      const errors: t.Errors = [];
      parts.forEach((part, i) => {
        const r = part.validate(u[i], t.appendContext(c, String(i), part, u[i]));
        if (isLeft(r)) errors.push(...r.left);
      });
      return errors.length > 0 ? t.failures(errors) : t.success(u as T);
    },
    t.identity,
  );
}

const NullableString = t.union([t.string, t.null]);
const Stamp = tupleOf<StampTuple>("stamp", [t.refinement(Count, (n) => n >= 1, "version >= 1"), Instant, Guid, Guid, Count, Count]);
/**
 * Meta of an atom: keys are attribute names (SPEC's legalMeta), never `__proto__`, which a later
 * assignment by key would turn into a prototype change (JSON.parse itself keeps it an own key).
 */
const Meta = t.union([
  t.null,
  t.refinement(t.record(t.string, t.array(t.string)), (m) => !Object.hasOwn(m, "__proto__"), "meta without __proto__"),
]);
const AtomLife = t.refinement(Count, (n) => n > 1, "life > 1");
const atomParts = [NullableString, Flag, NullableString, Meta, Stamp];
const Atom = t.union([tupleOf<AtomTuple>("atom", atomParts), tupleOf<AtomTuple>("atom with a life", [...atomParts, AtomLife])]);
const Existence = tupleOf<ExistenceTuple>("existence", [
  t.keyof({ alive: null, deleted: null, shredded: null }),
  Guid,
  t.string,
  Flag,
  t.union([Guid, t.null]),
  Stamp,
]);
const Placement = tupleOf<PlacementTuple>("placement", [t.union([Guid, t.null]), t.string, Stamp]);
const Attribute = tupleOf<[string, AtomTuple[]]>("attribute", [t.string, t.array(Atom)]);
const Delta = tupleOf<WireDelta>("delta", [
  Guid,
  t.union([Existence, t.null]),
  t.union([Placement, t.null]),
  t.array(Attribute),
]);
const VectorEntry = tupleOf<WireVectorEntry>("vector entry", [Guid, Count, Count, Count]);
const Cursor = tupleOf<WireCursor>("cursor", [Count, t.string, t.string]);
const Watermark = t.union([
  tupleOf<[string, number, number]>("watermark", [Guid, Count, Count]),
  tupleOf<[string, number, number, WireCursor]>("watermark inside an object", [Guid, Count, Count, Cursor]),
]);

const Vector = t.refinement(
  exact("vector", { n: t.array(Guid), e: t.array(VectorEntry), o: Guid }),
  (v) => {
    if (new Set(v.n).size !== v.n.length) return false;
    const seen = new Set<string>();
    for (const [inv, , at] of v.e) {
      if (seen.has(inv) || at >= v.n.length) return false;
      seen.add(inv);
    }
    return seen.has(v.o);
  },
  "vector with each invocation once and its sender's own entry, naming each node once in a table its entries point into",
);

const Version = t.literal(wireVersion);

const Hint = exact("hint", { v: Version, t: t.literal("hint"), f: Guid });
const Refusal = exact("refused", {
  v: Version,
  t: t.literal("refused"),
  r: Count,
  f: Guid,
  y: t.refinement(t.string, (s) => s.length <= 4096, "reason of at most 4,096 characters"),
});
const Pull = exact("pull", {
  v: Version,
  t: t.literal("pull"),
  r: Count,
  f: Guid,
  w: t.union([Watermark, t.null]),
  u: Vector,
  m: t.refinement(Count, (n) => n >= 1, "objects per batch >= 1"),
});
const Batch = t.refinement(
  exact(
    "batch",
    {
      v: Version,
      t: t.literal("batch"),
      r: Count,
      f: Guid,
      i: Guid,
      c: Flag,
      d: t.array(Delta),
      h: Count,
      x: Flag,
      u: t.union([Vector, t.null]),
    },
    { p: Cursor },
  ),
  (b) => b.p === undefined || b.x === 1,
  "batch that ends inside an object (p) with more to come (x = 1)",
);

/** By message type, so that a failure is reported against the type the peer meant. */
const byType: Readonly<Record<string, t.Decoder<unknown, WireMessage>>> = {
  hint: Hint,
  pull: Pull,
  batch: Batch,
  refused: Refusal,
};

/** Decodes a peer's bytes; see the file comment for what is checked. */
export function decodePeerMessage(bytes: Uint8Array, maxBytes = maxPeerMessageBytes): PeerMessage {
  if (bytes.byteLength > maxBytes) {
    return refuse(`message of ${bytes.byteLength} bytes exceeds ${maxBytes}`);
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return refuse("not UTF-8");
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return refuse("not JSON");
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return refuse("not a JSON object");
  const head = json as { v?: unknown; t?: unknown };
  if (head.v !== wireVersion) {
    return refuse(`wire version ${JSON.stringify(head.v) ?? "missing"} (this node speaks ${wireVersion})`);
  }
  const codec = typeof head.t === "string" && Object.hasOwn(byType, head.t) ? byType[head.t] : undefined;
  if (codec === undefined) return refuse(`unknown message type ${JSON.stringify(head.t) ?? "missing"}`);
  const decoded = codec.decode(json);
  if (isLeft(decoded)) return refuse(reasonOf(decoded.left));
  return { ok: true, message: fromWire(decoded.right) };
}

/** The bytes of a message's text for a peer (the encoder is the core's; UTF-8 on the link). */
export function encodePeerMessage(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

function refuse(reason: string): PeerMessage {
  return { ok: false, reason };
}

/**
 * The failures as one line: where in the message (field names and tuple positions, union
 * members left out) and what was expected there. Only the deepest are told: a union such as
 * "placement or null" fails on both members, and the placement's inner failure is the news.
 */
function reasonOf(errors: t.Errors): string {
  const lines = new Set<string>();
  const deepest = Math.max(...errors.map((e) => e.context.length));
  const expected = (e: t.ValidationError) => e.context[e.context.length - 1]?.type.name;
  // "expected null" is only ever the other member of an optional part: news only alone.
  const told = errors.filter((e) => e.context.length === deepest);
  const news = told.some((e) => expected(e) !== "null") ? told.filter((e) => expected(e) !== "null") : told;
  for (const error of news) {
    const keys: string[] = [];
    for (let i = 1; i < error.context.length; i++) {
      if (error.context[i - 1]?.type instanceof t.UnionType) continue;
      keys.push(error.context[i]?.key ?? "?");
    }
    const what = error.message ?? `expected ${expected(error) ?? "another value"}, got ${JSON.stringify(error.value) ?? "nothing"}`;
    lines.add(`${keys.length === 0 ? "message" : keys.join(".")}: ${what}`);
    if (lines.size >= 2) break;
  }
  return `malformed message (${[...lines].join("; ")})`;
}
