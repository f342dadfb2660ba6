import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { presetNames } from "./faults";

/**
 * The simulator's command line as an engineer runs it: a real process (`tsx sim/cli.ts`,
 * what `npm run sim` runs), which re-executes itself under the simulator's V8 flags.
 */
const root = path.resolve(import.meta.dirname, "..");
const tsx = path.join(root, "node_modules", ".bin", "tsx");
const scratch = mkdtempSync(path.join(tmpdir(), "canopy-sim-cli-"));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function sim(...args: string[]): { status: number | null; out: string } {
  const run = spawnSync(tsx, ["sim/cli.ts", ...args], {
    cwd: root,
    encoding: "utf8",
    timeout: 90_000,
    // The child decides about flags itself: do not inherit the test worker's.
    env: { ...process.env, CANOPY_SIM_FLAGS: "", NODE_OPTIONS: "" },
  });
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

/**
 * A scenario file of 5 nodes at 20 writes/s over 120 s whose expectation fails on every seed
 * (a created object expected deleted): seeds of several seconds, each ending in a FAIL line.
 */
function alwaysFailing(name: string, topology: string): string {
  const file = path.join(scratch, `${name}.scn`);
  writeFileSync(
    file,
    `scenario ${name}\nchecks none\nnodes 5\nfaults none\nrate 20\nsafety 120s\n${topology}\n\n` +
      "at 1s n1 create / Orion organizationalUnit as @A\nexpect stage @A deleted\n",
  );
  return file;
}

/**
 * Runs the simulator's command line, handing its output so far (stdout and stderr as they
 * come) to `watch` with each chunk, which may signal the process; the exit code and output.
 */
async function simWatched(
  args: readonly string[],
  watch: (out: string, child: ChildProcess) => void,
): Promise<{ status: number | null; out: string }> {
  const child = spawn(tsx, ["sim/cli.ts", ...args], {
    cwd: root,
    env: { ...process.env, CANOPY_SIM_FLAGS: "", NODE_OPTIONS: "" },
  });
  let out = "";
  const collect = (chunk: Buffer): void => {
    out += chunk.toString("utf8");
    watch(out, child);
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  // `close`: every holder of the output pipes is gone, the simulator child too.
  const status = await new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { status, out };
}

/**
 * Starts a long failing range (each seed prints its FAIL line), sends `signal` to the top
 * process once two seeds are done, and gives back its exit code and output.
 */
async function simSignalled(signal: NodeJS.Signals): Promise<{ status: number | null; out: string }> {
  const file = path.join(scratch, `signalled-${signal}.scn`);
  writeFileSync(file, "scenario liveness-cap\nchecks none\nnodes 3\nfaults none\nrate 20\nsafety 10s\nliveness 500ms\nat 1s partition n1 | n2 n3\n");
  let sent = false;
  return simWatched(["--scenario", file, "--seeds", "1..5000"], (out, child) => {
    if (!sent && out.includes("FAIL seed=2 ")) {
      sent = true;
      child.kill(signal);
    }
  });
}

describe("npm run sim", () => {
  it("prints a passing verdict for one seed of a scenario file and exits 0", () => {
    const run = sim("--scenario", "scenarios/lww-clock-skew.scn", "--seed", "3");
    expect(run.out).toMatch(/^PASS seed=3 scenario=lww-clock-skew rounds=\d+ converge=\S+ events=\d+ trace=[0-9a-f]{16}/mu);
    expect(run.status).toBe(0);
  });

  it("prints FAIL, the per-node timeline and the violation for a failing seed, and exits 1", () => {
    // The real scenario with one expectation turned false: displayName cannot end as this.
    const text = readFileSync(path.join(root, "scenarios/lww-clock-skew.scn"), "utf8");
    const wrong = text.replace(
      "expect values @X displayName from-n1-early",
      "expect values @X displayName never-written",
    );
    expect(wrong).not.toBe(text);
    const file = path.join(scratch, "wrong-expectation.scn");
    writeFileSync(file, wrong);
    const run = sim("--scenario", file, "--seed", "3");
    expect(run.out).toMatch(/^FAIL seed=3 scenario=lww-clock-skew /mu);
    expect(run.out).toContain("-- timeline");
    // One line per event: virtual time, node, event, detail.
    expect(run.out).toMatch(/^\s+\d+\.\d{3}s\s+n1\s+op\s+create ok$/mu);
    expect(run.out).toContain("-- violations");
    expect(run.out).toMatch(/on n2: displayName holds \["from-n1-early"\], expected \["never-written"\]/u);
    expect(run.status).toBe(1);
  });

  it("runs a scenario with every message on the wire with --wire: the same trace, and the printed file says `wire`", () => {
    const trace = (out: string) => /trace=([0-9a-f]{16})/u.exec(out)?.[1];
    const plain = sim("--scenario", "scenarios/lww-clock-skew.scn", "--seed", "3");
    const wired = sim("--scenario", "scenarios/lww-clock-skew.scn", "--seed", "3", "--wire", "--print");
    expect(wired.status).toBe(0);
    expect(wired.out).toMatch(/^wire$/mu);
    expect(trace(wired.out)).toBeDefined();
    expect(trace(wired.out)).toBe(trace(plain.out));
  });

  it("shrinks with --swarm: a seed that passes has nothing to shrink, and the run exits 0", () => {
    // Without --shrink this prints the seed's ordinary verdict line instead.
    const run = sim("--swarm", "--seeds", "7..7", "--shrink");
    expect(run.out).toMatch(/^PASS seed=7 scenario=swarm-7: nothing to shrink$/mu);
    expect(run.status).toBe(0);
  });

  it("shrinks over a file's range of seeds, not its first seed alone", () => {
    const run = sim("--scenario", "scenarios/lww-clock-skew.scn", "--seeds", "3..4", "--shrink");
    expect(run.out).toMatch(/^PASS scenario=lww-clock-skew seeds=3\.\.4: no seed fails, nothing to shrink$/mu);
    expect(run.status).toBe(0);
  });

  it("prints the full trace with --trace --replay too, and a printed swarm seed pins its seed", () => {
    const traced = sim("--scenario", "scenarios/lww-clock-skew.scn", "--seed", "3", "--trace");
    const replayed = sim("--scenario", "scenarios/lww-clock-skew.scn", "--seed", "3", "--trace", "--replay");
    expect(replayed.status).toBe(0);
    expect(replayed.out).toContain("-- timeline (full trace");
    expect(replayed.out.split("\n").length).toBe(traced.out.split("\n").length);
    const printed = sim("--swarm", "--seed", "5", "--print");
    expect(printed.out).toMatch(/^seeds 5$/mu);
  });

  it("says converge(none) in a range's summary when no seed converged, and prints no NUL byte", () => {
    const file = path.join(scratch, "liveness-cap.scn");
    writeFileSync(file, "scenario liveness-cap\nchecks none\nnodes 3\nfaults none\nrate 20\nsafety 10s\nliveness 500ms\nat 1s partition n1 | n2 n3\n");
    const run = sim("--scenario", file, "--seeds", "1..2");
    expect(run.out).toMatch(/^FAIL scenario=liveness-cap seeds=1\.\.2 runs=2 pass=0 failed=1,2 rounds\(none\) converge\(none\) events/mu);
    expect(run.out).not.toContain("\u0000");
    expect(run.status).toBe(1);
  });

  it("on SIGINT stops between seeds, prints the summary of the seeds run marked INTERRUPTED, and exits 130", async () => {
    const run = await simSignalled("SIGINT");
    expect(run.out).toMatch(/^INTERRUPTED after seed \d+ of 1\.\.5000: FAIL scenario=liveness-cap seeds=1\.\.\d+ runs=\d+ pass=0 /mu);
    expect(run.status).toBe(130);
  }, 90_000);

  it("on a second SIGINT stops at once, inside a long seed, and exits 130", async () => {
    // Seeds of several seconds each: the first SIGINT would wait for the running one. Each
    // fails its expectation, so that its verdict line shows when it ends.
    const file = alwaysFailing("long-seeds", "topology mesh");
    let sent = false;
    const { status, out: text } = await simWatched(["--scenario", file, "--seeds", "1..50"], (out, child) => {
      // Seed 2 has just started when seed 1's verdict is printed.
      if (!sent && /^FAIL seed=1 /mu.test(out)) {
        sent = true;
        child.kill("SIGINT");
        setTimeout(() => child.kill("SIGINT"), 300);
      }
    });
    expect(sent).toBe(true);
    expect(text).toContain("canopy sim: interrupted again: simulator stopped at once, the running seed unfinished");
    // Seed 2 never finished: no verdict and no summary of it.
    expect(text).not.toMatch(/seed=2 |after seed 2/u);
    expect(status).toBe(130);
  }, 120_000);

  it("on SIGINT during --shrink prints the smallest failing variant so far, writes it, and exits 130", async () => {
    // Fails its expectation on every seed whatever the knobs; heavy enough that shrinking
    // takes many seconds, so the signal lands while variants remain.
    const file = alwaysFailing("always-fails", "topology ring");
    const out = path.join(scratch, "shrink-interrupted-out.scn");
    let sent = false;
    const { status, out: text } = await simWatched(["--scenario", file, "--seed", "1", "--shrink", "--out", out], (seen, child) => {
      // The first kept variant's progress line: shrinking runs, and a smaller variant exists.
      if (!sent && /^shrinking always-fails seed 1: \d+ of at most 200 runs, 1 smaller variant kept \(last: nodes 3 \(seed 1\)\)/mu.test(seen)) {
        sent = true;
        child.kill("SIGINT");
      }
    });
    expect(sent).toBe(true);
    expect(text).toMatch(/^INTERRUPTED shrinking always-fails seed 1 after \d+ runs: the smallest failing variant so far is printed above and written to /mu);
    expect(text).toMatch(/^FAIL seed=\d+ scenario=always-fails-s\d+ /mu);
    expect(status).toBe(130);
    // What was written is a smaller scenario that parses and still fails the same way.
    const written = readFileSync(out, "utf8");
    expect(written).toMatch(/^# Shrunk from always-fails seed 1 interrupted after \d+ runs \(nodes 3 \(seed 1\)/mu);
    expect(written).not.toMatch(/^nodes 5$/mu);
    const rerun = sim("--scenario", out);
    expect(rerun.out).toMatch(/^FAIL seed=\d+ scenario=always-fails-s\d+ /mu);
    expect(rerun.status).toBe(1);
  }, 120_000);

  it("passes SIGTERM on to the simulator process and says it was killed, exit 143", async () => {
    const run = await simSignalled("SIGTERM");
    expect(run.out).toContain("canopy sim: simulator killed by SIGTERM");
    expect(run.out).not.toMatch(/^(PASS|FAIL) scenario=/mu);
    expect(run.status).toBe(143);
  }, 90_000);

  it("refuses an option the mode would ignore, naming it, with exit code 2", () => {
    const nodes = sim("--scenario", "scenarios/lww-clock-skew.scn", "--nodes", "3");
    expect(nodes.out).toMatch(/--nodes applies to a --preset run without --swarm \(--scenario takes its shape from the file\)/u);
    expect(nodes.status).toBe(2);
    const out = sim("--swarm", "--seeds", "1..2", "--out", path.join(scratch, "never.scn"));
    expect(out.out).toMatch(/--out applies to --shrink only/u);
    expect(out.status).toBe(2);
  });

  it("refuses a misspelt option, two modes, an empty seed range or a bad preset shape instead of running something else", () => {
    // Each of these used to run (and pass): the option or mode ignored, no seed at all, a default.
    const cases: Array<[string[], RegExp]> = [
      [["--swarm", "--seeds", "1..2", "--shrnk"], /unknown option --shrnk/u],
      [["--scenario", "scenarios/lww-clock-skew.scn", "--seeds", "10..5"], /empty seed range 10\.\.5/u],
      [["--preset", "chaos", "--safety", "5x"], /bad --safety 5x/u],
      [["--preset", "chaos", "--rate", "-1"], /bad --rate -1/u],
      [["--preset", "chaos", "--rate", "0x2"], /bad --rate 0x2/u],
      [["--preset", "chaos", "--nodes", "2.0"], /bad --nodes 2\.0/u],
      [["--all", "--scenario", "scenarios/lww-clock-skew.scn"], /give one of .* \(not --all and --scenario\)/u],
      [["--scenario", "scenarios/lww-clock-skew.scn", "--seed", "1", "--seed", "2"], /--seed given twice \(1 and 2\)/u],
      [["--scenario", "scenarios/lww-clock-skew.scn", "--seed", "1", "--seeds", "2..3"], /give --seed N or --seeds A\.\.B, not both/u],
      [["--scenario", "scenarios/lww-clock-skew.scn", "--trace", "--node", "2"], /bad --node 2/u],
      // Printed an empty timeline and passed (determinism audit, twenty-seventh session).
      [["--scenario", "scenarios/lww-clock-skew.scn", "--trace", "--node", "n9"], /--node n9: the scenario has nodes n1\.\.n3/u],
      // An internal error of the simulator's clock, exit 3 (same audit).
      [["--preset", "chaos", "--safety", "99999999999999999999h"], /bad --safety 99999999999999999999h/u],
      [["--preset", "chaos", "--nodes", "1"], /--nodes 1: the chaos preset partitions the network/u],
      // Refused before minutes of shrinking, not after.
      [["--swarm", "--seeds", "1..2", "--shrink", "--out", "/nonexistent-dir/x.scn"], /--out \/nonexistent-dir\/x\.scn: cannot write/u],
      // A folder failed the write (EISDIR) after the shrinking.
      [["--swarm", "--seeds", "1..2", "--shrink", "--out", scratch], /--out .* is a folder: give a file name/u],
    ];
    for (const [args, message] of cases) {
      const run = sim(...args);
      expect(run.out).toMatch(message);
      expect(run.out).not.toMatch(/^PASS /mu);
      expect(run.status).toBe(2);
    }
  });

  it("reads the repository's scenarios/ for --all, not the current folder's", () => {
    // A folder with its own scenarios/ holding a broken file: --all must not read it. The
    // empty seed range is refused after every file is read and before any seed runs.
    const elsewhere = path.join(scratch, "elsewhere");
    mkdirSync(path.join(elsewhere, "scenarios", "regressions"), { recursive: true });
    writeFileSync(path.join(elsewhere, "scenarios", "broken.scn"), "frobnicate yes\n");
    const run = spawnSync(tsx, [path.join(root, "sim/cli.ts"), "--all", "--seeds", "10..5"], {
      cwd: elsewhere,
      encoding: "utf8",
      timeout: 90_000,
      env: { ...process.env, CANOPY_SIM_FLAGS: "", NODE_OPTIONS: "" },
    });
    const out = `${run.stdout}${run.stderr}`;
    expect(out).not.toContain("broken.scn");
    expect(out).toMatch(/empty seed range 10\.\.5/u);
    expect(run.status).toBe(2);
  });

  it("stops quietly when the reader of its output goes (| head): no EPIPE stack trace", () => {
    // A passing seed's full trace is thousands of lines; `head -1` closes the pipe after one.
    const errors = path.join(scratch, "piped.err");
    const run = spawnSync(
      "bash",
      ["-c", `set -o pipefail; "$0" sim/cli.ts --scenario scenarios/lww-clock-skew.scn --seed 3 --trace 2>"$1" | head -1; echo "status=$?"`, tsx, errors],
      { cwd: root, encoding: "utf8", timeout: 90_000, env: { ...process.env, CANOPY_SIM_FLAGS: "", NODE_OPTIONS: "" } },
    );
    expect(run.stdout).toMatch(/^PASS seed=3 scenario=lww-clock-skew /mu);
    expect(readFileSync(errors, "utf8")).toBe("");
    // The seed passed: the exit code says so.
    expect(run.stdout).toMatch(/^status=0$/mu);
  });

  it("prints its usage for --help, naming every mode and preset, and exits 0", () => {
    const run = sim("--help");
    expect(run.status).toBe(0);
    expect(run.out).toMatch(/^usage: npm run sim -- <mode> \[options\]$/mu);
    for (const word of ["--scenario FILE", "--all", "--preset NAME", "--swarm", "--shrink", "exit codes"]) {
      expect(run.out).toContain(word);
    }
    for (const preset of presetNames) expect(run.out).toContain(preset);
    // --help wins over whatever else the line holds: nothing runs.
    const withMode = sim("--scenario", "scenarios/lww-clock-skew.scn", "--help");
    expect(withMode.status).toBe(0);
    expect(withMode.out).not.toMatch(/^PASS /mu);
    const misspelt = sim("--halp");
    expect(misspelt.out).toMatch(/unknown option --halp \(--help prints the usage\)/u);
    expect(misspelt.status).toBe(2);
  });

  it("refuses a scenario file that cannot be read as bad input, naming the file", () => {
    const missing = path.join(scratch, "missing.scn");
    const run = sim("--scenario", missing);
    expect(run.out).toContain(`${missing}: cannot read the scenario file (ENOENT)`);
    expect(run.out).not.toMatch(/internal error/u);
    expect(run.status).toBe(2);
  });

  it("names the file and the line of a scenario syntax error", () => {
    const broken = path.join(scratch, "broken.scn");
    writeFileSync(broken, "scenario broken\nnodes 3\nfrobnicate yes\n");
    const run = sim("--scenario", broken);
    expect(run.out).toContain(`${broken}: line 3: unknown directive frobnicate`);
    expect(run.status).toBe(2);
  });
});
