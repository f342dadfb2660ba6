/**
 * Goal: scenario files are data with one meaning: every file in scenarios/ parses, prints
 * canonically and reads back to the same scenario; mistakes are refused with the line that
 * holds them; swarm scenarios print to files that read back to the same configuration.
 * Method: round trips over the real files and the first swarm seeds (line numbers aside),
 * and small hand-written snippets for the tokenizer, durations and each refusal.
 */
import { describe, expect, it } from "vitest";
import { loadScenario, scenarioFiles } from "./battery";
import { parseScenario } from "./parse-scenario";
import { parseDuration } from "./parse-values";
import { printScenario } from "./print-scenario";
import type { Scenario } from "./scenario";
import { formatDuration } from "./scenario";
import { swarmScenario } from "./swarm";
import { tokenizeLine } from "./tokenize";
import { diameterAmong } from "./topology";
import { defaultTiming } from "../directory/directory-host";

/** A scenario without source line numbers, for comparing a file with its printed form. */
function shape(s: Scenario): unknown {
  return {
    ...s,
    steps: s.steps.map((st) => ({ ...st, line: 0 })),
    expects: s.expects.map((e) => ({ ...e, line: 0 })),
    faultLines: [],
  };
}

const header = "scenario t\nchecks DESIGN x\nnodes 3\nsafety 20s\n";

