/**
 * io-ts codecs for every request body, decoded at the boundary. They check the envelope only:
 * the body is an object with exactly the documented fields, and lists are lists. Leaf values
 * (names, class names, attribute values, meta) stay `unknown` and go to the core, because the
 * core owns their rules and has SPEC codes for them (invalid-name, unknown-class,
 * syntax-violation, illegal-meta-key). An envelope failure is `400 bad-request`, a
 * transport-level code outside SPEC's table.
 */
import * as t from "io-ts";
import { isLeft } from "fp-ts/lib/Either";

/** A field that must be present; its content is judged by the core. */
const Present = new t.Type<unknown>(
  "present",
  (u): u is unknown => u !== undefined,
  (u, c) => (u === undefined ? t.failure(u, c, "is required") : t.success(u)),
  t.identity,
);

/** Types whose children in a decode context are internal members, not body positions. */
const wrappers = new WeakSet<object>();

/**
 * An object with the given required and optional fields and no others: a misspelled field
 * (say `klass`) must not be silently ignored by a write.
 */
function closed<R extends t.Props, O extends t.Props>(name: string, required: R, optional: O) {
  const base = t.intersection([t.type(required), t.partial(optional)]);
  const allowed = new Set([...Object.keys(required), ...Object.keys(optional)]);
  const codec = new t.Type<t.TypeOf<typeof base>, t.OutputOf<typeof base>, unknown>(
    name,
    base.is,
    (u, c) => {
      if (typeof u !== "object" || u === null || Array.isArray(u)) {
        return t.failure(u, c, "must be a JSON object");
      }
      const decoded = base.validate(u, c);
      if (isLeft(decoded)) return decoded;
      const unknown = Object.keys(u).filter((k) => !allowed.has(k));
      if (unknown.length > 0) return t.failure(u, c, `has unknown field(s): ${unknown.join(", ")}`);
      return t.success(decoded.right);
    },
    base.encode,
  );
  wrappers.add(codec);
  return codec;
}

/** `{value, meta?}`: the object form of a value entry (DESIGN: strings or `{value, meta}`). */
const ValueObject = closed("value entry", { value: Present }, { meta: t.unknown });

/** A value entry: a bare scalar (judged by the core's syntax) or `{value, meta?}`. */
export const ValueEntry = t.union([t.string, t.number, t.boolean, t.null, ValueObject]);

export const ValueList = t.array(ValueEntry);

/** POST /api/objects/{id}/children */
export const CreateBody = closed(
  "create body",
  { name: Present, class: Present },
  { attributes: t.record(t.string, ValueList) },
);
export type CreateBody = t.TypeOf<typeof CreateBody>;

/** PATCH /api/objects/{id} */
export const MoveBody = closed("move body", {}, { name: Present, parent: Present });
export type MoveBody = t.TypeOf<typeof MoveBody>;

/** PUT /api/objects/{id}/attributes/{name} */
export const PutAttributeBody = closed("attribute body", { values: ValueList }, {});
export type PutAttributeBody = t.TypeOf<typeof PutAttributeBody>;

/** POST /api/msgs/send */
export const SendBody = closed("send body", { to: t.string, text: t.string }, {});
export type SendBody = t.TypeOf<typeof SendBody>;

/**
 * The failures as one human line: where in the body, and what was wrong. Keys that only
 * index a union or intersection member are noise to a client and are left out; a union that
 * failed is reported once, at its own position.
 */
export function describeErrors(errors: t.Errors): string {
  const lines = new Set<string>();
  for (const error of errors) {
    const keys: string[] = [];
    let expected = error.context[0]?.type.name ?? "a different value";
    let inUnion = false;
    for (let i = 1; i < error.context.length; i++) {
      const parent = error.context[i - 1]?.type;
      const entry = error.context[i];
      if (entry === undefined) continue;
      if (parent instanceof t.UnionType) {
        inUnion = true;
        break;
      }
      expected = entry.type.name;
      const internal = parent instanceof t.IntersectionType || wrappers.has(parent ?? {});
      if (!internal) keys.push(entry.key);
    }
    const where = keys.length === 0 ? "body" : keys.join(".");
    const what = inUnion ? undefined : error.message;
    lines.add(`${where}: ${what ?? `expected ${expected}`}`);
    if (lines.size >= 3) break;
  }
  return [...lines].join("; ");
}
