// Goal: presets enable exactly their fault classes, swarm variation stays inside each
// preset's shape, random partitions are proper partitions, and each fault class's schedule is
// independent of which other classes are enabled. Method: direct checks of the pure functions
// plus fast-check over seeds and node counts.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { FaultTarget } from "./faults";
import { faultSources, maxWritesBeforeCut, presetFaults, presetNames, randomGroups, swarmFaults } from "./faults";
import type { FaultConfig } from "./faults";
import { Prng } from "./prng";

const classes = ["partitions", "crashes", "clocks", "rollbacks"] as const;

describe("presets", () => {
  it("enable exactly their classes", () => {
    const enabled = (name: (typeof presetNames)[number]): string[] =>
      classes.filter((c) => presetFaults(name)[c] !== null);
    expect(enabled("none")).toEqual([]);
    expect(enabled("lossy")).toEqual([]);
    expect(presetFaults("lossy").network.lossP).toBeGreaterThan(0);
    expect(enabled("partitions")).toEqual(["partitions"]);
    expect(enabled("crashes")).toEqual(["crashes"]);
    expect(enabled("skew")).toEqual(["clocks"]);
    expect(enabled("rollback")).toEqual(["rollbacks"]);
    expect(enabled("chaos")).toEqual([...classes]);
    for (const name of presetNames) {
      if (name !== "lossy" && name !== "chaos") expect(presetFaults(name).network.lossP).toBe(0);
    }
  });

  it("swarm keeps the enabled classes and the probability bounds", () => {
    fc.assert(
      fc.property(fc.constantFrom(...presetNames), fc.integer(), (name, seed) => {
        const base = presetFaults(name);
        const swarmed = swarmFaults(base, new Prng(seed));
        for (const c of classes) expect(swarmed[c] === null).toBe(base[c] === null);
        expect(swarmed.network.lossP).toBeLessThanOrEqual(base.network.lossP);
        expect(swarmed.network.dupP).toBeLessThanOrEqual(base.network.dupP);
        if (swarmed.crashes && base.crashes) {
          expect(swarmed.crashes.meanGapMs).toBeGreaterThanOrEqual(base.crashes.meanGapMs / 2);
          expect(swarmed.crashes.meanGapMs).toBeLessThanOrEqual(base.crashes.meanGapMs * 4);
        }
      }),
    );
  });
});

describe("randomGroups", () => {
  it("splits every node into exactly one of 2..n non-empty groups", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 9 }), fc.integer(), (n, seed) => {
        const ids = Array.from({ length: n }, (_, i) => `n${i}`);
        const groups = randomGroups(ids, new Prng(seed));
        expect(groups.length).toBeGreaterThanOrEqual(2);
        expect(groups.length).toBeLessThanOrEqual(n);
        for (const g of groups) expect(g.length).toBeGreaterThan(0);
        expect(groups.flat().sort()).toEqual([...ids].sort());
      }),
    );
  });
});

