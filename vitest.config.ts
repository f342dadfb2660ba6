import { defineConfig } from "vitest/config";
import { simulatorNodeFlags } from "./sim/runtime-flags";

export default defineConfig({
  test: {
    include: ["core/**/*.test.ts", "sim/**/*.test.ts", "adapters/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // One worker per core: vitest's default for `run` is one fewer than the cores, which on a
    // two-core CI machine ran the whole suite in a single worker (~15 minutes instead of ~8).
    maxWorkers: "100%",
    // Most of the suite's CPU is simulator batteries, run side by side in those workers: the V8
    // flags of many runs (sim/runtime-flags.ts).
    execArgv: simulatorNodeFlags("many-runs"),
    // vitest's summary first, then one plain closing line for CI (see the reporter).
    reporters: ["default", "./test/support/closing-line-reporter.ts"],
  },
});