describe("scenario files", () => {
  const files = [...scenarioFiles("scenarios"), ...scenarioFiles("scenarios/regressions")];

  it("finds the scenario files", () => {
    expect(files.length).toBeGreaterThanOrEqual(13);
  });

  for (const file of files) {
    it(`${file} prints canonically and reads back the same`, () => {
      const s = loadScenario(file);
      const printed = printScenario(s);
      const again = parseScenario(printed);
      expect(shape(again)).toEqual(shape(s));
      expect(printScenario(again)).toBe(printed);
    });
  }

  it("swarm scenarios print to files that read back to the same knobs", () => {
    let ageing = 0;
    let horizons = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const s = swarmScenario(seed);
      const again = parseScenario(printScenario(s));
      expect(again.faults).toEqual(s.faults);
      // Steps built in code carry line 0; read back, each carries its line in the file.
      const unlined = (x: typeof s) => x.steps.map((step) => ({ ...step, line: 0 }));
      expect(unlined(again)).toEqual(unlined(s));
      expect({ ...again, faults: null, faultLines: [], steps: [] }).toEqual({
        ...s,
        faults: null,
        faultLines: [],
        steps: [],
      });
      const configSteps = s.steps.filter((step) => step.action.kind !== "disk-error");
      if (s.gcEveryMs !== null) {
        ageing++;
        expect(s.gcEveryMs).toBeGreaterThanOrEqual(1000);
        expect(s.gcEveryMs).toBeLessThanOrEqual(10_000);
        // n1 sets the restore window at 0 s, and on some seeds the purge horizon: only with
        // clocks true or mild (see swarmAgeing, swarmMildClocks).
        const configs = configSteps.map((step) => {
          expect(step.atMs).toBe(0);
          expect(step.action.kind === "op" && step.action.node).toBe("n1");
          const op = step.action.kind === "op" ? step.action.op : null;
          return op?.verb === "config" ? [op.attribute, op.seconds] : null;
        });
        expect(configs[0]?.[0]).toBe("timeUntilShred");
        expect([10, 20, 30, 40, 50, 60]).toContain(configs[0]?.[1]);
        if (configs.length === 2) {
          horizons++;
          expect(configs[1]?.[0]).toBe("maxTimeApart");
          expect(configs[1]?.[1]).toBeGreaterThanOrEqual(90);
          expect(configs[1]?.[1]).toBeLessThanOrEqual(150);
          expect(s.faults.clocks?.maxOffsetMs ?? 0).toBeLessThanOrEqual(5000);
          expect(s.faults.clocks?.maxJumpMs ?? 0).toBeLessThanOrEqual(3000);
        } else {
          expect(configs).toHaveLength(1);
        }
      } else {
        expect(configSteps).toEqual([]);
      }
    }
    // About half the seeds age tombstones (GC on, a short restore window), the rest never do;
    // about half pull in small batches.
    expect(ageing).toBeGreaterThanOrEqual(8);
    expect(ageing).toBeLessThanOrEqual(22);
    expect(horizons).toBeGreaterThan(0);
    const small = [...Array(30).keys()].map((i) => swarmScenario(i + 1).timing);
    const batches = small.flatMap((t) => (t.objectsPerBatch === undefined ? [] : [t.objectsPerBatch]));
    expect(batches.length).toBeGreaterThanOrEqual(8);
    expect(batches.length).toBeLessThanOrEqual(22);
    for (const n of batches) expect([1, 2, 3, 5, 10, 20]).toContain(n);
    // About half the seeds with crashes crash some nodes inside their disk writes; the knob
    // reads back from the printed file (`crashes ... inwrite=P`).
    const withCrashes = [...Array(60).keys()].map((i) => swarmScenario(i + 1)).filter((x) => x.faults.crashes !== null);
    const inWrite = withCrashes.map((x) => x.faults.crashes?.inWriteP ?? 0).filter((p) => p > 0);
    expect(inWrite.length).toBeGreaterThanOrEqual(withCrashes.length / 4);
    expect(inWrite.length).toBeLessThanOrEqual((withCrashes.length * 3) / 4);
    for (const p of inWrite) expect([0.1, 0.25, 0.5, 1]).toContain(p);
    // About half the seeds aim a share of ops at a few objects, printed as `contention ...`.
    const contended = [...Array(60).keys()].map((i) => swarmScenario(i + 1)).filter((x) => x.contention !== null);
    expect(contended.length).toBeGreaterThanOrEqual(15);
    expect(contended.length).toBeLessThanOrEqual(45);
    for (const x of contended) {
      expect(printScenario(x)).toMatch(/^contention share=(0\.2|0\.5|0\.9) objects=(2|5|20)$/mu);
      expect(parseScenario(printScenario(x)).contention).toEqual(x.contention);
    }
    // About a third of the seeds live the schema: schema-life kinds in their mix, read back.
    const living = [...Array(60).keys()]
      .map((i) => swarmScenario(i + 1))
      // The fork sets every schema-life kind (0 included); typed values set only facet and attach.
      .filter((x) => x.mix?.instance !== undefined);
    expect(living.length).toBeGreaterThanOrEqual(10);
    expect(living.length).toBeLessThanOrEqual(30);
    for (const x of living) {
      expect(printScenario(x)).toMatch(/^mix .*\binstance=\d+\b/mu);
      expect(parseScenario(printScenario(x)).mix).toEqual(x.mix);
    }
    // About a quarter of the seeds write typed values, with facets and attaches to reach surfaces.
    const typed = [...Array(80).keys()].map((i) => swarmScenario(i + 1)).filter((x) => (x.mix?.typedWrite ?? 0) > 0);
    expect(typed.length).toBeGreaterThanOrEqual(8);
    expect(typed.length).toBeLessThanOrEqual(35);
    for (const x of typed) {
      expect(x.mix?.typedAttribute ?? 0).toBeGreaterThan(0);
      expect(x.mix?.facet ?? 0).toBeGreaterThanOrEqual(2);
      expect(x.mix?.attach ?? 0).toBeGreaterThanOrEqual(3);
      expect(parseScenario(printScenario(x)).mix).toEqual(x.mix);
    }
    // One seed in eight writes some large values, printed as `large-values ...`.
    const bigValues = [...Array(200).keys()].map((i) => swarmScenario(i + 1)).filter((x) => x.largeValues !== null);
    expect(bigValues.length).toBeGreaterThanOrEqual(12);
    expect(bigValues.length).toBeLessThanOrEqual(40);
    for (const x of bigValues) {
      expect(printScenario(x)).toMatch(/^large-values share=(0\.02|0\.05|0\.2) bytes=100\.\.(16384|131072|1048576)$/mu);
      expect(parseScenario(printScenario(x)).largeValues).toEqual(x.largeValues);
    }
    // Half of those stop pull batches early, so that objects go in parts (`batch-bytes N`);
    // no other seed does.
    const lowered = bigValues.filter((x) => x.batchBytes !== null);
    expect(lowered.length).toBeGreaterThanOrEqual(bigValues.length / 4);
    expect(lowered.length).toBeLessThanOrEqual((bigValues.length * 3) / 4);
    for (const x of lowered) {
      const m = /^batch-bytes (\d+)$/mu.exec(printScenario(x));
      const maxBytes = x.largeValues!.maxBytes;
      expect([maxBytes / 4, maxBytes, maxBytes * 4].map((b) => Math.min(4 * 1024 * 1024, Math.max(1024, b)))).toContain(Number(m?.[1]));
      expect(parseScenario(printScenario(x)).batchBytes).toEqual(x.batchBytes);
    }
    const all = [...Array(200).keys()].map((i) => swarmScenario(i + 1));
    expect(all.filter((x) => x.largeValues === null && x.batchBytes !== null)).toEqual([]);
    // A purge horizon only where an atom crosses the replication graph well within it (swarm
    // seed 8726: a line of 6 pulling every 20-40 s purged a tombstone upstream before it
    // reached the far end): diameter x (a hop's worst case) <= maxTimeApart; on skewed clocks
    // the horizon also holds both offsets and every jump the run may draw.
    let wideWithHorizon = 0;
    let skewedWithHorizon = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const x = swarmScenario(seed);
      const ids = Array.from({ length: x.nodes }, (_, i) => `n${i + 1}`);
      const d = diameterAmong(x.topology, ids, ids) ?? x.nodes;
      const horizon = x.steps.find((st) => st.action.kind === "op" && st.action.op.verb === "config" && st.action.op.attribute === "maxTimeApart");
      if (horizon === undefined || horizon.action.kind !== "op" || horizon.action.op.verb !== "config") continue;
      const c = x.faults.clocks;
      if (d <= 1 && c === null) continue;
      if (d > 1) wideWithHorizon++;
      const skew = c === null ? 0 : 2 * c.maxOffsetMs + c.maxJumpMs * Math.ceil((3 * x.safetyMs) / c.meanJumpGapMs);
      if (c !== null) skewedWithHorizon++;
      const t = { ...defaultTiming, ...x.timing };
      const hop = t.pullEveryMs + t.pullJitterMs + t.hintDelayMs + t.pullTimeoutMs + (x.faults.partitions?.maxDurationMs ?? 0) + (x.faults.crashes?.maxDownMs ?? 0) + 2000;
      expect(d * hop + skew).toBeLessThanOrEqual(horizon.action.op.seconds * 1000);
    }
    // About a quarter of the seeds inject one to five transient disk errors inside the safety
    // phase, read back from the printed file.
    const erring = [...Array(80).keys()].map((i) => swarmScenario(i + 1)).filter((x) => x.steps.some((st) => st.action.kind === "disk-error"));
    expect(erring.length).toBeGreaterThanOrEqual(8);
    expect(erring.length).toBeLessThanOrEqual(35);
    for (const x of erring) {
      const errors = x.steps.filter((st) => st.action.kind === "disk-error");
      expect(errors.length).toBeLessThanOrEqual(5);
      for (const st of errors) {
        expect(st.atMs).toBeGreaterThan(0);
        expect(st.atMs).toBeLessThan(x.safetyMs);
        const a = st.action.kind === "disk-error" ? st.action : null;
        expect(a!.afterWrites >= 1 && a!.afterWrites <= 16).toBe(true);
        expect(Number(a!.node.slice(1))).toBeLessThanOrEqual(x.nodes);
      }
      expect(printScenario(x)).toMatch(/^at \d+s disk-error n\d+ after=\d+( beyond-commits)? down=\d+m?s$/mu);
      const back = parseScenario(printScenario(x)).steps.map((st) => ({ ...st, line: 0 }));
      expect(back).toEqual(x.steps.map((st) => ({ ...st, line: 0 })));
    }
    // Some seeds purge on skewed clocks (mild ones: seconds apart, not minutes).
    expect(skewedWithHorizon).toBeGreaterThan(0);
    // One seed in eight is a larger domain (8-16 nodes), the others 3-7.
    const sizes = [...Array(400).keys()].map((i) => swarmScenario(i + 1).nodes);
    const large = sizes.filter((n) => n > 7);
    expect(large.length).toBeGreaterThanOrEqual(25);
    expect(large.length).toBeLessThanOrEqual(80);
    for (const n of sizes) expect(n >= 3 && n <= 16).toBe(true);
    expect(swarmScenario(8726).steps.map((st) => st.action.kind === "op" && st.action.op.verb === "config" && st.action.op.attribute)).toEqual(["timeUntilShred"]);
    // Some wide graphs still purge within their runs (those that cross fast enough).
    expect(wideWithHorizon).toBeGreaterThan(0);
    // About half the seeds pull at another pace (period, jitter, hint delay), read back exactly.
    const paced = [...Array(60).keys()].map((i) => swarmScenario(i + 1).timing).filter((t) => t.pullEveryMs !== undefined);
    expect(paced.length).toBeGreaterThanOrEqual(15);
    expect(paced.length).toBeLessThanOrEqual(45);
    for (const t of paced) {
      expect([1000, 2000, 5000, 10_000, 20_000]).toContain(t.pullEveryMs);
      expect([0, t.pullEveryMs! / 5, t.pullEveryMs]).toContain(t.pullJitterMs);
      expect([0, 50, 200, 1000, 5000]).toContain(t.hintDelayMs);
    }
    // About half the seeds of 4 nodes or more replicate along a sparser graph than the mesh,
    // printed as `topology ...`, with a liveness cap that leaves room for its longer bound.
    const wide = [...Array(60).keys()].map((i) => swarmScenario(i + 1)).filter((x) => x.nodes >= 4);
    const sparse = wide.filter((x) => x.topology.kind !== "mesh");
    expect(sparse.length).toBeGreaterThanOrEqual(wide.length / 4);
    expect(sparse.length).toBeLessThanOrEqual((wide.length * 3) / 4);
    for (const x of sparse) {
      expect(printScenario(x)).toMatch(/^topology (ring|line|star|sparse \d+)$/mu);
      expect(parseScenario(printScenario(x)).topology).toEqual(x.topology);
      expect(x.livenessMs).toBeGreaterThanOrEqual(120_000);
    }
    expect(printScenario(withCrashes.find((x) => (x.faults.crashes?.inWriteP ?? 0) > 0) ?? withCrashes[0]!)).toMatch(
      /^crashes .* inwrite=(0\.1|0\.25|0\.5|1) beyond=(0|0\.5|1) kept=(0|0\.25|0\.5)$/mu,
    );
  });
});

