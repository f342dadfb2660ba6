// Goal: the queue pops in (time, insertion order) for any push sequence. Method: compare
// against a naive oracle (a stable sort) on random push/pop interleavings with fast-check.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EventQueue } from "./event-queue";

describe("EventQueue", () => {
  it("pops ties in insertion order", () => {
    const q = new EventQueue<string>();
    q.push(5, "a");
    q.push(1, "b");
    q.push(5, "c");
    q.push(1, "d");
    const out: string[] = [];
    while (q.size > 0) out.push(q.pop() as string);
    expect(out).toEqual(["b", "d", "a", "c"]);
    expect(q.pop()).toBeUndefined();
    expect(q.peekTimeMs()).toBeNull();
  });

  it("matches a stable-sort oracle under interleaved pushes and pops", () => {
    const op = fc.oneof(fc.integer({ min: 0, max: 20 }), fc.constant(-1));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const q = new EventQueue<number>();
        const model: { t: number; id: number }[] = [];
        let id = 0;
        for (const o of ops) {
          if (o >= 0) {
            q.push(o, id);
            model.push({ t: o, id: id++ });
            continue;
          }
          model.sort((a, b) => a.t - b.t || a.id - b.id);
          const expected = model.shift();
          expect(q.peekTimeMs()).toBe(expected?.t ?? null);
          expect(q.pop()).toBe(expected?.id);
        }
        expect(q.size).toBe(model.length);
      }),
    );
  });
});
