/**
 * Goal: a long seed range shows how far it got, how many seeds failed and about how long is
 * left, at most once per period and never after the last seed; a short one prints nothing;
 * on a terminal the line is rewritten in place and cleared at the end.
 * Method: a hand-driven clock and a recording sink stand in for performance.now and stderr.
 */
import { describe, expect, it } from "vitest";
import { SeedProgress } from "./seed-progress";

function recorder(isTTY: boolean): { lines: string[]; sink: { write(t: string): boolean; isTTY: boolean } } {
  const lines: string[] = [];
  return { lines, sink: { write: (t: string) => lines.push(t) > 0, isTTY } };
}

describe("seed progress", () => {
  it("prints counts, failures and time left once per period while seeds remain", () => {
    let now = 0;
    const { lines, sink } = recorder(false);
    const p = new SeedProgress("swarm", 10, () => now, sink, 10_000);
    for (let seed = 1; seed <= 10; seed++) {
      now += 4_000;
      p.note(seed !== 3);
    }
    p.end();
    // Due at 12 s (3 seeds) and 24 s (6 seeds), and at 36 s (9 seeds); never for the 10th.
    expect(lines).toEqual([
      "swarm: 3/10 seeds (1 failed), 12s elapsed, ~28s left\n",
      "swarm: 6/10 seeds (1 failed), 24s elapsed, ~16s left\n",
      "swarm: 9/10 seeds (1 failed), 36s elapsed, ~4s left\n",
    ]);
  });

  it("prints nothing for a range that ends within the period", () => {
    let now = 0;
    const { lines, sink } = recorder(true);
    const p = new SeedProgress("preset-chaos", 5, () => now, sink, 10_000);
    for (let seed = 1; seed <= 5; seed++) {
      now += 1_000;
      p.note(true);
    }
    p.end();
    expect(lines).toEqual([]);
  });

  it("rewrites one line on a terminal and clears it at the end, with minutes and hours", () => {
    let now = 0;
    const { lines, sink } = recorder(true);
    const p = new SeedProgress("s", 1_000, () => now, sink, 10_000);
    now = 90_000;
    p.note(true);
    now = 2 * 3_600_000;
    p.note(false);
    p.end();
    expect(lines).toEqual([
      "\r\x1b[Ks: 1/1000 seeds (0 failed), 1m30s elapsed, ~24h58m left",
      "\r\x1b[Ks: 2/1000 seeds (1 failed), 2h00m elapsed, ~998h00m left",
      "\r\x1b[K",
    ]);
  });
});