describe("the tokenizer and values", () => {
  it("splits on spaces, decodes quoted parts inside tokens, stops at comments", () => {
    const tokens = tokenizeLine('at 5s n1 put @X description="two words" "a # b" # note', 1);
    expect(tokens.map((t) => t.text)).toEqual([
      "at",
      "5s",
      "n1",
      "put",
      "@X",
      "description=two words",
      "a # b",
    ]);
    expect(tokens[5]?.bareLength).toBe("description=".length);
    expect(tokens[6]?.bareLength).toBe(0);
  });

  it("reads and writes durations exactly", () => {
    expect([
      parseDuration("250ms"),
      parseDuration("1.5s"),
      parseDuration("2m"),
      parseDuration("1h"),
    ]).toEqual([250, 1500, 120_000, 3_600_000]);
    expect(parseDuration("5")).toBeNull();
    // A bare zero is unambiguous (`timing pullJitter=0`); "00" or "0.0" still need a unit.
    expect([parseDuration("0"), parseDuration("00"), parseDuration("0.0")]).toEqual([0, null, null]);
    expect([1500, 3000, 120_000, 7_200_000].map(formatDuration)).toEqual([
      "1500ms",
      "3s",
      "2m",
      "2h",
    ]);
  });

  it("takes domains of up to 64 nodes (as `--preset --nodes`), named n1..n64", () => {
    const s = parseScenario("scenario t\nchecks DESIGN x\nnodes 12\nsafety 20s\nat 5s partition n1 n2 | n10 n11 n12\nat 6s n12 gc\n");
    expect(s.nodes).toBe(12);
    const p = s.steps[0]?.action;
    expect(p?.kind === "partition" ? p.groups : null).toEqual([["n1", "n2"], ["n10", "n11", "n12"]]);
    const actions = (x: typeof s) => x.steps.map((step) => step.action);
    expect(actions(parseScenario(printScenario(s)))).toEqual(actions(s));
    expect(() => parseScenario("scenario t\nchecks DESIGN x\nnodes 65\nsafety 20s\n")).toThrow(/expected an integer in 1..64, got 65/);
  });

  it("keeps a quoted @ or keyword a literal", () => {
    const s = parseScenario(`${header}at 5s n1 put / description "@x" "as" "->"\n`);
    const a = s.steps[0]?.action;
    expect(a?.kind === "op" && a.op.verb === "put" ? a.op.values : null).toEqual([
      { literal: "@x" },
      { literal: "as" },
      { literal: "->" },
    ]);
    expect(parseScenario(printScenario(s)).steps[0]?.action).toEqual(a);
  });
});

