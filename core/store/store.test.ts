/**
 * Goal: the Store's indexes (children by parent, alive children by folded name,
 * back-references, usnChanged order, dirty/purged sets) always agree with the records they
 * index, whatever sequence of writes and purges built them; the UsnIndex enumerates changes in
 * USN order across lazy deletion and compaction.
 * Method: fast-check drives random puts and removes over small pools of ids, parents, names
 * and reference values (so collisions and re-parenting are common), and after every step
 * compares each index with a naive oracle computed by scanning all records.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fold } from "../naming";
import type { ObjectRecord, ValueAtom } from "./record";
import type { Stamp } from "./stamp";
import { Store } from "./store";
import { UsnIndex } from "./usn-index";

const ids = ["a", "b", "c", "d", "e", "f"];
const names = ["x", "X", "ß", "SS", "y"];
const isReference = (attr: string): boolean => attr === "member";

function makeRecord(spec: {
  id: string;
  parent: string | null;
  name: string;
  alive: boolean;
  refs: string[];
  usn: number;
}): ObjectRecord {
  const stamp: Stamp = {
    version: 1,
    atMs: 0,
    origin: "o",
    cert: { invocation: "o", usn: spec.usn },
    localUsn: spec.usn,
  };
  const atoms = new Map<string, ValueAtom>(
    spec.refs.map((r, i) => [
      r,
      { key: r, present: i % 3 !== 2, value: i % 3 !== 2 ? r : null, meta: null, stamp },
    ]),
  );
  return {
    id: spec.id,
    existence: {
      stage: spec.alive ? "alive" : "deleted",
      classId: "c",
      className: "organizationalUnit",
      system: false,
      deleteRoot: null,
      stamp,
    },
    placement: { parent: spec.parent, name: spec.name, stamp },
    attrs: new Map([
      ["member", atoms],
      ["description", new Map([["d", { key: "d", present: true, value: "a", meta: null, stamp }]])],
    ]),
    usnChanged: spec.usn,
    hardened: false,
  };
}

type Step =
  | { kind: "put"; id: string; parent: string | null; name: string; alive: boolean; refs: string[] }
  | { kind: "remove"; id: string };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("put" as const),
      id: fc.constantFrom(...ids),
      parent: fc.option(fc.constantFrom(...ids), { nil: null }),
      name: fc.constantFrom(...names),
      alive: fc.boolean(),
      refs: fc.uniqueArray(fc.constantFrom(...ids), { maxLength: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("remove" as const), id: fc.constantFrom(...ids) }),
  },
);

function checkAgainstOracle(store: Store, records: Map<string, ObjectRecord>): void {
  expect(store.size).toBe(records.size);
  for (const parent of ids) {
    const kids = [...records.values()]
      .filter((r) => r.placement.parent === parent)
      .map((r) => r.id);
    expect(store.childIds(parent).sort()).toEqual(kids.sort());
    expect(store.hasChildren(parent)).toBe(kids.length > 0);
    for (const name of names) {
      const alive = [...records.values()]
        .filter(
          (r) =>
            r.placement.parent === parent &&
            r.existence.stage === "alive" &&
            fold(r.placement.name) === fold(name),
        )
        .map((r) => r.id);
      expect(store.aliveNamed(parent, fold(name)).sort()).toEqual(alive.sort());
    }
    const refs: string[] = [];
    for (const r of records.values()) {
      for (const atom of r.attrs.get("member")?.values() ?? []) {
        if (atom.present && atom.value === parent) refs.push(`${r.id}:member`);
      }
    }
    expect(
      store
        .referencedBy(parent)
        .map((b) => `${b.source}:${b.attribute}`)
        .sort(),
    ).toEqual(refs.sort());
  }
  const byUsn = [...records.values()]
    .map((r) => ({ id: r.id, usn: r.usnChanged }))
    .sort((a, b) => a.usn - b.usn);
  expect(store.changedAfter(0, 1000)).toEqual(byUsn);
  const mid = byUsn[Math.floor(byUsn.length / 2)]?.usn ?? 0;
  expect(store.changedAfter(mid, 2)).toEqual(byUsn.filter((e) => e.usn > mid).slice(0, 2));
}

describe("Store indexes", () => {
  it("agree with a naive scan after every put and remove", () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 40 }), (steps) => {
        const store = new Store(isReference);
        const records = new Map<string, ObjectRecord>();
        let usn = 0;
        for (const step of steps) {
          if (step.kind === "put") {
            const r = makeRecord({ ...step, usn: ++usn });
            store.put(r);
            records.set(r.id, r);
          } else {
            store.remove(step.id);
            records.delete(step.id);
          }
          checkAgainstOracle(store, records);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("takeDirty reports written and purged ids once, and a purge cancels a pending write", () => {
    const store = new Store(isReference);
    store.put(makeRecord({ id: "a", parent: null, name: "x", alive: true, refs: [], usn: 1 }));
    store.put(makeRecord({ id: "b", parent: "a", name: "x", alive: true, refs: [], usn: 2 }));
    expect(store.takeDirty()).toEqual({ written: ["a", "b"], purged: [] });
    expect(store.takeDirty()).toEqual({ written: [], purged: [] });
    store.put(makeRecord({ id: "b", parent: "a", name: "y", alive: true, refs: [], usn: 3 }));
    store.remove("b");
    expect(store.takeDirty()).toEqual({ written: [], purged: ["b"] });
    store.remove("b");
    expect(store.takeDirty()).toEqual({ written: [], purged: [] });
  });

  it("refuses to take usnChanged backwards (an assertion: that would be a bug)", () => {
    const store = new Store(isReference);
    store.put(makeRecord({ id: "a", parent: null, name: "x", alive: true, refs: [], usn: 5 }));
    expect(() =>
      store.put(makeRecord({ id: "a", parent: null, name: "x", alive: true, refs: [], usn: 4 })),
    ).toThrow();
  });

  it("reindexReferences follows a changed set of reference attributes", () => {
    const store = new Store(() => false);
    store.put(makeRecord({ id: "a", parent: null, name: "x", alive: true, refs: ["b"], usn: 1 }));
    expect(store.referencedBy("b")).toEqual([]);
    store.reindexReferences(isReference);
    expect(store.referencedBy("b")).toEqual([{ source: "a", attribute: "member" }]);
  });

  it("load takes each id once, and only between beginLoad and endLoad", () => {
    const store = new Store(isReference);
    const a = makeRecord({ id: "a", parent: null, name: "x", alive: true, refs: [], usn: 1 });
    expect(() => store.load(a)).toThrow(/between beginLoad and endLoad/);
    store.beginLoad();
    store.load(a);
    expect(() => store.load({ ...a, usnChanged: 2 })).toThrow(/loaded twice/);
    store.endLoad();
    expect(() => store.load(a)).toThrow(/between beginLoad and endLoad/);
    expect(store.takeDirty()).toEqual({ written: [], purged: [] });
  });

  it("a load leaves back-references to reindexReferences, and refuses use before it", () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 30 }), (steps) => {
        const records = new Map<string, ObjectRecord>();
        let usn = 0;
        for (const step of steps) {
          if (step.kind === "put") records.set(step.id, makeRecord({ ...step, usn: ++usn }));
          else records.delete(step.id);
        }
        const store = new Store(isReference);
        store.beginLoad();
        for (const r of records.values()) store.load(r);
        store.endLoad();
        expect(() => store.referencedBy("a")).toThrow(/indexed after a load/);
        const late = makeRecord({ id: "z", parent: null, name: "z", alive: true, refs: [], usn: 99 });
        expect(() => store.put(late)).toThrow(/indexed before the first write/);
        store.reindexReferences(isReference);
        checkAgainstOracle(store, records);
      }),
      { numRuns: 100 },
    );
  });
});

describe("UsnIndex", () => {
  it("enumerates ids after a USN in order, matching a naive oracle, across compaction", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.boolean()), {
          minLength: 1,
          maxLength: 3000,
        }),
        fc.integer({ min: 0, max: 4000 }),
        fc.integer({ min: 1, max: 50 }),
        (ops, after, limit) => {
          const index = new UsnIndex();
          const current = new Map<string, number>();
          applyOps(index, current, ops, 0);
          const expected = [...current.entries()]
            .map(([id, u]) => ({ id, usn: u }))
            .sort((a, b) => a.usn - b.usn)
            .filter((e) => e.usn > after)
            .slice(0, limit);
          expect(index.after(after, limit)).toEqual(expected);
          expect(index.size).toBe(current.size);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("built at once from records in any order (boot), then written to, matches the oracle", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 5000 }), { maxLength: 300 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 400 }), fc.boolean()), { maxLength: 400 }),
        (bootUsns, ops) => {
          const current = new Map(bootUsns.map((u, i) => [`id${i}`, u]));
          const records = [...current].map(([id, usnChanged]) => ({ id, usnChanged }));
          const index = UsnIndex.of(records.length, records);
          applyOps(index, current, ops, 5000);
          const expected = [...current.entries()]
            .map(([id, u]) => ({ id, usn: u }))
            .sort((a, b) => a.usn - b.usn);
          expect(index.after(0, Number.MAX_SAFE_INTEGER)).toEqual(expected);
          expect(index.size).toBe(current.size);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("sorts a boot's index whatever the USNs' size (packed sort, heap sort past 2^53 / n)", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 2 ** 20 }), { minLength: 2, maxLength: 200 }),
        fc.boolean(),
        (offsets, huge) => {
          // Huge USNs cannot be packed with a position into one double: the heap sort runs.
          const base = huge ? Number.MAX_SAFE_INTEGER - 2 ** 21 : 0;
          const records = offsets.map((o, i) => ({ id: `id${i}`, usnChanged: base + o }));
          const index = UsnIndex.of(records.length, records);
          const expected = [...records].sort((a, b) => a.usnChanged - b.usnChanged).map((r) => ({ id: r.id, usn: r.usnChanged }));
          expect(index.after(0, Number.MAX_SAFE_INTEGER)).toEqual(expected);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("keeps a reader's note exactly while the entry it was noted at is unchanged", () => {
    // Each record version gets a distinct label. A walk notes the label it sees at each
    // position; the model remembers which versions were noted since they last changed, and
    // every walk must find exactly those notes (none about an older version after a rewrite
    // under the same USN, a supersession or a deletion; none lost to compaction).
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom("write", "write", "delete", "rewrite", "walk"), fc.integer({ min: 0, max: 40 })), {
          minLength: 100,
          maxLength: 3000,
          size: "max",
        }),
        (ops) => {
          const index = new UsnIndex();
          const usnOf = new Map<string, number>();
          const version = new Map<string, number>();
          const noted = new Map<string, string>();
          let usn = 0;
          const walk = (): void => {
            for (let at = index.positionAfter(0); at < index.length; at++) {
              const id = index.idAt(at);
              if (id === null) continue;
              expect(index.usnAt(at)).toBe(usnOf.get(id));
              expect(index.noteAt(at)).toBe(noted.get(id));
              const label = `${id}@${usnOf.get(id)}#${version.get(id)}`;
              index.setNoteAt(at, label);
              noted.set(id, label);
            }
          };
          for (const [kind, n] of ops) {
            const id = `id${n}`;
            const previous = usnOf.get(id) ?? null;
            if (kind === "walk") {
              walk();
              continue;
            }
            if (kind !== "write" && previous === null) continue;
            noted.delete(id);
            version.set(id, (version.get(id) ?? 0) + 1);
            if (kind === "delete" && previous !== null) {
              index.delete(previous);
              usnOf.delete(id);
            } else if (kind === "rewrite" && previous !== null) {
              index.set(id, previous, previous);
            } else {
              index.set(id, ++usn, previous);
              usnOf.set(id, usn);
            }
          }
          walk();
        },
      ),
      { numRuns: 100 },
    );
  });

  it("refuses a USN indexed twice", () => {
    const index = new UsnIndex();
    index.set("a", 3, null);
    expect(() => index.set("b", 3, null)).toThrow(/indexed twice/);
    const loaded = UsnIndex.of(2, [
      { id: "a", usnChanged: 9 },
      { id: "b", usnChanged: 9 },
    ]);
    expect(() => loaded.after(0, 10)).toThrow(/indexed twice/);
  });

  it("accepts out-of-order inserts (boot-time loading) and keeps order", () => {
    const index = new UsnIndex();
    for (const u of [5, 1, 9, 3]) index.set(`r${u}`, u, null);
    expect(index.after(0, 10).map((e) => e.usn)).toEqual([1, 3, 5, 9]);
    expect(index.after(3, 10).map((e) => e.id)).toEqual(["r5", "r9"]);
  });
});

/**
 * Applies (record number, delete?) ops to the index and to a plain id -> usn oracle, writing
 * with USNs above `usnBefore`; a delete of an absent record writes it instead.
 */
function applyOps(
  index: UsnIndex,
  current: Map<string, number>,
  ops: ReadonlyArray<readonly [number, boolean]>,
  usnBefore: number,
): void {
  let usn = usnBefore;
  for (const [n, del] of ops) {
    const id = `id${n}`;
    const previous = current.get(id) ?? null;
    if (del && previous !== null) {
      index.delete(previous);
      current.delete(id);
    } else {
      index.set(id, ++usn, previous);
      current.set(id, usn);
    }
  }
}
