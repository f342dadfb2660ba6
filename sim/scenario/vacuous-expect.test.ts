/**
 * Goal: an `expect` line cannot pass by judging nothing. A label whose step failed (`-> any`)
 * resolved to nothing, so `stage @G absent` held of it; a misspelt attribute holds no values,
 * so `values @R descripton` held (liveness audit, twenty-eighth session).
 * Method: two nodes; a create refused name-in-use binds no label; the lines are judged at the end.
 */
import { describe, expect, it } from "vitest";
import { parseScenario } from "./parse-scenario";
import { runScenario } from "./run-scenario";

function run(expectLine: string): string {
  const s = parseScenario(`scenario vacuous-expect
checks scenarios/README expectations
nodes 2
faults none
rate 0
safety 10s

at 1s n1 create / Taken organizationalUnit description=d as @R
at 3s n1 create / Taken organizationalUnit as @G -> any

${expectLine}
`);
  return runScenario(s, { seed: 1 }).violations.join("\n");
}

describe("expectations that would judge nothing", () => {
  it("fail on a label no step bound", () => {
    expect(run("expect stage @G absent")).toMatch(/@G was never bound/);
  });

  it("fail on an attribute neither defined nor held", () => {
    expect(run("expect values @R descripton")).toMatch(/no attribute descripton in any node's schema/);
  });

  it("still hold where they judge something", () => {
    expect(run("expect values @R description d\nexpect values @R displayName\nexpect stage @R alive")).toBe("");
  });
});
