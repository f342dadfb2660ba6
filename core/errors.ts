/**
 * The one error table. It mirrors SPEC.md's "Errors" table row for row, in the same order;
 * core/errors.test.ts parses SPEC.md and fails on any drift. A refusal is a value, never a
 * throw: core functions return `Result<T>`; bugs are failed assertions (see assert.ts).
 */
export const errorStatus = {
  "bad-object-id": 400,
  "no-such-object": 404,
  "no-root": 503,
  "name-in-use": 409,
  "invalid-name": 422,
  "unknown-class": 422,
  "class-not-instantiable": 422,
  "unknown-attribute": 422,
  "attribute-not-permitted": 422,
  "single-valued": 422,
  "syntax-violation": 422,
  "illegal-meta-key": 422,
  "duplicate-value": 409,
  "unknown-facet": 422,
  "facet-has-values": 409,
  "already-deleted": 409,
  "ghost-object": 409,
  "rollback-quarantine": 409,
  "not-restorable": 409,
  "root-is-protected": 409,
  "system-object-protected": 409,
  "invalid-schema-placement": 422,
  "schema-definition-immutable": 409,
  "definition-in-use": 409,
  "schema-violation": 422,
  "would-create-cycle": 409,
  "unknown-recipient": 422,
  "bad-text": 422,
  "no-fabric": 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export type Refusal = { readonly ok: false; readonly code: ErrorCode; readonly message: string };
export type Ok<T> = { readonly ok: true; readonly value: T };
export type Result<T> = Ok<T> | Refusal;

export function ok<T>(value: T): Ok<T> {
  return { ok: true, value };
}

export function refuse(code: ErrorCode, message: string): Refusal {
  return { ok: false, code, message };
}

export function isErrorCode(x: string): x is ErrorCode {
  return Object.prototype.hasOwnProperty.call(errorStatus, x);
}