describe("fault sources", () => {
  /** A target that only records what it was asked to do. */
  function recorder(ids: string[]): { target: FaultTarget; log: string[] } {
    const log: string[] = [];
    const down = new Set<string>();
    const armed = new Set<string>();
    const target: FaultTarget = {
      nodeIds: ids,
      isUp: (id) => !down.has(id),
      downCount: () => down.size + armed.size,
      powerCutArmed: (id) => armed.has(id),
      armPowerCut: (id, o) => {
        armed.add(id);
        log.push(`arm ${id} ${o.afterWrites} ${o.downMs} ${o.tornTail}${o.keepUnsynced ? " kept" : ""}`);
      },
      partition: (groups) => log.push(`partition ${JSON.stringify(groups)}`),
      cut: (from, to) => log.push(`cut ${from} ${to}`),
      healNetwork: () => log.push("heal"),
      crash: (id, o) => log.push(`crash ${id} ${o.downMs} ${o.tornTail}`),
      jumpClock: (id, delta) => log.push(`jump ${id} ${delta}`),
      takeImage: (id, key) => log.push(`image ${id} ${key}`),
      rollback: (id, key, downMs) => log.push(`rollback ${id} ${key} ${downMs}`),
    };
    return { target, log };
  }

  function schedule(
    name: (typeof presetNames)[number],
    only: string,
    config: FaultConfig = presetFaults(name),
  ): string[] {
    const { target, log } = recorder(["a", "b", "c"]);
    const source = faultSources(config, new Prng(9).fork("faults")).find((s) => s.name === only);
    expect(source).toBeDefined();
    let t = source?.firstDelayMs() ?? 0;
    for (let i = 0; i < 20; i++) {
      log.push(`@${t}`);
      t += source?.fire(target) ?? 0;
    }
    return log;
  }

  it("a class's schedule does not depend on which other classes are enabled", () => {
    expect(schedule("chaos", "crashes")).toEqual(schedule("crashes", "crashes"));
    expect(schedule("chaos", "partitions")).toEqual(schedule("partitions", "partitions"));
    expect(schedule("chaos", "rollbacks")).toEqual(schedule("rollback", "rollbacks"));
  });

  it("partitions alternate with heals; rollbacks image before they restore", () => {
    const firings = (log: string[]): string[][] => {
      const out: string[][] = [];
      for (const line of log) {
        if (line.startsWith("@")) out.push([]);
        else out.at(-1)?.push(line);
      }
      return out;
    };
    firings(schedule("partitions", "partitions")).forEach((acts, i) => {
      if (i % 2 === 1) expect(acts).toEqual(["heal"]);
      else expect(acts.every((a) => a.startsWith("cut") || a.startsWith("partition"))).toBe(true);
    });
    firings(schedule("rollback", "rollbacks")).forEach((acts, i) => {
      expect(acts.length).toBe(1);
      expect(acts[0]?.split(" ")[0]).toBe(i % 2 === 0 ? "image" : "rollback");
    });
  });

  it("crashes inside writes: armed instead of crashed at the same firings, from their own stream", () => {
    const crashes = presetFaults("crashes").crashes;
    expect(crashes?.inWriteP).toBe(0.5);
    const withP = (inWriteP: number): FaultConfig => ({
      ...presetFaults("crashes"),
      crashes: crashes && { ...crashes, inWriteP, maxDownNodes: 3 },
    });
    const plain = schedule("crashes", "crashes", withP(0));
    const always = schedule("crashes", "crashes", withP(1));
    const some = schedule("crashes", "crashes", withP(0.5));
    // Same firing times, victims (while none is armed), down times and torn choices.
    expect(always.filter((l) => l.startsWith("@"))).toEqual(plain.filter((l) => l.startsWith("@")));
    const firstAct = (log: string[]): string | undefined => log.find((l) => !l.startsWith("@"));
    expect(firstAct(always)?.replace(/^arm (\w+) \d+ /u, "crash $1 ")).toEqual(firstAct(plain));
    expect(plain.some((l) => l.startsWith("arm"))).toBe(false);
    expect(always.some((l) => l.startsWith("crash"))).toBe(false);
    // An armed node counts against maxDownNodes and is never armed twice.
    const armedIds = always.filter((l) => l.startsWith("arm")).map((l) => l.split(" ")[1]);
    expect(new Set(armedIds).size).toBe(armedIds.length);
    expect(armedIds.length).toBeLessThanOrEqual(2);
    for (const l of always.filter((x) => x.startsWith("arm"))) {
      const after = Number(l.split(" ")[2]);
      expect(after).toBeGreaterThanOrEqual(1);
      expect(after).toBeLessThanOrEqual(maxWritesBeforeCut);
    }
    // At 0.5 the first two firings armed both allowed nodes: the budget then holds until they
    // strike (the world's job; this recorder never strikes), so no crash follows.
    expect(some.filter((l) => !l.startsWith("@")).map((l) => l.split(" ")[0])).toEqual(["arm", "arm"]);
  });

  it("kept cuts: only torn ones keep the whole write, from their own stream", () => {
    const crashes = presetFaults("crashes").crashes;
    const withKept = (keptP: number): FaultConfig => ({
      ...presetFaults("crashes"),
      crashes: crashes && { ...crashes, inWriteP: 1, maxDownNodes: 200, keptP },
    });
    const { target, log } = recorder(Array.from({ length: 200 }, (_, i) => `n${i}`));
    const source = faultSources(withKept(1), new Prng(9).fork("faults")).find((s) => s.name === "crashes");
    for (let i = 0; i < 60; i++) source?.fire(target);
    const arms = log.filter((l) => l.startsWith("arm"));
    expect(arms.length).toBe(60);
    // keptP 1: every torn cut keeps the write, and a cut that loses its unsynced bytes keeps none.
    for (const l of arms) expect(l.endsWith(" true kept") || l.endsWith(" false")).toBe(true);
    expect(arms.some((l) => l.endsWith(" kept"))).toBe(true);
    // keptP 0 draws nothing more: the schedule is the one of the presets (same cuts, none kept).
    const { target: t0, log: log0 } = recorder(Array.from({ length: 200 }, (_, i) => `n${i}`));
    const plain = faultSources(withKept(0), new Prng(9).fork("faults")).find((s) => s.name === "crashes");
    for (let i = 0; i < 60; i++) plain?.fire(t0);
    expect(log0).toEqual(arms.map((l) => l.replace(/ kept$/u, "")));
  });
});
