import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ReplicationState, UtdEntry } from "../repl/replication-state";
import { mergeVectors } from "../repl/vectors";
import { travellingFrom } from "../testing/travelling-vector";
import { keys, PersistedReplication } from "./persistence";

/** The plain definition: every entry not identical to the last written one, in key order. */
function reference(
  before: ReplicationState["utd"] | null,
  utd: ReplicationState["utd"],
): { puts: Array<[string, string]>; dels: string[] } {
  const puts: Array<[string, string]> = [];
  const dels: string[] = [];
  if (before === utd) return { puts, dels };
  const old = before ?? {};
  for (const [invocation, entry] of Object.entries(utd)) {
    if (old[invocation] !== entry) puts.push([keys.utdEntry(invocation), JSON.stringify(entry)]);
  }
  for (const invocation of Object.keys(old)) {
    if (utd[invocation] === undefined) dels.push(keys.utdEntry(invocation));
  }
  if (before === null) dels.push(keys.utd);
  return { puts, dels };
}

/** One step of a vector's life: advance, add, drop or re-insert entries, or keep the vector. */
const step = fc.oneof(
  fc.record({ kind: fc.constant("advance" as const), at: fc.nat(), usn: fc.nat(1000) }),
  fc.record({ kind: fc.constant("add" as const), invocation: fc.integer({ min: 0, max: 30 }) }),
  fc.record({ kind: fc.constant("drop" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("reinsert" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("same" as const) }),
);

function entry(usn: number): UtdEntry {
  return { usn, node: "node-a", epoch: usn, syncedAtMs: usn * 10 };
}

describe("PersistedReplication.putChanged", () => {
  it("writes exactly the entries the plain definition writes, in its order", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const persisted = new PersistedReplication();
        let written: ReplicationState["utd"] | null = null;
        let utd: Record<string, UtdEntry> = {};
        const watermarks = {};
        const retired: ReplicationState["retired"] = [];
        for (const s of [{ kind: "same" as const }, ...steps]) {
          const names = Object.keys(utd);
          if (s.kind === "advance" && names.length > 0) {
            utd = { ...utd, [names[s.at % names.length]!]: entry(s.usn) };
          } else if (s.kind === "add") {
            utd = { ...utd, [`inv-${s.invocation}`]: entry(0) };
          } else if (s.kind === "drop" && names.length > 0) {
            const { [names[s.at % names.length]!]: _gone, ...rest } = utd;
            utd = rest;
          } else if (s.kind === "reinsert" && names.length > 0) {
            // Same entries, another key order: the order of the puts follows the new one.
            const name = names[s.at % names.length]!;
            const { [name]: moved, ...rest } = utd;
            utd = { ...rest, [name]: moved! };
          }
          const puts: Array<[string, string]> = [];
          const dels: string[] = [];
          persisted.putChanged({ utd, watermarks, retired }, puts, dels);
          const expected = reference(written, utd);
          const utdPuts = puts.filter(([k]) => k.startsWith("meta/utd/"));
          expect(utdPuts).toEqual(expected.puts);
          expect(dels).toEqual(expected.dels);
          written = utd;
        }
      }),
    );
  });

  it("notices an entry replaced by another while the count stays the same", () => {
    const persisted = new PersistedReplication();
    const puts: Array<[string, string]> = [];
    const dels: string[] = [];
    const empty = { watermarks: {}, retired: [] };
    persisted.putChanged({ utd: { a: entry(1), b: entry(2) }, ...empty }, puts, dels);
    puts.length = 0;
    dels.length = 0;
    persisted.putChanged({ utd: { a: entry(1), c: entry(3) }, ...empty }, puts, dels);
    expect(puts.map(([k]) => k)).toEqual(["meta/utd/a", "meta/utd/c"]);
    expect(dels).toEqual(["meta/utd/b"]);
  });
});

describe("PersistedReplication.putChanged after mergeVectors", () => {
  it("writes the merged entries alone, and the replayed keys hold the vector in its key order", () => {
    // A node's stored vector advances by mergeVectors on each completed pull (then only the
    // entries it replaced or added are written, in invocation order), and sometimes otherwise
    // (a re-mint adds an entry by spreading; several merges between two writes): the map the
    // batches replay into must always hold exactly the vector, keys in the vector's order.
    const mergeStep = fc.record({
      kind: fc.constantFrom("merge", "merge", "merge", "remint", "unwritten-merge"),
      entries: fc.array(fc.tuple(fc.integer({ min: 0, max: 12 }), fc.nat(50)), { maxLength: 5 }),
    });
    fc.assert(
      fc.property(fc.array(mergeStep, { maxLength: 40 }), (steps) => {
        const persisted = new PersistedReplication();
        const replayed = new Map<string, string>();
        let written: ReplicationState["utd"] | null = null;
        let utd: ReplicationState["utd"] = {};
        let t = 0;
        const write = (): void => {
          const puts: Array<[string, string]> = [];
          const dels: string[] = [];
          persisted.putChanged({ utd, watermarks: {}, retired: [] }, puts, dels);
          const utdPuts = puts.filter(([k]) => k.startsWith("meta/utd/"));
          const expected = reference(written, utd);
          // The same puts as the plain definition (their order may differ), the same deletes.
          expect([...utdPuts].sort()).toEqual([...expected.puts].sort());
          expect(dels).toEqual(expected.dels);
          for (const [k, v] of utdPuts) replayed.set(k, v);
          for (const k of dels) replayed.delete(k);
          written = utd;
          expect([...replayed]).toEqual(Object.keys(utd).map((inv) => [keys.utdEntry(inv), JSON.stringify(utd[inv])]));
        };
        write();
        for (const s of steps) {
          t += 1;
          if (s.kind === "remint") utd = { ...utd, [`own-${t}`]: { usn: t, node: "self", epoch: t, syncedAtMs: t } };
          else {
            const theirs: Record<string, { usn: number; node: string; epoch: number }> = {};
            for (const [i, usn] of s.entries) theirs[`inv-${i}`] = { usn, node: `node-${i % 3}`, epoch: i };
            utd = mergeVectors(utd, travellingFrom(theirs), "own-0", t);
          }
          if (s.kind !== "unwritten-merge") write();
        }
        write();
      }),
    );
  });
});
