/**
 * Goal: `expect refused N S` holds only for refusals in that direction (scenarios/README: N
 * refused pulls from S, or S refused to answer them), never for N's own refusal to answer
 * S's pulls, which is the other direction (diff review, twenty-seventh session: any
 * pull-refused line naming S passed it, "answer refused: partner S ..." included).
 * Method: n1 stops pulling and lowers maxTimeApart to 20 s; n2 keeps pulling from n1, which
 * refuses to answer once apart longer. n1's journal then names n2 in "answer refused" alone;
 * n2's holds "refused by source n1".
 */
import { describe, expect, it } from "vitest";
import { parseScenario } from "./parse-scenario";
import { runScenario } from "./run-scenario";

function run(expectLine: string): readonly string[] {
  const s = parseScenario(`scenario expect-refused-direction
checks scenarios/README "refused N S"
nodes 2
faults none
network latency=fixed:10
timing pullJitter=0
rate 0
safety 45s
converge n2

at 1s n1 create / Xeno organizationalUnit as @X
at 2s pause-pulls n1
at 3s n1 config maxTimeApart 20s

${expectLine}
`);
  return runScenario(s, { seed: 1 }).violations;
}

describe("expect refused N S", () => {
  it("holds for the destination told its source refused to answer", () => {
    expect(run("expect refused n2 n1")).toEqual([]);
  });

  it("fails for a node that only refused to answer that partner", () => {
    expect(run("expect refused n1 n2").join("\n")).toMatch(/no pull-refused record naming n2/);
  });
});