describe("refusals name the line", () => {
  const cases: Array<[string, RegExp]> = [
    [`${header}bogus 1\n`, /line 5: unknown directive bogus/],
    [`${header}at 30s heal-network\n`, /line 5: step after the safety phase/],
    [`${header}at 5s n4 gc\n`, /line 5: unknown node n4/],
    [`${header}at 5x heal-network\n`, /line 5: bad duration 5x/],
    // Past 2^53 ms the simulator's clock broke; past 2^53 a seed read as its neighbour and its
    // range never ended; `0x2` read as 2 (determinism audit, twenty-seventh session).
    [`${header}liveness 10000000000000s\n`, /line 5: bad duration 10000000000000s \(.*at most 2\^50 ms\)/],
    [`${header}seeds 9007199254740993\n`, /line 5: seed 9007199254740993 is beyond 9007199254740991/],
    [`scenario t\nchecks DESIGN x\nnodes 0x2\nsafety 20s\n`, /line 3: expected an integer in .*, got 0x2/],
    [`${header}at 5s n1 create / "open user\n`, /line 5: unterminated string/],
    [`${header}at 5s n1 create / A user -> nope\n`, /line 5: unknown outcome nope/],
    [`${header}expect stage @A gone\n`, /line 5: stage is alive\|deleted\|shredded\|absent/],
    [`${header}crashes gap=1s bogus=2\n`, /line 5: crashes: unknown knob bogus/],
    [`${header}network latency=fixed:100ms\n`, /line 5: bad latency fixed:100ms \(plain milliseconds: fixed:MS/],
    [`${header}at 5s power-cut n1\n`, /line 5: power-cut needs after=N/],
    [`${header}at 5s power-cut n1 after=0\n`, /line 5: expected an integer in 1..1000000, got 0/],
    [`${header}at 5s power-cut n1 after=2 soon\n`, /line 5: unknown option soon/],
    [`${header}at 5s power-cut n1 after=2 torn kept\n`, /line 5: power-cut takes torn or kept, not both/],
    [`${header}at 5s disk-error n1\n`, /line 5: disk-error needs after=N/],
    [`${header}at 5s disk-error n1 after=2 torn\n`, /line 5: unknown option torn/],
    [`${header}contention share=0.5\n`, /line 5: contention takes share=P objects=N/],
    [`${header}large-values share=0.5\n`, /line 5: large-values share=P bytes=MIN..MAX/],
    [`${header}batch-bytes 100\n`, /line 5: expected an integer in 256\.\.4194304, got 100/],
    [`${header}large-values share=0.5 bytes=10..2000000\n`, /line 5: expected an integer in 10..1048576, got 2000000/],
    [`${header}large-values share=0.5 bytes=10..20 size=3\n`, /line 5: bad large-values entry size=3/],
    [`${header}contention share=2 objects=3\n`, /line 5: contention share is a probability, not 2/],
    [`${header}contention share=0.5 objects=3 heat=9\n`, /line 5: bad contention entry heat=9/],
    [`${header}topology torus\n`, /line 5: topology takes mesh, ring, line, star or sparse <seed>, not torus/],
    [`${header}topology sparse\n`, /line 5: topology sparse takes a seed/],
    [`${header}topology ring 3\n`, /line 5: topology ring takes no argument/],
    [`${header}topology line\nconverge n1 n3\n`, /converge n1 n3: those nodes are not connected among themselves in topology line/],
    ["scenario t\nnodes 3\nsafety 20s\n", /missing `checks/],
  ];
  for (const [text, message] of cases) {
    it(`refuses ${JSON.stringify(
      text
        .split("\n")
        .filter((l) => l !== "")
        .pop(),
    )}`, () => {
      expect(() => parseScenario(text)).toThrow(message);
    });
  }
});
