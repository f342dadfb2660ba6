/**
 * fast-check generators of replication messages as senders make them (every field of every
 * message type; deltas with lives, meta, absent atoms and missing parts; vectors whose stored
 * entries carry fields of their own). Shared by the wire form's tests in core and adapters.
 */
import fc from "fast-check";
import type { ObjectDelta } from "../../core/merge/object-delta";
import type { AtomCursor, PullBatch, PullRequest, ReplicationMessage, TravellingVector } from "../../core/repl/messages";
import type { Existence, Placement, ValueAtom } from "../../core/store/record";
import type { Stamp } from "../../core/store/stamp";

export const guidArb = fc.uuid({ version: 4 });
export const usnArb = fc.nat({ max: 2 ** 40 });

/**
 * Stamps over a few named invocations and small USNs, for dampening and filtering tests: equal
 * stamps, shared certificates and ties on localUsn come up often.
 */
export function smallStampArb(invocations: readonly string[]): fc.Arbitrary<Stamp> {
  return fc
    .record({
      inv: fc.integer({ min: 0, max: invocations.length - 1 }),
      certUsn: fc.integer({ min: 1, max: 6 }),
      localUsn: fc.integer({ min: 1, max: 8 }),
    })
    .map(({ inv, certUsn, localUsn }) => ({
      version: 1,
      atMs: 0,
      origin: invocations[inv]!,
      cert: { invocation: invocations[inv]!, usn: certUsn },
      localUsn,
    }));
}

export const stampArb: fc.Arbitrary<Stamp> = fc
  .record({
    version: fc.integer({ min: 1, max: 9 }),
    atMs: fc.nat({ max: 2 ** 45 }),
    origin: guidArb,
    certInvocation: guidArb,
    sameInvocation: fc.boolean(),
    certUsn: usnArb,
    localUsn: usnArb,
  })
  .map((r) => ({
    version: r.version,
    atMs: r.atMs,
    origin: r.origin,
    cert: { invocation: r.sameInvocation ? r.origin : r.certInvocation, usn: r.certUsn },
    localUsn: r.localUsn,
  }));

export const metaArb = fc.option(
  fc.dictionary(fc.constantFrom("role", "since", "note"), fc.array(fc.string(), { maxLength: 2 }), { maxKeys: 2 }),
  { nil: null },
);

export const atomArb: fc.Arbitrary<ValueAtom> = fc
  .record({
    key: fc.option(fc.string({ maxLength: 8 }), { nil: null }),
    present: fc.boolean(),
    value: fc.string({ maxLength: 12 }),
    meta: metaArb,
    stamp: stampArb,
    life: fc.option(fc.integer({ min: 2, max: 7 }), { nil: null }),
  })
  .map((r) => ({
    key: r.key,
    present: r.present,
    value: r.present ? r.value : null,
    meta: r.present ? r.meta : null,
    stamp: r.stamp,
    ...(r.life === null ? {} : { life: r.life }),
  }));

export const existenceArb: fc.Arbitrary<Existence> = fc.record({
  stage: fc.constantFrom("alive", "deleted", "shredded"),
  classId: guidArb,
  className: fc.constantFrom("user", "group", "organizationalUnit"),
  system: fc.boolean(),
  deleteRoot: fc.option(guidArb, { nil: null }),
  stamp: stampArb,
});

export const placementArb: fc.Arbitrary<Placement> = fc.record({
  parent: fc.option(guidArb, { nil: null }),
  name: fc.string({ maxLength: 20 }),
  stamp: stampArb,
});

export const deltaArb: fc.Arbitrary<ObjectDelta> = fc.record({
  id: guidArb,
  existence: fc.option(existenceArb, { nil: null }),
  placement: fc.option(placementArb, { nil: null }),
  attrs: fc.uniqueArray(
    fc.tuple(fc.constantFrom("description", "member", "mail", "cn"), fc.array(atomArb, { maxLength: 3 })),
    { selector: ([name]) => name, maxLength: 3 },
  ),
});

/** A vector as senders make them: stored entries (extra fields of their own) and the own one. */
export const vectorArb: fc.Arbitrary<TravellingVector> = fc
  .record({
    stored: fc.uniqueArray(fc.tuple(guidArb, usnArb, guidArb, fc.nat(), fc.nat({ max: 50 })), {
      selector: ([inv]) => inv,
      maxLength: 6,
    }),
    own: fc.tuple(guidArb, usnArb, guidArb, fc.nat({ max: 50 })),
    ownStored: fc.boolean(),
    ownStoredUsn: usnArb,
  })
  .map(({ stored, own, ownStored, ownStoredUsn }) => {
    const entries: Record<string, { usn: number; node: string; epoch: number; syncedAtMs: number }> = {};
    for (const [inv, usn, node, syncedAtMs, epoch] of stored) entries[inv] = { usn, node, epoch, syncedAtMs };
    // The stored vector may hold an older entry of the sender's own invocation.
    if (ownStored) entries[own[0]] = { usn: ownStoredUsn, node: own[2], epoch: own[3], syncedAtMs: 0 };
    return { entries, own: [own[0], { usn: own[1], node: own[2], epoch: own[3] }] as const };
  });

/** Where a batch stopped inside an object: the attribute and key prefix its next part begins at. */
export const cursorArb: fc.Arbitrary<AtomCursor> = fc.record({
  usn: usnArb,
  next: fc.tuple(fc.string(), fc.string()),
});

export const pullArb: fc.Arbitrary<PullRequest> = fc.record({
  type: fc.constant("pull" as const),
  requestId: fc.nat(),
  from: guidArb,
  watermark: fc.option(
    fc.record({ invocation: guidArb, usn: usnArb, propUsn: usnArb, within: cursorArb }, { requiredKeys: ["invocation", "usn", "propUsn"] }),
    { nil: null },
  ),
  utd: vectorArb,
  objectsMax: fc.integer({ min: 1, max: 1000 }),
});

export const batchArb: fc.Arbitrary<PullBatch> = fc.record(
  {
    type: fc.constant("batch" as const),
    requestId: fc.nat(),
    from: guidArb,
    invocation: guidArb,
    continued: fc.boolean(),
    deltas: fc.array(deltaArb, { maxLength: 4 }),
    highUsn: usnArb,
    more: fc.boolean(),
    utd: fc.option(vectorArb, { nil: null }),
    within: cursorArb,
  },
  { requiredKeys: ["type", "requestId", "from", "invocation", "continued", "deltas", "highUsn", "more", "utd"] },
).map((b) => {
  // A batch ends inside an object only with more to come (as enumerate-changes.ts makes them).
  if (b.more || b.within === undefined) return b;
  const { within: _, ...rest } = b;
  return rest;
});

export const messageArb: fc.Arbitrary<ReplicationMessage> = fc.oneof(
  pullArb,
  batchArb,
  fc.record({ type: fc.constant("hint" as const), from: guidArb }),
  fc.record({
    type: fc.constant("refused" as const),
    requestId: fc.nat(),
    from: guidArb,
    reason: fc.string({ unit: "grapheme", maxLength: 200 }),
  }),
);

