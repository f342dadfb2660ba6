/**
 * Goal: a scenario file that could only pass vacuously, or only fail mid-run on an internal
 * assertion, is refused when it is read, with the line that holds the mistake and the knob,
 * label, node or image it names; what the file says reads back the same once printed.
 * Method: the audit's small files (a header plus the line at fault) through parseScenario;
 * each refusal's message and line checked as a user reads them, and a few near misses checked
 * to still parse. One short run checks how a failed expectation reads in the violations.
 */
import { describe, expect, it } from "vitest";
import { journalKinds } from "../../core/journal";
import { parseScenario } from "./parse-scenario";
import { printScenario } from "./print-scenario";
import { runScenario } from "./run-scenario";

const header = "scenario t\nchecks DESIGN x\nnodes 3\nsafety 20s\n";

/** The message parseScenario refuses `text` with (fails the test when it parses). */
function refusal(text: string): string {
  try {
    parseScenario(text);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error("parsed without a refusal");
}

describe("a directive given twice", () => {
  it("refuses the second of a once-only directive at its line, naming the first", () => {
    expect(refusal("scenario a\nscenario b\nchecks x\nnodes 3\nsafety 10s\n")).toBe("line 2: scenario given twice (first at line 1)");
    expect(refusal(`${header}rate 1\nrate 2\n`)).toBe("line 6: rate given twice (first at line 5)");
    expect(refusal(`${header}safety 3s\n`)).toBe("line 5: safety given twice (first at line 4)");
    // The second nodes line was read as the count, and a step on n5 refused as unknown.
    expect(refusal("scenario t\nchecks x\nnodes 5\nsafety 10s\nat 2s n5 create / X user as @A\nnodes 3\n")).toBe(
      "line 6: nodes given twice (first at line 3)",
    );
    expect(refusal(`${header}checks y\n`)).toBe("line 5: checks given twice (first at line 2)");
    expect(refusal(`${header}wire\nwire\n`)).toBe("line 6: wire given twice (first at line 5)");
  });

  it("takes timing lines, fault class lines, steps and expectations as often as given", () => {
    const s = parseScenario(`${header}timing pullEvery=2s\ntiming hintDelay=1s\nfaults chaos\ncrashes gap=30s\ncrashes torn=0.5\n`);
    expect(s.timing.pullEveryMs).toBe(2000);
    expect(s.timing.hintDelayMs).toBe(1000);
  });
});

describe("repeated objects and nodes in an expectation", () => {
  const script = `${header}at 2s n1 create / X user as @A\nat 3s n2 create / Y user as @B\n`;
  it("refuses cnf and cycle-broken naming one object twice, at the expectation's line", () => {
    expect(refusal(`${script}expect cnf @A @A\n`)).toBe("line 7: cnf names @A twice");
    expect(refusal(`${script}expect cnf @A @B @A\n`)).toBe("line 7: cnf names @A twice");
    expect(refusal(`${script}expect cycle-broken @B @B\n`)).toBe("line 7: cycle-broken names @B twice");
    expect(refusal(`${script}expect cnf /X /X\n`)).toBe("line 7: cnf names /X twice");
    expect(parseScenario(`${script}expect cnf @A @B\n`).expects).toHaveLength(1);
  });

  it("refuses refused naming one node as both ends", () => {
    expect(refusal(`${header}expect refused n1 n1\n`)).toBe("line 5: refused n1 n1: a node never pulls from itself");
    expect(parseScenario(`${header}expect refused n1 n2\n`).expects).toHaveLength(1);
  });
});

describe("mix", () => {
  it("refuses a mix line with no weight above 0, at its line (the workload sent only creates)", () => {
    const message = "line 5: mix needs a kind with a weight > 0 (e.g. mix create=1)";
    expect(refusal(`${header}mix\nrate 1\n`)).toBe(message);
    expect(refusal(`${header}mix create=0\nrate 1\n`)).toBe(message);
    expect(refusal(`${header}mix create=0 rename=0 move=0\nrate 1\n`)).toBe(message);
    expect(parseScenario(`${header}mix create=0 rename=1\nrate 1\n`).mix).toEqual({ create: 0, rename: 1 });
  });
});

describe("converge", () => {
  it("refuses a converge line without nodes, at its line", () => {
    // Without nodes nothing would be judged: the expectation below would pass on every seed.
    const text = `${header}converge\nat 1s n1 create / Orion organizationalUnit as @A\nexpect stage @A deleted\n`;
    expect(refusal(text)).toBe("line 5: converge needs nodes (without the line every node converges)");
  });

  it("refuses a node named twice, at its line (every seed would fail liveness)", () => {
    expect(refusal(`${header}converge n1 n1\n`)).toBe("line 5: converge names n1 twice");
    expect(refusal(`${header}converge n1 n2 n3 n2\n`)).toBe("line 5: converge names n2 twice");
  });

  it("names the converge line for an unknown node and for nodes not connected", () => {
    expect(refusal(`${header}rate 1\nconverge n1 n5\n`)).toBe("line 6: unknown node n5 (nodes are n1..n3)");
    expect(refusal(`${header}topology line\nrate 0\nconverge n1 n3\n`)).toMatch(
      /^line 7: converge n1 n3: those nodes are not connected among themselves in topology line$/u,
    );
  });
});

describe("missing directives", () => {
  const cases: Array<[string, string]> = [
    ["checks x\nnodes 3\nsafety 10s\n", "missing `scenario <name>` (a required directive)"],
    ["scenario t\nnodes 3\nsafety 10s\n", "missing `checks <SPEC/DESIGN section>` (a required directive)"],
    ["scenario t\nchecks x\nsafety 10s\n", "missing `nodes <count>` (a required directive)"],
    ["scenario t\nchecks x\nnodes 3\n\n\nrate 1\n", "missing `safety <duration>` (a required directive)"],
  ];
  for (const [text, message] of cases) {
    it(`says ${message.split(" (")[0]} without naming a line no directive is on`, () => {
      expect(refusal(text)).toBe(message);
    });
  }

  it("refuses checks or known-bug without text at their line", () => {
    expect(refusal("scenario t\nchecks # nothing\nnodes 3\nsafety 10s\n")).toBe(
      "line 2: checks needs text: the SPEC/DESIGN section(s) checked",
    );
    expect(refusal(`${header}known-bug\n`)).toBe("line 5: known-bug needs text: the bug");
  });
});

describe("labels", () => {
  it("refuses an expectation on a label no step binds, at the expectation's line", () => {
    const text = `${header}at 1s n1 create / Orion organizationalUnit as @Orion\nexpect stage @Orin absent\n`;
    expect(refusal(text)).toBe("line 6: label @Orin is bound by no step (`as @Orin`)");
  });

  it("checks the labels of every kind of expectation, references and {@label} in paths too", () => {
    const bind = `${header}at 1s n1 create / A organizationalUnit as @A\n`;
    for (const line of [
      "expect cnf @A @B",
      "expect orphaned @B",
      "expect cycle-broken @A @B",
      "expect values @A seeAlso @B",
      "expect path @A \"/x/{@B}\"",
      "expect stage /x/{@B} alive",
      "expect ghost-seen n2 @B",
    ]) {
      expect(refusal(`${bind}${line}\n`)).toBe("line 6: label @B is bound by no step (`as @B`)");
    }
    expect(() => parseScenario(`${bind}expect values @A seeAlso @A\nexpect path @A "/{@A}"\n`)).not.toThrow();
  });

  it("refuses an op on a label no step binds, and a label bound twice, at the step's line", () => {
    expect(refusal(`${header}at 1s n1 delete @Nope -> any\n`)).toBe(
      "line 5: label @Nope is bound by no step (`as @Nope`)",
    );
    const twice = `${header}at 1s n1 create / A organizationalUnit as @A\nat 2s n1 create / B organizationalUnit as @A\n`;
    expect(refusal(twice)).toBe("line 6: label @A is already bound at line 5");
  });

  it("wants an op's label bound by a step that runs before it; an expectation's by any step", () => {
    // Steps run in time order, so a create later in the file but earlier in time binds first.
    const text = `${header}at 2s n1 put @A description v\nat 1s n1 create / A organizationalUnit as @A\nexpect values @A description v\n`;
    expect(parseScenario(text).steps).toHaveLength(2);
    const late = `${header}at 1s n1 put @A description v -> any\nat 2s n1 create / A organizationalUnit as @A\n`;
    expect(refusal(late)).toBe("line 5: label @A is bound only after this step runs (line 6)");
    const tie = `${header}at 1s n1 create /{@A} B organizationalUnit\nat 1s n1 create / A organizationalUnit as @A\n`;
    expect(refusal(tie)).toBe("line 5: label @A is bound only after this step runs (line 6)");
  });
});

describe("refused", () => {
  it("names two running nodes, refuses an unknown one at its line, and prints back as read", () => {
    const s = parseScenario(`${header}expect refused n2 n3\n`);
    expect(s.expects[0]?.check).toEqual({ kind: "refused", node: "n2", source: "n3" });
    expect(parseScenario(printScenario(s)).expects.map((e) => e.check)).toEqual(s.expects.map((e) => e.check));
    expect(refusal(`${header}expect refused n2 n4\n`)).toMatch(/^line 5: .*n4/u);
    expect(refusal(`${header}expect refused n2\n`)).toMatch(/^line 5: .*source node/u);
  });
});

describe("journal kinds", () => {
  it("refuses a kind no journal record has", () => {
    const text = `${header}expect no-journal n2 rollback-detcted\n`;
    expect(refusal(text)).toMatch(/^line 5: unknown journal kind rollback-detcted \(one of .*rollback-detected/u);
    expect(parseScenario(`${header}expect no-journal n2 rollback-detected\n`).expects).toHaveLength(1);
  });

  it("accepts every kind a journal records (core/journal.ts's one list)", () => {
    expect(journalKinds.length).toBeGreaterThan(5);
    for (const kind of journalKinds) {
      expect(parseScenario(`${header}expect no-journal n2 ${kind}\n`).expects).toHaveLength(1);
    }
  });
});

describe("fault knobs are refused as the fault sources would assert", () => {
  const cases: Array<[string, string]> = [
    ["crashes gap=0", "crashes gap must be > 0 (a mean gap), got 0ms"],
    ["partitions gap=0", "partitions gap must be > 0 (a mean gap), got 0ms"],
    ["clocks jumpgap=0", "clocks jumpgap must be > 0 (a mean gap), got 0ms"],
    ["rollbacks gap=0", "rollbacks gap must be > 0 (a mean gap), got 0ms"],
    ["clocks drift=-5000", "clocks drift must be in [0, 1000000) (ppm, either way), got -5000"],
    ["clocks drift=1000000", "clocks drift must be in [0, 1000000) (ppm, either way), got 1000000"],
    ["rollbacks minage=5s maxage=1s", "rollbacks minage=5s exceeds maxage=1s"],
    // A knob not named keeps the preset's (chaos') value: maxage=10s.
    ["rollbacks minage=20s", "rollbacks minage=20s exceeds maxage=10s"],
    ["crashes min=2s max=1s", "crashes min=2s exceeds max=1s"],
    ["partitions min=30s", "partitions min=30s exceeds max=20s"],
    ["crashes torn=2", "crashes torn is a probability in [0, 1], got 2"],
    ["crashes kept=-0.5", "crashes kept is a probability in [0, 1], got -0.5"],
    ["crashes inwrite=1.5", "crashes inwrite is a probability in [0, 1], got 1.5"],
    ["partitions oneway=3", "partitions oneway is a probability in [0, 1], got 3"],
    ["network latency=uniform:5:1", "network latency=uniform:5:1: MIN must not exceed MAX"],
    ["network latency=uniform:1.5:3", "network latency=uniform:1.5:3: MIN and MAX must be whole numbers >= 0"],
    ["network latency=fixed:-5", "network latency=fixed:-5: MS must be a whole number >= 0"],
    ["network latency=lognormal:0:1:1:5", "network latency=lognormal:0:1:1:5: MEDIAN must be > 0"],
    ["network loss=1", "network loss must be in [0, 1), got 1"],
    ["network dup=-0.1", "network dup must be in [0, 1), got -0.1"],
  ];
  for (const [line, message] of cases) {
    it(`refuses ${line}`, () => {
      expect(refusal(`${header}rate 1\n${line}\n`)).toBe(`line 6: ${message}`);
    });
  }

  it("judges a class as the file leaves it: a later line may make an earlier one sound", () => {
    const s = parseScenario(`${header}rollbacks minage=20s\nrollbacks maxage=30s\n`);
    expect(s.faults.rollbacks).toMatchObject({ minAgeMs: 20_000, maxAgeMs: 30_000 });
    expect(refusal(`${header}rollbacks maxage=30s\nrollbacks minage=40s\n`)).toBe(
      "line 6: rollbacks minage=40s exceeds maxage=30s",
    );
  });

  it("takes the edges the sources allow", () => {
    const s = parseScenario(
      `${header}crashes torn=1 inwrite=0 min=1s max=1s\nnetwork latency=fixed:0 loss=0.99\nclocks drift=999999 offset=0\n`,
    );
    expect(s.faults.crashes?.tornP).toBe(1);
    expect(s.faults.network.lossP).toBe(0.99);
    expect(s.faults.clocks?.maxDriftPpm).toBe(999_999);
  });

  it("refuses gc 0 and timing pullTimeout=0, which only spin at one instant", () => {
    expect(refusal(`${header}gc 0\n`)).toBe("line 5: gc needs a period > 0 (without the line GC never runs)");
    expect(refusal(`${header}timing pullEvery=1s pullTimeout=0\n`)).toBe("line 5: timing pullTimeout must be > 0");
    // A zero period or jitter is a busy schedule, not a stuck one.
    expect(parseScenario(`${header}timing pullEvery=0 pullJitter=0\n`).timing).toEqual({ pullEveryMs: 0, pullJitterMs: 0 });
  });
});

describe("steps the world would assert on", () => {
  it("refuses a node in two partition groups and a cut of a node to itself", () => {
    expect(refusal(`${header}at 1s partition n1 | n1\n`)).toBe(
      "line 5: partition names n1 twice (a node is in one group only)",
    );
    expect(refusal(`${header}at 1s partition n1,n2 n3 | n2\n`)).toBe(
      "line 5: partition names n2 twice (a node is in one group only)",
    );
    expect(refusal(`${header}at 1s cut n2 -> n2\n`)).toBe("line 5: cut n2 -> n2: a cut joins two different nodes");
  });

  it("refuses a rollback to an image its node did not take before it", () => {
    expect(refusal(`${header}at 1s rollback n1 nokey\n`)).toBe(
      "line 5: rollback n1 nokey: n1 takes no image nokey before it (image n1 nokey)",
    );
    // Taken on another node.
    expect(refusal(`${header}at 1s image n1 k\nat 3s rollback n2 k\n`)).toMatch(/^line 6: rollback n2 k: n2 takes no image k/u);
    // Taken later in time, though earlier in the file.
    expect(refusal(`${header}at 5s image n1 k\nat 3s rollback n1 k\n`)).toMatch(/^line 6: rollback n1 k: n1 takes no image k/u);
    // Taken at the same time but after it in the file (file order breaks ties).
    expect(refusal(`${header}at 3s rollback n1 k\nat 3s image n1 k\n`)).toMatch(/^line 5: rollback n1 k/u);
  });

  it("refuses a second rollback to an image the first one used up, until it is taken again", () => {
    const twice = `${header}at 1s image n1 k\nat 2s rollback n1 k\nat 4s rollback n1 k\n`;
    expect(refusal(twice)).toBe(
      "line 7: rollback n1 k: the rollback at line 6 restored that image already (take it again: image n1 k)",
    );
    const again = `${header}at 1s image n1 k\nat 2s rollback n1 k\nat 3s image n1 k\nat 4s rollback n1 k\n`;
    expect(parseScenario(again).steps).toHaveLength(4);
  });
});

describe("comments and printing", () => {
  it("ends checks and known-bug at a `#` outside quotes, as every other line", () => {
    const s = parseScenario(
      'scenario t\nchecks SPEC "Naming # rules" (caseless) # why: the audit\nnodes 2\nsafety 5s\nknown-bug a bug # note\n',
    );
    expect(s.checks).toBe('SPEC "Naming # rules" (caseless)');
    expect(s.knownBug).toBe("a bug");
    expect(parseScenario(printScenario(s))).toEqual(s);
  });

  it("prints a name that needs quotes quoted, so that it reads back", () => {
    for (const name of ["refs test", "a#b", "as", "x=y", "say \"hi\""]) {
      const s = parseScenario(`scenario ${JSON.stringify(name)}\nchecks audit\nnodes 2\nsafety 10s\n`);
      expect(s.name).toBe(name);
      const printed = printScenario(s);
      expect(parseScenario(printed)).toEqual(s);
      expect(printScenario(parseScenario(printed))).toBe(printed);
    }
    expect(printScenario(parseScenario(`scenario plain-name\nchecks audit\nnodes 2\nsafety 10s\n`))).toMatch(
      /^scenario plain-name$/mu,
    );
  });
});

describe("violation lines", () => {
  it("name a failed expectation once, after the oracle `expect`", () => {
    const s = parseScenario(
      "scenario v\nchecks audit\nnodes 2\nrate 0\nsafety 3s\n" +
        "at 1s n1 create / Orion organizationalUnit as @A\nat 2s n1 put @A description v1\n" +
        "expect values @A description v2 on n1\n",
    );
    const report = runScenario(s, { seed: 1 });
    expect(report.pass).toBe(false);
    expect(report.violations).toContain(
      'expect: values @A description v2 on n1 (line 8): on n1: description holds ["v1"], expected ["v2"]',
    );
  });
});

describe("partitions on one node", () => {
  it("refuses them at the nodes line (the partition source asserts two nodes mid-run)", () => {
    const text = "scenario t\nchecks DESIGN x\nnodes 1\nfaults chaos\nsafety 20s\n";
    expect(refusal(text)).toBe("line 3: nodes 1: partitions (of the faults) take 2 nodes or more");
    expect(() => parseScenario(text.replace("faults chaos", "faults crashes"))).not.toThrow();
  });
});

describe("image keys", () => {
  it("refuses a scripted key in the rollback fault source's namespace, so the two never collide", () => {
    const text = `${header}at 1s image n1 fault-img0\nat 2s rollback n1 fault-img0\n`;
    expect(refusal(text)).toBe("line 5: image key fault-img0: keys starting fault-img are the rollback faults' own");
    expect(() => parseScenario(`${header}at 1s image n1 img0\nat 2s rollback n1 img0\n`)).not.toThrow();
  });
});

describe("a run that breaks off", () => {
  it("keeps a scripted step's failure in the report beside the simulator failure", () => {
    // The second create is refused (name in use); the event bound then ends the run.
    const s = parseScenario(
      "scenario lost-inline\nchecks audit\nnodes 3\nrate 20\nsafety 30s\n" +
        "at 0s n1 create / Xq user as @A\nat 0s n1 create / Xq user as @B\nevents 1000\n",
    );
    const report = runScenario(s, { seed: 1 });
    expect(report.pass).toBe(false);
    expect(report.violations.length).toBe(2);
    expect(report.violations[0]).toMatch(/^line 7: /u);
    expect(report.violations[1]).toMatch(/event/u);
  });
});
