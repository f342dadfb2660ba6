// Goal: the network delivers, loses, duplicates and blocks exactly as configured, including
// the in-flight rule for partitions. Method: drive Network directly with fixed seeds and
// count outcomes; the statistics must add up.
import { describe, expect, it } from "vitest";
import { Network } from "./network";
import { Prng } from "./prng";

const ids = ["c", "a", "b"];

describe("Network", () => {
  it("indexes nodes in sorted order and delivers with fixed latency", () => {
    const config = { latency: { kind: "fixed", ms: 7 }, lossP: 0, dupP: 0 } as const;
    const net = new Network(ids, new Prng(1), config);
    expect(net.ids).toEqual(["a", "b", "c"]);
    const delays: number[] = [0, 0];
    expect(net.send(0, 2, delays)).toBe(1);
    expect(delays[0]).toBe(7);
    expect(net.arrive(0, 2, true)).toBe(true);
    expect(net.stats).toMatchObject({ sent: 1, delivered: 1, dropped: 0 });
  });

  it("loses and duplicates at about the configured rates; stats add up", () => {
    const net = new Network(ids, new Prng(2), {
      latency: { kind: "lognormal", medianMs: 10, sigma: 1, minMs: 1, maxMs: 500 },
      lossP: 0.1,
      dupP: 0.2,
    });
    const delays: number[] = [0, 0];
    let copies = 0;
    for (let i = 0; i < 10_000; i++) {
      const n = net.send(0, 1, delays);
      for (let c = 0; c < n; c++) {
        expect(delays[c]).toBeGreaterThanOrEqual(1);
        expect(delays[c]).toBeLessThanOrEqual(500);
        net.arrive(0, 1, true);
      }
      copies += n;
    }
    const s = net.stats;
    expect(s.droppedLoss / s.sent).toBeGreaterThan(0.08);
    expect(s.droppedLoss / s.sent).toBeLessThan(0.12);
    expect(s.duplicated / (s.sent - s.droppedLoss)).toBeGreaterThan(0.17);
    expect(s.duplicated / (s.sent - s.droppedLoss)).toBeLessThan(0.23);
    expect(s.delivered).toBe(copies);
    expect(s.sent - s.droppedLoss + s.duplicated).toBe(copies);
  });

  it("partitions block across groups, unnamed nodes are isolated, cuts are one-way", () => {
    const net = new Network(ids, new Prng(3));
    net.partition([["a", "b"]]);
    expect(net.canReach("a", "b")).toBe(true);
    expect(net.canReach("a", "c")).toBe(false);
    expect(net.canReach("c", "b")).toBe(false);
    net.heal();
    net.cut("a", "b");
    expect(net.canReach("a", "b")).toBe(false);
    expect(net.canReach("b", "a")).toBe(true);
    net.partition([["a", "b", "c"]]);
    expect(net.canReach("a", "b")).toBe(false);
    net.heal();
    expect(net.canReach("a", "b")).toBe(true);
  });

  it("drops a message in flight when its link is cut before arrival, and when sent blocked", () => {
    const net = new Network(ids, new Prng(4));
    const delays: number[] = [0, 0];
    expect(net.send(0, 1, delays)).toBe(1);
    net.partition([["a"], ["b", "c"]]);
    expect(net.arrive(0, 1, true)).toBe(false);
    expect(net.send(0, 1, delays)).toBe(0);
    net.heal();
    expect(net.send(0, 1, delays)).toBe(1);
    expect(net.arrive(0, 1, false)).toBe(false);
    expect(net.stats).toMatchObject({ sent: 3, delivered: 0, dropped: 3 });
    expect(net.stats).toMatchObject({ droppedPartition: 2, droppedDown: 1 });
  });
});
