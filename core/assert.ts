/**
 * Assertions are always on. A failed assertion is a bug: it crashes the node in production and
 * fails the seed in the simulator. Spec refusals are never assertions (see errors.ts).
 */
export class AssertionError extends Error {
  override readonly name = "AssertionError";
}

export function assert(condition: unknown, message = "assertion failed"): asserts condition {
  if (!condition) throw new AssertionError(message);
}

export function assertNever(x: never, what = "value"): never {
  throw new AssertionError(`unexpected ${what}: ${JSON.stringify(x)}`);
}
